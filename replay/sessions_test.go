package replay

import (
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

const ms = 1_000_000

// sessionTrace is a 2-CPU trace recorded as "perf sched record -- perf
// bench": the recorder perf (tid 5) runs first on CPU0 and switches to its
// child, which the trace only shows under perf-exec (tid 10; perf forked
// it before it enabled the events). 10 forks n workers (11, 12, ...) and
// sleeps; the workers then take turns on CPU0, 4 ms each, preempted (R)
// each time, so each switch-in after the first round comes (n-1)*4 ms
// after its switch-out. On CPU1 a kworker (50) is woken from idle every
// 15 ms, 8 times, and switched in bgWait ns later; it runs 0.1 ms and
// sleeps.
//
//	t=0      CPU0 swapper -> perf(5); 0.1 ms: perf (S) -> perf-exec(10)
//	0.2 ms   10 forks the workers; 0.3 ms: 10 (S) -> worker 11
//	then     11 -> 12 -> ... -> 11 ... every 4 ms: 30 switches
//
// With n = 6: of the 30 switch-ins, the first of workers 12-16 follow no
// preemption, the other 25 come 20 ms after one: 25 waits, mean 20 ms.
// The workload ran 30 runs of 4 ms and perf-exec's 0.2 ms over 32
// switch-ins (the last run ends with the trace at 120.3 ms): mean run
// 120.2 ms / 32 = 3.75625 ms. Background waits: the kworker's 8, bgWait
// each.
func sessionTrace(n int, bgWait int64) trace.Source {
	var ev []trace.Event
	ev = append(ev, testsched.Switch(0, 0, 0, "swapper/0", 0, 5, "perf"))
	ev = append(ev, testsched.Switch(ms/10, 0, 5, "perf", trace.StateInterruptible, 10, "perf-exec"))
	for k := 0; k < n; k++ {
		f := trace.NewEvent(2*ms/10+int64(k), 0, trace.KindFork)
		f.CurTID, f.CurPID = 10, 10
		f.TID, f.PID, f.Comm = 10, 10, "perf-exec"
		f.ChildTID, f.ChildPID, f.ChildComm = 11+trace.TID(k), 11+trace.PID(k), "w"
		ev = append(ev, f)
	}
	ev = append(ev, testsched.Switch(3*ms/10, 0, 10, "perf-exec", trace.StateInterruptible, 11, "w"))
	cur := trace.TID(11)
	for r := 1; r <= 30; r++ {
		next := 11 + trace.TID(r%n)
		ev = append(ev, testsched.Switch(3*ms/10+int64(r)*4*ms, 0, cur, "w", trace.StateRunning|trace.StatePreempted, next, "w"))
		cur = next
	}
	for k := int64(0); k < 8; k++ {
		t := ms + k*15*ms
		ev = append(ev, testsched.Waking(t, 1, 0, 50, "kworker/1:1", 1))
		ev = append(ev, testsched.Switch(t+bgWait, 1, 0, "swapper/1", 0, 50, "kworker/1:1"))
		ev = append(ev, testsched.Switch(t+bgWait+ms/10, 1, 50, "kworker/1:1", trace.StateInterruptible, 0, "swapper/1"))
	}
	sortEvents(ev)
	return trace.NewSliceSource(ev, &trace.Meta{NrCPUs: 2, Cmdline: []string{"perf", "sched", "record", "--", "perf", "bench", "sched", "messaging"}})
}

func sortEvents(ev []trace.Event) {
	for i := 1; i < len(ev); i++ {
		for j := i; j > 0 && ev[j].Time < ev[j-1].Time; j-- {
			ev[j], ev[j-1] = ev[j-1], ev[j]
		}
	}
}

// TestWorkloadRootPerfExec: with "perf sched record -- perf ...", the first
// task named "perf" is the recorder; the traced command is the task the
// trace shows as perf-exec (tid 10), and its process tree the workload.
func TestWorkloadRootPerfExec(t *testing.T) {
	m, err := Extract(sessionTrace(3, 50_000))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != 10 {
		t.Fatalf("WorkloadRoot = %d, want 10 (perf-exec), not the recorder 5", m.WorkloadRoot)
	}
	for _, tk := range m.Tasks {
		want := tk.TID >= 10 && tk.TID <= 13
		if tk.Workload != want {
			t.Errorf("task %d (%s): Workload %v, want %v", tk.TID, tk.Comm, tk.Workload, want)
		}
	}
}

// TestTracedSessionFromDelays: the workload waited 20 ms on average, 5.3
// of its 3.756 ms runs (25 waits, see sessionTrace); a kworker switched in
// 50 us after each of its 8 wakeups waited 1/400 of that, which one
// runqueue cannot explain (below 1/tracedSessionRatio, with at least
// tracedSessionMinQueue workers per CPU): the recorder (5) and the
// workload (10-16) go in session /autogroup-10, the kworker stays in the
// root. Nothing is inferred when the kworker waits 10 ms (half the
// workload's, as in one runqueue), when only 3 workers share the CPU
// (waits of 2 runs: a woken task preempts or waits one run either way), or
// when the recording says autogroup was off.
func TestTracedSessionFromDelays(t *testing.T) {
	m, err := Extract(sessionTrace(6, 50_000))
	if err != nil {
		t.Fatal(err)
	}
	want := SessionEvidence{Leader: 10, Tasks: 8, WorkloadWaitNS: 20 * ms, WorkloadWaits: 25, WorkloadRunNS: 3_756_250, BackgroundWaitNS: 50_000, BackgroundWaits: 8}
	if m.TracedSession != want {
		t.Errorf("TracedSession = %+v\nwant %+v", m.TracedSession, want)
	}
	for _, tk := range m.Tasks {
		in := tk.TID == 5 || tk.TID >= 10 && tk.TID <= 16
		if got := tk.Session == 10; got != in {
			t.Errorf("task %d (%s): session %d", tk.TID, tk.Comm, tk.Session)
		}
	}
	groups, _, err := Groups(m, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[1].Path != "/autogroup-10" || groups[1].Tasks != 8 || groups[1].Source != "the traced command's session, inferred from delays" {
		t.Errorf("groups = %+v", groups)
	}
	if g, _, _ := Groups(m, Config{NoAutogroup: true}); len(g) != 1 {
		t.Errorf("--autogroup off: %d groups, want the root only", len(g))
	}

	for _, c := range []struct {
		name   string
		n      int
		bgWait int64
		off    bool
	}{
		{"background waits 10 ms", 6, 10 * ms, false},
		{"3 workers", 3, 50_000, false},
		{"autogroup recorded off", 6, 50_000, true},
	} {
		src := sessionTrace(c.n, c.bgWait).(*trace.SliceSource)
		if c.off {
			src.M.Autogroup = -1
		}
		m, err := Extract(src)
		if err != nil {
			t.Fatal(err)
		}
		if m.TracedSession.Leader != 0 {
			t.Errorf("%s: TracedSession = %+v, want none", c.name, m.TracedSession)
		}
	}
}

// TestSessionLeaderFromExec: setsid(1) named only by its exec record (it
// exec'd its program before any switch-out as "setsid": perf's
// PERF_RECORD_COMM exec "setsid", then "hog") still leads a session
// (new-user pass 73 F1: whether the session was found depended on that
// timing). CPU 0: sh (1) forks 2 at 1 ms and switches to it at 2 ms; 2
// execs "setsid" at 3 ms and "hog" at 4 ms, and runs to 100 ms: 2 leads
// its own session (Session 2), and only it is in one.
func TestSessionLeaderFromExec(t *testing.T) {
	ev := []trace.Event{testsched.Switch(0, 0, 0, "swapper/0", 0, 1, "sh")}
	f := trace.NewEvent(ms, 0, trace.KindFork)
	f.CurTID, f.CurPID, f.TID, f.PID, f.Comm = 1, 1, 1, 1, "sh"
	f.ChildTID, f.ChildPID, f.ChildComm = 2, 2, "sh"
	ev = append(ev, f, testsched.Switch(2*ms, 0, 1, "sh", trace.StateInterruptible, 2, "sh"))
	for k, name := range []string{"setsid", "hog"} {
		e := trace.NewEvent(int64(3+k)*ms, 0, trace.KindExec)
		e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = 2, 2, 2, 2, name
		ev = append(ev, e)
	}
	ev = append(ev, testsched.Switch(100*ms, 0, 2, "hog", trace.StateRunning, 0, "swapper/0"))
	m, err := Extract(trace.NewSliceSource(ev, &trace.Meta{NrCPUs: 1}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; tk.TID == 2 && tk.Session != 2 {
			t.Errorf("hog (2): session %d, want 2 (its own, as setsid's leader)", tk.Session)
		}
	}
	if m.Stats.SessionTasks != 1 {
		t.Errorf("SessionTasks = %d, want 1", m.Stats.SessionTasks)
	}
}
