package replay

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// TestUpdatePointsEndSlices: two nice-0 hogs of 10 ms on one CPU, each
// with an update point every 1 ms of its CPU time (a clock_gettime of the
// thread's CPU clock). eevdf's base slice on 1 CPU is 0.7 ms: at A's first
// update point (1 ms) its vruntime has passed its deadline (0.7 ms), so
// update_deadline reschedules and B (deadline 0.7 ms, eligible) runs, until
// its own first update point. Without update points each hog runs a whole
// 4 ms tick (TestHogsAlternatePerTick); with them every run is 1 ms: A
// [0,1) B [1,2) A [2,3) ..., ten runs each, the last ending at 20 ms.
func TestUpdatePointsEndSlices(t *testing.T) {
	m := hogModel(10_000_000, 120, 120)
	for i := range m.Tasks {
		for u := int64(1); u < 10; u++ {
			m.Tasks[i].AddUpdates(&m.Tasks[i].Bursts[0], u*1_000_000)
		}
	}
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	r := runs(res.Events())
	for _, tid := range []trace.TID{100, 101} {
		iv := r[tid]
		if len(iv) != 10 {
			t.Errorf("tid %d ran %d times, want 10: %v", tid, len(iv), iv)
		}
		for k, x := range iv {
			want := int64(2*k+int(tid-100)) * 1_000_000
			if x != [2]int64{want, want + 1_000_000} {
				t.Errorf("tid %d run %d = %v, want [%d, %d)", tid, k, x, want, want+1_000_000)
			}
		}
	}
	if res.End != 20_000_000 {
		t.Errorf("last event at %d ns, want 20 ms", res.End)
	}
}

// TestInferTick: 30 tick events at 1.46 ms + k·4 ms (k = 0..29, task 1)
// and 30 others at 0.3 ms + k·3.7 ms (task 2). Each task votes 1 (30
// events, weight 1/30 each). At 250 Hz the densest 50 µs window holds the
// ticks' vote (and at most a few others'): score ≈ 1/2 − 50/4000; at
// 1000 Hz the ticks also sit in one 1 ms phase but an even spread puts 4x
// more in a window: a lower score, and 250 is the lowest HZ within 80 % of
// the best; 100 and 300 Hz spread the ticks over 5 and 3 phases. The
// phase is the 10 µs bin of the ticks, 1460 µs.
func TestInferTick(t *testing.T) {
	var ts []int64
	var task []int
	for k := int64(0); k < 30; k++ {
		ts = append(ts, 1_460_000+k*4_000_000, 300_000+k*3_700_000)
		task = append(task, 1, 2)
	}
	hz, phase := inferTick(ts, task)
	if hz != 250 || phase != 1_460_000 {
		t.Errorf("inferTick = %d Hz, phase %d ns; want 250 Hz, 1460000 ns", hz, phase)
	}
	if hz, _ := inferTick(ts[1:20:20], task[1:20:20]); hz != 0 {
		t.Errorf("10 ticks and 9 others gave %d Hz, want 0 (too few to tell)", hz)
	}
}

// TestInferTickSelfAccounting: a periodic task (task 3) wakes every 2 ms
// at 0.358 ms + j·2 ms (j = 0..199) and reads its CPU clock 150, 225 and
// 300 µs into each run: 600 events on the 2 ms grid. Two hogs (tasks 1
// and 2) take the 250 Hz tick at 1.44 ms + k·4 ms, 50 each. Counting
// events, the 1000 Hz grid folds the periodic task's two 2 ms phases into
// one: 200 events in the window at 508 µs against the ticks' 100, score
// 200/700 − 50/1000 = 0.236 against 250 Hz's 100/700 − 50/4000 = 0.130,
// and 1000 Hz would win. With one vote per task (3 in all): 250 Hz holds
// the two hogs' votes, 2/3 − 0.0125 = 0.654; 1000 Hz the same two,
// 2/3 − 0.05 = 0.617 (the periodic task's third of a vote in each of
// three bins is less), within 80 %, and the lower HZ wins: 250 Hz, phase
// 1440 µs.
func TestInferTickSelfAccounting(t *testing.T) {
	var ts []int64
	var task []int
	for k := int64(0); k < 100; k++ {
		ts = append(ts, 1_440_000+k*4_000_000)
		task = append(task, 1+int(k%2))
	}
	for j := int64(0); j < 200; j++ {
		for _, off := range []int64{150_000, 225_000, 300_000} {
			ts = append(ts, 358_000+j*2_000_000+off)
			task = append(task, 3)
		}
	}
	hz, phase := inferTick(ts, task)
	if hz != 250 || phase != 1_440_000 {
		t.Errorf("inferTick = %d Hz, phase %d ns; want 250 Hz, 1440000 ns", hz, phase)
	}
}

