package perfettopb

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

func init() {
	trace.Register(trace.Format{
		Name:        "perfetto",
		Description: "Perfetto protobuf trace (ftrace sched events, full or compact_sched; traceview export --format perfetto)",
		Detect:      Detect,
		Open:        func(r io.Reader, _ trace.ReadOptions) (trace.Source, error) { return NewReader(r) },
	})
}

// ParseError is a malformed-protobuf error: Offset is the byte offset in
// the file of the TracePacket (or the field) that breaks the wire format.
// It wraps trace.ErrCorrupt.
type ParseError struct {
	Offset int64
	What   string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("perfetto: %s at offset %d: %v", e.What, e.Offset, trace.ErrCorrupt)
}

func (e *ParseError) Unwrap() error { return trace.ErrCorrupt }

// Detect reports whether head starts like a Perfetto trace: a Trace
// message whose first field is a length-delimited packet (field 1) whose
// fields, as far as head holds them, are well-formed and include at least
// one TracePacket field this package knows. Text traces, whose first byte
// may also be 0x0a (a newline), fail the field check.
func Detect(head []byte) bool {
	num, typ, n := protowire.ConsumeTag(head)
	if n < 0 || num != fTracePacket || typ != protowire.BytesType {
		return false
	}
	l, m := protowire.ConsumeVarint(head[n:])
	if m < 0 || l == 0 || l > 1<<30 {
		return false
	}
	body := head[n+m:]
	if uint64(len(body)) > l {
		body = body[:l]
	}
	known := false
	for len(body) > 0 {
		num, typ, k := protowire.ConsumeTag(body)
		if k < 0 {
			return false
		}
		v := protowire.ConsumeFieldValue(num, typ, body[k:])
		if v < 0 {
			// Cut by the head: accept only if what was read is well formed.
			return known && uint64(len(head)-n-m) < l
		}
		switch num {
		case fPacketFtraceEvents, fPacketProcessTree, fPacketClockSnapshot, fPacketTimestamp,
			fPacketSequenceID, fPacketFtraceStats, fPacketSystemInfo, fPacketSequenceFlags,
			fPacketFirstOnSequence, fPacketTimestampClock:
			known = true
		}
		body = body[k+v:]
	}
	return known
}

// Reader reads a Perfetto trace; it implements trace.Source. The whole
// file is decoded when the reader is opened and its events sorted by time
// (Perfetto writes each CPU's bundles in order, but CPUs' bundles
// interleave freely; trace processor likewise sorts a whole file), so its
// memory grows with the trace. Events of kinds traceview does not model
// are skipped; compressed packets are counted as a warning and skipped.
type Reader struct {
	meta   trace.Meta
	events []trace.Event
	i      int
	// decoding state
	tgid map[trace.TID]trace.PID
	curr map[trace.CPU]trace.TID
	// prio: each task's last prio an event gave (a switch's, a waking's):
	// compact_sched has no prev_prio, so a compact switch's previous task
	// takes it from there, as trace processor does from the CPU's last
	// next_prio (new-user pass 19 F2: left -1, every task read back as
	// SCHED_DEADLINE and its waits as throttled).
	prio map[trace.TID]int32
	// comm: each task's last name an event gave (a switch-in's next_comm,
	// a waking's, a rename's): compact_sched has no prev_comm either, and
	// an empty one read as a rename to "" of every task (new-user pass 57
	// F1: 22 tasks "renamed", most of their run time under "").
	comm   map[trace.TID]string
	lastTS map[trace.CPU]int64
	lost   map[trace.CPU]uint64 // ftrace_stats overruns
	marks  []lostMark           // the KindLost events of lost_events bundles, in file order
	// carried, carriedLost: the source's loss windows, which a trace
	// Write wrote carries (attrLostWindows), for Meta.Lost.
	carried     bool
	carriedLost []trace.LostWindow
	// finalFlushFailed: TraceStats said the final flush failed.
	finalFlushFailed bool
	// started: a packet that starts a trace was read (startsTrace).
	started bool
	// sawBundle: an ftrace event bundle was read (processTree).
	sawBundle bool
	// damages: the stretches of the file skipped as damaged, in file
	// order (damage.go).
	damages []damage
	// spans: each bundle's events in rd.events, in file order; compact:
	// a bit per event of rd.events, set for those of a compact_sched
	// block (damage.go drops a damaged block whole).
	spans   []bundleSpan
	compact []uint64
	// taskCgroup: each thread's cgroup label of a thread track
	// (trackDescriptor): a path, or "id N".
	taskCgroup map[trace.TID]string
}

