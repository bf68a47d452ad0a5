package replay

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestInferUntilLastSibling: three `hog 3` (children of sh, task 0)
// started together, as new-user pass 17's r1.tv shows them (times in ms):
//
//   - task 1 starts at 10 and spins in one 520 ms burst that ends in its
//     exit at 3010 (the exit's wakeup of sh inside it);
//   - task 2 starts at 10.3, spins 526 ms, is preempted by the reader its
//     exit's flush woke (a 0.010 ms block inferred from the ping-pong),
//     and exits in a 0.564 ms burst at 3010.2;
//   - task 3 starts at 35, spins 690 ms, is preempted likewise (0.032 ms)
//     and exits in a 0.6 ms burst at 3046 that wakes sh, waiting for its
//     last child, 0.585 ms in.
//
// spinBurst by hand: task 1's spin is burst 0, ending at its last event,
// 3010; task 2's is burst 0 (526 of 526.564 ms, over spinnerShare), ending
// at 3010.2 − 0.564 − 0.010 = 3009.626; task 3's is burst 0 (690 of 690.6
// ms), ending at 3046 − 0.6 − 0.032 = 3045.368: its exit burst's wakeup is
// the exit's own (tailDoesMore). The three exit within 36 ms, 1.2 % of
// their mean life of 3003.6 ms (under deadlineSpread, 3 %), so each is a
// deadline-bound spinner, its Deadline its spin's end less its start:
// 3000, 2999.326 and 3010.368 ms. Before tailDoesMore, task 3's wakeup made
// it no spinner: kept work-bound (its 690 ms of work), the one hog a quota
// what-if ran for 762 s.
//
// With a fork in task 3's exit burst it does more than exit: it is no
// spinner, stays work-bound, and KeptWorkBound (and so SpinExits, which
// the workload line names) holds it, as it exited with its siblings. One
// that exited at 2500 ms, 510 ms (17 % of a life) before its siblings'
// first exit, ended before their deadline: its work did, not the clock,
// and it is not named.
func TestInferUntilLastSibling(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		name      string
		kind      ActionKind // of task 3's action in its exit burst
		last      int64      // task 3's last event
		deadlines []int64    // tasks 1-3; 0: work-bound
		kept      []int
	}{
		{"exit wakes sh", ActWake, 3046 * ms, []int64{3000 * ms, 2999.326 * ms, 3010.368 * ms}, nil},
		{"exit forks", ActFork, 3046 * ms, []int64{3000 * ms, 2999.326 * ms, 0}, []int{3}},
		{"ended before", ActFork, 2500 * ms, []int64{3000 * ms, 2999.326 * ms, 0}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			hog := func(start, last int64, bursts ...Burst) Task {
				return Task{Comm: "hog", Parent: 0, Workload: true, Start: start, Last: last, Repeat: -1, Bursts: bursts}
			}
			m := &Model{Tasks: []Task{{Comm: "sh", Parent: -1, Workload: true, Bursts: []Burst{{End: EndTrace}}},
				hog(10*ms, 3010*ms, Burst{Len: 520 * ms, End: EndExit}),
				hog(10.3*ms, 3010.2*ms,
					Burst{Len: 526 * ms, End: EndBlock, Slept: 0.010 * ms, Wake: Cause{Kind: CauseDependency, Inferred: true}},
					Burst{Len: 0.564 * ms, End: EndExit}),
				hog(35*ms, c.last,
					Burst{Len: 690 * ms, End: EndBlock, Slept: 0.032 * ms, Wake: Cause{Kind: CauseDependency, Inferred: true}},
					Burst{Len: 0.6 * ms, End: EndExit}),
			}}
			m.Tasks[1].SetActions(&m.Tasks[1].Bursts[0], []Action{{At: 519.9 * ms, Kind: ActWake, Target: 0}})
			m.Tasks[3].SetActions(&m.Tasks[3].Bursts[1], []Action{{At: 0.585 * ms, Kind: c.kind, Target: 0}})
			x := &extractor{m: m}
			x.inferUntil()
			for k, dl := range c.deadlines {
				tk := &m.Tasks[k+1]
				want := UntilWork
				if dl > 0 {
					want = UntilDeadline
				}
				if tk.Until != want || tk.Deadline != dl || tk.Spinner != (dl > 0) {
					t.Errorf("task %d: %s, deadline %d ns, spinner %v; want %s, %d ns, spinner %v",
						k+1, tk.Until, tk.Deadline, tk.Spinner, want, dl, dl > 0)
				}
			}
			if got := m.KeptWorkBound(); !slices.Equal(got, c.kept) {
				t.Errorf("KeptWorkBound = %v, want %v", got, c.kept)
			}
			if got := m.SpinExits(); !slices.Equal(got, c.kept) {
				t.Errorf("SpinExits = %v, want %v", got, c.kept)
			}
		})
	}
}

