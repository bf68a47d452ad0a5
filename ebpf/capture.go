package ebpf

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"os"
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
	// noTaskPtRegs loads the tp_btf programs as for a kernel without
	// bpf_task_pt_regs (tests of the fallback).
	noTaskPtRegs bool
	// Stacks records the kernel and user stack of each task leaving a CPU
	// (record --stacks).
	Stacks bool
	// Wakeups records sched_wakeup as well as sched_waking. Without it
	// (the default, as perf sched record does) a wakeup is its
	// sched_waking, which carries the waker, its CPU and the interrupt
	// flag; where the task is put shows as a sched_migrate_task when it
	// moves. Each wakeup then costs one BPF program run and one record
	// instead of two (about 0.7 µs and 128 bytes on this project's 2-vCPU
	// guest, Linux 6.18: kernel.bpf_stats_enabled under perf bench sched
	// pipe).
	Wakeups bool
	// Runtime records sched_stat_runtime (perf's source of the Runtime
	// column). Without it (the default) the analyses take a task's run
	// time from the switches (report.LatencyRow.RuntimeSource says so),
	// which the capture records whole; sched_stat_runtime costs one more
	// BPF run and record about every switch out of a task (under perf bench
	// sched pipe, one event in four).
	Runtime bool
	// Backlog is how many bytes of raw records Run keeps back before
	// decoding and emitting them: while a capture's records fit, the only
	// work done during the capture is copying them out of the perf
	// buffers (the decoding, reordering and the caller's encoding happen
	// when it stops, off the traced workload's time); beyond it, the
	// oldest are processed as new ones come. 0 means DefaultBacklog with
	// SpillDir set and DefaultMemoryBacklog without; negative: none
	// (events are emitted as they are read, about 0.1 s late).
	Backlog int64
	// SpillDir is the directory of the file holding the backlog: an
	// unnamed file (O_TMPFILE, mode 0600) that disappears when the
	// capture ends, so nothing is left outside the output; "" keeps the
	// backlog in memory.
	SpillDir string
	// Prefault makes the memory Run keeps the backlog's batches in
	// (DefaultMemoryBacklog, written page by page) before the programs
	// are attached, where Run would make it as it starts: inside the
	// trace, 40-50 ms of the recorder's CPU in a CPU profile of
	// 'traceview record -- pipeline 4 300 200' (4,096 first writes, each
	// a trap to the hypervisor on a VM). Not for a ring (--ring), whose
	// drain keeps no backlog.
	Prefault bool
}

// DefaultBacklog is the default backlog on disk: 512 MiB hold about 19
// million events (28-byte records, and a task record now and then), 15-20
// s of the busiest workloads measured here (perf bench sched messaging:
// about 1 million records/s on 2 CPUs).
const DefaultBacklog = 512 << 20

// DefaultMemoryBacklog is the part of the backlog kept in memory (all of
// it without SpillDir), kept small so the recorder's memory stays bounded
// (RSS under 100 MiB, the target of this project's capture): 16 MiB hold
// about 600,000 records; beyond, batches go to the file. (32 MiB made no
// difference to the recorder's CPU time during perf bench sched pipe -l
// 50000, 38 MB of records, measured here.)
const DefaultMemoryBacklog = 16 << 20

// DefaultBufferSize is the default total buffer size: 32 MiB holds about
// 840,000 events of 40 bytes (a 28-byte record plus perf's 8-byte header
// and 4-byte size), about 0.8 s of the busiest workloads measured here (perf
// bench sched messaging: about 1 million events/s on 2 CPUs); the drain
// empties the buffers often enough that none fills past a quarter at the
// rate it last saw (every 100 ms at most, 25 ms while it decodes as it
// goes, 1 ms at least: pollWait).
const DefaultBufferSize = 32 << 20

// minPerCPUBuffer is the smallest per-CPU buffer: 256 KiB, about 6,500
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

// batch is what the drain hands on after reading some records: raw
// records (of decoder.size bytes each; each CPU's in its buffer's order), the
// losses perf reported among them, and a watermark.
type batch struct {
	recs   []byte
	losses []lossReport
	// watermark, when > 0, is a CLOCK_MONOTONIC time (ns) such that
	// every record stamped before it (the programs stamp with
	// bpf_ktime_get_ns, the same clock) is in this batch or an earlier
	// one: per CPU, the time its newest record read was stamped, or the
	// start of the last pass that emptied its buffer, whichever is later;
	// the least over the CPUs.
	watermark int64
}

