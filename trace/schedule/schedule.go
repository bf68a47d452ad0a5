package schedule

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/tidmap"
	"github.com/traceview/traceview/trace"
)

// State is where a task is in the reconstruction.
type State uint8

// Task states.
const (
	StateUnknown  State = iota // not seen yet, or lost track of (lost events)
	StateRunning               // on a CPU
	StateRunnable              // on a runqueue, waiting for a CPU
	StateSleeping              // blocked (Interval.Sleep says how)
	StateDead                  // exited (its last switch-out had prev_state X or Z)
)

// String returns "unknown", "running", "runnable", "sleeping" or "dead".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

var stateNames = [...]string{"unknown", "running", "runnable", "sleeping", "dead"}

// Quality says how much of a Run the trace shows.
type Quality uint8

// Run qualities.
const (
	Known     Quality = iota // switch-in and switch-out both recorded
	Recovered                // the start inferred from later evidence (see the package doc)
	Unknown                  // the trace cannot say who ran
)

// String returns "known", "recovered" or "unknown".
func (q Quality) String() string {
	if int(q) < len(qualityNames) {
		return qualityNames[q]
	}
	return fmt.Sprintf("quality(%d)", q)
}

var qualityNames = [...]string{"known", "recovered", "unknown"}

// Cause says which event started a delay.
type Cause uint8

// Delay causes.
const (
	CauseWakeup               Cause = iota // sched_waking (or sched_wakeup) of a sleeping task
	CauseWakeupNew                         // sched_wakeup_new of a forked task
	CausePreempted                         // switched out while runnable (prev_state R or R+)
	CauseWokenBeforeSwitchOut              // sched_waking seen before the task's own switch-out to sleep; the delay starts at the switch-out
)

// String returns "wakeup", "wakeup_new", "preempted" or "woken-before-switch-out".
func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return fmt.Sprintf("cause(%d)", c)
}

var causeNames = [...]string{"wakeup", "wakeup_new", "preempted", "woken-before-switch-out"}

// WakeupSource says which wakeup tracepoint starts a delay.
type WakeupSource uint8

// Wakeup sources. A stream cannot look ahead, so WakeupsAuto uses
// sched_wakeup until the first sched_waking arrives and only sched_waking
// after it; the sched_waking of a wakeup always precedes its sched_wakeup
// (kernel/sched/core.c try_to_wake_up), so this equals perf's choice (waking
// when the trace has it) except for wakeups whose sched_waking preceded the
// trace. sched_wakeup_new always counts.
const (
	WakeupsAuto   WakeupSource = iota
	WakeupsWaking              // only sched_waking
	WakeupsWakeup              // only sched_wakeup
)

// Options tune a Builder. The zero value is the default.
type Options struct {
	Wakeups WakeupSource
	// KeepLossy keeps delays, runs and sched_stat_runtime that overlap a
	// lost window (they are still marked Lossy and counted).
	KeepLossy bool
	// Filter, when not nil, selects what is reported (see Filter); the
	// reconstruction itself still reads every event.
	Filter *Filter
	// RecordedCPUs, when not nil, are the only CPUs the recorder watched
	// (perf record -C, traceview record --cpu: trace.RecordedCPUs):
	// another CPU stays unrecorded until a sched_switch of its own,
	// whatever other records name it (perf's COMM records come from every
	// CPU: 86 on the CPU 0 of a `perf sched record -C 1`, whose task
	// queued there for 1.6 s then read as a 1.6 s delay; traceview record
	// --cpu writes the sched_migrate_task events of every CPU that move a
	// task off or onto a recorded one).
	RecordedCPUs []trace.CPU
	// Meta, when not nil and RecordedCPUs is nil, gives RecordedCPUs at
	// the first event (trace.RecordedCPUs): a pipe-mode
	// perf.data states its command line in records before its samples,
	// after the source was opened (a `perf sched record -C 1 -o -` stream
	// read a 253 ms delay spent on CPU 0).
	Meta *trace.Meta
}

// Task is one task identity: a TID from its first event until it exits (its
// last switch-out has prev_state X or Z) or a fork reuses its TID. The idle
// task (TID 0) is one identity, named "swapper", shared by every CPU.
type Task struct {
	ID   int // from 1, in order of first appearance
	TID  trace.TID
	PID  trace.PID // tgid; -1 when the trace never said
	Comm string    // latest name (perf names a thread by its latest comm)
	// Cgroup is the cgroup v2 id of the task's last switch-out that
	// carried one (trace.Event.Cgroup; traceview's captures), 0 unknown.
	Cgroup uint64

	// StatRuntime is the sum of the task's sched_stat_runtime (ns) and
	// StatRuntimeEvents their number, lossy ones excluded unless
	// Options.KeepLossy.
	StatRuntime       int64
	StatRuntimeEvents int64
	// OnCPU is the task's Known and Recovered run time (ns), from the
	// switches (lossy runs excluded unless Options.KeepLossy).
	OnCPU      int64
	Switches   int64 // sched_switch events that switched it in
	Migrations int64 // sched_migrate_task events

	state    State
	since    int64     // start of the current state (ns)
	rtAt     int64     // time of its last sched_stat_runtime (ns; 0 none)
	cpu      trace.CPU // running on, or whose runqueue holds the task
	startCPU trace.CPU // CPU of the event that started the current runnable state
	// offCPU/hasOff: during the current runnable state the task was queued
	// on (woken to, or migrated from or to) offCPU, a CPU that recorded no
	// event of its own so far: it may have run there unseen (see unrecorded).
	offCPU trace.CPU
	hasOff bool
	// ranUnseen: during the current runnable state the task got a new
	// name in no known context (traceview record names a task anew at
	// its switch-in when it exec'd or renamed itself unseen), or was
	// charged run time while another task ran on the CPU that says so, in
	// a recording that leaves out some CPU: it ran unseen, so its delay is
	// not measured (Delay.Unrecorded).
	ranUnseen bool
	// emptied: the task renamed itself to the empty name (a rename
	// event with no name: prctl(PR_SET_NAME, "")); an event's name does
	// not fill it in again until another rename.
	emptied bool
	cause   Cause
	waker   trace.TID      // runnable after a wakeup by this task (-1 unknown, 0 idle/irq)
	wakeIRQ trace.Tristate // that wakeup ran in interrupt context
	first   int64          // start of the first wakeup of a restarted delay
	// queuedWake is the time of a waking that found the task preempted and
	// still queued (ttwu_runnable: its state set back to running), 0 when
	// none; valid while queuedWake >= since.
	queuedWake int64
	// sleptFrom is when the sleep that the task's current wakeup ended
	// began (its switch-out to sleep), 0 when not known. A delay whose
	// sleep met lost events on some CPU is lossy (markDelay): the real
	// wakeup may be among them, earlier than the one recorded (its
	// sched_waking lost, its sched_wakeup recorded), as timehist has it
	// (settleUnrecorded's sleptLossy; new-user pass 62 F1: latency's
	// max delay, 24.154 ms, was a row timehist printed as -).
	sleptFrom int64
	// lostAt is when a loss let the task go from a runqueue (its state
	// unknown since, lostEvent); afterLoss says its current wakeup came
	// while it was so (its delay is lossy, markDelay).
	lostAt    int64
	afterLoss bool
	// unobservedAt is when the task was last queued on a CPU inside a lost
	// window known ahead (noteQueue), 0 never.
	unobservedAt int64
	sleep        trace.TaskState
	lastOff      int64         // end of the task's last reported interval
	seenIn       bool          // switched in at least once (filtered or not)
	sched        bool          // in a scheduler event (see Scheduled)
	outStack     trace.StackID // callchain of the task's last switch-out (0: none)
	qIdx         int32         // index in cpus[qCPU].queued, -1 when not queued
	qCPU         trace.CPU     // the runqueue holding the task, when qIdx >= 0

	// A waking seen while the task was running (the try_to_wake_up race).
	woken      bool
	wokenWaker trace.TID
	wokenCPU   trace.CPU      // the waking's CPU
	wokenQueue trace.CPU      // its target CPU
	wokenIRQ   trace.Tristate // it ran in interrupt context
}

// State returns the task's current state.
func (t *Task) State() State { return t.state }

// Scheduled reports whether the task appears in a scheduler event of the
// trace (filtered or not): a sched_switch (either side), a wakeup, a
// sched_stat_runtime or a fork (parent or child), the events the replay
// model takes a task from (replay.Extract). A task only named (perf's
// start-up COMM and FORK records of the tasks alive when it started, a
// fork before the first scheduler event, an exec or exit), or only moved
// by a sched_migrate_task, is not.
func (t *Task) Scheduled() bool { return t.sched }

// WokenFromIRQ reports whether the task is runnable after a wakeup that ran
// in interrupt context (see Delay.FromIRQ): the task current on the waking
// CPU only was interrupted.
func (t *Task) WokenFromIRQ() bool {
	return t.state == StateRunnable && t.cause != CausePreempted && t.wakeIRQ == trace.Yes
}

// CPU returns the CPU the task runs on or waits for (-1 unknown).
func (t *Task) CPU() trace.CPU { return t.cpu }

// Run is an interval of one CPU: Task ran on CPU from Start to End (ns).
// Task is the idle identity (TID 0) for idle time and nil when Quality is
// Unknown. Lossy says the interval overlapped a lost window on the CPU; then
// Quality is Unknown and Task nil unless Options.KeepLossy.
type Run struct {
	CPU        trace.CPU
	Task       *Task
	Start, End int64
	Quality    Quality
	Lossy      bool
	// Prio is the kernel prio the task was switched in with (the
	// sched_switch's next_prio: 0..99 real-time, 100..139 fair, -1 for
	// SCHED_DEADLINE); -1 when unknown (a Recovered or Unknown run).
	Prio int32
	// EndState is the prev_state of the sched_switch that ended the run
	// when EndSwitch is set (the run ended at a recorded switch-out of
	// Task); otherwise the run ended at the end of the trace or at
	// evidence of another task and EndState is 0.
	EndState  trace.TaskState
	EndSwitch bool
	// OnCPUFrom is where the task's OnCPU (and the State hook's running
	// interval) counts the run from: Start, or the end of the task's
	// interval before it where that lies later (no two intervals of a
	// task overlap: a Recovered run whose start a sched_stat_runtime
	// dates before the end of the wait the trace shows). Equal to Start
	// for a run of no task.
	OnCPUFrom int64
}

