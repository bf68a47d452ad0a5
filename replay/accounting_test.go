package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// callLog wraps the eevdf policy and records, per task ID, the order of
// the accounting and enqueue calls the simulator makes.
type callLog struct {
	*policies.EEVDF
	calls   []string
	own     []int64 // deltas of UpdateCurrOwn, ns
	delayed map[int]bool
}

func (c *callLog) Enqueue(cpu int, t *policies.Task, f policies.EnqueueFlags) {
	c.calls = append(c.calls, "enqueue "+t.Comm)
	c.EEVDF.Enqueue(cpu, t, f)
}

func (c *callLog) UpdateCurr(cpu int, t *policies.Task, d int64) {
	c.calls = append(c.calls, "update "+t.Comm)
	c.EEVDF.UpdateCurr(cpu, t, d)
}

func (c *callLog) UpdateCurrOwn(cpu int, t *policies.Task, d int64) {
	c.calls = append(c.calls, "own "+t.Comm)
	c.own = append(c.own, d)
	c.EEVDF.UpdateCurrOwn(cpu, t, d)
}

// RequeuesDelayed answers from delayed, by task ID, so that the order the
// simulator chooses can be checked without building the state.
func (c *callLog) RequeuesDelayed(cpu int, t *policies.Task) bool { return c.delayed[t.ID] }

// TestWakeupChargesAfterDelayedRequeue: task "w" sleeps 1 ms after a
// 1 ms burst while "hog" runs. Its wakeup is enqueued after the running
// hog is charged (enqueue_entity's update_curr) unless the policy says the
// enqueue requeues a delayed entity (requeue_delayed_entity runs before
// any update_curr of its level: kernel/sched/fair.c v6.12-v6.18), when
// the order is the other way round.
func TestWakeupChargesAfterDelayedRequeue(t *testing.T) {
	for _, delayed := range []bool{false, true} {
		m := &Model{NrCPUs: 1, WorkloadRoot: -1}
		m.Tasks = []Task{
			{TID: 100, PID: 100, Comm: "hog", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
				Bursts: []Burst{{Len: 10_000_000, End: EndExit}}},
			{TID: 101, PID: 101, Comm: "w", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
				Bursts: []Burst{{Len: 1_000_000, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 1_000_000}},
					{Len: 1_000_000, End: EndExit}}},
		}
		pol := &callLog{EEVDF: policies.NewEEVDF(nil, 1), delayed: map[int]bool{1: delayed}}
		if _, err := Simulate(m, pol, Config{HZ: 250}); err != nil {
			t.Fatal(err)
		}
		var got []string // around the last enqueue of w: its wakeup
		for k := len(pol.calls) - 2; k > 0; k-- {
			if pol.calls[k] == "enqueue w" {
				got = pol.calls[k-1 : k+2]
				break
			}
		}
		want := []string{"update hog", "enqueue w", "update hog"}
		if delayed {
			want = want[1:]
			got = got[1:]
		}
		if len(got) < 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("delayed requeue %v: calls around the wakeup %q, want %q first", delayed, got, want[:2])
		}
	}
}

// TestUpdatePointsChargeOwnLevel: one task in /a runs a 1 ms burst with
// update points 300 and 600 µs into it (its own clock reads): the
// simulator charges those two with UpdateCurrOwn, 300 µs each, and the
// rest (400 µs, at the burst's end) with UpdateCurr. No tick falls inside
// (HZ 250, the trace's ticks at 2 ms + k·4 ms).
func TestUpdatePointsChargeOwnLevel(t *testing.T) {
	m := &Model{NrCPUs: 1, WorkloadRoot: -1, HZ: 250, TickPhase: 2_000_000}
	m.Tasks = []Task{{TID: 100, PID: 100, Comm: "p", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0, Cgroup: "/a",
		Bursts: []Burst{{Len: 1_000_000, End: EndExit}}}}
	m.Tasks[0].AddUpdates(&m.Tasks[0].Bursts[0], 300_000, 600_000)
	pol := &callLog{EEVDF: policies.NewEEVDF(nil, 1)}
	if _, err := Simulate(m, pol, Config{HZ: 250}); err != nil {
		t.Fatal(err)
	}
	if len(pol.own) != 2 || pol.own[0] != 300_000 || pol.own[1] != 300_000 {
		t.Errorf("UpdateCurrOwn deltas %v, want [300000 300000]", pol.own)
	}
	if n := len(pol.calls); n == 0 || pol.calls[n-1] != "update p" {
		t.Errorf("calls %q, want the last a full update", pol.calls)
	}
}