// timerTrace is one task (tid 5) on CPU 0 that runs bursts of the given
// lengths (ns) and sleeps after each; wake(k, blockedAt) gives the time of
// the k-th wakeup, a sched_waking from the idle CPU (a timer).
func timerTrace(bursts []int64, wake func(k int, blockedAt int64) int64) []trace.Event {
	var evs []trace.Event
	t := int64(1_000_000)
	for k, b := range bursts {
		evs = append(evs, sw(t, 0, 0, 5), rt(t+b, 5, b), sw(t+b, 5, trace.StateInterruptible, 0))
		w := trace.NewEvent(wake(k, t+b), 0, trace.KindWaking)
		w.TID, w.CurTID, w.TargetCPU, w.Prio = 5, 0, 0, 120
		evs = append(evs, w)
		t = w.Time
	}
	return append(evs, sw(t, 0, 0, 5), rt(t+100_000, 5, 100_000), sw(t+100_000, 5, trace.StateDead, 0))
}

// TestAbsoluteTimers: a task that sleeps 2 ms after bursts of 1, 3, 2, 4,
// 1, 3 ms has sleeps of one length (MAD 0) and intervals between wakeups
// of 3, 5, 4, 6, 3 ms (MAD 1 ms): relative sleeps, kept as CauseTimer
// with Delay 2 ms. A task woken every 10 ms (k·10 ms + 11 ms) after the
// same bursts has intervals of one length and sleeps of 9, 7, 8, 6, 9,
// 7 ms: absolute, CauseExternal at the recorded times.
func TestAbsoluteTimers(t *testing.T) {
	bursts := []int64{1e6, 3e6, 2e6, 4e6, 1e6, 3e6}
	rel, err := Extract(trace.NewSliceSource(timerTrace(bursts, func(_ int, at int64) int64 { return at + 2_000_000 }), nil))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := Extract(trace.NewSliceSource(timerTrace(bursts, func(k int, _ int64) int64 { return int64(k)*10_000_000 + 11_000_000 }), nil))
	if err != nil {
		t.Fatal(err)
	}
	for k, b := range rel.Tasks[0].Bursts[:len(bursts)] {
		if b.Wake.Kind != CauseTimer || b.Wake.Delay != 2_000_000 {
			t.Errorf("relative sleeper, block %d: %+v, want a 2 ms timer", k, b.Wake)
		}
	}
	for k, b := range abs.Tasks[0].Bursts[:len(bursts)] {
		if b.Wake.Kind != CauseExternal || b.Wake.At != int64(k)*10_000_000+11_000_000 {
			t.Errorf("periodic task, block %d: %+v, want external at %d", k, b.Wake, int64(k)*10_000_000+11_000_000)
		}
	}
	if rel.Stats.AbsoluteTimers != 0 || abs.Stats.AbsoluteTimers != 6 {
		t.Errorf("absolute timers: relative sleeper %d, periodic task %d; want 0 and 6", rel.Stats.AbsoluteTimers, abs.Stats.AbsoluteTimers)
	}
}

// cycleModel is one task on CPU 0 that burns 5 ms and sleeps 2 ms
// (relative), three times, then exits after 0.1 ms; deadline-bound with
// the given deadline, repeating its third cycle.
func cycleModel(deadline int64) *Model {
	b := Burst{Len: 5_000_000, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 2_000_000}}
	return &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{{TID: 7, PID: 7, Comm: "mi", Prio: 120, Parent: -1,
		Init: InitRunnable, Workload: true, Until: UntilDeadline, Deadline: deadline, Repeat: 2,
		Bursts: []Burst{b, b, b, {Len: 100_000, End: EndExit}}}}}
}

// TestDeadlineCycle: alone on a CPU, each cycle takes 7 ms and the loop
// checks the clock at its top, after each sleep: at 7, 14, 21, ... ms.
//   - deadline 50 ms: the three recorded cycles end at 21 ms (< 50: repeat
//     the third), repeats start at 21, 28, 35, 42, 49 (5 repeats), the top
//     at 56 ms finds the deadline past: the final 0.1 ms burst, exit at
//     56.1 ms; CPU 8 × 5 + 0.1 = 40.1 ms.
//   - deadline 10 ms: cycles at 0 and 7 ms; the top at 14 ms is past it:
//     straight to the exit at 14.1 ms (one stop), CPU 10.1 ms.
//   - as work (--until mi=work): the three cycles and the exit, 21.1 ms.
func TestDeadlineCycle(t *testing.T) {
	for _, c := range []struct {
		name             string
		deadline         int64
		until            *UntilOverride
		end, cpu         int64
		repeats, stopped int
	}{
		{"more CPU", 50_000_000, nil, 56_100_000, 40_100_000, 5, 0},
		{"less CPU", 10_000_000, nil, 14_100_000, 10_100_000, 0, 1},
		{"work", 50_000_000, &UntilOverride{Kind: UntilWork}, 21_100_000, 15_100_000, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{HZ: 250}
			if c.until != nil {
				cfg.Overrides = []Override{{Sel: Selector{Comm: "mi", PID: -1, TID: -1}, Until: c.until}}
			}
			res := simulate(t, cycleModel(c.deadline), "eevdf", cfg)
			var cpu int64
			for _, e := range res.Events() {
				if e.Kind == trace.KindRuntime {
					cpu += e.Runtime
				}
			}
			if res.End != c.end || cpu != c.cpu || res.Stats.Repeats != c.repeats || res.Stats.DeadlineStops != c.stopped {
				t.Errorf("end %d ns, CPU %d ns, %d repeats, %d stops; want %d, %d, %d, %d",
					res.End, cpu, res.Stats.Repeats, res.Stats.DeadlineStops, c.end, c.cpu, c.repeats, c.stopped)
			}
		})
	}
}