// Delay is one scheduling delay: Task waited from Start to End (ns) and was
// then switched in on CPU (or dated by evidence, Recovered).
type Delay struct {
	Task       *Task
	Start, End int64
	CPU        trace.CPU // the CPU it was switched in on
	QueueCPU   trace.CPU // the runqueue it waited on (-1 unknown)
	StartCPU   trace.CPU // the CPU that recorded the event that started it
	Cause      Cause
	// Waker is the task that woke it (the recorded waker, else the task
	// current on the waking CPU; the idle identity for a wakeup from an idle
	// CPU's interrupt); nil when unknown or preempted.
	Waker *Task
	// FromIRQ: the wakeup that started the delay ran in interrupt
	// context (hard or soft irq, NMI: the trace's irq flags, e.g. the
	// irq-info column of ftrace text, or a capture's own flag), so Waker,
	// the task current on the waking CPU, was only interrupted and did
	// not wake the task itself.
	FromIRQ bool
	// FirstWaking is the time of the first wakeup when a second waking
	// restarted the delay (see the package doc), else Start.
	FirstWaking int64
	Recovered   bool // the switch-in was missing and inferred
	// Stack is the callchain (into trace.Meta.Stacks) of the switch-out
	// that preceded the delay: the preemption, or where the task went to
	// sleep before its wakeup; 0 when the trace has none (or the task was
	// never seen leaving a CPU, e.g. a new task).
	Stack trace.StackID
	// Lossy: the delay overlaps a lost window on CPU, QueueCPU or
	// StartCPU. Excluded: it is lossy and Options.KeepLossy is off, so it
	// must be left out of every sum (and counted); a delay abandoned at a
	// loss (its task was queued on the CPU that lost events) comes with CPU
	// -1 and End at the loss.
	Lossy, Excluded bool
	// Unrecorded: the task was queued, during the delay, on a CPU that had
	// recorded no event of its own up to the delay's end (a capture of some CPUs only:
	// record --cpu, perf record -C), so it may have run there unseen and
	// the delay is not measured. Such a delay is always Excluded (and
	// counted in Counters.UnrecordedDelays), KeepLossy or not.
	Unrecorded bool
}

// Interval is one state interval of a task: Running (on CPU), Runnable
// (waiting on CPU's runqueue since Cause, woken by Waker) or Sleeping (in
// kernel state Sleep) from Start to End (ns). Intervals of a task never
// overlap; the time before a task's first event, and time the trace cannot
// attribute, has no interval.
type Interval struct {
	Task       *Task
	State      State
	Start, End int64
	CPU        trace.CPU
	Cause      Cause // Runnable
	Waker      *Task // Runnable after a wakeup
	FromIRQ    bool  // Runnable after a wakeup from interrupt context (see Delay.FromIRQ)
	Sleep      trace.TaskState
	// IRQ says whether the wakeup that made the task Runnable ran in
	// interrupt context (Event.FromIRQ), when the trace records it;
	// trace.Unknown otherwise and for other states.
	IRQ trace.Tristate
	// Stack is the callchain of the switch-out that began a Runnable or
	// Sleeping interval (where the task blocked); 0 none.
	Stack trace.StackID
	// Open: the interval was closed by the end of the trace (Finish), not
	// by an event: its real end is unknown.
	Open bool
	// EndUnknown: a Runnable interval the trace does not end: the task was
	// switched out with no switch-in the trace shows (it ends at the
	// CPU's last switch before, and the task waited at least that long;
	// when it got the CPU, and its run until the switch-out, are in no
	// interval), or events were lost on its runqueue (it ends at the
	// loss). Its delay is not measured (Counters.Dropped, or a lossy
	// delay).
	EndUnknown bool
}

// Hooks receive the reconstruction as it is built; nil hooks are skipped.
// Pointers passed to hooks are valid only during the call, except *Task,
// which lives as long as the Builder.
type Hooks struct {
	// Run is called when a CPU interval ends, in time order per CPU.
	Run func(r *Run)
	// State is called when a task leaves a state.
	State func(iv *Interval)
	// RunningOnly says that State wants the intervals of StateRunning
	// only: the others are not built (a report that sums CPU time saves
	// two intervals a switch).
	RunningOnly bool
	// Delay is called at each switch-in (or recovered switch-in) that ends
	// a delay, zero-length ones included, and lossy ones too (Delay.Lossy)
	// so that a caller can count them per row.
	Delay func(d *Delay)
	// GroupDelay, when set, is called with every delay that Options.Filter's
	// time window and CPUs select, whatever its task, before Delay (the
	// filter's task lists, PIDs, TIDs, Comms and Cgroups, narrow Delay
	// only): for measures of whole task groups that a task filter must not
	// change (latency's cgroup table and throttle inference). Without a
	// filter it sees what Delay sees.
	GroupDelay func(d *Delay)
	// GroupRun, when set, is called with every CPU interval on
	// Options.Filter's CPUs that its time window selects, clipped to the
	// window, before Run; with GroupWhole, with every one, whole.
	GroupRun func(r *Run)
	// GroupWhole makes GroupDelay and GroupRun see the whole trace, on
	// every CPU, whatever the filter's time window and CPUs: for a measure
	// that is inferred from the whole schedule and then cut to the
	// filter itself (latency's throttle inference: a throttle the
	// window's edge cuts, or seen on another CPU's runqueue too, shows
	// only with its evidence, which may lie outside).
	GroupWhole bool
	// Wakeup is called for each wakeup that makes a task runnable.
	Wakeup func(at int64, waker, wakee *Task, target trace.CPU)
	// Runqueue is called when the number of tasks waiting on cpu's
	// runqueue (runnable, not running) changes to n at time at (ns).
	Runqueue func(cpu trace.CPU, at int64, n int)
	// Migrate is called for each sched_migrate_task.
	Migrate func(at int64, t *Task, from, to trace.CPU)
	// CgroupMove is called when a recorded move to another task group
	// (trace.KindCgroupMove) splits t's run, before the part up to the
	// move is closed (the next Run): from is the group t left, which that
	// part is in. A move the schedule does not split at (the run's start
	// unknown, or the move dated before it) gets no call: the run is then
	// whole in the group its switch-out names.
	CgroupMove func(t *Task, from uint64)
	// Runtime is called for each sched_stat_runtime; lossy says it
	// overlaps a lost window on its CPU (it is then excluded from
	// Task.StatRuntime unless Options.KeepLossy).
	Runtime func(t *Task, e *trace.Event, lossy bool)
}

// Counters count what the Builder met.
type Counters struct {
	// OfflineCPUs are the CPUs whose last switch switched in their own
	// hotplug thread (cpuhp/N) well before the trace's end: the CPU went
	// offline there (Finish), and its time after its last event is
	// Unknown, not that thread's run.
	OfflineCPUs []trace.CPU
	// CgroupMoveSplits: runs split at a move to another task group
	// (trace.KindCgroupMove).
	CgroupMoveSplits int64
	// RenameSplits: runs split at a rename under a --comm filter
	// (renameSplit).
	RenameSplits int64
	// Events: the events read that trace.Counted counts (lost-events
	// markers and perf's time-0 task records left out); SchedEvents
	// those of them that are scheduler events (trace.Kind.Scheduler).
	Events, SchedEvents int64
	// Switches: the sched_switch events read (of every CPU and time, the
	// filter's or not).
	Switches int64
	// Recovered: delays whose switch-in was inferred. Dropped: delays whose
	// switch-in was never seen nor inferred (the task was switched out
	// while waiting). Unwoken: a task seen running after it went to sleep
	// with no recorded wakeup.
	Recovered, Dropped, Unwoken int64
	// Wakeups: the sched_waking, sched_wakeup and sched_wakeup_new events
	// read (0 in a trace that records none: then no wakeup delay is
	// measured, LatencyDiagnostics.Wakeups).
	Wakeups int64
	// MigrateEvents: the sched_migrate_task events read, whatever the
	// filter (0 in a trace that records none: then its migrations are
	// unknown, not 0).
	MigrateEvents int64
	// Raced: delays started at a switch-out because the task's waking came
	// first. Rewoken: second wakings of a task already waiting after a
	// wakeup; each restarted its delay.
	Raced, Rewoken int64
	// LossyDelays and LossyDelayNs: delays that overlapped a lost window
	// (ended, or abandoned at the loss), and their known length; LossyRuns
	// and LossyRunNs the same for runs of a task (idle excluded);
	// LossyRuntime and LossyRuntimeNs for sched_stat_runtime events.
	LossyDelays, LossyDelayNs int64
	// UnrecordedDelays: delays left out as Delay.Unrecorded.
	UnrecordedDelays             int64
	LossyRuns, LossyRunNs        int64
	LossyRuntime, LossyRuntimeNs int64
	// InconsistentRuntime and InconsistentRuntimeNs: sched_stat_runtime
	// events left out because they report more run time than their task
	// can have had since its last change of state or its last
	// sched_stat_runtime (RuntimeSlack), and the run time they report.
	InconsistentRuntime, InconsistentRuntimeNs int64
	LostEvents                                 uint64
	LostWindows                                int64
	UnknownRunNs                               int64 // CPU time (ns) in Unknown runs
	RestartNs                                  int64 // sum over Rewoken of second waking - first
	FirstSwitchIns, ChainBreaks                int64
	// ChainBreaksByCPU is ChainBreaks per CPU (index: CPU number), so
	// that a report says them per CPU as latency does.
	ChainBreaksByCPU             []int64
	SwitchesOutOfOrder           int64
	OutOfOrderWakeups            int64
	WakingsWhileRunningForgotten int64 // remembered race wakings that the task's own events cancelled
	// RacesUndone: delays started at a switch-out by a remembered waking
	// and then restarted by a wakeup while waiting: the remembered waking
	// had found the task still queued (ttwu_runnable), so the task had not
	// slept; not counted in Raced.
	RacesUndone int64
}

