package policies

import (
	"fmt"
	"math/bits"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

// Class is a task's scheduling class, as set by sched_setscheduler(2).
type Class uint8

// Scheduling classes in the kernel's order of precedence (RT above fair;
// kernel/sched/sched.h, DEFINE_SCHED_CLASS order). Idle here is SCHED_IDLE,
// a fair-class task of weight 3.
const (
	ClassFair Class = iota // SCHED_NORMAL / SCHED_BATCH (CFS or EEVDF)
	ClassFIFO              // SCHED_FIFO
	ClassRR                // SCHED_RR
	ClassIdle              // SCHED_IDLE (fair class, WEIGHT_IDLEPRIO)
)

// String returns the policy name as chrt(1) prints it ("fifo", "normal").
func (c Class) String() string {
	switch c {
	case ClassFair:
		return "normal"
	case ClassFIFO:
		return "fifo"
	case ClassRR:
		return "rr"
	case ClassIdle:
		return "idle"
	}
	return fmt.Sprintf("class(%d)", c)
}

// RealTime reports whether c is SCHED_FIFO or SCHED_RR.
func (c Class) RealTime() bool { return c == ClassFIFO || c == ClassRR }

// TaskState is where a simulated task is in its life.
type TaskState uint8

// Task states.
const (
	TaskNew      TaskState = iota // created, not yet started
	TaskRunnable                  // on a runqueue, not running
	TaskRunning                   // current on a CPU
	TaskSleeping                  // blocked
	TaskDead                      // exited
)

// CPUSet is a set of CPUs (affinity mask); bit i is CPU i. The simulator
// models at most 64 CPUs.
type CPUSet uint64

// MaxCPUs is the largest CPU count a CPUSet can hold.
const MaxCPUs = 64

// AllCPUs returns the set {0..n-1}.
func AllCPUs(n int) CPUSet {
	if n >= MaxCPUs {
		return ^CPUSet(0)
	}
	return CPUSet(1)<<uint(n) - 1
}

// Has reports whether cpu is in s.
func (s CPUSet) Has(cpu int) bool { return cpu >= 0 && cpu < MaxCPUs && s&(1<<uint(cpu)) != 0 }

// Count returns the number of CPUs in s.
func (s CPUSet) Count() int { return bits.OnesCount64(uint64(s)) }

// First returns the lowest CPU in s, or -1 when s is empty.
func (s CPUSet) First() int {
	if s == 0 {
		return -1
	}
	return bits.TrailingZeros64(uint64(s))
}

// String renders s as a CPU list, e.g. "0-2,5" (cpulist.Format).
func (s CPUSet) String() string {
	var cpus []int
	for i := 0; i < MaxCPUs; i++ {
		if s.Has(i) {
			cpus = append(cpus, i)
		}
	}
	return cpulist.Format(cpus)
}

// ParseCPUList parses a CPU list as taskset -c takes it ("0", "0-3,6") with
// cpulist.Parse. Errors: those of cpulist.Parse, and a CPU at or above
// MaxCPUs, which a CPUSet cannot hold.
func ParseCPUList(s string) (CPUSet, error) {
	cpus, err := cpulist.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("cpu list %q: %w", s, err)
	}
	var set CPUSet
	for _, c := range cpus {
		if c >= MaxCPUs {
			return 0, fmt.Errorf("cpu list %q: CPU %d: the simulator models CPUs 0-%d", s, c, MaxCPUs-1)
		}
		set |= 1 << uint(c)
	}
	return set, nil
}

// Task is the simulator's view of one task, shared with the policy. The
// simulator owns and updates every field; policies read them and keep their
// own state in slices indexed by ID.
type Task struct {
	ID   int // dense, from 0 (the model's task index); TaskNew may see IDs in any order, so grow per-task slices to ID+1
	TID  trace.TID
	PID  trace.PID
	Comm string

	Class  Class
	Nice   int   // -20..19 (fair class)
	RTPrio int   // 1..99 (FIFO/RR); higher runs first
	Weight int64 // load weight from Nice (Weight), WeightIdle for SCHED_IDLE
	// Slice is a custom slice request in ns (sched_attr.sched_runtime,
	// Linux 6.12+ EEVDF); 0 means the policy's default.
	Slice    int64
	Affinity CPUSet
	// SchedDeadline marks a task the recording ran under SCHED_DEADLINE,
	// which a replay runs as FIFO 99 (replay's Task.Class); Prio gives
	// it -1, as the sched_switch tracepoint does.
	SchedDeadline bool
	// Batch marks a fair task under SCHED_BATCH: its wakeups never
	// preempt the running task (check_preempt_wakeup_fair returns at
	// !normal_policy(p->policy), kernel/sched/fair.c v6.6-v6.18; before
	// v6.6 p->policy != SCHED_NORMAL), which SCHED_IDLE tasks share.
	Batch bool

	State TaskState
	CPU   int // runqueue the task is on, or the CPU it last ran on
	// Group is the task group (autogroup / cgroup id) for group fairness,
	// 0 when none.
	Group int

	SumExec   int64 // ns of CPU time consumed so far
	ExecStart int64 // ns, when the current run began (valid while running)
	LastRan   int64 // ns, when the task last left a CPU (cache hotness)
	Parent    *Task // forking task, nil for tasks alive at the start
}

