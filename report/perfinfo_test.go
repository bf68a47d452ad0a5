package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestPerfLostEventsOutOf: perf sched latency's lost-events INFO line
// counts the lost records' events "out of" every record read (perf's
// nr_events[0], trace.Meta.Records), not the events decoded: a recording
// of this VM with 384 LOST records printed "61609 out of 45364" (its
// samples) where perf printed "out of 48468" (perf report --stats TOTAL
// events). Here: two switches and a LOST record of 15 in a Meta saying 200
// records.
func TestPerfLostEventsOutOf(t *testing.T) {
	sw := func(at int64, prev, next trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.CurTID, e.TID, e.PrevState, e.NextTID, e.Comm, e.NextComm = prev, prev, trace.StateInterruptible, next, "a", "b"
		return e
	}
	lost := trace.NewEvent(1500, 0, trace.KindLost)
	lost.Count = 15
	evs := []trace.Event{sw(1000, 1, 2), lost, sw(2000, 2, 1)}
	res, err := ComputeLatency(trace.NewSliceSource(evs, &trace.Meta{Records: 200}), LatencyOptions{PerfCompat: true})
	if err != nil {
		t.Fatal(err)
	}
	if in := perfInfo(&res.Diag); in.Events != 200 || in.LostEvents != 15 || in.LostChunks != 1 {
		t.Errorf("INFO counters %+v, want 15 lost out of 200 records in 1 chunk", in)
	}
}
