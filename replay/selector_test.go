package replay

import "testing"

// TestSelectorLongName: the kernel keeps 15 bytes of a task's name, so
// the trace names stress-ng's cyclic worker "stress-ng-cycli"; the full
// name "stress-ng-cyclic" selects it (it matched no task), as does the
// cut name or any name the kernel would cut to it; a shorter prefix does
// not.
func TestSelectorLongName(t *testing.T) {
	tk := &Task{Comm: "stress-ng-cycli"}
	for sel, want := range map[string]bool{"stress-ng-cyclic": true, "stress-ng-cycli": true, "stress-ng-cyc": false, "stress-ng-cyclix": true} {
		s, err := ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Match(tk); got != want {
			t.Errorf("%q matches %q: %v, want %v", sel, tk.Comm, got, want)
		}
	}
}
