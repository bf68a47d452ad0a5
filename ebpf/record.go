package ebpf

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math/bits"

	"github.com/traceview/traceview/trace"
)

// Sizes in bytes of the records sched.c writes with bpf_perf_event_output
// (perf stores each in 8 bytes more, rounded up to 8): an event (struct
// record), an event with two more words (struct record_ext: a switch with
// stacks, a classic sched_wakeup with its waker) and a task record (struct
// task_record). Before these, every event was one 112-byte record that
// repeated both tasks' names, PIDs and priorities and the cgroup (128 bytes
// in perf's buffer, against 40 now).
const (
	RecordSize     = 28
	RecordExtSize  = 36
	TaskRecordSize = 56
)

// Offsets of the fields of the records (sched.c) that decode reads;
// TestRecordLayout checks each against the object's BTF, so the C structs
// are the one source.
const (
	// struct hdr, the start of every record
	offTs     = 0
	offKind   = 8
	offFlags  = 9
	offCPU    = 10
	offCurTID = 12
	// struct record
	offTID  = 16
	offArg1 = 20
	offArg2 = 24
	// struct record_ext
	offExt1 = 28
	offExt2 = 32
	// struct task_record
	offTaskTID    = 16
	offTaskPID    = 20
	offTaskPrio   = 24
	offTaskPolicy = 28
	offTaskComm   = 32
	offTaskCgroup = 48
	commLen       = 16
)

// kindTask is sched.c's TV_TASK: a task record, not an event.
const kindTask = 64

// Record kinds are trace.Kind values (sched.c's TV_* enum).

