package replay

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
)

func sw(t int64, prev trace.TID, state trace.TaskState, next trace.TID) trace.Event {
	e := trace.NewEvent(t, 0, trace.KindSwitch)
	e.TID, e.PrevState, e.NextTID, e.Prio, e.NextPrio = prev, state, next, 120, 120
	e.CurTID = prev
	return e
}

// swPrio is sw with the tasks' prios: prevPrio for prev, nextPrio for next.
func swPrio(t int64, prev trace.TID, state trace.TaskState, next trace.TID, prevPrio, nextPrio int32) trace.Event {
	e := sw(t, prev, state, next)
	e.Prio, e.NextPrio = prevPrio, nextPrio
	return e
}

func rt(t int64, tid trace.TID, ns int64) trace.Event {
	e := trace.NewEvent(t, 0, trace.KindRuntime)
	e.TID, e.CurTID, e.Runtime = tid, tid, ns
	return e
}

// A request/response pair on one CPU (times in us): B runs [0,2) and
// sleeps; A runs from 2, wakes B at 12, is preempted by B at 14 (runnable),
// B answers and sleeps at 20, A resumes at once and sleeps at 30.
func pingPongTrace() []trace.Event {
	us := int64(1000)
	w := trace.NewEvent(12*us, 0, trace.KindWaking)
	w.TID, w.CurTID, w.TargetCPU = 2, 1, 0
	return []trace.Event{
		sw(0, 0, 0, 2),
		rt(2*us, 2, 2*us), sw(2*us, 2, trace.StateInterruptible, 1),
		w,
		rt(14*us, 1, 11*us), sw(14*us, 1, trace.StatePreempted, 2),
		rt(20*us, 2, 5*us), sw(20*us, 2, trace.StateInterruptible, 1),
		rt(30*us, 1, 9*us), sw(30*us, 1, trace.StateInterruptible, 0),
	}
}

func TestExtractPingPongAndSwitchCost(t *testing.T) {
	m, err := Extract(trace.NewSliceSource(pingPongTrace(), nil))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[trace.TID]int{}
	for i, tk := range m.Tasks {
		idx[tk.TID] = i
	}
	a, b := &m.Tasks[idx[1]], &m.Tasks[idx[2]]
	// A: its run [2,14) is charged 11 us (sched_stat_runtime) and ends in
	// the inferred block; it waits for B's 5 us reply burst, and got its
	// CPU back at 20 us (the recorded time of the inferred wakeup).
	if len(a.Bursts) < 2 || a.Bursts[0].Len != 11_000 || a.Bursts[0].End != EndBlock ||
		a.Bursts[0].Wake != (Cause{Kind: CauseDependency, Waker: int32(idx[2]), Inferred: true, At: 20_000}) || a.Bursts[0].Slept != 6_000 {
		t.Fatalf("A bursts: %+v", a.Bursts)
	}
	// B: slept after 2 us, woken by A 10 us into A's burst (A's first
	// action), then its 5 us reply ends with the action that wakes A.
	if got := a.ActionsOf(&a.Bursts[0]); len(got) != 1 || got[0] != (Action{At: 10_000, Kind: ActWake, Target: int32(idx[2]), Block: 0}) {
		t.Errorf("A's actions: %+v", got)
	}
	if got, acts := b.Bursts[1], b.ActionsOf(&b.Bursts[1]); got.Len != 5_000 || len(acts) != 1 || acts[0] != (Action{At: 5_000, Kind: ActWake, Target: int32(idx[1]), Block: 0}) {
		t.Errorf("B's reply burst: %+v, actions %+v", got, acts)
	}
	if m.Stats.PingPongs != 1 {
		t.Errorf("ping-pongs = %d, want 1", m.Stats.PingPongs)
	}
	// Runs bounded by recorded switches and the runtime charged in them:
	// B [0,2) 2 us, A [2,14) 11 us, B [14,20) 5 us, A [20,30) 9 us: 0+1+1+1
	// us charged to no task over 4 runs = 750 ns per switch.
	if m.ContextSwitchCost != 750 {
		t.Errorf("switch cost = %d ns, want 750", m.ContextSwitchCost)
	}
	// Replayed on one CPU with no costs, A resumes right after B's reply
	// instead of running ahead of it.
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	ra := runs(res.Events())[1]
	rb := runs(res.Events())[2]
	if len(ra) < 2 || len(rb) < 2 || ra[1][0] < rb[1][1] {
		t.Errorf("A ran %v, B ran %v: A's second run must follow B's reply", ra, rb)
	}
}

