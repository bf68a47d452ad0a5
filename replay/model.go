package replay

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// CauseKind says what ended a blocking point.
type CauseKind uint8

// Causes of a wakeup.
const (
	CauseNever      CauseKind = iota // not woken before the trace ended
	CauseDependency                  // woken by another task at a point of its burst
	CauseTimer                       // woken Delay ns after blocking (timer, or interrupt modelled as one)
	CauseExternal                    // woken at absolute time At, whatever the schedule
)

// String returns "never", "dependency", "timer" or "external".
func (c CauseKind) String() string {
	return [...]string{"never", "dependency", "timer", "external"}[c]
}

// EndKind says how a burst ends.
type EndKind uint8

// Burst ends.
const (
	EndBlock EndKind = iota // the task blocks; Burst.Wake says what wakes it
	EndExit                 // the task exits
	EndTrace                // the trace ended while the task was runnable or running
)

// Cause is what ends a blocking point. (Its fields are ordered so that it
// takes 24 bytes: there is one in every Burst.)
type Cause struct {
	Delay int64 // ns after blocking (CauseTimer)
	At    int64 // ns, absolute trace time (CauseExternal; for CauseTimer and CauseDependency the recorded wake time)
	Waker int32 // task index in Model.Tasks (CauseDependency)
	Kind  CauseKind
	// Inferred is true when the cause was guessed, not recorded: perf's
	// waker is only the task current on the waking CPU, and a wakeup from
	// idle may be a timer or a device.
	Inferred bool
	// ByAt marks a CauseDependency that also ends at At if Waker has not
	// ended it by then: an absolute-timer task's wakeup the trace gives to
	// another task without showing it (timerLikeWakeups).
	ByAt bool
	// Throttle marks the CauseExternal block of a SCHED_DEADLINE task
	// switched out runnable (Task.SchedDeadline): no sleep but its
	// runtime used up until the replenishment at At. A replay switches it
	// out runnable and back in with no wakeup, as the kernel does (the
	// replenishment timer enqueues it without try_to_wake_up).
	Throttle bool
}

// ActionKind is what a task does at a point of its burst.
type ActionKind uint8

// Actions.
const (
	ActWake ActionKind = iota // wake Target from the block after its burst Block
	ActFork                   // create Target (a new task)
	// ActYield is a sched_yield of the task itself (Target -1): the
	// policy's yield hook (policies.Yielder), then a new pick on its CPU;
	// the burst goes on when it is picked again (see yieldPoints).
	ActYield
)

// Action is an effect of a task on another at At ns into its burst. (Its
// fields take 24 bytes: a model holds one per wakeup, 469,000 on
// bench/replaymem's 2 M-event file; as ints the indexes made it 32.)
type Action struct {
	At     int64
	Target int32 // task index
	Block  int32 // ActWake: index of the target's burst whose following block this ends
	Kind   ActionKind
	// Remote is true when the recorded wakeup put Target on another CPU
	// than the waker's (ActWake): the waker paid for a cross-CPU wakeup
	// (see Model.RemoteWakeupCost).
	Remote bool
}

// Burst is CPU time a task consumes between blocking points. It holds no
// pointer: its actions and update points are runs of its task's arrays
// (read them with Task.ActionsOf and Task.UpdatesOf, write them with
// Task.AddAction, Task.SetActions and Task.AddUpdates), so a burst takes
// 56 bytes (80 with a slice header and a pointer) and the collector does
// not mark the bursts (474,769 of them, 26.6 MB, on bench/replaymem's 2
// M-event file). A burst's ranges index the arrays of the task that holds
// it: a burst moved to another task must have its actions and updates
// set again there.
type Burst struct {
	Len  int64 // ns of CPU time
	Wake Cause // EndBlock: what ends the block after this burst
	// Observed: ns the task slept after this burst in the trace (EndBlock
	// with a known wake), for reports.
	Slept int64
	// acts are the burst's actions (Task.ActionsOf), sorted by At (0 <=
	// At <= Len).
	acts span
	// upds is 1 + the index in Task.updSpans of the run of Task.upds
	// that holds the burst's update points (0: none; few bursts have
	// any, 3,376 of 474,769 on bench/replaymem's file, so the run itself
	// is not in every burst). They are the offsets in ns of CPU time into
	// the burst (sorted, 0 < u < Len) where the task itself made the kernel account its run
	// time (update_curr; Task.UpdatesOf): a clock_gettime(
	// CLOCK_THREAD_CPUTIME_ID) goes through task_sched_runtime, a syscall
	// that enqueues or dequeues another task does too. EEVDF (and CFS)
	// end a slice at any update_curr, not only at the tick
	// (kernel/sched/fair.c v6.18 update_curr: resched when
	// update_deadline moved the deadline), so a replay lets the policy
	// act there. Extract keeps the mid-run sched_stat_runtime events that
	// are neither the tick's (on the CPU's tick phase, see Model.HZ) nor
	// an enqueue's (right after a wakeup aimed at that CPU) nor the
	// switch-out's own.
	upds int32
	End  EndKind
	// FromIdle is true when the burst's first run began on a CPU that
	// left idle less than idleWarmup before (the first task after idle, or
	// one right after it): see Model.IdleStartCost.
	FromIdle bool
	// WokenBy is true when another task of the trace woke the task for
	// this burst (a CauseDependency wakeup that is not inferred from a
	// preemption); WokenRemote when that waker ran on another CPU than the
	// one the wakeup put the task on (see Model.RemoteWakeeCost).
	WokenBy, WokenRemote bool
}