// Record flags (sched.c's TV_F_* enum).
const (
	flagPreempt  = 1
	flagIRQKnown = 2
	flagIRQ      = 4
	flagWaker    = 8
	flagPID      = 16 // task records: the PID is known
	flagCgroup   = 32 // task records: the cgroup is known
	flagPolicy   = 64 // task records: the policy is known (captures since 2026-12-05)
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

// taskInfo is what a CPU's task records last said of a task.
type taskInfo struct {
	pid    trace.PID
	prio   int32
	comm   string
	cgroup uint64
	policy trace.SchedPolicy
}

var unknownTask = taskInfo{pid: -1, prio: -1}

// decoder turns records into events: it keeps, per CPU, the last task
// record of each TID (sched.c's note writes one before a CPU's event
// names a task whose name, PID, priority or cgroup that CPU's records have
// not said yet), interns comms and, with --stacks, numbers the (kernel,
// user) stack id pairs of switch records. Records must come in each CPU's
// buffer order.
type decoder struct {
	classic bool // records come from classic tracepoints (prev_state already reported)
	stacks  bool // switch records carry stack ids (record_ext)
	comms   map[string]string
	tasks   []map[trace.TID]taskInfo // by CPU
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

func newDecoder(classic, stacks bool) *decoder {
	return &decoder{classic: classic, stacks: stacks, comms: map[string]string{}}
}

// cloneTasks returns a decoder with d's options and a copy of its task
// tables (not its stacks): one that goes on from where d is in every
// CPU's records.
func (d *decoder) cloneTasks() *decoder {
	c := newDecoder(d.classic, d.stacks)
	c.tasks = make([]map[trace.TID]taskInfo, len(d.tasks))
	for i, m := range d.tasks {
		if m != nil {
			c.tasks[i] = maps.Clone(m)
		}
	}
	return c
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

// size returns the size of the record that starts with b (its kind at
// offKind), 0 when b is too short to tell.
func (d *decoder) size(b []byte) int {
	if len(b) <= offKind {
		return 0
	}
	switch trace.Kind(b[offKind]) {
	case kindTask:
		return TaskRecordSize
	case trace.KindSwitch:
		if d.stacks {
			return RecordExtSize
		}
	case trace.KindWakeup:
		if d.classic {
			return RecordExtSize
		}
	}
	return RecordSize
}

// next returns the size of the first record of recs and its timestamp,
// 0 when recs holds no whole record.
func (d *decoder) next(recs []byte) (n int, ts int64) {
	n = d.size(recs)
	if n == 0 || n > len(recs) {
		return 0, 0
	}
	return n, int64(binary.LittleEndian.Uint64(recs[offTs:]))
}

// info is what CPU cpu's records said last of task tid.
func (d *decoder) info(cpu int, tid trace.TID) taskInfo {
	if cpu < len(d.tasks) {
		if t, ok := d.tasks[cpu][tid]; ok {
			return t
		}
	}
	return unknownTask
}

// apply takes a task record (TaskRecordSize bytes). Fields it does not
// know (flagPID, flagCgroup, flagPolicy unset) keep what the CPU's records
// said before.
func (d *decoder) apply(b []byte) {
	le := binary.LittleEndian
	cpu := int(le.Uint16(b[offCPU:]))
	if cpu >= len(d.tasks) {
		d.tasks = append(d.tasks, make([]map[trace.TID]taskInfo, cpu+1-len(d.tasks))...)
	}
	m := d.tasks[cpu]
	if m == nil {
		m = map[trace.TID]taskInfo{}
		d.tasks[cpu] = m
	}
	tid := trace.TID(i32(b[offTaskTID:]))
	t, ok := m[tid]
	if !ok {
		t = unknownTask
	}
	flags := b[offFlags]
	if flags&flagPID != 0 {
		t.pid = trace.PID(i32(b[offTaskPID:]))
	}
	if flags&flagCgroup != 0 {
		t.cgroup = le.Uint64(b[offTaskCgroup:])
	}
	if flags&flagPolicy != 0 {
		t.policy = trace.PolicyOf(le.Uint32(b[offTaskPolicy:]))
	}
	t.prio = i32(b[offTaskPrio:])
	t.comm = d.comm(b[offTaskComm : offTaskComm+commLen])
	m[tid] = t
}

// decode converts one record (of d.size bytes, little-endian) into an
// event. ok is false for a task record (which it applies), a record of an
// unknown kind or one too short.
func (d *decoder) decode(b []byte) (e trace.Event, ok bool) {
	n := d.size(b)
	if n == 0 || len(b) < n {
		return e, false
	}
	le := binary.LittleEndian
	kind := trace.Kind(b[offKind])
	if kind == kindTask {
		d.apply(b)
		return e, false
	}
	flags := b[offFlags]
	cpu := int(le.Uint16(b[offCPU:]))
	e = trace.NewEvent(int64(le.Uint64(b[offTs:])), trace.CPU(cpu), kind)
	e.CurTID = trace.TID(i32(b[offCurTID:]))
	e.CurPID = d.info(cpu, e.CurTID).pid
	e.TID = trace.TID(i32(b[offTID:]))
	s := d.info(cpu, e.TID)
	e.PID, e.Comm, e.Policy = s.pid, s.comm, s.policy
	arg1, arg2 := le.Uint32(b[offArg1:]), le.Uint32(b[offArg2:])
	switch kind {
	case trace.KindSwitch:
		e.Prio = s.prio
		if d.classic {
			e.PrevState = trace.TaskState(arg2)
		} else {
			e.PrevState = ReportedState(flags&flagPreempt != 0, arg2, 0)
		}
		e.NextTID = trace.TID(int32(arg1))
		next := d.info(cpu, e.NextTID)
		e.NextPID, e.NextPrio, e.NextComm, e.NextPolicy = next.pid, next.prio, next.comm, next.policy
		e.Cgroup = s.cgroup
		if d.stacks {
			e.Stack = d.stack(i32(b[offExt1:]), i32(b[offExt2:]))
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		e.Prio = s.prio
		e.TargetCPU = trace.CPU(arg1)
		if flags&flagWaker != 0 {
			e.WakerTID, e.WakerCPU = e.CurTID, trace.CPU(arg2)
			if n == RecordExtSize {
				e.WakerTID = trace.TID(i32(b[offExt1:]))
			}
		}
		if kind != trace.KindWakeupNew && flags&flagIRQKnown != 0 {
			e.FromIRQ = trace.No
			if flags&flagIRQ != 0 {
				e.FromIRQ = trace.Yes
			}
		}
	case trace.KindMigrate:
		e.Prio = s.prio
		e.OrigCPU, e.DestCPU = trace.CPU(arg1), trace.CPU(arg2)
	case trace.KindFork:
		e.ChildTID = trace.TID(int32(arg1))
		child := d.info(cpu, e.ChildTID)
		e.ChildPID, e.ChildComm = trace.PID(int32(arg2)), child.comm
		if e.ChildPID < 0 {
			e.ChildPID = child.pid
		}
	case trace.KindRuntime:
		e.Runtime = int64(uint64(arg1) | uint64(arg2)<<32)
	case trace.KindExec, trace.KindComm:
	case trace.KindExit:
		e.Prio = s.prio
	default:
		return e, false
	}
	return e, true
}