// NewReader decodes all of r. Errors wrap trace.ErrCorrupt (as a
// *ParseError with the offset) for bytes that break the protobuf wire
// format, and name what is missing for a well-formed file without any
// scheduler event.
func NewReader(r io.Reader) (*Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
	rd := &Reader{
		meta: trace.Meta{Format: "perfetto", Clock: "perfetto trace clock (BOOTTIME unless the trace says otherwise)"},
		tgid: map[trace.TID]trace.PID{}, curr: map[trace.CPU]trace.TID{}, prio: map[trace.TID]int32{}, comm: map[trace.TID]string{},
		lastTS: map[trace.CPU]int64{}, lost: map[trace.CPU]uint64{},
	}
	off, cut := 0, ""
	clockRun := -1 // the offset of the clock_snapshot packets just read, -1 after any other
	for off < len(data) {
		num, typ, n := protowire.ConsumeTag(data[off:])
		if n < 0 {
			if off = rd.resyncAfter(data, off, "bad field tag"); off < 0 {
				break
			}
			continue
		}
		if num != fTracePacket || typ != protowire.BytesType {
			v := protowire.ConsumeFieldValue(num, typ, data[off+n:])
			if v < 0 {
				if off = rd.resyncAfter(data, off, fmt.Sprintf("bad field %d", num)); off < 0 {
					break
				}
				continue
			}
			off += n + v
			continue
		}
		pkt, v := protowire.ConsumeBytes(data[off+n:])
		if v < 0 {
			size, m := protowire.ConsumeVarint(data[off+n:])
			rest := uint64(len(data) - off - n)
			if (m < 0 && rest < 10 || m > 0 && size > rest-uint64(m)) && resync(data, off+1) < 0 {
				// The file ends inside this packet (`head -c`): the packets
				// before it are whole (and no whole packet follows: a
				// damaged length would also run past the end).
				have := len(data) - off
				cut = fmt.Sprintf("the file ends inside the packet at offset %d (%d bytes of it; %d bytes missing): the packets before it were read", off, have, int(size)+n+max(m, 0)-have)
				if m < 0 {
					cut = fmt.Sprintf("the file ends inside the packet at offset %d (%d bytes of its header): the packets before it were read", off, have)
				}
				rd.meta.Warnings.Add("truncated-file", "perfetto: %s", cut)
				break
			}
			if off = rd.resyncAfter(data, off, "a packet length past the end of the file"); off < 0 {
				break
			}
			continue
		}
		start := startsTrace(pkt)
		if start && rd.started && len(rd.events) > 0 {
			// A second trace's first packets (files joined: cat
			// a.pftrace b.pftrace; new-user pass 61 F1 read two
			// recordings as one, every event twice, info exit 0). It
			// begins with the clock snapshots just before (Write's
			// first packet; the reader takes nothing from them).
			at := off
			if clockRun >= 0 {
				at = clockRun
			}
			rd.meta.Warnings.Add("damaged-trailing-bytes", "perfetto: another trace begins at offset %d (a second system_info or trace_config packet, after events): its %d bytes to the end of the file are not read, their events are not in the trace; read each trace apart",
				at, len(data)-at)
			break
		}
		rd.started = rd.started || start
		if onlyClockSnapshot(pkt) {
			if clockRun < 0 {
				clockRun = off
			}
		} else {
			clockRun = -1
		}
		before, marks := len(rd.events), len(rd.marks)
		if err := rd.packet(pkt, int64(off+n)); err != nil {
			rd.skipPacket(pkt, int64(off), int64(n+v), before, marks, err)
		}
		off += n + v
	}
	if len(rd.events) == 0 && len(rd.damages) > 0 {
		d := rd.damages[0]
		return nil, &ParseError{d.off, fmt.Sprintf("damaged bytes (%d of them from here; no scheduler event could be read around them)", d.end-d.off)}
	}
	if len(rd.events) == 0 && cut != "" {
		return nil, fmt.Errorf("perfetto: no scheduler events before the end of the file: %s: %w", cut, trace.ErrCorrupt)
	}
	if len(rd.events) == 0 {
		return nil, fmt.Errorf("perfetto: no scheduler events (the trace has no ftrace sched_switch/sched_waking bundles)")
	}
	rd.finish(cut != "")
	return rd, nil
}

// fields walks the fields of one message, calling f with each field's
// number, wire type, varint value (for varint fields) and bytes (for
// length-delimited ones). off is the message's file offset, for errors.
func fields(msg []byte, off int64, f func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error) error {
	for i := 0; i < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[i:])
		if n < 0 {
			return &ParseError{off + int64(i), "bad field tag"}
		}
		var v uint64
		var b []byte
		var m int
		switch typ {
		case protowire.VarintType:
			v, m = protowire.ConsumeVarint(msg[i+n:])
		case protowire.BytesType:
			b, m = protowire.ConsumeBytes(msg[i+n:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, msg[i+n:])
		}
		if m < 0 {
			return &ParseError{off + int64(i), fmt.Sprintf("bad field %d", num)}
		}
		if err := f(num, typ, v, b); err != nil {
			return err
		}
		i += n + m
	}
	return nil
}

// startsTrace reports whether pkt is one of the packets a trace holds
// once, at its start: system_info (written by traced, and by Write,
// first) or trace_config (traced's first packet), TracePacket fields 45
// and 33 (protos/perfetto/trace/trace_packet.proto).
func startsTrace(pkt []byte) bool {
	for len(pkt) > 0 {
		num, typ, n := protowire.ConsumeTag(pkt)
		if n < 0 {
			return false
		}
		if num == fPacketSystemInfo || num == fPacketTraceConfig {
			return true
		}
		v := protowire.ConsumeFieldValue(num, typ, pkt[n:])
		if v < 0 {
			return false
		}
		pkt = pkt[n+v:]
	}
	return false
}

