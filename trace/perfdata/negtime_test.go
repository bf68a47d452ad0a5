package perfdata

import (
	"strings"
	"testing"
)

// TestNegativeTimeWarnings: a damaged record whose time reads as negative
// (-1 ns) is named in the warnings as -0.000000001 s; "%d.%09d" printed
// "0.-00000001 s". CPU 0 holds a switch at 1 s (its OUT record is the
// event; the IN record 1 us later is not used), then a FINISHED_ROUND
// delivers it; the record at -1 ns on CPU 0 is then earlier than that
// CPU's previous one at 1.000000000 s (time-backwards),
// and the one at -1 ns on CPU 1 is below the delivered events
// (out-of-order).
func TestNegativeTimeWarnings(t *testing.T) {
	p := newPipeBuilder()
	p.comm(10, "a")
	p.switchOut(1_000_000_000, 0, 10, true)
	p.record(recFinishedRound, 0, nil)
	sw := make([]byte, 8) // a switch body naming task 10
	sw[0], sw[4] = 10, 10
	neg := ^uint64(0) // -1 ns
	p.kernel(recSwitchCPUWide, uint16(miscSwitchOut), sw, 0, neg, 0)
	p.kernel(recSwitchCPUWide, uint16(miscSwitchOut), sw, 0, neg, 1)
	_, r, err := drain(p.b.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"damaged-time-backwards": "perf.data: CPU 0: event at -0.000000001 s is earlier than the CPU's previous record (1.000000000 s): damaged or repeated data, dropped",
		"out-of-order":           "perf.data: event at -0.000000001 s arrived after later events were delivered (below the last round flush); delivered late",
	}
	got := map[string]string{}
	for _, w := range r.Meta().Warnings.List() {
		if _, ok := want[w.Key]; ok {
			got[w.Key] = w.Message
		}
		if strings.Contains(w.Message, ".-") {
			t.Errorf("%s: %q", w.Key, w.Message)
		}
	}
	for k, m := range want {
		if got[k] != m {
			t.Errorf("%s warning %q, want %q (all: %v)", k, got[k], m, r.Meta().Warnings.List())
		}
	}
}