// batchBytes is the most raw records a batch the drain hands on holds,
// maxBatches how many may wait and maxFree how many emptied ones are kept
// for reuse: the drain only copies, so the perf buffers empty even while
// the consumer is busy, up to 2 MiB (about 0.07 s of the busiest workload
// measured here, 1 million records/s) beyond what the perf buffers hold;
// then the drain waits and the kernel counts losses. These bound the
// recorder's memory: under stress-ng --switch 4 (bench/capture/soak.sh,
// 30 s) its RSS peaked at 420 MiB with 64 waiting batches and 64 kept,
// 112 MiB with 16 and 4, 80 MiB with 8 and 2 (the waiting batches, the
// kept ones and the garbage collector's headroom over them), with 1 MiB
// batches of 112-byte records. The 28-byte records made a 1 MiB batch 4
// times as many events, and the decoded events a batch releases at once
// took the RSS to 111 MiB (60 s soak); 256 KiB keeps about the 9,000 events
// a batch held before. A batch ends at a full batchBytes or at the end of a
// drain pass.
const (
	batchBytes = 256 << 10
	maxBatches = 8
	maxFree    = 2
)

// slab hands out empty batches of size bytes, carved from one allocation
// while it lasts, then allocated one by one.
type slab struct {
	mem  []byte
	size int
}

// newSlab returns a slab of n bytes of batches of size bytes, its pages
// touched now: a first write to each while the capture runs was a page
// fault (3,500-4,000 of them, 16 MiB, in 0.6 s of perf bench sched pipe
// pinned to one CPU, /proc/PID/stat minflt), each a trap to the hypervisor
// on a VM.
func newSlab(n int64, size int) *slab {
	mem := make([]byte, n)
	for i, page := 0, os.Getpagesize(); i < len(mem); i += page {
		mem[i] = 0
	}
	return &slab{mem: mem, size: size}
}

func (s *slab) get() *batch {
	if len(s.mem) < s.size {
		return &batch{recs: make([]byte, 0, s.size)}
	}
	b := &batch{recs: s.mem[:0:s.size]}
	s.mem = s.mem[s.size:]
	return b
}

// lossReport is one PERF_RECORD_LOST: N records lost on CPU, read from its
// buffer after the batch's first At bytes of records, at CLOCK_MONOTONIC
// time Noticed (ns).
//
// N overflowReport is no count but an overflow seen (overflowNote): the
// CPU's buffer had less room than the largest record (maxRecordBytes)
// when a pass began, so records after the newest one read are being
// lost, and Noticed is that record's time, where the loss begins. perf
// writes its PERF_RECORD_LOST only when a record fits again
// (perf_output_begin, kernel/events/ring_buffer.c), which a starved drain
// reads long after: a capture cut short before then held nothing of a
// loss that began 320 ms before the cut, and delays across it were
// measured (new-user pass 86 F1).
type lossReport struct {
	CPU     trace.CPU
	At      int
	N       uint64
	Noticed int64
}

// overflowReport is lossReport.N of an overflow seen (no count).
const overflowReport = math.MaxUint64

// maxRecordBytes is the largest perf record the programs write: a
// PERF_RECORD_SAMPLE of a task record, an 8-byte header and the u32 raw
// size with the TaskRecordSize payload, padded to 8 bytes (perf_prepare_sample,
// kernel/events/core.c: raw data padded so that size and data end on 8).
const maxRecordBytes = 8 + (4+TaskRecordSize+7)/8*8

func (b *batch) reset() {
	b.recs, b.losses, b.watermark = b.recs[:0], b.losses[:0], 0
}

// assembler turns the drain's batches, in the order they were read, into
// time-ordered events.
type assembler struct {
	dec  *decoder
	ro   reorder
	lost map[trace.CPU]lostNote // losses waiting for their CPU's next record
	// wakings holds, per task, the waker of its last sched_waking not yet
	// followed by a sched_wakeup (see pair).
	wakings map[trace.TID]wakerNote
	// named holds, per task, what the newest event naming it said
	// (classic programs only: see pairEmit).
	named map[trace.TID]taskInfo
	emit  func(trace.Event) error // the caller's, for pairEmit
}

type wakerNote struct {
	tid trace.TID
	cpu trace.CPU
	irq trace.Tristate
}