// span is a run of one of a task's arrays (Task.acts, Task.upds): n
// elements from index off. The zero value is empty.
type span struct{ off, n int32 }

// NumActions returns the number of the burst's actions.
func (b *Burst) NumActions() int { return int(b.acts.n) }

// affects reports whether b, a burst of t, has an effect on another task
// (a wakeup or a fork): its actions other than its own yields.
func (t *Task) affects(b *Burst) bool {
	for _, a := range t.ActionsOf(b) {
		if a.Kind != ActYield {
			return true
		}
	}
	return false
}

// ActionsOf returns the actions of b, a burst of t, sorted by At. The
// slice is capped at their number: appending to it copies, and
// SetActions stores the result. Changing an element changes the model.
func (t *Task) ActionsOf(b *Burst) []Action {
	return t.acts[b.acts.off : b.acts.off+b.acts.n : b.acts.off+b.acts.n]
}

// UpdatesOf returns the update points of b, a burst of t (ns of CPU time
// into it, sorted); the caller must not modify them.
func (t *Task) UpdatesOf(b *Burst) []int64 {
	if b.upds == 0 {
		return nil
	}
	s := t.updSpans[b.upds-1]
	return t.upds[s.off : s.off+s.n : s.off+s.n]
}

// rename makes comm the task's name, keeping the one it had (if any, and
// not already kept) in Earlier.
func (t *Task) rename(comm string) {
	if t.Comm != "" && t.Comm != comm && !slices.Contains(t.Earlier, t.Comm) {
		t.Earlier = append(t.Earlier, t.Comm)
	}
	t.Comm = comm
}

// AddAction appends a to the actions of b, a burst of t (or one that is
// to be). When b's actions are not the last of t's array they are moved
// to its end first (what they leave behind is not reused).
func (t *Task) AddAction(b *Burst, a Action) {
	if b.acts.n == 0 || int(b.acts.off+b.acts.n) != len(t.acts) {
		off := len(t.acts)
		t.acts = append(t.acts, t.ActionsOf(b)...)
		b.acts.off = int32(off)
	}
	t.acts = append(t.acts, a)
	b.acts.n++
}

// SetActions makes acts the actions of b, a burst of t (or one that is to
// be); acts may be a slice of ActionsOf's, filtered or appended to.
func (t *Task) SetActions(b *Burst, acts []Action) {
	if len(acts) <= int(b.acts.n) {
		copy(t.acts[b.acts.off:], acts)
	} else {
		b.acts.off = int32(len(t.acts))
		t.acts = append(t.acts, acts...)
	}
	b.acts.n = int32(len(acts))
}

// AddUpdates appends offs (ns of CPU time into b, after its last update
// point) to the update points of b, a burst of t (or one that is to be).
// As with append on a slice, a copy of b made before keeps the update
// points it had: b's are copied to the end of t's array with offs.
func (t *Task) AddUpdates(b *Burst, offs ...int64) {
	if len(offs) == 0 {
		return
	}
	off := len(t.upds)
	t.upds = append(t.upds, t.UpdatesOf(b)...)
	t.upds = append(t.upds, offs...)
	t.updSpans = append(t.updSpans, span{int32(off), int32(len(t.upds) - off)})
	b.upds = int32(len(t.updSpans))
}

