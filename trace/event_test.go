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
