package trace

import (
	"errors"
	"io"
)

// Tap wraps a Source and lets a caller watch the stream go by without
// losing what the source can do: it is a PointerSource (batches go through
// ReadBatch and ReadPointers, so a reader that fills batches in place or
// hands its events over by pointer still does) and a
// KindSkipper that passes SkipKinds on, unless KeepKinds is set.
type Tap struct {
	Source
	// Observe, when not nil, sees every event delivered, in order.
	Observe func(e *Event)
	// End, when not nil, is called once, with the stream's terminal error
	// (io.EOF at its end), when Next or NextBatch first returns it, or
	// with nil at Close if the stream had not ended.
	End func(err error)
	// KeepKinds makes SkipKinds a no-op: the observer needs every kind
	// (consumers ignore the kinds they asked to skip, so they see no
	// difference).
	KeepKinds bool
	// Stop, when not nil, is asked before each read: once it returns
	// true the stream ends there, as if the trace did (Next, NextBatch
	// and NextPointers return io.EOF), and End sees ErrStopped, not
	// io.EOF: what the end of the trace would say (e.g. CPUs it never
	// showed) does not follow from a read stopped early.
	Stop  func() bool
	ended bool
	cur   Event // the event Next shows Observe
}

// ErrStopped is what Tap.End sees of a stream its Stop ended.
var ErrStopped = errors.New("reading stopped")

// stopped ends the stream when Stop says so.
func (t *Tap) stopped() bool {
	if t.Stop == nil || !t.Stop() {
		return false
	}
	t.end(ErrStopped)
	return true
}

// Next returns the wrapped source's next event.
func (t *Tap) Next() (Event, error) {
	if t.stopped() {
		return Event{}, io.EOF
	}
	e, err := t.Source.Next()
	if err != nil {
		t.end(err)
		return e, err
	}
	if t.Observe != nil {
		// Through a field: &e passed to a func value would move e to the
		// heap, an allocation per event.
		t.cur = e
		t.Observe(&t.cur)
	}
	return e, nil
}

// NextBatch fills dst through ReadBatch (see BatchSource).
func (t *Tap) NextBatch(dst []Event) (int, error) {
	if t.stopped() {
		return 0, io.EOF
	}
	n, err := ReadBatch(t.Source, dst)
	if err != nil {
		t.end(err)
		return n, err
	}
	if t.Observe != nil {
		for i := range dst[:n] {
			t.Observe(&dst[i])
		}
	}
	return n, nil
}

// NextPointers reads b through ReadPointers (see PointerSource).
func (t *Tap) NextPointers(b *EventBatch) error {
	if t.stopped() {
		b.Events = b.Events[:0]
		return io.EOF
	}
	if err := ReadPointers(t.Source, b); err != nil {
		t.end(err)
		return err
	}
	if t.Observe != nil {
		for _, e := range b.Events {
			t.Observe(e)
		}
	}
	return nil
}

// SkipKinds passes a consumer's request on to the wrapped source (see
// KindSkipper), unless KeepKinds.
func (t *Tap) SkipKinds(kinds ...Kind) {
	if !t.KeepKinds {
		SkipKinds(t.Source, kinds...)
	}
}

// UseTaskRecords passes a consumer's request on to the wrapped source
// (see TaskRecorder).
func (t *Tap) UseTaskRecords() { UseTaskRecords(t.Source) }

// KeepRepeats passes a consumer's request on to the wrapped source (see
// RepeatKeeper).
func (t *Tap) KeepRepeats() { KeepRepeats(t.Source) }

// Describe passes the wrapped source's Description on (see Describer).
func (t *Tap) Describe() Description {
	d, _ := Describe(t.Source)
	return d
}

// Close calls End (nil) if the stream had not ended, then closes the source.
func (t *Tap) Close() error {
	t.end(nil)
	return t.Source.Close()
}

func (t *Tap) end(err error) {
	if !t.ended {
		t.ended = true
		if t.End != nil {
			t.End(err)
		}
	}
}
