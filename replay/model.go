package replay

import (
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

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
// takes 32 bytes: there is one in every Burst.)
type Cause struct {
	Waker int   // task index in Model.Tasks (CauseDependency)
	Delay int64 // ns after blocking (CauseTimer)
	At    int64 // ns, absolute trace time (CauseExternal; for CauseTimer the recorded wake time)
	Kind  CauseKind
	// Inferred is true when the cause was guessed, not recorded: perf's
	// waker is only the task current on the waking CPU, and a wakeup from
	// idle may be a timer or a device.
	Inferred bool
}

// ActionKind is what a task does at a point of its burst.
type ActionKind uint8

// Actions.
const (
	ActWake ActionKind = iota // wake Target from the block after its burst Block
	ActFork                   // create Target (a new task)
)

// Action is an effect of a task on another at At ns into its burst. (Its
// fields are ordered so that it takes 32 bytes, and a burst's usual one
// action one 32-byte allocation.)
type Action struct {
	At     int64
	Target int // task index
	Block  int // ActWake: index of the target's burst whose following block this ends
	Kind   ActionKind
	// Remote is true when the recorded wakeup put Target on another CPU
	// than the waker's (ActWake): the waker paid for a cross-CPU wakeup
	// (see Model.RemoteWakeCost).
	Remote bool
}

// Burst is CPU time a task consumes between blocking points.
type Burst struct {
	Len     int64    // ns of CPU time
	Actions []Action // sorted by At (0 <= At <= Len)
	End     EndKind
	// FromIdle is true when the burst's first run began on a CPU that
	// left idle less than idleWarmup before (the first task after idle, or
	// one right after it): see Model.IdleStartCost.
	FromIdle bool
	// WokenBy is true when another task of the trace woke the task for
	// this burst (a CauseDependency wakeup that is not inferred from a
	// preemption); WokenRemote when that waker ran on another CPU than the
	// one the wakeup put the task on (see Model.RemoteWokenCost).
	WokenBy, WokenRemote bool
	Wake                 Cause // EndBlock: what ends the block after this burst
	// Observed: ns the task slept after this burst in the trace (EndBlock
	// with a known wake), for reports.
	Slept int64
	// Updates are the offsets in ns of CPU time into the burst (sorted,
	// 0 < u < Len) where the task itself made the kernel account its run
	// time (update_curr): a clock_gettime(CLOCK_THREAD_CPUTIME_ID) goes
	// through task_sched_runtime, a syscall that enqueues or dequeues
	// another task does too. EEVDF (and CFS) end a slice at any
	// update_curr, not only at the tick (kernel/sched/fair.c v6.18
	// update_curr: resched when update_deadline moved the deadline), so a
	// replay lets the policy act there. Extract keeps the mid-run
	// sched_stat_runtime events that are neither the tick's (on the
	// CPU's tick phase, see Model.HZ) nor an enqueue's (right after a
	// wakeup aimed at that CPU) nor the switch-out's own.
	Updates []int64
}

// InitState is a task's state when the model starts.
type InitState uint8

// Initial states.
const (
	InitForked   InitState = iota // created by a fork inside the trace
	InitRunnable                  // runnable or running at the start of the trace
	InitSleeping                  // sleeping at the start; Bursts[0] is empty and its Wake ends that sleep
)

// Task is one task identity of the model.
type Task struct {
	TID    trace.TID
	PID    trace.PID
	Comm   string
	Prio   int32 // kernel prio seen in the trace (-1 unknown)
	Parent int   // forking task index, -1
	Init   InitState
	CPU    int   // CPU it was first seen on
	Start  int64 // ns, first appearance (fork time for forked tasks)
	Last   int64 // ns, last event that concerns the task
	Bursts []Burst
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
	setsid  bool // the trace named the task "setsid" (setsid(1) before its exec)
	// Until says how the task ends and paces itself (see UntilKind);
	// Deadline is, for UntilDeadline, the wall-clock time in ns after the
	// task's start at which its loop stops. UntilInferred is true when
	// Extract inferred the kind from the trace (false: the default).
	Until         UntilKind
	Deadline      int64
	UntilInferred bool
	// Censored: a workload task still running or runnable when the trace
	// ended (its last burst ends EndTrace). A replay runs it at least to
	// the end of the capture: one whose last burst holds its work spins
	// until then (deadline-bound at the trace's end, whatever CPU it gets),
	// instead of taking its recorded work as all it had to do.
	Censored bool
	// Spinner: one burst, SpinBurst, holds most of the task's CPU time and
	// no blocking point cuts it: a loop that checks the clock as it spins.
	// It is the last burst, or one followed only by the exit's own short
	// work (printing the result, which may block on I/O, and exiting),
	// which wakes no one. A deadline-bound spinner spins until its
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
	// Affinity is the CPU set the task was inferred to be pinned to (0:
	// no restriction known); see ModelStats.PinnedTasks.
	Affinity policies.CPUSet
	// insOn and timeOn are the task's switch-ins and run time in ns per
	// CPU (recorded runs and lost switch-ins, since the last stopper move),
	// for inferPinning.
	insOn  []int
	timeOn []int64
}

// Class returns the scheduling class and nice/RT priority implied by the
// traced prio: below 100 real-time (SCHED_FIFO assumed: a trace does not
// tell FIFO from RR), else fair with nice = prio-120.
func (t *Task) Class() (c policies.Class, nice, rtprio int) {
	switch {
	case t.Prio >= 0 && t.Prio < 100:
		return policies.ClassFIFO, 0, int(99 - t.Prio)
	case t.Prio >= 100 && t.Prio < 140:
		return policies.ClassFair, int(t.Prio) - 120, 0
	}
	return policies.ClassFair, 0, 0
}

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
	// input), re-emitted by the as-traced policy.
	Recorded EventLog
	// IdleExit is the median delay in ns between a wakeup targeting an
	// idle CPU and the switch-in of the woken task there, measured in the
	// trace: what the simulator charges when an idle CPU gets work.
	IdleExit int64
	// WakePreempt is the median delay in ns between a wakeup and the
	// switch-in of the woken task when it preempted the running task
	// there (resched IPI, return to user mode), likewise measured.
	WakePreempt int64
	// SwitchCost is the mean CPU time in ns per run that the kernel
	// charged to no task: the time between a task's recorded switch-in and
	// switch-out minus the sched_stat_runtime charged to it meanwhile (the
	// context switch itself). 0 when the trace has no sched_stat_runtime
	// (bursts then include it) or the runtime covers the switches.
	SwitchCost int64
	// RemoteWakeCost is the extra CPU time in ns a waker spends when the
	// task it wakes is enqueued on another CPU rather than its own (the
	// reschedule IPI and the remote runqueue's cache lines; in a VM the
	// IPI exits to the hypervisor), measured in the trace by
	// measureWakeCost. The simulator charges it, or gives it back, when a
	// replayed wakeup lands on another side than the recorded one. 0 when
	// the trace does not show it.
	RemoteWakeCost int64
	// WakeCostSamples is how many bursts the RemoteWakeCost estimate
	// rests on (0: not measurable in this trace).
	WakeCostSamples int
	// RemoteWokenCost is the extra CPU time in ns a task spends in a burst
	// that a task on another CPU woke it for, rather than one on its own
	// (measureWokenCost); the simulator charges it, or gives it back, when
	// a replayed wakeup comes from the other side than the recorded one.
	// WokenCostSamples is how many bursts it rests on.
	RemoteWokenCost  int64
	WokenCostSamples int
	// IdleStartCost is the extra CPU time in ns a burst costs when it
	// starts on an idle CPU rather than after another task
	// (measureIdleCost); the simulator charges it, or gives it back, when
	// a replayed burst starts from the other state than the recorded one.
	// IdleCostSamples is how many bursts it rests on.
	IdleStartCost   int64
	IdleCostSamples int
	// WorkloadRoot is the TID of the traced command (the child of the
	// recorder), -1 when none was found; Workload tasks descend from it.
	WorkloadRoot trace.TID
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
	// show (boundCost); IdleExit, WakePreempt or SwitchCost is 0 instead.
	Unmeasured []UnmeasuredCost
	Stats      ModelStats
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
	// PinnedTasks counts workload tasks given an inferred affinity: the
	// traced command ran on one CPU of several (taskset), all but
	// pinStray of its run time, over at least pinMinSwitches switch-ins.
	PinnedTasks int `json:"pinned_tasks"`
	// PingPongs counts preemptions turned into inferred blocking points
	// (a task preempted by the task it woke, resumed when that one blocked).
	PingPongs int `json:"ping_pongs"`
	// PoolMembers counts tasks serving worker pools (Model.Pools).
	PoolMembers int `json:"pool_members"`
	// SessionTasks counts tasks inferSessions put in an autogroup session
	// it inferred from the process tree.
	SessionTasks int `json:"session_tasks"`
	// AbsoluteTimers counts timer wakeups kept at their recorded absolute
	// time (CauseExternal) because their task's wake times are steadier
	// than its sleep lengths: clock_nanosleep(TIMER_ABSTIME) loops,
	// periodic timers and open-loop arrivals (see absoluteTimers).
	AbsoluteTimers int `json:"absolute_timers"`
	// UpdatePoints counts the mid-burst update_curr points kept
	// (Burst.Updates); TickUpdates the mid-run sched_stat_runtime events
	// left out as the tick's, EnqueueUpdates those left out as an
	// enqueue's.
	UpdatePoints int `json:"update_points"`
	// WorkBound, CountBound and DeadlineBound count the workload's tasks
	// by UntilKind; DeadlineInferred those of DeadlineBound that Extract
	// inferred (the rest come from --until).
	WorkBound        int `json:"work_bound"`
	CountBound       int `json:"count_bound"`
	DeadlineBound    int `json:"deadline_bound"`
	DeadlineInferred int `json:"deadline_inferred"`
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

// pinMinSwitches is how many switch-ins of the traced command on a single
// CPU of a multi-CPU trace make Extract infer that it was pinned there.
const pinMinSwitches = 50

// ObservedMakespan returns the span in ns from the first to the last event
// of the traced command's process tree in the input (of every task when no
// traced command was found).
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
		if tk.Last > last {
			last = tk.Last
		}
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

// ext is the extraction state of one task.
type ext struct {
	idx      int
	running  bool
	sleeping bool
	segStart int64 // ns, when it went on CPU, or its last sched_stat_runtime since
	accum    int64 // ns consumed in the current burst up to segStart
	blocked  int64 // ns, when it blocked
	dead     bool
	cpu      trace.CPU // where it runs, while running
	wakeAt   int64     // ns, pending wakeup time (for latency measurements), -1
	wakeIdle bool      // the wakeup targeted an idle CPU
	wakeCPU  trace.CPU // the CPU the wakeup targeted
	wakeN    int       // that CPU's switch count at the wakeup
	// fifoN counts dependency wakeups of the task while a thread of its
	// process with its name was asleep too; fifoHit those where this task
	// had been asleep longest (see inferPools).
	fifoN, fifoHit int
	inAt           int64 // ns, recorded switch-in of the current run (-1 unknown)
	rtIn           int64 // ns of sched_stat_runtime charged during that run
	pp             int   // task index + 1 of the wakee that preempted this task right after its wakeup (ping-pong)
	ppAt           int64 // ns, when
	// pend is the last mid-run sched_stat_runtime of the current run,
	// kept as a candidate update point until the next one shows it was
	// not the switch-out's (-1 none): its offset into the burst, time
	// and whether an enqueue on the CPU explains it.
	pend        int64
	pendT       int64
	pendEnqueue bool
	// selfWakes are the wakeups of the task by itself while it ran (see
	// splitArrivals): burst index, CPU offset into it and time.
	selfWakes []selfWake
	// lostIn is true from a lost switch-in (lostSwitchIn) to the run's
	// first sched_stat_runtime of its own, which dates the switch-in.
	lostIn bool
	lostLo int64 // ns: a lost switch-in is dated after this (the block, or the wakeup)
	// early is a wakeup sent from another CPU while the task still ran
	// (Kind 0: none): see earlyWakeWindow.
	early trace.Event
	// runFrom is when the current run began on its CPU (recorded, or
	// estimated for a lost switch-in), for Task.timeOn.
	runFrom int64
}

// selfWake is a wakeup a task received while running on its CPU, from an
// interrupt there: a timer it armed for a time already passed fired before
// it could sleep (hrtimer_wakeup through try_to_wake_up of current,
// kernel/sched/core.c v6.18, emits sched_waking and sched_wakeup though
// the task never left the CPU).
type selfWake struct {
	b      int
	off, t int64
}

// updCand is a candidate update point: offset off into burst b of task i,
// at time t on cpu.
type updCand struct {
	i, b int
	off  int64
	t    int64
	cpu  trace.CPU
}

type extractor struct {
	m          *Model
	st         []ext
	byTID      map[trace.TID]int
	cpuCurr    []trace.TID
	cpuLast    []int64 // ns, last sched_switch per CPU
	cpuN       []int   // sched_switch events per CPU
	idleExit   []int64 // ns, when each CPU last switched from idle to a task (-1 never)
	idle       []int64
	preempt    []int64
	seenWaking bool
	pre        map[trace.TID]preName
	sawRT      bool      // the trace has sched_stat_runtime
	lastWake   []wakeRec // per CPU: the last dependency wakeup emitted there
	ovSum      int64     // ns: Σ (run between recorded switches − its sched_stat_runtime)
	ovN        int64     // runs in ovSum
	cands      []updCand // candidate update points, in trace order
	enqAt      []int64   // per CPU: ns of the last wakeup, new task or migration aimed at it
	nEnqueue   int       // candidates left out as an enqueue's
	byPID      map[trace.PID][]int
	// maxCPU bounds the CPU numbers an event may carry (checkEvent): the
	// trace's available CPUs when its header states them, else MaxCPU.
	maxCPU trace.CPU
	t0     int64 // ns, the first event's time (first)
}

// lastWakeOn returns the last dependency wakeup emitted on cpu (waker -1
// when none, or cpu is unknown).
func (x *extractor) lastWakeOn(cpu trace.CPU) wakeRec {
	if cpu < 0 || int(cpu) >= len(x.lastWake) {
		return wakeRec{waker: -1}
	}
	return x.lastWake[cpu]
}

// wakeRec is a dependency wakeup: waker woke wakee at t (task indexes).
type wakeRec struct {
	waker, wakee int
	t            int64
}

// preName is what synthesized records said about a task that existed
// before the trace started.
type preName struct {
	comm string
	pid  trace.PID
}

// Extract reads src to its end and builds the workload model. It keeps the
// observed schedule for as-traced replays. Errors are the source's.
func Extract(src trace.Source) (*Model, error) {
	x := &extractor{m: &Model{WorkloadRoot: -1, Start: -1}, byTID: map[trace.TID]int{}, pre: map[trace.TID]preName{}, byPID: map[trace.PID][]int{},
		maxCPU: MaxCPU}
	if m := src.Meta(); m != nil && m.NrCPUsAvail > 0 && m.NrCPUsAvail < MaxCPU {
		x.maxCPU = trace.CPU(m.NrCPUsAvail)
	}
	// Each event waits for the next one before it is taken (settle): an
	// event far from both neighbours is damage.
	var pend trace.Event
	havePend := false
	// The source is decoded on a goroutine of its own, a few batches ahead
	// (its Meta is read again only after its end).
	pf := trace.Prefetch(src, nil)
	for {
		e, err := pf.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // the source's own error: it names the file and the problem
		}
		ev := *e
		if !x.checkEvent(&ev) {
			continue
		}
		if havePend {
			x.settle(pend, ev.Time)
		}
		pend, havePend = ev, true
	}
	if havePend {
		x.settle(pend, -1)
	}
	if m := src.Meta(); m != nil {
		x.m.Meta.Format, x.m.Meta.Hostname, x.m.Meta.OSRelease = m.Format, m.Hostname, m.OSRelease
		x.m.Meta.Arch, x.m.Meta.Tool, x.m.Meta.Cmdline = m.Arch, m.Tool, m.Cmdline
		x.m.Meta.NrCPUs, x.m.Meta.Clock, x.m.Meta.LLCs = m.NrCPUs, m.Clock, m.LLCs
		x.m.Meta.Cgroups, x.m.Meta.CgroupSettings, x.m.Meta.Autogroup = m.Cgroups, m.CgroupSettings, m.Autogroup
		for i := range x.m.Tasks {
			if id := x.m.Tasks[i].CgroupID; id != 0 {
				if path, ok := m.Cgroups[id]; ok {
					x.m.Tasks[i].Cgroup = path
				} else {
					x.m.Tasks[i].Cgroup = fmt.Sprintf("cgroup id %d (no path recorded)", id)
				}
			}
		}
		if m.NrCPUs > x.m.NrCPUs {
			x.m.NrCPUs = m.NrCPUs
		}
	}
	x.finish()
	return x.m, nil
}