// onlyClockSnapshot reports whether pkt's fields are a clock_snapshot and
// the fields any packet may carry (timestamp, sequence id and flags).
func onlyClockSnapshot(pkt []byte) bool {
	snap := false
	for len(pkt) > 0 {
		num, typ, n := protowire.ConsumeTag(pkt)
		if n < 0 {
			return false
		}
		switch num {
		case fPacketClockSnapshot:
			snap = true
		case fPacketTimestamp, fPacketSequenceID, fPacketSequenceFlags, fPacketTimestampClock, fPacketFirstOnSequence:
		default:
			return false
		}
		v := protowire.ConsumeFieldValue(num, typ, pkt[n:])
		if v < 0 {
			return false
		}
		pkt = pkt[n+v:]
	}
	return snap
}

func (rd *Reader) packet(pkt []byte, off int64) error {
	// The timestamp first, wherever it is in the packet.
	var ts int64
	hasTS := false
	err := fields(pkt, off, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num == fPacketTimestamp && typ == protowire.VarintType {
			ts, hasTS = int64(v), true
		}
		return nil
	})
	if err != nil {
		return err
	}
	return fields(pkt, off, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch num {
		case fPacketSystemInfo:
			return rd.systemInfo(b, off)
		case fPacketProcessTree:
			return rd.processTree(b, off, ts)
		case fPacketFtraceEvents:
			rd.sawBundle = true
			return rd.bundle(b, off, ts, hasTS)
		case fPacketFtraceStats:
			return rd.ftraceStats(b, off)
		case fPacketTraceStats:
			return rd.traceStats(b, off)
		case fPacketTrackDescriptor:
			return rd.trackDescriptor(b, off)
		case fPacketTraceAttributes:
			return rd.traceAttributes(b, off)
		case fPacketCompressed:
			rd.meta.Warnings.Add("perfetto-compressed", "compressed packets skipped (decompress with 'traceconv decompress_packets' first)")
		}
		return nil
	})
}

func (rd *Reader) systemInfo(b []byte, off int64) error {
	return fields(b, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
		switch num {
		case fSystemInfoUtsname:
			return fields(b, off, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
				switch num {
				case fUtsnameRelease:
					if rel := string(b); rel != UnknownRelease {
						rd.meta.OSRelease = rel
					}
				case fUtsnameMachine:
					rd.meta.Arch = string(b)
				case fUtsnameVersion:
					if h, ok := cutPrefix(string(b), "host "); ok {
						rd.meta.Hostname = h
					}
				}
				return nil
			})
		case fSystemInfoNumCPUs:
			rd.meta.NrCPUs = int(v)
		case fSystemInfoServiceVersion:
			rd.meta.Tool = string(b)
		}
		return nil
	})
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// processTree records each thread's tgid and emits a comm event per named
// thread at the packet's time, as perf's synthesized COMM records name the
// tasks alive when recording starts.
func (rd *Reader) processTree(b []byte, off, ts int64) error {
	return fields(b, off, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		if num != fTreeThreads {
			return nil
		}
		tid, tgid, name := trace.TID(-1), trace.PID(-1), ""
		err := fields(b, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
			switch num {
			case fThreadTid:
				tid = trace.TID(int32(v))
			case fThreadTgid:
				tgid = trace.PID(int32(v))
			case fThreadName:
				name = string(b)
			}
			return nil
		})
		if err != nil || tid <= 0 {
			return err
		}
		if tgid > 0 {
			rd.tgid[tid] = tgid
		}
		if name != "" {
			at := ts
			if !rd.sawBundle {
				// The tree before the first events is the trace's
				// snapshot of its threads at the start: task records of
				// time 0, as perf's synthesized ones (trace.Synthesized),
				// not renames at the packet's time (new-user pass 61 F5:
				// a text trace's export read back 88 comm events more).
				at = 0
			}
			e := trace.NewEvent(at, -1, trace.KindComm)
			e.TID, e.PID, e.Comm = tid, rd.pid(tid), name
			rd.add(e)
		}
		return nil
	})
}

func (rd *Reader) ftraceStats(b []byte, off int64) error {
	return fields(b, off, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		if num != fStatsCPU {
			return nil
		}
		var cpu trace.CPU
		var n uint64
		err := fields(b, off, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
			switch num {
			case fCPUStatsCPU:
				cpu = trace.CPU(v)
			case fCPUStatsOverrun, fCPUStatsDropped:
				n += v
			}
			return nil
		})
		rd.lost[cpu] = max(rd.lost[cpu], n) // stats may come at start and end: keep the end's
		return err
	})
}

func (rd *Reader) pid(tid trace.TID) trace.PID {
	if tid == 0 {
		return 0
	}
	if p, ok := rd.tgid[tid]; ok {
		return p
	}
	return -1
}

func (rd *Reader) add(e trace.Event) { rd.events = append(rd.events, e) }

