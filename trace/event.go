package trace

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// TID is a kernel thread id (the "pid" of a task in kernel terms). 0 is the
// idle task of each CPU ("swapper/N"); -1 means unknown.
type TID int32

// PID is a process id (the kernel's tgid: the TID of the thread-group
// leader). -1 means unknown.
type PID int32

// CPU is a logical CPU number as the kernel numbers it; -1 means unknown.
type CPU int32

// Kind says what an Event records. The table Kinds describes each kind.
type Kind uint8

// The event kinds. Each maps onto one kernel tracepoint of
// include/trace/events/sched.h (or the perf record type that carries the same
// fact); the fields each kind sets are listed in Kinds.
const (
	KindInvalid   Kind = iota
	KindSwitch         // sched_switch: Task (prev) leaves the CPU, Next enters it
	KindWaking         // sched_waking: Task is being woken (on the waker's CPU)
	KindWakeup         // sched_wakeup: Task was put on TargetCPU's runqueue
	KindWakeupNew      // sched_wakeup_new: a newly forked Task is first put on a runqueue
	KindMigrate        // sched_migrate_task: Task moves from OrigCPU to DestCPU
	KindFork           // sched_process_fork or PERF_RECORD_FORK: Task (parent) forked Child
	KindExec           // sched_process_exec or PERF_RECORD_COMM with the exec flag: Task now runs Comm
	KindExit           // sched_process_exit or PERF_RECORD_EXIT: Task exited; its TID may be reused
	KindComm           // PERF_RECORD_COMM (prctl/synthesized at record start): Task is named Comm
	KindRuntime        // sched_stat_runtime: Task ran Runtime ns since the last such event
	KindLost           // lost records: Count events were lost on CPU (Time: when the loss was noticed)
	// KindCgroupMove: Task, running on CPU, moved to another task group
	// Runtime ns before Time; the part of its run before the move was in
	// group Cgroup (the one it left). A running task moves without a
	// sched_switch (cgroup_attach_task; sched_move_task puts it back on
	// the CPU), so its run spans the move, and the sched_switch that ends
	// it names the new group: traceview record writes one of these right
	// before that sched_switch, at its time, for each move it saw within
	// the run (see ebpf's cgroup_attach_task program), so that a report
	// can split the run.
	KindCgroupMove
	numKinds
)

// Scheduler reports whether k is a scheduler event (sched_switch,
// sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_stat_runtime): the kinds every reader takes from the scheduler's
// tracepoints alone, so that their count is the same whichever events a
// command asks a reader for (a perf-compatible report takes forks, execs
// and exits from perf's task records, which a perf record -C file holds
// for every CPU, UseTaskRecords). The no-match message counts them.
func (k Kind) Scheduler() bool {
	switch k {
	case KindSwitch, KindWaking, KindWakeup, KindWakeupNew, KindMigrate, KindRuntime:
		return true
	}
	return false
}

// Counted reports whether e is one of the trace's events where a command
// says how many a trace has (info's "events by kind", the no-match
// message, stats): not a lost-events marker (the loss is reported as lost
// events and windows), and not a task record perf synthesized at time 0
// for a thread already running when it started (perf's
// synthesize_threads: PERF_RECORD_COMM and PERF_RECORD_FORK with no
// sample time), which a reader delivers only where the file has no
// tracepoint for the fact or a perf-compatible report asks for the task
// records (UseTaskRecords): counting them made one file's count differ
// between commands. info lists those records apart.
func Counted(e *Event) bool {
	return e.Kind != KindLost && !Synthesized(e)
}

// Synthesized reports whether e is a task record perf synthesized at time
// 0 for a thread that existed before the recording (see Counted).
func Synthesized(e *Event) bool {
	return e.Time == 0 && (e.Kind == KindComm || e.Kind == KindFork || e.Kind == KindExec || e.Kind == KindExit)
}

// KindInfo describes one event kind: its name as in the kernel tracepoint (or
// perf record) and which Event fields it sets. Decoders, text dumps, JSON
// export and tests read this table instead of repeating it.
type KindInfo struct {
	Kind   Kind
	Name   string   // tracepoint name without the "sched:" system, e.g. "sched_switch"
	Fields []string // Event fields the kind sets beyond Time, CPU, CurTID and CurPID
}

