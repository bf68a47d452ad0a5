package trace

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// prefetchEvents returns n switch events at 1, 2, ... µs.
func prefetchEvents(n int) []Event {
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = NewEvent(int64(i+1)*1000, CPU(i%2), KindSwitch)
		evs[i].TID, evs[i].NextTID = TID(i), TID(i+1)
	}
	return evs
}

// failing delivers its events, then err instead of io.EOF.
type failing struct {
	SliceSource
	err error
}

func (f *failing) Next() (Event, error) {
	e, err := f.SliceSource.Next()
	if err == io.EOF {
		return e, f.err
	}
	return e, err
}

// batching is a BatchSource over a slice that counts its NextBatch calls.
type batching struct {
	SliceSource
	calls int
}

func (b *batching) NextBatch(dst []Event) (int, error) {
	b.calls++
	if len(b.Events) == 0 {
		return 0, io.EOF
	}
	n := copy(dst, b.Events)
	b.Events = b.Events[n:]
	return n, nil
}

// Each delivers every event in order, for sources with and without
// NextBatch, across batch boundaries (two full batches and a part), and a
// source error after the events before it.
func TestEach(t *testing.T) {
	want := prefetchEvents(2*prefetchBatch + 452)
	collect := func(src Source) ([]Event, error) {
		var got []Event
		err := Each(src, func(e *Event) error { got = append(got, *e); return nil }, nil)
		return got, err
	}
	got, err := collect(NewSliceSource(append([]Event(nil), want...), nil))
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("Next source: %d events, err %v; want %d, nil", len(got), err, len(want))
	}
	bs := &batching{SliceSource: *NewSliceSource(append([]Event(nil), want...), nil)}
	got, err = collect(bs)
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("BatchSource: %d events, err %v; want %d, nil", len(got), err, len(want))
	}
	if bs.calls != 4 { // two full batches + 452, then io.EOF
		t.Errorf("BatchSource: %d NextBatch calls, want 4", bs.calls)
	}
	cut := errors.New("truncated")
	got, err = collect(&failing{SliceSource: *NewSliceSource(append([]Event(nil), want...), nil), err: cut})
	if err != cut || len(got) != len(want) {
		t.Errorf("failing source: %d events, err %v; want %d, %v", len(got), err, len(want), cut)
	}
	stop := errors.New("enough")
	n := 0
	err = Each(NewSliceSource(append([]Event(nil), want...), nil), func(*Event) error {
		if n++; n == 1500 {
			return stop
		}
		return nil
	}, nil)
	if err != stop || n != 1500 {
		t.Errorf("fn error: err %v after %d events; want %v after 1500", err, n, stop)
	}
}

// stackSource adds a stack table entry to its Meta every 1000 events, as a
// streaming reader does.
type stackSource struct {
	SliceSource
	n int
}

func (s *stackSource) Next() (Event, error) {
	e, err := s.SliceSource.Next()
	if err == nil {
		if s.n++; s.n%1000 == 0 {
			s.M.Stacks = append(s.M.Stacks, Stack{ID: StackID(len(s.M.Stacks) + 1)})
		}
		e.Stack = StackID(len(s.M.Stacks))
	}
	return e, err
}

// The stack entries a source adds reach the consumer before the events of
// the batch that refers to them.
func TestPrefetchStacks(t *testing.T) {
	src := &stackSource{SliceSource: *NewSliceSource(prefetchEvents(3500), &Meta{})}
	var have []Stack
	err := Each(src, func(e *Event) error {
		if int(e.Stack) > len(have) {
			t.Fatalf("event at %d ns refers to stack %d, %d delivered", e.Time, e.Stack, len(have))
		}
		return nil
	}, func(s []Stack) { have = append(have, s...) })
	if err != nil || len(have) != 3 {
		t.Errorf("err %v, %d stacks delivered; want nil, 3", err, len(have))
	}
}

// hinted is a source that asks for one waiting batch (PrefetchHinter).
type hinted struct{ batching }

func (hinted) PrefetchDepth() int { return 1 }

// A reader ahead of a consumer that reads nothing makes batches up to its
// limit and no more: prefetchDepth waiting, one being filled when the
// queue is full, plus the consumer's = prefetchDepth+2 (8) by default and
// 1+2 = 3 for a source that asks for one waiting batch (before the
// consumer reads, limit-1 of them); it delivers every event all the same. The reader makes no batch it does not
// need: a source of one batch's events takes two (the events, then the
// io.EOF), whatever the limit.
func TestPrefetchBatchesMade(t *testing.T) {
	n := (prefetchDepth + 4) * prefetchBatch
	for _, c := range []struct {
		name  string
		src   Source
		limit int
	}{
		{"default", &batching{SliceSource: *NewSliceSource(prefetchEvents(n), nil)}, prefetchDepth + 2},
		{"hinted", &hinted{batching{SliceSource: *NewSliceSource(prefetchEvents(n), nil)}}, 3},
	} {
		p := Prefetch(c.src, nil)
		// The reader fills limit-1 batches (the consumer holds none yet)
		// and then waits for a free one: full holds limit-2, it is
		// blocked on sending the one more it read.
		for i := 0; len(p.full) < c.limit-2; i++ {
			if i == 5000 {
				t.Fatalf("%s: the reader filled %d batches in 5 s, want %d", c.name, len(p.full), c.limit-2)
			}
			time.Sleep(time.Millisecond)
		}
		got := 0
		for {
			_, err := p.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got++
		}
		// After that the consumer's batch comes back before or after the
		// reader wants another: limit-1 or limit made.
		if got != n || p.made < c.limit-1 || p.made > c.limit {
			t.Errorf("%s: %d events, %d batches made; want %d, %d or %d", c.name, got, p.made, n, c.limit-1, c.limit)
		}
	}
	p := Prefetch(&batching{SliceSource: *NewSliceSource(prefetchEvents(prefetchBatch), nil)}, nil)
	for {
		if _, err := p.Next(); err != nil {
			break
		}
	}
	if p.made > 2 {
		t.Errorf("one batch of events: %d batches made, want at most 2", p.made)
	}
}
