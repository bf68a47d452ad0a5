package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// A cyclictest-like thread (TID 2) runs 3 times at prio 19 (SCHED_FIFO
// 80) and once more at prio 120 (set back to SCHED_OTHER on its way
// out); a hog (TID 1) at nice 0 runs between. The model replays TID 2 at
// the prio of most of its switch-ins, 19 (FIFO 80), where the last event
// said 120, and counts one task whose prio changed; the hog's prio, the
// same at every switch-in, stays 120.
func TestSettlePrioMostSwitchIns(t *testing.T) {
	us := int64(1000)
	var evs []trace.Event
	at := func(t int64, prev trace.TID, state trace.TaskState, next trace.TID, prevPrio, nextPrio int32) {
		evs = append(evs, swPrio(t, prev, state, next, prevPrio, nextPrio))
	}
	at(0, 0, 0, 1, 120, 120)
	for k := int64(0); k < 3; k++ {
		base := 100 * us * k
		at(base+10*us, 1, trace.StatePreempted, 2, 120, 19)
		at(base+20*us, 2, trace.StateInterruptible, 1, 19, 120)
	}
	at(400*us, 1, trace.StatePreempted, 2, 120, 120)
	at(410*us, 2, trace.StateInterruptible, 1, 120, 120)
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := map[trace.TID]*Task{}
	for i := range m.Tasks {
		got[m.Tasks[i].TID] = &m.Tasks[i]
	}
	if tk := got[2]; tk == nil || tk.Prio != 19 || !tk.PrioChanged {
		t.Fatalf("TID 2: %+v, want prio 19 (3 of its 4 switch-ins), PrioChanged", tk)
	}
	if c, _, rtprio := got[2].Class(); c != policies.ClassFIFO || rtprio != 80 {
		t.Errorf("TID 2 class %v rtprio %d, want fifo 80 (99 - 19)", c, rtprio)
	}
	if tk := got[1]; tk == nil || tk.Prio != 120 || tk.PrioChanged {
		t.Errorf("TID 1: %+v, want prio 120, unchanged", tk)
	}
	if m.Stats.PrioChanges != 1 {
		t.Errorf("PrioChanges = %d, want 1", m.Stats.PrioChanges)
	}
}