// pairEmit gives a sched_wakeup that lacks its waker (the tp_btf programs
// leave it to user space) the waker of the task's previous sched_waking,
// as the kernel's try_to_wake_up emits them (trace_sched_waking, then
// trace_sched_wakeup from ttwu_do_activate, possibly on the target CPU
// from its wake list: kernel/sched/core.c, Linux 6.x), then emits it.
// Events come in time order, so the previous waking is the right one; a
// wakeup whose waking was lost keeps an unknown waker.
func (a *assembler) pairEmit(e trace.Event) error {
	switch {
	case e.Kind == trace.KindWaking && e.WakerTID >= 0:
		if a.wakings == nil {
			a.wakings = map[trace.TID]wakerNote{}
		}
		a.wakings[e.TID] = wakerNote{e.WakerTID, e.WakerCPU, e.FromIRQ}
	case e.Kind == trace.KindWakeup && e.WakerTID < 0:
		if w, ok := a.wakings[e.TID]; ok {
			e.WakerTID, e.WakerCPU, e.FromIRQ = w.tid, w.cpu, w.irq
			delete(a.wakings, e.TID)
		}
	case e.Kind == trace.KindExit:
		delete(a.wakings, e.TID)
	}
	if a.dec.classic {
		a.name(&e)
	}
	return a.emit(e)
}

// name gives a classic sched_migrate_task the name, PID and priority of
// the newest event before it that named its task. That program cannot
// note the task it moves (its comm is a __data_loc string since Linux
// 6.10, and the task is not current), and the decoder's tables are per
// CPU: a child that exec'd on CPU 0 and was then moved by CPU 1 kept its
// parent's name on CPU 1, or had none (TestCaptureForkStorm). Events come
// in time order, so what named holds is the task as it was.
func (a *assembler) name(e *trace.Event) {
	if a.named == nil {
		a.named = map[trace.TID]taskInfo{}
	}
	note := func(tid trace.TID, pid trace.PID, comm string, prio int32) {
		if tid > 0 && comm != "" {
			a.named[tid] = taskInfo{pid: pid, comm: comm, prio: prio}
		}
	}
	switch e.Kind {
	case trace.KindMigrate:
		if t, ok := a.named[e.TID]; ok {
			if e.Comm != t.comm || e.PID < 0 {
				e.PID, e.Comm, e.Prio = t.pid, t.comm, t.prio
			}
		}
		return
	case trace.KindExit:
		defer delete(a.named, e.TID)
	case trace.KindSwitch:
		note(e.NextTID, e.NextPID, e.NextComm, e.NextPrio)
	case trace.KindFork:
		note(e.ChildTID, e.ChildPID, e.ChildComm, e.Prio)
	}
	note(e.TID, e.PID, e.Comm, e.Prio)
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
func (a *assembler) batch(b *batch, emit func(trace.Event) error) error {
	losses := b.losses
	for i := 0; ; {
		for len(losses) > 0 && losses[0].At <= i {
			l := losses[0]
			losses = losses[1:]
			if l.N == overflowReport {
				// At the loss's start, in time order with the rest: an
				// open note (trace.OpenLoss), its count to come.
				le := trace.NewEvent(l.Noticed, l.CPU, trace.KindLost)
				le.Runtime = trace.OpenLoss
				a.ro.add(le)
				continue
			}
			if a.lost == nil {
				a.lost = map[trace.CPU]lostNote{}
			}
			n := a.lost[l.CPU]
			n.n += l.N
			n.noticed = l.Noticed
			a.lost[l.CPU] = n
		}
		n, _ := a.dec.next(b.recs[i:])
		if n == 0 {
			break
		}
		e, ok := a.dec.decode(b.recs[i : i+n])
		i += n
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
	if b.watermark > 0 {
		a.lossesDue(b.watermark - ReorderWindow)
		a.emit = emit
		return a.ro.flush(b.watermark-ReorderWindow, a.pairEmit)
	}
	return nil
}

// lossesDue places, at the time they were noticed, the losses of CPUs
// that no record has followed up to limit (the reorder window's flush
// limit): the drain read the CPU's buffer to its end when it found the
// loss, so a later record of that CPU was written after the notice and
// sorts after it, and the window from the CPU's last record to the
// notice covers the gap. Held instead for the CPU's next record, the loss
// of a CPU that stayed silent to the end of a capture was written only at
// its end, and a file cut short (the recorder killed) lost it: delays
// across the gap read as measured (new-user pass 83 F1: a 2,112,129-event
// loss gone from a capture cut 294 bytes short, massive_intr's 63 delays
// up to 81.5 ms counted where the whole file left them out).
func (a *assembler) lossesDue(limit int64) {
	for _, cpu := range slices.Sorted(maps.Keys(a.lost)) {
		if l := a.lost[cpu]; l.noticed > 0 && l.noticed <= limit {
			le := trace.NewEvent(l.noticed, cpu, trace.KindLost)
			le.Count = l.n
			a.ro.add(le)
			delete(a.lost, cpu)
		}
	}
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
	a.emit = emit
	return a.ro.flush(math.MaxInt64, a.pairEmit)
}

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