// TestForkLoops: a workload shell (task 0) forks 25 children one after
// another, each living 1 ms of every 2 ms (forked at 2k ms, gone at 2k+1):
// a loop of 25 commands, spanning 0 to 49 ms. 25 children forked together
// (all alive at once, a parallel make) are no loop, nor are 19 serial
// ones (fewer than minLoopChildren), nor children of a task outside the
// workload.
func TestForkLoops(t *testing.T) {
	mk := func(n int, serial, workload bool) *Model {
		m := &Model{Tasks: []Task{{TID: 1, Comm: "sh", Parent: -1, Workload: workload}}}
		for k := range n {
			start, last := int64(2*k)*1_000_000, int64(2*k+1)*1_000_000
			if !serial {
				start, last = 0, 100_000_000
			}
			m.Tasks = append(m.Tasks, Task{TID: trace.TID(2 + k), Comm: "true", Parent: 0, Init: InitForked, Start: start, Last: last, Workload: workload})
		}
		return m
	}
	if got := mk(25, true, true).ForkLoops(); len(got) != 1 || got[0] != (ForkLoop{Task: 0, Children: 25, Span: 49_000_000}) {
		t.Errorf("serial loop: %+v, want task 0, 25 children over 49 ms", got)
	}
	for name, m := range map[string]*Model{"parallel": mk(25, false, true), "19": mk(19, true, true), "not the workload": mk(25, true, false)} {
		if got := m.ForkLoops(); len(got) != 0 {
			t.Errorf("%s: %+v, want no loop", name, got)
		}
	}
}

// TestCycleIncidentalWaits (new-user pass 115 F1): two sibling threads
// (wl, children of task 0) that each burn 2 ms and sleep 1 ms on a timer
// 100 times from 10 ms, then exit in a 0.1 ms burst at 310.1 ms, are a
// cycle of timer sleeps and deadline-bound when at most a tenth of their
// 100 blocks are incidental: a wait another task ended (a lock their
// parent held while it forked) or a burst that wakes another task. With 9
// such waits and one waking burst (10 of 100) each is deadline-bound: the
// wakeup of its block 98 at 10 + 3·99 = 307 ms found the deadline not
// yet past, that of block 99 at 310 ms past it, so the deadline is the
// midpoint, 308.5 ms, 298.5 ms after its start. With 10 waits and the
// waking burst (11 of 100) they are not self-paced: count-bound (three
// blocks or more). Before, one such wait kept them work-bound, and a
// --cpus 1 prediction ran their recorded CPU time, 43 % long.
func TestCycleIncidentalWaits(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		deps int
		want UntilKind
		dl   int64
	}{{9, UntilDeadline, 298.5 * ms}, {10, UntilCount, 0}} {
		thread := func() Task {
			tk := Task{Comm: "wl", Parent: 0, Workload: true, Start: 10 * ms, Last: 310.1 * ms, Repeat: -1}
			for k := range 100 {
				wake := Cause{Kind: CauseTimer, Delay: ms, At: 10*ms + int64(3*(k+1))*ms}
				if k%10 == 3 && k/10 < c.deps { // blocks 3, 13, 23, ...
					wake = Cause{Kind: CauseDependency, Waker: 0, Inferred: true, At: wake.At}
				}
				tk.Bursts = append(tk.Bursts, Burst{Len: 2 * ms, End: EndBlock, Slept: ms, Wake: wake})
			}
			tk.Bursts = append(tk.Bursts, Burst{Len: 0.1 * ms, End: EndExit})
			return tk
		}
		m := &Model{Tasks: []Task{{Comm: "wl", Parent: -1, Workload: true, Bursts: []Burst{{End: EndTrace}}}, thread(), thread()}}
		for _, i := range []int{1, 2} {
			m.Tasks[i].SetActions(&m.Tasks[i].Bursts[5], []Action{{At: ms, Kind: ActWake, Target: 0}})
		}
		x := &extractor{m: m}
		x.inferUntil()
		for _, i := range []int{1, 2} {
			if tk := &m.Tasks[i]; tk.Until != c.want || tk.Deadline != c.dl {
				t.Errorf("%d waits: task %d %s, deadline %d ns; want %s, %d ns", c.deps, i, tk.Until, tk.Deadline, c.want, c.dl)
			}
		}
	}
}