// TestExtractNamesLikeTheReports checks that the model names tasks as
// trace.Tasks names the rows of the observed reports: perf's record-start
// COMM ("kworker/0:0-events", from /proc) is not overwritten by the
// tracepoints' shorter comm ("kworker/0:0"), while a later exec does rename.
// Before the fix, replay printed kworker/0:0-eve with 0 ms predicted and a
// "new" kworker/0:0 row holding its predicted runtime.
func TestExtractNamesLikeTheReports(t *testing.T) {
	pre := trace.NewEvent(0, -1, trace.KindComm)
	pre.TID, pre.PID, pre.Comm = 9, 9, "kworker/0:0-events"
	evs := []trace.Event{pre, sw(1000, 0, 0, 9), rt(3000, 9, 2000), sw(3000, 9, trace.StateInterruptible, 2),
		rt(5000, 2, 2000)}
	evs[1].Comm, evs[1].NextComm = "swapper/0", "kworker/0:0"
	evs[3].Comm, evs[3].NextComm = "kworker/0:0", "sh"
	exec := trace.NewEvent(5000, 0, trace.KindExec)
	exec.TID, exec.PID, exec.Comm = 2, 2, "ls"
	evs = append(evs, exec, sw(6000, 2, trace.StateInterruptible, 0))
	evs[len(evs)-1].Comm = "ls"
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	names := map[trace.TID]string{}
	for _, tk := range m.Tasks {
		names[tk.TID] = tk.Comm
	}
	if names[9] != "kworker/0:0-events" || names[2] != "ls" {
		t.Errorf("names = %v, want 9: kworker/0:0-events (perf's COMM), 2: ls (exec)", names)
	}
}

// TestWorkloadRootThroughWrapper: perf recorded `taskset -c 0 sh -c ...`
// and no event names a task "taskset" (it exec'ed sh before the first
// one); the traced command is the first task named after a later word of
// the command line, sh (tid 50), not the child using the most CPU, and its
// child hog (tid 51, forked in the trace) belongs to the workload too; an
// unrelated task (tid 60, "bash") does not.
func TestWorkloadRootThroughWrapper(t *testing.T) {
	name := func(e trace.Event, comm string) trace.Event { e.Comm = comm; return e }
	f := trace.NewEvent(2_000, 0, trace.KindFork)
	f.TID, f.Comm, f.ChildTID, f.ChildPID, f.ChildComm = 50, "sh", 51, 51, "hog"
	evs := []trace.Event{
		name(sw(1_000, 0, 0, 50), "swapper/0"), f,
		name(rt(3_000, 50, 2_000), "sh"), name(sw(3_000, 50, trace.StateInterruptible, 51), "sh"),
		name(rt(9_000, 51, 6_000), "hog"), name(sw(9_000, 51, trace.StateDead, 60), "hog"),
		name(rt(10_000, 60, 1_000), "bash"), name(sw(10_000, 60, trace.StateInterruptible, 0), "bash"),
	}
	for k := range evs {
		switch evs[k].NextTID {
		case 50:
			evs[k].NextComm = "sh"
		case 51:
			evs[k].NextComm = "hog"
		case 60:
			evs[k].NextComm = "bash"
		}
	}
	meta := &trace.Meta{Cmdline: []string{"/usr/bin/perf", "sched", "record", "--", "taskset", "-c", "0", "sh", "-c", "hog 2"}}
	m, err := Extract(trace.NewSliceSource(evs, meta))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != 50 {
		t.Errorf("workload root %d, want 50 (sh)", m.WorkloadRoot)
	}
	for _, tk := range m.Tasks {
		if want := tk.TID == 50 || tk.TID == 51; tk.Workload != want {
			t.Errorf("tid %d (%s): workload %v, want %v", tk.TID, tk.Comm, tk.Workload, want)
		}
	}
}

