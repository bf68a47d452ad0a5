package report

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/termsafe"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// ErrSortKey is wrapped by ComputeLatency's error for an unknown sort key.
var ErrSortKey = errors.New("unknown sort key")

// DefaultLatencySort is perf sched latency's default sort order
// (tools/perf/builtin-sched.c, cmd_sched: default_sort_order).
const DefaultLatencySort = "avg, max, switch, runtime"

// LatencySortKeys are the accepted sort keys: perf's pid (the row's tid,
// highest first, as perf's pid_cmp orders them), runtime, switch (perf's
// name for the Count column), avg and max (tools/perf/builtin-sched.c
// v6.12, available_sorts), plus sum (total delay), which perf lacks and
// PerfCompat rejects.
var LatencySortKeys = []string{"pid", "runtime", "switch", "avg", "max", "sum"}

// LatencyOptions selects what ComputeLatency measures. The zero value is
// perf's default: every CPU, rows merged by command name, default sort.
type LatencyOptions struct {
	// PerTask gives one row per task (perf -p/--pids) instead of merging
	// tasks with the same command name.
	PerTask bool
	// ByCgroup splits a task that changed cgroups into a row per group
	// (TaskRows; LatencyRow.Cgroup is then the row's own group): the run
	// ended by a switch-out in a new group, and all after it, go to that
	// group's row, as CgroupThrottle counts them, so that a group's rows
	// add up to its CgroupThrottle runtime and delays. Default path only.
	ByCgroup bool
	// OneCapture (MergeLatency): the parts are files of one recording
	// (trace.OneCapture, a record --rotate series), so a task found in
	// several is one task: its rows (same TID, PID and comm) merge into
	// one.
	OneCapture bool
	// Sort lists sort keys (LatencySortKeys), most significant first, e.g.
	// []string{"max"}; empty means DefaultLatencySort. Rows sort in
	// descending order of the keys; ties keep perf's order (command names in
	// reverse byte order when merged, TIDs descending per task).
	Sort []string
	// CPUGiven and CPU reproduce perf's -C/--CPU: perf then trusts every
	// wakeup (even of a task it believes runnable) and resets the task's
	// delay at each sched_migrate_task. Like perf, -C does not filter
	// events by CPU.
	CPUGiven bool
	CPU      trace.CPU
	// Percentiles fills each row's P50..P999 (and keeps delay samples
	// internally to do so).
	Percentiles bool
	// KeepSamples keeps each row's measured delays (ns, in trace order) in
	// LatencyRow.Samples, for callers that need their own statistics.
	KeepSamples bool
	// PerfCompat reproduces perf 6.12's numbers exactly, including what this
	// package corrects by default: a zero delay counted at the first
	// switch-in of a task not seen before, and no recovery of delays whose
	// switch-in the trace lacks. Used by the oracle tests against perf's own
	// output and by `traceview latency --perf`.
	PerfCompat bool
	// Wakeups chooses the wakeup events that start a delay; the zero value
	// WakeupsAuto follows perf: sched_waking when the trace has it,
	// otherwise sched_wakeup (sched_wakeup_new always counts).
	Wakeups WakeupSource
	// KeepLossy keeps delays and sched_stat_runtime that overlap a window
	// of lost events on a CPU they involve. By default they are left out of
	// the rows and counted (LatencyRow.Lossy, LatencyDiagnostics.Lossy*).
	// Not used with PerfCompat or CPUGiven.
	KeepLossy bool
	// Hooks, when set, also receive the schedule reconstruction that
	// measures the delays (default mode only: not with PerfCompat or
	// CPUGiven), after the report's own hooks, so that a caller can build
	// its own tables (Parquet's sched_slice, thread_state) from the same
	// single pass. LatencyResult.Schedule holds the finished Builder.
	Hooks schedule.Hooks
	// Filter, when active, keeps the delays, runtime and switch-ins it
	// selects (see schedule.Filter: delays by their switch-in, runtime
	// where and when it was recorded) and only rows with one of them.
	// ComputeLatency rejects it with PerfCompat or CPUGiven (perf's
	// latency has no filter): ErrFilterPerf.
	Filter *schedule.Filter
	// Cgroups states task groups' settings the trace does not carry
	// (--recorded-cgroup): a quota here lets the throttling inference use
	// its quota rule (see throttle.go). Settings stated for a path
	// override the trace's recorded ones.
	Cgroups []trace.CgroupSettings
	// Throttle says the rows carry the split of their delays into waited
	// for a CPU and throttled (LatencyRow.Throttled), and the table shows
	// it. ComputeLatency sets it in LatencyResult.Options when the trace
	// records the cgroup of tasks outside the root group (default mode
	// only); a caller merging results sets it when any part has it.
	Throttle bool
}

// ErrFilterPerf is ComputeLatency's error for a filter combined with perf's
// own state machine (PerfCompat, CPUGiven).
var ErrFilterPerf = errors.New("perf's latency (--perf, -C with --perf) has no --time, --cpu, --pid, --tid or --comm filter")

// Runtime sources of LatencyRow.RuntimeSource.
const (
	RuntimeFromStat     = "sched_stat_runtime" // the sum of the task's sched_stat_runtime
	RuntimeFromSwitches = "switches"           // on-CPU time between its switch-in and switch-out
)

// WakeupSource says which wakeup tracepoint starts a scheduling delay.
type WakeupSource uint8

// The wakeup sources. In a stream ComputeLatency cannot look ahead, so
// WakeupsAuto uses sched_wakeup events until the first sched_waking arrives
// and only sched_waking after it; sched_waking of a wakeup always precedes
// its sched_wakeup (kernel/sched/core.c try_to_wake_up), so this equals
// perf's choice except for wakeups whose sched_waking preceded the trace.
const (
	WakeupsAuto   WakeupSource = iota
	WakeupsWaking              // only sched_waking
	WakeupsWakeup              // only sched_wakeup
)

// LatencyRow is one line of the latency table: a task, or all tasks sharing
// a command name. Times are ns.
type LatencyRow struct {
	Comm string // perf's thread name: the latest comm; ":TID" when the trace never named the task
	// TID is the task's thread id (perf prints it as "pid"); 0 for a row that
	// merges several tasks. PID is its process id (tgid) when the trace says,
	// -1 when not, 0 for a merged row.
	TID trace.TID
	PID trace.PID
	// MaxTID is the highest tid of a merged row's tasks (0 for a task's
	// own row): the thread perf's merged row keeps, as perf_sched__merge_lat
	// takes the tasks highest tid first (tools/perf/builtin-sched.c v6.12),
	// and by which -s pid orders the row (sortTID).
	MaxTID  trace.TID `json:"-"`
	NrTasks int       // tasks in the row (1 unless merged)
	// Cgroup is the cgroup v2 id (Event.Cgroup; Meta.Cgroups has its
	// path) of the task at its last recorded switch-out, 0 when the trace
	// does not record cgroups; a merged row's when all its tasks share it,
	// else 0.
	Cgroup uint64

	// Runtime is the sum of the sched_stat_runtime of the row's tasks; when
	// the trace has no sched_stat_runtime at all (trace.dat, ftrace text or
	// a perf record of sched_switch only), the tasks' on-CPU time between
	// recorded switches (RuntimeSource says which).
	Runtime       int64
	RuntimeSource string
	Count         int64 // scheduling delays measured (perf's Count)
	Switches      int64 // times a task of the row was switched in

	AvgDelay int64 // SumDelay / Count (integer division, as perf)
	MaxDelay int64
	SumDelay int64
	// MaxDelayStart and MaxDelayEnd bound the largest delay: the wakeup (or
	// preemption) and the switch-in.
	MaxDelayStart, MaxDelayEnd int64

	// P50..P999: delay percentiles (stat.Empirical) when
	// LatencyOptions.Percentiles is set, else 0.
	P50, P95, P99, P999 int64
	// SortedDelays: the row's measured delays (ns) in ascending order when
	// LatencyOptions.Percentiles is set, else nil: what the percentile
	// columns read (DelayQuantile).
	SortedDelays []int64

	// Recovered counts the row's delays whose switch-in the trace lacks and
	// that were inferred (included in Count), RecoveredSum their total (ns).
	// FirstSeen counts switch-ins of the row's tasks when first seen, for
	// which perf counts a 0 ns delay (in Count only with PerfCompat).
	Recovered, RecoveredSum, FirstSeen int64
	// Raced counts the row's delays started at the switch-out because the
	// task's sched_waking came first (try_to_wake_up's race; perf loses
	// them), RacedSum their total (ns). RestartShift is how much later (ns,
	// summed) delays start because a second waking restarted them.
	Raced, RacedSum, RestartShift int64
	// Unrecorded counts switch-ins of the row's tasks that the trace lacks:
	// a task emitted an event as the current task of a CPU whose last
	// recorded sched_switch had switched in another (seen when a vCPU
	// leaves idle: the switch out of idle goes unrecorded). The kernel
	// counted each (nr_switches, the task's nvcsw/nivcsw); Switches does
	// not.
	Unrecorded int64
	// RunsUnended counts the row's runs whose switch-out the trace lacks
	// (the CPU's next sched_switch switched out another task:
	// ChainBreak.Missing) when Runtime comes from the switches: their time
	// is unknown and Runtime leaves it out, a lower bound; with Runtime 0
	// the run time is unknown, not none (new-user pass 117 F2: a thread
	// switched in 13 times shown at 0.000 ms). 0 in PerfCompat mode and
	// with sched_stat_runtime, which the kernel measures itself.
	RunsUnended int64
	// Lossy counts the row's delays that overlapped lost events, left out
	// of every other column unless KeepLossy; LossyRuntime its
	// sched_stat_runtime events that did, left out of Runtime unless
	// KeepLossy (the same holds for on-CPU runtime from the switches).
	Lossy, LossyRuntime int64
	// Throttled is the part of SumDelay (ns) the row's tasks waited while
	// their task group was throttled (out of CPU quota; inferred, see
	// throttle.go), ThrottledDelays the delays with such a part. The rest,
	// SumDelay − Throttled, they waited for a CPU. 0 unless
	// LatencyOptions.Throttle.
	Throttled, ThrottledDelays int64

	// Samples: every measured delay of the row (ns, trace order; merged rows
	// concatenate their tasks) when KeepSamples is set.
	Samples []int64
}

