package trace

import (
	"errors"
	"io"
	"testing"

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