// TestWorkloadRootRecorderChild: 'tv record -- cgrun g massive_intr 3'
// (traceview built as "tv"), all on CPU 0, times in ns. The recorder (tid
// 40) first forks Go's pidfd probe (41, which keeps the name "tv" and exits
// at once), then the command (42, "tv" at the fork, exec'd cgrun then
// massive_intr: no task is ever named "cgrun"), which forks a worker (43).
// Meanwhile bash (60, from before the trace) forks go (61), which runs
// 50 µs, more than the command's tree (10 + 20 µs). The traced command is
// 42 and the workload {42, 43}; without the recorder's child, guessRoot
// took 61's tree (the workload line of a quota.tv capture counted 38 tasks
// of a concurrent 'go test' instead of massive_intr's 4).
// recorderChildTrace is the trace of TestWorkloadRootRecorderChild.
func recorderChildTrace() []trace.Event {
	fork := func(at int64, tid, child trace.TID, comm string) trace.Event {
		f := trace.NewEvent(at, 0, trace.KindFork)
		f.TID, f.Comm, f.ChildTID, f.ChildPID, f.ChildComm = tid, comm, child, trace.PID(child), comm
		return f
	}
	exec := func(at int64, tid trace.TID, comm string) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindExec)
		e.TID, e.PID, e.Comm = tid, trace.PID(tid), comm
		return e
	}
	comms := map[trace.TID]string{40: "tv", 41: "tv", 42: "massive_intr", 43: "massive_intr", 60: "bash", 61: "go"}
	evs := []trace.Event{
		sw(1_000, 0, 0, 40), fork(2_000, 40, 41, "tv"), fork(3_000, 40, 42, "tv"),
		sw(4_000, 40, trace.StateInterruptible, 41), sw(5_000, 41, trace.StateDead, 42),
		exec(6_000, 42, "cgrun"), exec(7_000, 42, "massive_intr"), fork(8_000, 42, 43, "massive_intr"),
		sw(15_000, 42, trace.StateInterruptible, 43), sw(35_000, 43, trace.StateDead, 60),
		fork(36_000, 60, 61, "bash"), sw(37_000, 60, trace.StateInterruptible, 61),
		exec(38_000, 61, "go"), sw(90_000, 61, trace.StateDead, 0),
	}
	for k := range evs {
		if evs[k].Kind != trace.KindSwitch {
			continue
		}
		evs[k].Comm, evs[k].NextComm = comms[evs[k].TID], comms[evs[k].NextTID]
	}
	evs[0].Comm = "swapper/0"
	return evs
}

func TestWorkloadRootRecorderChild(t *testing.T) {
	evs := recorderChildTrace()
	meta := &trace.Meta{Cmdline: []string{"/tmp/u2/tv", "record", "-o", "q.tv", "--", "/tmp/me/wl/cgrun", "g", "/tmp/me/wl/massive_intr", "3"}}
	m, err := Extract(trace.NewSliceSource(evs, meta))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != 42 {
		t.Errorf("workload root %d, want 42 (the recorder's child that exec'd)", m.WorkloadRoot)
	}
	for _, tk := range m.Tasks {
		if want := tk.TID == 42 || tk.TID == 43; tk.Workload != want {
			t.Errorf("tid %d (%s): workload %v, want %v", tk.TID, tk.Comm, tk.Workload, want)
		}
	}
}

// TestWorkloadSystemWideCapture: the same tasks in a capture of the whole
// system, "tv record -d 2s -o t.tv" (no "--", so no command): there is no
// traced command, and no task is the workload. Before, guessRoot presented
// the busiest forked tree (another user's go, 61) as "the traced
// command's process tree" and the makespan and verdicts were its.
func TestWorkloadSystemWideCapture(t *testing.T) {
	meta := &trace.Meta{Tool: "traceview record (tp_btf)", Cmdline: []string{"/tmp/u2/tv", "record", "-d", "2s", "-o", "t.tv"}}
	m, err := Extract(trace.NewSliceSource(recorderChildTrace(), meta))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != -1 {
		t.Errorf("workload root %d, want -1 (no traced command)", m.WorkloadRoot)
	}
	for _, tk := range m.Tasks {
		if tk.Workload {
			t.Errorf("tid %d (%s) in the workload", tk.TID, tk.Comm)
		}
	}
}

