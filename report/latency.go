package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/traceview/traceview/internal/tidmap"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// ErrSortKey is wrapped by ComputeLatency's error for an unknown sort key.
var ErrSortKey = errors.New("unknown sort key")

// DefaultLatencySort is perf sched latency's default sort order
// (tools/perf/builtin-sched.c, cmd_sched: default_sort_order).
const DefaultLatencySort = "avg, max, switch, runtime"

// LatencySortKeys are the accepted sort keys: perf's runtime, switch (perf's
// name for the Count column), avg and max, plus sum (total delay).
var LatencySortKeys = []string{"runtime", "switch", "avg", "max", "sum"}

// LatencyOptions selects what ComputeLatency measures. The zero value is
// perf's default: every CPU, rows merged by command name, default sort.
type LatencyOptions struct {
	// PerTask gives one row per task (perf -p/--pids) instead of merging
	// tasks with the same command name.
	PerTask bool
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
	TID     trace.TID
	PID     trace.PID
	NrTasks int // tasks in the row (1 unless merged)
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

// ChainBreak counts, for one CPU, sched_switch events whose previous task was
// not the task the CPU's previous sched_switch had switched in: the trace
// lacks the switches in between. Missing maps the task that should have been
// switched out (the last one switched in, 0 = idle) to how often.
type ChainBreak struct {
	CPU      trace.CPU
	Breaks   int64
	Switches int64 // sched_switch events on this CPU
	Missing  map[trace.TID]int64
	// Events recorded on this CPU while its idle task was current (0 on a
	// CPU whose idle-time events were never recorded).
	IdleEvents int64
	// AfterLoss: breaks that follow a lost-records report for this CPU
	// (or for an unknown CPU) since the CPU's previous break: explained by
	// the recorder's losses rather than by events never emitted.
	AfterLoss int64
}

// LatencyDiagnostics explains what the trace lacked and how the numbers deal
// with it.
type LatencyDiagnostics struct {
	Events   int64 // events read
	Switches int64 // sched_switch events
	// Chains: per CPU (ascending), only CPUs with at least one break.
	Chains []ChainBreak
	// Recovered: delays whose switch-in the trace lacks, closed at the
	// first event the task recorded on its CPU (sched_stat_runtime evidence
	// moves the switch-in back by the runtime it reports, bounded by the
	// wakeup and the CPU's last recorded switch). 0 in PerfCompat mode.
	Recovered int64
	// Dropped: delays that stayed open (wakeup or preemption seen, switch-in
	// never seen nor inferred) and so are not counted.
	Dropped int64
	// Unwoken: tasks switched in (or seen running) after they were last
	// seen going to sleep, with no recorded wakeup in between (e.g. woken
	// from an interrupt on a CPU whose idle-time events were not
	// recorded): delays that cannot be measured.
	Unwoken int64
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
	// RuntimeFromSwitches: the trace has no sched_stat_runtime, so Runtime
	// is on-CPU time from the switches.
	RuntimeFromSwitches bool
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
}

// atom states, after perf's enum thread_state (builtin-sched.c), plus
// atomRunning for a task known to be on a CPU without a measured delay.
type atomState uint8

const (
	atomNone     atomState = iota // no atom yet
	atomSleeping                  // switched out not runnable; waiting for a wakeup
	atomWaitCPU                   // runnable, delay running since wake
	atomSchedIn                   // switched in (delay measured or not)
	atomIgnore                    // perf's THREAD_IGNORE: switch-in before the wakeup
)

// latTask is perf's work_atoms for one thread object, reduced to the last
// atom (all perf reads) and the running sums.
type latTask struct {
	th       *latThread
	state    atomState
	outTime  int64 // sched_out_time of the last atom
	wakeTime int64 // wake_up_time of the last atom
	runtime  int64
	count    int64
	switches int64
	unrec    int64 // switch-ins the trace lacks (LatencyRow.Unrecorded)
	sumLat   int64
	maxLat   int64
	maxStart int64
	maxEnd   int64
	samples  []int64
	order    int // creation order
	// recovered delays (count, sum) and first-seen switch-ins
	recN, recSum, firstSeen int64
	// schedule mode: raced delays, restart shift, lossy delays and
	// runtime events, on-CPU time
	raceN, raceSum, restart, lossy, lossyRT, onCPU int64
	// throttled delays (count) and their throttled part (ns)
	thrN, thrNs int64
}

// latThread mirrors perf's struct thread as perf sched latency sees it: one
// per TID until a fork of the same TID replaces it (perf's
// machine__process_fork_event), named by COMM records and inherited on fork.
type latThread struct {
	tid  trace.TID
	pid  trace.PID
	comm string // "" = never named (perf prints ":TID")
	task *latTask
	// cgroup: the cgroup id of its last switch-out (0 unknown).
	cgroup uint64
}

func (th *latThread) name() string {
	if th.tid == 0 {
		return "swapper"
	}
	if th.comm == "" {
		return fmt.Sprintf(":%d", th.tid)
	}
	return th.comm
}

type cpuState struct {
	curr       trace.TID // task running, by the last switch or later evidence; -1 unknown
	perfCurr   trace.TID // perf's curr_pid: the last switched-in task
	pending    bool      // curr's switch-in is missing; recover its delay at its first runtime event
	lastSwitch int64
	switches   int64
	breaks     int64
	missing    map[trace.TID]int64
	idleEvents int64
	lost       bool // records lost on this CPU since its last break
	afterLoss  int64
}

type latency struct {
	opts    LatencyOptions
	threads tidmap.Map[trace.TID, *latThread]
	// byTask caches, by schedule.Task.ID, the row the schedule's hooks
	// charge: their two or three lookups an event (a tidmap slot and a
	// thread object each, far apart in memory) become one slice read.
	// gen counts setThread calls: an entry from an older generation may
	// name a TID's previous thread object.
	byTask     []taskCache
	gen        uint64
	tasks      []*latTask
	cpus       []cpuState
	diag       LatencyDiagnostics
	seenWaking bool
	keep       bool
	// sched is the schedule reconstruction that measures delays in the
	// default mode; nil with PerfCompat or CPUGiven, which run perf's own
	// state machine below.
	sched *schedule.Builder
	// thr collects what the throttling inference reads (default mode).
	thr *throttleCollector
}

// ComputeLatency reads src to its end and returns the scheduling-latency
// report described in the package doc. It does not close src. Events must
// arrive in time order per CPU (trace.Source's contract); an out-of-order
// sched_switch on a CPU is counted as a warning and processed anyway. The
// error is the source's first non-EOF error, wrapped with the number of
// events read before it; options errors (unknown sort key) come first.
func ComputeLatency(src trace.Source, opts LatencyOptions) (*LatencyResult, error) {
	keys, err := parseSortKeys(opts.Sort)
	if err != nil {
		return nil, err
	}
	opts.Sort = keys
	if opts.Filter.Active() && (opts.PerfCompat || opts.CPUGiven) {
		return nil, ErrFilterPerf
	}
	l := &latency{
		opts: opts,
		keep: opts.Percentiles || opts.KeepSamples,
	}
	var warns trace.Warnings
	if !opts.PerfCompat && !opts.CPUGiven {
		l.thr = newThrottleCollector(src.Meta(), opts.Cgroups)
		l.sched = schedule.New(schedule.Options{Wakeups: schedule.WakeupSource(opts.Wakeups), KeepLossy: opts.KeepLossy, Filter: opts.Filter}, chainHooks(l.hooks(), opts.Hooks))
	}
	// Kinds the report never reads: sched_process_exit (perf sched ignores
	// exits) and, without -C, sched_migrate_task. Readers that can leave
	// them out save their decoding.
	// The schedule reconstruction reads sched_migrate_task (runqueue
	// moves, and the CPU's current task as evidence).
	if opts.CPUGiven || l.sched != nil {
		trace.SkipKinds(src, trace.KindExit)
	} else {
		trace.SkipKinds(src, trace.KindExit, trace.KindMigrate)
	}
	pf := trace.Prefetch(src, nil)
	for {
		e, err := pf.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("after %d events: %w", l.diag.Events, err)
		}
		l.diag.Events++
		l.event(e, &warns)
	}
	if l.sched != nil {
		l.sched.Finish()
		c := &l.sched.C
		l.diag.Recovered, l.diag.Dropped, l.diag.Unwoken = c.Recovered, c.Dropped, c.Unwoken
		l.diag.Raced, l.diag.Rewoken = c.Raced, c.Rewoken
		l.diag.LossyDelays, l.diag.LossyRuntime, l.diag.LossyRuntimeNs = c.LossyDelays, c.LossyRuntime, c.LossyRuntimeNs
		l.diag.RuntimeFromSwitches = !l.sched.HaveRuntime()
	}
	var groups []CgroupThrottle
	if l.thr != nil {
		from, to := l.sched.Span()
		cpus, _ := l.sched.CPUs()
		groups = l.thr.analyze(src.Meta(), opts.Cgroups, to-from, int64(len(cpus)))
		l.opts.Throttle = l.opts.Throttle || len(groups) > 0
	}
	res := l.result()
	res.Cgroups = groups
	res.Schedule = l.sched
	res.Meta = src.Meta()
	if res.Meta != nil {
		res.Warnings = append(res.Warnings, res.Meta.Warnings.List()...)
	}
	res.ReportWarnings = append(warns.List(), l.diagWarnings()...)
	if n, first := unnamedCgroups(groups); n > 0 {
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "cgroup-no-path", Count: n,
			Message: fmt.Sprintf("%d cgroup ids of the tasks' switches have no path in the trace (perf.data: no PERF_RECORD_CGROUP for them), e.g. %s; they are shown by id", n, first)})
	}
	switch {
	case len(res.Rows) == 0 && opts.Filter.Active():
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "latency-empty", Count: 1,
			Message: fmt.Sprintf("nothing matched the filters %s: the trace has %d events, %d of them sched_switch%s", opts.Filter, l.diag.Events, l.diag.Switches, l.traceExtent(opts.Filter))})
	case len(res.Rows) == 0:
		res.ReportWarnings = append(res.ReportWarnings, trace.Warning{Key: "latency-empty", Count: 1,
			Message: fmt.Sprintf("no scheduling delay measured: the trace has %d events, %d of them sched_switch", l.diag.Events, l.diag.Switches)})
	}
	res.Warnings = append(res.Warnings, res.ReportWarnings...)
	return res, nil
}

