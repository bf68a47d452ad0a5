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

// TestSelectorEarlierName: a name a task had before a rename selects it
// (--nice cons-0=19 for a worker prctl renamed cR-0: "matches no task of
// the trace" before, while latency --comm and map showed it); rename keeps
// each earlier name once (cons-0, cR-0, cons-0, cR-0: both, once each).
func TestSelectorEarlierName(t *testing.T) {
	tk := Task{Comm: "cons-0"}
	tk.rename("cR-0")
	tk.rename("cons-0")
	tk.rename("cR-0")
	if tk.Comm != "cR-0" || len(tk.Earlier) != 2 || tk.Earlier[0] != "cons-0" || tk.Earlier[1] != "cR-0" {
		t.Fatalf("after renames: Comm %q, Earlier %q; want cR-0, [cons-0 cR-0]", tk.Comm, tk.Earlier)
	}
	for sel, want := range map[string]bool{"cons-0": true, "cR-0": true, "cons-1": false} {
		if got := (Selector{Comm: sel, PID: -1, TID: -1}).Match(&tk); got != want {
			t.Errorf("selector %q: match %v, want %v", sel, got, want)
		}
	}
}