// LatencyTotal sums the printed rows (perf's TOTAL line plus switches and
// the total delay).
type LatencyTotal struct {
	Runtime   int64
	Count     int64
	Switches  int64
	SumDelay  int64
	Throttled int64 // ns of SumDelay spent throttled (LatencyRow.Throttled)
}

// ChainBreak counts, for one CPU, sched_switch events whose previous task
// was not the task the CPU's previous sched_switch had switched in (see
// perfcompat.ChainBreak, where perf's thread and CPU bookkeeping lives).
type ChainBreak = perfcompat.ChainBreak

// LatencyDiagnostics explains what the trace lacked and how the numbers deal
// with it.
type LatencyDiagnostics struct {
	Events int64 // events read
	// SchedEvents: those that are scheduler events (trace.Kind.Scheduler),
	// as the no-match message counts them.
	SchedEvents int64
	Switches    int64 // sched_switch events
	// Chains: per CPU (ascending), only CPUs with at least one break.
	Chains []ChainBreak
	// Recovered: delays whose switch-in the trace lacks, closed at the
	// first event the task recorded on its CPU (sched_stat_runtime evidence
	// moves the switch-in back by the runtime it reports, bounded by the
	// wakeup and the CPU's last recorded switch). 0 in PerfCompat mode.
	Recovered int64
	// OfflineCPUs: CPUs that went offline during the trace
	// (schedule.Counters.OfflineCPUs): their time after their last event
	// is unknown.
	OfflineCPUs []trace.CPU
	// Dropped: delays that stayed open (wakeup or preemption seen, switch-in
	// never seen nor inferred) and so are not counted.
	Dropped int64
	// Unwoken: tasks switched in (or seen running) after they were last
	// seen going to sleep, with no recorded wakeup in between (e.g. woken
	// from an interrupt on a CPU whose idle-time events were not
	// recorded): delays that cannot be measured.
	Unwoken int64
	// Wakeups: the sched_waking, sched_wakeup and sched_wakeup_new events
	// read; 0 with Unwoken > 0 is a trace that records no wakeups
	// (warning no-wakeups).
	Wakeups int64
	// FirstSeen: switch-ins of tasks seen for the first time. perf counts a
	// 0 ns delay for each (included in Count in PerfCompat mode only).
	FirstSeen int64
	// perf's own counters, for its INFO lines: nr_timestamps (wakeups of
	// tasks it believed asleep, plus migrations with -C), unordered
	// timestamps, context switch bugs (= total Breaks), lost events/chunks.
	PerfTimestamps, PerfUnordered, PerfSwitchBugs int64
	LostEvents, LostChunks                        int64
	// Raced: delays started at a switch-out because the task's
	// sched_waking came first. Rewoken: second wakings of a task already
	// waiting (its delay restarted). LossyDelays, LossyRuntime(Ns): delays
	// and sched_stat_runtime events left out because they overlapped lost
	// events (counted but kept with KeepLossy). 0 in PerfCompat mode.
	Raced, Rewoken                            int64
	LossyDelays, LossyRuntime, LossyRuntimeNs int64
	// InconsistentRuntime(Ns): sched_stat_runtime events left out as
	// damage, reporting more run time than their task can have had since
	// its last change of state (schedule.Counters).
	InconsistentRuntime, InconsistentRuntimeNs int64
	// UnrecordedDelays: delays left out because the task may have run
	// meanwhile on a CPU the capture left out (schedule.Delay.Unrecorded).
	UnrecordedDelays int64
	// RuntimeFromSwitches: the trace has no sched_stat_runtime, so Runtime
	// is on-CPU time from the switches. RuntimeNone: perf's state machine
	// (PerfCompat, CPUGiven) found no runtime at all in a trace with
	// switches: its Runtime column is all zeros, as perf prints it.
	RuntimeFromSwitches, RuntimeNone bool
}

// LatencyResult is the latency report.
type LatencyResult struct {
	Rows  []LatencyRow
	Total LatencyTotal
	// Meta is the source's metadata (for lost windows and reader warnings).
	Meta *trace.Meta
	// Warnings: the source's counted warnings followed by this report's
	// own (chain breaks, dropped delays).
	Warnings []trace.Warning
	// ReportWarnings: this report's own warnings only (the tail of
	// Warnings).
	ReportWarnings []trace.Warning
	Diag           LatencyDiagnostics
	// Options as used (Sort filled with the effective keys).
	Options LatencyOptions
	// TaskRows holds one row per task identity (perf's thread object),
	// every one of them, idle and rows without delays included, in perf's
	// merge order (TID descending, later identities of a reused TID
	// first), with Samples when Percentiles or KeepSamples is set: what
	// MergeLatency merges exactly.
	TaskRows []LatencyRow
	// Schedule is the finished reconstruction that measured the delays;
	// nil with PerfCompat or CPUGiven.
	Schedule *schedule.Builder
	// Cgroups: per task group (not the root), its CPU share and inferred
	// throttling, by path; nil unless Options.Throttle.
	Cgroups []CgroupThrottle
	// DeadlineThrottled is set when a SCHED_DEADLINE task's waits were
	// counted as throttled (its runtime used, waiting for the
	// replenishment): the rows' Throttled holds them.
	DeadlineThrottled bool
	// WhatIfGroups are, for a replay's prediction, the groups a what-if
	// set a quota or weight of that are no row of Cgroups (no task of
	// their own, no quota over the groups below): each a line for under
	// the group table (whatIfGroups).
	WhatIfGroups []string
	// IdleTasks and BatchTasks name ("comm:tid") the tasks the capture
	// recorded under SCHED_IDLE and SCHED_BATCH at a switch-out
	// (trace.Event.Policy; eBPF captures only: sched_switch shows them at
	// prio 120, as SCHED_NORMAL), so their delays read as the policy's.
	IdleTasks, BatchTasks []string
	// Unmatched is set when filters matched nothing: the latency-empty
	// warning's parts (compare says one message for both traces).
	Unmatched *Unmatched
}

// latTask is one row of the default report: perf's thread object and its
// sums (perfcompat.LatencyTask, so that rows merge as perf's do) with what
// the schedule reconstruction measures besides (latExtra).
type latTask = perfcompat.LatencyTask[latExtra]

// latExtra is what the default report keeps per task besides perf's sums.
type latExtra struct {
	// raced delays (count, sum), restart shift, lossy delays and runtime
	// events, on-CPU time
	raceN, raceSum, restart, lossy, lossyRT, onCPU int64
	// throttled delays (count) and their throttled part (ns)
	thrN, thrNs int64
	// dl: a sched_switch showed the task SCHED_DEADLINE
	// (latency.deadlineSwitch); rt: a run showed it real-time (prio
	// 0..99, throttleCollector.run)
	dl, rt bool
	// policy: SCHED_IDLE or SCHED_BATCH when its last switch-out under
	// either recorded it (trace.Event.Policy; only those two are kept, so
	// that the common case costs no task lookup)
	policy trace.SchedPolicy
	// keptComm: with a --comm filter, the task's name at the last event
	// the filter kept of it (a delay or a run), which names its row when
	// its latest name is not one the filter gives (a thread renamed after
	// the part --comm selected)
	keptComm string
}

