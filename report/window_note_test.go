package report

import (
	"testing"

	"github.com/traceview/traceview/trace/schedule"
)

// TestWindowNote: a --time window in seconds that reaches outside the
// trace's scheduler events says by how much and what the report covers
// (new-user pass 109 F1); one inside, one given as a share of the trace
// (Relative) and one wholly outside (the no-match message's) say nothing.
// The trace here spans 10.000200000 s to 12.000000000 s.
func TestWindowNote(t *testing.T) {
	x := NoMatch{First: 10_000_200_000, Last: 12_000_000_000}
	for _, c := range []struct {
		name string
		f    *schedule.Filter
		want string // "" no note
	}{
		// 10.0002 - 9.5 = 500.2 ms before; covered 10.0002 to 11: 999.8
		// ms of 1500.
		{"before", &schedule.Filter{Start: 9_500_000_000, End: 11_000_000_000},
			"--time 9.500000000,11.000000000 starts 500.200 ms before the trace's first scheduler event: the report covers 10.000200 s to 11.000000 s, 999.800 ms of the 1500.000 ms asked"},
		// 13 - 12 = 1000 ms after; open start: no "of ... asked".
		{"after, open start", &schedule.Filter{End: 13_000_000_000},
			"--time ,13.000000000 ends 1000.000 ms after the trace's last scheduler event: the report covers 10.000200 s to 12.000000 s"},
		// Both: 1000.2 ms before, 250 ms after; covered 1999.8 of 3250.
		{"both", &schedule.Filter{Start: 9_000_000_000, End: 12_250_000_000},
			"--time 9.000000000,12.250000000 starts 1000.200 ms before the trace's first scheduler event and ends 250.000 ms after its last: the report covers 10.000200 s to 12.000000 s, 1999.800 ms of the 3250.000 ms asked"},
		{"inside", &schedule.Filter{Start: 10_500_000_000, End: 11_000_000_000}, ""},
		{"relative", &schedule.Filter{Start: 9_000_000_000, End: 11_000_000_000, Relative: true}, ""},
		{"wholly before", &schedule.Filter{Start: 8_000_000_000, End: 9_000_000_000}, ""},
		{"no window", &schedule.Filter{CPUs: nil, Comms: []string{"a"}}, ""},
		{"nil", nil, ""},
	} {
		w, ok := x.WindowNote(c.f)
		if got := w.Message; ok != (c.want != "") || got != c.want || ok && w.Key != TimeOutsideKey {
			t.Errorf("%s: note %v %q %q\nwant %q", c.name, ok, w.Key, got, c.want)
		}
	}
	if _, ok := (NoMatch{}).WindowNote(&schedule.Filter{Start: 1}); ok {
		t.Error("a trace of unknown span gave a note")
	}
}