// item is one event of a bundle before the bundle's events are put in
// time order.
type item struct {
	ev      trace.Event
	compact bool
	seq     int
}

// bundle reads an FtraceEventBundle; ts is its packet's timestamp, when
// hasTS (see lostBundle).
func (rd *Reader) bundle(b []byte, off, ts int64, hasTS bool) error {
	cpu := trace.CPU(-1)
	lost := false
	var prevEnd uint64
	var raw [][]byte
	var cs []byte
	err := fields(b, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
		switch num {
		case fBundleCPU:
			cpu = trace.CPU(v)
		case fBundleEvent:
			raw = append(raw, b)
		case fBundleLostEvents:
			lost = v != 0
		case fBundlePrevEnd:
			prevEnd = v
		case fBundleCompactSched:
			cs = b
		}
		return nil
	})
	if err != nil && cpu < 0 {
		return err // (the packet is skipped: damage.go)
	}
	if rd.meta.NrCPUs > 0 && int(cpu) >= rd.meta.NrCPUs {
		// A CPU the trace does not have (system_info num_cpus): a
		// damaged CPU number, whose events cannot be placed (new-user
		// pass 101 F5: a bundle of CPU 5 in a 2-CPU trace read as
		// written, exit 0, CPU 1 empty). They are lost in the file.
		rd.meta.LostInFile += uint64(len(raw) + max(compactEvents(cs), 0))
		return &ParseError{off, fmt.Sprintf("an ftrace bundle of CPU %d, beyond the trace's %d CPUs (system_info num_cpus)", cpu, rd.meta.NrCPUs)}
	}
	// Damage inside a bundle of a known CPU skips what it breaks, not the
	// bundle (damage.go): a field that breaks the bundle's framing ends it
	// (the events before it are kept), a damaged event or compact_sched
	// block is skipped. holes: what was skipped (bundleHoles).
	var holes []bundleHole
	var why error
	var items []item
	hole := func(err error, whole bool) {
		holes = append(holes, bundleHole{pos: len(items), whole: whole})
		why = cmp.Or(why, err)
	}
	for _, r := range raw {
		e, ok, err := rd.decodeEvent(r, cpu, off)
		if err != nil && cpu < 0 {
			return err
		}
		if err != nil {
			// In a bundle of full events, in time order, a damaged one
			// lay between its neighbours; beside a compact block, whose
			// previous tasks follow from the switches before, anywhere.
			// One event the file held (new-user pass 101 F2: not in the
			// lost line).
			hole(err, cs != nil)
			rd.meta.LostInFile++
			continue
		}
		if ok {
			items = append(items, item{ev: e, seq: len(items)})
		}
	}
	var beyond []int64 // the times of compact wakings skipped for a target_cpu beyond the trace's CPUs
	if cs != nil {
		c, err := decodeCompact(cs, cpu, off)
		if err == nil {
			// A waking whose target_cpu is beyond the trace's CPUs: its
			// value damaged in place (a varint of another length would
			// leave its column longer or shorter than the others, which
			// decodeCompact refuses), the block's other events as
			// written. The waking alone is skipped, counted lost, its CPU
			// unobserved between the events around it (new-user pass 101:
			// one such value dropped the block's 765 events).
			c = slices.DeleteFunc(c, func(e trace.Event) bool {
				name, v := trace.CPUFieldBeyond(&e, rd.meta.NrCPUs)
				if name != "" {
					beyond = append(beyond, e.Time)
					why = cmp.Or(why, error(&ParseError{off, fmt.Sprintf("compact_sched %s %d beyond the trace's %d CPUs (system_info num_cpus)", name, v, rd.meta.NrCPUs)}))
				}
				return name != ""
			})
			rd.meta.LostInFile += uint64(len(beyond))
		}
		if err != nil && cpu < 0 {
			return err
		}
		if err != nil {
			hole(err, true)
			if n := compactEvents(cs); n > 0 {
				rd.meta.LostInFile += uint64(n) // (the block's events, pass 101 F2: 765 gone, lost 0)
			}
		}
		for _, e := range c {
			items = append(items, item{ev: e, compact: true, seq: len(items)})
		}
	}
	if err != nil {
		hole(err, true) // (the bundle's rest, compact block or events, is lost)
	}
	late, after := outOfBundleOrder(items)
	sort.SliceStable(items, func(i, j int) bool {
		a, b := &items[i], &items[j]
		if a.ev.Time != b.ev.Time {
			return a.ev.Time < b.ev.Time
		}
		return a.compact && !b.compact
	})
	if len(late) > 0 {
		items = slices.DeleteFunc(items, func(it item) bool { return late[it.seq] })
		rd.meta.LostInFile += uint64(len(late)) // (events the file held, skipped)
		for _, next := range after {
			// Between its neighbours in the file: where the next one is
			// now (the bundle's end when none follows it).
			pos := len(items)
			if next >= 0 {
				pos = slices.IndexFunc(items, func(it item) bool { return it.seq == next })
			}
			holes = append(holes, bundleHole{pos: pos})
		}
		why = cmp.Or(why, errBundleOrder)
	}
	for _, t := range beyond {
		// Where the skipped waking lay: before the first event after it.
		holes = append(holes, bundleHole{pos: sort.Search(len(items), func(i int) bool { return items[i].ev.Time > t })})
	}
	if lost {
		var first int64
		if len(items) > 0 {
			first = items[0].ev.Time
		}
		rd.lostBundle(cpu, first, len(items) > 0, ts, hasTS, prevEnd)
	}
	if bad := impossibleSwitch(items, rd.curr, cpu); bad >= 0 {
		// A compact switch's previous task is implied by the one before
		// it: past a damaged next_pid the chain is wrong, so the bundle's
		// compact events go; a full event goes alone.
		n := len(items)
		if items[bad].compact {
			items = slices.DeleteFunc(items, func(it item) bool { return it.compact })
		} else {
			items = slices.Delete(items, bad, bad+1)
		}
		rd.meta.LostInFile += uint64(n - len(items))
		hole(errSelfSwitch, true)
	}
	base := len(rd.events)
	for i := range items {
		e := &items[i].ev
		// Compact events imply the task current on the CPU: the previous
		// task of a switch and the waker of a waking.
		if items[i].compact {
			cur, ok := rd.curr[cpu]
			if !ok {
				cur = -1
			}
			e.CurTID = cur
			if e.Kind == trace.KindSwitch {
				e.TID = cur
				if p, ok := rd.prio[cur]; ok && e.Prio == -1 {
					e.Prio = p
				}
				if c, ok := rd.comm[cur]; ok && e.Comm == "" {
					e.Comm = c
				}
			}
		}
		switch e.Kind {
		case trace.KindSwitch:
			if e.Prio >= 0 && e.TID > 0 {
				rd.prio[e.TID] = e.Prio
			}
			if e.NextTID > 0 {
				rd.prio[e.NextTID] = e.NextPrio
				rd.comm[e.NextTID] = e.NextComm
			}
		case trace.KindComm, trace.KindExec:
			if e.TID > 0 {
				rd.comm[e.TID] = e.Comm
			}
		case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
			if e.Prio >= 0 && e.TID > 0 {
				rd.prio[e.TID] = e.Prio
			}
			if e.TID > 0 && e.Comm != "" {
				rd.comm[e.TID] = e.Comm
			}
		}
		if e.Time == 0 && (e.Kind == trace.KindComm || e.Kind == trace.KindExec || e.Kind == trace.KindFork || e.Kind == trace.KindExit) {
			// A time-0 record (perf's of a task alive at the start) that
			// traceview export put in CPU 0's bundle before 2026-12-06:
			// a task record, as the process tree's, not an event of CPU 0
			// (replay took it for perf running from time 0: 754349 ms of
			// run time, new-user pass 26 F14).
			e.CPU = -1
		}
		e.CurPID = rd.pid(e.CurTID)
		switch e.Kind {
		case trace.KindSwitch:
			e.PID, e.NextPID = rd.pid(e.TID), rd.pid(e.NextTID)
			rd.curr[cpu] = e.NextTID
		case trace.KindFork:
			e.PID = rd.pid(e.TID)
			if p, ok := rd.tgid[e.ChildTID]; ok {
				e.ChildPID = p
			}
		default:
			if e.PID < 0 {
				e.PID = rd.pid(e.TID)
			}
		}
		rd.lastTS[cpu] = e.Time
		if items[i].compact {
			rd.markCompact(len(rd.events))
		}
		rd.add(*e)
	}
	if len(rd.events) > base && cpu >= 0 {
		rd.spans = append(rd.spans, bundleSpan{start: base, end: len(rd.events), cpu: cpu})
	}
	rd.bundleHoles(cpu, off, base, holes, why)
	return nil
}

