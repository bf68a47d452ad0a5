package replay

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/traceview/traceview/trace"
)

// logChunkBytes is the size an EventLog chunk is given: appending never
// copies a chunk, and a chunk holds about 3000 perf events.
const logChunkBytes = 64 << 10

// EventLog is an append-only, time-ordered list of trace events kept as
// a compact byte encoding in fixed-size chunks, so that keeping a large
// trace's schedule costs about 20 bytes an event (a trace.Event is 168)
// and no re-copying while it grows. Source decodes the events back, equal
// field for field to those appended.
//
// Each event is its time as a signed varint difference from the previous
// event's, its kind, its CPU, then a varint mask of the fields that differ
// from their expected value (logField: NewEvent's defaults, PID the TID,
// CurTID the TID, ...), and those fields as signed varints from a base
// (strings as indexes into the log's table of distinct strings).
type EventLog struct {
	chunks [][]byte
	n      int
	last   int64 // ns, the time of the last event appended
	strs   []string
	strID  map[string]uint64
	kinds  [256]int // events per trace.Kind
	buf    []byte   // one event's encoding, reused
	on     []int64  // per CPU: the task last switched in (expectOf)
	pol    int64    // the policy of the last event appended (expectOf)
	// released is true once Drain handed the events over: the log keeps
	// its counts (Len, Count) only.
	released bool
}

// The fields of an event after its time, kind and CPU, in the order of
// their bits in the mask: the ones most events carry first, so the mask
// of most events fits two bytes.
const (
	lfTID = iota
	lfComm
	lfPrio
	lfPID
	lfCurTID
	lfCurPID
	lfRuntime
	lfPrevState
	lfNextTID
	lfNextComm
	lfNextPrio
	lfNextPID
	lfTargetCPU
	lfCgroup
	lfWakerTID
	lfWakerCPU
	lfFromIRQ
	lfOrigCPU
	lfDestCPU
	lfChildTID
	lfChildPID
	lfChildComm
	lfCount
	lfStack
	lfCurGone
	lfPolicy
	lfNextPolicy
	lfN
)

// logFields returns the integer fields of ev in mask order (strings as
// 0: Append interns them).
func logFields(ev *trace.Event) [lfN]int64 {
	return [lfN]int64{
		lfTID: int64(ev.TID), lfPrio: int64(ev.Prio), lfCurTID: int64(ev.CurTID), lfCurPID: int64(ev.CurPID),
		lfPID: int64(ev.PID), lfRuntime: ev.Runtime, lfPrevState: int64(ev.PrevState), lfNextTID: int64(ev.NextTID),
		lfNextPrio: int64(ev.NextPrio), lfNextPID: int64(ev.NextPID), lfTargetCPU: int64(ev.TargetCPU),
		lfCgroup: int64(ev.Cgroup), lfWakerTID: int64(ev.WakerTID), lfWakerCPU: int64(ev.WakerCPU),
		lfFromIRQ: int64(ev.FromIRQ), lfOrigCPU: int64(ev.OrigCPU), lfDestCPU: int64(ev.DestCPU),
		lfChildTID: int64(ev.ChildTID), lfChildPID: int64(ev.ChildPID), lfCount: int64(ev.Count),
		lfStack: int64(ev.Stack), lfCurGone: int64(ev.CurGone), lfPolicy: int64(ev.Policy), lfNextPolicy: int64(ev.NextPolicy),
	}
}

// expectOf returns the value field f is expected to have given the
// fields before it in mask order (a decoder has only those) and the task
// the log last saw switched in on the event's CPU (on, -1 unknown): for
// the TID of a switch or a run time, and for every event's CurTID, that
// task; for PID the TID, for CurPID the PID when the current task is the
// subject, for the PIDs of the next task and the child their TIDs; for the
// policy the previous event's (pol: a capture that records policies gives
// most events SCHED_NORMAL, one that does not none), for the next task's
// the subject's; otherwise NewEvent's default.
func expectOf(f int, v *[lfN]int64, k trace.Kind, on, pol int64) int64 {
	switch f {
	case lfPolicy:
		return pol
	case lfNextPolicy:
		return v[lfPolicy]
	case lfTID:
		if on >= 0 && (k == trace.KindSwitch || k == trace.KindRuntime) {
			return on
		}
		return -1
	case lfCurTID:
		if on >= 0 {
			return on
		}
		return v[lfTID]
	case lfPID:
		return v[lfTID]
	case lfCurPID:
		if v[lfCurTID] == v[lfTID] {
			return v[lfPID]
		}
		return v[lfCurTID]
	case lfNextPID:
		return v[lfNextTID]
	case lfChildPID:
		return v[lfChildTID]
	}
	return logDefaults[f]
}