// underBandwidth reports whether CFS bandwidth control can throttle the
// task: only fair-class tasks are charged against a cgroup's quota
// (account_cfs_rq_runtime is called from the fair class's update_curr,
// kernel/sched/fair.c v6.6-v6.18; deadline and real-time tasks are charged by
// update_curr_dl and update_curr_rt, never to a cfs_rq's runtime).
func (x *latExtra) underBandwidth() bool { return !x.dl && !x.rt }

// latency is the default report's pass: perf's thread objects and CPU
// chains (perfcompat.LatencyTracker) name the rows, and the schedule
// reconstruction measures the delays, runtime and on-CPU time through its
// hooks. perf's own state machine (--perf, -C) is perfcompat.Latency.
type latency struct {
	opts LatencyOptions
	tr   perfcompat.LatencyTracker[latExtra]
	// byTask caches, by schedule.Task.ID, the row the schedule's hooks
	// charge: their two or three lookups an event (a tidmap slot and a
	// thread object each, far apart in memory) become one slice read.
	// An entry from an older generation (tr.Gen) may name a TID's
	// previous thread object.
	byTask []taskCache
	keep   bool
	sched  *schedule.Builder
	// thr collects what the throttling inference reads.
	thr *throttleCollector
	// dlThrottled: a deadline task's throttle was charged (the Throttled
	// column is shown).
	dlThrottled bool
}

// deadlineSwitch marks the task a sched_switch shows under
// SCHED_DEADLINE (trace.Event.SwitchDeadline).
func (l *latency) deadlineSwitch(e *trace.Event) {
	prev, next := e.SwitchDeadline()
	tid, pid := e.TID, e.PID
	switch {
	case next:
		tid, pid = e.NextTID, e.NextPID
	case !prev:
		return
	}
	if tid > 0 {
		if t, _ := l.tr.Task(l.tr.Thread(tid, pid)); t != nil {
			t.X.dl = true
		}
	}
}

// taskCache is what the hooks found for a schedule task (latency.byTask):
// its row, valid while no thread object was made since (gen).
type taskCache struct {
	t   *latTask
	gen uint64
}

// latencyRun is what one of the two passes measured, for finishLatency.
type latencyRun struct {
	res *LatencyResult
	// name returns the name of tid's current thread object ("" for a
	// TID never met), for the chain-break warnings.
	name func(trace.TID) string
	// warns are the pass's own counted warnings.
	warns []trace.Warning
	// extent says what the trace holds when a filter matched nothing
	// (its events, switches, span, CPUs and names; nil: events and
	// switches alone, from the diagnostics).
	extent func() NoMatch
}

// ComputeLatency reads src to its end and returns the scheduling-latency
// report described in the package doc. It does not close src. Events must
// arrive in time order per CPU (trace.Source's contract); an out-of-order
// sched_switch on a CPU is counted as a warning and processed anyway. The
// error is the source's first non-EOF error, wrapped with the number of
// events read before it; options errors (unknown sort key) come first.
//
// The default report measures delays on the schedule reconstruction
// (trace/schedule); PerfCompat and CPUGiven run perf's own state machine
// instead (perfcompat.Latency).
func ComputeLatency(src trace.Source, opts LatencyOptions) (*LatencyResult, error) {
	keys, err := parseSortKeys(opts.Sort, opts.PerfCompat)
	if err != nil {
		return nil, err
	}
	opts.Sort = keys
	if opts.Filter.Active() && (opts.PerfCompat || opts.CPUGiven) {
		return nil, ErrFilterPerf
	}
	var run *latencyRun
	if opts.PerfCompat || opts.CPUGiven {
		run, err = perfLatency(src, opts)
	} else {
		run, err = scheduleLatency(src, opts)
	}
	if err != nil {
		return nil, err
	}
	return finishLatency(run, src.Meta()), nil
}

// scheduleLatency is the default report's pass (see latency).
func scheduleLatency(src trace.Source, opts LatencyOptions) (*latencyRun, error) {
	l := &latency{
		opts: opts,
		keep: opts.Percentiles || opts.KeepSamples,
	}
	l.tr.Wakeups = schedule.WakeupSource(opts.Wakeups)
	l.tr.SplitCgroups = opts.ByCgroup
	l.thr = newThrottleCollector(src.Meta(), opts.Cgroups)
	if f := opts.Filter; f != nil && (f.Start != 0 || f.End != 0 || f.CPUs != nil) {
		l.thr.win = f
	}
	// (perf record -C: the CPU list from the Meta at the first event,
	// schedule.Options.Meta.)
	l.sched = schedule.New(schedule.Options{Wakeups: schedule.WakeupSource(opts.Wakeups), KeepLossy: opts.KeepLossy, Filter: opts.Filter, Meta: src.Meta()}, chainHooks(l.hooks(), opts.Hooks))
	l.tr.Filter = l.sched.Filter()
	// The report never reads sched_process_exit (perf sched ignores
	// exits); readers that can leave it out save its decoding. The
	// schedule reconstruction reads sched_migrate_task (runqueue moves,
	// and the CPU's current task as evidence).
	trace.SkipKinds(src, trace.KindExit)
	pf := trace.Prefetch(src, nil)
	for {
		e, err := pf.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("after %d events: %w", l.tr.Counts.Events, err)
		}
		// The rows' own bookkeeping first (perf's thread objects first
		// met here), then the schedule, whose hooks charge those rows.
		l.tr.Event(e)
		if e.Kind == trace.KindSwitch && (e.Prio == -1 || e.NextPrio == -1) {
			l.deadlineSwitch(e)
		}
		if e.Kind == trace.KindSwitch && (e.Policy == trace.PolicyIdle || e.Policy == trace.PolicyBatch) && e.TID > 0 {
			if t, _ := l.tr.Task(l.tr.Thread(e.TID, e.PID)); t != nil {
				t.X.policy = e.Policy
			}
		}
		l.sched.Observe(e)
	}
	l.sched.Finish()
	c := &l.sched.C
	d := trackerDiag(&l.tr)
	d.Recovered, d.Dropped, d.Unwoken, d.Wakeups = c.Recovered, c.Dropped, c.Unwoken, c.Wakeups
	d.Raced, d.Rewoken = c.Raced, c.Rewoken
	d.LossyDelays, d.LossyRuntime, d.LossyRuntimeNs = c.LossyDelays, c.LossyRuntime, c.LossyRuntimeNs
	d.InconsistentRuntime, d.InconsistentRuntimeNs = c.InconsistentRuntime, c.InconsistentRuntimeNs
	d.UnrecordedDelays = c.UnrecordedDelays
	d.OfflineCPUs = c.OfflineCPUs
	d.RuntimeFromSwitches = !l.sched.HaveRuntime()
	from, to := l.sched.Span()
	cpus, _ := l.sched.CPUs()
	l.thr.ncpu = int64(l.sched.SeenCPUs())
	groups := l.thr.analyze(src.Meta(), opts.Cgroups, from, to, int64(len(cpus)))
	f := opts.Filter
	window := f != nil && (f.Start != 0 || f.End != 0)
	if window || f != nil && f.CPUs != nil || len(trace.RecordedCPUs(src.Meta())) > 0 {
		// The window's or CPUs' throttling against the whole trace's
		// cpu.stat: no agreement to judge (a window of one stay read
		// "45 % of that throttled time ... a lower bound": new-user pass
		// 13 F4); so for a recording of some CPUs (record --cpu, perf
		// record -C), whose cpu.stat counts every CPU (new-user pass 21
		// F1 blamed contention for the CPU left out).
		recorded := trace.RecordedCPUs(src.Meta())
		for i := range groups {
			g := &groups[i]
			g.Partial = true
			if g.Kernel == nil {
				continue
			}
			g.KernelNote, g.KernelWholeTrace = "", true
			if len(recorded) > 0 && g.Kernel.NrThrottled > 0 && kernelDisagrees(g) != "" {
				// Far from the kernel's, with nothing else to tell
				// why (new-user pass 23 F7: 0 periods beside 82).
				g.KernelNote = fmt.Sprintf("the recording holds CPU %s only: the kernel counted every CPU's runqueues, and a wait on a recorded CPU is left out where the task may have run on another meanwhile, so the inference (%d periods, %.3f ms) is not comparable; take the kernel's figures",
					cpulist.Format(recorded), g.ThrottledPeriods, float64(g.Throttled)/1e6)
			}
		}
	}
	// A prediction's own count (the cpu.stat replay kept of the
	// throttles it simulated) is exact where the inference is not: the
	// table gives it (new-user pass 84 F4: 341.912 ms inferred in the
	// column, 132.621 ms counted in a note below). Not of a window or
	// some CPUs: the count is of the whole prediction.
	for i := range groups {
		if g := &groups[i]; g.KernelPredicted && g.Kernel != nil && !g.Partial && !g.KernelWholeTrace && g.ThrottledBy == "" {
			g.ThrottledPeriods, g.Throttled = int64(g.Kernel.NrThrottled), g.Kernel.ThrottledNS
			g.ThrottledCounted, g.KernelNote = true, ""
		}
	}
	// (Autogroups have no quota: with only them, no throttle column.)
	l.opts.Throttle = l.opts.Throttle || slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return !g.Autogroup }) || l.dlThrottled

	res := &LatencyResult{Options: l.opts, Diag: d, Cgroups: groups, Schedule: l.sched, DeadlineThrottled: l.dlThrottled}
	if len(groups) > 0 {
		res.WhatIfGroups = whatIfGroups(src.Meta(), groups)
	}
	var unended map[trace.TID]int64
	if d.RuntimeFromSwitches {
		unended = map[trace.TID]int64{}
		for _, cb := range d.Chains {
			for tid, n := range cb.Missing {
				unended[tid] += n
			}
		}
	}
	atoms := l.tr.AtomRoot()
	res.TaskRows = make([]LatencyRow, 0, len(atoms))
	for _, t := range atoms {
		r := taskRow(t, l.keep, false)
		r.Raced, r.RacedSum, r.RestartShift = t.X.raceN, t.X.raceSum, t.X.restart
		r.Lossy, r.LossyRuntime = t.X.lossy, t.X.lossyRT
		r.Throttled, r.ThrottledDelays = t.X.thrNs, t.X.thrN
		if k := t.X.keptComm; k != "" && k != r.Comm && !slices.Contains(opts.Filter.Comms, r.Comm) {
			// --comm wk-0 kept the part before the thread named itself
			// renamed-0: the row is wk-0's, not under a name not asked for.
			r.Comm = k
		}
		switch t.X.policy {
		case trace.PolicyIdle:
			res.IdleTasks = append(res.IdleTasks, fmt.Sprintf("%s:%d", r.Comm, r.TID))
		case trace.PolicyBatch:
			res.BatchTasks = append(res.BatchTasks, fmt.Sprintf("%s:%d", r.Comm, r.TID))
		}
		r.RuntimeSource = RuntimeFromStat
		if d.RuntimeFromSwitches {
			r.RuntimeSource, r.Runtime = RuntimeFromSwitches, t.X.onCPU
			if r.TID > 0 {
				r.RunsUnended = unended[r.TID]
			}
		}
		res.TaskRows = append(res.TaskRows, r)
	}
	res.Rows, res.Total = groupRows(res.TaskRows, l.opts)
	return &latencyRun{res: res, name: trackerName(&l.tr, false), warns: l.tr.Warnings.List(), extent: l.traceExtent}, nil
}