// InitState is a task's state when the model starts.
type InitState uint8

// Initial states.
const (
	InitForked   InitState = iota // created by a fork inside the trace
	InitRunnable                  // runnable or running at the start of the trace
	InitSleeping                  // sleeping at the start; Bursts[0] is empty and its Wake ends that sleep
)

// Rename is a name a task took during the trace, by prctl(PR_SET_NAME) or
// by an exec (Exec), or that the trace shows it took (a tracepoint's comm
// that differs from the task's name after the record that named it: a
// cut file lost the rename): Comm from when the task had run CPU ns of
// its recorded run time on (the sum of its bursts up to the rename). A
// prediction renames the task when its run time there reaches CPU
// (Result.Source: a sched_process_exec for an exec, a comm record
// otherwise).
type Rename struct {
	CPU  int64
	Comm string
	Exec bool
}

// Task is one task identity of the model.
type Task struct {
	TID  trace.TID
	PID  trace.PID
	Comm string
	// Earlier are the names the task had before Comm, in order (prctl or
	// exec renamed it): a name selector matches them too (Selector.Match).
	Earlier []string
	// FirstComm is the name the task had at its first event, when it was
	// renamed during the trace (Renames; "" otherwise), and Renames are
	// those renames in trace order: a prediction names the task FirstComm
	// and then each rename's name from the point of its work where the
	// recording renamed it (new-user pass 34 F5: every event of a
	// prediction carried the last name, so an exec'd task's earlier names
	// were gone from it).
	FirstComm string
	Renames   []Rename
	// Prio is the kernel prio the task is replayed at (0..99 real-time,
	// 100..139 fair, 120 nice 0; -1 unknown): that of most of its recorded
	// switch-ins, else the last an event gave (settlePrio).
	Prio int32
	// PrioChanged is true when its switch-ins showed more than one prio.
	PrioChanged bool
	// SchedDeadline is true for a SCHED_DEADLINE task (prio -1 in its
	// sched_switches: trace.Event.SwitchDeadline; see
	// ModelStats.SchedDeadline). The trace does not
	// carry its runtime, deadline or period: each time it was switched out
	// runnable (throttled, its runtime used) is a block woken when it was
	// switched in again (the replenishment), and it is replayed above the
	// fair class and every real-time task but FIFO 99 (Class).
	SchedDeadline bool
	// Policy is the scheduling policy most of its recorded switch-outs
	// gave it, where the source records policies (traceview record's
	// eBPF captures); trace.PolicyUnknown otherwise (perf.data,
	// trace.dat: sched_switch shows SCHED_BATCH and SCHED_IDLE tasks at
	// prio 120, as SCHED_NORMAL). It tells SCHED_IDLE, SCHED_BATCH and
	// SCHED_RR from what the prio alone would say (Class, Batch).
	Policy trace.SchedPolicy
	Parent int // forking task index, -1
	Init   InitState
	CPU    int   // CPU it was first seen on
	Start  int64 // ns, first appearance (fork time for forked tasks)
	Last   int64 // ns, last event that concerns the task
	// CutSpan is, for a task whose last burst the capture cut (EndTrace),
	// the wall time in ns from that burst's first switch-in (or, never
	// switched in, its wakeup) to the capture's end, at least 1, 0
	// unknown: how long the trace saw it running or runnable in it. A censored replay holds
	// the burst that long from its first run, to the capture's end at
	// most (see Censored).
	CutSpan int64
	// FinalWaitFrom is when the task's wait for the CPU before its final
	// run began, the run its exit ended (ns; 0 when the trace does not
	// show that run's switch-in and the wakeup or preemption before it).
	// A task looping until a wall-clock time that was not running when
	// that time came (preempted, or throttled by its group's quota) exits
	// in the run after it: its deadline lies after this, not only at its
	// exit (inferUntil).
	FinalWaitFrom int64
	Bursts        []Burst
	// acts and upds hold the actions and update points of the task's
	// bursts, each burst's a run of them (Burst.acts; updSpans[
	// Burst.upds-1]).
	acts     []Action
	upds     []int64
	updSpans []span
	// Unnamed is true when the recording never named the task by a record
	// of its own (a COMM or exec record, a fork that made it inherit its
	// parent's name, perf's record-start COMM) but only through tracepoint
	// comms: the reports name rows like perf's threads, so such a task is
	// ":TID" in them, and a prediction names it the same way. Models built
	// by hand (synth) leave it false: their tasks are named.
	Unnamed bool
	// Periodic is true when the task's absolute wake times (CauseExternal
	// timers, see absoluteTimers) are evenly spaced: a periodic timer
	// (cyclictest, clock_nanosleep(TIMER_ABSTIME) at t0 + k·P) rather than
	// open-loop arrivals. Period is then the median spacing of those
	// times in ns (the program's period P): a replay computes each wake
	// time as the program does, the last one plus P, skipping the periods
	// already past (sim.block); arrivals each arrive.
	Periodic bool
	Period   int64
	// OpenLoop is true for an open-loop generator whose merged arrivals
	// splitArrivals recovered: like a periodic loop, a replay that reaches
	// one of its sleeps after the arrival time goes on without sleeping.
	OpenLoop bool
	// WakeAny is true for a task whose blocks were ended by more than one
	// waker (inferWakeAny): a replay ends its current block with whichever
	// wakeup reaches it first, and keeps the others as credit.
	WakeAny bool
	// MeanDelay is the task's mean recorded scheduling delay in ns: from
	// a wakeup, or a switch-out runnable, to the next switch-in, as perf
	// sched latency measures it (0: none recorded); DelaySD their
	// standard deviation in ns. A replay compares a WakeAny task's wait
	// with them (see sim.creditBound).
	MeanDelay int64
	DelaySD   int64
	// Pool is 1 + the index in Model.Pools of the worker pool the task
	// serves (0: none); PoolBlock[j] is true for the blocks after burst j
	// that wait on the pool's shared queue (see inferPools).
	Pool      int
	PoolBlock []bool
	// Workload marks the traced command's process tree.
	Workload bool
	// CgroupID is the cgroup id the trace last saw the task in (the cgroup
	// of sched_switch's prev task, trace.Event.Cgroup), 0 unknown; Cgroup
	// is its path (Meta.Cgroups: "/tv-a"; "/" the root), "" unknown. A
	// replay schedules the task inside that task group (see Groups).
	CgroupID uint64
	Cgroup   string
	// Session is the TID of the session leader whose autogroup the task
	// runs in, inferred from the process tree (see inferSessions); 0 when
	// none was seen (the task stays in its cgroup, or the root group).
	Session trace.TID
	// Autogroup is the autogroup the recording read for the task's
	// process ("/autogroup-24", Meta.TaskAutogroups) when it ran in the
	// root cpu group; "" when the recording says nothing. It wins over
	// Session.
	Autogroup string
	setsid    bool // the trace named the task "setsid" (setsid(1) before its exec)
	taskset   bool // the trace named the task "taskset" (taskset(1) before its exec)
	execd     bool // the trace holds an exec of the task (sched_process_exec)
	// Until says how the task ends and paces itself (see UntilKind);
	// Deadline is, for UntilDeadline, the wall-clock time in ns after the
	// task's start at which its loop stops. UntilInferred is true when
	// Extract inferred the kind from the trace (false: the default).
	Until         UntilKind
	Deadline      int64
	UntilInferred bool
	// Censored: a workload task still running or runnable when the trace
	// ended (its last burst ends EndTrace), or the traced command itself
	// alive at the end whatever it did (asleep, it stays asleep: its last
	// block is never woken in the trace either). ObservedMakespan counts
	// it to the end of the capture (End). A replay runs a running one on:
	// one whose last burst holds its work spins until the capture's end
	// (deadline-bound there, whatever CPU it gets) instead of taking its
	// recorded work as all it had to do; any other's last burst lasts
	// from its first run for as long as the trace saw it (CutSpan), to
	// the capture's end at most, or longer if its recorded work takes
	// longer (unless --until says how it ends). (Held to the capture's
	// end, a timer-paced task that got ahead of the trace spun there: a
	// 300 µs burst held 40 ms, new-user pass 70 F1.)
	Censored bool
	// Spinner: one burst, SpinBurst, holds most of the task's CPU time and
	// no blocking point cuts it: a loop that checks the clock as it spins.
	// It is the last burst, or one followed only by the exit's own short
	// work (printing the result, which may block on I/O, and exiting),
	// which wakes no one but from the burst that ends in the exit (the
	// exit's own wakeups: its parent's wait, its pipes' readers; see
	// tailDoesMore) and forks nothing. A deadline-bound spinner spins until its
	// deadline whatever CPU it gets, then runs that tail as recorded; a
	// cycle task (not Spinner) repeats its last burst and timer sleep
	// until then.
	Spinner   bool
	SpinBurst int
	// Repeat is, for a deadline-bound cycle task, the burst whose CPU
	// time and relative timer sleep a replay repeats once the recorded
	// cycles are used up before the deadline (the last one that ends in a
	// timer sleep before the final burst); -1 when none.
	Repeat int
	// LoopsUntilExitOf is 1 + the index in Model.Tasks of the task whose
	// exit ends this task's loop (0: none; inferLoopsUntilExit): a ticker
	// or monitor thread that cycles on a timer until the threads it runs
	// beside are done (a stop flag set when they are joined). A replay
	// repeats its last cycle (Repeat) until that task has exited, then
	// runs its final burst, whatever cycle count the recording had.
	LoopsUntilExitOf int32
	// Affinity is the CPU set the task was inferred to be pinned to (0:
	// no restriction known); see ModelStats.PinnedTasks.
	Affinity policies.CPUSet
	// anyCPU: the recording read the task's process's affinity as every
	// CPU of the trace (recordedAffinity): no pinning is inferred for it.
	anyCPU bool
	// insOn and timeOn are the task's switch-ins and run time in ns per
	// CPU (recorded runs and lost switch-ins, since the last stopper move),
	// for inferPinning.
	insOn  []int
	timeOn []int64
}