// Kinds lists every valid kind in Kind order (index 0 is KindInvalid).
var Kinds = [numKinds]KindInfo{
	{KindInvalid, "invalid", nil},
	{KindSwitch, "sched_switch", []string{"TID", "PID", "Comm", "Prio", "PrevState", "NextTID", "NextPID", "NextComm", "NextPrio", "Cgroup", "Stack"}},
	{KindWaking, "sched_waking", []string{"TID", "PID", "Comm", "Prio", "TargetCPU", "WakerTID", "WakerCPU", "FromIRQ"}},
	{KindWakeup, "sched_wakeup", []string{"TID", "PID", "Comm", "Prio", "TargetCPU", "WakerTID", "WakerCPU", "FromIRQ"}},
	{KindWakeupNew, "sched_wakeup_new", []string{"TID", "PID", "Comm", "Prio", "TargetCPU", "WakerTID", "WakerCPU"}},
	{KindMigrate, "sched_migrate_task", []string{"TID", "PID", "Comm", "Prio", "OrigCPU", "DestCPU"}},
	{KindFork, "sched_process_fork", []string{"TID", "PID", "Comm", "ChildTID", "ChildPID", "ChildComm"}},
	{KindExec, "sched_process_exec", []string{"TID", "PID", "Comm"}},
	{KindExit, "sched_process_exit", []string{"TID", "PID", "Comm", "Prio"}},
	{KindComm, "comm", []string{"TID", "PID", "Comm"}},
	{KindRuntime, "sched_stat_runtime", []string{"TID", "PID", "Comm", "Runtime"}},
	{KindLost, "lost", []string{"Count"}},
	{KindCgroupMove, "cgroup_attach_task", []string{"TID", "PID", "Comm", "Runtime", "Cgroup"}},
}

// String returns the kind's tracepoint name ("sched_switch", ...).
func (k Kind) String() string {
	if int(k) < len(Kinds) {
		return Kinds[k].Name
	}
	return fmt.Sprintf("kind(%d)", k)
}

// KindByName returns the kind whose tracepoint name is name, with or without
// the "sched:" prefix.
func KindByName(name string) (Kind, bool) {
	name = strings.TrimPrefix(name, "sched:")
	for _, ki := range Kinds[1:] {
		if ki.Name == name {
			return ki.Kind, true
		}
	}
	return KindInvalid, false
}

// Tristate is a yes/no fact that a trace source may not know.
type Tristate int8

// Tristate values.
const (
	Unknown Tristate = 0
	No      Tristate = -1
	Yes     Tristate = 1
)

// SchedPolicy is a task's scheduling policy as sched_setscheduler(2) set
// it, when the trace source records it: traceview record's eBPF captures do
// (task_struct.policy, since 2026-12-05); sched_switch's payload, and so
// perf.data and trace.dat, does not (it shows SCHED_BATCH and SCHED_IDLE
// tasks at prio 120 like SCHED_NORMAL ones). The zero value is unknown.
type SchedPolicy uint8

// SchedPolicy values: the kernel's SCHED_* number + 1
// (include/uapi/linux/sched.h: NORMAL 0, FIFO 1, RR 2, BATCH 3, IDLE 5,
// DEADLINE 6; 4 is reserved for SCHED_ISO).
const (
	PolicyUnknown  SchedPolicy = 0
	PolicyNormal   SchedPolicy = 1
	PolicyFIFO     SchedPolicy = 2
	PolicyRR       SchedPolicy = 3
	PolicyBatch    SchedPolicy = 4
	PolicyIdle     SchedPolicy = 6
	PolicyDeadline SchedPolicy = 7
)

// PolicyOf converts the kernel's SCHED_* number (task_struct.policy) to a
// SchedPolicy; a number the kernel does not define is PolicyUnknown.
func PolicyOf(kernel uint32) SchedPolicy {
	switch kernel {
	case 0, 1, 2, 3, 5, 6:
		return SchedPolicy(kernel + 1)
	}
	return PolicyUnknown
}

// String returns the policy's name as chrt(1) prints it ("other" for
// SCHED_NORMAL), "" when unknown.
func (p SchedPolicy) String() string {
	switch p {
	case PolicyNormal:
		return "other"
	case PolicyFIFO:
		return "fifo"
	case PolicyRR:
		return "rr"
	case PolicyBatch:
		return "batch"
	case PolicyIdle:
		return "idle"
	case PolicyDeadline:
		return "deadline"
	}
	return ""
}

