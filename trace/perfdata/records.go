package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"

	"github.com/traceview/traceview/trace"
)

// attrOfSample finds the attribute of a PERF_RECORD_SAMPLE: by its
// IDENTIFIER (first u64) or ID (at the position the first attribute's
// sample_type gives), or the only attribute.
func (r *Reader) attrOfSample(rec []byte) *attr {
	return r.attrOfSampleCached(rec, &r.idCache)
}

// idCache is a small direct-mapped cache of sample ids to attributes
// (ids are handed out sequentially, one per attr and CPU), in front of the
// map byID.
type idCache [64]struct {
	id uint64
	a  *attr
}

// attrOfSampleCached is attrOfSample through the cache c: the reader's own,
// or a decoding goroutine's (parallel.go).
func (r *Reader) attrOfSampleCached(rec []byte, c *idCache) *attr {
	if len(r.attrs) == 1 {
		return r.attrs[0]
	}
	if len(r.attrs) == 0 {
		return nil
	}
	pos := r.idPos
	if pos == 0 {
		return r.attrs[0]
	}
	if pos+8 > len(rec) {
		return nil
	}
	return r.attrByIDCached(r.end.Uint64(rec[pos:]), c)
}

// sampleIDPos is where a sample's id is, by the first attribute's
// sample_type (they all share it): the IDENTIFIER (the first u64 after
// the header) or the ID after the fields before it; 0 when samples carry
// no id.
func sampleIDPos(st uint64) int {
	switch {
	case st&sampleIdentifier != 0:
		return 8
	case st&sampleID != 0:
		return 8 + 8*popcount(st&(sampleIP|sampleTID|sampleTime|sampleAddr))
	}
	return 0
}

// attrByID looks a sample id up through the reader's idCache in front of
// the map.
func (r *Reader) attrByID(id uint64) *attr { return r.attrByIDCached(id, &r.idCache) }