// TestDeadlineSpinners: two sibling spinners recorded with 100 ms of CPU
// each (2 CPUs), deadline 100 ms after their start, replayed on 1 CPU:
// they share it (50 ms each, give or take one 4 ms tick) and both exit at
// their deadline, 100 ms; as work-bound they would run 200 ms. Given 2 CPUs
// and a 150 ms deadline, each spins 150 ms: more than recorded.
func TestDeadlineSpinners(t *testing.T) {
	mk := func(deadline int64) *Model {
		m := hogModel(100_000_000, 120, 120)
		for i := range m.Tasks {
			tk := &m.Tasks[i]
			tk.Workload, tk.Until, tk.Deadline, tk.Spinner = true, UntilDeadline, deadline, true
		}
		return m
	}
	res := simulate(t, mk(100_000_000), "eevdf", Config{HZ: 250})
	r := runs(res.Events())
	for _, tid := range []trace.TID{100, 101} {
		if got := ranBefore(r[tid], 1e9); got < 46_000_000 || got > 54_000_000 {
			t.Errorf("tid %d ran %.1f ms, want 50 ± 4", tid, float64(got)/1e6)
		}
	}
	if res.End != 100_000_000 || res.Stats.DeadlineStops != 2 {
		t.Errorf("end %d ns, %d stops; want 100 ms and 2", res.End, res.Stats.DeadlineStops)
	}
	m := mk(150_000_000)
	m.NrCPUs, m.Tasks[1].CPU = 2, 1 // one on each CPU from the start
	res = simulate(t, m, "eevdf", Config{HZ: 250})
	r = runs(res.Events())
	for _, tid := range []trace.TID{100, 101} {
		if got := ranBefore(r[tid], 1e9); got != 150_000_000 {
			t.Errorf("tid %d ran %.1f ms on its own CPU, want 150", tid, float64(got)/1e6)
		}
	}
}

// TestInferUntil: siblings "hog" (children of task 0) that spin and exit
// 2000 and 2001 ms after starting at 0 and 10 ms (spread 1 ms of a 2 s
// life, under 3 %) are deadline-bound spinners with Deadline = their own
// lifetime; siblings "job" exiting at 1000 and 2000 ms are not (work); a
// lone spinner "solo" exiting at 1500 ms, 25 % of its life from the
// deadline-bound hogs' end, keeps the default (work; one that ends with
// them is TestLoneSpinnerBesideClock's case).
func TestInferUntil(t *testing.T) {
	spin := func(comm string, start, last int64) Task {
		return Task{Comm: comm, Parent: 0, Workload: true, Start: start, Last: last, Repeat: -1,
			Bursts: []Burst{{Len: 10_000_000, End: EndBlock, Wake: Cause{Kind: CauseTimer}}, {Len: 900_000_000, End: EndExit}}}
	}
	m := &Model{Tasks: []Task{{Comm: "sh", Parent: -1, Workload: true, Bursts: []Burst{{End: EndTrace}}},
		spin("hog", 0, 2_000_000_000), spin("hog", 10_000_000, 2_011_000_000),
		spin("job", 0, 1_000_000_000), spin("job", 0, 2_000_000_000), spin("solo", 0, 1_500_000_000)}}
	x := &extractor{m: m}
	x.inferUntil()
	want := []struct {
		until    UntilKind
		deadline int64
	}{{UntilWork, 0}, {UntilDeadline, 2_000_000_000}, {UntilDeadline, 2_001_000_000}, {UntilWork, 0}, {UntilWork, 0}, {UntilWork, 0}}
	for i, w := range want {
		if tk := m.Tasks[i]; tk.Until != w.until || tk.Deadline != w.deadline {
			t.Errorf("task %d (%s): %s, deadline %d; want %s, %d", i, tk.Comm, tk.Until, tk.Deadline, w.until, w.deadline)
		}
	}
	if m.Stats.DeadlineBound != 2 || m.Stats.WorkBound != 4 {
		t.Errorf("stats %+v: want 2 deadline-bound, 4 work-bound", m.Stats)
	}
}

