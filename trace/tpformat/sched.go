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

	// commCache maps the raw 16 bytes of a char[16] comm field (the
	// kernel's TASK_COMM_LEN) to its interned name, so that a name seen
	// before costs two loads and two compares instead of a NUL scan and a
	// hash (task names repeat in nearly every event).
	commCache [256]commEntry
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
	return d, nil
}

func (d *SchedDecoder) int(fd *Field, raw []byte) int64 { return fd.IntE(raw, d.order) }

func (d *SchedDecoder) str(fd *Field, raw []byte) string {
	if fd.Size != 16 || fd.DataLoc || fd.RelLoc || fd.Offset+16 > len(raw) {
		return d.intern.Intern(fd.BytesE(raw, d.order))
	}
	// The key is the field's bytes, whatever their byte order; the name
	// is a function of them (up to the first NUL).
	b := raw[fd.Offset : fd.Offset+16]
	w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	e := &d.commCache[((w0^w1<<1)*0x9e3779b97f4a7c15)>>56]
	if e.ok && e.w0 == w0 && e.w1 == w1 {
		return e.s
	}
	s := d.intern.Intern(fd.BytesE(raw, d.order))
	*e = commEntry{w0: w0, w1: w1, s: s, ok: true}
	return s
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
	return nil
}
