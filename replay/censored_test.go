package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// censoredModel: the capture spans 0-100 ms; task a (the workload) runs
// 10 ms, sleeps 20 ms on a timer, and is switched in at 30 ms for its last
// burst, which is still running when the capture ends: its last event is
// that switch-in (Last 30 ms). The burst's recorded work is 40 ms, so the
// work alone would end at 30 + 40 = 70 ms, 30 ms before the capture's end.
func censoredModel() *Model {
	const ms = 1_000_000
	m := &Model{NrCPUs: 1, WorkloadRoot: 0, Start: 0, End: 100 * ms}
	m.Tasks = []Task{{TID: 1, PID: 1, Comm: "a", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
		Workload: true, Censored: true, Start: 0, Last: 30 * ms,
		Bursts: []Burst{
			{Len: 10 * ms, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 20 * ms}},
			{Len: 40 * ms, End: EndTrace},
		}}}
	m.Stats.Censored = 1
	return m
}

// TestCensoredMakespan: a censored task runs at least to the capture's
// end, in the observed makespan (100 ms, not 30 ms, its last event) and in
// the simulation: its last burst starts at 30 ms (10 ms run, 20 ms timer
// sleep, alone on its CPU) and lasts to 100 ms, not 30 + 40 = 70 ms, so
// the predicted makespan is 100 ms and a ran 10 + 70 = 80 ms.
func TestCensoredMakespan(t *testing.T) {
	const ms = 1_000_000
	m := censoredModel()
	if got := m.ObservedMakespan(); got != 100*ms {
		t.Errorf("ObservedMakespan = %d ns, want %d (0 to the capture's end)", got, 100*ms)
	}
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	if res.Makespan != 100*ms {
		t.Errorf("predicted makespan = %d ns, want %d", res.Makespan, 100*ms)
	}
	var ran int64
	for _, r := range runs(res.Events())[trace.TID(1)] {
		ran += r[1] - r[0]
	}
	if ran != 80*ms {
		t.Errorf("a ran %d ns, want %d (10 ms, then 30 ms to the capture's end at 100 ms)", ran, 80*ms)
	}
	t.Run("no-censoring", func(t *testing.T) {
		// Not censored (its last burst ends in the trace, say at an exit),
		// the work ends at 70 ms.
		m := censoredModel()
		m.Tasks[0].Censored = false
		m.Tasks[0].Bursts[1].End = EndExit
		m.Tasks[0].Last = 70 * ms
		if got := m.ObservedMakespan(); got != 70*ms {
			t.Errorf("ObservedMakespan = %d ns, want %d", got, 70*ms)
		}
		if res := simulate(t, m, "eevdf", Config{HZ: 250}); res.Makespan != 70*ms {
			t.Errorf("predicted makespan = %d ns, want %d", res.Makespan, 70*ms)
		}
	})
}

// TestCensoredRootAsleep: the traced command alive but asleep when the
// capture ends (a shell in wait() for children that outlive the capture,
// censorLiveRoot) is censored, yet does not hold its last burst: it runs
// its 4 ms, blocks on a wakeup the trace never saw (CauseNever) and stays
// asleep, so it ran 4 ms in the replay as in the trace (new-user pass 69
// F1: it ran to the capture's end, 252 ms for 4.3 ms, preempted 128
// times).
func TestCensoredRootAsleep(t *testing.T) {
	const ms = 1_000_000
	m := &Model{NrCPUs: 1, WorkloadRoot: 1, Start: 0, End: 100 * ms}
	m.Tasks = []Task{{TID: 1, PID: 1, Comm: "sh", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
		Workload: true, Censored: true, Start: 0, Last: 4 * ms, Repeat: -1,
		Bursts: []Burst{{Len: 4 * ms, End: EndBlock, Wake: Cause{Kind: CauseNever}}}}}
	m.Stats.Censored = 1
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	var ran int64
	for _, r := range runs(res.Events())[trace.TID(1)] {
		ran += r[1] - r[0]
	}
	if ran != 4*ms {
		t.Errorf("sh ran %d ns, want %d (its recorded burst, then asleep)", ran, 4*ms)
	}
}