// TestInferUntilThrottled: two "w" spinners (children of task 0) started
// at 0 exit 2000 ms and 2090 ms after it: 90 ms apart, 4.4 % of their 2.045
// s mean life, over the 3 % siblings of one wall-clock time keep. The
// later one waited for the CPU from 1950 ms to its final run. In a cgroup
// with a CPU quota (/q, cpu.max 30ms/100ms) that wait is a throttle: its
// time came while it was held off the CPU, so both are deadline-bound at
// the earliest exit (Deadline 2000 ms each). Without the quota, or with
// the wait starting after the earlier exit (2010 ms), they stay work-bound.
func TestInferUntilThrottled(t *testing.T) {
	for _, c := range []struct {
		name  string
		quota int64
		wait  int64
		until UntilKind
		dl    int64
	}{
		{"quota", 30_000_000, 1_950_000_000, UntilDeadline, 2_000_000_000},
		{"no quota", -1, 1_950_000_000, UntilWork, 0},
		{"wait after the earlier exit", 30_000_000, 2_010_000_000, UntilWork, 0},
	} {
		spin := func(last, wait int64) Task {
			return Task{Comm: "w", Parent: 0, Workload: true, Start: 0, Last: last, FinalWaitFrom: wait, Repeat: -1, Cgroup: "/q",
				Bursts: []Burst{{Len: 10_000_000, End: EndBlock, Wake: Cause{Kind: CauseTimer}}, {Len: 600_000_000, End: EndExit}}}
		}
		m := &Model{Tasks: []Task{{Comm: "sh", Parent: -1, Workload: true, Bursts: []Burst{{End: EndTrace}}},
			spin(2_000_000_000, 1_990_000_000), spin(2_090_000_000, c.wait)}}
		m.Meta.CgroupSettings = []trace.CgroupSettings{{Path: "/q", QuotaNS: c.quota, PeriodNS: 100_000_000}}
		x := &extractor{m: m}
		x.inferUntil()
		for i := 1; i <= 2; i++ {
			if tk := m.Tasks[i]; tk.Until != c.until || tk.Deadline != c.dl {
				t.Errorf("%s: task %d: %s, deadline %d; want %s, %d", c.name, i, tk.Until, tk.Deadline, c.until, c.dl)
			}
		}
	}
}