// TestPinningAfterStopperMove: `taskset -c 0 sh -c 'hog'` recorded on 2
// CPUs, where the forked sh (tid 50) first ran 20 µs on CPU 1 before
// sched_setaffinity handed it to CPU 1's stopper (migration/1, tid 23),
// which preempted it and moved it to CPU 0 (sched_migrate_task emitted on
// CPU 1, orig 1, dest 0). From then on sh and its child hog (tid 51) run
// only on CPU 0: 1 switch-in of sh + 60 of hog = 61 >= pinMinSwitches.
// The workload is inferred pinned to CPU 0 ({0} = mask 1): both tasks get
// the affinity, 2 pinned tasks. The same move emitted by a task that is
// no stopper (a kworker) resets nothing: sh's 20 µs on CPU 1 are 3.2 % of
// the workload's 623 µs (20 there; 3 of sh and 600 of hog on CPU 0), more
// than pinStray, so no pinning is inferred (0 pinned tasks).
func TestPinningAfterStopperMove(t *testing.T) {
	for _, tc := range []struct {
		mover string
		want  int
	}{{"migration/1", 2}, {"kworker/1:1", 0}} {
		m, err := Extract(trace.NewSliceSource(pinTrace(tc.mover), &trace.Meta{Cmdline: []string{"/usr/bin/perf", "sched", "record", "--", "sh", "-c", "hog"}}))
		if err != nil {
			t.Fatal(err)
		}
		if m.Stats.PinnedTasks != tc.want {
			t.Errorf("mover %s: %d pinned tasks, want %d", tc.mover, m.Stats.PinnedTasks, tc.want)
		}
		for _, tk := range m.Tasks {
			if tc.want > 0 && tk.Workload && tk.Affinity != 1 {
				t.Errorf("mover %s: tid %d affinity %b, want 1 (CPU 0)", tc.mover, tk.TID, tk.Affinity)
			}
		}
	}
}

// pinTrace is TestPinningAfterStopperMove's trace (times in µs): sh runs on
// CPU 1 from 0 to 20, mover (tid 23) preempts it at 20 and moves it to CPU
// 0 at 21; sh runs on CPU 0 from 22, forks hog at 23 and sleeps at 25; hog
// then runs 10 µs out of every 20 on CPU 0, 60 times.
func pinTrace(mover string) []trace.Event {
	us := int64(1000)
	on := func(e trace.Event, cpu trace.CPU) trace.Event { e.CPU = cpu; return e }
	named := func(e trace.Event, prev, next string) trace.Event { e.Comm, e.NextComm = prev, next; return e }
	mg := trace.NewEvent(21*us, 1, trace.KindMigrate)
	mg.TID, mg.CurTID, mg.OrigCPU, mg.DestCPU, mg.Comm = 50, 23, 1, 0, "sh"
	f := trace.NewEvent(23*us, 0, trace.KindFork)
	f.TID, f.CurTID, f.Comm, f.ChildTID, f.ChildPID, f.ChildComm = 50, 50, "sh", 51, 51, "hog"
	evs := []trace.Event{
		on(named(sw(0, 0, 0, 50), "swapper/1", "sh"), 1),
		on(named(sw(20*us, 50, trace.StatePreempted, 23), "sh", mover), 1),
		mg,
		on(named(sw(21*us+500, 23, trace.StateInterruptible, 0), mover, "swapper/1"), 1),
		named(sw(22*us, 0, 0, 50), "swapper/0", "sh"),
		f,
		named(sw(25*us, 50, trace.StateInterruptible, 51), "sh", "hog"),
	}
	for k := int64(0); k < 60; k++ {
		t0 := 25*us + 20*us*k
		if k > 0 {
			evs = append(evs, named(sw(t0, 0, 0, 51), "swapper/0", "hog"))
		}
		evs = append(evs, named(sw(t0+10*us, 51, trace.StateInterruptible, 0), "hog", "swapper/0"))
	}
	return evs
}