// CPUStats are per-CPU totals of the runs emitted (ns).
type CPUStats struct {
	// Busy: Known and Recovered runs of a task other than idle; Idle: of
	// the idle task; Unknown: Unknown runs.
	Busy, Idle, Unknown int64
	// UnknownObserved is the part of Unknown after SeenFrom.
	UnknownObserved int64
	// SeenFrom is the CPU's first sched_switch, or the start of a
	// Recovered run before it (HaveSeen false: none).
	SeenFrom int64
	HaveSeen bool
	Switches int64
}

type cpuState struct {
	seen     bool
	last     int64 // time of the CPU's last event
	switched bool
	recorded bool  // an event of the CPU's own was read (not only a target or a migration's)
	cur      *Task // the task on the CPU by the last switch or later evidence; nil: unknown
	curTID   trace.TID
	from     int64 // start of cur's run
	q        Quality
	prio     int32 // cur's prio at its switch-in (-1 unknown)
	// endState/endSwitch: the prev_state of the sched_switch being
	// processed, while closeRun runs for it.
	endState  trace.TaskState
	endSwitch bool
	hasU      bool  // an Unknown stretch precedes cur's run
	uFrom     int64 // its start
	// lastSwitch is the time of the CPU's last sched_switch.
	lastSwitch int64
	evCurr     trace.TID // the task the CPU's events last showed (-1 none)
	pending    bool      // evCurr's switch-in is missing: date it at its first sched_stat_runtime
	queued     []*Task   // the tasks waiting on this runqueue (Task.qIdx is the index)
	stats      CPUStats
}

// maxCPUs bounds per-CPU state (perf's MAX_CPUS, tools/perf/builtin-sched.c);
// events of larger CPU numbers update tasks but no CPU.
const maxCPUs = 4096

// Builder reconstructs the schedule from events fed in time order. Use New,
// Observe each event (or Run a source), then Finish.
type Builder struct {
	opts  Options
	hooks Hooks

	tasks   tidmap.Map[trace.TID, *Task]
	all     []*Task
	cpus    []cpuState
	rqDirty []trace.CPU
	lost    []trace.LostWindow
	// ahead: lost windows known when they start (trace.Event.Runtime of a
	// KindLost), out of lost's order by End, so lossy checks them apart.
	ahead []trace.LostWindow
	// aheadMax is the longest window of ahead (ns): a window that starts
	// before t - aheadMax ends before t (lossy's search).
	aheadMax int64
	haveWak  bool
	idle     *Task

	first, last int64
	haveFirst   bool
	// sawEvent: Add has seen an event (counted or not).
	sawEvent              bool
	schedFirst, schedLast int64
	haveSched             bool
	haveRuntime           bool
	finished              bool
	// endUnknown marks the Runnable intervals leaveState emits meanwhile
	// as Interval.EndUnknown.
	endUnknown bool
	rqBefore   map[trace.CPU]int // runqueue lengths before the filter's window

	// run, iv and delay are the values passed to the hooks (valid only
	// during the call, see Hooks), kept here so that passing them does
	// not allocate per event.
	run   Run
	iv    Interval
	delay Delay
	// scratch holds a runqueue being emptied.
	scratch []*Task
	// undecided: with a cgroup filter, the delays of tasks whose cgroup
	// no switch-out had named yet (a new task's first wait), decided at
	// the switch-out that names it (decideHeld), where they were
	// dropped: latency --cgroup /g counted 458 delays, --by cgroup's /g
	// table 460. The same with a PID filter for a task whose process no
	// event had named (Filter.Undecided: a perf.data's forked child, whose
	// sched_process_fork gives its TID only).
	undecided map[*Task][]Delay
	// undecidedRT: the same tasks' sched_stat_runtime events.
	undecidedRT map[*Task][]trace.Event
	// clipped is a sched_stat_runtime clipped to the filter's window
	// (Filter.clipRuntime), as the hooks see it.
	clipped trace.Event

	// C counts what was met; read it after Finish.
	C Counters
}

// New returns a Builder that reports to h.
func New(opts Options, h Hooks) *Builder {
	opts.Filter = opts.Filter.compile()
	return &Builder{opts: opts, hooks: h}
}

// Tasks returns every identity in order of first appearance (the idle task
// included).
func (b *Builder) Tasks() []*Task { return b.all }

// Lookup returns the live identity of tid, or nil.
func (b *Builder) Lookup(tid trace.TID) *Task {
	if tid < 0 {
		return nil
	}
	return b.tasks.Get(tid)
}

// HaveRuntime reports whether the trace carried sched_stat_runtime events.
func (b *Builder) HaveRuntime() bool { return b.haveRuntime }

// Lost returns the lost windows met so far, in the order reported.
func (b *Builder) Lost() []trace.LostWindow { return b.lost }

// RecordedCPUs counts the CPUs with events in the whole trace, whatever
// the filter's CPUs and window.
func (b *Builder) RecordedCPUs() int {
	n := 0
	for i := range b.cpus {
		if b.cpus[i].seen && b.cpus[i].stats.HaveSeen {
			n++
		}
	}
	return n
}

// CPUs returns the CPUs that recorded events, ascending, with their totals
// (complete after Finish).
//
// With Options.Filter, only the filter's CPUs, and SeenFrom no earlier
// than the window's start.
func (b *Builder) CPUs() (cpus []trace.CPU, stats []CPUStats) {
	f := b.opts.Filter
	for i := range b.cpus {
		if b.cpus[i].seen && f.CPU(trace.CPU(i)) {
			cpus = append(cpus, trace.CPU(i))
			st := b.cpus[i].stats
			if f != nil && st.HaveSeen && f.End != 0 && st.SeenFrom > f.End {
				st.HaveSeen = false // observed only after the window
			}
			if f != nil && st.HaveSeen {
				st.SeenFrom = max(st.SeenFrom, f.Start)
			}
			stats = append(stats, st)
		}
	}
	return cpus, stats
}

// SeenCPUs returns how many CPUs recorded events, whatever Options.Filter
// selects (CPUs returns those it selects).
func (b *Builder) SeenCPUs() int {
	n := 0
	for i := range b.cpus {
		if b.cpus[i].seen {
			n++
		}
	}
	return n
}

// SwitchCPUs returns the CPUs that had sched_switch events, in ascending
// order, whatever Options.Filter selects (CPUs returns those it selects,
// and every CPU an event named, such as a wakeup's target).
func (b *Builder) SwitchCPUs() []trace.CPU {
	var cpus []trace.CPU
	for i := range b.cpus {
		if b.cpus[i].switched {
			cpus = append(cpus, trace.CPU(i))
		}
	}
	return cpus
}

// Span returns the time span of the trace in ns: from the first to the last
// scheduler tracepoint event (sched_switch, sched_waking, sched_wakeup,
// sched_wakeup_new, sched_migrate_task, sched_stat_runtime, or a notice of
// lost events), the window in which the scheduler was observed; perf's
// fork/comm/exit records written before the tracepoints were enabled do not
// stretch it. A trace without any such event spans its first to last event
// of nonzero time. With Options.Filter the span is clipped to its window
// (from > to when the window is outside the trace).
func (b *Builder) Span() (from, to int64) {
	from, to = b.span()
	if f := b.opts.Filter; f != nil {
		if f.Start != 0 {
			from = max(from, f.Start)
		}
		if f.End != 0 {
			to = min(to, f.End)
		}
	}
	return from, to
}

// Observed returns Span without the filter's window (ns): what a trace
// holds, for saying so when a filter matched nothing.
func (b *Builder) Observed() (from, to int64) { return b.span() }

// span is Span without the filter's window.
func (b *Builder) span() (from, to int64) {
	if b.haveSched {
		return b.schedFirst, b.schedLast
	}
	return b.first, b.last
}

// First and Last return the times of the first event (time-0 synthesized
// records excluded) and of the last event (ns).
func (b *Builder) First() int64 { return b.first }

// Last returns the time of the last event (ns).
func (b *Builder) Last() int64 { return b.last }

// ProcessName returns the name of t's process: the comm of its thread-group
// leader when seen, else t's own comm.
func (b *Builder) ProcessName(t *Task) string {
	if t.PID >= 0 && trace.TID(t.PID) != t.TID {
		if l := b.tasks.Get(trace.TID(t.PID)); l != nil && l.Comm != "" {
			return l.Comm
		}
	}
	return t.Comm
}

// Run feeds every event of src to b (it does not call Finish nor close src).
// The error is the source's first non-EOF error.
//
// Without Options.Meta, Run uses src's (Options.Meta: perf record -C's CPU
// list, trace.PerfRecordCPUs, taken at the first event), so every consumer that runs a Builder (the pprof
// and Chrome JSON exports too) leaves out the delays a task may have spent
// on a CPU the recording left out, as latency does.
func (b *Builder) Run(src trace.Source) error {
	if b.opts.Meta == nil {
		b.opts.Meta = src.Meta()
	}
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading events: %w", err)
		}
		b.Observe(&e)
	}
}

func isSchedEvent(k trace.Kind) bool {
	switch k {
	case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime, trace.KindLost:
		return true
	}
	return false
}

func (b *Builder) cpu(c trace.CPU) *cpuState {
	if c < 0 || c >= maxCPUs {
		return nil
	}
	for int(c) >= len(b.cpus) {
		b.cpus = append(b.cpus, cpuState{evCurr: -1, curTID: -1})
	}
	s := &b.cpus[c]
	if !s.seen {
		s.seen = true
		// Nothing is known of the CPU before its first event... nor
		// until its first switch: an Unknown stretch from the trace's
		// start.
		s.hasU, s.uFrom = true, b.first
	}
	return s
}

