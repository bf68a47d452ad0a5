package replay

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfdata"
)

// TestRecordedFrom checks that a model extracted without its recorded
// schedule (ExtractOptions.DropRecorded) gets the same schedule, event for
// event and with the same Meta, from a second read of its input
// (Model.RecordedFrom) as a model that kept it: on nice.2cpu.perf.data as
// recorded, and with a sched_waking's target CPU damaged so that Extract
// skips it.
func TestRecordedFrom(t *testing.T) {
	orig, err := os.ReadFile(nice2cpu)
	if err != nil {
		t.Skipf("no %s: %v", nice2cpu, err)
	}
	damaged := append([]byte(nil), orig...)
	// A sched_waking's target_cpu (RAW payload offset 32; the payload
	// starts 28 bytes after the sample's time in perf sched record's
	// layout) made 5, past the trace's 2 CPUs (its nr_cpus_avail): the
	// reader passes it (below NR_CPUS; 0x36311600 it drops since
	// tpformat.ErrFieldRange), Extract skips it.
	at, _ := sampleAt(t, damaged, trace.KindWaking)
	binary.LittleEndian.PutUint32(damaged[at+28+32:], 5)
	for _, c := range []struct {
		name    string
		b       []byte
		skipped int
	}{{"as recorded", orig, 0}, {"one event skipped", damaged, 1}} {
		t.Run(c.name, func(t *testing.T) {
			read := func(drop bool) (*Model, []trace.Event, *trace.Meta) {
				r, err := perfdata.NewReader(bytes.NewReader(c.b))
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				m, err := ExtractWith(r, ExtractOptions{DropRecorded: drop})
				if err != nil {
					t.Fatal(err)
				}
				src := m.RecordedSource()
				if drop {
					r2, err := perfdata.NewReader(bytes.NewReader(c.b))
					if err != nil {
						t.Fatal(err)
					}
					src = m.RecordedFrom(r2)
				}
				defer src.Close()
				evs, err := trace.ReadAll(src)
				if err != nil {
					t.Fatal(err)
				}
				return m, evs, src.Meta()
			}
			kept, want, wantMeta := read(false)
			dropped, got, gotMeta := read(true)
			if kept.Stats.Skipped != c.skipped || dropped.Stats.Skipped != c.skipped {
				t.Errorf("skipped %d and %d events, want %d", kept.Stats.Skipped, dropped.Stats.Skipped, c.skipped)
			}
			if !dropped.Recorded.Released() || dropped.Recorded.Len() != kept.Recorded.Len() {
				t.Errorf("dropped log: released %v, %d events; want released, %d", dropped.Recorded.Released(),
					dropped.Recorded.Len(), kept.Recorded.Len())
			}
			if len(want) != kept.Recorded.Len() {
				t.Fatalf("kept log reads %d events of %d", len(want), kept.Recorded.Len())
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("second read differs from the kept schedule (-kept +reread):\n%s", diff)
			}
			if diff := cmp.Diff(wantMeta.Warnings.List(), gotMeta.Warnings.List()); diff != "" {
				t.Errorf("meta warnings differ:\n%s", diff)
			}
		})
	}
}