// MaxCPU bounds the CPU numbers Extract takes from a trace whose header
// does not state its available CPUs: 8192, the largest NR_CPUS Linux
// builds (x86 CONFIG_MAXSMP, arch/x86/Kconfig v6.18). A larger number is
// damage; taken as it stands it sized per-CPU tables of billions of
// entries (a damaged CPU field of 0x36311600 ran out of memory).
const MaxCPU = 8192

// maxPreTraceRun bounds the run time a task can have had on its CPU before
// the trace began, as its first sched_stat_runtime reports it: 1 s, over
// 200 ticks at 250 Hz; the kernel charges a running fair task at every
// tick (task_tick_fair -> update_curr), so a real one is a tick or less.
const maxPreTraceRun = int64(1e9)

// checkEvent reports whether ev can be taken into the model: its CPUs are
// -1 (unknown) or below the trace's bound, its time is not negative, and
// a sched_stat_runtime reports no more run time than the trace has had
// (plus maxPreTraceRun); settle checks its time against its neighbours.
// An event that fails is damage, counted in Model.Stats.Skipped and as a warning in
// Model.Meta.Warnings, and skipped: a CPU number indexes per-CPU state,
// and a run time or time stretches a burst the simulator ticks through.
func (x *extractor) checkEvent(ev *trace.Event) bool {
	bad := func(c trace.CPU) bool { return c < -1 || c >= x.maxCPU }
	var why string
	switch {
	case bad(ev.CPU):
		why = fmt.Sprintf("CPU %d", ev.CPU)
	case (ev.Kind == trace.KindWaking || ev.Kind == trace.KindWakeup || ev.Kind == trace.KindWakeupNew) && bad(ev.TargetCPU):
		why = fmt.Sprintf("target CPU %d", ev.TargetCPU)
	case ev.Kind == trace.KindMigrate && (bad(ev.OrigCPU) || bad(ev.DestCPU)):
		why = fmt.Sprintf("CPUs %d -> %d", ev.OrigCPU, ev.DestCPU)
	case ev.Time < 0:
		why = "a negative time"
	case ev.Kind == trace.KindRuntime && (ev.Runtime < 0 || ev.Runtime > ev.Time-x.first(ev.Time)+maxPreTraceRun):
		why = fmt.Sprintf("a run time of %d ns in a trace of %d ns", ev.Runtime, ev.Time-x.first(ev.Time))
	default:
		x.first(ev.Time)
		return true
	}
	x.skip(ev, why)
	return false
}

// first returns the time of the first event checkEvent passed with a
// time (synthesized records at time 0 aside), t when there is none yet.
func (x *extractor) first(t int64) int64 {
	if x.t0 <= 0 && t > 0 {
		x.t0 = t
	}
	return min(x.t0, t)
}

// skip counts ev as damage, said by why.
func (x *extractor) skip(ev *trace.Event, why string) {
	x.m.Stats.Skipped++
	x.m.Meta.Warnings.Add("replay-skipped", "replay: %s at %d ns (task %d): %s is outside what the trace can hold: damaged, skipped", ev.Kind, ev.Time, ev.TID, why)
}

// maxGap is the longest time between two neighbouring events Extract
// takes for real when the event is isolated: one hour. An event more than
// that after the trace so far, whose next event is earlier than it (or
// that ends the trace), or a first event more than that before the next
// one, is a time with a high bit damaged, not an hour of nothing: taken
// for real, the task on CPU across it ran for the gap (a sample time
// flipped to 9,007,886 s made a replay tick through 104 days). Judging
// by both neighbours keeps one such event from cutting off the rest
// (those after it would all be earlier than it); a real pause of an hour
// and more, with events after it, is kept. A 10-minute capture of a busy
// server has events every few ms.
const maxGap = int64(3600e9)

// settle takes ev into the model, or skips it as damage: when its time is
// before the previous event's taken, or it is isolated (maxGap) between
// the events taken so far and next, the time of the event after it (-1:
// ev ends the trace).
func (x *extractor) settle(ev trace.Event, next int64) {
	m := x.m
	synth := m.Start < 0 && ev.CPU < 0 && (ev.Kind == trace.KindFork || ev.Kind == trace.KindComm || ev.Kind == trace.KindExec)
	switch {
	case synth: // (perf's records for tasks alive at the start: see event)
	case m.Start >= 0 && ev.Time < m.End:
		x.skip(&ev, fmt.Sprintf("a time before the previous event's (%d ns)", m.End))
		return
	case m.Start >= 0 && ev.Time-m.End > maxGap && next < 0:
		x.skip(&ev, fmt.Sprintf("a time %.3f s after the previous event, ending the trace,", float64(ev.Time-m.End)/1e9))
		return
	case m.Start >= 0 && ev.Time-m.End > maxGap && next < ev.Time:
		x.skip(&ev, fmt.Sprintf("a time %.3f s after the previous event, with the next one earlier,", float64(ev.Time-m.End)/1e9))
		return
	case m.Start < 0 && next > ev.Time+maxGap:
		x.skip(&ev, fmt.Sprintf("a time %.3f s before the next event, starting the trace,", float64(next-ev.Time)/1e9))
		return
	}
	x.event(ev)
}

func (x *extractor) cpu(c trace.CPU) {
	for int(c) >= len(x.cpuCurr) {
		x.cpuCurr = append(x.cpuCurr, -1)
		x.cpuLast = append(x.cpuLast, 0)
		x.cpuN = append(x.cpuN, 0)
		x.idleExit = append(x.idleExit, -1)
		x.lastWake = append(x.lastWake, wakeRec{waker: -1})
		x.enqAt = append(x.enqAt, -1)
	}
	if int(c)+1 > x.m.NrCPUs {
		x.m.NrCPUs = int(c) + 1
	}
}