// Prio returns the kernel's prio value of the task (0..99 RT as 99-RTPrio,
// 100..139 fair as 120+Nice, -1 for a SchedDeadline task replayed as FIFO
// 99), as sched_switch reports it.
func (t *Task) Prio() int32 {
	if t.SchedDeadline && t.Class == ClassFIFO && t.RTPrio == 99 {
		return -1
	}
	if t.Class.RealTime() {
		return int32(99 - t.RTPrio)
	}
	return int32(120 + t.Nice)
}

// Policy returns the scheduling policy the task runs under as a trace names
// it (trace.SchedPolicy): SCHED_DEADLINE for a SchedDeadline task replayed
// as FIFO 99, SCHED_BATCH for a Batch one.
func (t *Task) Policy() trace.SchedPolicy {
	switch {
	case t.SchedDeadline && t.Class == ClassFIFO && t.RTPrio == 99:
		return trace.PolicyDeadline
	case t.Class == ClassFIFO:
		return trace.PolicyFIFO
	case t.Class == ClassRR:
		return trace.PolicyRR
	case t.Class == ClassIdle:
		return trace.PolicyIdle
	case t.Batch:
		return trace.PolicyBatch
	}
	return trace.PolicyNormal
}

// WakeFlags describe why SelectCPU is called (kernel WF_* flags,
// kernel/sched/sched.h).
type WakeFlags uint8

// Wake flags.
const (
	WakeTTWU WakeFlags = 1 << iota // try_to_wake_up: a sleeping task wakes (WF_TTWU)
	WakeFork                       // a new task is placed (WF_FORK)
	WakeSync                       // the waker will sleep soon (WF_SYNC)
)

// EnqueueFlags say why a task is enqueued (ENQUEUE_* in kernel/sched/sched.h).
type EnqueueFlags uint8

// Enqueue flags.
const (
	EnqueueWakeup   EnqueueFlags = 1 << iota // the task wakes from sleep (ENQUEUE_WAKEUP)
	EnqueueInitial                           // a new task's first enqueue (ENQUEUE_INITIAL)
	EnqueueMigrated                          // the task arrives from another CPU (ENQUEUE_MIGRATED)
)

// DequeueFlags say why a task is dequeued (DEQUEUE_* in kernel/sched/sched.h).
type DequeueFlags uint8

// Dequeue flags.
const (
	DequeueSleep   DequeueFlags = 1 << iota // the task blocks (DEQUEUE_SLEEP)
	DequeueMigrate                          // the task moves to another CPU
	DequeueExit                             // the task exits
)

// BalanceKind says which load-balancing path runs (kernel/sched/fair.c).
type BalanceKind uint8

// Balance kinds.
const (
	BalanceNewIdle  BalanceKind = iota // the CPU is about to go idle (sched_balance_newidle)
	BalanceIdle                        // periodic balance on an idle CPU (nohz idle balance)
	BalancePeriodic                    // periodic balance from the tick on a busy CPU (sched_balance_domains)
)

// Sim is what the simulator offers a policy: time, the CPUs and their
// current tasks, and actions. It is valid for the lifetime of a run.
type Sim interface {
	// Now returns the simulated time in ns.
	Now() int64
	// NumCPUs returns the number of simulated CPUs.
	NumCPUs() int
	// Curr returns the task running on cpu, nil when idle.
	Curr(cpu int) *Task
	// NrRunning returns how many tasks are enqueued on cpu, including the
	// running one (rq->nr_running).
	NrRunning(cpu int) int
	// Resched marks cpu as needing a new pick (resched_curr); the
	// simulator calls PickNext at the next scheduling point.
	Resched(cpu int)
	// Migrate moves the runnable, not running, task t to dst: Dequeue on
	// its CPU with DequeueMigrate, then Enqueue on dst with
	// EnqueueMigrated. It fails when t is running or dst is not allowed.
	Migrate(t *Task, dst int) error
	// Tasks returns the tasks indexed by ID; entries of tasks not created
	// yet are nil.
	Tasks() []*Task
	// HZ returns the tick rate (ticks per second).
	HZ() int
}

