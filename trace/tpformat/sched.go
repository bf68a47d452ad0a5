package tpformat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"

	"github.com/traceview/traceview/trace"
)

// ErrShortPayload is returned by SchedDecoder.Decode for a payload shorter
// than the fields the format declares.
var ErrShortPayload = errors.New("tracepoint payload shorter than its format")

// ErrFieldRange is returned by SchedDecoder.Decode for a payload with a
// field the kernel cannot have written (a pid past PID_MAX_LIMIT, a prio
// outside -1..139, a CPU past NR_CPUS): a damaged record, whose event a
// reader drops with a warning rather than take a wakeup of pid -1095901457
// for a real one (new-user pass 30 F8).
var ErrFieldRange = errors.New("a value the kernel cannot write: a damaged field")

// Field ranges the kernel keeps to (ErrFieldRange): PID_MAX_LIMIT, 4 M on
// 64-bit kernels (include/linux/threads.h); the prio of sched_switch and
// sched_wakeup, p->prio, 0..139 (MAX_PRIO − 1, include/linux/sched/prio.h)
// or −1 for SCHED_DEADLINE; NR_CPUS at most 8192 (CONFIG_NR_CPUS's range,
// arch/x86/Kconfig, the largest of the architectures').
const (
	pidMaxLimit = 4 << 20
	maxPrio     = 139
	nrCPUsLimit = 8192
)