// TestDrainsProducer (pass 116 F2's pool, busy): a producer thread (task
// 0, pid 1) sleeps 2 ms (a relative timer) before each of n items; two
// worker threads of its process, each woken by it once for its first
// item at 2 ms, then run 500 ms without a block and exit at 502 ms, 0.1
// ms apart: siblings that look like spinners to a deadline (inferUntil).
// With the producer's last item at 60 ms (30 items) the workers exit 442
// ms after it, more than deadlineSpread (3 %) of their 501 ms lives: they
// drained a backlog and are work-bound. With its last item at 500 ms
// (250 items) they exit 2 ms after it, within 3 % (15 ms): a flag set on
// the producer's last timer can stop them, and they stay deadline-bound,
// their deadline their spins' end (501 and 500.9 ms after their starts).
func TestDrainsProducer(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		items int
		want  UntilKind
	}{{30, UntilWork}, {250, UntilDeadline}} {
		gen := Task{Comm: "pp", PID: 1, Parent: -1, Workload: true, Start: 0, Repeat: -1}
		for k := range c.items {
			gen.Bursts = append(gen.Bursts, Burst{Len: 0.01 * ms, End: EndBlock, Slept: 2 * ms, Wake: Cause{Kind: CauseTimer, Delay: 2 * ms, At: int64(2*(k+1)) * ms}})
		}
		gen.Bursts = append(gen.Bursts, Burst{Len: 0.01 * ms, End: EndExit})
		gen.Last = 503 * ms
		worker := func(end int64) Task {
			return Task{Comm: "w", PID: 1, Parent: 0, Workload: true, Start: 1 * ms, Last: end, Repeat: -1, Bursts: []Burst{
				{Len: 0.01 * ms, End: EndBlock, Slept: 1 * ms, Wake: Cause{Kind: CauseDependency, Waker: 0, At: 2 * ms}},
				{Len: end - 2*ms, End: EndExit}}}
		}
		m := &Model{WorkloadRoot: 0, Tasks: []Task{gen, worker(502 * ms), worker(501.9 * ms)}}
		x := &extractor{m: m}
		x.inferUntil()
		for _, i := range []int{1, 2} {
			if m.Tasks[i].Until != UntilDeadline {
				t.Fatalf("%d items: worker %d %s after inferUntil; want deadline (the shape this pass undoes)", c.items, i, m.Tasks[i].Until)
			}
		}
		x.drainsProducer()
		for _, i := range []int{1, 2} {
			if tk := &m.Tasks[i]; tk.Until != c.want {
				t.Errorf("%d items: worker %d %s; want %s", c.items, i, tk.Until, c.want)
			}
		}
		if c.want == UntilWork && (m.Stats.DeadlineBound != 0 || m.Stats.WorkBound != 2) {
			t.Errorf("%d items: stats deadline %d work %d; want 0 and 2", c.items, m.Stats.DeadlineBound, m.Stats.WorkBound)
		}
	}
}