// task returns the live identity of tid, creating it on first sight.
func (b *Builder) task(tid trace.TID, pid trace.PID, comm string) *Task {
	if tid < 0 {
		return nil
	}
	t := b.tasks.Get(tid)
	if t == nil || t.state == StateDead {
		t = &Task{ID: len(b.all) + 1, TID: tid, PID: pid, Comm: comm, waker: -1, cpu: -1, startCPU: -1, qIdx: -1}
		if tid == 0 {
			t.PID, t.Comm = 0, "swapper"
			b.idle = t
		}
		b.tasks.Set(tid, t)
		b.all = append(b.all, t)
	}
	if t.PID < 0 && pid >= 0 {
		t.PID = pid
		if b.undecided != nil || b.undecidedRT != nil {
			b.decideHeld(t)
		}
	}
	if t.Comm == "" && comm != "" && !t.emptied {
		t.Comm = comm
	}
	return t
}

// Observe feeds one event. Events must come in time order per CPU (a
// trace.Source's order).
func (b *Builder) Observe(e *trace.Event) {
	b.observe(e)
	if len(b.rqDirty) > 0 {
		b.flushRunqueue(e.Time)
	}
}

// observe is Observe but for the runqueue lengths the event changed.
func (b *Builder) observe(e *trace.Event) {
	// Records synthesized at record start (perf's COMM and FORK of the
	// tasks already running) may carry time 0: the trace starts at the
	// first real timestamp.
	synth := trace.Synthesized(e)
	if !synth && (!b.haveFirst || e.Time < b.first) {
		b.first, b.haveFirst = e.Time, true
	}
	if !b.sawEvent && b.opts.RecordedCPUs == nil && b.opts.Meta != nil {
		b.opts.RecordedCPUs = trace.RecordedCPUs(b.opts.Meta)
	}
	b.sawEvent = true
	if trace.Counted(e) {
		b.C.Events++
	}
	if e.Kind.Scheduler() {
		b.C.SchedEvents++
	}
	if e.Kind == trace.KindSwitch {
		b.C.Switches++
	}
	b.last = max(b.last, e.Time)
	if isSchedEvent(e.Kind) {
		if !b.haveSched || e.Time < b.schedFirst {
			b.schedFirst = e.Time
		}
		b.schedLast, b.haveSched = max(b.schedLast, e.Time), true
	}
	c := b.cpu(e.CPU)
	if c != nil && (b.opts.RecordedCPUs == nil || e.Kind == trace.KindSwitch || slices.Contains(b.opts.RecordedCPUs, e.CPU)) {
		c.recorded = true
	}
	if e.CurTID > 0 && b.unrecorded(e.CPU) {
		// A record written in the context of a task that waits for a
		// CPU, on a CPU that recorded nothing of its own (perf record
		// -C writes the COMM, FORK and EXIT records of every CPU): the
		// task runs there, so its delay is not measured (noteQueue).
		// A `timeout` preempted on CPU 1 exec'd nice and taskset on
		// CPU 0 meanwhile and read a 960 ms delay.
		if t := b.Lookup(e.CurTID); t != nil && t.state == StateRunnable {
			b.noteQueue(t, e.CPU)
		}
	}
	if trace.IsOpenLoss(e) {
		return // (a recorder's overflow note, which trace/tvf turns into a window)
	}
	if e.Kind == trace.KindLost {
		b.lostEvent(e, c)
		if c != nil {
			c.last = e.Time
		}
		return
	}
	if c != nil {
		// (A migration a CPU outside the recorded ones emitted, which
		// record --cpu keeps for the task it moves off or onto a recorded
		// CPU, says nothing of what runs there: no chain, no run.)
		// (Nor does a cgroup move, written at the time of the switch
		// that follows it: the switch is the evidence.)
		if (e.Kind != trace.KindMigrate || !b.unrecorded(e.CPU)) && e.Kind != trace.KindCgroupMove {
			b.evidence(e, c)
		}
		c.last = e.Time
	}
	defer b.markScheduled(e) // after the event made or ended its identities
	switch e.Kind {
	case trace.KindSwitch:
		b.doSwitch(e, c)
	case trace.KindCgroupMove:
		b.cgroupMove(e, c)
	case trace.KindWaking:
		b.C.Wakeups++
		b.haveWak = true
		if b.opts.Wakeups != WakeupsWakeup {
			b.doWakeup(e)
		}
	case trace.KindWakeup:
		b.C.Wakeups++
		switch b.opts.Wakeups {
		case WakeupsWakeup:
			b.doWakeup(e)
		case WakeupsAuto:
			if !b.haveWak {
				b.doWakeup(e)
			}
		}
	case trace.KindWakeupNew:
		b.C.Wakeups++
		b.doWakeup(e)
	case trace.KindMigrate:
		b.C.MigrateEvents++
		t := b.task(e.TID, e.PID, e.Comm)
		if t == nil {
			return
		}
		if t.state == StateRunnable {
			b.noteQueue(t, e.OrigCPU)
			b.noteQueue(t, e.DestCPU)
		}
		if t.state == StateRunnable && t.cpu != e.DestCPU {
			b.dequeue(t)
			t.cpu = e.DestCPU
			b.enqueue(t)
		}
		if f := b.opts.Filter; f != nil && !(f.Time(e.Time) && f.Task(t) && (f.CPU(e.OrigCPU) || f.CPU(e.DestCPU))) {
			return
		}
		t.Migrations++
		if b.hooks.Migrate != nil {
			b.hooks.Migrate(e.Time, t, e.OrigCPU, e.DestCPU)
		}
	case trace.KindRuntime:
		if t := b.Lookup(e.TID); t != nil && t.state == StateRunnable && e.Runtime > 0 && (c == nil || c.cur != t) && b.someUnrecorded() {
			// Run time charged to a task that waits, while another runs
			// on the CPU that says so: it runs on some CPU the recording
			// left out (perf record -C 1: a futex producer woken on CPU
			// 1, pulled to CPU 0, read a 466.934 ms delay where the
			// whole machine's recording of the same run has 1.4 ms).
			t.ranUnseen = true
		}
		if t := b.task(e.TID, e.PID, e.Comm); t != nil {
			if from := max(t.since, t.rtAt); t.state != StateUnknown && t.since > 0 && e.Runtime > e.Time-from+RuntimeSlack {
				// Damage: a task ran at most since it last changed
				// state (switched in, or out, or was woken) or was
				// charged (each charge restarts the count: exec_start,
				// update_curr in kernel/sched/fair.c).
				b.C.InconsistentRuntime++
				b.C.InconsistentRuntimeNs += e.Runtime
				break
			}
			t.rtAt = e.Time
			b.haveRuntime = true
			b.runtimeCgroup(e, t, c)
			f := b.opts.Filter
			at, ran, in := f.clipRuntime(e)
			// The run time is the CPU's the task runs on: update_curr
			// may charge a remote runqueue's task (a wakeup's preemption
			// check, load balancing), and the event is then recorded on
			// the CPU that charged it (new-user pass 36 F5: --cpu 0 read
			// 2293.790 ms of run time in a 2034.839 ms trace, CPU 1's
			// charged from CPU 0).
			on := e.CPU
			if t.state == StateRunning && t.cpu >= 0 {
				on = t.cpu
			}
			if !in || !f.CPU(on) {
				break
			}
			c := e
			if at != e.Time || ran != e.Runtime {
				// Clipped: a copy the Builder owns (no allocation per
				// event; the hooks do not keep it).
				b.clipped = *e
				b.clipped.Time, b.clipped.Runtime = at, ran
				c = &b.clipped
			}
			if f.Undecided(t) {
				// Decided with the task's delays (undecided).
				if b.undecidedRT == nil {
					b.undecidedRT = map[*Task][]trace.Event{}
				}
				b.undecidedRT[t] = append(b.undecidedRT[t], *c)
				break
			}
			if !f.Task(t) {
				break
			}
			b.emitRuntime(t, c)
		}
	case trace.KindFork:
		b.task(e.TID, e.PID, e.Comm)
		if e.ChildTID > 0 {
			if old := b.tasks.Get(e.ChildTID); old != nil && old.state != StateDead && old.state != StateUnknown {
				b.leaveState(old, e.Time) // pid reuse without a seen exit
				b.dequeue(old)
				old.state = StateDead
			}
			b.task(e.ChildTID, e.ChildPID, e.ChildComm)
		}
	case trace.KindExec, trace.KindComm:
		if t := b.tasks.Get(e.TID); t != nil && e.TID != 0 && (e.Comm != t.Comm || t.emptied != (e.Comm == "")) {
			b.renameSplit(t, e.Time)
		}
		if t := b.task(e.TID, e.PID, e.Comm); t != nil && e.Comm == "" && e.Kind == trace.KindComm && e.TID != 0 {
			// A rename to the empty name is a name (new-user pass
			// 32 F2: its events counted under the name before, 769
			// delays against 79 switch-ins with --comm of that name).
			t.Comm, t.emptied = "", true
		} else if t != nil && e.Comm != "" && e.TID != 0 {
			t.emptied = false
			if t.state == StateRunnable && t.Comm != "" && e.Comm != t.Comm && e.CurTID <= 0 && b.someUnrecorded() {
				// A new name in no known context: traceview record
				// names a task anew at its switch-in when it exec'd or
				// renamed itself unseen, so it ran meanwhile. A
				// `timeout` waiting on CPU 1 of a record -C 1 capture
				// came back named for the program it had exec'd on CPU 0
				// and read a 1105 ms delay. Only while a CPU of the
				// machine has recorded nothing: perf script text names a
				// task anew where its name first shows, maybe long after
				// an exec it saw run. (An exec or rename in the
				// task's context is evidence of its own, on a recorded
				// CPU, and on one the capture left out, above; another
				// thread may rename it, pthread_setname_np, unseen.)
				t.ranUnseen = true
			}
			t.Comm = e.Comm
		}
	case trace.KindExit:
		// The task runs until its last switch-out (prev_state X or Z),
		// which ends its identity.
		b.task(e.TID, e.PID, e.Comm)
	}
}