func (r *Reader) attrByIDCached(id uint64, c *idCache) *attr {
	e := &c[id%uint64(len(c))]
	if e.a != nil && e.id == id {
		return e.a
	}
	a := r.byID[id]
	if a != nil {
		e.id, e.a = id, a
	}
	return a
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// sample decodes a PERF_RECORD_SAMPLE up to its RAW field (the fields after
// RAW are not needed); the layout is include/uapi/linux/perf_event.h's.
func (r *Reader) sample(rec []byte, off int64) error {
	if o, ok := r.timeAhead[off]; ok && !r.outsideHeaderTimes(o.time) {
		// Data the file held and the trace lacks: said in full and
		// counted lost in the file, as a time pushed back is.
		r.meta.Warnings.AddEach("damaged-time-ahead", "perf.data: CPU %d: sample at offset %d is stamped %s s, later than the CPU's next sample (%s s) and its previous: a damaged time, dropped",
			o.cpu, off, trace.FormatSeconds(o.time, 9), trace.FormatSeconds(o.next, 9))
		r.meta.LostInFile++
		return nil
	}
	if r.pd != nil && r.recPos >= 0 {
		if s := r.pd.take(r.recPos); s != nil {
			// Decoded by a worker (parallel.go): the rest as below.
			r.predecoded++
			s.a.samples++
			if r.skip[s.ev.Kind] {
				r.skipped(s.pid, s.tid, s.ev.Time, true, int32(s.ev.CPU))
				return nil
			}
			ev := r.slotFor(s.ev.Time, s.ev.CPU)
			*ev = s.ev
			r.sampled(s.a, ev, s.pid, s.tid, true, nil)
			return nil
		}
	}
	a := r.attrOfSample(rec)
	if a == nil {
		// A sample the file held, its id damaged: every attr of the
		// file names its ids (new-user pass 90 F1: "lost: 0 events",
		// info exit 0, for a sample skipped so).
		r.meta.Warnings.AddEach("unknown-sample-id", "perf.data: sample at offset %d with an unknown sample id skipped (damaged: no attribute of the file has it)", off)
		r.meta.LostInFile++
		return nil
	}
	a.samples++
	if a.dec == nil {
		return nil
	}
	var pid, tid int32 = -1, -1
	t, hasTime := r.maxTime, false
	cpu := int32(-1)
	var chain, raw []byte // the callchain's ips (nr * 8 bytes), the RAW payload
	rawEnd := -1          // offset in rec of the byte after RAW
	if l := &a.layout; l.sched && len(rec) >= 60 && int(binary.LittleEndian.Uint32(rec[56:60])) <= len(rec)-60 {
		// The same as below for perf sched record's layout, at constant
		// offsets: no test per field (the fields were half the
		// instructions of a skipped sample).
		le := binary.LittleEndian
		pid, tid = int32(le.Uint32(rec[24:28])), int32(le.Uint32(rec[28:32]))
		t, hasTime = int64(le.Uint64(rec[32:40])), true
		cpu = int32(le.Uint32(rec[40:44]))
		raw = rec[60:]
		raw = raw[:le.Uint32(rec[56:60])]
		rawEnd = 60 + len(raw)
	} else if l.fixed && l.raw+4 <= len(rec) && int(r.end.Uint32(rec[l.raw:])) <= len(rec)-l.raw-4 {
		o := r.end
		if l.tid >= 0 {
			pid, tid = int32(o.Uint32(rec[l.tid:])), int32(o.Uint32(rec[l.tid+4:]))
		}
		if l.time >= 0 {
			t, hasTime = int64(o.Uint64(rec[l.time:])), true
		}
		if l.cpu >= 0 {
			cpu = int32(o.Uint32(rec[l.cpu:]))
		}
		raw = rec[l.raw+4 : l.raw+4+int(o.Uint32(rec[l.raw:]))]
		rawEnd = l.raw + 4 + len(raw)
	} else {
		var ok bool
		if pid, tid, t, hasTime, cpu, chain, raw, ok = r.sampleFields(a, rec, off); !ok {
			return nil
		}
		rawEnd = cap(rec) - cap(raw) + len(raw) // raw is rec[p : p+size]
	}
	if end := a.sampleEnd(rawEnd); end > 0 && r.headerAt(rec, end) {
		// (A stream's bytes after the fields are copied: a later read
		// may refill the buffer rec is in.)
		tail := rec[end:]
		if r.mm == nil {
			tail = bytes.Clone(tail)
		}
		r.oversized(off, len(rec), end, tail)
	}
	if r.cpuOutOfRange(cpu, recSample, off) {
		r.meta.LostInFile++ // (a sample the file held: new-user pass 91 F4 counted it nowhere)
		return nil
	}
	if cpu == -1 && a.sampleType&sampleCPU != 0 {
		// The sample has a CPU field (PERF_SAMPLE_CPU, a u32 the kernel
		// fills with the CPU it ran on): 0xffffffff there is damage, as
		// CPU 5 of 2 is (new-user pass 31 F3: the switch vanished from
		// every report without a word).
		r.meta.Warnings.Add("cpu-out-of-range", "perf.data: record of type %d at offset %d on CPU -1 (0xffffffff in its CPU field): damaged, skipped", recSample, off)
		return nil
	}
	if r.lostAtNext && hasTime {
		// (oversized: the records skipped lay before this one.)
		r.lostAtNext = false
		lost := r.q.slot()
		*lost = trace.NewEvent(t, -1, trace.KindLost)
		r.q.push()
	}
	if r.skip[a.dec.Kind] {
		r.skipped(pid, tid, t, hasTime, cpu)
		return nil
	}
	var ev *trace.Event
	if hasTime {
		ev = r.slotFor(t, trace.CPU(cpu))
	} else {
		ev = r.q.slot()
	}
	ev.Reset(t, trace.CPU(cpu), a.dec.Kind)
	if err := a.dec.Decode(raw, ev); err != nil {
		r.q.release()
		r.meta.Warnings.Add("bad-tracepoint", "perf.data: sample at offset %d: %v; skipped", off, err)
		r.meta.LostInFile++ // an event the file held (new-user pass 40 F3: "lost: 0 events")
		return nil
	}
	if tid >= 0 {
		ev.CurTID, ev.CurPID = trace.TID(tid), trace.PID(pid)
	}
	if a.cgSkip >= 0 && (ev.Kind == trace.KindSwitch || ev.Kind == trace.KindRuntime && tid >= 0 && ev.TID == trace.TID(tid)) {
		// CGROUP is the current task's: in a sched_switch sample, prev;
		// in a sched_stat_runtime of the current task, its group at
		// that tick (a run that spans a move is charged to each group
		// by its ticks).
		ev.Cgroup = a.cgroupOf(r.end, rec, rawEnd)
	}
	r.sampled(a, ev, pid, tid, hasTime, chain)
	return nil
}

// sampleEnd is where a sample of a's layout whose RAW data ends at rawEnd
// ends: RAW's size already holds its padding to 8 bytes (perf_prepare_sample,
// kernel/events/core.c), and after it comes nothing, or the CGROUP id alone
// (cgSkip); 0 when other fields follow (their sizes vary).
func (a *attr) sampleEnd(rawEnd int) int {
	after := a.sampleType &^ (sampleRaw<<1 - 1) &^ sampleIdentifier
	switch {
	case after == 0:
		return rawEnd
	case after == sampleCgroup && a.cgSkip >= 0:
		return rawEnd + a.cgSkip + 8
	}
	return 0
}

// fieldsEnd returns where the sample at the start of b (the record and,
// as far as read, what follows it) ends by its fields: its attribute's
// layout up to RAW, RAW's size and what follows RAW (attr.sampleEnd),
// whatever its header's size says; 0 when they cannot tell (no attribute
// has its id, a layout not at fixed places, b too short).
func (r *Reader) fieldsEnd(b []byte, ids *idCache) int {
	a := r.attrOfSampleCached(b, ids)
	if a == nil || !a.layout.fixed || a.layout.raw+4 > len(b) {
		return 0
	}
	return a.sampleEnd(a.layout.raw + 4 + int(r.end.Uint32(b[a.layout.raw:])))
}

// headerAt reports whether a record header perf writes (plausibleRecord)
// begins at offset i of b.
func (r *Reader) headerAt(b []byte, i int) bool {
	return i >= 0 && i+8 <= len(b) && plausibleRecord(r.end.Uint32(b[i:]), int(r.end.Uint16(b[i+6:])))
}

// plausibleRecord reports whether a record header of type typ and size
// bytes is one perf writes: a known type, 8 bytes or more. Inside a
// sample whose size is damaged, the next record's header follows its
// fields (whatever the size says: grown onto a later record's start, the
// reader swallowed the records between without a word, new-user pass 91
// F1); where its RAW size is damaged instead (zeroed), what follows them
// is tracepoint data, whose first word (common_type, flags) is no record
// type.
func plausibleRecord(typ uint32, size int) bool {
	return knownRecord(typ) && size >= 8
}

// knownRecord reports whether typ is a record type perf writes: a kernel
// one (1..maxKernelRecord) or perf's own (recHeaderAttr..maxUserRecord).
func knownRecord(typ uint32) bool {
	return typ != 0 && (typ <= maxKernelRecord || typ >= recHeaderAttr) && typ <= maxUserRecord
}

// undersized handles, in a mapped file, a sample record at offset off (rec,
// the record just framed) whose RAW data runs past the end its header
// size gives, to need bytes: when a record header perf writes begins
// there and none where the size says, the size is damaged (smaller), and
// the reader reads the record to need and on from there (new-user pass 91
// F2: a size 16 bytes short framed a header inside the sample's payload,
// and 60 % of the trace went unread). It returns the whole record.
func (r *Reader) undersized(rec []byte, off int64, need int) ([]byte, bool) {
	if r.mm == nil || r.decomp != nil || cap(rec) > cap(r.mm) {
		return nil, false
	}
	start := cap(r.mm) - cap(rec)
	if start+len(rec) != r.mpos || start+need+8 > r.mend {
		return nil, false
	}
	if data := r.mm[:r.mend]; !r.headerAt(data, start+need) || r.headerAt(data, r.mpos) {
		return nil, false
	}
	extra := need - len(rec)
	r.mpos += extra
	r.off += int64(extra)
	r.stats.Bytes += int64(extra)
	r.meta.Warnings.AddEach("damaged-record-size", "perf.data: the sample at offset %d says %d bytes, and its fields end after %d: a damaged size; the records after it read on from offset %d",
		off, len(rec), need, off+int64(need))
	return r.mm[start : start+need], true
}

// oversized handles a sample record at offset off whose header says size
// bytes, more than its fields take (end): a damaged size, which framed the
// records after it inside it (tail: the bytes after its fields). One
// flipped byte of a size made 0xff68 of a 104-byte sched_switch: 610
// records, 125 ms, skipped without a word, and a 293 ms delay measured
// across them (new-user pass 89 F1). The reader reads on from the
// record's true end, so nothing is lost: in a mapped file it goes back;
// in a stream it reads tail again before the rest. Only compressed
// records (their own buffer) lose the bytes: said, and every CPU is
// unobserved from its last event to the next record's time (a KindLost of
// CPU -1 there, trace/schedule).
func (r *Reader) oversized(off int64, size, end int, tail []byte) {
	extra := size - end
	switch {
	case r.mm != nil && r.decomp == nil && r.mpos >= extra:
		r.mpos -= extra
	case r.mm == nil && r.decomp == nil && r.br != nil:
		r.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(tail), r.br), 1<<20)
	default:
		r.meta.Warnings.AddEach("damaged-record-size", "perf.data: the sample at offset %d says %d bytes, and its fields end after %d: a damaged size; the %d bytes after them, records framed inside it, are skipped, and every CPU is unobserved from its last event to the next record's",
			off, size, end, extra)
		r.lostAtNext = true
		return
	}
	r.off -= int64(extra)
	r.stats.Bytes -= int64(extra)
	r.meta.Warnings.AddEach("damaged-record-size", "perf.data: the sample at offset %d says %d bytes, and its fields end after %d: a damaged size; the records after it read on from offset %d",
		off, size, end, off+int64(end))
}