// CheckLatencySort returns the error ComputeLatency would give for the sort
// keys (wrapping ErrSortKey), so a caller can reject a bad -s before reading
// a large trace.
func CheckLatencySort(keys []string) error {
	_, err := parseSortKeys(keys)
	return err
}

func parseSortKeys(keys []string) ([]string, error) {
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
			out = append(out, tok)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("latency: %w: empty list", ErrSortKey)
	}
	return out, nil
}

// maxCPUs bounds per-CPU state (perf's MAX_CPUS, tools/perf/builtin-sched.c);
// events of larger CPU numbers are processed without it.
const maxCPUs = 4096

func (l *latency) cpu(c trace.CPU) *cpuState {
	if c < 0 || c >= maxCPUs {
		return nil
	}
	for int(c) >= len(l.cpus) {
		l.cpus = append(l.cpus, cpuState{curr: -1, perfCurr: -1})
	}
	return &l.cpus[c]
}

// lookup returns the current thread object of tid, or nil.
func (l *latency) lookup(tid trace.TID) *latThread { return l.threads.Get(tid) }

// setThread makes th the current thread object of its TID.
func (l *latency) setThread(th *latThread) {
	l.threads.Set(th.tid, th)
	l.gen++ // byTask's entries may name the TID's previous object
}