// task returns the live identity of tid, creating one alive at the start.
func (x *extractor) task(tid trace.TID, t int64, cpu trace.CPU, init InitState) int {
	if i, ok := x.byTID[tid]; ok {
		return i
	}
	return x.newTask(tid, t, cpu, init, -1)
}

func (x *extractor) newTask(tid trace.TID, t int64, cpu trace.CPU, init InitState, parent int) int {
	i := len(x.m.Tasks)
	x.m.Tasks = append(x.m.Tasks, Task{TID: tid, PID: -1, Prio: -1, Parent: parent, Init: init, CPU: int(cpu), Start: t, Last: t,
		Bursts: []Burst{{}}, Repeat: -1})
	x.st = append(x.st, ext{idx: i, wakeAt: -1, inAt: -1, pend: -1})
	if p, ok := x.pre[tid]; ok && parent < 0 {
		x.m.Tasks[i].Comm = p.comm
		if p.pid >= 0 {
			x.m.Tasks[i].PID = p.pid
			x.byPID[p.pid] = append(x.byPID[p.pid], i)
		}
	}
	// Named by perf's record-start COMM, or by the fork that creates it.
	x.m.Tasks[i].Unnamed = x.m.Tasks[i].Comm == "" && parent < 0
	x.byTID[tid] = i
	if init == InitSleeping {
		// The empty first burst ends in the sleep the task was in.
		x.m.Tasks[i].Bursts = []Burst{{End: EndBlock}, {}}
		x.st[i].sleeping = true
		x.st[i].blocked = t
	}
	if parent >= 0 && x.m.Tasks[parent].Workload {
		x.m.Tasks[i].Workload = true
	}
	return i
}

func (x *extractor) ident(i int, ev *trace.Event, pid trace.PID, comm string, prio int32) {
	tk := &x.m.Tasks[i]
	tk.Last = ev.Time
	if pid >= 0 && tk.PID != pid {
		tk.PID = pid
		x.byPID[pid] = append(x.byPID[pid], i)
	}
	// As in trace.Tasks (which names the rows of every report): a
	// tracepoint's comm only names a task that has no name yet; perf's
	// COMM records and exec rename it. (A kworker's sched_switch says
	// "kworker/0:0" while perf names the thread "kworker/0:0-events".)
	if comm != "" && tk.Comm == "" {
		tk.Comm = comm
	}
	if comm == sessionLeaderComm {
		tk.setsid = true
	}

	if prio >= 0 {
		tk.Prio = prio
	}
}

// tail is the run time of a running task since its last mark that counts
// into its burst: the time on CPU when the trace has no sched_stat_runtime,
// else nothing (the kernel charges a task's time in sched_stat_runtime,
// emitted right before it leaves the CPU; perf's Runtime column is their
// sum, and bursts must add up to it).
func (x *extractor) tail(s *ext, t int64) int64 {
	if x.sawRT || t <= s.segStart {
		return 0
	}
	return t - s.segStart
}

// consumed returns how far task i is into its current burst at time t.
func (x *extractor) consumed(i int, t int64) int64 {
	s := &x.st[i]
	if s.running && t > s.segStart {
		return s.accum + t - s.segStart
	}
	return s.accum
}

func (x *extractor) event(ev trace.Event) {
	m := x.m
	if m.Start < 0 && ev.CPU < 0 && (ev.Kind == trace.KindFork || ev.Kind == trace.KindComm || ev.Kind == trace.KindExec) {
		// Synthesized at record start (perf's PERF_RECORD_FORK/COMM for
		// tasks that already existed): names only, no fork in the trace.
		m.Recorded.Append(ev)
		tid, comm, pid := ev.TID, ev.Comm, ev.PID
		if ev.Kind == trace.KindFork {
			tid, comm, pid = ev.ChildTID, ev.ChildComm, ev.ChildPID
		}
		x.preName(tid, comm, pid)
		return
	}
	if m.Start < 0 {
		m.Start = ev.Time
	}
	m.End = ev.Time
	if ev.CPU >= 0 {
		x.cpu(ev.CPU)
	}
	if ev.Kind != trace.KindSwitch {
		x.lostSwitchIn(ev)
	}
	switch ev.Kind {
	case trace.KindSwitch:
		m.Recorded.Append(ev)
		if ev.CPU >= 0 && ev.CPU < policies.MaxCPUs {
			m.CPUsSeen |= 1 << uint(ev.CPU)
		}
		x.switchEv(ev)
	case trace.KindWaking, trace.KindWakeup:
		if ev.Kind == trace.KindWaking {
			x.seenWaking = true
		} else if x.seenWaking {
			m.Recorded.Append(ev)
			return // sched_wakeup beside sched_waking: the waking one counts
		}
		m.Recorded.Append(ev)
		x.wake(ev)
	case trace.KindWakeupNew:
		m.Recorded.Append(ev)
		if _, known := x.byTID[ev.TID]; !known && ev.TID > 0 {
			// No fork event (trace-cmd or ftrace without
			// sched_process_fork): the task waking a new task is its parent.
			parent := ev.WakerTID
			if parent < 0 {
				parent = ev.CurTID
			}
			if p, ok := x.byTID[parent]; ok && parent > 0 && x.st[p].running {
				f := trace.NewEvent(ev.Time, ev.CPU, trace.KindFork)
				f.TID, f.PID, f.ChildTID, f.ChildPID, f.ChildComm = parent, -1, ev.TID, ev.PID, ev.Comm
				x.fork(f)
			}
		}
		i := x.task(ev.TID, ev.Time, ev.TargetCPU, InitRunnable)
		x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
		x.noteWake(i, ev)
	case trace.KindFork:
		m.Recorded.Append(ev)
		x.markEnqueue(ev.CPU, ev.Time) // task_fork_fair accounts the parent
		x.fork(ev)
	case trace.KindExit:
		m.Recorded.Append(ev)
		if i, ok := x.byTID[ev.TID]; ok {
			x.st[i].dead = true
		}
	case trace.KindMigrate:
		m.Recorded.Append(ev)
		x.markEnqueue(ev.DestCPU, ev.Time) // enqueued there
		x.markEnqueue(ev.OrigCPU, ev.Time) // and dequeued here: both account their current task
		x.stopperMove(ev)
	case trace.KindRuntime:
		m.Recorded.Append(ev)
		x.sawRT = true
		// The kernel's own accounting (update_curr) replaces the time on
		// CPU measured from switch timestamps since the last mark, so
		// bursts add up to perf's Runtime column.
		if ev.TID > 0 && ev.Runtime > 0 {
			// A task's first event may be its sched_stat_runtime (it ran
			// since before the trace): that CPU time is its first burst's,
			// as perf's Runtime column counts it.
			i := x.task(ev.TID, ev.Time, ev.CPU, InitRunnable)
			s := &x.st[i]
			switch bs := x.m.Tasks[i].Bursts; {
			case s.running:
				if s.lostIn && ev.CPU == s.cpu && ev.CurTID == ev.TID {
					x.dateLostSwitchIn(i, ev.Time-ev.Runtime)
				}
				x.commitPend(i)
				s.accum += ev.Runtime
				s.segStart = max(ev.Time, s.segStart)
				s.rtIn += ev.Runtime
				s.pend, s.pendT = s.accum, ev.Time
				// Not the task's own when another CPU emitted it (a
				// remote enqueue accounted this CPU's current task) or
				// something was just enqueued here.
				s.pendEnqueue = ev.CPU != s.cpu || s.cpu >= 0 && int(s.cpu) < len(x.enqAt) && x.enqAt[s.cpu] >= 0 &&
					ev.Time-x.enqAt[s.cpu] <= enqueueWindow
			case s.sleeping && len(bs) >= 2 && bs[len(bs)-2].End == EndBlock:
				// Charged after the switch-out (same timestamp, other
				// order): it belongs to the burst that just ended.
				bs[len(bs)-2].Len += ev.Runtime
			default:
				s.accum += ev.Runtime
			}
		}
	case trace.KindExec, trace.KindComm:
		m.Recorded.Append(ev)
		if ev.Comm == "" || ev.TID <= 0 {
			break
		}
		if i, ok := x.byTID[ev.TID]; ok {
			m.Tasks[i].Comm, m.Tasks[i].Unnamed = ev.Comm, false
		} else {
			// Named before its first scheduler event (the text readers
			// name each task as they first meet it): keep the name for
			// newTask, as the reports name the row.
			x.preName(ev.TID, ev.Comm, ev.PID)
		}
	}
}

// preName remembers the name (and pid, when known) of a task a record
// named before the task had an event of its own.
func (x *extractor) preName(tid trace.TID, comm string, pid trace.PID) {
	p, ok := x.pre[tid]
	if !ok {
		p.pid = -1
	}
	if comm != "" {
		p.comm = comm
	}
	if pid >= 0 {
		p.pid = pid
	}
	x.pre[tid] = p
}

func (x *extractor) fork(ev trace.Event) {
	if ev.ChildTID <= 0 {
		return
	}
	if i, ok := x.byTID[ev.ChildTID]; ok && !x.st[i].dead {
		return // the same fork reported twice (tracepoint and PERF_RECORD_FORK)
	}
	p := x.task(ev.TID, ev.Time, ev.CPU, InitRunnable)
	x.ident(p, &ev, ev.PID, ev.Comm, -1)
	c := x.newTask(ev.ChildTID, ev.Time, ev.CPU, InitForked, p)
	x.m.Tasks[c].PID, x.m.Tasks[c].Comm, x.m.Tasks[c].Prio = ev.ChildPID, ev.ChildComm, x.m.Tasks[p].Prio
	x.byPID[ev.ChildPID] = append(x.byPID[ev.ChildPID], c)
	if x.m.WorkloadRoot < 0 && isRecorder(x.m.Tasks[p].Comm) && !isRecorder(ev.ChildComm) || x.m.WorkloadRoot < 0 && x.m.Tasks[p].Comm == "perf" {
		x.m.WorkloadRoot = ev.ChildTID
		x.m.Tasks[c].Workload = true
	}
	b := &x.m.Tasks[p].Bursts[len(x.m.Tasks[p].Bursts)-1]
	b.Actions = append(b.Actions, Action{At: x.consumed(p, ev.Time), Kind: ActFork, Target: c})
	x.m.Stats.Forks++
}

// isRecorder reports whether comm is the recording tool, whose first child
// is the traced command (perf forks "perf-exec", which execs the workload).
func isRecorder(comm string) bool {
	switch path.Base(comm) {
	case "perf", "trace-cmd", "traceview":
		return true
	}
	return false
}