// skipped is what the reader learns from a sample of a kind the consumer
// asked to leave out (SkipKinds): its task's pid and its time.
func (r *Reader) skipped(pid, tid int32, t int64, hasTime bool, cpu int32) {
	r.wasSkipped = true
	if hasTime && cpu >= 0 && cpu < 1<<12 {
		// The round holds it all the same: a reader asked to skip kinds
		// (map, timehist) described a cut round by the events it kept,
		// 3709 and two windows where the others said 11198 and one
		// (new-user pass 49 F5).
		r.round.event(int(cpu))
		for len(r.skipLast) <= int(cpu) {
			r.skipLast = append(r.skipLast, -1)
		}
		r.skipLast[cpu] = max(r.skipLast[cpu], t)
	}
	if tid >= 0 {
		r.learnPID(trace.TID(tid), trace.PID(pid))
	}
	if hasTime && t > r.maxTime {
		r.maxTime = t
	}
}

// sampled finishes the event ev of a sample, decoded into its queue slot
// (with CurTID and CurPID set from the sample's tid and pid when tid >= 0),
// and queues it: the pids learned from and filled in by earlier records,
// the callchain.
func (r *Reader) sampled(a *attr, ev *trace.Event, pid, tid int32, hasTime bool, chain []byte) {
	if tid >= 0 {
		r.learnPID(ev.CurTID, ev.CurPID)
	} else {
		// The kernel reports tid -1 (and pid -1 once its whole process is
		// released) for a task past exit_notify(); the payload's
		// common_pid still names it.
		if a.sampleType&sampleTID != 0 {
			ev.CurGone = trace.GoneTID
			if pid < 0 {
				ev.CurGone |= trace.GonePID
			}
		}
		if ev.CurTID >= 0 {
			ev.CurPID = r.pidOf(ev.CurTID)
		}
	}
	if len(chain) > 0 && ev.Kind == trace.KindSwitch {
		ev.Stack = r.stackID(chain)
	}
	if hasTime && r.damagedRuntime(ev) {
		return
	}
	r.fillPIDs(ev)
	r.queueWithin(ev, hasTime, 0)
}

// damagedRuntime reports whether ev, a sample with a time, is a
// sched_stat_runtime whose run time no trace can hold
// (trace.RuntimeDamaged, from the header's first sample time, else the
// earliest sample read so far) and so is dropped: said in full and
// counted lost in the file, as a damaged time is. Reading as perf does
// (KeepRepeats) it is kept, with the warning. It notes ev's time as the
// earliest when it is.
func (r *Reader) damagedRuntime(ev *trace.Event) bool {
	first := r.firstTime
	if r.times == timesChecked {
		first = r.meta.FirstTime
	}
	if first == 0 || ev.Time < first {
		first = ev.Time
	}
	if r.firstTime == 0 || ev.Time < r.firstTime {
		r.firstTime = ev.Time
	}
	if !trace.RuntimeDamaged(ev, first) {
		return false
	}
	what := "dropped"
	if r.keepRepeats {
		what = "kept as perf reads it"
	} else {
		r.meta.LostInFile++
	}
	r.meta.Warnings.Add("damaged-runtime", "perf.data: CPU %d: sched_stat_runtime at %s s for pid %d %s: a damaged value, %s",
		ev.CPU, trace.FormatSeconds(ev.Time, 9), ev.TID, trace.RuntimeDamage(ev, first), what)
	return !r.keepRepeats
}

// The callchain context markers of include/uapi/linux/perf_event.h
// (enum perf_callchain_context): each says which space the ips after it are
// in; they are not ips themselves.
const (
	contextKernel      = ^uint64(128 - 1)  // PERF_CONTEXT_KERNEL, -128
	contextUser        = ^uint64(512 - 1)  // PERF_CONTEXT_USER, -512
	contextGuestKernel = ^uint64(2176 - 1) // PERF_CONTEXT_GUEST_KERNEL, -2176
	contextMax         = ^uint64(4095 - 1) // PERF_CONTEXT_MAX, -4095: markers are at or above it
)

// sampleFields walks the fields of a PERF_RECORD_SAMPLE by its sample_type
// bits up to RAW (the fields after RAW are not needed): the current task's
// pid and tid, the time (hasTime false: none, t is then the latest time
// seen), the CPU, the callchain's ips and the RAW payload. ok is false when
// the sample has no RAW or is cut short (a counted warning).
func (r *Reader) sampleFields(a *attr, rec []byte, off int64) (pid, tid int32, t int64, hasTime bool, cpu int32, chain, raw []byte, ok bool) {
	pid, tid, t, cpu = -1, -1, r.maxTime, -1
	o := r.end
	st := a.sampleType
	p := 8
	n := len(rec)
	bad := func(what string) (int32, int32, int64, bool, int32, []byte, []byte, bool) {
		r.meta.Warnings.Add("bad-sample", "perf.data: %s sample at offset %d: %s past the record's end; skipped", a.displayName(), off, what)
		r.meta.LostInFile++
		return pid, tid, t, hasTime, cpu, chain, nil, false
	}
	if st&sampleIdentifier != 0 {
		p += 8
	}
	if st&sampleIP != 0 {
		p += 8
	}
	if st&sampleTID != 0 {
		if p+8 > n {
			return bad("tid")
		}
		pid, tid = int32(o.Uint32(rec[p:])), int32(o.Uint32(rec[p+4:]))
		p += 8
	}
	if st&sampleTime != 0 {
		if p+8 > n {
			return bad("time")
		}
		t, hasTime = int64(o.Uint64(rec[p:])), true
		p += 8
	}
	if st&sampleAddr != 0 {
		p += 8
	}
	if st&sampleID != 0 {
		p += 8
	}
	if st&sampleStreamID != 0 {
		p += 8
	}
	if st&sampleCPU != 0 {
		if p+8 > n {
			return bad("cpu")
		}
		cpu = int32(o.Uint32(rec[p:]))
		p += 8
	}
	if st&samplePeriod != 0 {
		p += 8
	}
	if st&sampleRead != 0 {
		rf := a.readFormat
		extra := popcount(rf & (readTotalTimeEnabled | readTotalTimeRunning))
		per := 1 + popcount(rf&(readID|readLost))
		if rf&readGroup != 0 {
			if p+8 > n {
				return bad("read")
			}
			nr := o.Uint64(rec[p:])
			if nr > uint64(n) {
				return bad("read")
			}
			p += 8 * (1 + extra + int(nr)*per)
		} else {
			p += 8 * (extra + per)
		}
	}
	if st&sampleCallchain != 0 {
		if p+8 > n {
			return bad("callchain")
		}
		nr := o.Uint64(rec[p:])
		if nr > uint64(n) || p+8*(1+int(nr)) > n {
			return bad("callchain")
		}
		chain = rec[p+8 : p+8*(1+int(nr))]
		p += 8 * (1 + int(nr))
	}
	if st&sampleRaw == 0 {
		return pid, tid, t, hasTime, cpu, chain, nil, false
	}
	if p+4 > n {
		return bad("raw size")
	}
	rsize := int(o.Uint32(rec[p:]))
	p += 4
	if rsize > n-p {
		grown, ok := r.undersized(rec, off, p+rsize)
		if !ok {
			return bad("raw data")
		}
		rec = grown
	}
	return pid, tid, t, hasTime, cpu, chain, rec[p : p+rsize], true

}