// taskCache is what the hooks found for a schedule task (latency.byTask):
// its row, valid while no thread object was made since (gen).
type taskCache struct {
	t   *latTask
	gen uint64
}

// thread is perf's machine__findnew_thread(machine, pid, tid).
func (l *latency) thread(tid trace.TID, pid trace.PID) *latThread {
	th := l.lookup(tid)
	if th == nil {
		th = &latThread{tid: tid, pid: -1}
		if tid == 0 {
			th.pid = 0
		}
		l.setThread(th)
	}
	if pid >= 0 && th.pid < 0 {
		th.pid = pid
	}
	return th
}

// task returns the thread's latency state, creating it (perf's
// thread_atoms_insert); created reports whether it is new.
func (l *latency) task(th *latThread) (t *latTask, created bool) {
	if th.task != nil {
		return th.task, false
	}
	t = &latTask{th: th, order: len(l.tasks)}
	th.task = t
	l.tasks = append(l.tasks, t)
	return t, true
}

// hooks connect the schedule reconstruction to the rows: its delays, the
// sched_stat_runtime it did not find lossy and its running intervals go to
// the task's current thread object (the one perf would charge).
func (l *latency) hooks() schedule.Hooks {
	task := func(st *schedule.Task) *latTask {
		if st.ID < len(l.byTask) {
			if c := &l.byTask[st.ID]; c.t != nil && c.gen == l.gen {
				if th := c.t.th; st.PID >= 0 && th.pid < 0 {
					th.pid = st.PID // as thread would
				}
				return c.t
			}
		}
		t, _ := l.task(l.thread(st.TID, st.PID))
		if st.ID >= len(l.byTask) {
			l.byTask = append(l.byTask, make([]taskCache, st.ID+1-len(l.byTask)+len(l.byTask)/2)...)
		}
		l.byTask[st.ID] = taskCache{t: t, gen: l.gen}
		return t
	}
	return schedule.Hooks{
		Delay: func(d *schedule.Delay) {
			t := task(d.Task)
			if d.Lossy {
				t.lossy++
			}
			if d.Excluded {
				return
			}
			l.measureDelay(t, d.Start, d.End)
			l.thr.delay(d, t)
			switch {
			case d.Recovered:
				t.recN++
				t.recSum += d.End - d.Start
			case d.Cause == schedule.CauseWokenBeforeSwitchOut:
				t.raceN++
				t.raceSum += d.End - d.Start
			default:
				t.restart += d.Start - d.FirstWaking
			}
		},
		Runtime: func(st *schedule.Task, e *trace.Event, lossy bool) {
			t := task(st)
			if lossy {
				t.lossyRT++
			}
			if lossy && !l.opts.KeepLossy {
				return
			}
			t.runtime += e.Runtime
		},
		Run: func(r *schedule.Run) {
			var t *latTask
			if r.Task != nil && r.Task.TID != 0 && r.Task.Cgroup != 0 {
				t = task(r.Task)
			}
			l.thr.run(r, t)
		},
		State: func(iv *schedule.Interval) {
			if iv.State == schedule.StateRunning {
				task(iv.Task).onCPU += iv.End - iv.Start
			}
		},
		RunningOnly: true,
	}
}