func (x *extractor) switchEv(ev trace.Event) {
	t := ev.Time
	if ev.CPU >= 0 {
		if c := x.cpuCurr[ev.CPU]; c > 0 && c != ev.TID {
			// The task this CPU last switched in left it unseen (lost
			// switch-out): assume it blocked at once.
			if i, ok := x.byTID[c]; ok && x.st[i].running && x.st[i].cpu == ev.CPU {
				s := &x.st[i]
				s.running, s.pend = false, -1
				x.endBurst(i, EndBlock)
				s.sleeping, s.blocked = true, s.segStart
			}
		}
	}
	if ev.TID > 0 {
		i := x.task(ev.TID, t, ev.CPU, InitRunnable)
		x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
		if ev.Cgroup != 0 {
			x.m.Tasks[i].CgroupID = ev.Cgroup
		}
		s := &x.st[i]
		if !s.running {
			// It ran without a recorded switch-in: since before the trace,
			// or the trace lost events (perf's "context switch bugs").
			// It ran at most since the CPU's previous switch.
			from := x.m.Start
			if ev.CPU >= 0 && x.cpuLast[ev.CPU] > 0 {
				from = x.cpuLast[ev.CPU]
			}
			if s.sleeping {
				x.setCause(i, Cause{Kind: CauseExternal, At: from, Inferred: true}, from)
			}
			if from < x.m.Tasks[i].Start {
				x.m.Tasks[i].Start = from
			}
			s.running, s.segStart, s.cpu, s.runFrom = true, from, ev.CPU, from
		}
		s.pend = -1 // the switch-out's own update_curr
		if s.running {
			if s.inAt >= 0 && s.cpu == ev.CPU {
				x.ovSum += t - s.inAt - s.rtIn // CPU time of this run charged to no task
				x.ovN++
			}
			if s.cpu == ev.CPU && t > s.runFrom {
				x.m.Tasks[i].countTime(ev.CPU, t-s.runFrom)
			}
			s.accum += x.tail(s, t)
			s.running = false
		}
		s.inAt = -1
		switch {
		case ev.PrevState.Runnable():
			s.wakeAt, s.wakeIdle = t, false // waits for the CPU from now (perf's R semantics)
			s.pp = 0
			// (ev.CPU is checked before it indexes: -1 is "unknown".)
			if lw := x.lastWakeOn(ev.CPU); lw.waker == i && t-lw.t <= pingPongWindow {
				if n, ok := x.byTID[ev.NextTID]; ok && n == lw.wakee {
					s.pp, s.ppAt = n+1, t // preempted by the task it just woke
				}
			}
		case ev.PrevState&(trace.StateDead|trace.StateZombie) != 0 || s.dead:
			x.endBurst(i, EndExit)
			delete(x.byTID, ev.TID)
			x.m.Stats.Exits++
		default:
			x.endBurst(i, EndBlock)
			s.sleeping, s.blocked = true, t
			if e := s.early; e.Kind != 0 && t-e.Time <= earlyWakeWindow {
				e.Time = t
				x.wake(e)
			}
		}
		s.early = trace.Event{}
	}
	if ev.NextTID > 0 {
		i := x.task(ev.NextTID, t, ev.CPU, InitRunnable)
		x.ident(i, &ev, ev.NextPID, ev.NextComm, ev.NextPrio)
		s := &x.st[i]
		if s.pp > 0 {
			x.pingPong(i, ev)
		}
		if s.sleeping {
			// Switched in without a recorded wakeup: an external event now.
			x.setCause(i, Cause{Kind: CauseExternal, At: t, Inferred: true}, t)
		}
		if s.wakeAt >= 0 {
			d := t - s.wakeAt
			next := ev.CPU >= 0 && s.wakeCPU == ev.CPU && x.cpuN[ev.CPU] == s.wakeN // the CPU's very next switch
			switch {
			case next && s.wakeIdle:
				x.idle = append(x.idle, d)
			case next && ev.TID > 0 && ev.PrevState.Runnable():
				x.preempt = append(x.preempt, d) // it preempted the running task
			}
			s.wakeAt = -1
		}
		if s.running && s.cpu != ev.CPU {
			s.accum += x.tail(s, t) // switched in elsewhere without a switch-out here
		}
		if ev.TID == 0 && ev.CPU >= 0 && int(ev.CPU) < len(x.idleExit) {
			x.idleExit[ev.CPU] = t
		}
		if bs := x.m.Tasks[i].Bursts; s.accum == 0 && !s.running && len(bs) > 0 && bs[len(bs)-1].Len == 0 {
			bs[len(bs)-1].FromIdle = ev.CPU >= 0 && int(ev.CPU) < len(x.idleExit) && x.idleExit[ev.CPU] >= 0 && t-x.idleExit[ev.CPU] < idleWarmup
		}
		s.running, s.segStart, s.cpu = true, t, ev.CPU
		s.inAt, s.rtIn, s.runFrom = t, 0, t
		if ev.CPU >= 0 && ev.CPU < policies.MaxCPUs {
			x.m.Tasks[i].countIn(ev.CPU)
		}
	}
	if ev.CPU >= 0 {
		x.cpuCurr[ev.CPU] = ev.NextTID
		x.cpuLast[ev.CPU] = t
		x.cpuN[ev.CPU]++
	}
}

// enqueueWindow: a mid-run sched_stat_runtime of a CPU's current task at
// most this many ns after a wakeup, new task or migration aimed at that CPU
// is taken as the enqueue's update_curr (enqueue_entity accounts the
// current task first, kernel/sched/fair.c), not the task's own. 30 µs
// covers the IPI of a remote wakeup on this project's VM (measured: the
// enqueue's sched_stat_runtime follows the sched_waking by 2-20 µs in
// ../shared/traces/mi6.2cpu and srv.2cpu).
const enqueueWindow = 30_000

// markEnqueue notes that something was enqueued on cpu at t.
func (x *extractor) markEnqueue(cpu trace.CPU, t int64) {
	if cpu >= 0 && int(cpu) < len(x.enqAt) {
		x.enqAt[cpu] = t
	}
}

// commitPend turns task i's pending mid-run sched_stat_runtime into a
// candidate update point: a later one of the same run shows it was not
// the switch-out's.
func (x *extractor) commitPend(i int) {
	s := &x.st[i]
	if s.pend < 0 {
		return
	}
	if s.pendEnqueue {
		x.nEnqueue++
	} else {
		x.cands = append(x.cands, updCand{i: i, b: len(x.m.Tasks[i].Bursts) - 1, off: s.pend, t: s.pendT, cpu: s.cpu})
	}
	s.pend = -1
}

// pingPongWindow: a task preempted by the task it woke at most this many ns
// before, that gets its CPU back when that task blocks there within this
// many ns (a quick reply, not independent work), is taken to have waited
// for it (see pingPong).
const pingPongWindow = 100_000

// pingPong handles the switch back to task i after the task it woke
// preempted it: when that task just blocked on the same CPU and handed the
// CPU straight back, i evidently waited for it (sched-pipe's writer waits
// for the reader's reply, which it finds ready and so never blocks). The
// preemption becomes an inferred blocking point of i, ended by the wakee
// at the end of the burst it just finished; otherwise a faster schedule
// would let i run ahead of the data it consumes.
func (x *extractor) pingPong(i int, ev trace.Event) {
	s := &x.st[i]
	w := s.pp - 1
	s.pp = 0
	ws := &x.st[w]
	if ev.TID <= 0 || x.byTID[ev.TID] != w || !ws.sleeping || ev.PrevState.Runnable() || s.running ||
		ev.Time-s.ppAt > pingPongWindow {
		return
	}
	wb := x.m.Tasks[w].Bursts
	if len(wb) < 2 || wb[len(wb)-2].End != EndBlock {
		return
	}
	x.endBurst(i, EndBlock)
	ib := x.m.Tasks[i].Bursts
	ib[len(ib)-2].Wake = Cause{Kind: CauseDependency, Waker: w, Inferred: true}
	ib[len(ib)-2].Slept = ev.Time - s.ppAt
	b := &wb[len(wb)-2]
	b.Actions = append(b.Actions, Action{At: b.Len, Kind: ActWake, Target: i, Block: len(ib) - 2})
	x.m.Stats.PingPongs++
}

func (x *extractor) endBurst(i int, end EndKind) {
	s := &x.st[i]
	bs := &x.m.Tasks[i].Bursts
	b := &(*bs)[len(*bs)-1]
	b.Len, b.End = s.accum, end
	for k := range b.Actions {
		if b.Actions[k].At > b.Len {
			b.Actions[k].At = b.Len
		}
	}
	s.accum, s.pend = 0, -1
	if end == EndBlock {
		*bs = append(*bs, Burst{})
	}
}

// earlyWakeWindow is how long before a task's switch-out into sleep a
// wakeup sent to it from another CPU still ends that sleep: a task that
// set its state and entered __schedule is still current when another CPU
// wakes it (try_to_wake_up finds p->on_cpu and queues it once the switch
// is done, kernel/sched/core.c v6.18), so its sched_switch shows it
// sleeping after the sched_waking that ends the sleep. Without this the
// wakeup was taken for one of a running task, and the run after it,
// often with no switch-in recorded either, had no cause. Measured on
// ../shared/traces: sched_waking 2 µs before the wakee's switch-out to S
// (pipe-ftrace, 817.799325 and .799327) and 11 µs before one to D
// (stress-futex, 683.898353 and .898364); 20 µs leaves room for a slower
// __schedule.
const earlyWakeWindow = 20_000

// lostSwitchIn starts a run of the task current at ev (CurTID, perf's
// sample tid: the task on ev.CPU when the event was recorded) when the
// records have that task asleep or waiting for a CPU, and ev.CPU idle
// since its last switch: its switch-in was lost, and for a sleeping task
// its wakeup too. Seen on this project's VM
// (kernel 6.18, 2026-12-03): a timer wakeup on an idle vCPU and the switch
// out of idle that followed were not recorded, though perf counted no
// lost events (traceview latency warns "the trace lacks the switches out
// of: idle"); in a recording of an open-loop request generator 3380 of its
// 4992 requests began that way. Without this the task's own events (its
// sched_waking of a worker, its sched_stat_runtime) were read as coming
// from a sleeping task: the worker's wakeup became a timer, and the
// generator's run started only at its switch-out.
//
// The run starts at ev.Time, the first evidence (dateLostSwitchIn moves
// it back with the run's first own sched_stat_runtime), and its wakeup is
// an inferred timer at that time, as a wakeup from an idle CPU with no
// recorded waker is in wake. An event at a CPU's last switch (the same
// timestamp, in either order) proves nothing and is left alone.
func (x *extractor) lostSwitchIn(ev trace.Event) {
	if ev.CurTID <= 0 || ev.CurGone != 0 || ev.CPU < 0 || int(ev.CPU) >= len(x.cpuCurr) ||
		x.cpuCurr[ev.CPU] != 0 || ev.Time <= x.cpuLast[ev.CPU] {
		return
	}
	i, ok := x.byTID[ev.CurTID]
	if !ok {
		return
	}
	s := &x.st[i]
	if s.running || s.dead || ev.Time <= s.blocked || s.wakeAt >= 0 && ev.Time <= s.wakeAt {
		return
	}
	t := ev.Time
	s.lostLo = max(s.blocked, s.wakeAt)
	if s.sleeping {
		x.setCause(i, Cause{Kind: CauseTimer, Delay: t - s.blocked, At: t, Inferred: true}, t)
	}
	s.running, s.segStart, s.cpu = true, t, ev.CPU
	s.inAt, s.rtIn, s.wakeAt, s.lostIn, s.runFrom = -1, 0, -1, true, t
	if ev.CPU < policies.MaxCPUs {
		x.m.Tasks[i].countIn(ev.CPU)
	}
	x.cpuCurr[ev.CPU] = ev.CurTID
	x.m.Stats.LostSwitchIns++
}