// stackID returns the id of the callchain chain (a sample's ips, in the
// file's byte order, leaf first as the kernel writes them) in the stack
// table Meta.Stacks, adding it when new. Frames carry the address and
// whether it is in the kernel (after PERF_CONTEXT_KERNEL or
// PERF_CONTEXT_GUEST_KERNEL; module "[kernel.kallsyms]"); names are not
// resolved (perf.data holds no symbol table). A chain of markers only is 0.
func (r *Reader) stackID(chain []byte) trace.StackID {
	if id, ok := r.stackIDs[string(chain)]; ok {
		return id
	}
	var frames []trace.Frame
	kernel := false
	for i := 0; i+8 <= len(chain); i += 8 {
		ip := r.order.Uint64(chain[i:])
		if ip >= contextMax {
			kernel = ip == contextKernel || ip == contextGuestKernel
			continue
		}
		f := trace.Frame{Addr: ip, Kernel: kernel}
		if kernel {
			f.Module = "[kernel.kallsyms]"
		}
		frames = append(frames, f)
	}
	var id trace.StackID
	if len(frames) > 0 {
		id = trace.StackID(len(r.meta.Stacks) + 1)
		r.meta.Stacks = append(r.meta.Stacks, trace.Stack{ID: id, Frames: frames})
	}
	if r.stackIDs == nil {
		r.stackIDs = map[string]trace.StackID{}
	}
	r.stackIDs[string(chain)] = id
	return id
}

// learnPID remembers the process of a thread (from sample pid/tid, COMM and
// FORK records) to fill the PID fields the tracepoints do not carry.
func (r *Reader) learnPID(tid trace.TID, pid trace.PID) { r.tidPID.set(tid, pid) }

func (r *Reader) pidOf(tid trace.TID) trace.PID { return r.tidPID.get(tid) }

// pidTable maps TIDs to PIDs: a dense slice for the usual TIDs (Linux's
// pid_max is at most 4194304, PID_MAX_LIMIT), a map for anything else.
type pidTable struct {
	dense []trace.PID // index tid; entries are pid+1, 0 = unknown
	other map[trace.TID]trace.PID
}

const maxDenseTID = 1 << 22

func (t *pidTable) set(tid trace.TID, pid trace.PID) {
	if tid < 0 || pid < 0 {
		return
	}
	if tid < maxDenseTID {
		if int(tid) >= len(t.dense) {
			n := max(int(tid)+1, 2*len(t.dense), 1024)
			t.dense = append(t.dense, make([]trace.PID, min(n, maxDenseTID)-len(t.dense))...)
		}
		t.dense[tid] = pid + 1
		return
	}
	if t.other == nil {
		t.other = map[trace.TID]trace.PID{}
	}
	t.other[tid] = pid
}

func (t *pidTable) get(tid trace.TID) trace.PID {
	switch {
	case tid == 0:
		return 0 // the idle task
	case tid < 0:
		return -1
	case tid < maxDenseTID:
		if int(tid) < len(t.dense) {
			return t.dense[tid] - 1
		}
		return -1
	}
	if p, ok := t.other[tid]; ok {
		return p
	}
	return -1
}

// fillPIDs sets the PID fields of ev the payload leaves unknown: the task's
// own when it is the current one, else the last one learned.
func (r *Reader) fillPIDs(ev *trace.Event) {
	if ev.PID < 0 && ev.TID >= 0 {
		if ev.TID == ev.CurTID && ev.CurPID >= 0 {
			ev.PID = ev.CurPID
		} else {
			ev.PID = r.pidOf(ev.TID)
		}
	}
	if ev.Kind == trace.KindSwitch && ev.NextPID < 0 {
		ev.NextPID = r.pidOf(ev.NextTID)
	}
	if ev.Kind == trace.KindFork && ev.ChildPID < 0 {
		// The PERF_RECORD_FORK written just before this tracepoint taught
		// us the child's tgid (the tracepoint has only its tid).
		ev.ChildPID = r.pidOf(ev.ChildTID)
	}
}

// SkipKinds implements trace.KindSkipper: samples of these kinds are
// not decoded nor delivered (their pid/tid still fill other events' PIDs).
func (r *Reader) SkipKinds(kinds ...trace.Kind) {
	for _, k := range kinds {
		if int(k) < len(r.skip) {
			r.skip[k] = true
		}
	}
}

// KeepRepeats implements trace.RepeatKeeper: an event recorded twice is
// delivered twice, and one earlier than its CPU's previous record (the
// start of a region written again) is delivered too, each counted in its
// warning all the same
// (perf reads it twice: latency --perf printed 11 context switch bugs where
// perf printed 7 on a -m 4 recording holding 6 records written twice).
func (r *Reader) KeepRepeats() { r.keepRepeats = true }

// UseTaskRecords implements trace.TaskRecorder: forks, execs and exits
// come from PERF_RECORD_FORK, PERF_RECORD_COMM (exec) and PERF_RECORD_EXIT
// at their own times, as perf's reports see them; samples of the
// sched_process_fork/exec/exit tracepoints are left out (their pid and
// tid still teach the reader, as for SkipKinds).
func (r *Reader) UseTaskRecords() {
	r.taskRecords = true
	r.skip[trace.KindFork] = true
	r.skip[trace.KindExec] = true
	r.skip[trace.KindExit] = true
}

// queue puts a filled event slot into the reordering window.
//
// perf record copies each CPU's ring buffer in order, and the kernel fills
// it in time order (perf_output_begin, kernel/events/ring_buffer.c), so on
// one CPU the times of samples and switch records never decrease (COMM,
// FORK and EXIT records may: queueSideBand). An event earlier than its
// CPU's previous record, or the same event again (same time, kind, task and
// value: a FINISHED_ROUND region written twice), is damage: dropped and
// counted, never data.
func (r *Reader) queue(ev *trace.Event, hasTime bool) {
	r.queueWithin(ev, hasTime, NonSampleSlack)
}

