package tvf

import (
	"encoding/binary"
	"fmt"

	"github.com/traceview/traceview/trace"
)

// Column indexes of a block: the three always-present columns, the mask, then
// one column per optional field.
const (
	colTime = iota
	colCPU
	colKind
	colMask
	colFields
	numCols = colFields + numFields
)

// blockEncoder accumulates events column by column.
type blockEncoder struct {
	n       int
	prev    int64
	cols    [numCols][]byte
	strs    []string
	strIdx  map[string]uint64
	scratch []byte
}

func newBlockEncoder() *blockEncoder {
	return &blockEncoder{strIdx: map[string]uint64{}}
}

func (b *blockEncoder) reset() {
	b.n, b.prev = 0, 0
	for i := range b.cols {
		b.cols[i] = b.cols[i][:0]
	}
	b.strs = b.strs[:0]
	clear(b.strIdx)
}

func (b *blockEncoder) putU(c int, v uint64) { b.cols[c] = binary.AppendUvarint(b.cols[c], v) }
func (b *blockEncoder) putI(c int, v int64)  { b.putU(c, zigzag(v)) }

// str returns the block-local index of s (index 0 is never used by a stored
// string: empty strings are not stored at all).
func (b *blockEncoder) str(s string) uint64 {
	if i, ok := b.strIdx[s]; ok {
		return i
	}
	b.strs = append(b.strs, s)
	i := uint64(len(b.strs))
	b.strIdx[s] = i
	return i
}

func (b *blockEncoder) add(e *trace.Event) {
	b.putI(colTime, e.Time-b.prev)
	b.prev = e.Time
	b.putI(colCPU, int64(e.CPU))
	b.cols[colKind] = append(b.cols[colKind], byte(e.Kind))
	m := maskOf(e)
	b.putU(colMask, uint64(m))
	has := func(f int) bool { return m&(1<<f) != 0 }
	const o = colFields
	if has(fCurTID) {
		b.putI(o+fCurTID, int64(e.CurTID))
	}
	if has(fCurPID) {
		b.putI(o+fCurPID, int64(e.CurPID)-int64(e.CurTID))
	}
	if has(fTID) {
		b.putI(o+fTID, int64(e.TID))
	}
	if has(fPID) {
		b.putI(o+fPID, int64(e.PID)-int64(e.TID))
	}
	if has(fComm) {
		b.putU(o+fComm, b.str(e.Comm))
	}
	if has(fPrio) {
		b.putI(o+fPrio, int64(e.Prio))
	}
	if has(fPrevState) {
		b.putU(o+fPrevState, uint64(e.PrevState))
	}
	if has(fNextTID) {
		b.putI(o+fNextTID, int64(e.NextTID))
	}
	if has(fNextPID) {
		b.putI(o+fNextPID, int64(e.NextPID)-int64(e.NextTID))
	}
	if has(fNextComm) {
		b.putU(o+fNextComm, b.str(e.NextComm))
	}
	if has(fNextPrio) {
		b.putI(o+fNextPrio, int64(e.NextPrio))
	}
	if has(fTargetCPU) {
		b.putI(o+fTargetCPU, int64(e.TargetCPU))
	}
	if has(fWakerTID) {
		b.putI(o+fWakerTID, int64(e.WakerTID))
	}
	if has(fFromIRQ) {
		b.putI(o+fFromIRQ, int64(e.FromIRQ))
	}
	if has(fOrigCPU) {
		b.putI(o+fOrigCPU, int64(e.OrigCPU))
	}
	if has(fDestCPU) {
		b.putI(o+fDestCPU, int64(e.DestCPU))
	}
	if has(fChildTID) {
		b.putI(o+fChildTID, int64(e.ChildTID))
	}
	if has(fChildPID) {
		b.putI(o+fChildPID, int64(e.ChildPID)-int64(e.ChildTID))
	}
	if has(fChildComm) {
		b.putU(o+fChildComm, b.str(e.ChildComm))
	}
	if has(fRuntime) {
		b.putI(o+fRuntime, e.Runtime)
	}
	if has(fCount) {
		b.putU(o+fCount, e.Count)
	}
	if has(fWakerCPU) {
		b.putI(o+fWakerCPU, int64(e.WakerCPU))
	}
	if has(fCgroup) {
		b.putU(o+fCgroup, e.Cgroup)
	}
	if has(fStack) {
		b.putU(o+fStack, uint64(e.Stack))
	}
	if has(fCurGone) {
		b.putU(o+fCurGone, uint64(e.CurGone))
	}
	if has(fPolicy) {
		b.putU(o+fPolicy, uint64(e.Policy))
	}
	if has(fNextPolicy) {
		b.putU(o+fNextPolicy, uint64(e.NextPolicy))
	}
	b.n++
}

