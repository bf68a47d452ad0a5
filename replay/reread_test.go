package replay

import (
	"bytes"
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
// recorded, and with a sched_waking's target CPU made 5, past the trace's
// 2 CPUs, so that Extract skips it. (The perf.data reader now drops such a
// waking itself, tpformat.SchedDecoder.NrCPUs: the damage is made on the
// events it delivers, badTarget, as a reader of a format that carries no
// CPU count would deliver them.)
func TestRecordedFrom(t *testing.T) {
	orig, err := os.ReadFile(nice2cpu)
	if err != nil {
		t.Skipf("no %s: %v", nice2cpu, err)
	}
	for _, c := range []struct {
		name    string
		damage  bool
		skipped int
	}{{"as recorded", false, 0}, {"one event skipped", true, 1}} {
		t.Run(c.name, func(t *testing.T) {
			open := func() trace.Source {
				r, err := perfdata.NewReader(bytes.NewReader(orig))
				if err != nil {
					t.Fatal(err)
				}
				if c.damage {
					return &badTarget{Source: r, nth: 40}
				}
				return r
			}
			read := func(drop bool) (*Model, []trace.Event, *trace.Meta) {
				r := open()
				defer r.Close()
				m, err := ExtractWith(r, ExtractOptions{DropRecorded: drop})
				if err != nil {
					t.Fatal(err)
				}
				src := m.RecordedSource()
				if drop {
					src = m.RecordedFrom(open())
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

// badTarget delivers its Source's events with the nth sched_waking's
// target CPU made 5.
type badTarget struct {
	trace.Source
	nth, seen int
}

func (b *badTarget) Next() (trace.Event, error) {
	ev, err := b.Source.Next()
	if err == nil && ev.Kind == trace.KindWaking {
		if b.seen++; b.seen == b.nth {
			ev.TargetCPU = 5
		}
	}
	return ev, err
}
