package replay

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// A SCHED_DEADLINE spinner (TID 2, runtime 2 ms every 10 ms) beside a
// nice-0 hog (TID 1) on one CPU, as the kernel traces it: the deadline
// task's sched_switches give it prio -1, each throttle (its runtime used)
// switches it out runnable, and each replenishment switches it in again
// with no wakeup. It runs [0,2), [10,12), ... [50,52) ms and exits at 52
// ms; the hog runs between.
//
// The model marks TID 2 SchedDeadline (class FIFO 99), and its five
// throttles become blocks woken at the recorded replenishments, 10, 20,
// 30, 40 and 50 ms (Cause.Throttle). Replayed under eevdf on 1 CPU, TID 2
// runs 6 × 2 = 12 ms as recorded; its switch-outs are runnable ("R+", as
// the kernel's), its switches say prio -1 and no sched_waking names it.
func TestSchedDeadlineThrottles(t *testing.T) {
	ms := int64(1_000_000)
	evs := []trace.Event{swPrio(0, 0, 0, 2, 120, -1)}
	for k := int64(0); k < 5; k++ {
		evs = append(evs,
			swPrio(10*ms*k+2*ms, 2, trace.StatePreempted, 1, -1, 120), // throttled
			swPrio(10*ms*(k+1), 1, trace.StatePreempted, 2, 120, -1))  // replenished
	}
	evs = append(evs, swPrio(52*ms, 2, trace.StateDead, 1, -1, 120), swPrio(60*ms, 1, trace.StateDead, 0, 120, 120))
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	var dl *Task
	for i := range m.Tasks {
		if m.Tasks[i].TID == 2 {
			dl = &m.Tasks[i]
		} else if m.Tasks[i].SchedDeadline {
			t.Errorf("TID %d marked SCHED_DEADLINE", m.Tasks[i].TID)
		}
	}
	if dl == nil || !dl.SchedDeadline || m.Stats.SchedDeadline != 1 {
		t.Fatalf("TID 2: %+v, SchedDeadline tasks %d; want it marked, 1", dl, m.Stats.SchedDeadline)
	}
	if c, _, rtprio := dl.Class(); c != policies.ClassFIFO || rtprio != 99 {
		t.Errorf("TID 2 class %v rtprio %d, want fifo 99", c, rtprio)
	}
	var wakes []int64
	for _, b := range dl.Bursts {
		if b.End == EndBlock {
			if b.Wake.Kind != CauseExternal || !b.Wake.Throttle || b.Len != 2*ms {
				t.Errorf("burst %+v: want 2 ms ending in a throttle (CauseExternal, Throttle)", b)
			}
			wakes = append(wakes, b.Wake.At)
		}
	}
	if want := []int64{10 * ms, 20 * ms, 30 * ms, 40 * ms, 50 * ms}; !slices.Equal(wakes, want) {
		t.Errorf("replenishments at %v, want %v", wakes, want)
	}

	res, err := Simulate(m, newPolicy(t, "eevdf", 1), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace.ReadAll(res.Source())
	if err != nil {
		t.Fatal(err)
	}
	var ran int64
	outs := 0
	for _, e := range got {
		switch {
		case e.Kind == trace.KindWaking && e.TID == 2:

			t.Errorf("sched_waking of the deadline task at %d ns", e.Time)
		case e.Kind == trace.KindSwitch && e.NextTID == 2 && e.NextPrio != -1:
			t.Errorf("switch-in of TID 2 at %d ns with prio %d, want -1", e.Time, e.NextPrio)
		case e.Kind == trace.KindSwitch && e.TID == 2 && e.PrevState&trace.StateDead == 0:
			outs++
			if !e.PrevState.Runnable() {
				t.Errorf("TID 2 switched out at %d ns in state %v, want runnable (throttled)", e.Time, e.PrevState)
			}
		case e.Kind == trace.KindRuntime && e.TID == 2:
			ran += e.Runtime
		}
	}
	if outs != 5 || ran != 12*ms {
		t.Errorf("TID 2: %d throttles, %d ns run; want 5, 12 ms", outs, ran)
	}
}
