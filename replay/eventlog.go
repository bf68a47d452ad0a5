package replay

import (
	"io"

	"github.com/traceview/traceview/trace"
)

// eventChunk is how many events an EventLog chunk holds: appending never
// copies more than one chunk (a million perf events are ~200 MB).
const eventChunk = 1 << 14

// EventLog is an append-only, time-ordered list of trace events stored in
// fixed-size chunks, so that keeping a large trace's schedule costs no
// re-copying while it grows.
type EventLog struct {
	chunks [][]trace.Event
	n      int
}

// Append adds ev at the end.
func (l *EventLog) Append(ev trace.Event) {
	if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1]) == eventChunk {
		l.chunks = append(l.chunks, make([]trace.Event, 0, eventChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, ev)
	l.n++
}

// Len returns the number of events.
func (l *EventLog) Len() int { return l.n }

// At returns event i (0 <= i < Len).
func (l *EventLog) At(i int) trace.Event { return l.chunks[i/eventChunk][i%eventChunk] }

// Source returns a stream over the events with meta m (may be nil).
func (l *EventLog) Source(m *trace.Meta) trace.Source {
	if m == nil {
		m = &trace.Meta{}
	}
	return &logSource{l: l, m: m}
}

type logSource struct {
	l *EventLog
	m *trace.Meta
	i int
}

func (s *logSource) Next() (trace.Event, error) {
	if s.i >= s.l.n {
		return trace.Event{}, io.EOF
	}
	s.i++
	return s.l.At(s.i - 1), nil
}

func (s *logSource) Meta() *trace.Meta { return s.m }
func (s *logSource) Close() error      { return nil }