// TestLoopsUntilExit: a ticker (task 1, workload) sleeps on a relative
// 1 ms timer between 30 bursts of 0.01 ms, from 0 to its final wakeup,
// then exits; a hog (task 2) runs from 0 to its exit. With the hog's exit
// at 29.5 ms, 0.5 ms (half a cycle) before the ticker's final wakeup at
// 30 ms, the ticker loops until the hog exits (LoopsUntilExitOf 3, Repeat
// its last cycle, burst 29). With the hog's exit at 20 ms, 10 cycles
// before, it is not tied to it (a count-bound loop that ended on its
// own).
func TestLoopsUntilExit(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		hogEnd int64
		want   int32
	}{{29.5 * ms, 3}, {20 * ms, 0}} {
		ticker := Task{Comm: "ticker", PID: 1, Parent: 0, Workload: true, Start: 0, Last: 30.02 * ms, Repeat: -1}
		for k := range 30 {
			ticker.Bursts = append(ticker.Bursts, Burst{Len: 0.01 * ms, End: EndBlock, Slept: ms, Wake: Cause{Kind: CauseTimer, Delay: ms, At: int64(k+1) * ms}})
		}
		ticker.Bursts = append(ticker.Bursts, Burst{Len: 0.01 * ms, End: EndExit})
		hog := Task{Comm: "hog", PID: 1, Parent: 0, Workload: true, Start: 0, Last: c.hogEnd, Repeat: -1, Bursts: []Burst{{Len: c.hogEnd, End: EndExit}}}
		root := Task{Comm: "main", PID: 1, Parent: -1, Workload: true, Repeat: -1, Bursts: []Burst{{End: EndTrace}}}
		m := &Model{WorkloadRoot: 0, Tasks: []Task{root, ticker, hog}}
		x := &extractor{m: m}
		x.inferLoopsUntilExit()
		tk := &m.Tasks[1]
		if tk.LoopsUntilExitOf != c.want || c.want > 0 && (tk.Repeat != 29 || m.Stats.LoopsUntilExit != 1) {
			t.Errorf("hog exit at %d ns: loops until %d, repeat %d, stat %d; want %d (repeat 29 when tied)", c.hogEnd, tk.LoopsUntilExitOf, tk.Repeat, m.Stats.LoopsUntilExit, c.want)
		}
	}
}

// TestLoneSpinnerWitnessLife (new-user pass 123 F1): a lone spinner (task
// 1: 0 to 1000 ms, one burst, then its exit) beside a clock-paced task
// (task 2: 5 blocks ended at absolute times, its last event 1001 ms, 1 ms
// after the spinner's, within deadlineSpread). A witness that lived 700 ms
// (at least half the spinner's life) makes it deadline-bound, as reqsrv's
// generator beside its hog; one that lived 3 ms (a `bc` at the end of a
// script) is no witness: the spinner stays work-bound.
func TestLoneSpinnerWitnessLife(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		start int64
		want  UntilKind
	}{{301 * ms, UntilDeadline}, {998 * ms, UntilWork}} {
		spin := Task{Comm: "xz", PID: 2, Parent: 0, Workload: true, Start: 0, Last: 1000 * ms, Repeat: -1,
			Bursts: []Burst{{Len: 1000 * ms, End: EndExit}}}
		w := Task{Comm: "bc", PID: 3, Parent: 0, Workload: true, Start: c.start, Last: 1001 * ms, Repeat: -1}
		for k := range 5 {
			at := c.start + int64(k+1)*(1001*ms-c.start)/6
			w.Bursts = append(w.Bursts, Burst{Len: 10_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: at}})
		}
		w.Bursts = append(w.Bursts, Burst{Len: 10_000, End: EndExit})
		root := Task{Comm: "sh", PID: 1, Parent: -1, Workload: true, Repeat: -1, Bursts: []Burst{{End: EndTrace}}}
		m := &Model{WorkloadRoot: 0, Tasks: []Task{root, spin, w}}
		(&extractor{m: m}).inferUntil()
		if got := m.Tasks[1].Until; got != c.want {
			t.Errorf("witness from %d ns: spinner %s; want %s", c.start, got, c.want)
		}
	}
}
