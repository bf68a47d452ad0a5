package perfdata

import (
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestLostAhead: every loss of a mapped file is delivered once, at its
// start (the CPU's previous record), in time order with the other events,
// whatever the round its LOST record came in: lossy-messaging.perf.data
// (perf sched record -m 1; 276 LOST records, 33969 events lost). Its CPU 1
// loss of 63 events from 5903.489646 s to 5903.521633 s came after the
// reader had delivered CPU 0's events up to 5903.505378 s; it was
// delivered there, after a delay inside it had ended (new-user pass 17
// F4). In perf's own mode (KeepRepeats) a loss stays where its record
// comes.
func TestLostAhead(t *testing.T) {
	read := func(keep bool) (lost []trace.Event, meta *trace.Meta, ordered bool) {
		r := openReader(t, "../../testdata/traces/lossy-messaging.perf.data")
		defer r.Close()
		if keep {
			r.KeepRepeats()
		}
		ordered = true
		for prev := int64(0); ; {
			e, err := r.Next()
			if err == io.EOF {
				return lost, r.Meta(), ordered
			}
			if err != nil {
				t.Fatal(err)
			}
			ordered = ordered && e.Time >= prev
			prev = e.Time
			if e.Kind == trace.KindLost {
				lost = append(lost, e)
			}
		}
	}
	lost, meta, ordered := read(false)
	if len(lost) != 276 || len(meta.Lost) != 276 || !ordered {
		t.Fatalf("%d losses delivered, %d windows, in order %v; want 276, 276, true", len(lost), len(meta.Lost), ordered)
	}
	starts := map[[2]int64]bool{}
	for _, w := range meta.Lost {
		starts[[2]int64{int64(w.CPU), w.Start}] = true
	}
	found := false
	for _, e := range lost {
		if !starts[[2]int64{int64(e.CPU), e.Time}] {
			t.Errorf("loss on CPU %d delivered at %d, not at a window's start", e.CPU, e.Time)
		}
		if e.CPU == 1 && e.Count == 63 && e.Time == 5903489646962 {
			found = true
			if end := e.Time + e.Runtime; end != 5903521633021 {
				t.Errorf("CPU 1's loss of 63 ends at %d, want 5903521633021", end)
			}
		}
	}
	if !found {
		t.Errorf("no loss of 63 events on CPU 1 at 5903.489646962")
	}
	if lost, _, _ := read(true); len(lost) != 276 || lost[0].Runtime != 0 {
		t.Errorf("KeepRepeats: %d losses, the first with Runtime %d; want 276 at their records' times", len(lost), lost[0].Runtime)
	}
}