// decodeEvent decodes one FtraceEvent; ok is false for event types
// traceview does not model.
func (rd *Reader) decodeEvent(b []byte, cpu trace.CPU, off int64) (trace.Event, bool, error) {
	e := trace.NewEvent(0, cpu, trace.KindInvalid)
	var body []byte
	var generic bool
	var flags uint64
	err := fields(b, off, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		if scalar := num == fEventTimestamp || num == fEventPid || num == fEventCommonFlags; scalar != (typ == protowire.VarintType) || !scalar && typ != protowire.BytesType {
			// FtraceEvent's fields are three varints (timestamp, pid,
			// common_flags) and the oneof of event messages, every other
			// number (protos/perfetto/trace/ftrace/ftrace_event.proto): a
			// field of another wire type is damage (new-user pass 97 F7:
			// a timestamp's byte flipped, the varint ran on into the pid
			// and the task_rename field, read as fixed32 fields 2719,
			// and the event was skipped as of a type not modelled).
			return &ParseError{off, fmt.Sprintf("ftrace event field %d of wire type %d", num, typ)}
		}
		switch num {
		case fEventTimestamp:
			e.Time = int64(v)
		case fEventPid:
			e.CurTID = trace.TID(int32(v))
		case fEventCommonFlags:
			flags = v
		case fEventSchedSwitch:
			e.Kind, body = trace.KindSwitch, b
		case fEventSchedWaking:
			e.Kind, body = trace.KindWaking, b
		case fEventSchedWakeup:
			e.Kind, body = trace.KindWakeup, b
		case fEventSchedWakeupNew:
			e.Kind, body = trace.KindWakeupNew, b
		case fEventSchedMigrate:
			e.Kind, body = trace.KindMigrate, b
		case fEventSchedFork:
			e.Kind, body = trace.KindFork, b
		case fEventSchedExit:
			e.Kind, body = trace.KindExit, b
		case fEventTaskRename:
			e.Kind, body = trace.KindComm, b
		case fEventSchedProcessExe:
			e.Kind, body = trace.KindExec, b
		case fEventGeneric:
			generic, body = true, b
		}
		return nil
	})
	if err != nil {
		return e, false, err
	}
	i32 := func(v uint64) int32 { return int32(v) }
	if generic {
		return rd.decodeGeneric(e, body, off)
	}
	if e.Kind == trace.KindInvalid {
		return e, false, nil
	}
	if e.Kind == trace.KindWaking || e.Kind == trace.KindWakeup {
		e.FromIRQ = fromIRQ(flags)
	}
	err = fields(body, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
		switch e.Kind {
		case trace.KindSwitch:
			switch num {
			case fSwitchPrevComm:
				e.Comm = string(b)
			case fSwitchPrevPid:
				e.TID = trace.TID(i32(v))
			case fSwitchPrevPrio:
				e.Prio = i32(v)
			case fSwitchPrevState:
				e.PrevState = trace.TaskState(v)
			case fSwitchNextComm:
				e.NextComm = string(b)
			case fSwitchNextPid:
				e.NextTID = trace.TID(i32(v))
			case fSwitchNextPrio:
				e.NextPrio = i32(v)
			}
		case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
			switch num {
			case fWakeComm:
				e.Comm = string(b)
			case fWakePid:
				e.TID = trace.TID(i32(v))
			case fWakePrio:
				e.Prio = i32(v)
			case fWakeTargetCPU:
				e.TargetCPU = trace.CPU(i32(v))
			}
		case trace.KindMigrate:
			switch num {
			case fMigrateComm:
				e.Comm = string(b)
			case fMigratePid:
				e.TID = trace.TID(i32(v))
			case fMigratePrio:
				e.Prio = i32(v)
			case fMigrateOrigCPU:
				e.OrigCPU = trace.CPU(i32(v))
			case fMigrateDestCPU:
				e.DestCPU = trace.CPU(i32(v))
			}
		case trace.KindFork:
			switch num {
			case fForkParentComm:
				e.Comm = string(b)
			case fForkParentPid:
				e.TID = trace.TID(i32(v))
			case fForkChildComm:
				e.ChildComm = string(b)
			case fForkChildPid:
				e.ChildTID = trace.TID(i32(v))
			}
		case trace.KindExit:
			switch num {
			case fExitComm:
				e.Comm = string(b)
			case fExitPid:
				e.TID = trace.TID(i32(v))
			case fExitTgid:
				e.PID = trace.PID(i32(v))
			case fExitPrio:
				e.Prio = i32(v)
			}
		case trace.KindComm:
			switch num {
			case fRenamePid:
				e.TID = trace.TID(i32(v))
			case fRenameNewComm:
				e.Comm = string(b)
			}
		case trace.KindExec:
			switch num {
			case fExecPid:
				e.TID = trace.TID(i32(v))
			case fExecFilename:
				// The comm after exec is the file name's last element
				// (fs/exec.c __set_task_comm(kbasename(filename))), cut
				// to TASK_COMM_LEN-1 = 15 bytes.
				s := string(b)
				for i := len(s) - 1; i >= 0; i-- {
					if s[i] == '/' {
						s = s[i+1:]
						break
					}
				}
				if len(s) > 15 {
					s = s[:15]
				}
				e.Comm = s
			}
		}
		return nil
	})
	if e.Kind == trace.KindFork && e.ChildTID > 0 && e.ChildPID < 0 {
		// sched_process_fork has no tgid; the process tree may.
		if p, ok := rd.tgid[e.ChildTID]; ok {
			e.ChildPID = p
		}
	}
	if name, c := trace.CPUFieldBeyond(&e, rd.meta.NrCPUs); err == nil && name != "" {
		err = &ParseError{off, fmt.Sprintf("%s %d beyond the trace's %d CPUs (system_info num_cpus)", name, c, rd.meta.NrCPUs)}
	}
	return e, err == nil, err
}