func (l *latency) event(e *trace.Event, warns *trace.Warnings) {
	c := l.cpu(e.CPU)
	if c != nil && e.CurTID >= 0 {
		switch e.Kind {
		case trace.KindLost, trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit:
			// Not recorded in the context of the CPU's current task.
		default:
			l.evidence(e, c)
		}
	}
	switch e.Kind {
	case trace.KindSwitch:
		l.switchEvent(e, c, warns)
	case trace.KindWaking:
		l.seenWaking = true
		if l.opts.Wakeups != WakeupsWakeup {
			l.wakeup(e)
		}
	case trace.KindWakeup:
		switch l.opts.Wakeups {
		case WakeupsWakeup:
			l.wakeup(e)
		case WakeupsAuto:
			if !l.seenWaking {
				l.wakeup(e)
			}
		}
	case trace.KindWakeupNew:
		l.wakeup(e)
	case trace.KindRuntime:
		l.runtime(e)
	case trace.KindMigrate:
		l.migrate(e)
	case trace.KindComm, trace.KindExec:
		if e.TID > 0 {
			th := l.thread(e.TID, e.PID)
			if e.Comm != "" {
				th.comm = e.Comm
			}
		}
	case trace.KindFork:
		l.fork(e)
	case trace.KindLost:
		l.diag.LostEvents += int64(e.Count)
		l.diag.LostChunks++
		if c != nil {
			c.lost = true
		} else {
			for i := range l.cpus {
				l.cpus[i].lost = true
			}
		}
	}
	if l.sched != nil {
		// After the rows' own bookkeeping (perf's thread objects first
		// met here), as a deferred call would, without a defer's cost per
		// event.
		l.sched.Observe(e)
	}
}

// evidence checks who event e says runs on CPU c (the task in whose context
// it was recorded; for a sched_switch the previous task) against the task the
// CPU's last recorded sched_switch switched in. A mismatch means the trace
// lacks the switches in between: it is counted per CPU and, unless in
// PerfCompat mode, the task's open delay is closed at its first
// sched_stat_runtime on this CPU (see recoverDelay).
func (l *latency) evidence(e *trace.Event, c *cpuState) {
	if e.CurTID == 0 {
		c.idleEvents++
	}
	who := e.CurTID
	if e.Kind == trace.KindSwitch {
		who = e.TID
	}
	if who >= 0 && who != c.curr {
		// c.curr < 0: the first event on this CPU; its task may still
		// have an open delay whose switch-in preceded the CPU's first
		// recorded event.
		if c.curr >= 0 {
			c.breaks++
			if th := l.lookup(who); who > 0 && th != nil && th.task != nil {
				th.task.unrec++
			}
			if c.missing == nil {
				c.missing = map[trace.TID]int64{}
			}
			c.missing[c.curr]++
			if c.lost {
				c.afterLoss++
				c.lost = false
			}
		}
		c.curr = who
		c.pending = !l.opts.PerfCompat && l.sched == nil
		if th := l.lookup(who); l.sched == nil && th != nil && th.task != nil && th.task.state == atomSleeping {
			l.diag.Unwoken++ // running, but neither wakeup nor switch-in recorded
		}
	}
	if c.pending && e.Kind == trace.KindRuntime && e.TID == c.curr {
		c.pending = false
		l.recoverDelay(e, c)
	}
}

// recoverDelay closes the open delay of the task of sched_stat_runtime event
// e, whose switch-in onto CPU c the trace lacks. The event reports the CPU
// time since the task's exec_start, which set_next_entity ->
// update_stats_curr_start set when the task was picked (kernel/sched/fair.c,
// Linux 6.x), in rq_clock_task time that excludes IRQ and steal time: so the
// switch-in was at or before e.Time - Runtime. The switch-in is taken there,
// but never before the wakeup nor before the CPU's last recorded switch; the
// delay is thus an upper bound of the true one, tight to the IRQ and steal
// time of that first run.
func (l *latency) recoverDelay(e *trace.Event, c *cpuState) {
	th := l.lookup(e.TID)
	if th == nil || th.task == nil {
		return
	}
	t := th.task
	if t.state != atomWaitCPU || t.wakeTime > e.Time {
		return
	}
	lo := t.wakeTime
	if c.lastSwitch > lo {
		lo = c.lastSwitch
	}
	in := e.Time - e.Runtime
	if in > e.Time { // a negative runtime from a corrupt trace
		in = e.Time
	}
	if in < lo {
		in = lo
	}
	l.measure(t, in)
	l.diag.Recovered++
	t.recN++
	t.recSum += in - t.wakeTime
}

