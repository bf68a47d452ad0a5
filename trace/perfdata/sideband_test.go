package perfdata

import (
	"encoding/binary"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestSideBandBehindItsCPU: the kernel stamps a COMM or EXIT record before
// it takes its room in the ring buffer, so one can follow a later-stamped
// record of its CPU (an exec's COMM 93 µs behind in exec-comm-order.perf.data).
// CPU 0 holds task 10 switching to 11 at 1.000000 s (IN record at
// 1.000001 s), then 11's exec COMM stamped 0.999950 s, then 11 switching
// back at 1.000500 s. The COMM is data, not damage: it is delivered first
// (time order, as perf's ordered_events sorts), with no time-backwards
// warning, and counted in Stats.SideBandBehind. A switch record as far
// behind stays damage (TestNegativeTimeWarnings).
func TestSideBandBehindItsCPU(t *testing.T) {
	p := newPipeBuilder()
	p.comm(10, "a")
	p.comm(11, "b")
	p.switchOut(1_000_000_000, 10, 11, true)
	body := make([]byte, 16)
	binary.LittleEndian.PutUint32(body[0:], 11)
	binary.LittleEndian.PutUint32(body[4:], 11)
	copy(body[8:], "true")
	p.kernel(recComm, miscCommExec, body, 11, 999_950_000, 0)
	p.switchOut(1_000_500_000, 11, 10, false)
	p.record(recFinishedRound, 0, nil) // (a stream perf ended: cutEnd)
	evs, r, err := drain(p.b.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Meta().Warnings.List() {
		if w.Key != "switch-records" { // (no sched tracepoints here)
			t.Errorf("warning %s: %s", w.Key, w.Message)
		}
	}
	var got []string
	for _, e := range evs {
		if e.Time == 0 {
			continue // the synthesized COMMs
		}
		s := trace.FormatSeconds(e.Time, 6) + " " + e.Kind.String()
		if e.Kind == trace.KindExec {
			s += " " + e.Comm
		}
		got = append(got, s)
	}
	want := []string{"0.999950 sched_process_exec true", "1.000000 sched_switch", "1.000500 sched_switch"}
	if len(got) != len(want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
	// (Stats.SideBandBehind is the count; before queueSideBand the COMM
	// was dropped with a time-backwards warning.)
	if n := r.Stats().SideBandBehind; n != 1 {
		t.Errorf("SideBandBehind = %d, want 1", n)
	}
}