// markScheduled marks the tasks of scheduler event e (Task.Scheduled).
func (b *Builder) markScheduled(e *trace.Event) {
	switch e.Kind {
	case trace.KindSwitch:
		if t := b.Lookup(e.NextTID); t != nil {
			t.sched = true
		}
	case trace.KindFork:
		if e.Time == 0 || e.CPU < 0 || !b.haveSched {
			// perf's record of a task alive at the start, or a fork its
			// tracking event saw before the first tracepoint sample
			return
		}
		if t := b.Lookup(e.ChildTID); t != nil {
			t.sched = true
		}
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindRuntime:
	default:
		return
	}
	if t := b.Lookup(e.TID); t != nil {
		t.sched = true
	}
}

// lostEvent records a lost window and lets go of every task waiting on the
// CPU's runqueue: its switch-in may be among the lost events, so its delay
// and its place on the runqueue are unknown (unless KeepLossy).
func (b *Builder) lostEvent(e *trace.Event, c *cpuState) {
	w := trace.LostWindow{CPU: e.CPU, Count: e.Count, Start: e.Time, End: e.Time}
	if e.Runtime > 0 && c != nil {
		// Known ahead (trace.Event.Runtime): unobserved from now on.
		w.End = e.Time + e.Runtime
		if n := len(b.ahead); n > 0 && w.Start < b.ahead[n-1].Start {
			b.aheadMax = math.MaxInt64 / 2 // (out of order: lossy scans them all)
		}
		b.ahead = append(b.ahead, w)
		b.aheadMax = max(b.aheadMax, e.Runtime)
	} else if c != nil {
		w.Start = min(c.last, e.Time)
	} else {
		w.CPU = -1
		for i := range b.cpus {
			if b.cpus[i].seen {
				w.Start = min(w.Start, b.cpus[i].last)
			}
		}
	}
	b.lost = append(b.lost, w)
	b.C.LostEvents += e.Count
	b.C.LostWindows++
	if b.opts.KeepLossy {
		return
	}
	for i := range b.cpus {
		if c != nil && &b.cpus[i] != c {
			continue
		}
		// leaveState takes each task off the runqueue: walk a copy.
		b.scratch = append(b.scratch[:0], b.cpus[i].queued...)
		for _, t := range b.scratch {
			d := Delay{Task: t, Start: t.since, End: max(e.Time, t.since), CPU: -1, QueueCPU: t.cpu, StartCPU: t.startCPU,
				Cause: t.cause, FirstWaking: t.first, Lossy: true, Excluded: true, Stack: t.outStack}
			if t.cause != CausePreempted {
				d.Waker, d.FromIRQ = b.Lookup(t.waker), t.wakeIRQ == trace.Yes
			}
			b.endUnknown = true
			b.leaveState(t, e.Time)
			b.endUnknown = false
			t.state, t.lostAt = StateUnknown, e.Time
			if b.hooks.GroupDelay != nil && (b.hooks.GroupWhole || b.opts.Filter.CPU(d.QueueCPU) && b.opts.Filter.Time(d.End)) {
				b.hooks.GroupDelay(&d)
			}
			if f := b.opts.Filter; f != nil && !(f.Task(t) && f.CPU(d.QueueCPU) && f.Time(d.End)) {
				continue
			}
			b.C.LossyDelays++
			b.C.LossyDelayNs += d.End - d.Start
			if b.hooks.Delay != nil {
				b.hooks.Delay(&d)
			}
		}
	}
}

// someUnrecorded reports whether a CPU of the machine (Options.Meta's
// NrCPUs) has recorded no event of its own so far (unrecorded).
func (b *Builder) someUnrecorded() bool {
	if b.opts.Meta == nil {
		return false
	}
	for c := 0; c < b.opts.Meta.NrCPUs; c++ {
		if b.unrecorded(trace.CPU(c)) {
			return true
		}
	}
	return false
}

// unrecorded reports whether cpu has recorded no event of its own so far:
// a CPU the capture left out (record --cpu, perf record -C), or, rarely,
// one whose first event is still to come (an idle CPU early in a trace).
func (b *Builder) unrecorded(cpu trace.CPU) bool {
	return cpu >= 0 && (int(cpu) >= len(b.cpus) || !b.cpus[cpu].recorded)
}

// noteQueue notes that runnable t is queued on cpu (woken to it, or
// migrated from or to it): when cpu has had no switch yet, the delay may
// end with t having run there unseen (Delay.Unrecorded, decided at the
// delay's end: cpu must still have had no switch then).
func (b *Builder) noteQueue(t *Task, cpu trace.CPU) {
	if b.unrecorded(cpu) && (!t.hasOff || !b.unrecorded(t.offCPU)) {
		t.offCPU, t.hasOff = cpu, true
	}
	for i := b.aheadFrom(b.last); i < len(b.ahead); i++ {
		if w := &b.ahead[i]; w.CPU == cpu && b.last >= w.Start && b.last < w.End {
			// Queued on a CPU known unobserved now (a cut round): it may
			// run there unseen, so the delay is lossy (markDelay).
			t.unobservedAt = b.last
		}
	}
}

// aheadFrom is the first window of ahead that can reach t: they come in
// order of Start, and one that starts before t - aheadMax ends before t
// (0 when they came out of order: aheadMax says so).
func (b *Builder) aheadFrom(t int64) int {
	if b.aheadMax >= math.MaxInt64/2 {
		return 0
	}
	i, _ := slices.BinarySearchFunc(b.ahead, t-b.aheadMax, func(w trace.LostWindow, t int64) int { return cmp.Compare(w.Start, t) })
	return i
}

// anyCPU, as lossy's first CPU, matches a lost window on every CPU.
const anyCPU = trace.CPU(-2)

// lossy reports whether [start, end] overlaps a lost window on one of the
// CPUs a, b2, c3 (-1: none; a = anyCPU: every CPU) or on an unknown CPU.
func (b *Builder) lossy(start, end int64, a, b2, c3 trace.CPU) bool {
	// The windows known ahead come in order of Start (each at its
	// KindLost, delivered at its start): those that can reach start begin
	// at start - aheadMax or later (aheadFrom). A scan of all of them at
	// every delay made latency of a perf -m 1 recording with 13717
	// windows take 4.0 s for 744,000 events (BenchmarkLossyAhead).
	for i := b.aheadFrom(start); i < len(b.ahead); i++ {
		w := &b.ahead[i]
		if w.Start >= end && b.aheadMax < math.MaxInt64/2 {
			break
		}
		if w.End > start && (a == anyCPU || w.CPU == a || w.CPU == b2 || w.CPU == c3) {
			return true
		}
	}
	for i := len(b.lost) - 1; i >= 0; i-- {
		w := &b.lost[i]
		if w.End <= start {
			break // windows come in order of End
		}
		if w.Start < end && (a == anyCPU || w.CPU < 0 || w.CPU == a || w.CPU == b2 || w.CPU == c3) {
			return true
		}
	}
	return false
}

func (b *Builder) enqueue(t *Task) {
	c := b.cpu(t.cpu)
	if c == nil || t.qIdx >= 0 {
		return
	}
	t.qIdx, t.qCPU = int32(len(c.queued)), t.cpu
	c.queued = append(c.queued, t)
	b.dirty(t.cpu)
}

// dequeue takes t off the runqueue enqueue put it on.
func (b *Builder) dequeue(t *Task) {
	if t.qIdx < 0 {
		return
	}
	c := &b.cpus[t.qCPU]
	i := int(t.qIdx)
	last := c.queued[len(c.queued)-1]
	c.queued[i], last.qIdx = last, int32(i)
	c.queued[len(c.queued)-1] = nil
	c.queued = c.queued[:len(c.queued)-1]
	t.qIdx = -1
	b.dirty(t.qCPU)
}

func (b *Builder) dirty(cpu trace.CPU) {
	if b.hooks.Runqueue == nil {
		return // nobody to tell
	}
	for _, c := range b.rqDirty {
		if c == cpu {
			return
		}
	}
	b.rqDirty = append(b.rqDirty, cpu)
}

// flushRunqueue reports the runqueue lengths an event changed, once per CPU,
// so that a switch that queues prev and takes next from the same runqueue
// shows no transient spike.
func (b *Builder) flushRunqueue(at int64) {
	for _, c := range b.rqDirty {
		if b.hooks.Runqueue != nil {
			b.runqueue(c, at, len(b.cpus[c].queued))
		}
	}
	b.rqDirty = b.rqDirty[:0]
}

// runqueue reports a runqueue length through the filter: a length set
// before the window is held and reported at the window's start, when the
// first length inside it (or Finish) comes.
func (b *Builder) runqueue(c trace.CPU, at int64, n int) {
	f := b.opts.Filter
	if f == nil {
		b.hooks.Runqueue(c, at, n)
		return
	}
	if !f.CPU(c) || (f.End != 0 && at > f.End) {
		return
	}
	if f.Start != 0 && at < f.Start {
		if b.rqBefore == nil {
			b.rqBefore = map[trace.CPU]int{}
		}
		b.rqBefore[c] = n
		return
	}
	if v, ok := b.rqBefore[c]; ok {
		delete(b.rqBefore, c)
		if at > f.Start {
			b.hooks.Runqueue(c, f.Start, v)
		}
	}
	b.hooks.Runqueue(c, at, n)
}

// leaveState closes t's current runnable or sleeping interval at end and
// takes it off its runqueue.
func (b *Builder) leaveState(t *Task, end int64) {
	switch t.state {
	case StateRunnable:
		b.dequeue(t)
		b.emitState(t, StateRunnable, end)
	case StateSleeping:
		b.emitState(t, StateSleeping, end)
	}
}