// Event is one scheduler event. Times are int64 nanoseconds on the trace's
// own clock (perf's sample time: CLOCK_MONOTONIC-based local_clock on Linux).
// Which fields are meaningful depends on Kind (see Kinds); unknown TIDs,
// PIDs and CPUs are -1, unknown strings empty.
//
// The subject of every kind is Task (TID, PID, Comm, Prio): for a
// sched_switch it is the previous task (leaving the CPU), for a fork the
// parent. Comm strings are interned by readers, so copying events does not
// allocate.
type Event struct {
	Time int64 // ns
	CPU  CPU   // the CPU that recorded the event
	Kind Kind
	// CurGone says which of the recorder's own ids of the current task
	// were -1: the kernel reports -1 for a task already released by
	// exit (perf_event_pid_type() in kernel/events/core.c, Linux 6.x: "avoid
	// -1 if it is idle thread or runs in another ns"), perf.data's sample
	// pid/tid. CurTID and CurPID then hold the payload's task (common_pid)
	// and its known process; perf's own reports see -1.
	CurGone GoneIDs

	// CurTID/CurPID: the task that was current on CPU when the event was
	// recorded (perf's sample pid/tid, ftrace's "comm-pid" column). For a
	// wakeup emitted from a running task this is the waker; 0 means the idle
	// task (the wakeup came from an interrupt on an idle CPU).
	CurTID TID
	CurPID PID

	TID  TID
	PID  PID
	Comm string
	Prio int32 // kernel prio: 0..99 real-time, 100..139 fair (120 = nice 0); -1 unknown or SCHED_DEADLINE (SwitchDeadline)

	// sched_switch: the state prev left in, and the next task.
	PrevState TaskState
	NextTID   TID
	NextPID   PID
	NextComm  string
	NextPrio  int32

	// Wakeups: the CPU whose runqueue receives the task, the waker and the
	// CPU it ran on when the source records them (our eBPF capture: the
	// task current at sched_waking, which for a sched_wakeup emitted later
	// from another CPU's wake list differs from CurTID), and whether the
	// wakeup ran in interrupt context.
	TargetCPU CPU
	WakerTID  TID
	WakerCPU  CPU
	FromIRQ   Tristate

	// The scheduling policy of the event's task (TID; sched_switch: prev)
	// and of sched_switch's next task, where the source records it
	// (SchedPolicy); PolicyUnknown otherwise.
	Policy, NextPolicy SchedPolicy

	// sched_migrate_task.
	OrigCPU CPU
	DestCPU CPU

	// Fork: the new task.
	ChildTID  TID
	ChildPID  PID
	ChildComm string

	// sched_stat_runtime: CPU time in ns charged since the previous one.
	// KindLost: when > 0, the CPU is unobserved from Time for Runtime ns,
	// a loss known ahead (a perf.data cut in the round perf was writing:
	// the CPU's buffer ends there), where a lost-records event notices a
	// loss after it. OpenLoss marks a recorder's note that a loss began
	// at Time (see OpenLoss).
	Runtime int64

	// KindLost: number of records lost.
	Count uint64

	// KindSwitch: the cgroup (v2) id of the task leaving the CPU (the
	// kernfs node id of its cgroup directory, which is the inode number
	// of that directory under /sys/fs/cgroup: kernel/cgroup/cgroup.c,
	// cgroup_id(), Linux 6.x); 0 unknown. Meta.Cgroups resolves ids to
	// paths. With the cpu controller on a cgroup v1 hierarchy, traceview
	// record gives a task in a non-root v1 cpu group that group's id
	// instead, with bit 63 set (ebpf.V1CgroupIDBit).
	Cgroup uint64
	// KindSwitch: the callchain of the task leaving the CPU, as an index
	// into Meta.Stacks; 0 none.
	Stack StackID
}

// GoneIDs is a set of ids a recorder reported as -1 (Event.CurGone).
type GoneIDs uint8

// The ids of GoneIDs.
const (
	GoneTID GoneIDs = 1 << iota // the sample's tid was -1
	GonePID                     // the sample's pid (tgid) was -1
)

// StackID names a callchain of a trace's stack table (Meta.Stacks); 0
// means no stack.
type StackID uint32