// dateLostSwitchIn moves the start of task i's run that began with a lost
// switch-in back to in, the time its first own sched_stat_runtime implies
// (event time minus the run time it reports: update_curr charges the time
// since exec_start, set at the switch-in, kernel/sched/fair.c v6.18), when
// in lies after the task blocked and after its CPU's last recorded switch.
// Its wakeup moves with it.
func (x *extractor) dateLostSwitchIn(i int, in int64) {
	s := &x.st[i]
	s.lostIn = false
	bs := x.m.Tasks[i].Bursts
	if len(bs) < 2 || in >= s.segStart || in <= s.lostLo || s.cpu < 0 || in <= x.cpuLast[s.cpu] || s.accum != 0 {
		return
	}
	if b := &bs[len(bs)-2]; b.Wake.Kind == CauseTimer && b.Wake.Inferred && b.Wake.At == s.segStart {
		b.Wake.At, b.Wake.Delay, b.Slept = in, in-s.blocked, in-s.blocked
	}
	// The actions of the run so far were placed at their time since the
	// first evidence: they lie that much further into the burst.
	cur := &bs[len(bs)-1]
	for k := range cur.Actions {
		cur.Actions[k].At += s.segStart - in
	}
	s.segStart, s.runFrom = in, in
}

// setCause records what ended task i's current block and starts its next
// burst's bookkeeping.
func (x *extractor) setCause(i int, c Cause, t int64) {
	s := &x.st[i]
	bs := x.m.Tasks[i].Bursts
	b := &bs[len(bs)-2] // the burst before the block (endBurst appended the next one)
	b.Wake = c
	b.Slept = t - s.blocked
	s.sleeping = false
}

func (x *extractor) wake(ev trace.Event) {
	t := ev.Time
	i := x.task(ev.TID, t, ev.CPU, InitSleeping)
	x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
	s := &x.st[i]
	if !s.sleeping {
		if s.running && ev.CPU == s.cpu && ev.CurTID == ev.TID && ev.TID > 0 {
			bs := x.m.Tasks[i].Bursts
			s.selfWakes = append(s.selfWakes, selfWake{b: len(bs) - 1, off: x.consumed(i, t), t: t})
		}
		if s.running && ev.CPU != s.cpu {
			s.early = ev // see earlyWakeWindow
		}
		return // already runnable: nothing ends here
	}
	waker := ev.WakerTID
	inferred := waker < 0
	if waker < 0 {
		waker = ev.CurTID
	}
	w, known := x.byTID[waker]
	var c Cause
	switch {
	case x.m.Tasks[i].Init == InitSleeping && len(x.m.Tasks[i].Bursts) == 2 && x.m.Tasks[i].Bursts[0].Len == 0 && s.blocked == x.m.Tasks[i].Start:
		// Asleep since before the trace: when it slept is unknown.
		c = Cause{Kind: CauseExternal, At: t, Inferred: true}
	case waker > 0 && known && waker != ev.TID && x.st[w].running && ev.FromIRQ != trace.Yes:
		bs := x.m.Tasks[w].Bursts
		bs[len(bs)-1].Actions = append(bs[len(bs)-1].Actions,
			Action{At: x.consumed(w, t), Kind: ActWake, Target: i, Block: len(x.m.Tasks[i].Bursts) - 2,
				Remote: ev.CPU >= 0 && ev.TargetCPU >= 0 && ev.CPU != ev.TargetCPU})
		c = Cause{Kind: CauseDependency, Waker: w, Inferred: inferred}
		nb := &x.m.Tasks[i].Bursts[len(x.m.Tasks[i].Bursts)-1]
		nb.WokenBy, nb.WokenRemote = true, ev.CPU >= 0 && ev.TargetCPU >= 0 && ev.CPU != ev.TargetCPU
		x.noteFIFO(i)
		if ev.CPU >= 0 && int(ev.CPU) < len(x.lastWake) {
			x.lastWake[ev.CPU] = wakeRec{waker: w, wakee: i, t: t}
		}
	default:
		c = Cause{Kind: CauseTimer, Delay: t - s.blocked, At: t, Inferred: ev.FromIRQ != trace.Yes}
	}
	x.setCause(i, c, t)
	x.noteWake(i, ev)
}

func (x *extractor) noteWake(i int, ev trace.Event) {
	s := &x.st[i]
	s.wakeAt = ev.Time
	tc := ev.TargetCPU
	x.markEnqueue(tc, ev.Time)
	s.wakeIdle = tc >= 0 && int(tc) < len(x.cpuCurr) && x.cpuCurr[tc] == 0
	s.wakeCPU = tc
	if tc >= 0 && int(tc) < len(x.cpuN) {
		s.wakeN = x.cpuN[tc]
	}
}

func (x *extractor) finish() {
	m := x.m
	if m.Start < 0 {
		m.Start = 0
	}
	for i := range x.st {
		s := &x.st[i]
		tk := &m.Tasks[i]
		bs := tk.Bursts
		last := &bs[len(bs)-1]
		switch {
		case s.running:
			s.accum += x.tail(s, m.End)
			s.running = false
			x.endBurst(i, EndTrace)
		case s.sleeping:
			// The block after the previous burst never ended: drop the
			// empty trailing burst.
			if len(bs) > 1 && last.Len == 0 && len(last.Actions) == 0 {
				tk.Bursts = bs[:len(bs)-1]
				tk.Bursts[len(tk.Bursts)-1].Wake = Cause{Kind: CauseNever}
			} else {
				last.End = EndBlock
				last.Wake = Cause{Kind: CauseNever}
			}
		case len(bs) > 0 && (last.End != EndExit || last.Len == 0 && s.accum > 0):
			if last.End != EndExit {
				last.Len = s.accum
				last.End = EndTrace
			}
		}
	}
	if m.WorkloadRoot < 0 {
		// The recorder's command line: "perf sched record ... -- CMD ARGS";
		// the traced command is the first task named after CMD.
		args := m.Meta.Cmdline
		for k := 0; k+1 < len(args); k++ {
			if args[k] != "--" {
				continue
			}
			cmd := path.Base(args[k+1])
			for i := range m.Tasks {
				if c := m.Tasks[i].Comm; c == cmd || len(cmd) > 15 && c == cmd[:15] {
					m.WorkloadRoot = m.Tasks[i].TID
					m.Tasks[i].Workload = true
					break
				}
			}
			// CMD may exec another command before any event names it
			// (taskset -c 0 sh -c ..., nice, chrt, env, timeout): the
			// traced command is then the first task named after a later
			// word of the command line.
			for _, a := range args[k+2:] {
				if m.WorkloadRoot >= 0 {
					break
				}
				w := path.Base(a)
				for i := range m.Tasks {
					if c := m.Tasks[i].Comm; c != "" && (c == w || len(w) > 15 && c == w[:15]) && m.Tasks[i].Init != InitForked {
						m.WorkloadRoot = m.Tasks[i].TID
						m.Tasks[i].Workload = true
						break
					}
				}
			}
			break
		}
	}
	if m.WorkloadRoot < 0 {
		x.guessRoot()
	}
	// Workload membership through forks (parents precede children).
	for i := range m.Tasks {
		if p := m.Tasks[i].Parent; p >= 0 && m.Tasks[p].Workload {
			m.Tasks[i].Workload = true
		}
	}
	x.inferPinning()
	x.updatePoints()
	x.absoluteTimers()
	x.inferUntil()
	x.inferPools()
	inferSessions(x.m)
	// The three measurements only read the tasks: they run at once.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); m.RemoteWakeCost, m.WakeCostSamples = measureWakeCost(m.Tasks) }()
	go func() { defer wg.Done(); m.RemoteWokenCost, m.WokenCostSamples = measureWokenCost(m.Tasks) }()
	m.IdleStartCost, m.IdleCostSamples = measureIdleCost(m.Tasks)
	wg.Wait()
	m.Stats.RecoveredArrivals = x.splitArrivals()
	servesArrivals(m)
	m.Stats.QueuedRequests = x.requestQueues()
	st := &m.Stats
	st.Tasks = len(m.Tasks)
	for _, tk := range m.Tasks {
		st.Bursts += len(tk.Bursts)
		for _, b := range tk.Bursts {
			if b.End != EndBlock {
				continue
			}
			st.BlockingPoints++
			switch b.Wake.Kind {
			case CauseDependency:
				st.Dependencies++
			case CauseTimer:
				st.Timers++
			case CauseExternal:
				st.External++
			case CauseNever:
				st.Never++
			}
			if b.Wake.Inferred {
				st.Inferred++
			}
		}
	}
	m.IdleExit = m.boundCost("idle exit", median(x.idle))
	m.WakePreempt = m.boundCost("wakeup preemption", median(x.preempt))
	if x.sawRT && x.ovN > 0 && x.ovSum > 0 {
		m.SwitchCost = m.boundCost("context switch", x.ovSum/x.ovN)
	}
}

// MaxMeasuredCost bounds a cost or latency Extract measures in a trace
// (Model.IdleExit, WakePreempt, SwitchCost): 1 ms. A context switch costs
// a few µs, an idle exit or a reschedule IPI tens of µs even in a VM (the
// largest on ../shared/traces: 30 µs idle exit, 13 µs wakeup preemption
// on messaging.2cpu); a median or mean above 1 ms measures something else
// (a run preempted again before the wakee got the CPU, a vCPU the
// hypervisor did not run) or damage (a context switch of 12,265,122 s was
// measured on a damaged file). It is reported as not measurable.
const MaxMeasuredCost = int64(1e6)

// boundCost returns the measured cost v of name, or 0 (none measured, as
// when the trace shows no case of it) when v is above MaxMeasuredCost,
// recording why in Model.Unmeasured. (Each sample is also bounded by the
// interval it was measured over, by construction: a run's time charged
// to no task is at most the run, as checkEvent keeps times in order and
// run times non-negative; a delay from a wakeup to the switch-in is the
// interval itself. Bounding the mean by the shortest run instead rejected
// plausible costs of undamaged traces: messaging.1cpu's 11.3 µs context
// switch beside a run of 5.1 µs.)
func (m *Model) boundCost(name string, v int64) int64 {
	if v <= MaxMeasuredCost {
		return v
	}
	m.Unmeasured = append(m.Unmeasured, UnmeasuredCost{Name: name, Measured: v, Bound: MaxMeasuredCost})
	return 0
}

// UnmeasuredCost is a cost Extract measured beyond what the trace can
// show (boundCost): Measured ns, above Bound ns (MaxMeasuredCost). The
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

// guessRoot picks the traced command when the trace does not name it (no
// recorder fork, no command line, e.g. trace-cmd extract or raw ftrace): the
// task forked inside the trace, by a task that was not itself forked inside
// it, whose process tree used the most CPU time.
func (x *extractor) guessRoot() {
	m := x.m
	cpu := make([]int64, len(m.Tasks))
	for i := len(m.Tasks) - 1; i >= 0; i-- { // children follow parents
		for _, b := range m.Tasks[i].Bursts {
			cpu[i] += b.Len
		}
		if p := m.Tasks[i].Parent; p >= 0 {
			cpu[p] += cpu[i]
		}
	}
	best := -1
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Init != InitForked || tk.Parent < 0 || m.Tasks[tk.Parent].Init == InitForked {
			continue
		}
		if best < 0 || cpu[i] > cpu[best] {
			best = i
		}
	}
	if best >= 0 {
		m.WorkloadRoot = m.Tasks[best].TID
		m.Tasks[best].Workload = true
	}
}