// decodeGeneric decodes the generic events traceview models
// (sched_stat_runtime, as Write writes it and as traced writes an ftrace
// event it has no typed message for).
func (rd *Reader) decodeGeneric(e trace.Event, body []byte, off int64) (trace.Event, bool, error) {
	name := ""
	var flds [][]byte
	err := fields(body, off, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		switch num {
		case fGenericName:
			name = string(b)
		case fGenericField:
			flds = append(flds, b)
		}
		return nil
	})
	if err != nil || name != "sched_stat_runtime" {
		return e, false, err
	}
	e.Kind = trace.KindRuntime
	for _, f := range flds {
		var fname, str string
		var val int64
		err := fields(f, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
			switch num {
			case fFieldName:
				fname = string(b)
			case fFieldStr:
				str = string(b)
			case fFieldInt, fFieldUint:
				val = int64(v)
			}
			return nil
		})
		if err != nil {
			return e, false, err
		}
		switch fname {
		case "comm":
			e.Comm = str
		case "pid":
			e.TID = trace.TID(val)
		case "runtime":
			e.Runtime = val
		}
	}
	return e, true, nil
}

// compactEvents is how many events a compact_sched block holds by its
// timestamp columns (switches and wakings), or -1 when its fields do not
// parse: what a damaged block that is skipped loses.
func compactEvents(b []byte) int {
	_, cols, err := compactColumns(b, 0)
	if err != nil {
		return -1
	}
	return len(cols[fCompactSwitchTimestamp]) + len(cols[fCompactWakingTimestamp])
}