// queueSideBand is queue for a PERF_RECORD_COMM, FORK or EXIT. The
// kernel stamps such a record before it reserves its room in the ring
// buffer (perf_event_header__init_id, then perf_output_begin, in
// perf_event_comm_output and perf_event_task_output, kernel/events/core.c
// v6.12), so a sample written in between lands first with a later time:
// measured here 55 and 93 µs behind the CPU's previous record (an exit and
// an exec, loop.perf.data and exec-comm-order.perf.data). perf sorts every
// record by time (ordered_events), so such a record is not damage: it
// joins the window at its own time, leaving the CPU's latest time as it
// was.
func (r *Reader) queueSideBand(ev *trace.Event, hasTime bool) {
	r.queueRecord(ev, hasTime, NonSampleSlack, true)
}

// queueTaskRecord is queueSideBand for a COMM, FORK or EXIT record; dup
// says a tracepoint of the file says the same (delivered with
// UseTaskRecords only), so a cut round's count leaves it out as the other
// modes, which drop it, do (new-user pass 60 F5: timehist and map counted
// 4694 events after the last complete round where the rest said 4533, the
// difference the file's forks).
func (r *Reader) queueTaskRecord(ev *trace.Event, hasTime, dup bool) {
	r.sideDup = dup
	r.queueSideBand(ev, hasTime)
	r.sideDup = false
}

// queueWithin is queue for a record whose time may lie at most slack ns
// outside the header's sample times (outsideSampleTimes): 0 for a
// sample, NonSampleSlack for the records perf does not count in them.
func (r *Reader) queueWithin(ev *trace.Event, hasTime bool, slack int64) {
	r.queueRecord(ev, hasTime, slack, false)
}

// MaxTimeLeap is how far past every record before it a record's time
// may lie, in ns, where the file gives no sample times to check it by (a
// pipe-mode stream, perf record -o -): one hour. No system runs an hour
// without a sched_switch on any CPU (the tick's softirq, RCU and kworkers
// run every few ms), so a record that far ahead carries a damaged time: one
// flipped byte of a pipe stream stamped a sample 71,782,760 s and, taken as
// its CPU's latest, made the 3583 good events after it "earlier than the
// CPU's previous record", dropped, and the trace's span 71.8 million
// seconds (new-user pass 78 F1). replay's maxGap is the same hour.
const MaxTimeLeap = int64(3600e9)

// timeLeap reports whether ev, a timed record, is stamped more than
// MaxTimeLeap past every record read so far while no header sample times
// check it (outsideSampleTimes does then), and drops it with a
// damaged-time-ahead warning, counted lost in the file.
func (r *Reader) timeLeap(ev *trace.Event) bool {
	if r.times == timesChecked || r.keepRepeats || r.maxTime <= 0 || ev.Time-r.maxTime <= MaxTimeLeap {
		return false
	}
	r.meta.Warnings.AddEach("damaged-time-ahead", "perf.data: CPU %d: %s stamped %s s, more than an hour after every record before it (the latest %s s): a damaged time, dropped",
		ev.CPU, ev.Kind, trace.FormatSeconds(ev.Time, 9), trace.FormatSeconds(r.maxTime, 9))
	r.meta.LostInFile++
	return true
}

// queueRecord is queueWithin; sideBand says ev may be earlier than its
// CPU's previous record (queueSideBand).
func (r *Reader) queueRecord(ev *trace.Event, hasTime bool, slack int64, sideBand bool) {
	if hasTime && r.outsideSampleTimes(ev, slack, sideBand) {
		r.q.release()
		return
	}
	if hasTime && r.timeLeap(ev) {
		r.q.release()
		return
	}
	if hasTime {
		if c := int(ev.CPU); c >= 0 && c < 1<<12 {
			for len(r.cpuLast) <= c {
				r.cpuLast = append(r.cpuLast, -1)
				r.cpuPrint = append(r.cpuPrint, eventPrint{})
			}
			p := printOf(ev)
			switch {
			case ev.Time < r.cpuLast[c] && sideBand:
				if back := r.cpuLast[c] - ev.Time; back > r.sideBandBack {
					r.sideBandBack = back
				}
				r.stats.SideBandBehind++
			case ev.Time < r.cpuLast[c] && r.keepRepeats:
				r.meta.Warnings.Add("time-backwards", "perf.data: CPU %d: event at %s s is earlier than the CPU's previous record (%s s): damaged or repeated data, kept as perf reads it",
					c, trace.FormatSeconds(ev.Time, 9), trace.FormatSeconds(r.cpuLast[c], 9))
				r.round.event(c)
			case ev.Time < r.cpuLast[c]:
				// Data the file held and the trace lacks: said in full
				// and counted lost in the file (new-user pass 20 F3: one
				// time pushed 2.5 ms ahead dropped the 61 events after it,
				// summarized as "1 about event order", info "lost: 0").
				r.meta.Warnings.AddEach("damaged-time-backwards", "perf.data: CPU %d: event at %s s is earlier than the CPU's previous record (%s s): damaged or repeated data, dropped",
					c, trace.FormatSeconds(ev.Time, 9), trace.FormatSeconds(r.cpuLast[c], 9))
				r.meta.LostInFile++
				r.q.release()
				return
			case ev.Time == r.cpuLast[c] && p == r.cpuPrint[c] && r.keepRepeats:
				r.meta.Warnings.Add("duplicate-event", "perf.data: CPU %d: %s at %s s recorded twice: repeated data, kept as perf reads it",
					c, ev.Kind, trace.FormatSeconds(ev.Time, 9))
				r.round.event(c)
			case ev.Time == r.cpuLast[c] && p == r.cpuPrint[c]:
				r.meta.Warnings.Add("duplicate-event", "perf.data: CPU %d: %s at %s s recorded twice: repeated data, dropped",
					c, ev.Kind, trace.FormatSeconds(ev.Time, 9))
				r.q.release()
				return
			default:
				r.cpuLast[c], r.cpuPrint[c] = ev.Time, p
				if !r.sideDup {
					r.round.event(c)
				}
				r.advanceMark(c)
			}
		} else if ev.Time != 0 {
			// (perf's synthesized records, at time 0, come before the
			// samples.)
			r.markOff, r.markOK = true, false
		}
		if ev.Time > r.maxTime {
			r.maxTime = ev.Time
		}
		if ev.Time < r.lastOut {
			r.meta.Warnings.Add("out-of-order", "perf.data: event at %s s arrived after later events were delivered (below the last round flush); delivered late",
				trace.FormatSeconds(ev.Time, 9))
		}
	}
	r.stats.Events[ev.Kind]++
	if ev == r.direct {
		r.delivered = true
		return
	}
	r.q.push()
}