// emitState reports t's interval in state st from t.since to end, clipped so
// that no two intervals of a task overlap.
func (b *Builder) emitState(t *Task, st State, end int64) {
	start := max(t.since, t.lastOff)
	if end < start {
		return
	}
	t.lastOff = end
	if b.hooks.State == nil || b.hooks.RunningOnly && st != StateRunning {
		return
	}
	if f := b.opts.Filter; f != nil {
		if !f.Task(t) || (st == StateRunnable && !f.CPU(t.cpu)) {
			return
		}
		var ok bool
		if start, end, ok = f.Clip(start, end); !ok {
			return
		}
	}
	iv := b.interval(t, st, start, end, t.cpu)
	iv.Stack, iv.Open, iv.EndUnknown = t.outStack, b.finished, b.endUnknown && st == StateRunnable
	if st == StateRunnable {
		iv.Cause = t.cause
		if t.cause != CausePreempted {
			iv.Waker, iv.IRQ, iv.FromIRQ = b.Lookup(t.waker), t.wakeIRQ, t.wakeIRQ == trace.Yes
		}
	} else {
		iv.Sleep = t.sleep
	}
	b.hooks.State(iv)
}

// interval returns b.iv set to the interval of t in state st from start to
// end on cpu, its other fields zero. It sets field by field: assigning a
// whole struct value that holds pointers to heap memory goes through the
// garbage collector's bulk write barrier, a cost per interval.
func (b *Builder) interval(t *Task, st State, start, end int64, cpu trace.CPU) *Interval {
	iv := &b.iv
	iv.Task, iv.State, iv.Start, iv.End, iv.CPU = t, st, start, end, cpu
	iv.Cause, iv.Waker, iv.FromIRQ, iv.Sleep, iv.IRQ, iv.Stack, iv.Open, iv.EndUnknown = 0, nil, false, 0, trace.Unknown, 0, false, false
	return iv
}

// emitRun reports a CPU interval; a run of a task becomes Unknown when it
// overlaps a lost window on the CPU (unless KeepLossy).
func (b *Builder) emitRun(cpu trace.CPU, c *cpuState, t *Task, start, end int64, q Quality) {
	if from, _ := b.span(); start < from {
		start = from // the trace's span starts there
	}
	whole := false
	if f := b.opts.Filter; f != nil {
		if b.hooks.GroupRun != nil && b.hooks.GroupWhole && end > start {
			b.hooks.GroupRun(b.fillRun(cpu, c, t, start, end, q))
			whole = true
		}
		if !f.CPU(cpu) {
			return
		}
		start, end, _ = f.Clip(start, end)
	}
	if end <= start {
		return
	}
	r := b.fillRun(cpu, c, t, start, end, q)
	if r.Lossy && t.TID != 0 {
		b.C.LossyRuns++
		b.C.LossyRunNs += end - start
	}
	switch {
	case r.Quality == Unknown:
		c.stats.Unknown += end - start
		if c.stats.HaveSeen {
			c.stats.UnknownObserved += end - start
		}
		b.C.UnknownRunNs += end - start
	case r.Task.TID == 0:
		c.stats.Idle += end - start
	default:
		c.stats.Busy += end - start
	}
	if b.hooks.GroupRun != nil && !whole {
		b.hooks.GroupRun(r)
	}
	if b.hooks.Run != nil {
		b.hooks.Run(r)
	}
	if r.Quality != Unknown {
		if !c.stats.HaveSeen || start < c.stats.SeenFrom {
			c.stats.SeenFrom, c.stats.HaveSeen = start, true
		}
		if rt := r.Task; rt.TID != 0 {
			s := max(start, rt.lastOff)
			if end > s {
				rt.lastOff = end
				if !b.opts.Filter.Task(rt) {
					return
				}
				rt.OnCPU += end - s
				if b.hooks.State != nil {
					b.hooks.State(b.interval(rt, StateRunning, s, end, cpu))
				}
			}
		}
	}
}

// fillRun sets b.run to t's run on cpu from start to end (Unknown when t
// is nil, or when it overlaps a lost window on the CPU, unless KeepLossy)
// and returns it.
func (b *Builder) fillRun(cpu trace.CPU, c *cpuState, t *Task, start, end int64, q Quality) *Run {
	r := &b.run // field by field, see interval
	r.CPU, r.Task, r.Start, r.End, r.Quality, r.Lossy, r.Prio, r.EndState, r.EndSwitch = cpu, t, start, end, q, false, -1, 0, false
	r.OnCPUFrom = start
	if t != nil {
		r.OnCPUFrom = max(start, t.lastOff)
	}
	if t != nil && t == c.cur {
		if q == Known {
			r.Prio = c.prio
		}
		r.EndState, r.EndSwitch = c.endState, c.endSwitch
	}
	if t == nil {
		r.Quality = Unknown
	} else if b.lossy(start, end, cpu, -1, -1) {
		r.Lossy = true
		if !b.opts.KeepLossy {
			r.Task, r.Quality = nil, Unknown
		}
	}
	return r
}

// closeRun ends the CPU's current run at end: the Unknown stretch before it,
// then the run itself (Unknown when the CPU's task is not known).
func (b *Builder) closeRun(cpu trace.CPU, c *cpuState, end int64, sameTask bool) {
	switch {
	case c.cur != nil && sameTask:
		if c.hasU {
			b.emitRun(cpu, c, nil, c.uFrom, c.from, Unknown)
		}
		b.emitRun(cpu, c, c.cur, c.from, end, c.q)
	case c.hasU:
		b.emitRun(cpu, c, nil, c.uFrom, end, Unknown)
	default:
		b.emitRun(cpu, c, nil, c.from, end, Unknown)
	}
}

// evidence compares the task e was recorded under (for a sched_switch: prev)
// with the task the CPU's events last showed; a change without a recorded
// switch means the trace lacks the switches in between. The new task's
// switch-in is then dated by its first sched_stat_runtime on the CPU (see the
// package doc).
func (b *Builder) evidence(e *trace.Event, c *cpuState) {
	switch e.Kind {
	case trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit:
		return // not recorded in the context of the CPU's current task
	}
	who := e.CurTID
	if e.Kind == trace.KindSwitch {
		who = e.TID
	}
	if who < 0 {
		return
	}
	// A remembered waking of a running task is forgotten when the task
	// shows it ran on (anything in its own context but the accounting of
	// __schedule itself and the switch-out).
	if e.Kind != trace.KindSwitch && e.Kind != trace.KindRuntime {
		if t := b.tasks.Get(who); t != nil && t.woken {
			t.woken = false
			b.C.WakingsWhileRunningForgotten++
		}
	}
	if c.evCurr != who {
		if c.evCurr >= 0 {
			b.C.ChainBreaks++
			if cpu := int(e.CPU); cpu >= 0 && cpu < 1<<16 {
				for len(b.C.ChainBreaksByCPU) <= cpu {
					b.C.ChainBreaksByCPU = append(b.C.ChainBreaksByCPU, 0)
				}
				b.C.ChainBreaksByCPU[cpu]++
			}
		}
		c.evCurr = who
		c.pending = true
		if t := b.tasks.Get(who); t != nil && t.state == StateSleeping {
			b.C.Unwoken++ // running, but neither wakeup nor switch-in recorded
		}
		if e.Kind != trace.KindSwitch && (c.cur == nil || c.curTID != who) {
			// The CPU's run changes at an unknown time before now.
			if !c.hasU {
				c.hasU, c.uFrom = true, c.from
			}
			c.cur, c.curTID = b.task(who, e.CurPID, ""), who
			c.from, c.q, c.prio = e.Time, Recovered, -1
		}
	}
	if !c.pending || e.Kind != trace.KindRuntime || e.TID != who {
		return
	}
	c.pending = false
	in := e.Time - max(e.Runtime, 0)
	lo := c.lastSwitch
	if c.hasU {
		lo = max(lo, c.uFrom)
	}
	t := b.tasks.Get(who)
	if t != nil && (t.state == StateRunnable || t.state == StateSleeping) && t.since <= e.Time {
		lo = max(lo, t.since) // it cannot have run before it became runnable
	}
	in = max(in, lo)
	if c.cur != nil && c.curTID == who && c.q == Recovered {
		c.from = min(c.from, in)
		in = c.from
	}
	if t == nil || t.state != StateRunnable || t.since > e.Time {
		return
	}
	// Evidence of the task on the CPU before its wakeup (a wakeup reported
	// late) does not make the delay negative.
	in = max(in, t.since)
	b.C.Recovered++
	b.endDelay(t, in, e.CPU, true)
	t.state, t.since, t.cpu = StateRunning, in, e.CPU
}

// endDelay ends t's runnable state at in with a delay (switch-in on cpu).
func (b *Builder) endDelay(t *Task, in int64, cpu trace.CPU, recovered bool) {
	b.leaveState(t, in)
	d := &b.delay // field by field, see interval
	d.Task, d.Start, d.End, d.CPU, d.QueueCPU, d.StartCPU = t, t.since, in, cpu, t.cpu, t.startCPU
	d.Cause, d.Waker, d.FromIRQ, d.FirstWaking, d.Recovered, d.Stack, d.Lossy, d.Excluded = t.cause, nil, false, t.first, recovered, t.outStack, false, false
	d.Unrecorded = t.hasOff && b.unrecorded(t.offCPU) || t.ranUnseen
	t.hasOff, t.ranUnseen = false, false
	if t.cause != CausePreempted {
		d.Waker, d.FromIRQ = b.Lookup(t.waker), t.wakeIRQ == trace.Yes
	}
	if b.hooks.GroupDelay != nil && (b.hooks.GroupWhole || b.opts.Filter.Time(in) && b.opts.Filter.CPU(cpu)) {
		b.markDelay(d)
		b.hooks.GroupDelay(d)
	}
	if f := b.opts.Filter; f.Undecided(t) && f.Time(in) && f.CPU(cpu) {
		// Its cgroup or PID is not known yet: decided when it is.
		if b.undecided == nil {
			b.undecided = map[*Task][]Delay{}
		}
		b.undecided[t] = append(b.undecided[t], *d)
		return
	}
	if !b.opts.Filter.Event(t, cpu, in) {
		return
	}
	b.emitDelay(d)
}