// measure closes the task's open delay at switch-in time in (perf's
// add_sched_in_event after its checks).
func (l *latency) measure(t *latTask, in int64) {
	t.state = atomSchedIn
	l.measureDelay(t, t.wakeTime, in)
}

// measureDelay counts one delay from start to in.
func (l *latency) measureDelay(t *latTask, start, in int64) {
	d := in - start
	t.sumLat += d
	if d > t.maxLat {
		t.maxLat = d
		t.maxStart = start
		t.maxEnd = in
	}
	t.count++
	if l.keep {
		t.samples = append(t.samples, d)
	}
}

// schedOut is perf's add_sched_out_event: a new atom, waiting for the CPU
// from now if the task is still runnable, else asleep.
func (l *latency) schedOut(t *latTask, runnable bool, ts int64) {
	if t.state == atomWaitCPU {
		l.diag.Dropped++
	}
	t.outTime = ts
	if runnable {
		t.state = atomWaitCPU
		t.wakeTime = ts
	} else {
		t.state = atomSleeping
		t.wakeTime = 0
	}
}

func (l *latency) switchEvent(e *trace.Event, c *cpuState, warns *trace.Warnings) {
	l.diag.Switches++
	if c != nil {
		c.switches++
		// perf's context-switch-bug rule (process_sched_switch_event).
		if c.perfCurr >= 0 && c.perfCurr != e.TID {
			l.diag.PerfSwitchBugs++
		}
		if e.Time < c.lastSwitch {
			warns.Add("latency-switch-order", "latency: sched_switch on CPU %d at %d ns is before the previous one at %d ns", e.CPU, e.Time, c.lastSwitch)
		}
		c.lastSwitch = e.Time
		c.curr, c.perfCurr = e.NextTID, e.NextTID
		c.pending = false
	}
	if e.TID >= 0 {
		out, _ := l.task(l.thread(e.TID, e.PID))
		if e.Cgroup != 0 {
			out.th.cgroup = e.Cgroup
		}
		if l.sched == nil {
			l.schedOut(out, e.PrevState.Runnable(), e.Time)
		}
	}
	if e.NextTID < 0 {
		return
	}
	in, created := l.task(l.thread(e.NextTID, e.NextPID))
	if f := l.sched.Filter(); f != nil && !(f.Time(e.Time) && f.CPU(e.CPU) && f.TaskIDs(e.NextTID, e.NextPID, e.NextComm, in.th.cgroup)) {
		created = false // neither a switch nor a first sight the filter keeps
	} else {
		in.switches++
	}
	if created && e.NextTID != 0 {
		l.diag.FirstSeen++
		in.firstSeen++
	}
	if l.sched != nil {
		return // the schedule measures delays
	}
	if created {
		if l.opts.PerfCompat {
			// perf inserts a runnable atom at this very time, so the
			// switch-in below measures a 0 ns delay.
			l.schedOut(in, true, e.Time)
		} else {
			in.state = atomSchedIn
			in.outTime = e.Time
			return
		}
	}
	if in.state == atomSleeping {
		// Switched in while asleep as far as the trace tells: its wakeup
		// was not recorded, so its delay cannot be measured.
		l.diag.Unwoken++
	}
	if in.state != atomWaitCPU {
		return
	}
	if e.Time < in.wakeTime {
		in.state = atomIgnore
		return
	}
	l.measure(in, e.Time)
}

func (l *latency) wakeup(e *trace.Event) {
	if e.TID < 0 {
		return
	}
	t, created := l.task(l.thread(e.TID, e.PID))
	if l.sched != nil {
		return // the schedule measures delays
	}
	if created {
		t.state = atomSleeping
		t.outTime = e.Time
	}
	if !l.opts.CPUGiven && t.state != atomSleeping {
		return
	}
	l.diag.PerfTimestamps++
	if t.outTime > e.Time {
		l.diag.PerfUnordered++
		return
	}
	t.state = atomWaitCPU
	t.wakeTime = e.Time
}

func (l *latency) runtime(e *trace.Event) {
	if e.TID < 0 {
		return
	}
	t, created := l.task(l.thread(e.TID, e.PID))
	if l.sched != nil {
		return // the Runtime hook adds what is not lossy
	}
	if created {
		if l.opts.PerfCompat {
			l.schedOut(t, true, e.Time)
		} else {
			// The task is running: it has no delay pending.
			t.state = atomSchedIn
			t.outTime = e.Time
		}
	}
	t.runtime += e.Runtime
}