// stopperMove forgets where a task ran before a CPU's stopper thread
// (migration/N) moved it off that CPU: sched_setaffinity on a task that
// runs where its new mask forbids hands it to the stopper
// (__set_cpus_allowed_ptr -> affine_move_task -> stop_one_cpu_nowait
// (migration_cpu_stop) -> move_queued_task, kernel/sched/core.c, Linux
// 6.x), which preempts it and emits its sched_migrate_task. `taskset -c 0
// CMD` forked on the other CPU runs there for a few µs before it pins
// itself: without this, those µs hid the pinning from inferPinning. Its
// children inherit the mask, so only the moved task's history is reset.
// The stopper also serves active balancing (active_load_balance_cpu_stop),
// which moves a running task the same way; a workload that was not pinned
// still runs on several CPUs afterwards, so inferPinning stays off for it.
func (x *extractor) stopperMove(ev trace.Event) {
	if ev.TID <= 0 || ev.CurTID <= 0 || ev.CPU != ev.OrigCPU {
		return
	}
	cur, ok := x.byTID[ev.CurTID]
	if !ok || !strings.HasPrefix(x.m.Tasks[cur].Comm, "migration/") {
		return
	}
	if i, ok := x.byTID[ev.TID]; ok {
		x.m.Tasks[i].insOn, x.m.Tasks[i].timeOn = x.m.Tasks[i].insOn[:0], x.m.Tasks[i].timeOn[:0]
	}
}

// countIn counts a switch-in of the task on cpu (0..policies.MaxCPUs-1).
func (tk *Task) countIn(cpu trace.CPU) {
	for int(cpu) >= len(tk.insOn) {
		tk.insOn = append(tk.insOn, 0)
	}
	tk.insOn[cpu]++
}

// countTime adds ns of run time on cpu to the task's.
func (tk *Task) countTime(cpu trace.CPU, ns int64) {
	if cpu < 0 || cpu >= policies.MaxCPUs {
		return
	}
	for int(cpu) >= len(tk.timeOn) {
		tk.timeOn = append(tk.timeOn, 0)
	}
	tk.timeOn[cpu] += ns
}

// pinStray is the share of the traced command's run time that may lie on
// other CPUs than the one it is inferred pinned to: `perf sched record --
// sh -c 'taskset -c 0 CMD'` runs the shell perf starts, which is not
// pinned, for a run or two on the other CPU (at its start, before
// taskset's sched_setaffinity, and when its wait returns). Run time, not
// switch-ins, decides: a spinner alone on the other CPU of a two-CPU
// recording switches in a dozen times against a service's thousands, but
// holds half the run time. Measured on the 22 one-CPU recordings of
// ../shared/traces and this project's recordings of 2026-12-03: at most
// 0.034 % of the workload's run time elsewhere (mi9.1cpu: the outer
// shell's 0.69 ms of 2017 ms); on their 36 two-CPU recordings at least
// 22 % (a service beside one spinner), mostly about 50 %.
const pinStray = 0.01

// inferPinning gives the traced command's tasks the affinity of the single
// CPU they ran on (a taskset-pinned workload; the trace cannot say), when
// the trace has several CPUs, at least pinMinSwitches switch-ins of the
// command's tasks were on that CPU and at most pinStray of their run time
// elsewhere.
func (x *extractor) inferPinning() {
	m := x.m
	if m.NrCPUs < 2 || m.WorkloadRoot < 0 {
		return
	}
	var ins []int
	var ns []int64
	var total int64
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		for c, k := range tk.insOn {
			for c >= len(ins) {
				ins = append(ins, 0)
			}
			ins[c] += k
		}
		for c, v := range tk.timeOn {
			for c >= len(ns) {
				ns = append(ns, 0)
			}
			ns[c] += v
			total += v
		}
	}
	top := 0
	for c := range ns {
		if ns[c] > ns[top] {
			top = c
		}
	}
	if total <= 0 || top >= len(ins) || ins[top] < pinMinSwitches || float64(total-ns[top]) > pinStray*float64(total) {
		return
	}
	for i := range m.Tasks {
		if m.Tasks[i].Workload {
			m.Tasks[i].Affinity = policies.CPUSet(1) << uint(top)
			m.Stats.PinnedTasks++
		}
	}
}

// median returns the upper median of v (the element at len(v)/2 of v
// sorted), 0 for none; v is left as it was.
func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	return nth(append([]int64(nil), v...), len(v)/2)
}

// nth returns the element at index k of s sorted ascending, reordering s:
// a quickselect (Hoare's FIND), linear on average where a sort was
// n log n (the medians of measureSlope were a tenth of a large replay).
func nth(s []int64, k int) int64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot; Hoare partition.
		mid := lo + (hi-lo)/2
		a, b, c := s[lo], s[mid], s[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for s[j] > p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k] // between the parts: equal to the pivot
		}
	}
	return s[k]
}

// tickHZs are the CONFIG_HZ values Linux offers (kernel/Kconfig.hz).
var tickHZs = []int{100, 250, 300, 1000}

// tickWindow is the span in ns around the densest 10 µs of the tick
// phase within which a sched_stat_runtime is taken as the tick's
// (task_tick_fair -> update_curr): from tickWindow/4 before to 3/4 after.
// Measured on this project's VM: the tick events of ../shared/traces
// spread over about 60 µs after the period's start (srv.2cpu: 1440-1500 µs
// into each 4 ms period on both CPUs; messaging.wk 708-721 µs).
const tickWindow = 100_000

// inferTick finds the tick rate and phase from the times of the mid-run
// sched_stat_runtime events: for each CONFIG_HZ value the 10 µs bins of
// t mod period, the densest 50 µs window, and its excess over an even
// spread (the score). The lowest HZ scoring at least 80 % of the best
// wins, if the best window holds at least 20 events and 5 % more than an
// even spread would; else 0 (unknown).
func inferTick(ts []int64) (hz int, phase int64) {
	const bin = 10_000
	w := 5 // the densest 50 µs decides the HZ
	// A 250 Hz tick also lies on the 1 ms grid, which then scores almost
	// as well: take the lowest HZ within 80 % of the best score.
	type sc struct {
		score float64
		phase int64
	}
	scores := make([]sc, len(tickHZs))
	for n, h := range tickHZs {
		p := int64(1e9) / int64(h)
		nb := int(p / bin)
		cnt := make([]int, nb)
		for _, t := range ts {
			cnt[int((t%p+p)%p/bin)%nb]++
		}
		sum := 0
		for k := 0; k < w; k++ {
			sum += cnt[k]
		}
		top, at := sum, 0
		for k := 1; k < nb; k++ {
			sum += cnt[(k+w-1)%nb] - cnt[k-1]
			if sum > top {
				top, at = sum, k
			}
		}
		score := float64(top)/float64(len(ts)) - float64(w)/float64(nb)
		if top < 20 {
			score = 0
		}
		// The phase: the densest bin of the window.
		pk := at
		for k := at; k < at+w; k++ {
			if cnt[k%nb] > cnt[pk%nb] {
				pk = k
			}
		}
		scores[n] = sc{score, int64(pk%nb) * bin}
	}
	best := 0.0
	for _, c := range scores {
		best = max(best, c.score)
	}
	if best < 0.05 {
		return 0, 0
	}
	for n, c := range scores {
		if c.score >= 0.8*best {
			return tickHZs[n], c.phase
		}
	}
	return 0, 0
}

// updatePoints infers the tick and keeps the candidate update points that
// are not the tick's as Burst.Updates.
func (x *extractor) updatePoints() {
	m := x.m
	ts := make([]int64, len(x.cands))
	for k, c := range x.cands {
		ts[k] = c.t
	}
	m.HZ, m.TickPhase = inferTick(ts)
	m.Stats.EnqueueUpdates = x.nEnqueue
	var p int64
	if m.HZ > 0 {
		p = int64(1e9) / int64(m.HZ)
	}
	for _, c := range x.cands {
		if p > 0 && ((c.t-m.TickPhase+tickWindow/4)%p+p)%p < tickWindow {
			m.Stats.TickUpdates++
			continue
		}
		b := &m.Tasks[c.i].Bursts[c.b]
		if c.off <= 0 || c.off >= b.Len || len(b.Updates) > 0 && b.Updates[len(b.Updates)-1] >= c.off {
			continue
		}
		b.Updates = append(b.Updates, c.off)
		m.Stats.UpdatePoints++
	}
}

// minTimerSamples is how many timer wakeups a task needs before Extract
// decides from their spread whether they are relative sleeps or absolute.
const minTimerSamples = 4

// maxRelativeSpread is the largest spread of a task's sleep lengths
// (median absolute deviation over the median) that still reads as one
// requested length: a nanosleep(d) loop sleeps d plus the timer slack
// (50 µs by default, kernel/sys.c PR_SET_TIMERSLACK) and the wakeup
// latency. Measured on ../shared/traces: massive_intr's 2 ms and 1 ms
// sleeps spread 0.2-3 %; reqsrv's Poisson arrivals (an absolute
// clock_nanosleep per request) about 50 %, as an exponential's MAD/median
// (≈ 0.7) predicts.
const maxRelativeSpread = 0.25

// absoluteTimers decides, per task, whether its timer wakeups are relative
// sleeps (nanosleep(d): the sleep length is the invariant, and a late task
// wakes late) or absolute (clock_nanosleep(TIMER_ABSTIME), a periodic
// timer, requests arriving at times of their own: the wake time is the
// invariant, whatever the schedule). A relative sleep makes the sleep
// lengths steadier than the intervals between wakeups (those also hold the
// CPU bursts and their delays) and concentrated on the requested length;
// an absolute one makes the intervals at least as steady as the sleeps
// (the sleep absorbs the burst before it). Spread is the median absolute
// deviation, so a few overruns (a periodic loop that missed a period) do
// not decide. Tasks that fail either test get CauseExternal at the
// recorded wake time; the others keep CauseTimer.
func (x *extractor) absoluteTimers() {
	for i := range x.m.Tasks {
		bs := x.m.Tasks[i].Bursts
		var idx []int
		for k := range bs {
			if bs[k].End == EndBlock && bs[k].Wake.Kind == CauseTimer {
				idx = append(idx, k)
			}
		}
		if len(idx) < minTimerSamples {
			continue
		}
		sleeps := make([]int64, len(idx))
		gaps := make([]int64, 0, len(idx)-1)
		for n, k := range idx {
			sleeps[n] = bs[k].Wake.Delay
			if n > 0 {
				gaps = append(gaps, bs[k].Wake.At-bs[idx[n-1]].Wake.At)
			}
		}
		ms, dev := mad(sleeps)
		gm, gdev := mad(gaps)
		if dev <= gdev && float64(dev) <= maxRelativeSpread*float64(ms) {
			continue
		}
		x.m.Tasks[i].Periodic = float64(gdev) <= maxRelativeSpread*float64(gm)
		if x.m.Tasks[i].Periodic {
			x.m.Tasks[i].Period = gm
		}
		for _, k := range idx {
			bs[k].Wake = Cause{Kind: CauseExternal, At: bs[k].Wake.At, Inferred: bs[k].Wake.Inferred}
			x.m.Stats.AbsoluteTimers++
		}
	}
}

// mad returns the median of v and the median absolute deviation from it.
func mad(v []int64) (med, dev int64) {
	if len(v) == 0 {
		return 0, 0
	}
	med = median(v)
	d := make([]int64, len(v))
	for k, x := range v {
		d[k] = max(x-med, med-x)
	}
	return med, median(d)
}