// timesCheck says whether Reader checks record times against the
// header's HEADER_SAMPLE_TIME.
type timesCheck uint8

const (
	timesUnchecked timesCheck = iota // no such feature, or an empty or inverted range
	timesChecked
	timesIgnored // the samples disagreed with it (outsideSampleTimes)
)

// NonSampleSlack is how far a record that is not a sample (COMM, FORK,
// EXIT, LOST, SWITCH) may lie outside the header's sample times: 1 s.
// perf record sets HEADER_SAMPLE_TIME from the first and last sample it
// processes (process_sample_event in tools/perf/builtin-record.c v6.12),
// so every sample lies inside it, but other records are not counted.
const NonSampleSlack = int64(1e9)

// MaxOutsideSampleTimes is how many timed records outside the header's
// sample times make the reader take the header's range, not the
// records, for damaged, once they outnumber those inside: it then stops
// checking. A damaged header loses at most this many records and those
// inside it.
const MaxOutsideSampleTimes = 64

// outsideSampleTimes reports whether ev, a record with a time, lies more
// than slack ns outside the recording's sample times (Meta.FirstTime and
// LastTime, from HEADER_SAMPLE_TIME): damage, counted and dropped. One
// sample time with a high bit flipped (9,007,886 s in a 12 ms recording)
// was taken as the CPU's latest record, so all its later records were
// dropped as earlier than it, and the replay ticked through the 104 days
// in between.
//
// A COMM, FORK or EXIT record (sideBand) before the first sample is kept at
// any distance while its CPU is still before its samples (preSample): the
// tracking event that writes them is enabled when perf record opens it, the
// sched tracepoints only when perf gets to enable them, and a workload that
// starves perf (two SCHED_FIFO hogs on a 2-CPU machine) put 2.33 s between
// an exec and the first sample, so `sh` and `stress-ng` lost their names.
func (r *Reader) outsideSampleTimes(ev *trace.Event, slack int64, sideBand bool) bool {
	if r.times != timesChecked || ev.Time == 0 {
		return false // (perf's synthesized records are at time 0)
	}
	lo, hi := r.meta.FirstTime, r.meta.LastTime
	if ev.Time >= lo-slack && ev.Time <= hi+slack || sideBand && r.preSample(ev.Time, ev.CPU) {
		r.timesIn++
		return false
	}
	r.timesOut++
	if r.timesOut > MaxOutsideSampleTimes && r.timesOut > r.timesIn {
		r.times = timesIgnored
		r.meta.Warnings.Add("sample-times-ignored", "perf.data: %d of the first %d timed records lie outside the header's sample times (%.9f s to %.9f s): the header's range is taken for damaged and no longer checked",
			r.timesOut, r.timesOut+r.timesIn, float64(lo)/1e9, float64(hi)/1e9)
		return false
	}
	r.meta.Warnings.Add("outside-sample-times", "perf.data: CPU %d: %s at %.9f s lies outside the recording's sample times (%.9f s to %.9f s, from the header): damaged, dropped",
		ev.CPU, ev.Kind, float64(ev.Time)/1e9, float64(lo)/1e9, float64(hi)/1e9)
	// (An event the file held and the trace lacks: info says so.)
	r.meta.LostInFile++
	return true
}

// outsideHeaderTimes reports whether a sample at t lies outside the
// header's sample times while they are checked (outsideSampleTimes drops
// it then, and says so with the header's range).
func (r *Reader) outsideHeaderTimes(t int64) bool {
	return r.times == timesChecked && t != 0 && (t < r.meta.FirstTime || t > r.meta.LastTime)
}

// slotFor returns where to decode a sample at time t recorded on cpu: the
// caller's event (next's dst, Reader.direct) when the event would leave the
// reordering window as soon as it was queued, else a queue slot. It leaves
// at once when every queued event is later (so it would be the earliest:
// an event queued at the same time arrived before it and goes first) and
// no record still to come can be earlier: t is at or before the round
// rule's limit, or the CPU mark once t is cpu's latest time (every other
// CPU of the recording has a record at or after t; see advanceMark). The
// event then skips the copy into the window and out of it. In a round, the
// records of the CPU that lags go this way; Reader.queue still checks and
// counts them.
func (r *Reader) slotFor(t int64, cpu trace.CPU) *trace.Event {
	if r.direct == nil || r.q.len() > 0 && r.q.minTime() <= t {
		return r.q.slot()
	}
	if t <= r.flushLimit {
		return r.direct
	}
	n, c := r.meta.NrCPUs, int(cpu)
	if r.markOff || c < 0 || c >= n || len(r.cpuLast) < n {
		return r.q.slot()
	}
	lag := r.markLag()
	for i, last := range r.cpuLast[:n] {
		if i != c && last-lag < t {
			return r.q.slot()
		}
	}
	return r.direct
}

// advanceMark updates the reader's mark after CPU c's latest record time
// went up. The mark lets events leave the reordering window before perf's
// round rule (FINISHED_ROUND: up to the latest time of the round before)
// allows: every CPU's records come in time order (Reader.queue drops one
// earlier than its CPU's previous record), so once each CPU of the
// recording (0 .. Meta.NrCPUs-1) has a record, no record still to come is
// earlier than the earliest of their latest times (less SideBandLag, for
// the COMM, FORK and EXIT records that may come behind), and an event at or
// before it leaves in the same order as under the round rule (a later
// record at the same time arrives after it). The window then holds about
// one CPU's share of a round instead of two rounds, so it stays in the
// cache. A timed record without a CPU (but perf's synthesized ones, at
// time 0, which precede the samples), or with a CPU outside the count,
// turns the mark off for good: the round rule alone applies from there.
func (r *Reader) advanceMark(c int) {
	if r.markOff {
		return
	}
	n := r.meta.NrCPUs
	if n <= 0 || c >= n {
		r.markOff, r.markOK = true, false
		return
	}
	if r.markOK && c != r.markCPU || len(r.cpuLast) < n {
		return // the earliest CPU did not move, or a CPU has no record yet
	}
	m, at := r.cpuLast[0], 0
	for i := 1; i < n; i++ {
		if r.cpuLast[i] < m {
			m, at = r.cpuLast[i], i
		}
	}
	r.mark, r.markCPU, r.markOK = m, at, m >= 0
}

// eventPrint is what tells two events of one CPU at the same time apart
// (Reader.queue's duplicate check).
type eventPrint struct {
	kind      trace.Kind
	tid, next trace.TID
	n         int64
}

func printOf(ev *trace.Event) eventPrint {
	return eventPrint{ev.Kind, ev.TID, ev.NextTID, ev.Runtime + int64(ev.Count) + int64(ev.ChildTID)}
}