// migrate is perf's latency_migrate_task_event: only with -C.
func (l *latency) migrate(e *trace.Event) {
	if !l.opts.CPUGiven || e.TID < 0 {
		return
	}
	t, created := l.task(l.thread(e.TID, e.PID))
	if created {
		l.schedOut(t, true, e.Time)
	}
	t.outTime = e.Time
	t.wakeTime = e.Time
	l.diag.PerfTimestamps++
}

// fork follows perf's machine__process_fork_event: a fork of a TID that
// already has latency state starts a new thread object (pid reuse); the child
// inherits the parent's name.
func (l *latency) fork(e *trace.Event) {
	if e.ChildTID <= 0 {
		return
	}
	var parent *latThread
	if e.TID >= 0 {
		parent = l.thread(e.TID, e.PID)
	}
	child := l.lookup(e.ChildTID)
	if child == nil || child.task != nil {
		child = &latThread{tid: e.ChildTID, pid: -1}
		l.setThread(child)
	}
	if e.ChildPID >= 0 {
		child.pid = e.ChildPID
	}
	child.comm = ""
	if parent != nil {
		child.comm = parent.comm
	}
}

// result builds the report: one row per task identity (TaskRows), then
// the table rows grouped, sorted and filtered by groupRows.
func (l *latency) result() *LatencyResult {
	res := &LatencyResult{Options: l.opts}
	// perf's atom_root order: TID descending (pid_cmp, larger left), later
	// thread objects of a reused TID first. Merged rows are built in this
	// order (perf merges atom_root into a tree keyed by comm).
	byTID := append([]*latTask(nil), l.tasks...)
	sort.SliceStable(byTID, func(i, j int) bool {
		if byTID[i].th.tid != byTID[j].th.tid {
			return byTID[i].th.tid > byTID[j].th.tid
		}
		return byTID[i].order > byTID[j].order
	})
	res.TaskRows = make([]LatencyRow, 0, len(byTID))
	for _, t := range byTID {
		res.TaskRows = append(res.TaskRows, l.taskRow(t))
	}
	res.Rows, res.Total = groupRows(res.TaskRows, l.opts)
	l.diag.Chains = nil
	for i := range l.cpus {
		c := &l.cpus[i]
		if c.breaks == 0 {
			continue
		}
		l.diag.Chains = append(l.diag.Chains, ChainBreak{
			CPU: trace.CPU(i), Breaks: c.breaks, Switches: c.switches,
			Missing: c.missing, IdleEvents: c.idleEvents, AfterLoss: c.afterLoss,
		})
	}
	res.Diag = l.diag
	return res
}

// taskRow returns the row of task t alone.
func (l *latency) taskRow(t *latTask) LatencyRow {
	r := LatencyRow{Comm: t.th.name(), TID: t.th.tid, PID: t.th.pid, NrTasks: 1, Cgroup: t.th.cgroup,
		Runtime: t.runtime, Count: t.count, Switches: t.switches, SumDelay: t.sumLat,
		MaxDelay: t.maxLat, MaxDelayStart: t.maxStart, MaxDelayEnd: t.maxEnd,
		Recovered: t.recN, RecoveredSum: t.recSum, FirstSeen: t.firstSeen,
		Raced: t.raceN, RacedSum: t.raceSum, RestartShift: t.restart, Unrecorded: t.unrec,
		Lossy: t.lossy, LossyRuntime: t.lossyRT, Throttled: t.thrNs, ThrottledDelays: t.thrN}
	if l.keep {
		r.Samples = t.samples
	}
	if l.sched != nil {
		r.RuntimeSource = RuntimeFromStat
		if l.diag.RuntimeFromSwitches {
			r.RuntimeSource, r.Runtime = RuntimeFromSwitches, t.onCPU
		}
	}
	if r.Count > 0 {
		r.AvgDelay = r.SumDelay / r.Count
	}
	return r
}

// RuntimeMixed is LatencyRow.RuntimeSource for a merged row whose tasks
// come from traces with different runtime sources (MergeLatency).
const RuntimeMixed = "mixed"

