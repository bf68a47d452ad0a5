package perfettopb

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/trace"
)

// Options tune Write.
type Options struct {
	// Compact writes sched_switch and sched_waking events in the
	// compact_sched encoding of FtraceEventBundle (what Perfetto's traced
	// writes by default): columns of delta-encoded timestamps and interned
	// comms, about a third of the full encoding's size. An event whose
	// implied fields would be wrong (a sched_switch whose previous task is
	// not the one the CPU's previous switch switched in, a sched_waking not
	// emitted by that task, or an event sharing its timestamp with the
	// previous event of its CPU) is written in full instead, so a reader
	// gets the same events either way.
	Compact bool
	// BundleEvents is how many events of one CPU go into one
	// ftrace_events bundle (0: 1024).
	BundleEvents int
	// WarningText, when set, rewrites the message of each of the source's
	// warnings the trace carries (see loss.go): the command names the
	// input there ("exported from x.tv: ..."), as convert does.
	WarningText func(message string) string
}

// Stats says what Write wrote.
type Stats struct {
	Packets, Bundles int
	Events           int64 // ftrace events written (full and compact)
	Switches         int64
	Wakings          int64
	Skipped          int64 // events of kinds Perfetto has no message for
	// LossBundles counts the bundles of losses (lost_events without
	// events): one per CPU marked for each trace.KindLost.
	LossBundles int
}

// Write reads src to its end (it does not close it) and writes a Perfetto
// trace to w. Bundles are spooled to a temporary file while src is read,
// so that the process_tree and the clock snapshot (which need the whole
// trace) come first; memory stays bounded by the bundle size. Times are
// written as they are (ns on the source's clock) and declared as
// BUILTIN_CLOCK_BOOTTIME, the clock Perfetto's ftrace data source assumes;
// the source's own clock name is in SystemInfo.tracing_service_version.
// The source's losses, unobserved windows and warnings, and whether it was
// cut short, go where loss.go says. A source without events gives a trace
// of the three header packets. Errors are src's, w's or the spool file's.
func Write(w io.Writer, src trace.Source, o Options) (Stats, error) {
	if o.BundleEvents <= 0 {
		o.BundleEvents = 1024
	}
	spool, err := os.CreateTemp("", "traceview-perfetto-*")
	if err != nil {
		return Stats{}, fmt.Errorf("perfetto: spool: %w", err)
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	pw := &writer{o: o, out: bufio.NewWriterSize(spool, 1<<16), tasks: trace.NewTasks(),
		cpus: map[trace.CPU]*cpuBuf{}, ppid: map[trace.PID]trace.PID{}, cgroup: map[trace.TID]uint64{}}
	first, last, n := int64(0), int64(0), 0
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return pw.st, err
		}
		if n == 0 || e.Time < first {
			first = e.Time
		}
		last = max(last, e.Time)
		n++
		pw.event(&e)
		if pw.err != nil {
			return pw.st, pw.err
		}
	}
	pw.flushAll()
	if pw.err == nil {
		pw.err = pw.out.Flush()
	}
	if pw.err != nil {
		return pw.st, fmt.Errorf("perfetto: spool: %w", pw.err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	meta := src.Meta()
	for _, p := range [][]byte{clockSnapshot(first), systemInfo(meta), attributes(meta, o.WarningText, pw.st.LossBundles > 0), pw.processTree(first)} {
		if p != nil {
			writePacket(bw, p)
			pw.st.Packets++
		}
	}
	for _, p := range pw.cgroupTracks(first, meta) {
		writePacket(bw, p)
		pw.st.Packets++
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return pw.st, fmt.Errorf("perfetto: spool: %w", err)
	}
	if _, err := io.Copy(bw, spool); err != nil {
		return pw.st, err
	}
	if p := pw.ftraceStats(last); p != nil {
		writePacket(bw, p)
		pw.st.Packets++
	}
	if meta != nil && meta.Cut() {
		writePacket(bw, traceStats(last))
		pw.st.Packets++
	}
	return pw.st, bw.Flush()
}

// writePacket appends one TracePacket (field 1 of Trace) to w.
func writePacket(w *bufio.Writer, packet []byte) {
	var hdr [16]byte
	b := protowire.AppendTag(hdr[:0], fTracePacket, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(packet)))
	w.Write(b)
	w.Write(packet)
}