// compactColumns reads a compact_sched block's intern table and its
// columns, packed or not, by field number.
func compactColumns(b []byte, off int64) (table []string, cols map[protowire.Number][]uint64, err error) {
	cols = map[protowire.Number][]uint64{}
	err = fields(b, off, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		if num == fCompactInternTable {
			table = append(table, string(b))
			return nil
		}
		if typ == protowire.VarintType { // an unpacked repeated field
			cols[num] = append(cols[num], v)
			return nil
		}
		for len(b) > 0 {
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return &ParseError{off, fmt.Sprintf("bad packed compact_sched field %d", num)}
			}
			cols[num] = append(cols[num], x)
			b = b[n:]
		}
		return nil
	})
	return table, cols, err
}

// decodeCompact expands a CompactSched message into events whose implied
// fields (the previous task of a switch, the waker of a waking) are filled
// by the caller once the bundle is in time order.
func decodeCompact(b []byte, cpu trace.CPU, off int64) ([]trace.Event, error) {
	table, cols, err := compactColumns(b, off)
	if err != nil {
		return nil, err
	}
	// The columns of one event kind are parallel arrays, one value per
	// timestamp (compact_sched in ftrace_event_bundle.proto; Write writes
	// them so, as traced does): a column of another length is damage (a
	// changed byte that moved the varint boundaries of a packed field;
	// new-user pass 81 F5 read such a block with no warning). The waking
	// flags may be absent (older writers).
	for _, c := range []struct {
		ts   protowire.Number
		cols []protowire.Number
	}{
		{fCompactSwitchTimestamp, []protowire.Number{fCompactSwitchPrevState, fCompactSwitchNextPid, fCompactSwitchNextPrio, fCompactSwitchNextComm}},
		{fCompactWakingTimestamp, []protowire.Number{fCompactWakingPid, fCompactWakingTargetCPU, fCompactWakingPrio, fCompactWakingComm, fCompactWakingFlags}},
	} {
		n := len(cols[c.ts])
		for _, num := range c.cols {
			if l := len(cols[num]); l != n && !(num == fCompactWakingFlags && l == 0) {
				return nil, &ParseError{off, fmt.Sprintf("compact_sched field %d has %d values for %d timestamps", num, l, n)}
			}
		}
	}
	get := func(num protowire.Number, i int) (uint64, error) {
		c := cols[num]
		if i >= len(c) {
			return 0, &ParseError{off, fmt.Sprintf("compact_sched field %d has %d values, want more than %d", num, len(c), i)}
		}
		return c[i], nil
	}
	comm := func(i uint64) (string, error) {
		if i >= uint64(len(table)) {
			return "", &ParseError{off, fmt.Sprintf("compact_sched comm index %d beyond intern table of %d", i, len(table))}
		}
		return table[i], nil
	}
	var out []trace.Event
	var ts int64
	for i, d := range cols[fCompactSwitchTimestamp] {
		ts += int64(d)
		e := trace.NewEvent(ts, cpu, trace.KindSwitch)
		var vs [4]uint64
		for k, num := range []protowire.Number{fCompactSwitchPrevState, fCompactSwitchNextPid, fCompactSwitchNextPrio, fCompactSwitchNextComm} {
			if vs[k], err = get(num, i); err != nil {
				return nil, err
			}
		}
		e.PrevState = trace.TaskState(vs[0])
		e.NextTID, e.NextPrio = trace.TID(int32(vs[1])), int32(vs[2])
		if e.NextComm, err = comm(vs[3]); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	ts = 0
	for i, d := range cols[fCompactWakingTimestamp] {
		ts += int64(d)
		e := trace.NewEvent(ts, cpu, trace.KindWaking)
		var vs [4]uint64
		for k, num := range []protowire.Number{fCompactWakingPid, fCompactWakingTargetCPU, fCompactWakingPrio, fCompactWakingComm} {
			if vs[k], err = get(num, i); err != nil {
				return nil, err
			}
		}
		e.TID, e.TargetCPU, e.Prio = trace.TID(int32(vs[0])), trace.CPU(int32(vs[1])), int32(vs[2])
		if e.Comm, err = comm(vs[3]); err != nil {
			return nil, err
		}
		if f := cols[fCompactWakingFlags]; i < len(f) {
			e.FromIRQ = fromIRQ(f[i])
		}
		out = append(out, e)
	}
	return out, nil
}

// finish sorts the events by time (stable: each CPU's order is kept, and
// events of different CPUs at one time keep file order), gives the lost
// counts to the lost-events marks (countMarks) and fills Meta's lost
// windows (each mark's, from the CPU's previous event, or those the trace
// carries, of a trace Write wrote) and time span. A failed final flush is
// a truncated warning (Meta.Cut), unless a warning the trace carries says
// the source was cut.
func (rd *Reader) finish(cut bool) {
	given := rd.countMarks()
	for _, mk := range rd.marks {
		e := &rd.events[mk.i]
		rd.meta.Lost = append(rd.meta.Lost, trace.LostWindow{CPU: e.CPU, Count: e.Count, Start: mk.start, End: e.Time + e.Runtime})
	}
	if rd.carried {
		rd.meta.Lost = rd.carriedLost
	}
	rd.damageWindows()
	rd.applyCgroups()
	if rd.finalFlushFailed && !rd.meta.Cut() {
		rd.meta.Warnings.Add("truncated", "perfetto: the trace's final flush failed (TraceStats final_flush_outcome): events may have followed the last one read, how many is unknown")
	}
	sort.SliceStable(rd.events, func(i, j int) bool { return rd.events[i].Time < rd.events[j].Time })
	var unmarked uint64
	for c, n := range rd.lost {
		if !given[c] {
			unmarked += n
		}
	}
	if unmarked > 0 {
		rd.meta.Warnings.Add("perfetto-overrun", "%d events lost (ftrace_stats overrun) on CPUs whose bundles do not say where", unmarked)
	}
	rd.meta.FirstTime, rd.meta.LastTime = rd.events[0].Time, rd.events[len(rd.events)-1].Time
	rd.meta.SpanFrom = trace.SpanFromEvents
	if cut {
		rd.cutWindows()
	}
}

// cutWindows marks, in a file cut short, the time of each CPU from its
// last event to the trace's last as unobserved: a Count 0 KindLost at its
// last event's time, lasting to the trace's last (Runtime), with its
// trace.LostWindow (from the trace's
// first event for a CPU of system_info with none), and a warning naming
// the CPUs. A writer emits each CPU's events in bundles of its own, so a
// cut leaves the CPUs whose bundles came before it without their later
// events while the others go on; reports then count that time as unknown,
// not as idle or as waits (new-user pass 38 F3: a cut 288 ms short on CPU
// 0 read a 54 ms delay for a task whose longest was 4.4 ms, and more
// delay in all than the whole file).
func (rd *Reader) cutWindows() {
	first, last := int64(-1), rd.meta.LastTime
	lastOn := map[trace.CPU]int64{}
	for i := range rd.events {
		if e := &rd.events[i]; e.CPU >= 0 && e.Kind != trace.KindLost && !trace.Synthesized(e) {
			lastOn[e.CPU] = max(lastOn[e.CPU], e.Time)
			if first < 0 {
				first = e.Time // (in time order)
			}
		}
	}
	if first < 0 {
		return // (no event of a CPU was read: nothing to say of their time)
	}
	for c := 0; c < rd.meta.NrCPUs && c < 1<<16; c++ {
		if _, ok := lastOn[trace.CPU(c)]; !ok {
			lastOn[trace.CPU(c)] = first
		}
	}
	var cpus []int
	for c, t := range lastOn {
		if t < last {
			cpus = append(cpus, int(c))
		}
	}
	if len(cpus) == 0 {
		return
	}
	sort.Ints(cpus)
	for _, c := range cpus {
		cpu := trace.CPU(c)
		rd.meta.Lost = append(rd.meta.Lost, trace.LostWindow{CPU: cpu, Start: lastOn[cpu], End: last})
		// At the window's start, known ahead to its end (Event.Runtime),
		// so that the delays waiting there are known lossy when they end,
		// as perf.data's cut rounds are (perfdata cutround.go).
		ev := trace.NewEvent(lastOn[cpu], cpu, trace.KindLost)
		ev.Runtime = last - lastOn[cpu]
		rd.events = append(rd.events, ev)
	}
	sort.SliceStable(rd.events, func(i, j int) bool { return rd.events[i].Time < rd.events[j].Time })
	rd.meta.Warnings.Add("truncated-cpus", "perfetto: the cut leaves CPU %s without its events after its last one, up to the trace's last at %s s: that time is unobserved (not idle), and delays waiting there are not measured",
		cpulist.Format(cpus), trace.FormatSeconds(last, 6))
}

// Next returns the next event in time order, io.EOF after the last.
func (rd *Reader) Next() (trace.Event, error) {
	if rd.i >= len(rd.events) {
		return trace.Event{}, io.EOF
	}
	rd.i++
	return rd.events[rd.i-1], nil
}

// Meta describes the trace: kernel release, CPU count, the writer's
// version string (Tool), lost windows.
func (rd *Reader) Meta() *trace.Meta { return &rd.meta }

// Close releases the decoded events.
func (rd *Reader) Close() error {
	rd.events = nil
	return nil
}