// TestPredictionCurrentTask: every predicted event names as its current
// task (CurTID) the task the CPU's last sched_switch switched in (0 when
// idle), as a recorded trace does; so the latency report finds no broken
// switch chain in a prediction. Before the fix a timer's wakeup said the
// CPU was idle and a migration named the migrated task: mi6.2cpu pinned to
// CPU 0 read back with "776 of 1337 sched_switch events switched out a task
// that the CPU's previous sched_switch had not switched in".
func TestPredictionCurrentTask(t *testing.T) {
	src, err := trace.Open("../testdata/traces/nice.2cpu.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Extract(src)
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	cpu0, zero := policies.CPUSet(1), 0
	cfg := DefaultConfig()
	cfg.Overrides = []Override{{Sel: Selector{Workload: true, PID: -1, TID: -1}, Affinity: &cpu0, Nice: &zero}}
	res := simulate(t, m, "eevdf", cfg)
	on := map[trace.CPU]trace.TID{}
	bad, n := 0, 0
	for _, e := range res.Events() {
		if e.CPU < 0 {
			continue
		}
		if cur, ok := on[e.CPU]; ok && e.CurTID != cur {
			bad++
		}
		if e.Kind == trace.KindSwitch {
			on[e.CPU] = e.NextTID
			n++
		}
	}
	if bad != 0 || n < 100 {
		t.Errorf("%d of the events after %d switches name another current task than their CPU's", bad, n)
	}
}

// TestUnnamedTasksStayUnnamed: two threads the recording knows only from
// their tracepoint comm "tokio-rt-worker" (no COMM record: perf's reports
// call them ":68" and ":75") get no name in the prediction either, so the
// per-command tables pair ":68" with ":68" (before, the prediction named
// both "tokio-rt-worker": one "new" row of 2 tasks beside two rows with 0
// predicted); a child forked in the trace (tid 90) is named after its
// parent, "sh", on both sides.
func TestUnnamedTasksStayUnnamed(t *testing.T) {
	sw := func(at int64, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.PrevState, e.NextTID, e.Prio, e.NextPrio = prev, st, next, 120, 120
		e.Comm, e.NextComm = "tokio-rt-worker", "tokio-rt-worker"
		return e
	}
	pre := trace.NewEvent(0, -1, trace.KindComm)
	pre.TID, pre.PID, pre.Comm = 80, 80, "sh"
	fork := trace.NewEvent(3000, 0, trace.KindFork)
	fork.TID, fork.PID, fork.Comm, fork.ChildTID, fork.ChildPID, fork.ChildComm = 80, 80, "sh", 90, 90, "sh"
	evs := []trace.Event{pre, sw(1000, 0, 0, 68), sw(2000, 68, trace.StateInterruptible, 75), sw(2500, 75, trace.StateInterruptible, 80),
		fork, sw(4000, 80, trace.StateInterruptible, 90), sw(5000, 90, trace.StateDead, 0)}
	evs[3].NextComm, evs[4].Comm, evs[5].NextComm, evs[6].Comm = "sh", "sh", "sh", "sh"
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	named := map[trace.TID]bool{}
	for _, tk := range m.Tasks {
		named[tk.TID] = !tk.Unnamed
	}
	if named[68] || named[75] || !named[80] || !named[90] {
		t.Errorf("Named = %v, want 68 and 75 unnamed, 80 (record-start COMM) and 90 (forked) named", named)
	}
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	for _, e := range res.Events() {
		if e.Kind == trace.KindComm && (e.TID == 68 || e.TID == 75) {
			t.Errorf("the prediction names tid %d %q; the recording never did", e.TID, e.Comm)
		}
	}
}

// TestRTThrottling: a SCHED_FIFO hog (prio 89) and a fair hog of 2 s each
// on one CPU under eevdf: the RT class may use 950 ms of each 1 s period
// (sched_rt_runtime_us 950000 of sched_rt_period_us 1000000), checked as
// the kernel's update_curr_rt does, at the tick: at HZ 250 the 952 ms tick
// finds 952 ms used, and the fair hog runs [952 ms, 1 s), 48 ms of the
// first second, until the new period lets the RT hog back; with rt_runtime=0
// (no throttling) it waits until the RT hog is done at 2 s. The 2.4
// goodness policy, of an era before RT throttling (2.6.25), keeps it
// waiting too.
func TestRTThrottling(t *testing.T) {
	for _, c := range []struct {
		policy string
		want   int64 // ns the fair hog ran in the first second
	}{{"eevdf", 48_000_000}, {"eevdf:rt_runtime=0", 0}, {"cfs", 48_000_000}, {"goodness24", 0}} {
		res := simulate(t, hogModel(2_000_000_000, 89, 120), c.policy, Config{HZ: 250})
		if got := ranBefore(runs(res.Events())[101], 1e9); got != c.want {
			t.Errorf("%s: the fair hog ran %.3f ms of the first second, want %.3f", c.policy, float64(got)/1e6, float64(c.want)/1e6)
		}
	}
}

// TestRuntimeBeforeFirstSwitch: a task whose first event is its
// sched_stat_runtime (it ran since before the trace: perf's own process in
// every perf sched record) keeps that CPU time in its first burst: 3 µs
// then 2 µs before it sleeps at 10 µs make a 5 µs burst, as perf's Runtime
// column counts it (nice.2cpu's perf:13334 replayed 0.322 of 0.385 ms).
func TestRuntimeBeforeFirstSwitch(t *testing.T) {
	evs := []trace.Event{rt(4000, 5, 3000), rt(9000, 5, 2000), sw(10_000, 5, trace.StateInterruptible, 0)}
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 1 || m.Tasks[0].Bursts[0].Len != 5000 {
		t.Fatalf("tasks %+v: want tid 5 with a first burst of 5000 ns", m.Tasks)
	}
}

// TestLoneSpinnerBesideClock: a workload spinner without siblings (one
// burst from 0 to 2.000 s, then exit) and a generator woken at absolute
// times five times, last seen at 2.010 s: they end 10 ms apart, 0.5 % of
// the spinner's 2 s life (within deadlineSpread, 3 %), so the spinner is
// deadline-bound with a 2 s deadline. With the generator last seen at
// 2.200 s (10 %) it stays as it was. A generator whose workers drained a
// backlog after its clock stopped lives on (last seen at 3.3 s, 65 % off)
// but its last absolute-time wakeup, at 1.990 s, is 10 ms (0.5 %) from the
// spinner's exit: deadline-bound again; with that wakeup at 1.5 s (25 %
// off) it is not.
func TestLoneSpinnerBesideClock(t *testing.T) {
	for _, c := range []struct {
		genLast, lastTimer int64
		deadline           bool
	}{
		{2_010_000_000, 1_500_000_000, true},
		{2_200_000_000, 1_500_000_000, false},
		{3_300_000_000, 1_990_000_000, true},
		{3_300_000_000, 1_500_000_000, false},
	} {
		gen := Task{Comm: "gen", Workload: true, Start: 10_000_000, Last: c.genLast}
		for k := 0; k < 5; k++ {
			at := c.lastTimer - int64(4-k)*300_000_000
			gen.Bursts = append(gen.Bursts, Burst{Len: 1000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: at}})
		}
		gen.Bursts = append(gen.Bursts, Burst{Len: 1000, End: EndExit})
		spin := Task{Comm: "hog", Workload: true, Start: 0, Last: 2_000_000_000, Bursts: []Burst{{Len: 2_000_000_000, End: EndExit}}}
		x := &extractor{m: &Model{Tasks: []Task{spin, gen}}}
		x.loneSpinners(map[[2]string][]untilCand{{"hog", "-1"}: {{i: 0, lo: 2_000_000_000, hi: 2_000_000_000}}})
		got := x.m.Tasks[0]
		if (got.Until == UntilDeadline) != c.deadline || c.deadline && (got.Deadline != 2_000_000_000 || !got.Spinner || !got.UntilInferred) {
			t.Errorf("generator last at %d ns, last timer at %d ns: spinner until %v, deadline %d ns, spinner %v; want deadline-bound %v (2 s)",
				c.genLast, c.lastTimer, got.Until, got.Deadline, got.Spinner, c.deadline)
		}
	}
}