// idTrailer is the sample_id_all trailer of a non-sample record.
type idTrailer struct {
	pid, tid int32
	time     int64
	cpu      int32
	hasTime  bool
}

// trailer reads the sample_id_all trailer at the end of a kernel record:
// {pid, tid} TID, time TIME, id ID, stream_id STREAM_ID, {cpu, res} CPU,
// id IDENTIFIER. It reports false when the attributes have no trailer or the
// record is too short for it.
func (r *Reader) trailer(rec []byte) (idTrailer, int, bool) {
	s := idTrailer{pid: -1, tid: -1, cpu: -1}
	if len(r.attrs) == 0 || !r.attrs[0].sampleIDAll {
		return s, len(rec), false
	}
	a := r.attrs[0]
	if a.sampleType&sampleIdentifier != 0 && len(r.attrs) > 1 {
		if len(rec) < 16 {
			return s, len(rec), false
		}
		if b := r.attrByID(r.end.Uint64(rec[len(rec)-8:])); b != nil {
			a = b
		}
	}
	start := len(rec) - a.idHdrSize
	if start < 8 {
		return s, len(rec), false
	}
	o, p, st := r.end, start, a.sampleType
	if st&sampleTID != 0 {
		s.pid, s.tid = int32(o.Uint32(rec[p:])), int32(o.Uint32(rec[p+4:]))
		p += 8
	}
	if st&sampleTime != 0 {
		s.time, s.hasTime = int64(o.Uint64(rec[p:])), true
		p += 8
	}
	if st&sampleID != 0 {
		p += 8
	}
	if st&sampleStreamID != 0 {
		p += 8
	}
	if st&sampleCPU != 0 {
		s.cpu = int32(o.Uint32(rec[p:]))
	}
	return s, start, true
}

// cpuOutOfRange reports whether cpu, the CPU field of a record of type typ
// at offset off, is at or above the CPU count the header
// states (HEADER_NRCPUS: the larger of nr_cpus_avail and nr_cpus_online;
// CPU numbers run below nr_cpus_avail, and online CPUs are among them) or
// negative but -1 (no CPU field): damage, counted and the record skipped.
// A flipped byte read as CPU 254 of a 2-CPU recording made a phantom
// all-zero CPU row in stats. Without the feature nothing is checked.
func (r *Reader) cpuOutOfRange(cpu int32, typ uint32, off int64) bool {
	n := max(r.meta.NrCPUsAvail, r.meta.NrCPUs)
	if n <= 0 || cpu >= -1 && int64(cpu) < int64(n) {
		return false
	}
	r.meta.Warnings.Add("cpu-out-of-range", "perf.data: record of type %d at offset %d on CPU %d, but the recording's machine has %d CPUs (header nrcpus): damaged, skipped",
		typ, off, cpu, n)
	return true
}

// beforeSamples reports whether t lies before the recording's first sample
// (HEADER_SAMPLE_TIME, when checked), by at most NonSampleSlack: a FORK
// record there has no sched_process_fork sample beside it. perf record's
// tracking event reports forks (execs, exits) from the moment it is enabled, the
// tracepoints a few ms later, and perf names a child forked in between
// after its parent from the record (machine__process_fork_event), so the
// record is the only fork there is (so too for an exec or an exit). (Records earlier than the slack are
// taken for damage, outsideSampleTimes: those stay dropped.)
func (r *Reader) beforeSamples(t int64, cpu trace.CPU) bool {
	first, ok := r.firstSample()
	return ok && t > 0 && t < first && (t >= first-NonSampleSlack || r.preSample(t, cpu))
}

// firstSample is the recording's first sample time: the header's
// (HEADER_SAMPLE_TIME, checked), else the estimate from the data's first
// round (scanFirstSample, a file whose feature sections are gone).
func (r *Reader) firstSample() (int64, bool) {
	if r.times == timesChecked {
		return r.meta.FirstTime, true
	}
	return r.firstSampleEst, r.firstSampleEst > 0
}

// preSample reports whether a COMM, FORK or EXIT record at t on cpu, before
// the recording's first sample, comes while cpu is still before its
// samples: no record of cpu so far lies at or after the first sample time
// less NonSampleSlack, and t is not earlier than the CPU's previous record
// by more than SideBandLag (queueSideBand). Such records need no slack
// (outsideSampleTimes). A damaged time that lands before the samples is
// still caught once its CPU has records among the samples, the common
// case: a file's records before the first sample are the few the tracking
// event wrote while the tracepoints were not yet enabled.
func (r *Reader) preSample(t int64, cpu trace.CPU) bool {
	first, _ := r.firstSample()
	if t <= 0 || t >= first {
		return false
	}
	c := int(cpu)
	if c < 0 || c >= 1<<12 {
		return false
	}
	if c >= len(r.cpuLast) || r.cpuLast[c] < 0 {
		return true
	}
	last := r.cpuLast[c]
	return last < first-NonSampleSlack && t >= last-SideBandLag
}