// trackerDiag returns the diagnostics a perfcompat.LatencyTracker counts.
func trackerDiag[X any](tr *perfcompat.LatencyTracker[X]) LatencyDiagnostics {
	c := &tr.Counts
	return LatencyDiagnostics{
		Events: c.Events, SchedEvents: c.SchedEvents, Switches: c.Switches, Chains: tr.Chains(), FirstSeen: c.FirstSeen,
		PerfSwitchBugs: c.SwitchBugs, LostEvents: c.LostEvents, LostChunks: c.LostChunks,
	}
}

// trackerName returns latencyRun.name for tr's thread objects: perf's
// names (LatencyThread.Name) when perf is true, else the names the events
// gave tasks no COMM record named (LatencyThread.Named).
func trackerName[X any](tr *perfcompat.LatencyTracker[X], perf bool) func(trace.TID) string {
	return func(tid trace.TID) string {
		if th := tr.Lookup(tid); th != nil {
			return threadName(th, perf)
		}
		return ""
	}
}

// threadName is th's name in perf's report (perf) or in ours.
func threadName[X any](th *perfcompat.LatencyThread[X], perf bool) string {
	if perf {
		return th.Name()
	}
	return th.Named()
}

// taskRow returns the row of task t alone: perf's sums, under perf's name
// of the task when perf is true (see trackerName).
func taskRow[X any](t *perfcompat.LatencyTask[X], keep, perf bool) LatencyRow {
	th, d := t.Thread, &t.Delays
	r := LatencyRow{Comm: threadName(th, perf), TID: th.TID, PID: th.PID, NrTasks: 1, Cgroup: th.Cgroup,
		Runtime: t.Runtime, Count: d.Count, Switches: t.Switches, SumDelay: d.Sum,
		MaxDelay: d.Max, MaxDelayStart: d.MaxStart, MaxDelayEnd: d.MaxEnd,
		Recovered: t.Recovered, RecoveredSum: t.RecoveredSum, FirstSeen: t.FirstSeen, Unrecorded: t.Unrecorded}
	if keep {
		r.Samples = d.Samples
	}
	if r.Count > 0 {
		r.AvgDelay = r.SumDelay / r.Count
	}
	return r
}

// finishLatency adds the source's metadata and the warnings to run's
// result.
func finishLatency(run *latencyRun, meta *trace.Meta) *LatencyResult {
	res, opts := run.res, run.res.Options
	res.Meta = meta
	if res.Meta != nil {
		res.Warnings = append(res.Warnings, res.Meta.Warnings.List()...)
	}
	res.ReportWarnings = append(run.warns, diagWarnings(&res.Diag, opts, run.name)...)
	if w, ok := unknownRunsWarning(res); ok {
		res.ReportWarnings = append(res.ReportWarnings, w)
	}
	if d := &res.Diag; !opts.KeepLossy && d.LossyDelays > res.Total.Count {
		// Most delays left out: the answer to "why is Count 0" (new-user
		// pass 23 F5: 1463 of 1465 in a cut file, behind "7 more
		// warnings"), so a key printed in full.
		for i := range res.ReportWarnings {
			if w := &res.ReportWarnings[i]; w.Key == "delay-lossy" {
				w.Key = LossyMostKey
				w.Message += fmt.Sprintf(": more than the table keeps (%d)", res.Total.Count)
			}
		}
	}
	if meta != nil && strings.HasPrefix(meta.Tool, "traceview record") {
		// Its captures leave sched_stat_runtime out by default (record
		// --runtime): by design, not a remark on this trace (the JSON rows
		// still say runtime_source "switches").
		res.ReportWarnings = slices.DeleteFunc(res.ReportWarnings, func(w trace.Warning) bool { return w.Key == "runtime-from-switches" })
	}
	if n, first := unnamedCgroups(res.Cgroups); n > 0 {
		why := "perf.data: no PERF_RECORD_CGROUP for them"
		if meta != nil && len(meta.Cgroups) > 0 && meta.Format != "traceview" {
			// perf writes a CGROUP record for each cgroup there is when
			// it starts and each one made while it records
			// (perf_event__synthesize_cgroups, tools/perf v6.12, and
			// PERF_RECORD_CGROUP at mkdir): ids none of them names in a
			// file that has them are most likely damaged (new-user pass
			// 108 F1: bytes flipped in samples made ids 254 and
			// 0xff00001365 of 1 and 0x1365).
			why = "perf.data: none of its PERF_RECORD_CGROUP, which perf writes for every cgroup there is or is made while it records, names them: damaged ids, most likely"
		}
		if meta != nil && meta.Format == "traceview" {
			// Its cgroup table is in the trailer, at the end of the file.
			why = "traceview format: the file's cgroup table does not name them; a file cut short has none but the root's"
		}
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "cgroup-no-path", Count: n,
			Message: fmt.Sprintf("%d cgroup ids of the tasks' switches have no path in the trace (%s), e.g. %s; they are shown by id", n, why, first)})
	}
	if w, ok := trace.UnattributedV1Warning(meta); ok {
		res.ReportWarnings = append(res.ReportWarnings, w)
	}
	d := &res.Diag
	switch {
	case len(res.Rows) == 0 && opts.Filter.Active():
		var x NoMatch
		if run.extent != nil {
			x = run.extent()
		}
		x.SchedEvents, x.Switches, x.PIDs = d.SchedEvents, d.Switches, opts.Filter.PIDs
		x.Cgroups = CgroupPaths(meta, opts.Filter)
		res.Unmatched = &Unmatched{Given: opts.Filter.String(), Comms: opts.Filter.Comms, X: x}
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "latency-empty", Count: 1,
			Message: res.Unmatched.Message()})
	case len(res.Rows) == 0:
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "latency-empty", Count: 1,
			Message: fmt.Sprintf("no scheduling delay measured: the trace has %d scheduler events, %d of them sched_switch", d.SchedEvents, d.Switches)})
	case run.extent != nil:
		if w, ok := run.extent().WindowNote(opts.Filter); ok {
			res.ReportWarnings = append(res.ReportWarnings, w)
		}
	}
	res.Warnings = append(res.Warnings, res.ReportWarnings...)
	return res
}