// Class returns the scheduling class and nice/RT priority implied by the
// traced prio: below 100 real-time (SCHED_FIFO unless the recorded Policy
// says SCHED_RR: sched_switch does not tell them apart), else fair with
// nice = prio-120 (SCHED_IDLE when the recorded Policy says so). A SCHED_DEADLINE
// task is FIFO 99: the deadline class runs above the real-time one
// (kernel/sched/sched.h, dl_sched_class before rt_sched_class), and the
// simulator has no EDF of its own, so its reservation is kept by
// replaying its throttles (Task.SchedDeadline).
func (t *Task) Class() (c policies.Class, nice, rtprio int) {
	switch {
	case t.SchedDeadline:
		return policies.ClassFIFO, 0, 99
	case t.Prio >= 0 && t.Prio < 100:
		if t.Policy == trace.PolicyRR {
			return policies.ClassRR, 0, int(99 - t.Prio)
		}
		return policies.ClassFIFO, 0, int(99 - t.Prio)
	case t.Policy == trace.PolicyIdle:
		// SCHED_IDLE keeps its nice (static_prio) but weighs
		// WEIGHT_IDLEPRIO whatever it is.
		return policies.ClassIdle, max(int(t.Prio)-120, 0), 0
	case t.Prio >= 100 && t.Prio < 140:
		return policies.ClassFair, int(t.Prio) - 120, 0
	}
	return policies.ClassFair, 0, 0
}

