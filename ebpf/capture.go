package ebpf

import (
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/traceview/traceview/trace"
)

// ErrNotSupported is returned by Open where capture cannot work at all (not
// Linux).
var ErrNotSupported = errors.New("eBPF capture is only supported on Linux")

// Options configure a capture.
type Options struct {
	// CPUs restricts recording to events emitted on these CPUs; nil records
	// every CPU.
	CPUs []int
	// BufferSize is the total size in bytes of the per-CPU perf buffers:
	// each CPU gets BufferSize / CPUs, at least minPerCPUBuffer, rounded up
	// to a power of two of pages (perf_mmap needs one); 0 means
	// DefaultBufferSize.
	BufferSize int
	// Classic forces classic tracepoints even where tp_btf exists (tests).
	Classic bool
}

// DefaultBufferSize is the default total buffer size: 32 MiB holds about
// 290,000 records of 112 bytes (96 plus perf's 8-byte header, 4-byte size
// and padding), about 0.3 s of the busiest workloads measured here (perf
// bench sched messaging: about 1 million events/s on 2 CPUs); the drain
// empties the buffers every 25 ms, or every 1 ms while they fill fast.
const DefaultBufferSize = 32 << 20

// minPerCPUBuffer is the smallest per-CPU buffer: 256 KiB, about 2,300
// records.
const minPerCPUBuffer = 256 << 10

// perCPUBuffer returns the size of each CPU's perf buffer for a total of
// total bytes over nCPU CPUs (see Options.BufferSize).
func perCPUBuffer(total, nCPU, page int) int {
	if total <= 0 {
		total = DefaultBufferSize
	}
	return roundBuffer(max(total/max(nCPU, 1), minPerCPUBuffer), page)
}

// ReorderWindow is the margin (ns) by which the drain's watermarks are
// trusted: a record is stamped (bpf_ktime_get_ns) a few microseconds
// before bpf_perf_event_output writes it, so a record stamped just before a
// pass began may still be missing from that pass. Events older than a
// watermark minus ReorderWindow are released in time order.
const ReorderWindow = 5_000_000

// assembler turns the drain's batches (raw records and the drain's loss
// and watermark markers, in the order they were read: each CPU's records in
// its buffer's order) into time-ordered events.
type assembler struct {
	dec  *decoder
	ro   reorder
	lost map[trace.CPU]lostNote // losses waiting for their CPU's next record
}

type lostNote struct {
	n       uint64
	noticed int64 // CLOCK_MONOTONIC ns when the drain read the loss
}

// batch processes one batch. perf writes its PERF_RECORD_LOST into a CPU's
// buffer where the records went missing, so a loss is placed at the time
// of the next record read from that CPU: the KindLost event then sorts
// between the last record before the gap and the first after it, which
// makes the loss window (trace.LostWindow) cover the gap.
func (a *assembler) batch(b []byte, emit func(trace.Event) error) error {
	for ; len(b) >= RecordSize; b = b[RecordSize:] {
		switch b[12] {
		case lostMarker:
			cpu := trace.CPU(binary.LittleEndian.Uint32(b[8:]))
			if a.lost == nil {
				a.lost = map[trace.CPU]lostNote{}
			}
			l := a.lost[cpu]
			l.n += binary.LittleEndian.Uint64(b[16:])
			l.noticed = int64(binary.LittleEndian.Uint64(b[24:]))
			a.lost[cpu] = l
		case watermarkMarker:
			if err := a.ro.flush(int64(binary.LittleEndian.Uint64(b[16:]))-ReorderWindow, emit); err != nil {
				return err
			}
		default:
			e, ok := a.dec.decode(b[:RecordSize])
			if !ok {
				continue
			}
			if l, ok := a.lost[e.CPU]; ok {
				le := trace.NewEvent(e.Time, e.CPU, trace.KindLost)
				le.Count = l.n
				a.ro.add(le)
				delete(a.lost, e.CPU)
			}
			a.ro.add(e)
		}
	}
	return nil
}