// addRow merges row src into dst: sums, the first largest delay in merge
// order (strictly greater replaces, as perf), samples concatenated.
func addRow(dst, src *LatencyRow) {
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
		idx := map[string]int{}
		for i := range taskRows {
			tr := &taskRows[i]
			j, ok := idx[tr.Comm]
			if !ok {
				idx[tr.Comm] = len(rows)
				r := *tr
				r.Samples = append([]int64(nil), tr.Samples...)
				rows = append(rows, r)
				continue
			}
			addRow(&rows[j], tr)
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Comm > rows[j].Comm })
	}
	keys, err := parseSortKeys(opts.Sort)
	if err != nil {
		keys, _ = parseSortKeys(nil)
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
		// so that its dropped count shows.
		if r.Comm == "swapper" || (r.Count == 0 && (opts.PerfCompat || (r.FirstSeen == 0 && r.Lossy == 0))) {
			continue
		}
		if opts.Filter.Active() && r.Count == 0 && r.Switches == 0 && r.Runtime == 0 && r.Lossy == 0 {
			// Nothing of the row is in the filter's selection.
			continue
		}
		if opts.Percentiles {
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
	keys, err := parseSortKeys(opts.Sort)
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
		rows = append(rows, p.TaskRows...)
		d, s := &res.Diag, &p.Diag
		d.Events += s.Events
		d.Switches += s.Switches
		d.Chains = append(d.Chains, s.Chains...)
		d.Recovered += s.Recovered
		d.Dropped += s.Dropped
		d.Unwoken += s.Unwoken
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
		d.RuntimeFromSwitches = d.RuntimeFromSwitches || s.RuntimeFromSwitches
		if p.Options.Throttle {
			res.Options.Throttle = true
		}
		res.Cgroups = MergeCgroupThrottles(res.Cgroups, p.Cgroups)
	}
	res.TaskRows = rows
	res.Rows, res.Total = groupRows(rows, opts)
	return res, nil
}