// TestTicksOnRecordedPhase: two nice-0 hogs on one CPU under eevdf switch
// only at ticks (no other accounting point: the slice's end is seen at the
// next tick), so every switch after the first pick falls on a tick. With
// the trace's ticks at 1.46 ms + k·4 ms (Model.HZ 250, TickPhase) the
// switch times are 1.46 ms + k·4 ms; with the tick unknown (HZ 0) the
// replay ticks from the trace's start, at k·4 ms. (The first hog's exit,
// after 100 ms of the two runs, is not on a tick: only the switches of
// the first 90 ms are checked.)
func TestTicksOnRecordedPhase(t *testing.T) {
	for _, tc := range []struct {
		hz    int
		phase int64
		want  int64 // switch times ≡ want mod 4 ms
	}{{250, 1_460_000, 1_460_000}, {0, 0, 0}, {250, 3_999_000, 3_999_000}} {
		m := hogModel(50_000_000, 120, 120)
		m.HZ, m.TickPhase = tc.hz, tc.phase
		res := simulate(t, m, "eevdf", Config{HZ: 250})
		n := 0
		for _, e := range res.Events() {
			if e.Kind != trace.KindSwitch || e.Time == 0 || e.Time > 90_000_000 || e.TID == 0 || e.NextTID == 0 {
				continue
			}
			n++
			if (e.Time-tc.want)%4_000_000 != 0 {
				t.Errorf("HZ %d phase %d: a switch at %d ns, not on a tick (%d + k·4 ms)", tc.hz, tc.phase, e.Time, tc.want)
				break
			}
		}
		if n < 10 {
			t.Errorf("HZ %d phase %d: %d switches between the hogs, want at least 10", tc.hz, tc.phase, n)
		}
	}
}

// strayModel: task 0 ("gen") sleeps between n+1 runs; its blocks are n
// absolute-timer wakeups (CauseExternal) except for deps of them, inferred
// dependencies on task 1 ("worker") at recorded times, whose wake actions
// sit at the end of the worker's runs.
func strayModel(n, deps int) *Model {
	gen := Task{TID: 100, PID: 100, Comm: "gen", Prio: 120, Parent: -1, Init: InitRunnable}
	wk := Task{TID: 101, PID: 100, Comm: "worker", Prio: 120, Parent: -1, Init: InitRunnable}
	for k := 0; k < n; k++ {
		b := Burst{Len: 10_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: int64(k+1) * 1_000_000}}
		if k < deps {
			b.Wake = Cause{Kind: CauseDependency, Waker: 1, Inferred: true, At: b.Wake.At}
			wk.Bursts = append(wk.Bursts, Burst{Len: 50_000, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 1}})
			wk.AddAction(&wk.Bursts[len(wk.Bursts)-1], Action{At: 50_000, Kind: ActWake, Target: 0, Block: int32(k)})
		}
		gen.Bursts = append(gen.Bursts, b)
	}
	gen.Bursts = append(gen.Bursts, Burst{Len: 10_000, End: EndExit})
	wk.Bursts = append(wk.Bursts, Burst{Len: 10_000, End: EndExit})
	return &Model{NrCPUs: 2, WorkloadRoot: -1, Tasks: []Task{gen, wk}}
}