// Deadline inference constants. MinDeadlineLife: a task must live at
// least this long (ns) to be taken for a loop bounded by wall-clock time;
// DeadlineSpread: siblings whose exit times lie within this fraction of
// their mean lifetime of each other ended at one wall-clock time (hog and
// massive_intr siblings of ../shared/traces end within 1.1 % of each other;
// work-bound messaging workers 5-60 %); SpinnerShare: a last burst with at
// least this share of the task's CPU time makes it a spinner.
const (
	MinDeadlineLife = 200_000_000
	DeadlineSpread  = 0.03
	SpinnerShare    = 0.8
)

// inferUntil labels each workload task with how it ends (UntilKind). A
// task is deadline-bound when it is self-paced (a spinner, or a cycle of
// CPU bursts and relative timer sleeps with no other task waking it), it
// exits in the trace after at least MinDeadlineLife, and at least one
// sibling of the same name and parent does too with exit times within
// DeadlineSpread of their mean lifetime: the issue's rule "sibling tasks
// that exit within a few % of the same lifetime with no dependencies
// between them". A lone self-paced task cannot tell a deadline from its
// work and keeps the default (work, or count with three or more blocking
// points); --until overrides either way.
//
// The deadline: a spinner checks the clock as it spins, so its exit time
// is its deadline. A cycle task checks at the top of each cycle: the
// deadline passed between the start of its last full cycle and the wakeup
// that began its final burst; siblings share one deadline (their parent's
// start + duration), so the group's deadline is the midpoint of the
// intersection of those intervals, or of their union when they do not
// intersect. Each task's Deadline is relative to its own start.
// untilCand is a task inferUntil may make deadline-bound.
type untilCand struct {
	i      int
	lo, hi int64 // absolute: the deadline lies in (lo, hi]
}

// loneSpinners makes a spinner with no sibling deadline-bound when a
// clock-paced task of the workload ends with it: within DeadlineSpread of
// its lifetime, the last event of a task woken at absolute times
// (minTimerSamples or more CauseExternal timers, an open-loop generator or
// a periodic loop) or of a task already inferred deadline-bound. One
// command's tasks that stop together, one of them paced by the wall clock,
// share a wall-clock duration: `reqsrv RATE US N 2 & hog 2` ends its
// arrivals and its spinner 2 s after they start (10 ms apart), where a
// spinner doing a fixed amount of work ends when its work is done.
func (x *extractor) loneSpinners(groups map[[2]string][]untilCand) {
	m := x.m
	var witness []int
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		n := 0
		for _, b := range tk.Bursts {
			if b.End == EndBlock && b.Wake.Kind == CauseExternal && !b.Wake.Inferred {
				n++
			}
		}
		if n >= minTimerSamples || tk.Until == UntilDeadline {
			witness = append(witness, i)
		}
	}
	for _, g := range groups {
		if len(g) != 1 || g[0].lo != g[0].hi {
			continue // siblings decide (inferUntil); only spinners here
		}
		tk := &m.Tasks[g[0].i]
		life := tk.Last - tk.Start
		for _, w := range witness {
			d := m.Tasks[w].Last - tk.Last
			if w != g[0].i && float64(max(d, -d)) <= DeadlineSpread*float64(life) {
				tk.Until, tk.UntilInferred, tk.Spinner = UntilDeadline, true, true
				tk.Deadline = g[0].lo - tk.Start
				break
			}
		}
	}
}

// spinBurst finds the spin of task tk (Task.Spinner): the index of a
// burst with at least SpinnerShare of its CPU time after which the task
// only exits (every later burst short, waking no one: their CPU time
// together under 1 − SpinnerShare of the total, and the tail's wall time
// under 1 − SpinnerShare of the task's life: a shell that forks its jobs
// in one burst and then waits for them does not spin), and the time in ns the
// spin ended in the recording: the task's last event less the tail's CPU
// time and sleeps (the tail's waits for the CPU are not known, so the end
// is an upper bound by at most those). -1 when there is none.
func spinBurst(tk *Task) (int, int64) {
	bs := tk.Bursts
	var total int64
	for _, b := range bs {
		total += b.Len
	}
	if total <= 0 {
		return -1, 0
	}
	end, tail := tk.Last, int64(0)
	for k := len(bs) - 1; k >= 0; k-- {
		if float64(bs[k].Len) >= SpinnerShare*float64(total) {
			if float64(tk.Last-end) > (1-SpinnerShare)*float64(tk.Last-tk.Start) {
				return -1, 0 // its work came early and it waited long after: no spin to the end
			}
			return k, end
		}
		tail += bs[k].Len
		if len(bs[k].Actions) > 0 || k == 0 || float64(tail) > (1-SpinnerShare)*float64(total) {
			return -1, 0
		}
		end -= bs[k].Len + bs[k-1].Slept
	}
	return -1, 0
}

func (x *extractor) inferUntil() {
	m := x.m
	type cand = untilCand
	groups := map[[2]string][]cand{}
	var order [][2]string
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		bs := tk.Bursts
		blocks := 0
		for _, b := range bs {
			if b.End == EndBlock {
				blocks++
			}
		}
		if blocks >= 3 {
			tk.Until = UntilCount
		}
		e := len(bs) - 1
		if e >= 0 && bs[e].End == EndTrace {
			// Censored: the capture ended before the task did.
			tk.Censored = true
			m.Stats.Censored++
			if k, _ := spinBurst(tk); k == e && m.End > tk.Start {
				tk.Until, tk.UntilInferred = UntilDeadline, true
				tk.Spinner, tk.SpinBurst = true, e
				tk.Deadline = m.End - tk.Start
			}
			continue
		}
		if e < 0 || bs[e].End != EndExit || tk.Last-tk.Start < MinDeadlineLife {
			continue
		}
		var total int64
		for _, b := range bs {
			total += b.Len
		}
		k, spinEnd := spinBurst(tk)
		spinner := k >= 0
		// A cycle: relative timer sleeps (or wakeups the trace lost),
		// at most a tenth of the blocks of another kind, none a dependency, no effect on other tasks
		// after the first burst (which may fork), and a timer sleep
		// before the final burst (the cycle repeated past the trace).
		cycle := e >= 3
		timers := 0
		for k := 0; cycle && k < e; k++ {
			switch {
			case bs[k].End != EndBlock || bs[k].Wake.Kind == CauseDependency || k > 0 && len(bs[k].Actions) > 0:
				cycle = false
			case bs[k].Wake.Kind == CauseTimer || bs[k].Wake.Kind == CauseExternal && bs[k].Wake.Inferred:
				// An inferred external wakeup of a self-paced task is a
				// timer whose waking the trace lacks (on this VM nothing is
				// recorded on an idle CPU 1, its timer interrupts included).
				timers++
			}
		}
		cycle = cycle && timers*10 >= 9*e
		tk.Repeat = -1
		for k := e - 1; cycle && k >= 1; k-- {
			if bs[k].Wake.Kind == CauseTimer {
				tk.Repeat = k
				break
			}
		}
		cycle = cycle && tk.Repeat >= 0
		var c cand
		switch {
		case spinner:
			c = cand{i: i, lo: spinEnd, hi: spinEnd}
			tk.Spinner, tk.SpinBurst = true, k
		case cycle:
			// The wakeup that began the final burst found the deadline
			// past; the one before it did not.
			c = cand{i: i, lo: bs[e-2].Wake.At, hi: bs[e-1].Wake.At}
		default:
			continue
		}
		key := [2]string{tk.Comm, fmt.Sprint(tk.Parent)}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
	}
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		first, last, life := int64(-1), int64(-1), int64(0)
		lo, hi := int64(-1), int64(-1)
		ulo, uhi := int64(-1), int64(-1)
		for _, c := range g {
			tk := &m.Tasks[c.i]
			if first < 0 || tk.Last < first {
				first = tk.Last
			}
			last = max(last, tk.Last)
			life += tk.Last - tk.Start
			lo = max(lo, c.lo)
			if hi < 0 || c.hi < hi {
				hi = c.hi
			}
			if ulo < 0 || c.lo < ulo {
				ulo = c.lo
			}
			uhi = max(uhi, c.hi)
		}
		life /= int64(len(g))
		if float64(last-first) > DeadlineSpread*float64(life) {
			continue
		}
		d := (lo + hi) / 2
		if lo > hi {
			d = (ulo + uhi) / 2
		}
		for _, c := range g {
			tk := &m.Tasks[c.i]
			tk.Until, tk.UntilInferred = UntilDeadline, true
			tk.Deadline = d - tk.Start
			if tk.Spinner {
				tk.Deadline = c.lo - tk.Start
			}
		}
	}
	x.loneSpinners(groups)
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		switch tk.Until {
		case UntilWork:
			m.Stats.WorkBound++
		case UntilCount:
			m.Stats.CountBound++
		case UntilDeadline:
			m.Stats.DeadlineBound++
			m.Stats.DeadlineInferred++
		}
	}
}

// RecordedSource returns the model's recorded schedule (every scheduler
// event of its input) as a stream, for the observed side of a comparison.
func (m *Model) RecordedSource() trace.Source { return m.Recorded.Source(&m.Meta) }

// minWakeCostSamples is how many bursts of one task with the same number
// of wakeups and the same number of them remote measureWakeCost needs
// before it compares their lengths: a median of fewer is noise.
const minWakeCostSamples = 8

// maxWakeCostSpread is the largest spread (median absolute deviation over
// the median) of a group of bursts measureWakeCost compares: bursts that
// vary more than that do varying work, and their difference says nothing
// about the wakeup. The 0.5 is twice maxRelativeSpread (what still reads as
// one requested sleep length); on ../shared/traces reqsrv's generator
// bursts spread 0.17-0.29, its workers' (one to many requests each)
// 0.45-0.69.
const maxWakeCostSpread = 0.5

// maxRemoteWakeCost bounds a plausible cross-CPU wakeup cost: 100 µs. A
// reschedule IPI costs about 1-5 µs on bare metal and tens of µs in a VM
// (an exit to the hypervisor and an injected interrupt; 24 µs measured on
// this VM, see measureWakeCost); a larger difference between two groups
// of bursts means they do different work (pipeline.2cpu: frame bursts that
// wake the next stage remotely against short hand-offs), not a costlier
// wakeup.
const maxRemoteWakeCost = 100_000

// measureWakeCost estimates the extra CPU time a cross-CPU wakeup costs its
// waker, from the trace alone. Within one task, bursts that end by
// blocking and send the same number k of wakeups do about the same work
// (a generator writing one request, a sender writing to its receivers);
// among them, those where r of the k wakeups went to another CPU are
// longer by r times the remote cost. For each task and k, the medians of
// the burst lengths at the smallest and the largest r seen (each group
// with minWakeCostSamples bursts or more and a spread under
// maxWakeCostSpread) give a slope; slopes beyond ±maxRemoteWakeCost are
// dropped, and the estimate is their median weighted by the bursts
// behind each (the smaller group's count times the r difference).
// Measured on ../shared/traces: reqsrv's generator (srv.2cpu) bursts with
// one local wakeup last 22 µs, with one remote 46 µs. Returns the cost in
// ns (0 when not positive) and the bursts it rests on (0: not measurable).
func measureWakeCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxWakeCostSpread, func(b *Burst) (group, x int, ok bool) {
		k, r := wakesSent(b)
		return k, r, k > 0
	})
}

// wakesSent counts the wakeups burst b sends and how many of them the
// recording sent to another CPU.
func wakesSent(b *Burst) (k, r int) {
	for _, a := range b.Actions {
		if a.Kind == ActWake {
			k++
			if a.Remote {
				r++
			}
		}
	}
	return k, r
}