// TestLostSwitchIn: on CPU 1 (times in µs) the generator G (tid 10) runs
// and sleeps at 100, and CPU 1 idles; G's timer wakeup and its switch-in
// were not recorded (seen on this project's VM), but at 200 G wakes worker
// W (tid 11, asleep since it left CPU 0 at 1) as the current task of CPU
// 1, then its sched_stat_runtime at 203 charges 5 µs (so it was switched
// in at 198), and it sleeps at 205; W runs 205-215 and sleeps.
//   - G's block after its first burst ends at 198 (the dated switch-in),
//     an inferred timer 98 µs after it blocked at 100;
//   - G's second burst wakes W 2 µs in (200 - 198), and W's block is a
//     dependency on G, not a timer;
//   - 1 lost switch-in counted.
func TestLostSwitchIn(t *testing.T) {
	us := int64(1000)
	on1 := func(e trace.Event) trace.Event { e.CPU = 1; return e }
	w := trace.NewEvent(200*us, 1, trace.KindWaking)
	w.TID, w.CurTID, w.TargetCPU, w.FromIRQ = 11, 10, 1, trace.No
	evs := []trace.Event{
		on1(sw(0, 0, 0, 10)),
		sw(1*us, 11, trace.StateInterruptible, 0), // W asleep on CPU 0 from the start
		on1(rt(100*us, 10, 100*us)), on1(sw(100*us, 10, trace.StateInterruptible, 0)),
		w,
		on1(rt(203*us, 10, 5*us)), on1(sw(205*us, 10, trace.StateInterruptible, 11)),
		on1(rt(215*us, 11, 10*us)), on1(sw(215*us, 11, trace.StateInterruptible, 0)),
	}
	m, idx := extract2(t, evs)
	g, wk := &m.Tasks[idx[10]], &m.Tasks[idx[11]]
	if len(g.Bursts) < 2 {
		t.Fatalf("G bursts: %+v", g.Bursts)
	}
	if got := g.Bursts[0].Wake; got.Kind != CauseTimer || !got.Inferred || got.At != 198*us || got.Delay != 98*us {
		t.Errorf("G's first wakeup: %+v, want an inferred timer at 198 µs, 98 µs after the block", got)
	}
	if got := g.ActionsOf(&g.Bursts[1]); len(got) != 1 || got[0].Kind != ActWake || got[0].Target != int32(idx[11]) || got[0].At != 2*us {
		t.Errorf("G's second burst actions: %+v, want waking W 2 µs in", got)
	}
	var woken *Burst
	for k := range wk.Bursts {
		if wk.Bursts[k].End == EndBlock && wk.Bursts[k].Wake.Kind != CauseNever {
			woken = &wk.Bursts[k]
			break
		}
	}
	if woken == nil || woken.Wake.Kind != CauseDependency || woken.Wake.Waker != int32(idx[10]) {
		t.Errorf("W's bursts: %+v, want a block ended by G", wk.Bursts)
	}
	if m.Stats.LostSwitchIns != 1 {
		t.Errorf("lost switch-ins = %d, want 1", m.Stats.LostSwitchIns)
	}
}

// TestEarlyWake (times in µs): A (tid 20) runs on CPU 0 from 0, B (tid 21)
// on CPU 1 from 0. At 10 A wakes B from CPU 0 while B is still current on
// CPU 1 (it set its state and entered __schedule); B's switch-out to S
// comes at 12, 2 µs later (earlyWakeWindow: try_to_wake_up waits for it).
// B runs again on CPU 1 with no recorded switch-in (its first event a
// sched_stat_runtime at 20 charging 5 µs) and sleeps at 20. B's sleep
// after its first burst is then a dependency on A (the wakeup counted at
// B's switch-out, 12 µs into A's burst), not a timer; A's first burst
// holds that wakeup.
func TestEarlyWake(t *testing.T) {
	us := int64(1000)
	on := func(e trace.Event, cpu trace.CPU) trace.Event { e.CPU = cpu; return e }
	w := trace.NewEvent(10*us, 0, trace.KindWaking)
	w.TID, w.CurTID, w.TargetCPU, w.FromIRQ = 21, 20, 1, trace.No
	evs := []trace.Event{
		on(sw(0, 0, 0, 20), 0),
		on(sw(0, 0, 0, 21), 1),
		w,
		on(rt(12*us, 21, 12*us), 1), on(sw(12*us, 21, trace.StateInterruptible, 0), 1),
		on(rt(20*us, 21, 5*us), 1), on(sw(20*us, 21, trace.StateInterruptible, 0), 1),
		on(rt(30*us, 20, 30*us), 0), on(sw(30*us, 20, trace.StateInterruptible, 0), 0),
	}
	m, idx := extract2(t, evs)
	a, b := &m.Tasks[idx[20]], &m.Tasks[idx[21]]
	if len(b.Bursts) < 2 || b.Bursts[0].Wake.Kind != CauseDependency || b.Bursts[0].Wake.Waker != int32(idx[20]) {
		t.Fatalf("B's bursts: %+v, want its first sleep ended by A", b.Bursts)
	}
	if got := a.ActionsOf(&a.Bursts[0]); len(got) != 1 || got[0].Target != int32(idx[21]) || got[0].At != 12*us || !got[0].Remote {
		t.Errorf("A's actions: %+v, want a remote wakeup of B 12 µs in", got)
	}
}

