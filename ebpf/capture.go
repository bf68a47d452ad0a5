package ebpf

import (
	"errors"
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
	// BufferSize is the ring buffer size in bytes, rounded up to a power of
	// two of at least one page; 0 means DefaultBufferSize.
	BufferSize int
	// Classic forces classic tracepoints even where tp_btf exists (tests).
	Classic bool
}

// DefaultBufferSize is the default ring buffer size: 32 MiB holds about
// 320,000 records of 104 bytes (96 plus the ring buffer's 8-byte header),
// about 0.3 s of the busiest workloads measured here (perf bench sched
// messaging: about 1 million events/s on 2 CPUs).
const DefaultBufferSize = 32 << 20

// ReorderWindow is how far (ns) events may be out of time order in the ring
// buffer: records are reserved in one shared buffer in the order the CPUs
// reach bpf_ringbuf_reserve, and each takes its timestamp just after, so two
// CPUs can interleave by the length of a few instructions (or an interrupt
// taken in between: microseconds). Events are held until an event this much
// later has been read, then released in time order.
const ReorderWindow = 5_000_000

// reorder restores time order across CPUs with a bounded window. Released
// events are skipped by advancing start; the slice is compacted only when
// the released part dominates, so each event is copied O(1) times.
type reorder struct {
	pending []trace.Event
	start   int
	maxTime int64
}

func (r *reorder) add(e trace.Event) {
	r.pending = append(r.pending, e)
	if e.Time > r.maxTime {
		r.maxTime = e.Time
	}
}

func byTime(a, b trace.Event) int {
	switch {
	case a.Time < b.Time:
		return -1
	case a.Time > b.Time:
		return 1
	}
	return 0
}

// flush emits, in time order, the pending events at least ReorderWindow ns
// older than the newest one read (all of them when all is true). Records
// mostly arrive in time order already, so the sort is skipped when it can
// be.
func (r *reorder) flush(all bool, emit func(trace.Event) error) error {
	p := r.pending[r.start:]
	if len(p) == 0 {
		return nil
	}
	if !slices.IsSortedFunc(p, byTime) {
		slices.SortStableFunc(p, byTime)
	}
	n := len(p)
	if !all {
		limit := r.maxTime - ReorderWindow
		n, _ = slices.BinarySearchFunc(p, limit+1, func(e trace.Event, t int64) int {
			if e.Time < t {
				return -1
			}
			return 1
		})
	}
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
// bytes (a BPF ring buffer's size must be one).
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