// bytes appends the raw (uncompressed) block to dst: the event count, the
// string table, then every column prefixed by its length.
func (b *blockEncoder) bytes(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(b.n))
	dst = binary.AppendUvarint(dst, uint64(len(b.strs)))
	for _, s := range b.strs {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	for _, c := range b.cols {
		dst = binary.AppendUvarint(dst, uint64(len(c)))
		dst = append(dst, c...)
	}
	return dst
}

// cursor reads varints from one column; the first error sticks.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) u() uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.err = fmt.Errorf("bad or missing varint")
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *cursor) i() int64 { return unzigzag(c.u()) }

func (c *cursor) take(n uint64) []byte {
	if c.err != nil {
		return nil
	}
	if n > uint64(len(c.b)) {
		c.err = fmt.Errorf("length %d beyond the end of the block", n)
		return nil
	}
	out := c.b[:n]
	c.b = c.b[n:]
	return out
}

// decodeBlock parses a raw block into dst (reused) and returns the events.
// intern maps strings to shared copies. Errors wrap trace.ErrCorrupt.
func decodeBlock(raw []byte, dst []trace.Event, intern func([]byte) string, version uint32) ([]trace.Event, error) {
	evs, _, err := decodeColumns(raw, dst, intern, version, false)
	return evs, err
}

// decodePrefix decodes what it can of the first bytes of a raw block (a
// file cut inside the block): the events whose every column value is in
// prefix, in order. The block stores each column of all its events one
// after another (time, CPU, kind, mask, then one column per field), so an
// event is read only when the prefix reaches its value in every column
// its mask uses: a prefix ending in column c gives the events that use no
// field of c's values past the cut or of a later column. It returns the
// events and the block's event count (0 when even the string table is
// cut).
func decodePrefix(prefix []byte, dst []trace.Event, intern func([]byte) string, version uint32) ([]trace.Event, uint64) {
	evs, n, err := decodeColumns(prefix, dst, intern, version, true)
	if err != nil {
		return dst[:0], n
	}
	return evs, n
}