// extract2 extracts a 2-CPU trace of evs and indexes its tasks by TID.
func extract2(t *testing.T, evs []trace.Event) (*Model, map[trace.TID]int) {
	t.Helper()
	m, err := Extract(trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 2}))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[trace.TID]int{}
	for i, tk := range m.Tasks {
		idx[tk.TID] = i
	}
	return m, idx
}

// TestNameBeforeFirstEvent: the text readers name a task (a comm record)
// when they first meet it, before its first scheduler event; as the
// reports name its row "worker" from that record, the model must not mark
// it unnamed (a prediction would name it ":7" and no row would pair).
func TestNameBeforeFirstEvent(t *testing.T) {
	c := trace.NewEvent(0, 0, trace.KindComm)
	c.TID, c.PID, c.Comm = 7, 7, "worker"
	evs := []trace.Event{c, sw(0, 0, 0, 7), rt(10_000, 7, 10_000), sw(10_000, 7, trace.StateInterruptible, 0)}
	m, idx := extract2(t, evs)
	if tk := m.Tasks[idx[7]]; tk.Comm != "worker" || tk.Unnamed || tk.PID != 7 {
		t.Errorf("task 7: comm %q unnamed %v pid %d, want worker, false, 7", tk.Comm, tk.Unnamed, tk.PID)
	}
}

// TestNth: nth gives the element a sort puts at k, for every k, on
// random slices with and without repeated values.
func TestNth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 60; n++ {
		for _, spread := range []int64{3, 1000} {
			v := make([]int64, n)
			for i := range v {
				v[i] = r.Int64N(spread) - spread/2
			}
			sorted := slices.Clone(v)
			slices.Sort(sorted)
			for k := range v {
				if got := nth(slices.Clone(v), k); got != sorted[k] {
					t.Fatalf("nth(%v, %d) = %d, want %d", v, k, got, sorted[k])
				}
			}
			if got, want := median(v), sorted[n/2]; got != want {
				t.Errorf("median(%v) = %d, want %d", v, got, want)
			}
		}
	}
}

// TestWorkloadRootRecorderChildPerf: `tv record -- perf stat -- hog`: the
// recorder's child (42) exec's perf, a program named like a recorder, and
// perf's child (43) the hog. The recorder's child is still the traced
// command: workload root 42, workload {42, 43}. Taking any child named
// like a recorder for one that did not exec (Go's pidfd probe, 41, still
// "tv"), replay found no traced command and said it had started before
// the trace (new-user pass 22 F7).
func TestWorkloadRootRecorderChildPerf(t *testing.T) {
	evs := recorderChildTrace()
	for k := range evs {
		e := &evs[k]
		switch {
		case e.Kind == trace.KindExec && e.TID == 42 && e.Comm == "cgrun":
			e.Comm = "perf"
		case e.Kind == trace.KindExec && e.TID == 42:
			e.Kind, e.Comm = trace.KindComm, "perf" // (still perf: its child execs)
		case e.Kind == trace.KindSwitch && e.TID == 42:
			e.Comm = "perf"
		case e.Kind == trace.KindSwitch && e.NextTID == 42:
			e.NextComm = "perf"
		}
	}
	meta := &trace.Meta{Tool: "traceview record (tp_btf)", Cmdline: []string{"/tmp/u2/tv", "record", "-o", "q.tv", "--", "perf", "stat", "--", "hog", "1"}}
	m, err := Extract(trace.NewSliceSource(evs, meta))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != 42 || m.CommandBefore {
		t.Errorf("workload root %d (command before the trace: %v), want 42 (the recorder's child, which exec'd perf)", m.WorkloadRoot, m.CommandBefore)
	}
	for _, tk := range m.Tasks {
		if want := tk.TID == 42 || tk.TID == 43; tk.Workload != want {
			t.Errorf("tid %d (%s): workload %v, want %v", tk.TID, tk.Comm, tk.Workload, want)
		}
	}
}