// Batch reports whether the task is replayed as SCHED_BATCH (its recorded
// policy): a fair task whose wakeups never preempt (policies.Task.Batch).
func (t *Task) Batch() bool { return t.Policy == trace.PolicyBatch }

// UntilKind is how a task ends: the termination and pacing semantics of
// its program, which a schedule does not change but a what-if must keep.
type UntilKind uint8

// Termination kinds.
const (
	// UntilWork: the task ends after its recorded CPU work (hackbench,
	// an encode of N frames, make): with less CPU it ends later.
	UntilWork UntilKind = iota
	// UntilCount: it ends after its recorded number of iterations
	// (cyclictest -l, pipe -l): replayed like UntilWork, blocking point by
	// blocking point.
	UntilCount
	// UntilDeadline: it repeats its cycle until a wall-clock time
	// (Task.Deadline after its start: hog, massive_intr, stress-ng -t):
	// given more CPU than recorded it repeats its last cycle until then,
	// given less it stops at the deadline (a Spinner at once, a cycle task
	// at the top of its next cycle, as its loop checks the clock).
	UntilDeadline
)

// String returns "work", "count" or "deadline".
func (u UntilKind) String() string { return [...]string{"work", "count", "deadline"}[u] }

// Model is a workload extracted from a trace.
type Model struct {
	Tasks      []Task
	Start, End int64 // ns, first and last event time
	NrCPUs     int   // from the trace's Meta, or the highest CPU seen + 1
	Meta       trace.Meta
	// Recorded is the observed schedule (every scheduler event of the
	// input), re-emitted by the as-traced policy. A model extracted with
	// ExtractOptions.DropRecorded counts the events without keeping them
	// (Recorded.Released; RecordedFrom reads them again from the input).
	Recorded EventLog
	// IdleExit is the median delay in ns between a wakeup targeting an
	// idle CPU and the switch-in of the woken task there, measured in the
	// trace: what the simulator charges when an idle CPU gets work.
	IdleExit int64
	// WakePreempt is the median delay in ns between a wakeup and the
	// switch-in of the woken task when it preempted the running task
	// there (resched IPI, return to user mode), likewise measured.
	WakePreempt int64
	// ContextSwitchCost is the mean CPU time in ns per run that the kernel
	// charged to no task: the time between a task's recorded switch-in and
	// switch-out minus the sched_stat_runtime charged to it meanwhile (the
	// context switch itself). 0 when the trace has no sched_stat_runtime
	// (bursts then include it) or the runtime covers the switches.
	ContextSwitchCost int64
	// RemoteWakeupCost is the extra CPU time in ns a waker spends when the
	// task it wakes is enqueued on another CPU rather than its own (the
	// reschedule IPI and the remote runqueue's cache lines; in a VM the
	// IPI exits to the hypervisor), measured in the trace by
	// measureWakeupCost. The simulator charges it, or gives it back, when a
	// replayed wakeup lands on another side than the recorded one. 0 when
	// the trace does not show it.
	RemoteWakeupCost int64
	// WakeupCostSamples is how many bursts the RemoteWakeupCost estimate
	// rests on (0: not measurable in this trace).
	WakeupCostSamples int
	// RemoteWakeeCost is the extra CPU time in ns a task spends in a burst
	// that a task on another CPU woke it for, rather than one on its own
	// (measureWakeeCost); the simulator charges it, or gives it back, when
	// a replayed wakeup comes from the other side than the recorded one.
	// WakeeCostSamples is how many bursts it rests on.
	RemoteWakeeCost  int64
	WakeeCostSamples int
	// IdleStartCost is the extra CPU time in ns a burst costs when it
	// starts on an idle CPU rather than after another task
	// (measureIdleStartCost); the simulator charges it, or gives it back, when
	// a replayed burst starts from the other state than the recorded one.
	// IdleStartCostSamples is how many bursts it rests on.
	IdleStartCost        int64
	IdleStartCostSamples int
	// WorkloadRoot is the TID of the traced command (the child of the
	// recorder), -1 when none was found; Workload tasks descend from it.
	WorkloadRoot trace.TID
	// CommandBefore is set when the trace is a traceview record capture
	// of a command that started before it (no fork of the command in it:
	// a later file of a record --rotate series, or a --ring dump); the
	// workload is then every task (WorkloadRoot -1).
	CommandBefore bool
	// TracedSession is the autogroup session inferTracedSession put the
	// traced command in, with its evidence (Leader 0: none).
	TracedSession SessionEvidence
	// CPUsSeen is the set of CPUs the trace has sched_switch events of
	// (a perf record -C recording holds fewer than NrCPUs).
	CPUsSeen policies.CPUSet
	// HZ is the scheduler tick rate inferred from the phase of the
	// trace's sched_stat_runtime events (0 when the trace does not show
	// it); TickPhase is the offset in ns of the ticks within a tick period
	// (ticks at k·1e9/HZ + TickPhase).
	HZ        int
	TickPhase int64
	// Pools lists the worker pools inferPools found.
	Pools []WorkerPool
	// Unmeasured lists the costs the trace measured beyond what it can
	// show (boundCost); IdleExit, WakePreempt or ContextSwitchCost is 0 instead.
	Unmeasured []UnmeasuredCost
	Stats      ModelStats
	// skippedAt are the numbers (in input order, from 0) of the events
	// Extract skipped as damage (RecordedFrom); not sorted: settle skips
	// an event after checkEvent may have skipped the next.
	skippedAt []int
}

