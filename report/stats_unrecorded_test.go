package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestStatsUnrecordedWarningCount: a capture of CPU 1 only where tasks 10
// and 11 are each woken to CPU 0 (which records nothing) and then run on
// CPU 1: 2 delays not measured. The warning states its count once: it
// read "2 scheduling delays not measured: ... (2 times)".
func TestStatsUnrecordedWarningCount(t *testing.T) {
	var evs []trace.Event
	sw := func(at int64, prev, next trace.TID, ps trace.TaskState) {
		e := trace.NewEvent(at, 1, trace.KindSwitch)
		e.CurTID, e.TID, e.PID, e.Comm, e.PrevState, e.NextTID, e.NextPID, e.NextComm = prev, prev, trace.PID(prev), "t", ps, next, trace.PID(next), "t"
		evs = append(evs, e)
	}
	wake := func(at int64, tid trace.TID) {
		e := trace.NewEvent(at, 1, trace.KindWaking)
		e.CurTID, e.TID, e.PID, e.Comm, e.TargetCPU = 20, tid, trace.PID(tid), "t", 0
		evs = append(evs, e)
	}
	sw(100, 20, 10, trace.StateInterruptible)
	sw(200, 10, 11, trace.StateInterruptible)
	sw(300, 11, 20, trace.StateInterruptible)
	wake(400, 10)
	wake(500, 11)
	sw(5400, 20, 10, trace.StateInterruptible)
	sw(5500, 10, 11, trace.StateInterruptible)
	st, err := ComputeStats(trace.NewSliceSource(evs, nil), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := unrecordedMessage(2)
	for _, w := range st.Warnings {
		if w.Key == "delay-unrecorded-cpu" {
			if w.String() != want || st.UnrecordedDelays != 2 {
				t.Errorf("warning %q (%d delays), want %q", w.String(), st.UnrecordedDelays, want)
			}
			return
		}
	}
	t.Errorf("no delay-unrecorded-cpu warning in %+v", st.Warnings)
}