// TestSpinBurstTail: a hog that spins 1.4 s, then blocks 50 µs printing
// its result and runs 0.1 ms to exit (last event at 2.0 s) is a spinner:
// its spin is burst 1 (1.4 s of 1.4003 s total, over spinnerShare), the
// tail after it 0.1 ms of CPU, and the spin ended at 2.0 s − 0.1 ms − 50 µs
// = 1.99985 s. Its exit burst may wake a task (the exit's own wakeups:
// its parent's wait, its pipe's reader; tailDoesMore) and it is still a
// spinner; with a fork there, or a wakeup in a tail burst that it blocks
// after (split off by a 20 µs sleep, the spin's end 2.0 s − 0.1 ms − 20 µs
// − 0.1 ms − 50 µs), the tail does more than exit and it is not one; nor
// is a task whose biggest burst holds under 80 %.
func TestSpinBurstTail(t *testing.T) {
	hog := func(tailActs []Action, spin int64) *Task {
		t := &Task{Last: 2_000_000_000, Bursts: []Burst{
			{Len: 200_000, End: EndBlock, Slept: 10_000},
			{Len: spin, End: EndBlock, Slept: 50_000},
			{Len: 100_000, End: EndExit},
		}}
		t.SetActions(&t.Bursts[2], tailActs)
		return t
	}
	if k, end := spinBurst(hog(nil, 1_400_000_000)); k != 1 || end != 1_999_850_000 {
		t.Errorf("hog: spin burst %d ending at %d ns, want 1 and 1999850000", k, end)
	}
	if k, end := spinBurst(hog([]Action{{Kind: ActWake, Target: 0}}, 1_400_000_000)); k != 1 || end != 1_999_850_000 {
		t.Errorf("exit burst with a wakeup: spin burst %d ending at %d ns, want 1 and 1999850000", k, end)
	}
	if k, _ := spinBurst(hog([]Action{{Kind: ActFork, Target: 0}}, 1_400_000_000)); k != -1 {
		t.Errorf("exit burst with a fork: spin burst %d, want -1", k)
	}
	split := hog(nil, 1_400_000_000)
	split.Bursts = slices.Insert(split.Bursts, 2, Burst{Len: 100_000, End: EndBlock, Slept: 20_000})
	for _, tc := range []struct {
		acts []Action
		k    int
	}{{nil, 1}, {[]Action{{Kind: ActWake, Target: 0}}, -1}} {
		split.SetActions(&split.Bursts[2], tc.acts)
		if k, end := spinBurst(split); k != tc.k || k >= 0 && end != 1_999_730_000 {
			t.Errorf("tail burst before the exit with actions %v: spin burst %d ending at %d ns, want %d (at 1999730000)", tc.acts, k, end, tc.k)
		}
	}
	if k, _ := spinBurst(hog(nil, 1_000_000)); k != -1 {
		t.Errorf("no burst over 80 %%: spin burst %d, want -1", k)
	}
	// A shell (start 0, last event 2.0 s) that forks its jobs in a 2 ms
	// burst, waits 1.99 s for them and exits in 0.1 ms: its spin would end
	// at 2.0 s − 0.1 ms − 1.99 s = 9.9 ms, a tail of 1.9901 s, over a fifth
	// of its 2 s life: not a spinner.
	sh := &Task{Last: 2_000_000_000, Bursts: []Burst{
		{Len: 2_000_000, End: EndBlock, Slept: 1_990_000_000},
		{Len: 100_000, End: EndExit},
	}}
	if k, _ := spinBurst(sh); k != -1 {
		t.Errorf("shell waiting for its jobs: spin burst %d, want -1", k)
	}
}