// packet starts a TracePacket with its timestamp and sequence id (every
// packet of the file is on sequence 1).
func packet(ts int64) []byte {
	p := protowire.AppendTag(nil, fPacketTimestamp, protowire.VarintType)
	p = protowire.AppendVarint(p, uint64(ts))
	p = protowire.AppendTag(p, fPacketSequenceID, protowire.VarintType)
	return protowire.AppendVarint(p, 1)
}

func appendMsg(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendStr(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendInt appends an int32/int64/uint field in varint form (negative
// values sign-extended to 64 bits, as protobuf's int32 does).
func appendInt(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// appendKnown appends v unless it is negative (unknown in trace.Event).
func appendKnown(b []byte, num protowire.Number, v int64) []byte {
	if v < 0 {
		return b
	}
	return appendInt(b, num, v)
}

func clockSnapshot(first int64) []byte {
	var clock []byte
	clock = appendInt(clock, fClockID, clockBoottime)
	clock = appendInt(clock, fClockTimestamp, first)
	var cs []byte
	cs = appendMsg(cs, fClockSnapshotClocks, clock)
	cs = appendInt(cs, fClockSnapshotPrimary, clockBoottime)
	p := packet(first)
	p = appendInt(p, fPacketSequenceFlags, seqIncrementalCleared)
	p = appendInt(p, fPacketFirstOnSequence, 1)
	return appendMsg(p, fPacketClockSnapshot, cs)
}

// UnknownRelease is the kernel release an export of a trace whose release
// is unknown carries: "4.14" for trace processor (see systemInfo), marked
// so that Reader gives no release (it read back as "kernel: 4.14",
// new-user pass 74 F2).
const UnknownRelease = "4.14.0-traceview-release-unknown"

// systemInfo writes the kernel release: trace processor decodes
// sched_switch prev_state by it (the TASK_REPORT bits of Linux >= 4.14,
// which trace.TaskState always uses, or older kernels' bits). With no
// known release it writes UnknownRelease, which trace processor reads as
// 4.14 (its major.minor), the first release of the encoding the events are
// in, so the states decode right, and this package's reader as unknown.
func systemInfo(m *trace.Meta) []byte {
	if m == nil {
		m = &trace.Meta{}
	}
	var u []byte
	u = appendStr(u, fUtsnameSysname, "Linux")
	rel := m.OSRelease
	if rel == "" {
		rel = UnknownRelease
	}
	u = appendStr(u, fUtsnameRelease, rel)
	if m.Hostname != "" {
		// Utsname has no nodename; version carries it (uname -v is free text).
		u = appendStr(u, fUtsnameVersion, "host "+m.Hostname)
	}
	if m.Arch != "" {
		u = appendStr(u, fUtsnameMachine, m.Arch)
	}
	var si []byte
	si = appendMsg(si, fSystemInfoUtsname, u)
	ver := "traceview export"
	var about []string
	if m.Tool != "" {
		about = append(about, "source: "+m.Tool)
	}
	if m.Clock != "" {
		about = append(about, "clock: "+m.Clock)
	}
	if len(about) > 0 {
		// (Only what is known: "source: ;" read back, new-user pass 74 F2.)
		ver += " (" + strings.Join(about, "; ") + ")"
	}
	si = appendStr(si, fSystemInfoServiceVersion, ver)
	if m.NrCPUs > 0 {
		si = appendInt(si, fSystemInfoNumCPUs, int64(m.NrCPUs))
	}
	return appendMsg(packet(0)[:0:0], fPacketSystemInfo, si)
}

// cpuBuf is one CPU's bundle being built.
type cpuBuf struct {
	cpu     trace.CPU
	events  []byte // encoded FtraceEvent messages (field 2 of the bundle)
	n       int
	lostN   uint64    // events lost, for ftrace_stats
	curr    trace.TID // task switched in by the CPU's last sched_switch; -1 unknown
	lastTS  int64
	hasTS   bool
	compact compactCols
}

// compactCols are the columns of a CompactSched being built.
type compactCols struct {
	intern                                      map[string]uint32
	table                                       []string
	swTS, swState, swPid, swPrio, swComm        []byte
	wkTS, wkPid, wkCPU, wkPrio, wkComm, wkFlags []byte
	swLast, wkLast                              int64
	nSw, nWk                                    int
}

type writer struct {
	o     Options
	out   *bufio.Writer
	err   error
	st    Stats
	tasks *trace.Tasks
	cpus  map[trace.CPU]*cpuBuf
	order []trace.CPU
	ppid  map[trace.PID]trace.PID // process -> parent process, from forks
	// cgroup is each task's cgroup id, from the latest sched_switch that
	// switched it out with one (trace.Event.Cgroup).
	cgroup map[trace.TID]uint64
}

func (w *writer) cpu(c trace.CPU) *cpuBuf {
	b := w.cpus[c]
	if b == nil {
		b = &cpuBuf{cpu: c, curr: -1}
		w.cpus[c] = b
		w.order = append(w.order, c)
	}
	return b
}

func (w *writer) event(e *trace.Event) {
	var old string
	if e.Kind == trace.KindComm || e.Kind == trace.KindExec {
		if t := w.tasks.Lookup(e.TID); t != nil && !t.Exited {
			old = t.Comm()
		}
	}
	if e.Kind == trace.KindFork && e.ChildPID >= 0 && e.ChildPID == trace.PID(e.ChildTID) && e.PID >= 0 {
		w.ppid[e.ChildPID] = e.PID
	}
	w.tasks.Observe(e)
	if e.Kind == trace.KindSwitch && e.Cgroup != 0 && e.TID > 0 {
		w.cgroup[e.TID] = e.Cgroup
	}
	if e.Kind == trace.KindLost {
		w.lost(e)
		return
	}
	if e.Time == 0 && e.CPU < 0 && (e.Kind == trace.KindComm || e.Kind == trace.KindExec || e.Kind == trace.KindFork) {
		// A record of a task alive at the start (perf's, time 0): the
		// process tree names it (w.tasks), and as a CPU 0 event at time
		// 0 it read as that task running since then.
		w.st.Skipped++
		return
	}
	cpu := e.CPU
	if cpu < 0 {
		// fork/comm/exit records of perf carry no CPU; they go to CPU 0's
		// bundle (Perfetto's ftrace events always have one).
		cpu = 0
	}
	b := w.cpu(cpu)
	compactOK := w.o.Compact && (!b.hasTS || e.Time > b.lastTS)
	b.lastTS, b.hasTS = e.Time, true
	switch e.Kind {
	case trace.KindSwitch:
		w.st.Switches++
		if compactOK && b.curr >= 0 && b.curr == e.TID && e.CurTID == e.TID && e.Prio >= 0 && e.NextPrio >= 0 {
			b.compact.addSwitch(e)
			b.curr = e.NextTID
			w.counted(b)
			return
		}
		b.curr = e.NextTID
	case trace.KindWaking:
		w.st.Wakings++
		if compactOK && b.curr >= 0 && e.CurTID == b.curr && e.TID >= 0 && e.Prio >= 0 && e.TargetCPU >= 0 {
			b.compact.addWaking(e)
			w.counted(b)
			return
		}
	}
	ev := encodeEvent(e, old)
	if ev == nil {
		w.st.Skipped++
		return
	}
	b.events = appendMsg(b.events, fBundleEvent, ev)
	w.counted(b)
}

func (w *writer) counted(b *cpuBuf) {
	b.n++
	w.st.Events++
	if b.n >= w.o.BundleEvents {
		w.flush(b)
	}
}

func (w *writer) flushAll() {
	for _, c := range w.order {
		w.flush(w.cpus[c])
	}
}

func (w *writer) flush(b *cpuBuf) {
	if b.n == 0 || w.err != nil {
		return
	}
	var bundle []byte
	bundle = appendInt(bundle, fBundleCPU, int64(b.cpu))
	bundle = append(bundle, b.events...)
	if cs := b.compact.encode(); cs != nil {
		bundle = appendMsg(bundle, fBundleCompactSched, cs)
	}
	p := protowire.AppendTag(nil, fPacketSequenceID, protowire.VarintType)
	p = protowire.AppendVarint(p, 1)
	p = appendMsg(p, fPacketFtraceEvents, bundle)
	writePacket(w.out, p)
	w.st.Packets++
	w.st.Bundles++
	b.events, b.n = b.events[:0], 0
	b.compact = compactCols{}
}

func (c *compactCols) comm(s string) uint32 {
	if c.intern == nil {
		c.intern = map[string]uint32{}
	}
	i, ok := c.intern[s]
	if !ok {
		i = uint32(len(c.table))
		c.intern[s] = i
		c.table = append(c.table, s)
	}
	return i
}

func (c *compactCols) addSwitch(e *trace.Event) {
	if c.nSw == 0 {
		c.swTS = protowire.AppendVarint(c.swTS, uint64(e.Time))
	} else {
		c.swTS = protowire.AppendVarint(c.swTS, uint64(e.Time-c.swLast))
	}
	c.swLast = e.Time
	c.nSw++
	c.swState = protowire.AppendVarint(c.swState, uint64(e.PrevState))
	c.swPid = protowire.AppendVarint(c.swPid, uint64(int64(e.NextTID)))
	c.swPrio = protowire.AppendVarint(c.swPrio, uint64(int64(e.NextPrio)))
	c.swComm = protowire.AppendVarint(c.swComm, uint64(c.comm(e.NextComm)))
}

func (c *compactCols) addWaking(e *trace.Event) {
	if c.nWk == 0 {
		c.wkTS = protowire.AppendVarint(c.wkTS, uint64(e.Time))
	} else {
		c.wkTS = protowire.AppendVarint(c.wkTS, uint64(e.Time-c.wkLast))
	}
	c.wkLast = e.Time
	c.nWk++
	c.wkPid = protowire.AppendVarint(c.wkPid, uint64(int64(e.TID)))
	c.wkCPU = protowire.AppendVarint(c.wkCPU, uint64(int64(e.TargetCPU)))
	c.wkPrio = protowire.AppendVarint(c.wkPrio, uint64(int64(e.Prio)))
	c.wkComm = protowire.AppendVarint(c.wkComm, uint64(c.comm(e.Comm)))
	c.wkFlags = protowire.AppendVarint(c.wkFlags, irqFlags(e.FromIRQ))
}

// The kernel's trace-entry flags that say a wakeup ran in interrupt
// context (include/linux/trace_events.h, Linux 6.x: TRACE_FLAG_HARDIRQ,
// TRACE_FLAG_SOFTIRQ, TRACE_FLAG_NMI), as FtraceEvent.common_flags and
// CompactSched.waking_common_flags carry them and Perfetto's trace
// processor reads them.
const (
	traceFlagHardIRQ = 0x08
	traceFlagSoftIRQ = 0x10
	traceFlagNMI     = 0x40
)

// irqFlags is the common_flags of a wakeup: TRACE_FLAG_HARDIRQ when it ran
// in interrupt context (trace.Event.FromIRQ does not keep hard from soft
// irq), else 0.
func irqFlags(fromIRQ trace.Tristate) uint64 {
	if fromIRQ == trace.Yes {
		return traceFlagHardIRQ
	}
	return 0
}

// fromIRQ reads common_flags back: Yes with an interrupt bit, No with other
// bits only, Unknown for 0 (what irqFlags writes when the trace did not
// say).
func fromIRQ(flags uint64) trace.Tristate {
	switch {
	case flags&(traceFlagHardIRQ|traceFlagSoftIRQ|traceFlagNMI) != 0:
		return trace.Yes
	case flags != 0:
		return trace.No
	}
	return trace.Unknown
}

// encode returns the CompactSched message, nil when empty. Packed
// repeated fields are one length-delimited field of concatenated varints.
func (c *compactCols) encode() []byte {
	if c.nSw == 0 && c.nWk == 0 {
		return nil
	}
	var m []byte
	for _, s := range c.table {
		m = appendStr(m, fCompactInternTable, s)
	}
	for _, col := range []struct {
		num protowire.Number
		b   []byte
	}{
		{fCompactSwitchTimestamp, c.swTS}, {fCompactSwitchPrevState, c.swState},
		{fCompactSwitchNextPid, c.swPid}, {fCompactSwitchNextPrio, c.swPrio},
		{fCompactSwitchNextComm, c.swComm},
		{fCompactWakingTimestamp, c.wkTS}, {fCompactWakingPid, c.wkPid},
		{fCompactWakingTargetCPU, c.wkCPU}, {fCompactWakingPrio, c.wkPrio},
		{fCompactWakingComm, c.wkComm}, {fCompactWakingFlags, c.wkFlags},
	} {
		if len(col.b) > 0 {
			m = appendMsg(m, col.num, col.b)
		}
	}
	return m
}

// encodeEvent returns the FtraceEvent message for e, nil for kinds
// Perfetto has no message for. old is the task's name before a rename.
func encodeEvent(e *trace.Event, old string) []byte {
	var body []byte
	var num protowire.Number
	switch e.Kind {
	case trace.KindSwitch:
		num = fEventSchedSwitch
		body = appendStr(body, fSwitchPrevComm, e.Comm)
		body = appendKnown(body, fSwitchPrevPid, int64(e.TID))
		body = appendKnown(body, fSwitchPrevPrio, int64(e.Prio))
		body = appendInt(body, fSwitchPrevState, int64(e.PrevState))
		body = appendStr(body, fSwitchNextComm, e.NextComm)
		body = appendKnown(body, fSwitchNextPid, int64(e.NextTID))
		body = appendKnown(body, fSwitchNextPrio, int64(e.NextPrio))
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		num = map[trace.Kind]protowire.Number{trace.KindWaking: fEventSchedWaking,
			trace.KindWakeup: fEventSchedWakeup, trace.KindWakeupNew: fEventSchedWakeupNew}[e.Kind]
		body = appendStr(body, fWakeComm, e.Comm)
		body = appendKnown(body, fWakePid, int64(e.TID))
		body = appendKnown(body, fWakePrio, int64(e.Prio))
		body = appendInt(body, fWakeSuccess, 1)
		body = appendKnown(body, fWakeTargetCPU, int64(e.TargetCPU))
	case trace.KindMigrate:
		num = fEventSchedMigrate
		body = appendStr(body, fMigrateComm, e.Comm)
		body = appendKnown(body, fMigratePid, int64(e.TID))
		body = appendKnown(body, fMigratePrio, int64(e.Prio))
		body = appendKnown(body, fMigrateOrigCPU, int64(e.OrigCPU))
		body = appendKnown(body, fMigrateDestCPU, int64(e.DestCPU))
	case trace.KindFork:
		num = fEventSchedFork
		body = appendStr(body, fForkParentComm, e.Comm)
		body = appendKnown(body, fForkParentPid, int64(e.TID))
		body = appendStr(body, fForkChildComm, e.ChildComm)
		body = appendKnown(body, fForkChildPid, int64(e.ChildTID))
	case trace.KindExit:
		num = fEventSchedExit
		body = appendStr(body, fExitComm, e.Comm)
		body = appendKnown(body, fExitPid, int64(e.TID))
		body = appendKnown(body, fExitTgid, int64(e.PID))
		body = appendKnown(body, fExitPrio, int64(e.Prio))
	case trace.KindExec:
		// sched_process_exec carries the file name; the comm after an
		// exec is its last element (fs/exec.c), which the name is.
		num = fEventSchedProcessExe
		body = appendStr(body, fExecFilename, e.Comm)
		body = appendKnown(body, fExecPid, int64(e.TID))
	case trace.KindComm:
		// A prctl rename is task_rename.
		num = fEventTaskRename
		body = appendKnown(body, fRenamePid, int64(e.TID))
		body = appendStr(body, fRenameOldComm, old)
		body = appendStr(body, fRenameNewComm, e.Comm)
	case trace.KindRuntime:
		num = fEventGeneric
		body = appendStr(body, fGenericName, "sched_stat_runtime")
		body = appendMsg(body, fGenericField, appendStr(appendStr(nil, fFieldName, "comm"), fFieldStr, e.Comm))
		body = appendMsg(body, fGenericField, appendInt(appendStr(nil, fFieldName, "pid"), fFieldInt, int64(e.TID)))
		body = appendMsg(body, fGenericField, appendInt(appendStr(nil, fFieldName, "runtime"), fFieldUint, e.Runtime))
	default:
		return nil
	}
	var ev []byte
	ev = appendInt(ev, fEventTimestamp, e.Time)
	cur := e.CurTID
	if cur < 0 && e.Kind == trace.KindSwitch {
		cur = e.TID
	}
	ev = appendKnown(ev, fEventPid, int64(cur))
	if f := irqFlags(e.FromIRQ); f != 0 && (e.Kind == trace.KindWaking || e.Kind == trace.KindWakeup) {
		ev = appendInt(ev, fEventCommonFlags, int64(f))
	}
	return appendMsg(ev, num, body)
}

// processTree lists every process (pid, parent when a fork said, name as
// cmdline with cmdline_is_comm) and thread (tid, tgid, first name) of
// the task table; a reused TID appears once, with its latest identity but
// its first identity's first name. The tree is the trace's first packet:
// a name in it is the thread's from the start, and the renames follow as
// task_rename events (a latest name there named a forked child by the name
// it took later, before its fork and first rename: its delays under the
// parent's name counted under the later one, new-user pass 57 F2).
func (w *writer) processTree(ts int64) []byte {
	latest := map[trace.TID]*trace.Task{}
	firstName := map[trace.TID]string{}
	for _, t := range w.tasks.All() {
		if t.TID > 0 {
			latest[t.TID] = t
			if _, ok := firstName[t.TID]; !ok && len(t.Comms) > 0 {
				// Its name at the start: after the records of time 0
				// (perf's synthesized fork names a kworker "kthreadd",
				// its COMM record "kworker/0:0-eve"), which the stream
				// leaves out (event) for this tree to say (new-user pass
				// 74 F1: read back, "kworker/0:0", the suffix lost).
				n := t.Comms[0].Comm
				for _, c := range t.Comms[1:] {
					if c.Since != 0 {
						break
					}
					n = c.Comm
				}
				firstName[t.TID] = n
			}
		}
	}
	tids := make([]int, 0, len(latest))
	for tid := range latest {
		tids = append(tids, int(tid))
	}
	sort.Ints(tids)
	var tree []byte
	procs := map[trace.PID]bool{}
	for _, tid := range tids {
		t := latest[trace.TID(tid)]
		if t.PID <= 0 || procs[t.PID] {
			continue
		}
		procs[t.PID] = true
		var p []byte
		p = appendInt(p, fProcessPid, int64(t.PID))
		if pp, ok := w.ppid[t.PID]; ok {
			p = appendInt(p, fProcessPpid, int64(pp))
		}
		name := t.Comm()
		if l := latest[trace.TID(t.PID)]; l != nil {
			name = l.Comm()
		}
		if name != "" {
			p = appendStr(p, fProcessCmdline, name)
			p = appendInt(p, fProcessCmdlineComm, 1)
		}
		tree = appendMsg(tree, fTreeProcesses, p)
	}
	for _, tid := range tids {
		t := latest[trace.TID(tid)]
		var th []byte
		th = appendInt(th, fThreadTid, int64(t.TID))
		if n := firstName[t.TID]; n != "" {
			th = appendStr(th, fThreadName, n)
		}
		if t.PID > 0 {
			th = appendInt(th, fThreadTgid, int64(t.PID))
		}
		tree = appendMsg(tree, fTreeThreads, th)
	}
	return appendMsg(packet(ts), fPacketProcessTree, tree)
}

// Track uuids of the cgroup tracks: a thread's is threadTrack|tid, a
// process's processTrack|pid (uuids are global to the trace; 0 is the
// trace-global track).
const (
	threadTrack  = 1 << 40
	processTrack = 2 << 40
)

// cgroupLabel is how a task's cgroup is written: "cgroup=" and its path
// relative to the cgroup v2 mount (trace.Meta.Cgroups), or "cgroup=id N"
// when the capture could not resolve the id.
func cgroupLabel(id uint64, paths map[uint64]string) string {
	if p, ok := paths[id]; ok {
		return "cgroup=" + p
	}
	return fmt.Sprintf("cgroup=id %d", id)
}

// cgroupTracks returns one TrackDescriptor packet per task whose cgroup
// the trace says (trace.Event.Cgroup of its sched_switches, the latest
// one): a thread track (ThreadDescriptor pid, tid) whose description is
// cgroupLabel, and for each process one process track (ProcessDescriptor
// pid) with cgroupLabel of its main thread (else of its lowest-numbered
// thread) in process_labels, which trace processor stores as an arg of
// the process. A reused TID keeps its latest identity, as in the process
// tree. Nil when no event carries a cgroup.
func (w *writer) cgroupTracks(ts int64, m *trace.Meta) [][]byte {
	if len(w.cgroup) == 0 {
		return nil
	}
	var paths map[uint64]string
	if m != nil {
		paths = m.Cgroups
	}
	tids := make([]int, 0, len(w.cgroup))
	for tid := range w.cgroup {
		tids = append(tids, int(tid))
	}
	sort.Ints(tids)
	pids := map[trace.PID]trace.TID{} // process -> the thread whose cgroup it gets
	var out [][]byte
	for _, tid := range tids {
		id := w.cgroup[trace.TID(tid)]
		pid := trace.PID(-1)
		if t := w.tasks.Lookup(trace.TID(tid)); t != nil {
			pid = t.PID
		}
		var th []byte
		if pid > 0 {
			th = appendInt(th, fThreadDescPid, int64(pid))
			if cur, ok := pids[pid]; !ok || (trace.TID(pid) == trace.TID(tid) && cur != trace.TID(tid)) {
				pids[pid] = trace.TID(tid)
			}
		}
		th = appendInt(th, fThreadDescTid, int64(tid))
		var td []byte
		td = appendInt(td, fTrackUUID, threadTrack|int64(tid))
		td = appendStr(td, fTrackDescription, cgroupLabel(id, paths))
		td = appendMsg(td, fTrackThread, th)
		out = append(out, appendMsg(packet(ts), fPacketTrackDescriptor, td))
	}
	ps := make([]int, 0, len(pids))
	for pid := range pids {
		ps = append(ps, int(pid))
	}
	sort.Ints(ps)
	for _, pid := range ps {
		var pd []byte
		pd = appendInt(pd, fProcessDescPid, int64(pid))
		pd = appendStr(pd, fProcessDescLabels, cgroupLabel(w.cgroup[pids[trace.PID(pid)]], paths))
		var td []byte
		td = appendInt(td, fTrackUUID, processTrack|int64(pid))
		td = appendMsg(td, fTrackProcess, pd)
		out = append(out, appendMsg(packet(ts), fPacketTrackDescriptor, td))
	}
	return out
}

// ftraceStats returns the END_OF_TRACE FtraceStats packet with each CPU's
// lost records as overrun (records the kernel overwrote before they were
// read), nil when nothing was lost.
func (w *writer) ftraceStats(ts int64) []byte {
	var st []byte
	st = appendInt(st, fStatsPhase, phaseEndOfTrace)
	any := false
	cpus := append([]trace.CPU(nil), w.order...)
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	for _, c := range cpus {
		b := w.cpus[c]
		if b.lostN == 0 {
			continue
		}
		any = true
		var cs []byte
		cs = appendInt(cs, fCPUStatsCPU, int64(c))
		cs = appendInt(cs, fCPUStatsOverrun, int64(b.lostN))
		st = appendMsg(st, fStatsCPU, cs)
	}
	if !any {
		return nil
	}
	return appendMsg(packet(ts), fPacketFtraceStats, st)
}
