package ebpf

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/traceview/traceview/trace"
)

// RecordSize is the size in bytes of one record (struct record in sched.c)
// as bpf_perf_event_output writes it.
const RecordSize = 112

// Offsets of the fields of struct record (sched.c) that decode reads;
// TestRecordLayout checks each against the struct bpf2go generated from
// the object's BTF (schedRecord), so the C struct is the one source.
const (
	offTs       = 0
	offCPU      = 8
	offKind     = 12
	offFlags    = 13
	offCurTID   = 16
	offCurPID   = 20
	offTID      = 24
	offPID      = 28
	offPrio     = 32
	offTID2     = 36
	offPID2     = 40
	offPrio2    = 44
	offArg1     = 48
	offArg2     = 52
	offWakerTID = 56
	offKStack   = 60
	offComm     = 64
	offComm2    = 80
	offCgroup   = 96
	offUStack   = 104
	commLen     = 16
)

// Record kinds are trace.Kind values (sched.c's TV_* enum).

// Record flags (sched.c's TV_F_* enum).
const (
	flagPreempt  = 1
	flagIRQKnown = 2
	flagIRQ      = 4
	flagWaker    = 8
)

// Task-state bits of include/linux/sched.h (Linux 6.x) used to turn a raw
// prev_state into the reported one.
const (
	taskReport       = 0x7f   // TASK_REPORT: S D T t X Z P
	taskIdle         = 0x402  // TASK_IDLE = TASK_UNINTERRUPTIBLE | TASK_NOLOAD
	taskReportIdle   = 0x80   // TASK_REPORT_IDLE
	taskRTLockWait   = 0x1000 // TASK_RTLOCK_WAIT
	taskFrozen       = 0x8000 // TASK_FROZEN
	taskUninterrupt  = 0x2    // TASK_UNINTERRUPTIBLE
	taskReportMaxBit = 0x100  // TASK_REPORT_MAX: the preempted marker
)

// ReportedState converts the raw arguments of the sched_switch tp_btf hook
// (preempt, prev_state = prev->__state, prev->exit_state) into the value the
// classic tracepoint reports as prev_state, so that captures read like
// perf's. It follows __trace_sched_switch_state and __task_state_index of
// include/trace/events/sched.h and include/linux/sched.h (Linux 6.18):
// TASK_REPORT_MAX when preempted, else the bit of the highest reportable
// state (fls), TASK_REPORT_IDLE for TASK_IDLE kthreads, uninterruptible for
// RT-lock waiters and frozen tasks, 0 for a runnable task.
func ReportedState(preempt bool, state uint32, exitState uint32) trace.TaskState {
	if preempt {
		return trace.StatePreempted
	}
	s := (state | exitState) & taskReport
	if state&taskIdle == taskIdle {
		s = taskReportIdle
	}
	if state&(taskRTLockWait|taskFrozen) != 0 {
		s = taskUninterrupt
	}
	if s == 0 {
		return trace.StateRunning
	}
	return trace.TaskState(1) << (bits.Len32(s) - 1)
}

// decoder turns records into events, interning comms and, with --stacks,
// the (kernel, user) stack id pairs of switch records.
type decoder struct {
	classic bool // records come from classic tracepoints (prev_state already reported)
	comms   map[string]string
	// stackIDs numbers each (kernel, user) stack id pair of the BPF stack
	// map from 1 (trace.StackID); stackPairs[id-1] is the pair.
	stackIDs   map[[2]int32]trace.StackID
	stackPairs [][2]int32
}

// stack returns the trace.StackID of the BPF stack ids k and u (< 0: none),
// 0 when both are none.
func (d *decoder) stack(k, u int32) trace.StackID {
	if k < 0 && u < 0 {
		return 0
	}
	key := [2]int32{k, u}
	if id, ok := d.stackIDs[key]; ok {
		return id
	}
	if d.stackIDs == nil {
		d.stackIDs = map[[2]int32]trace.StackID{}
	}
	d.stackPairs = append(d.stackPairs, key)
	id := trace.StackID(len(d.stackPairs))
	d.stackIDs[key] = id
	return id
}

func newDecoder(classic bool) *decoder {
	return &decoder{classic: classic, comms: map[string]string{}}
}

func (d *decoder) comm(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.comms[string(b)]; ok {
		return s
	}
	s := string(b)
	d.comms[s] = s
	return s
}

func i32(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }

// decode converts one record (RecordSize bytes, little-endian) into an
// event. ok is false for a record of an unknown kind or size.
func (d *decoder) decode(b []byte) (e trace.Event, ok bool) {
	if len(b) < RecordSize {
		return e, false
	}
	le := binary.LittleEndian
	kind := trace.Kind(b[offKind])
	flags := b[offFlags]
	e = trace.NewEvent(int64(le.Uint64(b[offTs:])), trace.CPU(le.Uint32(b[offCPU:])), kind)
	e.CurTID, e.CurPID = trace.TID(i32(b[offCurTID:])), trace.PID(i32(b[offCurPID:]))
	e.TID, e.PID, e.Comm = trace.TID(i32(b[offTID:])), trace.PID(i32(b[offPID:])), d.comm(b[offComm:offComm+commLen])
	prio := i32(b[offPrio:])
	tid2, pid2, prio2 := trace.TID(i32(b[offTID2:])), trace.PID(i32(b[offPID2:])), i32(b[offPrio2:])
	arg1, arg2 := le.Uint32(b[offArg1:]), le.Uint32(b[offArg2:])
	waker := trace.TID(i32(b[offWakerTID:]))
	switch kind {
	case trace.KindSwitch:
		e.Prio = prio
		if d.classic {
			e.PrevState = trace.TaskState(arg1)
		} else {
			e.PrevState = ReportedState(flags&flagPreempt != 0, arg1, arg2)
		}
		e.NextTID, e.NextPID, e.NextPrio, e.NextComm = tid2, pid2, prio2, d.comm(b[offComm2:offComm2+commLen])
		e.Cgroup = le.Uint64(b[offCgroup:])
		e.Stack = d.stack(i32(b[offKStack:]), i32(b[offUStack:]))
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		e.Prio = prio
		e.TargetCPU = trace.CPU(arg1)
		if flags&flagWaker != 0 {
			e.WakerTID, e.WakerCPU = waker, trace.CPU(arg2)
		}
		if kind != trace.KindWakeupNew && flags&flagIRQKnown != 0 {
			e.FromIRQ = trace.No
			if flags&flagIRQ != 0 {
				e.FromIRQ = trace.Yes
			}
		}
	case trace.KindMigrate:
		e.Prio = prio
		e.OrigCPU, e.DestCPU = trace.CPU(arg1), trace.CPU(arg2)
	case trace.KindFork:
		e.ChildTID, e.ChildPID, e.ChildComm = tid2, pid2, d.comm(b[offComm2:offComm2+commLen])
	case trace.KindRuntime:
		e.Runtime = int64(uint64(arg1) | uint64(arg2)<<32)
	case trace.KindExec, trace.KindComm:
	case trace.KindExit:
		e.Prio = prio
	default:
		return e, false
	}
	return e, true
}