// logDefaults are the fields' expected values that depend on nothing
// (NewEvent's); logDependent lists the others, in mask order.
var (
	logDefaults = [lfN]int64{lfTID: -1, lfPrio: -1, lfNextTID: -1, lfNextPrio: -1, lfTargetCPU: -1,
		lfWakerTID: -1, lfWakerCPU: -1, lfOrigCPU: -1, lfDestCPU: -1, lfChildTID: -1}
	logDependent = [...]int{lfTID, lfPID, lfCurTID, lfCurPID, lfNextPID, lfChildPID, lfPolicy, lfNextPolicy}
)

// maxLogCPU bounds the CPUs whose current task EventLog follows (maxCPU):
// events of others are encoded without it.
const maxLogCPU = maxCPU

// onCPU returns the task last switched in on cpu, -1 when unknown.
func onCPU(on []int64, cpu trace.CPU) int64 {
	if cpu < 0 || int(cpu) >= len(on) {
		return -1
	}
	return on[cpu]
}

// switchedIn records the task a switch on cpu switched in (the encoder's
// and the decoder's state, kept alike).
func switchedIn(on *[]int64, cpu trace.CPU, k trace.Kind, next int64) {
	if k != trace.KindSwitch || cpu < 0 || cpu >= maxLogCPU {
		return
	}
	for int(cpu) >= len(*on) {
		*on = append(*on, -1)
	}
	(*on)[cpu] = next
}

// logBase is what a present field is stored relative to: prios near 120,
// everything else as it is.
func logBase(f int) int64 {
	if f == lfPrio || f == lfNextPrio {
		return 120
	}
	return 0
}

func (l *EventLog) intern(s string) uint64 {
	if id, ok := l.strID[s]; ok {
		return id
	}
	if l.strID == nil {
		l.strID = map[string]uint64{}
	}
	id := uint64(len(l.strs))
	l.strs = append(l.strs, s)
	l.strID[s] = id
	return id
}

// Append adds ev at the end.
func (l *EventLog) Append(ev trace.Event) { l.add(&ev) }

// add is Append of *ev, for Extract: it takes the event by pointer, so a
// log that only counts (released) costs no copy of it per event.
func (l *EventLog) add(ev *trace.Event) {
	if l.released {
		// Drained, or never kept (ExtractOptions.DropRecorded): counted only.
		l.n++
		l.kinds[ev.Kind]++
		return
	}
	l.encode(ev)
}

// encode appends ev's encoding (add, for a log that keeps its events).
func (l *EventLog) encode(ev *trace.Event) {
	v := logFields(ev)
	on := onCPU(l.on, ev.CPU)
	expect := logDefaults
	for _, f := range logDependent {
		expect[f] = expectOf(f, &v, ev.Kind, on, l.pol)
	}
	var mask uint64
	for f := range v {
		if v[f] != expect[f] {
			mask |= 1 << f
		}
	}
	for f, s := range [...]string{lfComm: ev.Comm, lfNextComm: ev.NextComm, lfChildComm: ev.ChildComm} {
		if s != "" {
			v[f] = int64(l.intern(s))
			mask |= 1 << f
		}
	}
	b := l.buf[:0]
	b = binary.AppendVarint(b, ev.Time-l.last)
	b = append(b, byte(ev.Kind))
	b = binary.AppendVarint(b, int64(ev.CPU))
	b = binary.AppendUvarint(b, mask)
	for m := mask; m != 0; m &= m - 1 {
		switch f := bits.TrailingZeros64(m); f {
		case lfComm, lfNextComm, lfChildComm:
			b = binary.AppendUvarint(b, uint64(v[f]))
		default:
			b = binary.AppendVarint(b, v[f]-logBase(f))
		}
	}
	l.buf = b
	appendChunked(&l.chunks, b, logChunkBytes)
	l.last = ev.Time
	l.n++
	l.kinds[ev.Kind]++
	switchedIn(&l.on, ev.CPU, ev.Kind, int64(ev.NextTID))
	l.pol = int64(ev.Policy)
}

// Len returns the number of events appended (also once Drain released
// them).
func (l *EventLog) Len() int { return l.n }

// Count returns the number of events of kind k appended.
func (l *EventLog) Count(k trace.Kind) int { return l.kinds[k] }

// Released reports whether Drain handed the events over: Source then
// has nothing to read.
func (l *EventLog) Released() bool { return l.released }

// Source returns a stream over the events with meta m (may be nil); it
// is empty once Drain released them.
func (l *EventLog) Source(m *trace.Meta) trace.Source {
	if m == nil {
		m = &trace.Meta{}
	}
	if l.released {
		return &logSource{m: m}
	}
	return &logSource{l: l, m: m, chunks: l.chunks, n: l.n}
}

// Drain is Source for a caller that reads the events once and last: the
// log hands them over to the stream, which releases each chunk once it
// has served its events, so that reading the log frees its memory as it
// goes (about 10 bytes an event). The log keeps its counts (Len, Count);
// Released reports it, and a later Source reads nothing.
func (l *EventLog) Drain(m *trace.Meta) trace.Source {
	src := l.Source(m).(*logSource)
	src.drain = true
	l.chunks, l.released = nil, true
	return src
}