// decideHeld emits the delays of t held back until its cgroup and PID
// were known (see undecided) when the filter selects it; nothing while
// one is still unknown.
func (b *Builder) decideHeld(t *Task) {
	if b.opts.Filter.Undecided(t) {
		return
	}
	ds, rs := b.undecided[t], b.undecidedRT[t]
	delete(b.undecided, t)
	delete(b.undecidedRT, t)
	if !b.opts.Filter.Task(t) {
		return
	}
	for i := range ds {
		b.delay = ds[i]
		b.emitDelay(&b.delay)
	}
	for i := range rs {
		b.emitRuntime(t, &rs[i])
	}
}

// RuntimeSlack is how much run time a sched_stat_runtime may report
// beyond the time since its task last changed state (its switch-in while
// it runs) before the Builder takes it for damage: 4 ms. The kernel
// charges from the task's exec_start, set as it is picked, just before
// its sched_switch, and again at each charge (set_next_entity and
// update_curr, kernel/sched/fair.c v6.12), so a real one exceeds the time
// since the later of the two by the clocks' skew: over the 36 perf.data
// files of ../shared/traces (151,142 events with any excess) the median
// excess was 0.7 µs, the 99.9th percentile 68 µs and the largest 2.12 ms
// (one event, srv.2cpu, measured 2026-12-06); 4 ms is about twice that. A
// value damaged by more (new-user pass 26 F1: 4 ms charges made 12 and 50
// ms, summed into a task's Runtime without a word) is left out.
const RuntimeSlack = int64(4_000_000)

// emitRuntime counts sched_stat_runtime e of t and passes it to the
// Runtime hook.
func (b *Builder) emitRuntime(t *Task, e *trace.Event) {
	lossy := b.lossy(e.Time-max(e.Runtime, 0), e.Time, e.CPU, -1, -1)
	if lossy {
		b.C.LossyRuntime++
		b.C.LossyRuntimeNs += e.Runtime
	}
	if !lossy || b.opts.KeepLossy {
		t.StatRuntime += e.Runtime
		t.StatRuntimeEvents++
	}
	if b.hooks.Runtime != nil {
		b.hooks.Runtime(t, e, lossy)
	}
}

// markDelay sets d.Lossy and d.Excluded.
//
// A delay is lossy when it overlaps a lost window on any CPU, not only on
// the CPUs it names: while a CPU's events are missing, a task waiting
// elsewhere may have been pulled there and run (the load balancer pulls
// from the destination CPU, whose sched_migrate_task is then lost with the
// rest). A cut perf.data showed a 250 ms delay on CPU 0 for a task that,
// in the whole file, was pulled to CPU 1 3 ms after its preemption and ran
// there (its real maximum 11.1 ms).
func (b *Builder) markDelay(d *Delay) {
	d.Lossy = b.lossy(d.Start, d.End, anyCPU, -1, -1) || d.Task != nil && d.Task.unobservedAt >= d.Start && d.Task.unobservedAt > 0 ||
		d.Cause == CauseWakeup && d.Task != nil && (d.Task.afterLoss || d.Task.sleptFrom > 0 && b.lossy(d.Task.sleptFrom, d.Start, anyCPU, -1, -1))
	d.Excluded = d.Lossy && !b.opts.KeepLossy || d.Unrecorded
}

// emitDelay marks d lossy or not and passes it to the Delay hook.
func (b *Builder) emitDelay(d *Delay) {
	b.markDelay(d)
	if d.Unrecorded {
		b.C.UnrecordedDelays++
	} else if d.Lossy {
		b.C.LossyDelays++
		b.C.LossyDelayNs += d.End - d.Start
	}
	if b.hooks.Delay != nil {
		b.hooks.Delay(d)
	}
}

// cgroupMove splits the run of task e.TID on e.CPU at its move to another
// task group, e.Runtime ns before e.Time (trace.KindCgroupMove): the part
// before is a run of its own, in e.Cgroup, the group the task left; the
// rest goes on to the next switch, in the group that names. A task not
// running on e.CPU then (its run's start is not in the trace, or the move
// is before it) is left alone: its runs are in the groups their
// switch-outs name.
func (b *Builder) cgroupMove(e *trace.Event, c *cpuState) {
	if c == nil || e.TID <= 0 || e.Cgroup == 0 || e.Runtime < 0 {
		return
	}
	at := e.Time - e.Runtime
	t := b.tasks.Get(e.TID)
	// (Nor while the run's start is still to be dated, c.pending: the
	// evidence may move it before the move; nor on a CPU with no
	// sched_switch yet, whose time Finish reports as unknown whole.)
	if t == nil || !c.switched || c.cur != t || c.curTID != e.TID || c.pending || at <= c.from || at > e.Time {
		return
	}
	t.Cgroup = e.Cgroup
	if b.undecided != nil || b.undecidedRT != nil {
		b.decideHeld(t)
	}
	if b.hooks.CgroupMove != nil {
		b.hooks.CgroupMove(t, e.Cgroup)
	}
	b.closeRun(e.CPU, c, at, true) // (with the unknown stretch before it, if any)
	c.from, c.hasU = at, false
	b.C.CgroupMoveSplits++
}

// renameSplit splits t's run at its rename at time at (an exec or a
// PR_SET_NAME, trace.KindExec and KindComm) when a --comm filter is set
// (Filter.Comms), which matches the name at each event: the part before
// is a run of its own under the old name, the rest goes on under the new
// one to the switch-out. Without the split the whole run was the name's
// at the switch-out: a task that spun 1 s as flipB and renamed itself
// before each switch-out read "nothing matched" for --comm flipB
// (new-user pass 52 F1). Without a --comm filter no run is split: the
// rows are per task, and timehist's lines per switch. A task not running
// then, or whose run's start is still to be dated, or whose task group is
// not known yet in a trace that records groups, is left alone.
func (b *Builder) renameSplit(t *Task, at int64) {
	if f := b.opts.Filter; f == nil || f.Comms == nil || t.cpu < 0 || int(t.cpu) >= len(b.cpus) {
		return
	}
	c := &b.cpus[t.cpu]
	if !c.switched || c.cur != t || c.curTID != t.TID || c.pending || at <= c.from {
		return
	}
	if m := b.opts.Meta; t.Cgroup == 0 && m != nil && len(m.Cgroups) > 0 {
		// A task group not known yet (a new task's, until its first
		// switch-out names it): the part before the rename would be in
		// no group's table, which ignores the filters (quota-siblings.tv:
		// a forked child's 1.5 ms before its exec left /p7h's runtime).
		return
	}
	b.closeRun(t.cpu, c, at, true)
	c.from, c.hasU = at, false
	b.C.RenameSplits++
}

// runtimeCgroup takes the cgroup of a sched_stat_runtime of the running
// task (e.Cgroup: perf record --all-cgroups samples the current task's
// cgroup, and the readers keep it only when the event is about the current
// task) as the group t ran in during the tick's interval, e.Runtime ns up to
// e.Time. When it differs from the group known for t, t moved: its run on
// e.CPU is split where that interval began (the part before in the group
// known, as for a recorded move, cgroupMove), so the move is placed within
// one tick (4 ms at CONFIG_HZ=250) instead of at the run's switch-out.
// (traceview record's sched_stat_runtime carries no cgroup: its moves are
// recorded, trace.KindCgroupMove, and a file has one kind or the other.)
func (b *Builder) runtimeCgroup(e *trace.Event, t *Task, c *cpuState) {
	if e.Cgroup == 0 || t.Cgroup == e.Cgroup || t.state == StateDead {
		return
	}
	if at := e.Time - e.Runtime; t.Cgroup != 0 && c != nil && c.switched && c.cur == t && c.curTID == e.TID && !c.pending && at > c.from && at <= e.Time {
		b.closeRun(e.CPU, c, at, true) // in t.Cgroup, the group it left
		c.from, c.hasU = at, false
		b.C.CgroupMoveSplits++
	}
	t.Cgroup = e.Cgroup
	if b.undecided != nil || b.undecidedRT != nil {
		b.decideHeld(t)
	}
}