// checkRanges returns ErrFieldRange, naming the field, when ev (as Decode
// filled it) holds a value out of the kernel's range.
func (d *SchedDecoder) checkRanges(ev *trace.Event) error {
	bad := func(field string, v int64) error {
		return fmt.Errorf("%s: %s %d: %w", d.Format.FullName(), field, v, ErrFieldRange)
	}
	pid := func(v trace.TID) bool { return v < 0 || v > pidMaxLimit }
	switch {
	case pid(ev.TID):
		return bad("pid", int64(ev.TID))
	case d.commonPID != nil && pid(ev.CurTID):
		return bad("common_pid", int64(ev.CurTID))
	case d.prio != nil && (ev.Prio < -1 || ev.Prio > maxPrio):
		return bad("prio", int64(ev.Prio))
	}
	switch ev.Kind {
	case trace.KindSwitch:
		switch {
		case pid(ev.NextTID):
			return bad("next_pid", int64(ev.NextTID))
		case d.nextPrio != nil && (ev.NextPrio < -1 || ev.NextPrio > maxPrio):
			return bad("next_prio", int64(ev.NextPrio))
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		if d.targetCPU != nil && (ev.TargetCPU < 0 || ev.TargetCPU >= nrCPUsLimit) {
			return bad("target_cpu", int64(ev.TargetCPU))
		}
	case trace.KindMigrate:
		if ev.OrigCPU < 0 || ev.OrigCPU >= nrCPUsLimit {
			return bad("orig_cpu", int64(ev.OrigCPU))
		}
		if ev.DestCPU < 0 || ev.DestCPU >= nrCPUsLimit {
			return bad("dest_cpu", int64(ev.DestCPU))
		}
	case trace.KindFork:
		if pid(ev.ChildTID) {
			return bad("child_pid", int64(ev.ChildTID))
		}
	}
	if name, c := trace.CPUFieldBeyond(ev, d.NrCPUs); name != "" {
		return bad(name, int64(c))
	}
	return nil
}

// ErrNotSched is returned by NewSchedDecoder for a format that is not one of
// the scheduler tracepoints it knows, or that lacks a field it needs.
var ErrNotSched = errors.New("not a decodable scheduler tracepoint")

// Flags of the common_flags byte (include/linux/trace_events.h, stable since
// Linux 2.6.3x): the event was emitted in hard-IRQ, soft-IRQ or NMI context.
const (
	traceFlagHardIRQ = 0x08
	traceFlagSoftIRQ = 0x10
	traceFlagNMI     = 0x40
)

// SchedDecoder decodes the payloads of one scheduler tracepoint into
// trace.Event. Fields are looked up by name once, in NewSchedDecoder. It is
// not safe for concurrent use (it keeps an Interner and a state cache).
type SchedDecoder struct {
	Kind   trace.Kind
	Format *Format
	State  *StateDecoder // sched_switch only
	// NrCPUs, when above 0, is the recording's CPU count: a target_cpu,
	// orig_cpu or dest_cpu at or past it is out of range too (the kernel's
	// CPU numbers run below nr_cpu_ids; new-user pass 101 F3: a waking's
	// target_cpu 127 in a 2-CPU trace read as written). 0: up to NR_CPUS'
	// largest setting only.
	NrCPUs int
	order  Endian
	intern *Interner
	minLen int

	commonPID, commonFlags *Field
	comm, pid, prio        *Field // subject task
	prevState              *Field
	nextComm, nextPID      *Field
	nextPrio               *Field
	targetCPU              *Field
	origCPU, destCPU       *Field
	childComm, childPID    *Field
	runtime                *Field
	filename, oldPID       *Field

	// fast holds the fields' offsets when the payload can be read at fixed
	// offsets (decodeFast).
	fast fastLayout

	// commCache maps the raw 16 bytes of a char[16] comm field (the
	// kernel's TASK_COMM_LEN), or of a short __data_loc name padded with
	// zeros, to its interned name, so that a name seen before costs two
	// loads and two compares instead of a NUL scan and a hash (task names
	// repeat in nearly every event).
	commCache [256]commEntry
	lastName  commEntry // the entry cached returned last
}

type commEntry struct {
	w0, w1 uint64
	s      string
	ok     bool
}

// fieldNames gives, per kind, the format's field names for the subject's
// comm, pid and prio (include/trace/events/sched.h).
var subjectFields = map[trace.Kind][3]string{
	trace.KindSwitch:    {"prev_comm", "prev_pid", "prev_prio"},
	trace.KindWaking:    {"comm", "pid", "prio"},
	trace.KindWakeup:    {"comm", "pid", "prio"},
	trace.KindWakeupNew: {"comm", "pid", "prio"},
	trace.KindMigrate:   {"comm", "pid", "prio"},
	trace.KindFork:      {"parent_comm", "parent_pid", ""},
	trace.KindExec:      {"", "pid", ""},
	trace.KindExit:      {"comm", "pid", "prio"},
	trace.KindRuntime:   {"comm", "pid", ""},
}

// NewSchedDecoder returns a decoder for f, which must be one of
// sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
// sched_migrate_task, sched_process_fork, sched_process_exec,
// sched_process_exit or sched_stat_runtime. Payload integers are read in
// order. intern shares task-name strings between decoders (nil: a private
// one). Errors wrap ErrNotSched.
func NewSchedDecoder(f *Format, order binary.ByteOrder, intern *Interner) (*SchedDecoder, error) {
	k, ok := trace.KindByName(f.Name)
	if !ok || k == trace.KindComm || k == trace.KindLost {
		return nil, fmt.Errorf("%s: %w", f.FullName(), ErrNotSched)
	}
	if intern == nil {
		intern = &Interner{}
	}
	d := &SchedDecoder{Kind: k, Format: f, order: EndianOf(order), intern: intern}
	var missing error
	need := func(name string) *Field {
		if name == "" {
			return nil
		}
		fd, ok := f.Field(name)
		if !ok {
			missing = fmt.Errorf("%s: no field %q: %w", f.FullName(), name, ErrNotSched)
			return nil
		}
		return fd
	}
	opt := func(name string) *Field {
		fd, _ := f.Field(name)
		return fd
	}
	sf := subjectFields[k]
	d.comm, d.pid = need(sf[0]), need(sf[1])
	d.prio = opt(sf[2])
	d.commonPID, d.commonFlags = opt("common_pid"), opt("common_flags")
	switch k {
	case trace.KindSwitch:
		d.prevState = need("prev_state")
		d.nextComm, d.nextPID, d.nextPrio = need("next_comm"), need("next_pid"), opt("next_prio")
		d.State = NewStateDecoder(f.PrintFmt)
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		d.targetCPU = opt("target_cpu")
	case trace.KindMigrate:
		d.origCPU, d.destCPU = need("orig_cpu"), need("dest_cpu")
	case trace.KindFork:
		d.childComm, d.childPID = need("child_comm"), need("child_pid")
	case trace.KindExec:
		d.filename, d.oldPID = need("filename"), opt("old_pid")
	case trace.KindRuntime:
		d.runtime = need("runtime")
	}
	if missing != nil {
		return nil, missing
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		if !fd.DataLoc && !fd.RelLoc && fd.End() > d.minLen {
			d.minLen = fd.End()
		}
	}
	d.fast = d.fastLayout()
	return d, nil
}

// fastLayout is where a payload's fields are when the kinds that make up
// most of a trace (switch, wakeups, runtime) have the layout of every
// kernel since 2.6: little-endian, pids, prios and the target CPU signed
// 4-byte ints, prev_state 8 bytes, runtime 8 bytes, common_flags 1 byte
// (names are read through str, whatever their layout). decodeFast reads them there; Decode's general path
// (a *Field per field, its size and sign looked up per event) took a
// quarter of the perf.data reader's time on the bench file of
// docs/latency.md.
type fastLayout struct {
	ok                                      bool
	commonPID, pid, prio, nextPID, nextPrio int // -1: no such field
	prevState, targetCPU, flags, runtime    int
	comm, nextComm                          nameField
	// std is the kernel's own layout that decodeFast reads at constant
	// offsets, when the format has it (stdLayout).
	std int
}

// The layouts of the kinds most events have, as the kernels of the shared
// traces and the bench file of docs/latency.md write them (common fields in
// the first 8 bytes, common_pid at 4, common_flags at 2): decodeFast reads
// them at constant offsets, one bounds check for all.
const (
	stdNone = iota
	// sched_switch since Linux 4.x: prev_comm[16] 8, prev_pid 24,
	// prev_prio 28, prev_state (long) 32, next_comm[16] 40, next_pid 56,
	// next_prio 60.
	stdSwitch
	// sched_waking, sched_wakeup, sched_wakeup_new since Linux 4.x:
	// comm[16] 8, pid 24, prio 28, target_cpu 32.
	stdWakeup
	// sched_stat_runtime since Linux 6.x: __data_loc comm 8, pid 12,
	// runtime (u64) 16.
	stdRuntime
)

// stdLayout returns the std of a fastLayout.
func (l *fastLayout) stdLayout(k trace.Kind) int {
	if !l.ok || l.commonPID != 4 {
		return stdNone
	}
	switch k {
	case trace.KindSwitch:
		if l.comm.fixed == 8 && l.pid == 24 && l.prio == 28 && l.prevState == 32 &&
			l.nextComm.fixed == 40 && l.nextPID == 56 && l.nextPrio == 60 {
			return stdSwitch
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		if l.comm.fixed == 8 && l.pid == 24 && l.prio == 28 && l.targetCPU == 32 &&
			(l.flags == 2 || l.flags < 0 && k == trace.KindWakeupNew) {
			return stdWakeup
		}
	case trace.KindRuntime:
		if l.comm.loc == 8 && l.pid == 12 && l.prio < 0 && l.runtime == 16 {
			return stdRuntime
		}
	}
	return stdNone
}

// nameField is where a task name is: a char[16] at fixed (else -1), or a
// __data_loc descriptor at loc (else -1); neither: read through str.
type nameField struct {
	fd         *Field
	fixed, loc int
}

// nameFieldOf returns fd's nameField in a payload of at least minLen bytes.
func nameFieldOf(fd *Field, minLen int) nameField {
	n := nameField{fd: fd, fixed: -1, loc: -1}
	switch {
	case fd == nil || fd.RelLoc:
	case !fd.DataLoc && fd.Size == 16 && fd.End() <= minLen:
		n.fixed = fd.Offset
	case fd.DataLoc && fd.Size == 4 && fd.End() <= minLen:
		n.loc = fd.Offset
	}
	return n
}

// fastLayout returns d's fastLayout; ok is false when a field is not
// where decodeFast reads it.
func (d *SchedDecoder) fastLayout() fastLayout {
	l := fastLayout{ok: !d.order.Big}
	// at is fd's offset, -1 when the format has no such field (!need);
	// 4-byte fields must be signed (IntE sign-extends those).
	at := func(fd *Field, size int, need bool) int {
		switch {
		case fd == nil && !need:
			return -1
		case fd == nil || fd.DataLoc || fd.RelLoc || fd.Size != size || fd.End() > d.minLen || size == 4 && !fd.Signed:
			l.ok = false
			return -1
		}
		return fd.Offset
	}
	switch d.Kind {
	case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindRuntime:
	default:
		l.ok = false
	}
	l.commonPID = at(d.commonPID, 4, false)
	l.pid = at(d.pid, 4, true)
	l.prio = at(d.prio, 4, false)
	l.nextPID, l.nextPrio, l.prevState = -1, -1, -1
	l.targetCPU, l.flags, l.runtime = -1, -1, -1
	switch d.Kind {
	case trace.KindSwitch:
		l.prevState = at(d.prevState, 8, true)
		l.nextPID = at(d.nextPID, 4, true)
		l.nextPrio = at(d.nextPrio, 4, false)
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		l.targetCPU = at(d.targetCPU, 4, false)
		if d.Kind != trace.KindWakeupNew {
			l.flags = at(d.commonFlags, 1, false)
		}
	case trace.KindRuntime:
		l.runtime = at(d.runtime, 8, true)
	}
	if d.comm == nil {
		l.ok = false
	}
	l.comm, l.nextComm = nameFieldOf(d.comm, d.minLen), nameFieldOf(d.nextComm, d.minLen)
	l.std = l.stdLayout(d.Kind)
	return l
}

// le32 reads the signed little-endian 4-byte int at off.
func le32(raw []byte, off int) int32 { return int32(binary.LittleEndian.Uint32(raw[off:])) }

// decodeFast is Decode for a payload of at least minLen bytes whose
// decoder has a fastLayout.
func (d *SchedDecoder) decodeFast(raw []byte, ev *trace.Event) {
	l := &d.fast
	le := binary.LittleEndian
	switch l.std {
	case stdSwitch:
		_ = raw[63] // minLen: every field is in the format's fixed part
		ev.Kind = d.Kind
		ev.CurTID, ev.TID = trace.TID(int32(le.Uint32(raw[4:8]))), trace.TID(int32(le.Uint32(raw[24:28])))
		key := [16]byte(raw[8:24])
		ev.Comm = d.cached(&key, d.comm, raw)
		ev.Prio = int32(le.Uint32(raw[28:32]))
		ev.PrevState = d.State.Decode(le.Uint64(raw[32:40]))
		ev.NextTID = trace.TID(int32(le.Uint32(raw[56:60])))
		key = [16]byte(raw[40:56])
		ev.NextComm = d.cached(&key, d.nextComm, raw)
		ev.NextPrio = int32(le.Uint32(raw[60:64]))
		if ev.TID == 0 {
			ev.PID = 0
		}
		if ev.NextTID == 0 {
			ev.NextPID = 0
		}
		return
	case stdWakeup:
		_ = raw[35]
		ev.Kind = d.Kind
		ev.CurTID, ev.TID = trace.TID(int32(le.Uint32(raw[4:8]))), trace.TID(int32(le.Uint32(raw[24:28])))
		key := [16]byte(raw[8:24])
		ev.Comm = d.cached(&key, d.comm, raw)
		ev.Prio = int32(le.Uint32(raw[28:32]))
		ev.TargetCPU = trace.CPU(int32(le.Uint32(raw[32:36])))
		if d.Kind != trace.KindWakeupNew {
			ev.FromIRQ = trace.No
			if raw[2]&(traceFlagHardIRQ|traceFlagSoftIRQ|traceFlagNMI) != 0 {
				ev.FromIRQ = trace.Yes
			}
		}
		return
	case stdRuntime:
		_ = raw[23]
		ev.Kind = d.Kind
		ev.CurTID, ev.TID = trace.TID(int32(le.Uint32(raw[4:8]))), trace.TID(int32(le.Uint32(raw[12:16])))
		ev.Comm = d.name(&l.comm, raw)
		ev.Runtime = int64(le.Uint64(raw[16:24]))
		return
	}
	ev.Kind = d.Kind
	if l.commonPID >= 0 {
		ev.CurTID = trace.TID(le32(raw, l.commonPID))
	}
	ev.TID = trace.TID(le32(raw, l.pid))
	ev.Comm = d.name(&l.comm, raw)
	if l.prio >= 0 {
		ev.Prio = le32(raw, l.prio)
	}
	switch d.Kind {
	case trace.KindSwitch:
		ev.PrevState = d.State.Decode(binary.LittleEndian.Uint64(raw[l.prevState:]))
		ev.NextTID = trace.TID(le32(raw, l.nextPID))
		ev.NextComm = d.name(&l.nextComm, raw)
		if l.nextPrio >= 0 {
			ev.NextPrio = le32(raw, l.nextPrio)
		}
		if ev.TID == 0 {
			ev.PID = 0
		}
		if ev.NextTID == 0 {
			ev.NextPID = 0
		}
	case trace.KindRuntime:
		ev.Runtime = int64(binary.LittleEndian.Uint64(raw[l.runtime:]))
	default:
		if l.targetCPU >= 0 {
			ev.TargetCPU = trace.CPU(le32(raw, l.targetCPU))
		}
		if l.flags >= 0 {
			if raw[l.flags]&(traceFlagHardIRQ|traceFlagSoftIRQ|traceFlagNMI) != 0 {
				ev.FromIRQ = trace.Yes
			} else {
				ev.FromIRQ = trace.No
			}
		}
	}
}

func (d *SchedDecoder) int(fd *Field, raw []byte) int64 { return fd.IntE(raw, d.order) }

func (d *SchedDecoder) str(fd *Field, raw []byte) string {
	// The key is a name's 16 bytes, whatever their byte order; the name
	// is a function of them (up to the first NUL). A char[16] field (the
	// kernel's TASK_COMM_LEN) is its own key; a __data_loc string of at
	// most 16 bytes (sched_stat_runtime's comm since Linux 6.x) is keyed
	// by its bytes padded with zeros, which end the name where its length
	// does.
	var key [16]byte
	switch {
	case fd.Size == 16 && !fd.DataLoc && !fd.RelLoc && fd.Offset+16 <= len(raw):
		key = [16]byte(raw[fd.Offset : fd.Offset+16])
	case fd.DataLoc && !fd.RelLoc && fd.Size == 4 && fd.Offset+4 <= len(raw):
		loc := d.order.Uint32(raw[fd.Offset:])
		off, n := int(loc&0xffff), int(loc>>16)
		if n > 16 || off+n > len(raw) {
			return d.intern.Intern(fd.BytesE(raw, d.order))
		}
		copy(key[:], raw[off:off+n])
	default:
		return d.intern.Intern(fd.BytesE(raw, d.order))
	}
	return d.cached(&key, fd, raw)
}

// name is str for a field of the fast layout (little-endian), its kind
// and place worked out once (nameField).
func (d *SchedDecoder) name(n *nameField, raw []byte) string {
	var key [16]byte
	switch {
	case n.fixed >= 0:
		key = [16]byte(raw[n.fixed : n.fixed+16])
	case n.loc >= 0:
		loc := binary.LittleEndian.Uint32(raw[n.loc:])
		off, size := int(loc&0xffff), int(loc>>16)
		if size > 16 || off+size > len(raw) {
			return d.intern.Intern(n.fd.BytesE(raw, d.order))
		}
		copy(key[:], raw[off:off+size])
	default:
		return d.str(n.fd, raw)
	}
	return d.cached(&key, n.fd, raw)
}

// cached returns the name of key (see str) from the name cache, decoding
// fd when it is not there. The name met last is checked first: most
// events in a row name the same tasks.
func (d *SchedDecoder) cached(key *[16]byte, fd *Field, raw []byte) string {
	w0, w1 := binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])
	if e := &d.lastName; e.ok && e.w0 == w0 && e.w1 == w1 {
		return e.s
	}
	e := &d.commCache[((w0^w1<<1)*0x9e3779b97f4a7c15)>>56]
	if !e.ok || e.w0 != w0 || e.w1 != w1 {
		*e = commEntry{w0: w0, w1: w1, s: d.intern.Intern(fd.BytesE(raw, d.order)), ok: true}
	}
	d.lastName = *e
	return e.s
}