// WorkerPool is a set of threads serving one shared queue (a pipe or
// socket several threads read, a work queue) fed by one producer task.
// In a replay a request goes to whichever member waits first, or is
// queued for the first that comes back, and the CPU burst that served it
// in the recording (with the wakeups it sent) goes with it: which worker
// serves which request is the schedule's doing, the work is the request's.
type WorkerPool struct {
	Producer int   // task index
	Members  []int // task indexes
	// Requests is true when requestQueues rebuilt the members' bursts as
	// one request per arrival of the producer (an open-loop generator).
	Requests bool
}

// ModelStats counts what a model rests on.
type ModelStats struct {
	Tasks          int `json:"tasks"`
	Bursts         int `json:"bursts"`
	BlockingPoints int `json:"blocking_points"`
	Dependencies   int `json:"dependencies"`
	Timers         int `json:"timers"`
	External       int `json:"external"`
	Never          int `json:"never_woken"`
	Inferred       int `json:"inferred"`
	Forks          int `json:"forks"`
	Exits          int `json:"exits"`
	// LostSwitchIns counts runs that began with no recorded wakeup or
	// switch-in, found by an event the task emitted as current on a CPU
	// the records left idle (lostSwitchIn).
	LostSwitchIns int `json:"lost_switch_ins"`
	// PrioChanges counts tasks whose recorded switch-ins showed more than
	// one prio (a priority or nice change, priority inheritance during
	// the trace); each is replayed at the prio of most of them
	// (settlePrio).
	PrioChanges int `json:"prio_changes"`
	// SchedDeadline counts SCHED_DEADLINE tasks (Task.SchedDeadline).
	SchedDeadline int `json:"sched_deadline_tasks"`
	// SchedBatch and SchedIdle count tasks recorded under SCHED_BATCH and
	// SCHED_IDLE (Task.Policy; eBPF captures only).
	SchedBatch int `json:"sched_batch_tasks,omitempty"`
	SchedIdle  int `json:"sched_idle_tasks,omitempty"`
	// PinnedTasks counts workload tasks given an inferred affinity: the
	// traced command ran on one CPU of several (taskset), all but
	// pinStray of its run time, over at least pinMinSwitches switch-ins.
	PinnedTasks int `json:"pinned_tasks"`
	// AffinityRecorded counts the tasks of those, or of any task of the
	// trace, whose affinity the recording read (Meta.TaskAffinity) as
	// fewer CPUs than the trace's.
	AffinityRecorded int `json:"affinity_recorded"`
	// UnpinnedByRecord counts the tasks whose inferred pinning the
	// recording's affinity of every CPU undid (recordedAffinity).
	UnpinnedByRecord int `json:"unpinned_by_record,omitempty"`
	// BoundKthreads counts the kernel threads bound to one CPU by their
	// name (ksoftirqd/N, kworker/N:M, ...; bindPerCPUKthreads).
	BoundKthreads int `json:"bound_kthreads"`
	// PingPongs counts preemptions turned into inferred blocking points
	// (a task preempted by the task it woke, resumed when that one blocked).
	PingPongs int `json:"ping_pongs"`
	// PoolMembers counts tasks serving worker pools (Model.Pools).
	PoolMembers int `json:"pool_members"`
	// SessionTasks counts tasks inferSessions put in an autogroup session
	// it inferred from the process tree.
	SessionTasks int `json:"session_tasks"`
	// WakeAnyTasks counts tasks woken at their blocks by more than one
	// waker (Task.WakeAny, inferWakeAny).
	WakeAnyTasks int `json:"wake_any_tasks"`
	// AbsoluteTimers counts timer wakeups kept at their recorded absolute
	// time (CauseExternal) because their task's wake times are steadier
	// than its sleep lengths: clock_nanosleep(TIMER_ABSTIME) loops,
	// periodic timers and open-loop arrivals (see absoluteTimers), and the
	// inferred dependencies of such tasks given their recorded time as a
	// deadline (Cause.ByAt, timerLikeWakeups).
	AbsoluteTimers int `json:"absolute_timers"`
	// RelativeUnknownWakes counts blocks of unknown cause of tasks that
	// sleep on relative timers, replayed as a timer of the length slept
	// in the trace instead of until the recorded time
	// (relativeUnknownWakes).
	RelativeUnknownWakes int `json:"relative_unknown_wakes"`
	// UpdatePoints counts the mid-burst update_curr points kept
	// (Task.UpdatesOf); TickUpdates the mid-run sched_stat_runtime events
	// left out as the tick's, EnqueueUpdates those left out as an
	// enqueue's.
	UpdatePoints int `json:"update_points"`
	// Yields counts the sched_yield calls kept as ActYield actions
	// (yieldPoints).
	Yields int `json:"yields,omitempty"`
	// WorkBound, CountBound and DeadlineBound count the workload's tasks
	// by UntilKind; DeadlineInferred those of DeadlineBound that Extract
	// inferred (the rest come from --until).
	WorkBound        int `json:"work_bound"`
	CountBound       int `json:"count_bound"`
	DeadlineBound    int `json:"deadline_bound"`
	DeadlineInferred int `json:"deadline_inferred"`
	// LoopsUntilExit counts the workload tasks that loop until another
	// task's exit (Task.LoopsUntilExitOf; inferred, among CountBound and
	// WorkBound).
	LoopsUntilExit int `json:"loops_until_exit"`
	// TimerKills counts the spinners of DeadlineInferred that exited
	// right after another workload task's timer fired, a timer that had
	// run for their whole life (`timeout 3 CMD`): taken for killed at a
	// wall-clock deadline (timerKills).
	TimerKills int `json:"timer_kills"`
	// Censored counts workload tasks still running or runnable when the
	// trace ended (Task.Censored): how long they would have gone on is
	// unknown, so no makespan can be predicted.
	Censored    int `json:"censored"`
	TickUpdates int `json:"tick_updates"`
	// RecoveredArrivals counts the arrivals of open-loop generators that
	// the recording handled without sleeping, recovered by splitArrivals.
	RecoveredArrivals int `json:"recovered_arrivals"`
	// QueuedRequests counts the requests requestQueues made: one per
	// arrival of an open-loop generator whose workers serve a queue.
	QueuedRequests int `json:"queued_requests"`
	EnqueueUpdates int `json:"enqueue_updates"`
	// Skipped counts events Extract left out as damage (checkEvent,
	// settle): a CPU beyond the trace's, a time before the previous
	// event's or an hour from both neighbours, a run time longer than the
	// trace.
	Skipped int `json:"skipped_events"`
}