// TestTimerKills: `timeout 3 sh -c 'while :; do :; done'` as the trace
// shows it: timeout (task 0) forks the spinner at 1 ms, sleeps on a timer
// from 1.5 ms to 3001.5 ms, runs 0.2 ms and exits; the spinner (task 1),
// with no sibling, spins from 1 ms and exits 2 ms after the timer fired
// (0.07 % of its 3 s life): killed at a wall-clock deadline, so
// deadline-bound with its exit as the deadline (3002.5 ms after its start).
// An exit 200 ms after the timer (6.7 %, over deadlineSpread), one before
// it, a timer sleep that began 500 ms after the spinner (it does not span
// its life) and a wakeup only inferred to be a timer's leave it work-bound.
func TestTimerKills(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		name      string
		exit      int64 // the spinner's last event
		sleepFrom int64
		inferred  bool
		deadline  bool
	}{
		{"killed", 3003.5 * ms, 1.5 * ms, false, true},
		{"late-exit", 3201.5 * ms, 1.5 * ms, false, false},
		{"exit-before-timer", 3000 * ms, 1.5 * ms, false, false},
		{"timer-after-start", 3003.5 * ms, 501 * ms, false, false},
		{"inferred-timer", 3003.5 * ms, 1.5 * ms, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			const fired = 3001.5 * ms
			killer := Task{Comm: "timeout", Parent: -1, Workload: true, Start: 0, Last: fired + 0.2*ms, Repeat: -1,
				Bursts: []Burst{{Len: 1 * ms, End: EndBlock, Slept: fired - c.sleepFrom,
					Wake: Cause{Kind: CauseTimer, Delay: fired - c.sleepFrom, At: fired, Inferred: c.inferred}},
					{Len: 0.2 * ms, End: EndExit}}}
			spin := Task{Comm: "sh", Parent: 0, Workload: true, Start: 1 * ms, Last: c.exit, Repeat: -1,
				Bursts: []Burst{{Len: c.exit - 1*ms, End: EndExit}}}
			m := &Model{Tasks: []Task{killer, spin}}
			x := &extractor{m: m}
			x.inferUntil()
			got := m.Tasks[1]
			if (got.Until == UntilDeadline) != c.deadline {
				t.Fatalf("spinner until %s, want deadline-bound %v", got.Until, c.deadline)
			}
			if c.deadline && (got.Deadline != c.exit-1*ms || !got.UntilInferred || m.Stats.TimerKills != 1 || m.Stats.DeadlineInferred != 1) {
				t.Errorf("deadline %d ns, inferred %v, stats %+v; want %d ns, inferred, 1 timer kill", got.Deadline, got.UntilInferred, m.Stats, c.exit-1*ms)
			}
			if m.Tasks[0].Until == UntilDeadline {
				t.Errorf("the killer is deadline-bound; it sleeps once and exits")
			}
		})
	}
}

// TestUntilDeadlineAtEnd: --until SEL=deadline (ParseUntil "deadline", a
// deadline of 0) gives a task the time it ended in the trace: a spinner
// starting at 1 s whose spin ends at 2.9998 s (last event 3.0 s less its
// exit's 0.1 ms tail and 0.1 ms sleep) gets 1.9998 s; a task that is no
// spinner, its last event less its start (2 s).
func TestUntilDeadlineAtEnd(t *testing.T) {
	u, err := ParseUntil("deadline")
	if err != nil || u.Kind != UntilDeadline || u.Deadline != 0 {
		t.Fatalf("ParseUntil(deadline) = %+v, %v", u, err)
	}
	cfg := Config{Overrides: []Override{{Sel: Selector{Comm: "hog", PID: -1, TID: -1}, Until: &u}}}
	spin := &Task{Comm: "hog", Start: 1e9, Last: 3e9, Spinner: true, Bursts: []Burst{
		{Len: 1_000_000_000, End: EndBlock, Slept: 100_000}, {Len: 100_000, End: EndExit}}}
	plain := &Task{Comm: "hog", Start: 1e9, Last: 3e9, Bursts: []Burst{{Len: 1e6, End: EndExit}}}
	for _, c := range []struct {
		tk   *Task
		want int64
	}{{spin, 1_999_800_000}, {plain, 2_000_000_000}} {
		if until, d, set := Termination(c.tk, cfg); until != UntilDeadline || d != c.want || !set {
			t.Errorf("spinner %v: %s at %d ns (set %v); want deadline at %d ns", c.tk.Spinner, until, d, set, c.want)
		}
	}
	if err := CheckConfig(&Model{NrCPUs: 1, Tasks: []Task{*plain}}, cfg); err != nil {
		t.Errorf("CheckConfig refuses --until hog=deadline: %v", err)
	}
}