// TestCensoredCutSpan: a censored task's last burst is held for as long
// as the trace saw it (Task.CutSpan) from its first run, not to the
// capture's end when the replay reaches it early (new-user pass 70 F1: a
// task paced by a timer, ahead of the trace on more CPUs, spun 40 ms in a
// 300 µs burst). The task runs 1 ms, sleeps 1 ms on a timer and is cut
// 1 ms into its last burst; the capture ends at 100 ms. Alone on its CPU
// the replay reaches the last burst at 2 ms: with CutSpan 1 ms it runs
// 1 + 1 = 2 ms in all; with CutSpan 50 ms, 1 + 50 = 51 ms; with CutSpan
// 0 (unknown) to the capture's end, 1 + 98 = 99 ms.
func TestCensoredCutSpan(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct{ span, want int64 }{{1 * ms, 2 * ms}, {50 * ms, 51 * ms}, {0, 99 * ms}} {
		m := &Model{NrCPUs: 1, WorkloadRoot: 0, Start: 0, End: 100 * ms}
		m.Tasks = []Task{{TID: 1, PID: 1, Comm: "periodic", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
			Workload: true, Censored: true, Start: 0, Last: 99 * ms, Repeat: -1, CutSpan: c.span,
			Bursts: []Burst{
				{Len: 1 * ms, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 1 * ms}},
				{Len: 1 * ms, End: EndTrace},
			}}}
		m.Stats.Censored = 1
		res := simulate(t, m, "eevdf", Config{HZ: 250})
		var ran int64
		for _, r := range runs(res.Events())[trace.TID(1)] {
			ran += r[1] - r[0]
		}
		if ran != c.want {
			t.Errorf("CutSpan %d ns: ran %d ns, want %d", c.span, ran, c.want)
		}
	}
}

// TestCensoredWholeSystem: with no traced command (WorkloadRoot -1, a
// capture of the whole system, whose makespan spans every task), a task
// the capture cut is censored as a workload task is: "a" still runs its
// last burst at the end (EndTrace), "b" sleeps there (its last burst ended
// in a block the trace never saw woken: CauseNever) and is not. With a traced command
// that is neither, the same cut task is not counted.
func TestCensoredWholeSystem(t *testing.T) {
	const ms = 1_000_000
	mk := func(root trace.TID) *Model {
		m := &Model{NrCPUs: 2, WorkloadRoot: root, Start: 0, End: 100 * ms}
		m.Tasks = []Task{
			{TID: 1, Comm: "a", Parent: -1, Start: 0, Last: 30 * ms, Repeat: -1,
				Bursts: []Burst{{Len: 10 * ms, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 20 * ms}}, {Len: 40 * ms, End: EndTrace}}},
			{TID: 2, Comm: "b", Parent: -1, Start: 0, Last: 5 * ms, Repeat: -1,
				Bursts: []Burst{{Len: 5 * ms, End: EndBlock, Wake: Cause{Kind: CauseNever}}}},
		}
		return m
	}
	m := mk(-1)
	(&extractor{m: m}).inferUntil()
	if m.Stats.Censored != 1 || !m.Tasks[0].Censored || m.Tasks[1].Censored {
		t.Errorf("whole system: %d censored (a %v, b %v), want a only",
			m.Stats.Censored, m.Tasks[0].Censored, m.Tasks[1].Censored)
	}
	m = mk(99) // a traced command neither task belongs to
	(&extractor{m: m}).inferUntil()
	if m.Stats.Censored != 0 {
		t.Errorf("with a traced command: %d censored, want 0", m.Stats.Censored)
	}
}