// Frame is one frame of a callchain. Addr is the instruction address (a
// return address for every frame but the leaf); Func the symbol it falls
// in, empty when unknown; Module the object that holds it:
// "[kernel.kallsyms]" for the kernel (perf's name), else the path of the
// ELF file mapped in the task; BuildID the hex GNU build-id of Module when
// symbols were missing (so the address can be symbolized later), else
// empty.
type Frame struct {
	Addr    uint64 `json:"addr"`
	Func    string `json:"func,omitempty"`
	Module  string `json:"module,omitempty"`
	BuildID string `json:"build_id,omitempty"`
	Kernel  bool   `json:"kernel,omitempty"`
}

// Stack is one callchain of the stack table, leaf (innermost) frame first,
// as perf's callchains and pprof's Sample.Location are ordered: kernel
// frames, then user frames.
type Stack struct {
	ID     StackID `json:"id"`
	Frames []Frame `json:"frames"`
}

// NewEvent returns an Event of kind k at time t on cpu with every id field
// set to -1 (unknown) and Prio -1, ready for a reader to fill.
func NewEvent(t int64, cpu CPU, k Kind) Event {
	return Event{
		Time: t, CPU: cpu, Kind: k,
		CurTID: -1, CurPID: -1, TID: -1, PID: -1, Prio: -1,
		NextTID: -1, NextPID: -1, NextPrio: -1,
		TargetCPU: -1, WakerTID: -1, WakerCPU: -1, OrigCPU: -1, DestCPU: -1,
		ChildTID: -1, ChildPID: -1,
	}
}

// Reset sets *e to NewEvent(t, cpu, k) in place, for readers that decode
// into memory of their own. It copies a blank event and then sets the
// three fields: `*e = NewEvent(...)` builds the event on the stack and
// copies it with 16-byte loads of what was just stored there in 8-, 4- and
// 1-byte pieces, a stalled store forward each time (a third of the perf.data
// reader's sample decoding on the bench file of docs/latency.md).
func (e *Event) Reset(t int64, cpu CPU, k Kind) {
	*e = blankEvent
	e.Time, e.CPU, e.Kind = t, cpu, k
}

// blankEvent is NewEvent(0, 0, KindInvalid), the template of Reset.
var blankEvent = NewEvent(0, 0, KindInvalid)

// String renders the event on one line, in the spirit of `perf script`
// (times in seconds with 9 decimals), for debugging and error messages.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%03d] %s:", FormatSeconds(e.Time, 9), e.CPU, e.Kind)
	switch e.Kind {
	case KindSwitch:
		fmt.Fprintf(&b, " %s:%d [%d] %s ==> %s:%d [%d]", e.Comm, e.TID, e.Prio, e.PrevState, e.NextComm, e.NextTID, e.NextPrio)
	case KindWaking, KindWakeup, KindWakeupNew:
		fmt.Fprintf(&b, " %s:%d [%d] CPU:%03d", e.Comm, e.TID, e.Prio, e.TargetCPU)
		if e.WakerTID >= 0 {
			fmt.Fprintf(&b, " waker=%d", e.WakerTID)
		}
	case KindMigrate:
		fmt.Fprintf(&b, " %s:%d [%d] %d => %d", e.Comm, e.TID, e.Prio, e.OrigCPU, e.DestCPU)
	case KindFork:
		fmt.Fprintf(&b, " %s:%d => %s:%d", e.Comm, e.TID, e.ChildComm, e.ChildTID)
	case KindRuntime:
		fmt.Fprintf(&b, " %s:%d runtime=%d [ns]", e.Comm, e.TID, e.Runtime)
	case KindLost:
		fmt.Fprintf(&b, " %d lost", e.Count)
	case KindCgroupMove:
		fmt.Fprintf(&b, " %s:%d moved %d ns ago, from cgroup %d", e.Comm, e.TID, e.Runtime, e.Cgroup)
	default:
		fmt.Fprintf(&b, " %s:%d", e.Comm, e.TID)
	}
	return b.String()
}

// SwitchDeadline reports which tasks of e, a sched_switch, it shows
// under SCHED_DEADLINE: the tracepoint gives a deadline task prio -1
// (__task_prio, kernel/sched/core.c v6.x: MAX_DL_PRIO - 1), which is
// also the readers' "unknown" (Event.Prio), so a -1 counts only when the
// same event gives the other task a known prio (>= 0: the format carries
// prios). prev is the switched-out task (TID), next the switched-in one
// (NextTID); at most one is true. Not a sched_switch: both false.
func (e *Event) SwitchDeadline() (prev, next bool) {
	if e.Kind != KindSwitch {
		return false, false
	}
	return e.Prio == -1 && e.NextPrio >= 0, e.NextPrio == -1 && e.Prio >= 0
}