// ObservedMakespan returns the span in ns from the first to the last event
// of the traced command's process tree in the input (of every task when no
// traced command was found). When one of those tasks is censored (still
// running or runnable when the capture ended, Task.Censored), the span
// reaches the capture's end (End): its last burst lasts until then, past
// its last event.
func (m *Model) ObservedMakespan() int64 {
	first, last := int64(-1), int64(-1)
	any := m.WorkloadRoot >= 0
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if any && !tk.Workload {
			continue
		}
		if first < 0 || tk.Start < first {
			first = tk.Start
		}
		end := tk.Last
		if tk.Censored {
			end = max(end, m.End)
		}
		last = max(last, end)
	}
	if first < 0 {
		return 0
	}
	return last - first
}

// InferredShare is the fraction of blocking points whose cause was
// inferred (0..1).
func (s ModelStats) InferredShare() float64 {
	if s.BlockingPoints == 0 {
		return 0
	}
	return float64(s.Inferred) / float64(s.BlockingPoints)
}

// UnmeasuredCost is a cost Extract measured beyond what the trace can
// show (boundCost): Measured ns, above Bound ns (maxMeasuredCost). The
// model's cost is 0 instead (the simulator charges none).
type UnmeasuredCost struct {
	Name     string `json:"name"`
	Measured int64  `json:"measured_ns"`
	Bound    int64  `json:"bound_ns"`
}

// String says why the cost is not measurable, for the model line (after
// the cost's name).
func (u UnmeasuredCost) String() string {
	us := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) + " µs" }
	return fmt.Sprintf("not measurable (%s measured, above the %s bound; none charged)", us(u.Measured), us(u.Bound))
}

// RecordedSource returns the model's recorded schedule (every scheduler
// event of its input) as a stream, for the observed side of a comparison.
func (m *Model) RecordedSource() trace.Source { return m.Recorded.Source(&m.Meta) }

// DrainRecorded is RecordedSource for a caller that reads the recorded
// schedule once and needs it no more (EventLog.Drain): the stream releases
// the log as it goes, and the model can then not be replayed as-traced
// (Simulate fails with ErrRecordedReleased).
func (m *Model) DrainRecorded() trace.Source { return m.Recorded.Drain(&m.Meta) }
