package replay

import (
	"slices"

	"github.com/traceview/traceview/trace"
)

// RecordedFrom returns the model's recorded schedule read from src, a
// second read of the input the model was extracted from (same file, same
// reader options), for a model extracted with
// ExtractOptions.DropRecorded: the stream holds the events Extract took
// into the schedule, which are the input's (the lost-record markers,
// trace.KindLost, included) less the events it skipped as damage
// (Model.Stats.Skipped), with the model's Meta (as
// RecordedSource). Reading the file again costs its decoding, about what
// keeping and decoding the schedule cost (on bench/replaymem's 2 M-event
// perf.data: 0.2 s of encoding and 0.1 s of decoding), without the 22 MB.
// Given another input, it returns another schedule: nothing can check.
// Closing the stream closes src.
func (m *Model) RecordedFrom(src trace.Source) trace.Source {
	skip := slices.Clone(m.skippedAt)
	slices.Sort(skip)
	r := &reread{src: src, meta: &m.Meta, skip: skip}
	if p, ok := src.(trace.PointerSource); ok {
		return &rereadPointers{reread: r, p: p}
	}
	return r
}

// reread is RecordedFrom's stream.
type reread struct {
	src  trace.Source
	meta *trace.Meta
	skip []int // the numbers of the events to leave out, sorted; those passed are cut off
	at   int   // the number of the next event src gives
}

// keep reports whether the next event of src, ev, is one of the schedule's.
func (r *reread) keep(ev *trace.Event) bool {
	at := r.at
	r.at++
	if len(r.skip) > 0 && r.skip[0] == at {
		r.skip = r.skip[1:]
		return false
	}
	return ev.Kind != trace.KindInvalid
}

func (r *reread) Next() (trace.Event, error) {
	for {
		ev, err := r.src.Next()
		if err != nil || r.keep(&ev) {
			return ev, err
		}
	}
}

func (r *reread) Meta() *trace.Meta { return r.meta }

// PrefetchDepth asks trace.Prefetch for one waiting batch (trace.PrefetchHinter):
// the second read runs beside the simulation with the observed table as
// its consumer, which is the slower side (on bench/replaymem's file 0.2 s
// of decoding for 0.5 s of table), so batches read further ahead only
// wait, 1.6 MiB each at the replay's peak RSS.
func (r *reread) PrefetchDepth() int { return 1 }
func (r *reread) Close() error       { return r.src.Close() }

// rereadPointers is reread over a source that hands its events over by
// pointer (the perf.data reader): the schedule's pass reads them the same
// way, without a copy of each.
type rereadPointers struct {
	*reread
	p trace.PointerSource
}

func (r *rereadPointers) NextBatch(dst []trace.Event) (int, error) {
	for {
		n, err := r.p.NextBatch(dst)
		if err != nil {
			return 0, err
		}
		k := 0
		for i := range dst[:n] {
			if r.keep(&dst[i]) {
				dst[k] = dst[i]
				k++
			}
		}
		if k > 0 {
			return k, nil
		}
	}
}

func (r *rereadPointers) NextPointers(b *trace.EventBatch) error {
	for {
		if err := r.p.NextPointers(b); err != nil {
			return err
		}
		k := 0
		for _, e := range b.Events {
			if r.keep(e) {
				b.Events[k] = e
				k++
			}
		}
		b.Events = b.Events[:k]
		if k > 0 {
			return nil
		}
	}
}
