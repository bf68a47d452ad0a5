package trace

import (
	"reflect"
	"testing"
)

// TestKindFields: every field the kind table names exists on Event, so the
// table that decoders, dumps and tests read is true to the type.
func TestKindFields(t *testing.T) {
	et := reflect.TypeOf(Event{})
	for _, k := range Kinds[1:] {
		if k.Name == "" {
			t.Errorf("kind %d has no name", k.Kind)
		}
		for _, f := range k.Fields {
			if _, ok := et.FieldByName(f); !ok {
				t.Errorf("%s: Event has no field %q", k.Name, f)
			}
		}
	}
}

// Reset gives NewEvent's event, whatever the event held before.
func TestEventReset(t *testing.T) {
	e := Event{Time: 9, CPU: 3, Kind: KindFork, TID: 5, Comm: "x", ChildComm: "y", Runtime: 7, Count: 2, Cgroup: 4, Stack: 1, FromIRQ: Yes}
	e.Reset(12, 1, KindSwitch)
	if want := NewEvent(12, 1, KindSwitch); e != want {
		t.Errorf("Reset: %+v, want %+v", e, want)
	}
}

// TestSwitchDeadline: prio -1 marks SCHED_DEADLINE only beside a known
// prio on the same sched_switch (-1 is also "unknown"), and only on a
// sched_switch.
func TestSwitchDeadline(t *testing.T) {
	for _, c := range []struct {
		kind             Kind
		prio, nextPrio   int32
		wantPrev, wantNx bool
	}{
		{KindSwitch, -1, 120, true, false},
		{KindSwitch, 120, -1, false, true},
		{KindSwitch, 0, -1, false, true}, // beside FIFO 99
		{KindSwitch, -1, -1, false, false},
		{KindSwitch, 120, 19, false, false},
		{KindWaking, -1, 120, false, false},
	} {
		e := NewEvent(1, 0, c.kind)
		e.Prio, e.NextPrio = c.prio, c.nextPrio
		if p, n := e.SwitchDeadline(); p != c.wantPrev || n != c.wantNx {
			t.Errorf("%v prio %d next %d: %v, %v; want %v, %v", c.kind, c.prio, c.nextPrio, p, n, c.wantPrev, c.wantNx)
		}
	}
}

// TestRuntimeDamaged: a sched_stat_runtime 2.5 s into a trace may report
// up to 2.5 s + MaxPreTraceRun (1 s) = 3.5 s of run time; 3.5 s + 1 ns, or
// a negative run time, is damage. Other kinds never are.
func TestRuntimeDamaged(t *testing.T) {
	const first, at = int64(10e9), int64(12.5e9)
	for _, c := range []struct {
		kind    Kind
		runtime int64
		want    bool
	}{
		{KindRuntime, 3.5e9, false}, {KindRuntime, 3.5e9 + 1, true}, {KindRuntime, -1, true},
		{KindRuntime, 0, false}, {KindLost, 5e9, false},
	} {
		e := NewEvent(at, 0, c.kind)
		e.Runtime = c.runtime
		if got := RuntimeDamaged(&e, first); got != c.want {
			t.Errorf("%v run time %d ns at %d ns, first %d ns: damaged %v, want %v", c.kind, c.runtime, at, first, got, c.want)
		}
	}
}
