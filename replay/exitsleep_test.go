package replay

import (
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// TestSleepAfterExit: a thread that sleeps in do_exit after its
// sched_process_exit (D), is woken and ends with its X switch-out (as a
// stress-ng pthread did in new-user pass 33 F4) is one task of two bursts,
// the first ending in a block, the second in its exit; the D switch-out
// was taken for its end, and its last run made a second task of the same
// TID (5294 tasks where the recording had 5290).
func TestSleepAfterExit(t *testing.T) {
	us := testsched.Us
	fork := trace.NewEvent(1*us, 0, trace.KindFork)
	fork.TID, fork.PID, fork.CurTID, fork.Comm, fork.ChildTID, fork.ChildPID, fork.ChildComm = 10, 10, 10, "p", 11, 10, "p"
	exit := trace.NewEvent(30*us, 1, trace.KindExit)
	exit.TID, exit.PID, exit.CurTID, exit.Comm = 11, 10, 11, "p"
	evs := []trace.Event{
		fork,
		testsched.Switch(10*us, 1, 0, "swapper/1", 0, 11, "p"),
		exit,
		testsched.Switch(40*us, 1, 11, "p", trace.StateUninterruptible, 0, "swapper/1"),
		testsched.Waking(50*us, 0, 10, 11, "p", 1),
		testsched.Switch(55*us, 1, 0, "swapper/1", 0, 11, "p"),
		testsched.Switch(60*us, 1, 11, "p", trace.StateDead, 0, "swapper/1"),
		testsched.Switch(70*us, 0, 10, "p", trace.StateInterruptible, 0, "swapper/0"),
	}
	m, err := Extract(trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 2}))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*Task
	for i := range m.Tasks {
		if m.Tasks[i].TID == 11 {
			tasks = append(tasks, &m.Tasks[i])
		}
	}
	if len(tasks) != 1 {
		t.Fatalf("%d tasks of TID 11, want 1", len(tasks))
	}
	bs := tasks[0].Bursts
	if len(bs) != 2 || bs[0].End != EndBlock || bs[1].End != EndExit || m.Stats.Exits != 1 {
		t.Errorf("bursts %+v, exits %d; want a block then the exit, 1 exit", bs, m.Stats.Exits)
	}
}