// decodeColumns is decodeBlock, and with partial decodePrefix: columns
// the raw bytes cut short, or lack, give the values there are; an event
// needing a value past the cut is left out (its other columns' values are
// consumed, so the next events stay in step), and the time, CPU, kind and
// mask columns end the events read.
func decodeColumns(raw []byte, dst []trace.Event, intern func([]byte) string, version uint32, partial bool) ([]trace.Event, uint64, error) {
	nf := fieldsOf(version)
	top := cursor{b: raw}
	n := top.u()
	ns := top.u()
	if top.err == nil && (n > maxBlockEvents || n > uint64(len(raw)) && !partial || ns > uint64(len(raw))) {
		return dst[:0], n, fmt.Errorf("block claims %d events and %d strings in %d bytes: %w", n, ns, len(raw), trace.ErrCorrupt)
	}
	strs := make([]string, 1, ns+1)
	for i := uint64(0); i < ns && top.err == nil; i++ {
		strs = append(strs, intern(top.take(top.u())))
	}
	if top.err != nil {
		return dst[:0], n, fmt.Errorf("block strings: %v: %w", top.err, trace.ErrCorrupt)
	}
	var cols [numCols]cursor
	for i := range cols[:colFields+nf] {
		l := top.u()
		if partial && top.err == nil && l > uint64(len(top.b)) {
			l = uint64(len(top.b)) // the column the prefix ends in
		}
		cols[i].b = top.take(l)
		if partial && top.err != nil {
			cols[i].err = top.err // a column past the cut
		}
	}
	if top.err != nil && !partial {
		return dst[:0], n, fmt.Errorf("block layout: %v: %w", top.err, trace.ErrCorrupt)
	}
	if uint64(len(cols[colKind].b)) != n && !partial {
		return dst[:0], n, fmt.Errorf("block has %d kinds for %d events: %w", len(cols[colKind].b), n, trace.ErrCorrupt)
	}
	if partial {
		n = min(n, uint64(len(cols[colKind].b)))
	}
	str := func(c *cursor) string {
		i := c.u()
		if i >= uint64(len(strs)) {
			if c.err == nil {
				c.err = fmt.Errorf("string %d of %d", i, len(strs)-1)
			}
			return ""
		}
		return strs[i]
	}
	dst = dst[:0]
	var t int64
	const o = colFields
	for k := uint64(0); k < n; k++ {
		t += cols[colTime].i()
		e := trace.NewEvent(t, trace.CPU(cols[colCPU].i()), trace.Kind(cols[colKind].b[k]))
		if int(e.Kind) >= len(trace.Kinds) {
			return dst[:0], n, fmt.Errorf("event %d: unknown kind %d (written by a newer traceview?): %w", k, e.Kind, trace.ErrCorrupt)
		}
		m := cols[colMask].u()
		if partial && (cols[colTime].err != nil || cols[colCPU].err != nil || cols[colMask].err != nil) {
			break // the events' own columns end here
		}
		if m>>nf != 0 {
			return dst[:0], n, fmt.Errorf("event %d: unknown field bits %#x: %w", k, m, trace.ErrCorrupt)
		}
		has := func(f int) bool { return m&(1<<f) != 0 }
		if has(fCurTID) {
			e.CurTID = trace.TID(cols[o+fCurTID].i())
		}
		if has(fCurPID) {
			e.CurPID = trace.PID(cols[o+fCurPID].i() + int64(e.CurTID))
		}
		if has(fTID) {
			e.TID = trace.TID(cols[o+fTID].i())
		}
		if has(fPID) {
			e.PID = trace.PID(cols[o+fPID].i() + int64(e.TID))
		}
		if has(fComm) {
			e.Comm = str(&cols[o+fComm])
		}
		if has(fPrio) {
			e.Prio = int32(cols[o+fPrio].i())
		}
		if has(fPrevState) {
			e.PrevState = trace.TaskState(cols[o+fPrevState].u())
		}
		if has(fNextTID) {
			e.NextTID = trace.TID(cols[o+fNextTID].i())
		}
		if has(fNextPID) {
			e.NextPID = trace.PID(cols[o+fNextPID].i() + int64(e.NextTID))
		}
		if has(fNextComm) {
			e.NextComm = str(&cols[o+fNextComm])
		}
		if has(fNextPrio) {
			e.NextPrio = int32(cols[o+fNextPrio].i())
		}
		if has(fTargetCPU) {
			e.TargetCPU = trace.CPU(cols[o+fTargetCPU].i())
		}
		if has(fWakerTID) {
			e.WakerTID = trace.TID(cols[o+fWakerTID].i())
		}
		if has(fFromIRQ) {
			e.FromIRQ = trace.Tristate(cols[o+fFromIRQ].i())
		}
		if has(fOrigCPU) {
			e.OrigCPU = trace.CPU(cols[o+fOrigCPU].i())
		}
		if has(fDestCPU) {
			e.DestCPU = trace.CPU(cols[o+fDestCPU].i())
		}
		if has(fChildTID) {
			e.ChildTID = trace.TID(cols[o+fChildTID].i())
		}
		if has(fChildPID) {
			e.ChildPID = trace.PID(cols[o+fChildPID].i() + int64(e.ChildTID))
		}
		if has(fChildComm) {
			e.ChildComm = str(&cols[o+fChildComm])
		}
		if has(fRuntime) {
			e.Runtime = cols[o+fRuntime].i()
		}
		if has(fCount) {
			e.Count = cols[o+fCount].u()
		}
		if has(fWakerCPU) {
			e.WakerCPU = trace.CPU(cols[o+fWakerCPU].i())
		}
		if has(fCgroup) {
			e.Cgroup = cols[o+fCgroup].u()
		}
		if has(fStack) {
			e.Stack = trace.StackID(cols[o+fStack].u())
		}
		if has(fCurGone) {
			e.CurGone = trace.GoneIDs(cols[o+fCurGone].u())
		}
		if has(fPolicy) {
			e.Policy = storedPolicy(cols[o+fPolicy].u())
		}
		if has(fNextPolicy) {
			e.NextPolicy = storedPolicy(cols[o+fNextPolicy].u())
		}
		if partial && !fieldsRead(&cols, m, nf) {
			continue // a value past the cut
		}
		dst = append(dst, e)
	}
	if partial {
		return dst, n, nil
	}
	for i := range cols {
		if cols[i].err != nil {
			return dst[:0], n, fmt.Errorf("block column %d: %v: %w", i, cols[i].err, trace.ErrCorrupt)
		}
	}
	return dst, n, nil
}

// storedPolicy is the trace.SchedPolicy a Policy column stores; a value no
// SchedPolicy has reads as unknown.
func storedPolicy(v uint64) trace.SchedPolicy {
	if v > uint64(trace.PolicyDeadline) || v == 5 {
		return trace.PolicyUnknown
	}
	return trace.SchedPolicy(v)
}

// fieldsRead reports whether every field column of mask m read its value
// (a column's first error sticks, so one past the cut fails from then on).
func fieldsRead(cols *[numCols]cursor, m uint64, nf int) bool {
	for f := 0; f < nf; f++ {
		if m&(1<<f) != 0 && cols[colFields+f].err != nil {
			return false
		}
	}
	return true
}