// UnknownRunShare is the part of a task's run time that its runs of
// unknown start (ChainBreak.ShownRun: switched out with no recorded
// switch-in) may take before the report says so in full: the replay's
// self-replay bound on run time (ReplayBoundRuntime, 5 %), past which the
// gap alone makes a replay of the task miss (new-user pass 28 F6: a hog's
// 902 ms of 2991, 30 %, was a count in the summary line, and its
// self-replay read 1.44x).
const UnknownRunShare = ReplayBoundRuntime

// UnknownRunsKey is the key of unknownRunsWarning's warning, printed in
// full.
const UnknownRunsKey = "runtime-unknown-runs"

// unknownRunsWarning names the tasks whose run time from the switches
// leaves out more than UnknownRunShare of it in runs of unknown start (the
// largest share first, at most 4), with the remedy: a recording with
// sched_stat_runtime charges those runs whatever their start. Tasks that
// ran less than ReplayMinRuntime in all (the replay checks no smaller
// row) or that the filter leaves out are not named. false when none is,
// or the run time comes from sched_stat_runtime.
func unknownRunsWarning(res *LatencyResult) (trace.Warning, bool) {
	unknown := map[trace.TID]int64{}
	for _, cb := range res.Diag.Chains {
		for tid, ns := range cb.ShownRun {
			unknown[tid] += ns
		}
	}
	type big struct {
		row   *LatencyRow
		ns    int64
		share float64
	}
	var found []big
	for i := range res.TaskRows {
		r := &res.TaskRows[i]
		if r.RuntimeSource != RuntimeFromSwitches || r.TID <= 0 || unknown[r.TID] == 0 || !res.Options.Filter.TaskIDs(r.TID, r.PID, r.Comm, r.Cgroup) {
			continue
		}
		u := unknown[r.TID]
		if share := float64(u) / float64(r.Runtime+u); share > UnknownRunShare && r.Runtime+u >= ReplayMinRuntime {
			found = append(found, big{r, u, share})
		}
	}
	if len(found) == 0 {
		return trace.Warning{}, false
	}
	slices.SortFunc(found, func(a, b big) int { return cmp.Or(cmp.Compare(b.share, a.share), cmp.Compare(a.row.TID, b.row.TID)) })
	var parts []string
	for _, f := range found[:min(4, len(found))] {
		n := termsafe.Label(f.row.Comm) + ":" + strconv.Itoa(int(f.row.TID))
		parts = append(parts, fmt.Sprintf("%s %.3f ms (%.0f %% of its run)", n, float64(f.ns)/1e6, 100*f.share))
	}
	if len(found) > 4 {
		parts = append(parts, fmt.Sprintf("and %d more", len(found)-4))
	}
	return trace.Warning{Key: UnknownRunsKey, Count: len(found), CountInMessage: true,
		Message: fmt.Sprintf("Runtime leaves out runs the trace shows only ended (their switch-in is missing): %s; a recording with sched_stat_runtime (traceview record --runtime, perf sched record) charges them whatever their start",
			strings.Join(parts, ", "))}, true
}

// LossyMostKey is the warning that lost events left most of the trace's
// delays out of the table (the delay-lossy warning when it counts more
// than the table keeps), which a summary prints in full.
const LossyMostKey = "delay-lossy-most"

// CheckLatencySort returns the error ComputeLatency would give for the sort
// keys (wrapping ErrSortKey), so a caller can reject a bad -s before reading
// a large trace.
func CheckLatencySort(keys []string, perfCompat bool) error {
	_, err := parseSortKeys(keys, perfCompat)
	return err
}