// measureWokenCost estimates the extra CPU time a task spends in a burst
// that another task woke from another CPU rather than its own: what the
// waker wrote (a request in a pipe, a message) and the wakee's own state
// reach it through another CPU's cache, and in a VM through the
// hypervisor's delivery of the wakeup. As in measureWakeCost, within one
// task bursts that end by blocking and send the same wakeups (k, r) do
// about the same work; the medians of those woken remotely and those woken
// locally (Burst.WokenRemote) give a slope, and the estimate is the
// weighted median of the slopes, bounded by maxRemoteWakeCost. A wakee's
// bursts vary with what it finds (a pipe reader woken for a request
// another reader took goes back to sleep within microseconds), so each
// group must read as one length of work: a spread within
// maxRelativeSpread, not maxWakeCostSpread. On a held-back recording (two
// reqsrv workers woken from the other CPU 1368 times, from their own 27,
// mostly such empty wakeups: 13 µs median, 7 and 123 µs quartiles) the
// looser bound took 77 µs for the cost and a self-replay gave back 90 ms
// of CPU. Measured on
// ../shared/traces: reqsrv's workers on srv.2cpu serve one request in
// 215-220 µs woken from their own CPU, 267-271 µs woken from the other.
// Returns the cost in ns (0 when not positive) and the bursts it rests on.
func measureWokenCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxRelativeSpread, func(b *Burst) (group, x int, ok bool) {
		if !b.WokenBy {
			return 0, 0, false
		}
		k, r := wakesSent(b)
		x = 0
		if b.WokenRemote {
			x = 1
		}
		return k<<16 | r, x, true
	})
}

// idleWarmup is how long after a CPU leaves idle a burst that starts
// there still pays for it: 100 µs, measured on this project's VM (a KVM
// guest). In a held-back recording (reqsrv 1800/s beside one hog on 2
// CPUs, the reqsrv CPU idle between requests) the workers' one-request
// bursts that start under 100 µs after their CPU left idle (after the
// generator, which ran first) last 131.7 µs (median of 1946), those that
// start later 113.0 µs (1497), as all of them do in the same workload
// pinned to a CPU that never idles (113.6 µs, 3011); a bare loop of
// 100,000 iterations after a 0.5 ms sleep took 8-25 µs longer from an idle
// CPU than with a SCHED_IDLE spinner keeping the CPU busy, one of 1,000,000
// no longer (the lead's measurements of 2026-12-02).
const idleWarmup = 100_000

// measureIdleCost estimates the extra CPU time a burst costs when it
// starts on a CPU that left idle less than idleWarmup before, rather than
// on one busy for longer: the idle CPU's caches and TLB have gone cold
// meanwhile (in a VM the halted vCPU's physical CPU ran other work), and
// the first work after it pays to refill them. As in measureWakeCost, bursts of one task that end by
// blocking, send the same wakeups (k, r) and were woken from the same side
// do about the same work; the medians of those that started from idle
// (Burst.FromIdle) and those that did not give a slope. Measured on this
// project's VM: a held-back recording of reqsrv beside one hog on 2 CPUs
// (reqsrv 1800 300 3 2 7 500, the reqsrv CPU idle between requests), the
// generator's bursts that wake one worker last 18.7 µs after another task
// and 25.9 µs from idle, 7.2 µs over 2926 bursts in all. Returns the cost
// in ns (0 when not positive) and the bursts it rests on.
func measureIdleCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxRelativeSpread, func(b *Burst) (group, x int, ok bool) {
		k, r := wakesSent(b)
		w := 0
		if b.WokenRemote {
			w = 1
		}
		if b.FromIdle {
			x = 1
		}
		return k<<16 | r<<1 | w, x, true
	})
}

// measureSlope is the estimator behind measureWakeCost and
// measureWokenCost: class maps a burst that ends by blocking to a group
// of bursts of like work and a count x of the costly events in it. Per
// task and group, the medians of the burst lengths at the smallest and the
// largest x seen (each with minWakeCostSamples bursts or more and a spread,
// median absolute deviation over median, of at most spread) give a slope
// per event; slopes beyond
// ±maxRemoteWakeCost are dropped, and the estimate is their median
// weighted by the bursts behind each (the smaller group's count times the
// x difference).
func measureSlope(tasks []Task, spread float64, class func(b *Burst) (group, x int, ok bool)) (cost int64, samples int) {
	type key struct{ g, x int }
	type slope struct {
		v int64
		w int
	}
	var sl []slope
	tight := func(g []int64) bool {
		med, dev := mad(g)
		return med > 0 && float64(dev) <= spread*float64(med)
	}
	for i := range tasks {
		groups := map[key][]int64{}
		xs := map[int][]int{}
		for k := range tasks[i].Bursts {
			b := &tasks[i].Bursts[k]
			if b.End != EndBlock || b.Len <= 0 {
				continue
			}
			g, x, ok := class(b)
			if !ok {
				continue
			}
			if _, seen := groups[key{g, x}]; !seen {
				xs[g] = append(xs[g], x)
			}
			groups[key{g, x}] = append(groups[key{g, x}], b.Len)
		}
		gs := make([]int, 0, len(xs))
		for g := range xs {
			gs = append(gs, g)
		}
		sort.Ints(gs)
		for _, g := range gs {
			lo, hi := -1, -1
			for _, x := range xs[g] {
				if v := groups[key{g, x}]; len(v) >= minWakeCostSamples && tight(v) {
					if lo < 0 || x < lo {
						lo = x
					}
					if x > hi {
						hi = x
					}
				}
			}
			if lo < 0 || lo == hi {
				continue
			}
			gl, gh := groups[key{g, lo}], groups[key{g, hi}]
			v := (median(gh) - median(gl)) / int64(hi-lo)
			if v < -maxRemoteWakeCost || v > maxRemoteWakeCost {
				continue
			}
			sl = append(sl, slope{v, min(len(gl), len(gh)) * (hi - lo)})
			samples += len(gl) + len(gh)
		}
	}
	if len(sl) == 0 {
		return 0, 0
	}
	sort.Slice(sl, func(a, b int) bool { return sl[a].v < sl[b].v })
	total := 0
	for _, x := range sl {
		total += x.w
	}
	acc := 0
	for _, x := range sl {
		if acc += x.w; 2*acc >= total {
			return max(x.v, 0), samples
		}
	}
	return 0, samples
}

// minPoolShare is the share of each member's dependency wakeups that must
// come from one producer for inferPools: a work queue's readers are woken
// by the writer for most requests and by each other for the rest (a pipe
// reader that leaves data behind wakes the next reader, pipe_read in
// fs/pipe.c v6.18). Measured on ../shared/traces: reqsrv's workers get
// 74-79 % of their wakeups from the generator; pipeline.c's threads, each
// woken by its predecessor, have no common producer, nor have
// sched-messaging's receivers, each woken by all senders of its group.
const minPoolShare = 0.5

// minPoolFIFO is the share of a pool's wakeups, among those that found
// another member asleep too, that must go to the member asleep longest: a
// shared queue's readers wait exclusively and are woken in the order they
// came (prepare_to_wait_exclusive, kernel/sched/wait.c v6.18), while
// threads with queues of their own are woken by what was sent to them.
// Measured on ../shared/traces: reqsrv's workers 2262 of 2264 (srv.2cpu),
// 1199 of 1199 (srv.1cpu); sched-messaging -t's receivers 4 of 386;
// pipeline.c's condition variables 0 of 398. The 0.8 leaves room for
// waiters that a signal or a timeout takes out of order.
const minPoolFIFO = 0.8

// minPoolWakeups is how many dependency wakeups a thread needs before
// inferPools looks at who sends them: fewer say nothing about a queue.
const minPoolWakeups = 20

// inferPools finds worker pools: two or more threads of one process with
// one command name, not deadline-bound, each woken mostly (minPoolShare)
// by the same producer task outside them, and woken in the order they went
// to sleep (minPoolFIFO). Their blocks woken by the
// producer or by each other wait on the shared queue; a member's last
// block before its final burst (the producer closing the queue wakes
// every reader) stays its own.
func (x *extractor) inferPools() {
	m := x.m
	type key struct {
		pid  trace.PID
		comm string
	}
	groups := map[key][]int{}
	var keys []key
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.PID <= 0 || tk.Until == UntilDeadline || len(tk.Bursts) < 3 {
			continue
		}
		k := key{tk.PID, tk.Comm}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range keys {
		// Each thread's main waker; the producer is the one most threads
		// have (a generator that is itself woken by its workers at their
		// exit, pthread_join, must not pick the producer for them).
		bestOf := map[int]int{}
		votes := map[int]int{}
		for _, i := range groups[k] {
			wk := map[int]int{}
			n := 0
			for _, b := range m.Tasks[i].Bursts {
				if b.End == EndBlock && b.Wake.Kind == CauseDependency {
					wk[b.Wake.Waker]++
					n++
				}
			}
			best, bn := -1, 0
			for w, c := range wk {
				if c > bn || c == bn && w < best {
					best, bn = w, c
				}
			}
			if n < minPoolWakeups || float64(bn) < minPoolShare*float64(n) {
				continue
			}
			bestOf[i] = best
			votes[best]++
		}
		producer := -1
		for w, v := range votes {
			if producer < 0 || v > votes[producer] || v == votes[producer] && w < producer {
				producer = w
			}
		}
		var members []int
		for _, i := range groups[k] {
			if b, ok := bestOf[i]; ok && b == producer && i != producer {
				members = append(members, i)
			}
		}
		if len(members) < 2 || slices.Contains(members, producer) {
			continue
		}
		n, hit := 0, 0
		for _, i := range members {
			n += x.st[i].fifoN
			hit += x.st[i].fifoHit
		}
		if n < minPoolWakeups || float64(hit) < minPoolFIFO*float64(n) {
			continue
		}
		in := map[int]bool{producer: true}
		for _, i := range members {
			in[i] = true
		}
		pool := len(m.Pools) + 1
		for _, i := range members {
			tk := &m.Tasks[i]
			tk.Pool = pool
			tk.PoolBlock = make([]bool, len(tk.Bursts))
			for j, b := range tk.Bursts[:len(tk.Bursts)-2] {
				tk.PoolBlock[j] = b.End == EndBlock && b.Wake.Kind == CauseDependency && in[b.Wake.Waker]
			}
		}
		m.Pools = append(m.Pools, WorkerPool{Producer: producer, Members: members})
		m.Stats.PoolMembers += len(members)
	}
}

// noteFIFO counts, for a dependency wakeup of task i, whether a sibling
// (a thread of its process with its name) was asleep too and whether i had
// been asleep longest: the order a shared queue's exclusive waiters are
// woken in.
func (x *extractor) noteFIFO(i int) {
	tk := &x.m.Tasks[i]
	if tk.PID <= 0 {
		return
	}
	others, first := false, true
	for _, j := range x.byPID[tk.PID] {
		if j == i || x.m.Tasks[j].Comm != tk.Comm || x.m.Tasks[j].PID != tk.PID || !x.st[j].sleeping {
			continue
		}
		others = true
		if x.st[j].blocked < x.st[i].blocked {
			first = false
		}
	}
	if others {
		x.st[i].fifoN++
		if first {
			x.st[i].fifoHit++
		}
	}
}