// Policy is a scheduler for the simulator, one instance per replay run.
// The simulator calls the hooks in the kernel's order: for a wakeup
// SelectCPU, Enqueue, CheckPreemptWakeup; when a task blocks or exits
// Dequeue then PickNext; on every tick Tick; and UpdateCurr before any hook
// that concerns a CPU whose current task has run since the last call.
// Hooks run on the simulator's goroutine; they must be deterministic.
type Policy interface {
	// Name returns the registered name (e.g. "eevdf").
	Name() string
	// Init is called once before any task exists.
	Init(s Sim)
	// TaskNew is called when t is created (sched_fork / task_fork), before
	// its first SelectCPU; t.Parent is the forking task or nil.
	TaskNew(t *Task)
	// SelectCPU chooses the runqueue for a waking or new task
	// (select_task_rq). prev is the CPU it last ran on, waker the waking
	// task (nil for a timer or interrupt). The result must be in
	// t.Affinity.
	SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int
	// Enqueue puts t on cpu's runqueue (enqueue_task).
	Enqueue(cpu int, t *Task, flags EnqueueFlags)
	// Dequeue takes t off cpu's runqueue (dequeue_task). t may be the
	// running task (it blocks or exits).
	Dequeue(cpu int, t *Task, flags DequeueFlags)
	// PickNext returns the task to run next on cpu, nil to go idle
	// (pick_next_task with put_prev_task and set_next_task). prev is the
	// task that was running (nil if idle); if still runnable it is still
	// enqueued. The returned task must be enqueued on cpu.
	PickNext(cpu int, prev *Task) *Task
	// CheckPreemptWakeup reports whether the just-enqueued t should preempt
	// curr on cpu (wakeup_preempt).
	CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool
	// UpdateCurr charges delta ns of run time to curr on cpu (update_curr).
	UpdateCurr(cpu int, curr *Task, delta int64)
	// Tick is the scheduler tick on a busy cpu (task_tick); true asks for
	// a reschedule.
	Tick(cpu int, curr *Task) bool
	// Balance runs load balancing for cpu; it moves tasks with Sim.Migrate.
	Balance(cpu int, kind BalanceKind)
	// TaskDead is called after t exited and was dequeued.
	TaskDead(t *Task)
}

// DecisionCoster is implemented by policies whose pick cost grows with the
// runqueue (the 2.4 goodness() scan): the simulator charges
// Params.DecisionCost × ScanLength(cpu) on top of its fixed per-decision
// cost.
type DecisionCoster interface {
	ScanLength(cpu int) int
}

// CostModel is implemented by policies whose decisions cost CPU time that
// depends on the decision and on the other CPUs (the 2.4 scheduler's
// global runqueue_lock: a CPU deciding while another holds the lock spins
// until it is free). After PickNext the simulator adds DecisionNS ns to
// the time cpu spends before next runs, on top of Config.DecisionCost and
// the DecisionCoster scan. prev is the task that ran (nil when idle), next
// the pick (nil to idle).
type CostModel interface {
	DecisionNS(cpu int, prev, next *Task) int64
}

// DelayedQueue is implemented by policies that keep a sleeping task
// queued for a while (EEVDF's DELAY_DEQUEUE): DelayedOn returns the CPU
// whose runqueue still holds t, if any. A wakeup of such a task does not
// choose a CPU: try_to_wake_up finds it on_rq and requeues it where it is
// (ttwu_runnable -> enqueue_task(ENQUEUE_DELAYED), kernel/sched/core.c
// v6.12-v6.18), then checks wakeup preemption there.
//
// RequeuesDelayed reports whether enqueueing t on cpu reaches, on its way
// up the task-group hierarchy, an entity still queued there while its
// dequeue is delayed (t's own, or the first of its group entities on cpu
// that is queued): enqueue_task_fair then requeues that entity in place
// (requeue_delayed_entity) without an update_curr of the runqueue it is
// queued on, so its DELAY_ZERO lag is read against an avg_vruntime the
// running task's last accounting left, and the running task is charged
// only afterwards, by wakeup_preempt_fair's update_curr (kernel/sched/fair.c
// v6.12-v6.18: enqueue_entity's update_curr is only for the levels not yet
// queued).
type DelayedQueue interface {
	DelayedOn(t *Task) (cpu int, ok bool)
	RequeuesDelayed(cpu int, t *Task) bool
}

// OwnUpdater is implemented by policies whose update_curr works one
// runqueue level at a time. UpdateCurrOwn charges delta ns of run time to
// curr on cpu at its own level only, as a task's own accounting does
// (update_curr_fair on cfs_rq_of(&curr->se) from task_sched_runtime, a
// clock_gettime(CLOCK_THREAD_CPUTIME_ID) say, kernel/sched/core.c and
// fair.c v6.18); the group entities above it are charged that run time at
// the next UpdateCurr, as each level's own update_curr charges its entity
// the time since its exec_start. The simulator uses it at a burst's
// update points; without it, UpdateCurr.
type OwnUpdater interface {
	UpdateCurrOwn(cpu int, curr *Task, delta int64)
}

// Yielder is implemented by policies with a yield_task (the class hook
// do_sched_yield calls, kernel/sched/syscalls.c v6.18): Yield is called
// when curr, running on cpu, calls sched_yield, with its run time charged;
// the simulator then calls PickNext on cpu at once. A policy without it
// treats a yield as a plain reschedule: PickNext decides as it would at
// any other scheduling point, which for a policy whose pick keeps the
// running task where nothing else is better (BFS, SD, O(1), goodness,
// multiqueue and the other historical ones here) means the task often
// goes on; none of those models a yield of its own yet.
type Yielder interface {
	Yield(cpu int, curr *Task)
}

// Recorded is implemented by the as-traced policy: instead of making
// decisions, the simulator re-emits the schedule recorded in the model.
type Recorded interface {
	Recorded() bool
}