func parseSortKeys(keys []string, perfCompat bool) ([]string, error) {
	if len(keys) == 0 {
		keys = []string{DefaultLatencySort}
	}
	var out []string
	for _, k := range keys {
		for _, tok := range strings.FieldsFunc(k, func(r rune) bool { return r == ',' || r == ' ' }) {
			ok := false
			for _, v := range LatencySortKeys {
				if tok == v {
					ok = true
				}
			}
			if !ok {
				return nil, fmt.Errorf("latency: %w %q (want one of %s)", ErrSortKey, tok, strings.Join(LatencySortKeys, ", "))
			}
			if perfCompat && tok == "sum" {
				return nil, fmt.Errorf("latency: %w %q with --perf: perf's latency has no Sum delay column to sort by (its keys: pid, runtime, switch, avg, max); drop --perf", ErrSortKey, tok)
			}
			out = append(out, tok)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("latency: %w: empty list", ErrSortKey)
	}
	return out, nil
}

// hooks connect the schedule reconstruction to the rows: its delays, the
// sched_stat_runtime it did not find lossy and its running intervals go to
// the task's current thread object (the one perf would charge).
func (l *latency) hooks() schedule.Hooks {
	task := func(st *schedule.Task) *latTask {
		if st.ID < len(l.byTask) {
			if c := &l.byTask[st.ID]; c.t != nil && c.gen == l.tr.Gen {
				if th := c.t.Thread; st.PID >= 0 && th.PID < 0 {
					th.PID = st.PID // as Thread would
				}
				return c.t
			}
		}
		t, _ := l.tr.Task(l.tr.Thread(st.TID, st.PID))
		if st.ID >= len(l.byTask) {
			l.byTask = append(l.byTask, make([]taskCache, st.ID+1-len(l.byTask)+len(l.byTask)/2)...)
		}
		l.byTask[st.ID] = taskCache{t: t, gen: l.tr.Gen}
		return t
	}
	return schedule.Hooks{
		Delay: func(d *schedule.Delay) {
			t := task(d.Task)
			if d.Lossy {
				t.X.lossy++
			}
			if d.Excluded {
				return
			}
			t.Delays.Add(d.Start, d.End, l.keep)
			l.thr.kept(d, t)
			if l.opts.Filter != nil && l.opts.Filter.Comms != nil {
				t.X.keptComm = d.Task.Comm
			}
			if d.Cause == schedule.CausePreempted && t.X.dl {
				// A SCHED_DEADLINE task switched out runnable has used its
				// runtime: it waits for its replenishment, not for a CPU
				// (the dl_timer enqueues it; no wakeup is traced).
				t.X.thrNs += d.End - d.Start
				t.X.thrN++
				l.dlThrottled = true
			}
			switch {
			case d.Recovered:
				t.Recovered++
				t.RecoveredSum += d.End - d.Start
			case d.Cause == schedule.CauseWokenBeforeSwitchOut:
				t.X.raceN++
				t.X.raceSum += d.End - d.Start
			default:
				t.X.restart += d.Start - d.FirstWaking
			}
		},
		GroupDelay: func(d *schedule.Delay) {
			// Every task's, whatever the task filters keep: a group's
			// row and its throttle inference stay the group's whole.
			if !d.Excluded {
				l.thr.delay(d, task(d.Task))
			}
		},
		Runtime: func(st *schedule.Task, e *trace.Event, lossy bool) {
			t := task(st)
			if lossy {
				t.X.lossyRT++
			}
			if lossy && !l.opts.KeepLossy {
				return
			}
			t.Runtime += e.Runtime
		},
		CgroupMove: func(st *schedule.Task, from uint64) {
			l.tr.MoveCgroup(st.TID, st.PID, from)
		},
		// The throttle inference sees the whole trace, every CPU, and
		// cuts its figures to the time window and CPUs itself.
		GroupRun: func(r *schedule.Run) {
			var t *latTask
			if r.Task != nil && r.Task.TID != 0 && r.Task.Cgroup != 0 {
				t = task(r.Task)
			}
			l.thr.run(r, t)
		},
		GroupWhole: true,
		State: func(iv *schedule.Interval) {
			if iv.State == schedule.StateRunning {
				t := task(iv.Task)
				t.X.onCPU += iv.End - iv.Start
				if l.opts.Filter != nil && l.opts.Filter.Comms != nil {
					t.X.keptComm = iv.Task.Comm
				}
			}
		},
		RunningOnly: true,
	}
}

// RuntimeMixed is LatencyRow.RuntimeSource for a merged row whose tasks
// come from traces with different runtime sources (MergeLatency).
const RuntimeMixed = "mixed"

// addRow merges row src into dst: sums, the first largest delay in merge
// order (strictly greater replaces, as perf), samples concatenated.
func addRow(dst, src *LatencyRow) {
	dst.MaxTID = max(sortTID(dst), sortTID(src))
	dst.NrTasks += src.NrTasks
	if dst.NrTasks > 1 {
		dst.TID, dst.PID = 0, 0
	}
	dst.Runtime += src.Runtime
	dst.Count += src.Count
	dst.Switches += src.Switches
	dst.SumDelay += src.SumDelay
	dst.Recovered += src.Recovered
	dst.RecoveredSum += src.RecoveredSum
	dst.FirstSeen += src.FirstSeen
	dst.Raced += src.Raced
	dst.RacedSum += src.RacedSum
	dst.RestartShift += src.RestartShift
	dst.Lossy += src.Lossy
	dst.Unrecorded += src.Unrecorded
	dst.RunsUnended += src.RunsUnended
	dst.LossyRuntime += src.LossyRuntime
	dst.Throttled += src.Throttled
	dst.ThrottledDelays += src.ThrottledDelays
	if src.MaxDelay > dst.MaxDelay {
		dst.MaxDelay, dst.MaxDelayStart, dst.MaxDelayEnd = src.MaxDelay, src.MaxDelayStart, src.MaxDelayEnd
	}
	if dst.Cgroup != src.Cgroup {
		dst.Cgroup = 0
	}
	if dst.RuntimeSource != src.RuntimeSource {
		dst.RuntimeSource = RuntimeMixed
	}
	dst.Samples = append(dst.Samples, src.Samples...)
	dst.AvgDelay = 0
	if dst.Count > 0 {
		dst.AvgDelay = dst.SumDelay / dst.Count
	}
}

// filteredOut reports whether the filters of opts leave nothing of r.
func filteredOut(r *LatencyRow, opts LatencyOptions) bool {
	return opts.Filter.Active() && r.Count == 0 && r.Switches == 0 && r.Runtime == 0 && r.Lossy == 0
}

// groupRows turns task rows (in merge order) into the table: merged by
// command name unless opts.PerTask (then in the given order), sorted by
// opts.Sort (ties keep command names in reverse byte order), rows perf
// would not print left out, percentiles filled, and the total.
func groupRows(taskRows []LatencyRow, opts LatencyOptions) ([]LatencyRow, LatencyTotal) {
	var rows []LatencyRow
	if opts.PerTask {
		rows = make([]LatencyRow, len(taskRows))
		copy(rows, taskRows)
	} else {
		// Each command's samples are counted first and copied once into a
		// slice of their number: appended task by task, the largest row's
		// (a million delays of bench/replaymem's messaging file) was copied
		// at each growth.
		//
		// A task of which the filters keep nothing (filteredOut) is not
		// merged: it would count in the row's task number ("true:(200)"
		// for the 5 of 200 processes that ran in a 10 ms window).
		idx := map[string]int{}
		var nSamples []int
		for i := range taskRows {
			tr := &taskRows[i]
			if filteredOut(tr, opts) {
				continue
			}
			j, ok := idx[tr.Comm]
			if !ok {
				j = len(nSamples)
				idx[tr.Comm] = j
				nSamples = append(nSamples, 0)
			}
			nSamples[j] += len(tr.Samples)
		}
		for i := range taskRows {
			tr := &taskRows[i]
			if filteredOut(tr, opts) {
				continue
			}
			j := idx[tr.Comm]
			if j == len(rows) {
				r := *tr
				r.Samples = nil
				if n := nSamples[j]; n > 0 {
					r.Samples = append(make([]int64, 0, n), tr.Samples...)
				}
				rows = append(rows, r)
				continue
			}
			addRow(&rows[j], tr)
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Comm > rows[j].Comm })
	}
	keys, err := parseSortKeys(opts.Sort, opts.PerfCompat)
	if err != nil {
		keys, _ = parseSortKeys(nil, false)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			if c := cmpRow(k, &rows[i], &rows[j]); c != 0 {
				return c > 0
			}
		}
		return false
	})
	var out []LatencyRow
	var total LatencyTotal
	for i := range rows {
		r := &rows[i]
		// perf prints rows with at least one delay; a row perf shows only
		// for its 0 ns first-seen delays is kept, with Count 0, so that no
		// task (and its runtime) disappears from the table.
		// Likewise a row whose delays all overlapped lost events stays,
		// so that its dropped count shows, and a row with run time or
		// switches but no measured delay (a task running through a time
		// window, its run clipped to it as stats counts it; one whose
		// delays the recording could not measure, on a CPU it left out;
		// run time on the CPU --cpu selects): its command's row counts
		// it, so the -p table has it too and the totals agree
		// (TestPerTaskTotals).
		if r.Comm == "swapper" || (r.Count == 0 && (opts.PerfCompat || (r.FirstSeen == 0 && r.Lossy == 0 && r.Runtime == 0 && r.Switches == 0))) {
			continue
		}
		if filteredOut(r, opts) {
			// Nothing of the row is in the filter's selection.
			continue
		}
		switch {
		case opts.Percentiles && !opts.PerTask && !opts.KeepSamples:
			// A merged row's samples are its own copy, dropped here: sorted
			// in place they are its sorted delays, without a copy.
			r.SortedDelays = r.Samples
			r.sortPercentiles()
		case opts.Percentiles:
			r.setPercentiles()
		}
		if !opts.KeepSamples {
			r.Samples = nil
		}
		total.Runtime += r.Runtime
		total.Count += r.Count
		total.Switches += r.Switches
		total.SumDelay += r.SumDelay
		total.Throttled += r.Throttled
		out = append(out, *r)
	}
	return out, total
}

// Regroup returns res with its rows grouped as ComputeLatency groups them
// with Options.PerTask set to perTask: the same report, per task or per
// command name, without reading the trace again. Everything else (TaskRows,
// Diag, Meta, warnings) is shared with res.
func (res *LatencyResult) Regroup(perTask bool) *LatencyResult {
	r := *res
	r.Options.PerTask = perTask
	r.Rows, r.Total = groupRows(r.TaskRows, r.Options)
	return &r
}

// appendNew appends to dst the strings of add it does not hold yet.
func appendNew(dst, add []string) []string {
	for _, a := range add {
		if !slices.Contains(dst, a) {
			dst = append(dst, a)
		}
	}
	return dst
}

// MergeLatency merges the reports of several traces exactly: their task
// rows are grouped as one trace's would be (by command name, or one row per
// task with opts.PerTask: tasks of different traces are never merged), with
// sums of runtime, counts, switches and delays, the largest delay (the
// first met, in the order of parts), and percentiles of the union of the
// delays (the parts must have been computed with Percentiles or
// KeepSamples for opts.Percentiles; never an average of percentiles).
// Diag sums the parts' counters (Chains concatenated). Meta is nil and
// Warnings are left to the caller (they belong to each trace).
func MergeLatency(parts []*LatencyResult, opts LatencyOptions) (*LatencyResult, error) {
	keys, err := parseSortKeys(opts.Sort, opts.PerfCompat)
	if err != nil {
		return nil, err
	}
	opts.Sort = keys
	res := &LatencyResult{Options: opts}
	var rows []LatencyRow
	for _, p := range parts {
		if opts.Percentiles && !p.Options.Percentiles && !p.Options.KeepSamples {
			return nil, fmt.Errorf("latency: merge: percentiles asked of a part computed without samples")
		}
		for i := range p.TaskRows {
			if r := &p.TaskRows[i]; !filteredOut(r, p.Options) {
				rows = append(rows, *r)
			}
			// else: none of the task is in the part's selection; merged,
			// it was one more task of its name ("hog:(4)" over three files
			// holding hog and a fourth naming it outside --comm hog).
		}
		d, s := &res.Diag, &p.Diag
		d.Events += s.Events
		d.SchedEvents += s.SchedEvents
		d.Switches += s.Switches
		d.Chains = append(d.Chains, s.Chains...)
		d.OfflineCPUs = append(d.OfflineCPUs, s.OfflineCPUs...)
		d.Recovered += s.Recovered
		d.Dropped += s.Dropped
		d.Unwoken += s.Unwoken
		d.Wakeups += s.Wakeups
		d.FirstSeen += s.FirstSeen
		d.PerfTimestamps += s.PerfTimestamps
		d.PerfUnordered += s.PerfUnordered
		d.PerfSwitchBugs += s.PerfSwitchBugs
		d.LostEvents += s.LostEvents
		d.LostChunks += s.LostChunks
		d.Raced += s.Raced
		d.Rewoken += s.Rewoken
		d.LossyDelays += s.LossyDelays
		d.LossyRuntime += s.LossyRuntime
		d.LossyRuntimeNs += s.LossyRuntimeNs
		d.InconsistentRuntime += s.InconsistentRuntime
		d.InconsistentRuntimeNs += s.InconsistentRuntimeNs
		d.RuntimeFromSwitches = d.RuntimeFromSwitches || s.RuntimeFromSwitches
		if p.Options.Throttle {
			res.Options.Throttle = true
		}
		res.Cgroups = MergeCgroupThrottles(res.Cgroups, p.Cgroups)
		res.DeadlineThrottled = res.DeadlineThrottled || p.DeadlineThrottled
		res.IdleTasks = appendNew(res.IdleTasks, p.IdleTasks)
		res.BatchTasks = appendNew(res.BatchTasks, p.BatchTasks)
	}
	if opts.OneCapture {
		rows = mergeSameTasks(rows)
	}
	res.TaskRows = rows
	res.Rows, res.Total = groupRows(rows, opts)
	return res, nil
}