// TestCensoredLiveRoot: the traced command (WorkloadRoot, tid 5) that did
// not exit in the trace is censored whatever it was doing at the end:
// `record -d 1s -- sleep 5` ends while sleep sleeps (one burst, then a
// block the trace never saw woken). The same command exiting in the trace
// is not.
func TestCensoredLiveRoot(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		last EndKind
		want int
	}{{EndBlock, 1}, {EndExit, 0}} {
		m := &Model{NrCPUs: 1, WorkloadRoot: 5, Start: 0, End: 1000 * ms}
		b := Burst{Len: ms, End: c.last}
		if c.last == EndBlock {
			b.Wake = Cause{Kind: CauseNever}
		}
		m.Tasks = []Task{{TID: 5, Comm: "sleep", Parent: -1, Workload: true, Start: 0, Last: ms, Repeat: -1, Bursts: []Burst{b}}}
		(&extractor{m: m}).inferUntil()
		if m.Stats.Censored != c.want || m.Tasks[0].Censored != (c.want == 1) {
			t.Errorf("root ending %v: %d censored, want %d", c.last, m.Stats.Censored, c.want)
		}
	}
}

// TestCommandBeforeTrace: a traceview record capture of a command
// ("traceview record -o r.tv -- stress-ng ...") whose file holds no fork
// of it started after the command did (a later file of a --rotate
// series): the workload is every task (WorkloadRoot -1, CommandBefore),
// where a guess took the one child forked inside (tid 51, 6 ms) for the
// whole command. With the recorder's fork of the command in the file,
// that child is the traced command.
func TestCommandBeforeTrace(t *testing.T) {
	sw := func(at int64, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.PID, e.PrevState, e.NextTID, e.NextPID, e.Prio, e.NextPrio = prev, trace.PID(prev), st, next, trace.PID(next), 120, 120
		e.Comm, e.NextComm = map[trace.TID]string{0: "swapper", 10: "traceview", 50: "stress-ng-fork", 51: "stress-ng-fork"}[prev],
			map[trace.TID]string{0: "swapper", 10: "traceview", 50: "stress-ng-fork", 51: "stress-ng-fork"}[next]
		return e
	}
	fork := func(at int64, parent, child trace.TID, parentComm, childComm string) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindFork)
		e.TID, e.PID, e.Comm, e.ChildTID, e.ChildPID, e.ChildComm = parent, trace.PID(parent), parentComm, child, trace.PID(child), childComm
		return e
	}
	meta := func() *trace.Meta {
		return &trace.Meta{Tool: "traceview record (tp_btf)", Cmdline: []string{"traceview", "record", "-o", "r.tv", "--", "stress-ng", "--fork", "1"}, NrCPUs: 1}
	}
	later := []trace.Event{sw(1000, 0, 0, 50), fork(2000, 50, 51, "stress-ng-fork", "stress-ng-fork"), sw(3000, 50, trace.StateInterruptible, 51),
		sw(9000, 51, trace.StateDead, 50), sw(500_000, 50, trace.StateRunning, 0)}
	m, err := Extract(trace.NewSliceSource(later, meta()))
	if err != nil {
		t.Fatal(err)
	}
	if !m.CommandBefore || m.WorkloadRoot != -1 {
		t.Errorf("a file without the command's fork: CommandBefore %v, root %d; want true, -1", m.CommandBefore, m.WorkloadRoot)
	}
	first := []trace.Event{sw(100, 0, 0, 10), fork(200, 10, 51, "traceview", "stress-ng-fork"), sw(300, 10, trace.StateInterruptible, 51),
		sw(9000, 51, trace.StateDead, 0)}
	m, err = Extract(trace.NewSliceSource(first, meta()))
	if err != nil {
		t.Fatal(err)
	}
	if m.CommandBefore || m.WorkloadRoot != 51 {
		t.Errorf("a file with the command's fork: CommandBefore %v, root %d; want false, 51", m.CommandBefore, m.WorkloadRoot)
	}
}
