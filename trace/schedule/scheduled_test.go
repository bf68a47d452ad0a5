package schedule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestScheduled: which tasks are in a scheduler event (the tasks stats and
// the replay model count). By hand, from the events below: A (10) and B
// (20) switch, C (30) is woken, D (40) forks E (50) after the first
// scheduler event; F (60) is only named by a start-up COMM (time 0, no
// CPU), G (70) only by a fork seen before the first scheduler event (its
// child H, 80, too), and M (90) is only migrated: those are not.
func TestScheduled(t *testing.T) {
	fork := func(at int64, cpu trace.CPU, parent, child trace.TID) trace.Event {
		e := trace.NewEvent(at, cpu, trace.KindFork)
		e.TID, e.PID, e.ChildTID, e.ChildPID = parent, trace.PID(parent), child, trace.PID(child)
		return e
	}
	comm := trace.NewEvent(0, -1, trace.KindComm)
	comm.TID, comm.PID, comm.Comm = 60, 60, "F"
	evs := []trace.Event{
		comm,
		fork(50, 0, 70, 80),
		testsched.Switch(100, 0, 10, "A", trace.StatePreempted, 20, "B"),
		testsched.Waking(200, 0, 20, 30, "C", 0),
		fork(300, 1, 40, 50),
		testsched.Migrate(400, 0, 90, "M", 0, 1),
	}
	b := schedule.New(schedule.Options{}, schedule.Hooks{})
	for i := range evs {
		b.Observe(&evs[i])
	}
	b.Finish()
	got := map[trace.TID]bool{}
	for _, tk := range b.Tasks() {
		if tk.TID != 0 {
			got[tk.TID] = tk.Scheduled()
		}
	}
	want := map[trace.TID]bool{10: true, 20: true, 30: true, 40: true, 50: true, 60: false, 70: false, 80: false, 90: false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scheduled by tid (-want +got):\n%s", d)
	}
}