// Decode fills ev (which the caller has prepared with trace.NewEvent: time,
// CPU and kind) from the payload raw. It sets CurTID from common_pid when the
// format has it; callers with better knowledge (perf's sample tid) overwrite
// it. Task names are interned, so Decode does not allocate once every name
// has been seen. A payload shorter than the format gives ErrShortPayload.
func (d *SchedDecoder) Decode(raw []byte, ev *trace.Event) error {
	if len(raw) < d.minLen {
		return fmt.Errorf("%s: %d bytes, format needs %d: %w", d.Format.FullName(), len(raw), d.minLen, ErrShortPayload)
	}
	if d.fast.ok {
		d.decodeFast(raw, ev)
		return d.checkRanges(ev)
	}
	ev.Kind = d.Kind
	if d.commonPID != nil {
		ev.CurTID = trace.TID(d.int(d.commonPID, raw))
	}
	ev.TID = trace.TID(d.int(d.pid, raw))
	if d.comm != nil {
		ev.Comm = d.str(d.comm, raw)
	}
	if d.prio != nil {
		ev.Prio = int32(d.int(d.prio, raw))
	}
	switch d.Kind {
	case trace.KindSwitch:
		ev.PrevState = d.State.Decode(d.prevState.UintE(raw, d.order))
		ev.NextTID = trace.TID(d.int(d.nextPID, raw))
		ev.NextComm = d.str(d.nextComm, raw)
		if d.nextPrio != nil {
			ev.NextPrio = int32(d.int(d.nextPrio, raw))
		}
		if ev.TID == 0 {
			ev.PID = 0
		}
		if ev.NextTID == 0 {
			ev.NextPID = 0
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		if d.targetCPU != nil {
			ev.TargetCPU = trace.CPU(d.int(d.targetCPU, raw))
		}
		if d.commonFlags != nil && d.Kind != trace.KindWakeupNew {
			if d.int(d.commonFlags, raw)&(traceFlagHardIRQ|traceFlagSoftIRQ|traceFlagNMI) != 0 {
				ev.FromIRQ = trace.Yes
			} else {
				ev.FromIRQ = trace.No
			}
		}
	case trace.KindMigrate:
		ev.OrigCPU = trace.CPU(d.int(d.origCPU, raw))
		ev.DestCPU = trace.CPU(d.int(d.destCPU, raw))
	case trace.KindFork:
		ev.ChildTID = trace.TID(d.int(d.childPID, raw))
		ev.ChildComm = d.str(d.childComm, raw)
	case trace.KindExec:
		// The kernel names the task after the file's basename (fs/exec.c
		// __set_task_comm(..., kbasename(filename)), truncated to
		// TASK_COMM_LEN-1 = 15 bytes).
		fn := d.filename.BytesE(raw, d.order)
		base := []byte(path.Base(string(fn)))
		if len(base) > 15 {
			base = base[:15]
		}
		ev.Comm = d.intern.Intern(base)
	case trace.KindRuntime:
		ev.Runtime = d.int(d.runtime, raw)
	}
	return d.checkRanges(ev)
}
