package trace

import (
	"io"
	"testing"
)

// skipping is a batching source that records the kinds it was asked to
// skip.
type skipping struct {
	batching
	skipped []Kind
}

func (s *skipping) SkipKinds(kinds ...Kind) { s.skipped = append(s.skipped, kinds...) }

// A Tap keeps its source's batch path and kind skipping, sees every event,
// and ends once.
func TestTap(t *testing.T) {
	src := &skipping{batching: batching{SliceSource: *NewSliceSource(prefetchEvents(2*prefetchBatch+452), nil)}}
	seen, ends := 0, 0
	var endErr error
	tap := &Tap{Source: src, Observe: func(*Event) { seen++ }, End: func(err error) { ends++; endErr = err }}
	if !SkipKinds(tap, KindRuntime) || len(src.skipped) != 1 || src.skipped[0] != KindRuntime {
		t.Errorf("SkipKinds not passed on: the source got %v", src.skipped)
	}
	n := 0
	if err := Each(tap, func(*Event) error { n++; return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if want := 2*prefetchBatch + 452; n != want || seen != want {
		t.Errorf("%d events delivered, %d observed; want %d, %d", n, seen, want, want)
	}
	if src.calls != 4 {
		t.Errorf("%d NextBatch calls of the source, want 4 (the batch path through the Tap)", src.calls)
	}
	tap.Close()
	if ends != 1 || endErr != io.EOF {
		t.Errorf("End called %d times, last with %v; want once with io.EOF", ends, endErr)
	}

	keep := &skipping{batching: batching{SliceSource: *NewSliceSource(nil, nil)}}
	closed := 0
	k := &Tap{Source: keep, KeepKinds: true, End: func(err error) {
		if err != nil {
			t.Errorf("End at Close got %v, want nil", err)
		}
		closed++
	}}
	SkipKinds(k, KindMigrate)
	if len(keep.skipped) != 0 {
		t.Errorf("KeepKinds: the source was asked to skip %v", keep.skipped)
	}
	k.Close()
	k.Close()
	if closed != 1 {
		t.Errorf("End called %d times by two Closes before the end, want 1", closed)
	}
}