// setPercentiles sorts r's samples into SortedDelays and sets P50..P999.
func (r *LatencyRow) setPercentiles() {
	r.SortedDelays = append(r.SortedDelays[:0], r.Samples...)
	slices.Sort(r.SortedDelays)
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

// chainHooks returns b's hooks with a's Delay, State and Runtime hooks
// called first (the latency report sets no other hook).
func chainHooks(a, b schedule.Hooks) schedule.Hooks {
	h := b
	h.Delay = chain1(a.Delay, b.Delay)
	h.State = chain1(a.State, b.State)
	h.Run = chain1(a.Run, b.Run)
	h.RunningOnly = (a.State == nil || a.RunningOnly) && (b.State == nil || b.RunningOnly)
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
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// diagWarnings turns the diagnostics into counted warnings whose messages
// state their counts.
func (l *latency) diagWarnings() []trace.Warning {
	var out []trace.Warning
	d := &l.diag
	for _, cb := range d.Chains {
		out = append(out, trace.Warning{
			Key:     fmt.Sprintf("sched-switch-chain-cpu%d", cb.CPU),
			Count:   int(cb.Breaks),
			Message: chainMessage(cb, l.lookup),
		})
	}
	if d.Recovered > 0 {
		out = append(out, trace.Warning{
			Key: "delay-switch-in-inferred", Count: int(d.Recovered),
			Message: fmt.Sprintf("%d scheduling delays had no recorded switch-in; each is counted up to the switch-in implied by the task's first sched_stat_runtime on its CPU (event time minus the runtime it reports, not before the wakeup nor the CPU's last recorded switch)", d.Recovered),
		})
	}
	if d.Dropped > 0 {
		out = append(out, trace.Warning{
			Key: "delay-unmeasured", Count: int(d.Dropped),
			Message: fmt.Sprintf("%d scheduling delays were started (wakeup or preemption) but the task's switch-in was never seen; they are not counted", d.Dropped),
		})
	}
	if d.Unwoken > 0 {
		out = append(out, trace.Warning{
			Key: "delay-no-wakeup", Count: int(d.Unwoken),
			Message: fmt.Sprintf("%d times a task ran again after going to sleep with no recorded wakeup; those delays cannot be measured and are not counted", d.Unwoken),
		})
	}
	if d.Raced > 0 {
		out = append(out, trace.Warning{
			Key: "delay-woken-before-switch-out", Count: int(d.Raced),
			Message: fmt.Sprintf("%d scheduling delays began with a sched_waking recorded before the task's own switch-out to sleep (try_to_wake_up emits it before waiting for the task to leave its CPU); each is counted from the switch-out (perf loses them)", d.Raced),
		})
	}
	if d.Rewoken > 0 {
		out = append(out, trace.Warning{
			Key: "delay-woken-twice", Count: int(d.Rewoken),
			Message: fmt.Sprintf("%d times a task already waiting for a CPU after a wakeup was woken again, so it ran and slept unseen (switches missing or events lost); each of those delays restarts at the second wakeup", d.Rewoken),
		})
	}
	if d.LossyDelays > 0 {
		msg := fmt.Sprintf("%d scheduling delays overlapped lost events on a CPU they involve and are not in the table (--keep-lossy keeps them; JSON lossy_delays per row)", d.LossyDelays)
		if l.opts.KeepLossy {
			msg = fmt.Sprintf("%d scheduling delays overlapped lost events on a CPU they involve; kept (--keep-lossy)", d.LossyDelays)
		}
		out = append(out, trace.Warning{Key: "delay-lossy", Count: int(d.LossyDelays), Message: msg})
	}
	if d.LossyRuntime > 0 {
		msg := fmt.Sprintf("%d sched_stat_runtime events (%.3f ms) overlapped lost events on their CPU and are not in the Runtime column (--keep-lossy keeps them)", d.LossyRuntime, float64(d.LossyRuntimeNs)/1e6)
		if l.opts.KeepLossy {
			msg = fmt.Sprintf("%d sched_stat_runtime events (%.3f ms) overlapped lost events on their CPU; kept (--keep-lossy)", d.LossyRuntime, float64(d.LossyRuntimeNs)/1e6)
		}
		out = append(out, trace.Warning{Key: "runtime-lossy", Count: int(d.LossyRuntime), Message: msg})
	}
	if d.RuntimeFromSwitches && d.Switches > 0 {
		out = append(out, trace.Warning{
			Key: "runtime-from-switches", Count: 1,
			Message: "the trace has no sched_stat_runtime events: Runtime is each task's on-CPU time between its recorded switch-in and switch-out (JSON runtime_source \"switches\")",
		})
	}
	if !l.opts.PerfCompat && d.FirstSeen > 0 {
		out = append(out, trace.Warning{
			Key: "delay-first-switch-in", Count: int(d.FirstSeen),
			Message: fmt.Sprintf("%d tasks were first seen being switched in (woken before the trace began): no delay is counted for that switch-in (perf counts 0 ns for each)", d.FirstSeen),
		})
	}
	for i := range out {
		out[i].CountInMessage = true // every message above states its count
	}
	return out
}

func chainMessage(cb ChainBreak, lookup func(trace.TID) *latThread) string {
	type kv struct {
		tid trace.TID
		n   int64
	}
	var ms []kv
	for tid, n := range cb.Missing {
		ms = append(ms, kv{tid, n})
	}
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].n != ms[j].n {
			return ms[i].n > ms[j].n
		}
		return ms[i].tid < ms[j].tid
	})
	var parts []string
	for i, m := range ms {
		if i == 4 {
			parts = append(parts, "...")
			break
		}
		name := fmt.Sprintf(":%d", m.tid)
		if m.tid == 0 {
			name = fmt.Sprintf("idle (swapper/%d)", cb.CPU)
		} else if th := lookup(m.tid); th != nil {
			name = fmt.Sprintf("%s:%d", th.name(), m.tid)
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m.n))
	}
	msg := fmt.Sprintf("CPU %d: %d of %d sched_switch events switched out a task that the CPU's previous sched_switch had not switched in; the trace lacks the switches out of: %s",
		cb.CPU, cb.Breaks, cb.Switches, strings.Join(parts, ", "))
	if cb.AfterLoss > 0 {
		msg += fmt.Sprintf("; %d of these follow lost records on this CPU", cb.AfterLoss)
	}
	if cb.Missing[0] > 0 && cb.IdleEvents == 0 {
		msg += fmt.Sprintf(" (no event at all was recorded on CPU %d while it was idle)", cb.CPU)
	}
	return msg
}

// traceExtent says, for a filter that matched nothing, what the trace
// holds: its time span (seconds, as perf prints them), its CPUs, and the
// task names closest to each --comm name ("" without a reconstruction).
func (l *latency) traceExtent(f *schedule.Filter) string {
	if l.sched == nil {
		return ""
	}
	var b strings.Builder
	if from, to := l.sched.First(), l.sched.Last(); to > from {
		fmt.Fprintf(&b, "; it spans %s s to %s s", usecStamp(from), usecStamp(to))
	}
	if cpus, _ := l.sched.CPUs(); len(cpus) > 0 && (f == nil || f.CPUs == nil) {
		fmt.Fprintf(&b, ", CPUs %d-%d", cpus[0], cpus[len(cpus)-1])
	}
	if f != nil && len(f.Comms) > 0 {
		names := map[string]bool{}
		for _, t := range l.sched.Tasks() {
			if t.Comm != "" {
				names[t.Comm] = true
			}
		}
		var near []string
		for _, want := range f.Comms {
			near = append(near, closestNames(want, names, 3)...)
		}
		if len(near) > 0 {
			fmt.Fprintf(&b, "; closest task names: %s", strings.Join(near, ", "))
		}
	}
	return b.String()
}

// closestNames returns up to n of names nearest to want: those that
// contain it or that it contains first, then those within an edit distance
// of a third of its length (at least 2), nearest first, ties by name.
func closestNames(want string, names map[string]bool, n int) []string {
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