// TestLateEarlyWake (times in µs; new-user pass 23 F3): as TestEarlyWake,
// but B's switch-out to S comes 23 µs after A's wakeup (more than
// earlyWakeWindow: a slow __schedule on a loaded VM), and B is switched in
// again at 40 on CPU 1 with no wakeup between: A's wakeup ended the sleep
// (a dependency on A), not an external event at 40, which pinned a
// pipeline stage's wait to its recorded time in a what-if with more CPU.
// When C (tid 22) wakes B at 35, after its switch-out, C's wakeup ends
// it instead.
func TestLateEarlyWake(t *testing.T) {
	us := int64(1000)
	on := func(e trace.Event, cpu trace.CPU) trace.Event { e.CPU = cpu; return e }
	waking := func(at int64, cpu trace.CPU, by trace.TID) trace.Event {
		w := trace.NewEvent(at, cpu, trace.KindWaking)
		w.TID, w.CurTID, w.TargetCPU, w.FromIRQ = 21, by, 1, trace.No
		return w
	}
	for _, c := range []struct {
		name  string
		extra []trace.Event
		waker trace.TID
	}{
		{"no wakeup between", nil, 20},
		{"a wakeup between", []trace.Event{on(sw(34*us, 0, 0, 22), 0), waking(35*us, 0, 22), on(sw(36*us, 22, trace.StateInterruptible, 0), 0)}, 22},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := []trace.Event{
				on(sw(0, 0, 0, 20), 1),
				on(sw(5*us, 20, trace.StateRunning, 21), 1),
				on(sw(6*us, 0, 0, 20), 0),
				waking(10*us, 0, 20),
				on(sw(27*us, 20, trace.StateInterruptible, 0), 0),
			}
			evs = append(evs, on(sw(33*us, 21, trace.StateInterruptible, 0), 1))
			evs = append(evs, c.extra...)
			evs = append(evs, on(sw(40*us, 0, 0, 21), 1), on(sw(50*us, 21, trace.StateInterruptible, 0), 1))
			slices.SortStableFunc(evs, func(a, b trace.Event) int { return cmp.Compare(a.Time, b.Time) })
			m, idx := extract2(t, evs)
			b := &m.Tasks[idx[21]]
			var w *Cause
			for k := range b.Bursts {
				if b.Bursts[k].End == EndBlock {
					w = &b.Bursts[k].Wake
					break
				}
			}
			if w == nil || w.Kind != CauseDependency || w.Waker != int32(idx[c.waker]) {
				t.Errorf("B's first sleep ended by %+v, want a dependency on tid %d", w, c.waker)
			}
		})
	}
}

// TestUnseenSwitchInBound: a run whose switch-in the trace lacks lasts at
// most as long as the task's longest run recorded whole, not since the
// CPU's previous switch (new-user pass 27 F3: rcu_preempt's 8 µs runs made
// one of 5.4 ms). One CPU, no sched_stat_runtime, times in µs: K runs
// [0,10) and [100,120) (longest 20) with idle between; X is switched in at
// 200 and leaves unseen; K switches out at 5200 with no switch-in. K's
// third burst is 20 µs (from 5180), not 5000; with no whole run before
// (K2, first seen that way), the bound is the CPU's previous switch.
func TestUnseenSwitchInBound(t *testing.T) {
	us := int64(1000)
	const k, x, k2 = 10, 11, 12
	evs := []trace.Event{
		sw(0, 0, 0, k),
		sw(10*us, k, trace.StateInterruptible, 0),
		sw(100*us, 0, 0, k),
		sw(120*us, k, trace.StateInterruptible, 0),
		sw(200*us, 0, 0, x),
		sw(5200*us, k, trace.StateInterruptible, 0),
		sw(5300*us, 0, 0, x),
		sw(8300*us, k2, trace.StateInterruptible, 0),
	}
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	lens := map[trace.TID][]int64{}
	for _, tk := range m.Tasks {
		for _, b := range tk.Bursts {
			lens[tk.TID] = append(lens[tk.TID], b.Len)
		}
	}
	if got := lens[k]; len(got) < 3 || got[0] != 10*us || got[1] != 20*us || got[2] != 20*us {
		t.Errorf("K's bursts %v, want 10, 20, 20 µs first (ns)", got)
	}
	// K2: from X's switch-in at 5300 to 8300.
	if got := lens[k2]; len(got) < 1 || got[0] != 3000*us {
		t.Errorf("K2's bursts %v, want 3000 µs first", got)
	}
}