// TestInferForkWaitLoop: loops that fork a child and wait for its exit
// (stress-ng --fork workers). Each of the siblings below (children of task
// 0) blocks four times, each block ended by the exit of a child of its own
// (tasks forked by it, Parent = it), then exits.
//   - "fork" at 0 and 10 ms, woken at 500, 1000, 1500, 1990 ms and 510,
//     1010, 1510, 2000 ms, exiting at 2000 and 2010 ms (10 ms apart in a 2 s
//     life, under 3 %): deadline-bound. Each found the deadline past at the
//     wakeup before its final burst and not at the one before that, so it
//     lies in (1500, 1990] and (1510, 2000]: both in (1510, 1990], taken at
//     the middle, 1750 ms: Deadline 1750 ms and 1740 ms after their starts.
//   - "work", the same loops exiting at 1000 and 2000 ms: count-bound.
//   - "wake", exiting together but waking task 0 (not a child) in a burst
//     before the last: not such a loop, count-bound.
func TestInferForkWaitLoop(t *testing.T) {
	m := &Model{Tasks: []Task{{Comm: "sh", Parent: -1, Workload: true, Bursts: []Burst{{End: EndTrace}}}}}
	loop := func(comm string, start, last int64, wakes [4]int64, wakeSh bool) {
		i := len(m.Tasks)
		m.Tasks = append(m.Tasks, Task{Comm: comm, Parent: 0, Workload: true, Start: start, Last: last, Repeat: -1})
		for k := range 4 {
			c := len(m.Tasks)
			m.Tasks = append(m.Tasks, Task{Comm: comm, Parent: i, Start: wakes[k] - 1_000_000, Last: wakes[k],
				Bursts: []Burst{{Len: 1_000_000, End: EndExit}}})
			tk := &m.Tasks[i]
			tk.Bursts = append(tk.Bursts, Burst{Len: 1_000_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: int32(c), At: wakes[k]}})
			tk.AddAction(&tk.Bursts[k], Action{At: 500_000, Target: int32(c), Kind: ActFork})
			if wakeSh && k == 1 {
				tk.AddAction(&tk.Bursts[k], Action{At: 600_000, Target: 0, Block: 0, Kind: ActWake})
			}
		}
		tk := &m.Tasks[i]
		tk.Bursts = append(tk.Bursts, Burst{Len: 100_000, End: EndExit})
	}
	ms := int64(1_000_000)
	loop("fork", 0, 2000*ms, [4]int64{500 * ms, 1000 * ms, 1500 * ms, 1990 * ms}, false)     // task 1
	loop("fork", 10*ms, 2010*ms, [4]int64{510 * ms, 1010 * ms, 1510 * ms, 2000 * ms}, false) // task 6
	loop("work", 0, 1000*ms, [4]int64{200 * ms, 400 * ms, 600 * ms, 990 * ms}, false)        // task 11
	loop("work", 0, 2000*ms, [4]int64{500 * ms, 1000 * ms, 1500 * ms, 1990 * ms}, false)     // task 16
	loop("wake", 0, 2000*ms, [4]int64{500 * ms, 1000 * ms, 1500 * ms, 1990 * ms}, true)      // task 21
	loop("wake", 10*ms, 2010*ms, [4]int64{510 * ms, 1010 * ms, 1510 * ms, 2000 * ms}, true)  // task 26
	x := &extractor{m: m}
	x.inferUntil()
	want := map[int]struct {
		until    UntilKind
		deadline int64
	}{1: {UntilDeadline, 1750 * ms}, 6: {UntilDeadline, 1740 * ms}, 11: {UntilCount, 0}, 16: {UntilCount, 0},
		21: {UntilCount, 0}, 26: {UntilCount, 0}}
	for i, w := range want {
		if tk := m.Tasks[i]; tk.Comm == "sh" || tk.Until != w.until || tk.Deadline != w.deadline {
			t.Errorf("task %d (%s): %s, deadline %d; want %s, %d", i, tk.Comm, tk.Until, tk.Deadline, w.until, w.deadline)
		}
	}
	if m.Stats.DeadlineBound != 2 || m.Stats.CountBound != 4 {
		t.Errorf("stats %+v: want 2 deadline-bound, 4 count-bound", m.Stats)
	}
}

// TestRTThrottlingAnchor: the period of RT throttling (the 6.12+ fair
// server) starts when the fair tasks start waiting behind the RT class,
// not at a boundary of the simulation's clock. The fair hog runs alone
// from 0; the FIFO hog (prio 89) arrives at 500 ms and takes the CPU. The
// fair hog waits from 500 ms: the RT hog may use 950 ms of the period
// [500, 1500) ms, checked at the tick (HZ 250: the tick at 1452 ms finds
// 952 ms used), and the fair hog runs [1452, 1500) ms, 48 ms of that
// second. With periods aligned to the simulation's start it ran none of
// it: the RT hog used 500 ms of [0, 1000) and ran on unthrottled into the
// next period, to 1952 ms.
func TestRTThrottlingAnchor(t *testing.T) {
	m := hogModel(2_000_000_000, 120, 89)
	m.Tasks[1].Start = 500_000_000
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	fair := runs(res.Events())[100]
	if got := ranBefore(fair, 1_500_000_000) - ranBefore(fair, 500_000_000); got != 48_000_000 {
		t.Errorf("the fair hog ran %.3f ms in [500, 1500) ms, want 48 (%v)", float64(got)/1e6, fair)
	}
}