// kernelRecord turns COMM, FORK, EXIT, LOST and LOST_SAMPLES into events.
// Records perf synthesizes for threads that existed before recording began
// carry time 0: they are delivered first, in file order, on CPU -1.
func (r *Reader) kernelRecord(typ uint32, rec []byte, off int64) error {
	if (typ == recComm || typ == recFork || typ == recExit) && r.looksLikeSample(rec) {
		// A sample whose type was damaged to a task record's: an
		// attribute's id where a sample holds it and its tracepoint data
		// ending where its size says (new-user pass 98 F6: made COMM,
		// read as one on CPU 1701653860 or at time 0, lost 0). (A LOST
		// record holds an attribute's id where a sample does too.)
		r.meta.LostInFile++
		r.meta.Warnings.AddEach("damaged-record-type", "perf.data: record of type %d at offset %d holds a sample's fields: a damaged header, the sample skipped", typ, off)
		return nil
	}
	o := r.end
	sid, end, _ := r.trailer(rec)
	body := rec[8:end]
	t, hasTime := sid.time, sid.hasTime
	if !hasTime {
		t = r.lastOut
	}
	cpu := trace.CPU(sid.cpu)
	synthesized := hasTime && t == 0
	if synthesized {
		cpu = -1
	} else if r.cpuOutOfRange(sid.cpu, typ, off) {
		// (A record the file held, dropped: counted as a sample is,
		// new-user pass 98 F6: a sample whose type was damaged to
		// COMM's, skipped with lost 0.)
		r.meta.LostInFile++
		return nil
	}
	short := func() error {
		r.meta.Warnings.Add("bad-record", "perf.data: record of type %d at offset %d too short; skipped", typ, off)
		return nil
	}
	switch typ {
	case recComm:
		if len(body) < 8 {
			return short()
		}
		pid, tid := trace.PID(int32(o.Uint32(body))), trace.TID(int32(o.Uint32(body[4:])))
		r.learnPID(tid, pid)
		exec := o.Uint16(rec[4:])&miscCommExec != 0
		dup := exec && r.haveExecTP && !synthesized && !r.beforeSamples(t, cpu)
		if dup && !r.taskRecords {
			return nil
		}
		k := trace.KindComm
		if exec {
			k = trace.KindExec
		}
		ev := r.q.slot()
		ev.Reset(t, cpu, k)
		ev.TID, ev.PID = tid, pid
		ev.Comm = r.intern.Intern(cbytes(body[8:]))
		if !synthesized {
			ev.CurTID, ev.CurPID = trace.TID(sid.tid), trace.PID(sid.pid)
		}
		r.queueTaskRecord(ev, hasTime, dup)
	case recFork, recExit:
		if len(body) < 16 {
			return short()
		}
		pid, ppid := trace.PID(int32(o.Uint32(body))), trace.PID(int32(o.Uint32(body[4:])))
		tid, ptid := trace.TID(int32(o.Uint32(body[8:]))), trace.TID(int32(o.Uint32(body[12:])))
		if !hasTime && len(body) >= 24 {
			t, hasTime = int64(o.Uint64(body[16:])), true
		}
		r.learnPID(tid, pid)
		r.learnPID(ptid, ppid)
		dup := typ == recFork && r.haveForkTP && !synthesized && !r.beforeSamples(t, cpu) || // the sched_process_fork tracepoint says the same
			typ == recExit && r.haveExitTP && !r.beforeSamples(t, cpu)
		if dup && !r.taskRecords {
			return nil
		}
		ev := r.q.slot()
		if typ == recFork {
			*ev = trace.NewEvent(t, cpu, trace.KindFork)
			ev.TID, ev.PID, ev.ChildTID, ev.ChildPID = ptid, ppid, tid, pid
		} else {
			*ev = trace.NewEvent(t, cpu, trace.KindExit)
			ev.TID, ev.PID = tid, pid
		}
		if !synthesized {
			ev.CurTID, ev.CurPID = trace.TID(sid.tid), trace.PID(sid.pid)
		}
		r.queueTaskRecord(ev, hasTime, dup)
	case recLost, recLostSamples:
		var lost uint64
		if typ == recLost {
			if len(body) < 16 {
				return short()
			}
			lost = o.Uint64(body[8:])
		} else {
			if len(body) < 8 {
				return short()
			}
			lost = o.Uint64(body)
		}
		if synthesized {
			// perf record ends by reading each event's PERF_FORMAT_LOST
			// count and writing it as LOST_SAMPLES at time 0
			// (record__read_lost_samples): a per-event total of losses
			// the LOST records already reported, so not a new window.
			r.meta.Warnings.AddCount("lost-samples-total", int(min(lost, 1<<31)), "samples in all",
				"perf.data: the kernel dropped samples for lack of ring-buffer room (perf's end-of-recording count; the same losses as the lost-event windows)")
			return nil
		}
		start := t
		if c := int(cpu); c >= 0 && c < len(r.cpuLast) && r.cpuLast[c] >= 0 {
			start = r.cpuLast[c]
		}
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Count: lost, Start: start, End: t})
		if r.lostAhead[lostKey{cpu, t}] {
			return nil // queued at its start by scanLost
		}
		ev := r.q.slot()
		*ev = trace.NewEvent(t, cpu, trace.KindLost)
		ev.Count = lost
		if at := max(start, r.lastOut); !r.keepRepeats && hasTime && at < t {
			// Said from where the loss began (or the earliest time still
			// to come), with its length (trace.Event.Runtime: known
			// ahead), so that a consumer knows the CPU unobserved before
			// the delays that overlap the loss end: at the LOST record's
			// own time a delay that began on that CPU and ended on
			// another a few ms before it was measured (160 ms across a
			// 133 ms loss), and whether a delay was left out depended on
			// which came first. perf's own modes (KeepRepeats) keep
			// perf's time.
			ev.Time, ev.Runtime = at, t-at
		}
		r.queue(ev, hasTime)
	}
	return nil
}

// cbytes returns b up to its first NUL.
func cbytes(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// sideBandEnd returns where a COMM, FORK, EXIT, LOST or CGROUP record at
// the start of b ends by its fields, whatever its header's size says: the
// kernel's layouts (perf_event_comm_event, perf_event_task_output,
// perf_event_cgroup_output, perf_output_lost in kernel/events/core.c
// v6.18; perf's synthesized records, tools/perf/util/synthetic-events.c
// v6.12, are the same): a name or path NUL-terminated and padded to 8
// bytes, then the sample_id_all trailer when the attributes have one. 0
// when it cannot tell (another type, no NUL within a path's room, the
// attributes' trailers differ in size).
func (r *Reader) sideBandEnd(typ uint32, b []byte) int {
	id := 0
	if len(r.attrs) > 0 && r.attrs[0].sampleIDAll {
		id = r.attrs[0].idHdrSize
		for _, a := range r.attrs[1:] {
			if a.idHdrSize != id {
				return 0
			}
		}
	}
	named := func(room int) int { // a NUL-terminated string after 16 bytes
		if len(b) < 16 {
			return 0
		}
		n := bytes.IndexByte(b[16:min(len(b), 16+room)], 0)
		if n < 0 {
			return 0
		}
		return 16 + (n+1+7)&^7 + id
	}
	switch typ {
	case recComm:
		return named(16) // TASK_COMM_LEN
	case recCgroup:
		return named(4096) // PATH_MAX
	case recFork, recExit:
		return 32 + id // pid, ppid, tid, ptid (u32 each), time
	case recLost:
		return 24 + id // id, lost
	}
	return 0
}

// sideBandSize handles, in a mapped file, a COMM, FORK, EXIT, LOST or
// CGROUP record at the start of b whose header says size bytes where no
// record header begins, while one begins where its fields end
// (sideBandEnd): a damaged size, which sent the reader into the middle of
// a later record (new-user pass 102 F3: a cgroup record's size made 9999
// read as a header of 0 bytes 9999 bytes on, blamed there, and the 2000
// events after it lost). It returns the record's size by its fields, with
// a counted warning, or 0 when the size stands.
func (r *Reader) sideBandSize(typ uint32, b []byte, size int) int {
	end := r.sideBandEnd(typ, b)
	if end < 8 || end == size || end > len(b) || size == len(b) || r.headerAt(b, size) {
		return 0
	}
	if end < len(b) && !r.headerAt(b, end) {
		return 0
	}
	r.meta.Warnings.AddEach("damaged-record-size", "perf.data: the record of type %d at offset %d says %d bytes, and its fields end after %d, where the next record begins: a damaged size; the records after it read on from offset %d",
		typ, r.off, size, end, r.off+int64(end))
	return end
}
