package ebpf

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/traceview/traceview/trace"
)

// RecordSize is the size in bytes of one record (struct record in sched.c)
// as bpf_perf_event_output writes it.
const RecordSize = 96

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

// decoder turns records into events, interning comms.
type decoder struct {
	classic bool // records come from classic tracepoints (prev_state already reported)
	comms   map[string]string
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
	kind := trace.Kind(b[12])
	flags := b[13]
	e = trace.NewEvent(int64(le.Uint64(b[0:])), trace.CPU(le.Uint32(b[8:])), kind)
	e.CurTID, e.CurPID = trace.TID(i32(b[16:])), trace.PID(i32(b[20:]))
	e.TID, e.PID, e.Comm = trace.TID(i32(b[24:])), trace.PID(i32(b[28:])), d.comm(b[64:80])
	prio := i32(b[32:])
	tid2, pid2, prio2 := trace.TID(i32(b[36:])), trace.PID(i32(b[40:])), i32(b[44:])
	arg1, arg2 := le.Uint32(b[48:]), le.Uint32(b[52:])
	waker := trace.TID(i32(b[56:]))
	switch kind {
	case trace.KindSwitch:
		e.Prio = prio
		if d.classic {
			e.PrevState = trace.TaskState(arg1)
		} else {
			e.PrevState = ReportedState(flags&flagPreempt != 0, arg1, arg2)
		}
		e.NextTID, e.NextPID, e.NextPrio, e.NextComm = tid2, pid2, prio2, d.comm(b[80:96])
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
		e.ChildTID, e.ChildPID, e.ChildComm = tid2, pid2, d.comm(b[80:96])
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
