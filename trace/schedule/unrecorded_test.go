package schedule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestUnrecordedCPU: a capture of CPU 1 only (CPU 0 records nothing).
// Task 10 runs on CPU 1 from 100 and sleeps at 200. At 300 task 20 (on
// CPU 1) wakes 10 targeting CPU 0; at 5300 it migrates 0 -> 1 and is
// switched in on CPU 1 at 5400: 5100 ns "waited", but it may have run on
// CPU 0 meanwhile, so the delay is Unrecorded and Excluded. At 6000 10 is
// preempted on CPU 1 and switched in again at 6050: a measured 50 ns
// delay on the recorded CPU. With the wakeup targeting CPU 1 instead, the
// first delay is measured: 5400-300 = 5100 ns.
func TestUnrecordedCPU(t *testing.T) {
	type got struct {
		Len        int64
		Unrecorded bool
		Excluded   bool
	}
	build := func(target trace.CPU, migrate bool) ([]got, int64) {
		var evs []trace.Event
		sw := func(at int64, prev, next trace.TID, ps trace.TaskState) {
			e := trace.NewEvent(at, 1, trace.KindSwitch)
			e.CurTID, e.TID, e.PID, e.PrevState, e.NextTID, e.NextPID = prev, prev, trace.PID(prev), ps, next, trace.PID(next)
			evs = append(evs, e)
		}
		sw(100, 20, 10, trace.StateInterruptible)
		sw(200, 10, 20, trace.StateInterruptible)
		w := trace.NewEvent(300, 1, trace.KindWaking)
		w.CurTID, w.TID, w.PID, w.TargetCPU = 20, 10, 10, target
		evs = append(evs, w)
		if migrate {
			m := trace.NewEvent(5300, 1, trace.KindMigrate)
			m.TID, m.PID, m.OrigCPU, m.DestCPU = 10, 10, 0, 1
			evs = append(evs, m)
		}
		sw(5400, 20, 10, trace.StateInterruptible)
		sw(6000, 10, 20, trace.StateRunning)
		sw(6050, 20, 10, trace.StateInterruptible)
		var out []got
		b := schedule.New(schedule.Options{}, schedule.Hooks{Delay: func(d *schedule.Delay) {
			if d.Task.TID == 10 {
				out = append(out, got{d.End - d.Start, d.Unrecorded, d.Excluded})
			}
		}})
		for i := range evs {
			b.Observe(&evs[i])
		}
		b.Finish()
		return out, b.C.UnrecordedDelays
	}
	for _, tc := range []struct {
		name    string
		target  trace.CPU
		migrate bool
		want    []got
		n       int64
	}{
		{"woken to unrecorded CPU, migrated", 0, true, []got{{5100, true, true}, {50, false, false}}, 1},
		{"woken to unrecorded CPU", 0, false, []got{{5100, true, true}, {50, false, false}}, 1},
		{"woken to recorded CPU", 1, false, []got{{5100, false, false}, {50, false, false}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, n := build(tc.target, tc.migrate)
			if diff := cmp.Diff(tc.want, out); diff != "" || n != tc.n {
				t.Errorf("delays (-want +got):\n%s\nUnrecordedDelays %d, want %d", diff, n, tc.n)
			}
		})
	}
}