// mergeSameTasks merges the rows of one task (TID, PID and comm) into its
// first, in order: the parts of a rotated capture each have a row of a
// task that ran across them.
func mergeSameTasks(rows []LatencyRow) []LatencyRow {
	type key struct {
		tid  trace.TID
		pid  trace.PID
		comm string
	}
	idx := map[key]int{}
	var out []LatencyRow
	for i := range rows {
		r := &rows[i]
		if r.NrTasks != 1 || r.TID <= 0 {
			out = append(out, *r)
			continue
		}
		k := key{r.TID, r.PID, r.Comm}
		j, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			c := *r
			c.Samples = slices.Clone(r.Samples)
			out = append(out, c)
			continue
		}
		addRow(&out[j], r)
		out[j].NrTasks, out[j].TID, out[j].PID = 1, r.TID, r.PID
	}
	return out
}

// setPercentiles sorts r's samples into SortedDelays and sets P50..P999.
func (r *LatencyRow) setPercentiles() {
	r.SortedDelays = append(r.SortedDelays[:0], r.Samples...)
	r.sortPercentiles()
}

// sortPercentiles sorts SortedDelays and sets P50..P999 from them.
func (r *LatencyRow) sortPercentiles() {
	sortDelays(r.SortedDelays)
	r.P50, r.P95, r.P99, r.P999 = r.DelayQuantile(0.50), r.DelayQuantile(0.95), r.DelayQuantile(0.99), r.DelayQuantile(0.999)
}

// DelayQuantile returns the p-quantile (p in [0, 1]) of the row's delays
// (ns), 0 when SortedDelays is empty. The estimator is gonum's
// stat.Empirical (stat.Quantile: the first delay in ascending order at
// which the count of delays reaches p times their number; no
// interpolation), so the quantile is one of the measured delays.
func (r *LatencyRow) DelayQuantile(p float64) int64 {
	xs := r.SortedDelays
	at := p * float64(len(xs))
	for i, x := range xs {
		if float64(i+1) >= at {
			return x
		}
	}
	return 0
}

// chainHooks returns b's hooks with a's Delay, GroupDelay, GroupRun,
// State, Run, CgroupMove and Runtime hooks called first (the latency
// report sets no other hook). GroupWhole is either's: b's GroupDelay and
// GroupRun, if any, then see the whole trace as a's do.
func chainHooks(a, b schedule.Hooks) schedule.Hooks {
	h := b
	h.Delay = chain1(a.Delay, b.Delay)
	h.GroupDelay = chain1(a.GroupDelay, b.GroupDelay)
	h.GroupRun = chain1(a.GroupRun, b.GroupRun)
	h.GroupWhole = a.GroupWhole || b.GroupWhole
	h.State = chain1(a.State, b.State)
	h.Run = chain1(a.Run, b.Run)
	h.RunningOnly = (a.State == nil || a.RunningOnly) && (b.State == nil || b.RunningOnly)
	if a.CgroupMove != nil {
		h.CgroupMove = func(t *schedule.Task, from uint64) {
			a.CgroupMove(t, from)
			if b.CgroupMove != nil {
				b.CgroupMove(t, from)
			}
		}
	}
	switch {
	case b.Runtime == nil:
		h.Runtime = a.Runtime
	case a.Runtime != nil:
		h.Runtime = func(t *schedule.Task, e *trace.Event, lossy bool) {
			a.Runtime(t, e, lossy)
			b.Runtime(t, e, lossy)
		}
	}
	return h
}

// sortTID is the tid by which -s pid orders r: its own, or a merged
// row's MaxTID.
func sortTID(r *LatencyRow) trace.TID {
	if r.MaxTID != 0 {
		return r.MaxTID
	}
	return r.TID
}

// chain1 returns a function calling f then g (either may be nil).
func chain1[T any](f, g func(T)) func(T) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(x T) {
		f(x)
		g(x)
	}
}