// MaxPreTraceRun bounds the run time a task can have had on its CPU before
// a trace began, as its first sched_stat_runtime may report it: 1 s, over
// 200 ticks at 250 Hz. The kernel charges a running fair task at every tick
// (task_tick_fair -> entity_tick -> update_curr, kernel/sched/fair.c
// v6.12), so a real one is a tick or less.
const MaxPreTraceRun = int64(1e9)

// RuntimeDamaged reports whether sched_stat_runtime e reports a run time
// no trace can hold: negative, or more than the time from first (ns, the
// trace's first event) to e plus MaxPreTraceRun. A flipped bit in a
// perf.data sample made one task's run time 6.5e12 ms in a 3 s trace
// (new-user pass 25 F4). A run time the switches contradict by less is not
// caught: sched_stat_runtime may exceed the time since the task's
// switch-in (by up to 2.1 ms in the shared srv.2cpu trace, measured), so no
// tighter bound holds.
func RuntimeDamaged(e *Event, first int64) bool {
	return e.Kind == KindRuntime && (e.Runtime < 0 || e.Runtime > e.Time-min(first, e.Time)+MaxPreTraceRun)
}

// RuntimeDamage says how sched_stat_runtime e, which RuntimeDamaged
// reports, is damaged, for a warning: "reports a negative run time (-1.000
// ms)" or "reports 6531627929.793 s of run time, more than the 3.049 s
// since the trace's first event plus 1 s".
func RuntimeDamage(e *Event, first int64) string {
	if e.Runtime < 0 {
		return fmt.Sprintf("reports a negative run time (%.3f ms)", float64(e.Runtime)/1e6)
	}
	return fmt.Sprintf("reports %.3f s of run time, more than the %.3f s since the trace's first event plus %d s", float64(e.Runtime)/1e9, float64(e.Time-min(first, e.Time))/1e9, MaxPreTraceRun/1e9)
}

// OpenLoss is Event.Runtime of a KindLost that traceview record writes
// when it finds a CPU's buffer full (Count 0): the loss begins at Time,
// after the CPU's last record; its count comes in a later KindLost, at the
// CPU's next record, whose window covers this one. The CPU's next event
// being another, nothing was lost after all. A file that ends before
// either (cut short) has the CPU unobserved from Time to its end. Readers
// of such a file turn these notes into loss windows and deliver no event
// for them (trace/tvf).
const OpenLoss = -1

// IsOpenLoss reports whether e is an overflow note (OpenLoss): a KindLost
// of Count 0 whose Runtime is OpenLoss.
func IsOpenLoss(e *Event) bool {
	return e.Kind == KindLost && e.Runtime == OpenLoss && e.Count == 0
}

// OpenLossWindows closes the overflow notes (OpenLoss) that no later event
// of their CPU settled: open holds each such CPU's note time (ns); each
// becomes a window, of unknown count, from the note to end (ns: the file's
// last event, or its cut), none when end is not later. By CPU.
func OpenLossWindows(open map[CPU]int64, end int64) []LostWindow {
	var ws []LostWindow
	for _, cpu := range slices.Sorted(maps.Keys(open)) {
		if t := open[cpu]; end > t {
			ws = append(ws, LostWindow{CPU: cpu, Start: t, End: end})
		}
	}
	return ws
}

// CPUFieldBeyond returns the name and value of a CPU field of e (a
// wakeup's target_cpu, a migration's orig_cpu or dest_cpu) at or past n
// CPUs, or "" when none is (or n is unknown, 0). The kernel's CPU numbers
// run below nr_cpu_ids, so such a field is damage (new-user pass 101 F3:
// target_cpu=127 in a 2-CPU trace read as written).
func CPUFieldBeyond(e *Event, n int) (string, CPU) {
	if n <= 0 {
		return "", 0
	}
	switch e.Kind {
	case KindWaking, KindWakeup, KindWakeupNew:
		if int(e.TargetCPU) >= n {
			return "target_cpu", e.TargetCPU
		}
	case KindMigrate:
		if int(e.OrigCPU) >= n {
			return "orig_cpu", e.OrigCPU
		}
		if int(e.DestCPU) >= n {
			return "dest_cpu", e.DestCPU
		}
	}
	return "", 0
}