type logSource struct {
	l      *EventLog
	m      *trace.Meta
	chunks [][]byte // the log's chunks (Drain: nil from where read)
	n      int      // events to serve
	drain  bool     // release each chunk once read (Drain)
	i      int      // events served
	c      varintCursor
	t      int64   // ns, the previous event's time
	on     []int64 // per CPU: the task last switched in, as EventLog.on
	pol    int64   // the previous event's policy, as EventLog.pol
}

// appendChunked appends record b to the last of chunks, or to a new chunk
// of size bytes (b's, when larger) when it does not fit: a record never
// spans two chunks, and a chunk is never copied.
func appendChunked(chunks *[][]byte, b []byte, size int) {
	cs := *chunks
	if len(cs) == 0 || len(cs[len(cs)-1])+len(b) > cap(cs[len(cs)-1]) {
		cs = append(cs, make([]byte, 0, max(size, len(b))))
	}
	cs[len(cs)-1] = append(cs[len(cs)-1], b...)
	*chunks = cs
}

// varintCursor reads the records of a chunked log (appendChunked) in
// order, a field at a time.
type varintCursor struct {
	chunk, off int    // where the current record starts
	b          []byte // its chunk from there
	p          int    // bytes of it read
}

// begin starts reading the next record of chunks (there must be one).
func (c *varintCursor) begin(chunks [][]byte) {
	for c.off >= len(chunks[c.chunk]) {
		c.chunk, c.off = c.chunk+1, 0
	}
	c.b, c.p = chunks[c.chunk][c.off:], 0
}

func (c *varintCursor) varint() int64 {
	x, k := binary.Varint(c.b[c.p:])
	c.p += k
	return x
}

func (c *varintCursor) uvarint() uint64 {
	x, k := binary.Uvarint(c.b[c.p:])
	c.p += k
	return x
}

func (c *varintCursor) octet() byte {
	c.p++
	return c.b[c.p-1]
}

// end finishes the record begun.
func (c *varintCursor) end() { c.off += c.p }

func (s *logSource) Next() (trace.Event, error) {
	if s.i >= s.n {
		return trace.Event{}, io.EOF
	}
	c := &s.c
	first := c.chunk
	c.begin(s.chunks)
	if s.drain {
		for k := first; k < c.chunk; k++ {
			s.chunks[k] = nil // served
		}
	}
	s.t += c.varint()
	kind := trace.Kind(c.octet())
	cpu := trace.CPU(c.varint())
	mask := c.uvarint()
	on := onCPU(s.on, cpu)
	v := logDefaults
	var strs [lfN]string
	for m := mask; m != 0; m &= m - 1 {
		switch f := bits.TrailingZeros64(m); f {
		case lfComm, lfNextComm, lfChildComm:
			strs[f] = s.l.strs[c.uvarint()]
		default:
			v[f] = c.varint() + logBase(f)
		}
	}
	for _, f := range logDependent { // in mask order: each reads only fields before it
		if mask&(1<<f) == 0 {
			v[f] = expectOf(f, &v, kind, on, s.pol)
		}
	}
	c.end()
	s.i++
	if s.drain && s.i == s.n {
		s.chunks = nil
	}
	switchedIn(&s.on, cpu, kind, v[lfNextTID])
	s.pol = v[lfPolicy]
	ev := trace.Event{Time: s.t, CPU: cpu, Kind: kind,
		CurGone: trace.GoneIDs(v[lfCurGone]), CurTID: trace.TID(v[lfCurTID]), CurPID: trace.PID(v[lfCurPID]),
		TID: trace.TID(v[lfTID]), PID: trace.PID(v[lfPID]), Comm: strs[lfComm], Prio: int32(v[lfPrio]),
		PrevState: trace.TaskState(v[lfPrevState]), NextTID: trace.TID(v[lfNextTID]), NextPID: trace.PID(v[lfNextPID]),
		NextComm: strs[lfNextComm], NextPrio: int32(v[lfNextPrio]),
		TargetCPU: trace.CPU(v[lfTargetCPU]), WakerTID: trace.TID(v[lfWakerTID]), WakerCPU: trace.CPU(v[lfWakerCPU]),
		FromIRQ: trace.Tristate(v[lfFromIRQ]), OrigCPU: trace.CPU(v[lfOrigCPU]), DestCPU: trace.CPU(v[lfDestCPU]),
		ChildTID: trace.TID(v[lfChildTID]), ChildPID: trace.PID(v[lfChildPID]), ChildComm: strs[lfChildComm],
		Runtime: v[lfRuntime], Count: uint64(v[lfCount]), Cgroup: uint64(v[lfCgroup]), Stack: trace.StackID(v[lfStack]),
		Policy: trace.SchedPolicy(v[lfPolicy]), NextPolicy: trace.SchedPolicy(v[lfNextPolicy])}
	return ev, nil
}

func (s *logSource) Meta() *trace.Meta { return s.m }
func (s *logSource) Close() error      { return nil }