// TestTimerLikeWakeups: an absolute-timer task with 300 timer wakeups
// takes up to 1 % of them (3) from another task that perf shows in its
// place without naming a waker as deadlines too (Cause.ByAt); 2 of 300
// are, 5 of 300 are not (that task then wakes it for real).
func TestTimerLikeWakeups(t *testing.T) {
	for _, tc := range []struct {
		deps int
		want bool
	}{{2, true}, {5, false}} {
		m := strayModel(300+tc.deps, tc.deps)
		x := &extractor{m: m}
		x.timerLikeWakeups(0, 300)
		for k := 0; k < tc.deps; k++ {
			if w := m.Tasks[0].Bursts[k].Wake; w.Kind != CauseDependency || w.ByAt != tc.want {
				t.Errorf("%d of 300: block %d kind %d ByAt %v, want a dependency with ByAt %v", tc.deps, k, w.Kind, w.ByAt, tc.want)
			}
		}
	}
}

// TestDependencyDeadline: gen runs 10 µs from 0 and sleeps until worker
// wakes it at the end of worker's next 50 µs run, recorded at 1 ms. The
// worker runs first a 20 ms burst on the other CPU, so its wakeup comes at
// 20.05 ms; with the recorded time as a deadline (ByAt) gen wakes at
// 1 ms + pingPongWindow (0.1 ms) = 1.1 ms instead, and its second run
// starts then on its idle CPU (no idle-exit cost configured).
func TestDependencyDeadline(t *testing.T) {
	for _, byAt := range []bool{false, true} {
		m := strayModel(1, 1)
		m.Tasks[0].Bursts[0].Wake.ByAt = byAt
		wk := &m.Tasks[1]
		wk.Bursts = append([]Burst{{Len: 20_000_000, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 1}}}, wk.Bursts...)
		m.Tasks[0].CPU, wk.CPU = 0, 1
		res := simulate(t, m, "eevdf", Config{HZ: 250})
		iv := runs(res.Events())[100]
		want := int64(20_050_001) // after the worker's 20 ms run, a 1 ns sleep and its 50 µs
		if byAt {
			want = 1_100_000
		}
		if len(iv) < 2 || iv[1][0] != want {
			t.Errorf("ByAt %v: gen's runs %v, want the second to start at %d ns", byAt, iv, want)
		}
	}
}

// TestStrayShareCountsSelfWakes: a generator with 50 timer wakeups at
// absolute times (every 1 ms; its runs cycle through 100, 300 and 500 µs,
// so its sleeps, 900, 700 and 500 µs, spread more than the wake times
// do) and 400
// arrivals that expired while it ran (self-wakeups) has 450 timers; 2
// inferred dependencies on its worker are 0.44 % of them, under
// maxStrayWakeShare, and get their recorded time as a deadline. Counted
// against the 50 it slept for alone they would be 4 %.
func TestStrayShareCountsSelfWakes(t *testing.T) {
	gen := Task{TID: 100, PID: 100, Comm: "gen", Prio: 120, Parent: -1, Init: InitRunnable}
	at := int64(0)
	for k := 0; k < 52; k++ {
		run := 100_000 + int64(k%3)*200_000
		wake := int64(k+1) * 1_000_000
		b := Burst{Len: run, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: wake - (at + run), At: wake}}
		if k == 10 || k == 20 {
			b.Wake = Cause{Kind: CauseDependency, Waker: 1, Inferred: true, At: wake}
		}
		gen.Bursts = append(gen.Bursts, b)
		at = wake
	}
	gen.Bursts = append(gen.Bursts, Burst{Len: 10_000, End: EndExit})
	wk := Task{TID: 101, PID: 100, Comm: "worker", Prio: 120, Parent: -1, Init: InitRunnable,
		Bursts: []Burst{{Len: 10_000, End: EndExit}}}
	x := &extractor{m: &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{gen, wk}}, st: make([]ext, 2)}
	x.st[0].selfWakes = make([]selfWake, 400)
	x.absoluteTimers()
	for _, k := range []int{10, 20} {
		if w := x.m.Tasks[0].Bursts[k].Wake; w.Kind != CauseDependency || !w.ByAt {
			t.Errorf("block %d: %+v, want a dependency with its recorded time as a deadline", k, w)
		}
	}
	if w := x.m.Tasks[0].Bursts[0].Wake; w.Kind != CauseExternal {
		t.Errorf("block 0: %+v, want an absolute wakeup", w)
	}
}