func (b *Builder) doSwitch(e *trace.Event, c *cpuState) {
	if (e.Cgroup != 0 || e.PID >= 0) && e.TID > 0 {
		// Before the run closes: a run is in the cgroup its switch-out
		// says (the first run of a task too), of the process it says.
		if t := b.tasks.Get(e.TID); t != nil && t.state != StateDead && (e.Cgroup != 0 || t.PID < 0) {
			if e.Cgroup != 0 {
				t.Cgroup = e.Cgroup
			}
			if t.PID < 0 {
				t.PID = e.PID
			}
			if b.undecided != nil || b.undecidedRT != nil {
				b.decideHeld(t)
			}
		}
	}
	prevLast := int64(0)
	if c != nil {
		prevLast = c.lastSwitch
		if b.opts.Filter.CPU(e.CPU) && b.opts.Filter.Time(e.Time) {
			c.stats.Switches++
		}
		if c.switched && e.Time < c.lastSwitch {
			b.C.SwitchesOutOfOrder++
		}
		c.endState, c.endSwitch = e.PrevState, true
		b.closeRun(e.CPU, c, e.Time, c.curTID == e.TID)
		c.endState, c.endSwitch = 0, false
		if !c.stats.HaveSeen {
			// The CPU is observed from its first switch on.
			c.stats.SeenFrom, c.stats.HaveSeen = e.Time, true
		}
		c.switched = true
		c.lastSwitch = e.Time
		c.hasU = false
		c.cur, c.curTID, c.from, c.q = b.task(e.NextTID, e.NextPID, e.NextComm), e.NextTID, e.Time, Known
		c.prio = e.NextPrio
		c.evCurr, c.pending = e.NextTID, false
	}
	prev := b.task(e.TID, e.PID, e.Comm)
	if prev != nil && prev.TID != 0 {
		if prev.state == StateRunnable {
			// It ran without a switch-in the trace shows, from the CPU's
			// last switch on at the latest: no delay is measured.
			b.C.Dropped++
			b.endUnknown = true
			b.leaveState(prev, min(max(prev.since, prevLast), e.Time))
			b.endUnknown = false
		}
		ps := e.PrevState
		prev.since, prev.cpu, prev.outStack = e.Time, e.CPU, e.Stack
		if e.Cgroup != 0 {
			prev.Cgroup = e.Cgroup
		}
		woken := prev.woken
		prev.woken = false
		switch {
		case ps&(trace.StateDead|trace.StateZombie) != 0:
			prev.state = StateDead
		case ps.Runnable():
			prev.state, prev.cause, prev.waker, prev.startCPU, prev.first = StateRunnable, CausePreempted, -1, e.CPU, e.Time
			prev.hasOff, prev.ranUnseen = false, false
			b.enqueue(prev)
		case woken:
			// The waking came first (try_to_wake_up's race with the
			// switch-out, see the package doc).
			b.C.Raced++
			prev.state, prev.cause, prev.waker, prev.startCPU, prev.first = StateRunnable, CauseWokenBeforeSwitchOut, prev.wokenWaker, prev.wokenCPU, e.Time
			prev.wakeIRQ = prev.wokenIRQ
			prev.hasOff, prev.ranUnseen = false, false
			if prev.wokenQueue >= 0 {
				prev.cpu = prev.wokenQueue
				if prev.wokenQueue != prev.wokenCPU { // a target the kernel chose
					b.noteQueue(prev, prev.cpu)
				}
			}
			b.enqueue(prev)
		default:
			prev.state, prev.sleep = StateSleeping, ps
		}
	}
	next := b.task(e.NextTID, e.NextPID, e.NextComm)
	if e.NextTID == 0 && c != nil && b.opts.RecordedCPUs != nil && len(c.queued) > 0 && b.someUnrecorded() {
		// The CPU goes idle with tasks said queued there: a CPU runs a
		// queued task before its idle task (unless its group is
		// throttled), so they were pulled to a CPU the recording left
		// out (a migration that CPU emitted, which perf record -C does
		// not record) and may run there unseen: their delays are not
		// measured. A task taskset moved to CPU 0 read a 1.55 s delay
		// on a -C 1 recording while it ran there.
		for _, t := range c.queued {
			t.ranUnseen = true
		}
	}
	if next == nil || next.TID == 0 {
		return
	}
	next.woken = false
	// A switch-in before the wakeup (events out of order) measures
	// nothing, as perf's THREAD_IGNORE atom.
	if next.state == StateRunnable && e.Time >= next.since {
		b.endDelay(next, e.Time, e.CPU, false)
	} else {
		if next.state == StateSleeping {
			b.C.Unwoken++
		}
		if next.state == StateUnknown && !next.seenIn {
			b.C.FirstSwitchIns++
		}
		b.leaveState(next, e.Time)
	}
	next.state, next.since, next.cpu = StateRunning, e.Time, e.CPU
	next.seenIn = true
	if b.opts.Filter.Event(next, e.CPU, e.Time) {
		next.Switches++
	}
}

func (b *Builder) doWakeup(e *trace.Event) {
	t := b.task(e.TID, e.PID, e.Comm)
	if t == nil || t.TID == 0 {
		return
	}
	wtid := e.WakerTID
	if wtid < 0 {
		wtid = e.CurTID
	}
	target := e.TargetCPU
	if target < 0 {
		target = e.CPU
	}
	switch t.state {
	case StateRunning:
		if e.Kind != trace.KindWakeupNew {
			t.woken, t.wokenWaker, t.wokenCPU, t.wokenQueue = true, wtid, e.CPU, target
			t.wokenIRQ = e.FromIRQ // for the delay it starts if the task then sleeps
		}
		return
	case StateRunnable:
		if t.cause == CausePreempted && e.Kind != trace.KindWakeupNew && t.queuedWake >= t.since && t.queuedWake > 0 && e.Time >= t.queuedWake {
			// A second waking since its preemption: the first set the
			// task's state back to running (ttwu_runnable), so it has run
			// and gone to sleep again, on a CPU or in a stretch the trace
			// does not show (a file cut short on that CPU, lost events).
			// Its wait is unknown, not a delay; a new one starts here,
			// lossy if that unseen stretch met lost events (sleptFrom).
			b.C.Dropped++
			slept := t.since
			b.leaveState(t, t.since)
			b.wake(t, e, wtid, target)
			t.sleptFrom = slept
			return
		}
		if t.cause == CausePreempted || e.Kind == trace.KindWakeupNew || e.Time < t.since {
			if t.cause == CausePreempted && e.Kind != trace.KindWakeupNew && e.Time >= t.since {
				t.queuedWake = e.Time
			}
			return // preempted while going to sleep: the wakeup found it queued
		}
		if t.cause == CauseWokenBeforeSwitchOut {
			// The remembered waking found the task still on its runqueue
			// (ttwu_runnable): it went on running and this is the wakeup
			// after its real sleep. The delay starts here.
			b.C.Raced--
			b.C.RacesUndone++
			// Asleep since its switch-out, not runnable: the State
			// hook's interval says so (new-user pass 29 F3: the Chrome
			// JSON export drew it Runnable, 7 % above latency's delays).
			b.dequeue(t)
			b.emitState(t, StateSleeping, e.Time)
			b.wake(t, e, wtid, target)
			return
		}
		b.C.Rewoken++
		b.C.RestartNs += e.Time - t.since
		first := t.first
		b.leaveState(t, e.Time)
		b.wake(t, e, wtid, target)
		t.first = first
		return
	case StateSleeping:
		if t.since > e.Time {
			b.C.OutOfOrderWakeups++
			return // out of order (perf's nr_unordered_timestamps)
		}
		slept := t.since
		b.leaveState(t, e.Time)
		b.wake(t, e, wtid, target)
		t.sleptFrom = slept
		return
	case StateDead:
		return
	}
	// Its state unknown since a loss let it go from a runqueue
	// (lostEvent): it may have run and slept in the lost stretch, and its
	// real wakeup may be among the lost events, so its delay is lossy
	// (markDelay), as timehist prints it (new-user pass 62 F1).
	afterLoss := t.state == StateUnknown && t.lostAt > 0 && t.lostAt >= t.since
	b.leaveState(t, e.Time)
	b.wake(t, e, wtid, target)
	t.afterLoss = afterLoss
}

func (b *Builder) wake(t *Task, e *trace.Event, wtid trace.TID, target trace.CPU) {
	waker := b.Lookup(wtid)
	if waker == nil && wtid >= 0 {
		waker = b.task(wtid, e.CurPID, "")
	}
	t.state, t.since, t.first, t.sleptFrom, t.afterLoss = StateRunnable, e.Time, e.Time, 0, false
	t.cause = CauseWakeup
	if e.Kind == trace.KindWakeupNew {
		t.cause = CauseWakeupNew
	}
	t.waker, t.cpu, t.startCPU = wtid, target, e.CPU
	t.hasOff, t.ranUnseen = false, false
	if e.TargetCPU >= 0 { // the target the kernel chose, not the waking's own CPU
		b.noteQueue(t, target)
	}
	t.wakeIRQ = e.FromIRQ
	if e.Kind == trace.KindWakeupNew && t.wakeIRQ == trace.Yes {
		t.wakeIRQ = trace.No // a new task is woken by its parent's fork, never by an interrupt
	}
	t.woken = false
	b.enqueue(t)
	if b.hooks.Wakeup != nil && b.opts.Filter.Event(t, target, e.Time) {
		b.hooks.Wakeup(e.Time, waker, t, target)
	}
}

// Finish closes every open interval at the end of the trace (Span's end):
// task states and CPU runs reach it; delays still open are not measured.
func (b *Builder) Finish() {
	if b.finished {
		return
	}
	b.finished = true
	_, end := b.span()
	for _, t := range b.all {
		switch t.state {
		case StateRunnable, StateSleeping:
			b.leaveState(t, end)
			t.state = StateUnknown
		}
	}
	b.rqDirty = b.rqDirty[:0] // the trace ends, not the runqueues
	for i := range b.cpus {
		c := &b.cpus[i]
		if !c.seen || !c.switched {
			if c.seen {
				b.emitRun(trace.CPU(i), c, nil, c.uFrom, end, Unknown)
			}
			continue
		}
		// A task that the trace last showed running elsewhere (a switch-out
		// lost) is not counted as running here.
		same := c.cur == nil || c.cur.TID == 0 || (c.cur.state == StateRunning && c.cur.cpu == trace.CPU(i))
		if at := max(c.last, c.from); c.cur != nil && same && wentOffline(c.cur.Comm, trace.CPU(i)) && at < end {
			// The CPU's hotplug thread ran last: the CPU went offline
			// (takedown runs on its cpuhp/N thread, and the per-CPU
			// perf events, the recorders' with them, are removed at its
			// CPUHP_AP_PERF_ONLINE step: kernel/cpu.c, kernel/events/
			// core.c perf_event_exit_cpu, Linux 6.18), so nothing more
			// of it is recorded. Its time from its last event is unknown,
			// not the thread's run (new-user pass 44 F2: cpuhp/1 ran
			// 2706 ms, the CPU 99.6 % busy).
			b.closeRun(trace.CPU(i), c, at, true)
			b.emitRun(trace.CPU(i), c, nil, at, end, Unknown)
			b.C.OfflineCPUs = append(b.C.OfflineCPUs, trace.CPU(i))
			continue
		}
		b.closeRun(trace.CPU(i), c, end, same)
	}
	if f := b.opts.Filter; f != nil && b.hooks.Runqueue != nil {
		// Lengths held for the window's start that nothing followed.
		for c := range b.cpus {
			if v, ok := b.rqBefore[trace.CPU(c)]; ok && f.Start <= end {
				b.hooks.Runqueue(trace.CPU(c), f.Start, v)
			}
		}
		b.rqBefore = nil
	}
}

// wentOffline reports whether comm is cpu's own hotplug thread, "cpuhp/N"
// (smpboot's per-CPU thread, kernel/cpu.c cpuhp_threads, Linux 6.18),
// whose run is the last thing a CPU going offline records.
func wentOffline(comm string, cpu trace.CPU) bool {
	n, ok := strings.CutPrefix(comm, "cpuhp/")
	return ok && n == strconv.Itoa(int(cpu))
}