// finish places the losses no later record followed (at the last event's
// time, or when they were noticed if later) and emits everything left.
func (a *assembler) finish(emit func(trace.Event) error) error {
	for _, cpu := range slices.Sorted(maps.Keys(a.lost)) {
		l := a.lost[cpu]
		le := trace.NewEvent(max(a.ro.maxTime, l.noticed), cpu, trace.KindLost)
		le.Count = l.n
		a.ro.add(le)
	}
	a.lost = nil
	return a.ro.flush(math.MaxInt64, emit)
}

// lostMarker and watermarkMarker are the kind bytes (offset 12) of the
// pseudo-records the drain puts in a batch. A loss report: CPU at offset 8
// (u32), count at 16 (u64), CLOCK_MONOTONIC time at 24 (u64). A watermark:
// a CLOCK_MONOTONIC time at 16 (u64) taken before a pass that emptied
// every perf buffer, so every record stamped before it (the programs stamp
// with bpf_ktime_get_ns, the same clock) has been read. Real records have
// kinds 1..10.
const (
	lostMarker      = 0xff
	watermarkMarker = 0xfe
)

// reorder restores time order across CPUs. Out-of-order input is sorted
// through small (time, arrival) keys rather than by moving 176-byte events
// around; events not yet released stay in pending[start:], in order.
// Released events are skipped by advancing start; the slice is compacted
// only when the released part dominates, so each event is copied O(1)
// times.
type reorder struct {
	pending []trace.Event
	start   int
	spare   []trace.Event // the other buffer, for reordering
	keys    []rkey
	maxTime int64
}

type rkey struct {
	t int64
	i int32 // index in pending[start:]: arrival order
}

func (r *reorder) add(e trace.Event) {
	r.pending = append(r.pending, e)
	if e.Time > r.maxTime {
		r.maxTime = e.Time
	}
}

// flush emits, in time order (ties in arrival order), the pending events
// whose time is at most limit (math.MaxInt64: all of them). Each CPU's
// buffer is in time order, so events arrive as interleaved sorted runs; the
// sort is skipped when they happen to be in order already.
func (r *reorder) flush(limit int64, emit func(trace.Event) error) error {
	p := r.pending[r.start:]
	if len(p) == 0 {
		return nil
	}
	if !slices.IsSortedFunc(p, func(a, b trace.Event) int { return cmp.Compare(a.Time, b.Time) }) {
		keys := r.keys[:0]
		for i := range p {
			keys = append(keys, rkey{p[i].Time, int32(i)})
		}
		slices.SortFunc(keys, func(a, b rkey) int {
			if a.t != b.t {
				return cmp.Compare(a.t, b.t)
			}
			return cmp.Compare(a.i, b.i)
		})
		sorted := r.spare[:0]
		for _, k := range keys {
			sorted = append(sorted, p[k.i])
		}
		r.keys = keys
		r.spare = r.pending[:0]
		r.pending, r.start = sorted, 0
		p = sorted
	}
	n, _ := slices.BinarySearchFunc(p, limit, func(e trace.Event, t int64) int {
		if e.Time <= t {
			return -1
		}
		return 1
	})
	for i := range p[:n] {
		if err := emit(p[i]); err != nil {
			return err
		}
	}
	r.start += n
	if r.start == len(r.pending) {
		r.pending, r.start = r.pending[:0], 0
	} else if r.start > len(r.pending)/2 {
		m := copy(r.pending, r.pending[r.start:])
		r.pending, r.start = r.pending[:m], 0
	}
	return nil
}

// roundBuffer returns size rounded up to a power of two of at least page
// bytes (a perf buffer's data area must be a power of two of pages).
func roundBuffer(size, page int) int {
	if size <= 0 {
		size = DefaultBufferSize
	}
	n := page
	for n < size {
		n <<= 1
	}
	return n
}
