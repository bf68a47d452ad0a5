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