// cmpRow compares two rows by one sort key (perf's avg_cmp, max_cmp,
// switch_cmp, runtime_cmp; sum compares total delay).
func cmpRow(key string, a, b *LatencyRow) int {
	var x, y int64
	switch key {
	case "avg":
		if a.Count == 0 {
			return -1
		}
		if b.Count == 0 {
			return 1
		}
		x, y = a.AvgDelay, b.AvgDelay
	case "max":
		x, y = a.MaxDelay, b.MaxDelay
	case "switch":
		x, y = a.Count, b.Count
	case "runtime":
		x, y = a.Runtime, b.Runtime
	case "sum":
		x, y = a.SumDelay, b.SumDelay
	case "pid":
		x, y = int64(sortTID(a)), int64(sortTID(b))
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// diagWarnings turns the diagnostics d of a report with options opts into
// counted warnings whose messages state their counts; name names a task by
// its TID ("" unknown).
func diagWarnings(d *LatencyDiagnostics, opts LatencyOptions, name func(trace.TID) string) []trace.Warning {
	var out []trace.Warning
	for _, cb := range d.Chains {
		out = append(out, trace.Warning{
			Key:     fmt.Sprintf("sched-switch-chain-cpu%d", cb.CPU),
			Count:   int(cb.Breaks),
			Message: chainMessage(cb, name),
		})
	}
	if len(d.OfflineCPUs) > 0 {
		cpus := slices.Compact(slices.Sorted(slices.Values(d.OfflineCPUs)))
		out = append(out, trace.Warning{
			Key: "cpu-offline-end", Count: len(cpus), CountInMessage: true,
			Message: fmt.Sprintf("%s went offline during the trace (CPU %s: its hotplug thread cpuhp/N ran last, and nothing of it was recorded after): its time from its last event is unknown, not that thread's run", plural(len(cpus), "CPU", "CPUs"), cpulist.Format(cpus)),
		})
	}
	if d.Recovered > 0 {
		out = append(out, trace.Warning{
			Key: "delay-switch-in-inferred", Count: int(d.Recovered),
			Message: fmt.Sprintf("%s no recorded switch-in; each is counted up to the switch-in implied by the task's first sched_stat_runtime on its CPU (event time minus the runtime it reports, not before the wakeup nor the CPU's last recorded switch)", plural(int(d.Recovered), "scheduling delay had", "scheduling delays had")),
		})
	}
	if d.Dropped > 0 {
		out = append(out, trace.Warning{
			Key: "delay-unmeasured", Count: int(d.Dropped),
			Message: fmt.Sprintf("%s started (wakeup or preemption) but the task's switch-in was never seen; they are not counted", plural(int(d.Dropped), "scheduling delay was", "scheduling delays were")),
		})
	}
	if d.Unwoken > 0 && d.Wakeups == 0 {
		out = append(out, trace.Warning{
			Key: "no-wakeups", Count: int(d.Unwoken),
			Message: fmt.Sprintf("the trace records no sched_waking or sched_wakeup events: Count, Avg, Max and Sum delay hold preemptions only, the wait after each wakeup (%s here) is not measured; record them (perf sched record; perf record -e sched:sched_waking)", plural(int(d.Unwoken), "sleep", "sleeps")),
		})
	} else if d.Unwoken > 0 {
		out = append(out, trace.Warning{
			Key: "delay-no-wakeup", Count: int(d.Unwoken),
			Message: fmt.Sprintf("%s a task ran again after going to sleep with no recorded wakeup; those delays cannot be measured and are not counted", plural(int(d.Unwoken), "time", "times")),
		})
	}
	if d.Raced > 0 {
		out = append(out, trace.Warning{
			Key: "delay-woken-before-switch-out", Count: int(d.Raced),
			Message: fmt.Sprintf("%s began with a sched_waking recorded before the task's own switch-out to sleep (try_to_wake_up emits it before waiting for the task to leave its CPU); each is counted from the switch-out (perf loses them)", plural(int(d.Raced), "scheduling delay", "scheduling delays")),
		})
	}
	if d.Rewoken > 0 {
		out = append(out, trace.Warning{
			Key: "delay-woken-twice", Count: int(d.Rewoken),
			Message: fmt.Sprintf("%s a task already waiting for a CPU after a wakeup was woken again, so it ran and slept unseen (switches missing or events lost); each of those delays restarts at the second wakeup", plural(int(d.Rewoken), "time", "times")),
		})
	}
	if d.UnrecordedDelays > 0 {
		out = append(out, trace.Warning{Key: "delay-unrecorded-cpu", Count: int(d.UnrecordedDelays), Message: unrecordedMessage(d.UnrecordedDelays)})
	}
	if d.LossyDelays > 0 {
		delays := plural(int(d.LossyDelays), "scheduling delay", "scheduling delays")
		msg := fmt.Sprintf("%s overlapped lost events on some CPU, or followed a sleep that met them, and are not in the table (--keep-lossy measures them as if nothing were lost; JSON lossy_delays per row)", delays)
		if opts.KeepLossy {
			msg = fmt.Sprintf("%s overlapped lost events on some CPU; kept (--keep-lossy)", delays)
		}
		out = append(out, trace.Warning{Key: "delay-lossy", Count: int(d.LossyDelays), Message: msg})
	}
	if d.InconsistentRuntime > 0 {
		out = append(out, trace.Warning{Key: "damaged-runtime-inconsistent", Count: int(d.InconsistentRuntime),
			Message: fmt.Sprintf("%s (%.3f ms in all) reported more run time than their task can have had since its switch-in or its last sched_stat_runtime (its last switch-out or wakeup, if it ran unseen), by more than %d ms: damaged values, left out of the Runtime column",
				plural(int(d.InconsistentRuntime), "sched_stat_runtime event", "sched_stat_runtime events"), float64(d.InconsistentRuntimeNs)/1e6, schedule.RuntimeSlack/1e6)})
	}
	if d.LossyRuntime > 0 {
		msg := fmt.Sprintf("%s (%.3f ms) overlapped lost events on their CPU and are not in the Runtime column (--keep-lossy keeps them)", plural(int(d.LossyRuntime), "sched_stat_runtime event", "sched_stat_runtime events"), float64(d.LossyRuntimeNs)/1e6)
		if opts.KeepLossy {
			msg = fmt.Sprintf("%s (%.3f ms) overlapped lost events on their CPU; kept (--keep-lossy)", plural(int(d.LossyRuntime), "sched_stat_runtime event", "sched_stat_runtime events"), float64(d.LossyRuntimeNs)/1e6)
		}
		out = append(out, trace.Warning{Key: "runtime-lossy", Count: int(d.LossyRuntime), Message: msg})
	}
	if d.RuntimeNone {
		out = append(out, trace.Warning{
			Key: "latency-runtime-none", Count: 1,
			Message: "the trace has no sched_stat_runtime events: perf's Runtime column is 0 for every task (without --perf or -C, Runtime is the on-CPU time from the switches; traceview record --runtime records them)",
		})
	}
	if d.RuntimeFromSwitches && d.Switches > 0 {
		out = append(out, trace.Warning{
			Key: "runtime-from-switches", Count: 1,
			Message: "the trace has no sched_stat_runtime events: Runtime is each task's on-CPU time between its recorded switch-in and switch-out (JSON runtime_source \"switches\")",
		})
	}
	if !opts.PerfCompat && d.FirstSeen > 0 {
		out = append(out, trace.Warning{
			Key: "delay-first-switch-in", Count: int(d.FirstSeen),
			Message: fmt.Sprintf("%s first seen being switched in (woken before the trace began): no delay is counted for that switch-in (perf counts 0 ns for each)", plural(int(d.FirstSeen), "task was", "tasks were")),
		})
	}
	for i := range out {
		out[i].CountInMessage = true // every message above states its count
	}
	return out
}

func chainMessage(cb ChainBreak, name func(trace.TID) string) string {
	missing := breakTasks(cb, cb.Missing, name, func(n int64) string { return strconv.FormatInt(n, 10) })
	msg := fmt.Sprintf("CPU %d: %d of %d sched_switch events switched out a task that the CPU's previous sched_switch had not switched in; the trace lacks the switches out of: %s",
		cb.CPU, cb.Breaks, cb.Switches, missing)
	if cb.AfterLoss > 0 {
		msg += fmt.Sprintf("; %d of these follow lost records on this CPU", cb.AfterLoss)
	}
	if cb.Missing[0] > 0 && cb.IdleEvents == 0 {
		msg += fmt.Sprintf(" (no event at all was recorded on CPU %d while it was idle)", cb.CPU)
	}
	if cb.UnknownRun > 0 {
		msg += fmt.Sprintf("; the runs those events show began at an unknown time in %.3f ms (summed) after the CPU's previous switch: Runtime from switches leaves them out, a lower bound for the tasks they show running: %s (timehist --exact, as perf, charges it all to them; timehist prints their run time -)",
			float64(cb.UnknownRun)/1e6, breakTasks(cb, cb.ShownRun, name, func(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }))
	}
	return msg
}

// breakTasks lists the tasks of a CPU's chain breaks (cb) by a figure of
// each (count, the largest first, at most 4), with that figure as val
// writes it: the tasks whose switch-out is missing (ChainBreak.Missing),
// and those the breaks showed running, whose Runtime from switches lacks
// the start of the run (ShownRun: new-user pass 23 F1, the warning named
// only the first, never the hog that lost 300 ms, 10 % of its run time).
func breakTasks(cb ChainBreak, count map[trace.TID]int64, name func(trace.TID) string, val func(int64) string) string {
	type kv struct {
		tid trace.TID
		n   int64
	}
	var ks []kv
	for tid, n := range count {
		ks = append(ks, kv{tid, n})
	}
	slices.SortFunc(ks, func(a, b kv) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.tid, b.tid)) })
	var parts []string
	for i, k := range ks {
		if i == 4 {
			parts = append(parts, "...")
			break
		}
		who := fmt.Sprintf(":%d", k.tid)
		if k.tid == 0 {
			who = fmt.Sprintf("idle (swapper/%d)", cb.CPU)
		} else if n := name(k.tid); n != "" {
			who = fmt.Sprintf("%s:%d", termsafe.Name(n), k.tid) // (new-user pass 36 F1: raw 0xff 0xfe with -v)
		}
		parts = append(parts, who+" "+val(k.n))
	}
	return strings.Join(parts, ", ")
}

// traceExtent is the NoMatch of the report's schedule (its events and
// switches are the caller's).
func (l *latency) traceExtent() NoMatch { return noMatchOf(l.sched, 0, 0) }

// CommArg writes task name comm as --comm takes it, ready to paste on a
// shell command line: escaped as the tables print names
// (termsafe.Label: a control character as \n, \t or \xHH, bytes that
// are not UTF-8 as \xHH, a backslash doubled, a space at either end as
// \x20, which --comm would otherwise trim), a comma as `\,`, and in
// single quotes when it holds a backslash, a space or another character
// a shell reads. --comm reads every one of
// these back (termsafe.Unescape), so no name is "not typable" (new-user
// pass 42 F4: " spaced" was said to be, where --comm '\x20spaced'
// selects it). schedule.EscapeComm escapes it, termsafe.ShellWord quotes
// it. An empty name, which --comm cannot take, is `""` with
// "(--tid N)" when one thread had it and it is not its process's leader
// (tid > 0, tid != pid: --pid would select every thread of the process;
// new-user pass 18 F1), else "(--pid N)" when the process is known.
func CommArg(comm string, pid, tid int) string {
	if comm == "" {
		switch {
		case tid > 0 && tid != pid:
			return fmt.Sprintf(`"" (--tid %d)`, tid)
		case pid > 0:
			return fmt.Sprintf(`"" (--pid %d)`, pid)
		}
		return `""`
	}
	return termsafe.ShellWord(schedule.EscapeComm(comm))
}

// ClosestNames returns up to n of names nearest to want: those that
// contain it or that it contains first, then those within an edit distance
// of a third of its length (at least 2), nearest first, ties by name.
func ClosestNames(want string, names map[string]bool, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	limit := max(2, len(want)/3)
	for name := range names {
		if name == want {
			continue
		}
		d := editDistance(want, name)
		if strings.Contains(name, want) || strings.Contains(want, name) {
			d = 0
		}
		if d <= limit {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unrecordedMessage is the delay-unrecorded-cpu warning's text for n
// delays (schedule.Delay.Unrecorded).
func unrecordedMessage(n int64) string {
	return fmt.Sprintf("%s not measured: the task was queued meanwhile on a CPU that had recorded no event yet (one the capture left out, or one whose first event came later), so it may have run there; they are not counted", plural(int(n), "scheduling delay", "scheduling delays"))
}
