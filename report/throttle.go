package report

// Throttling: the part of a scheduling delay a task spent while its task
// group was out of CPU quota (CFS bandwidth control), told apart from time
// it waited for a CPU that other tasks held.
//
// No upstream tracepoint marks a throttle or an unthrottle (include/trace/
// events/sched.h, v6.18), so the split is inferred from the schedule, by
// what only throttling explains:
//
//   - A group is starved while none of its tasks runs on any CPU. Only a
//     starved stretch during which a task of the group waits can be
//     throttling.
//   - Idle evidence: a task of the group was switched out runnable (prev_state
//     R or R+) and its CPU went idle at that very switch. A work-conserving
//     scheduler never leaves a runnable task for the idle task on its own
//     runqueue; CFS bandwidth control does: v6.18 moves the task to its
//     cfs_rq's throttled_limbo_list at its return to user space
//     (throttle_cfs_rq_work), v6.17 and earlier dequeue the whole group
//     entity (throttle_cfs_rq), both in kernel/sched/fair.c. The starved
//     stretch that begins within one bandwidth slice of that switch (another
//     CPU may still run the group on the runtime it holds locally, at most
//     sysctl_sched_cfs_bandwidth_slice, 5 ms by default, fair.c) is a
//     throttle.
//   - Quota evidence, when the group's quota is known (recorded in the trace,
//     or stated with LatencyOptions.Cgroups): a starved stretch that begins
//     when the group has used its quota over the trailing period: at
//     least quota − (CPUs−1) × slice, since each other CPU may still hold up
//     to a slice of the period's runtime unused in its local pool
//     (assign_cfs_rq_runtime, fair.c v6.18). This finds throttles where the
//     CPU went on to run other groups (one CPU, or every CPU busy).
//
// A throttle ends when a task of the group runs again (the period timer's
// distribute_cfs_runtime unthrottles the group's cfs_rqs). Its cpu.stat
// counterparts (Documentation/scheduler/sched-bwc.rst): nr_throttled counts
// periods in which the group was throttled, so a throttle longer than the
// period counts once per period it spans; throttled_time sums the throttled
// time of each CPU's cfs_rq, and from v6.18 ("task based throttle time
// accounting") a cfs_rq's throttled time starts when its first task is
// actually throttled, so ThrottledNs sums, per CPU, from the first waiting
// task of the group on that CPU to the end of the throttle.
//
// A group with no quota of its own below an ancestor with one (recorded, or
// stated for a path no task ran in directly) is throttled with the
// ancestor: its runs and delays are analyzed together with those of the
// ancestor's other descendants, on a line of the ancestor's, since only the
// ancestor's cpu.stat counts those throttles (new-user pass 15: a quota on
// /nup, hogs in /nup/c1 and /nup/c2, the kernel 20 periods and 3125 ms on
// /nup; each child had inferred its own, 18 + 8 periods).

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// BandwidthSlice is the default sysctl_sched_cfs_bandwidth_slice, 5 ms
// (kernel/sched/fair.c v6.18, /proc/sys/kernel/sched_cfs_bandwidth_slice_us
// 5000): the most quota a CPU takes from the group's pool at once.
const BandwidthSlice = 5_000_000

// minCfsRqRuntime is min_cfs_rq_runtime, 1 ms (kernel/sched/fair.c v6.18):
// the runtime a cfs_rq keeps when it returns the rest of its slice to the
// pool on emptying.
const minCfsRqRuntime = 1_000_000

// CgroupThrottle is one task group's share of the CPUs and its inferred
// throttling over a trace (LatencyResult.Cgroups). Times are ns.
type CgroupThrottle struct {
	Cgroup uint64 `json:"cgroup_id"`
	// Path is the group's path (Meta.Cgroups), "cgroup id N" when the
	// trace names no path for the id.
	Path string `json:"path"`
	// Runtime is the on-CPU time of the group's tasks, from the switches;
	// CPUTime the CPU time the trace covers (span × CPUs: not the
	// group's, new-user pass 28 F12), so that
	// Runtime/CPUTime is the group's share of the machine.
	Runtime int64 `json:"runtime_ns"`
	CPUTime int64 `json:"cpu_time_ns"`
	// CPUs is Runtime / Span: how many CPUs the group used on average
	// (0.25 = a quarter of one CPU). Span is the time the report covers
	// (ns: the trace's span, or its window; of several traces merged,
	// the sum of theirs, so CPUs is then the group's mean use over them,
	// beside its quota).
	CPUs float64 `json:"cpus_used"`
	Span int64   `json:"span_ns"`
	// Tasks: task identities of the group with at least one run or delay.
	Tasks int `json:"tasks"`
	// Delays, SumDelay and MaxDelay are the group's tasks' scheduling
	// delays (the latency rows' Count, Sum delay and Max delay).
	Delays   int64 `json:"delays"`
	SumDelay int64 `json:"sum_delay_ns"`
	MaxDelay int64 `json:"max_delay_ns"`
	// ThrottledPeriods estimates cpu.stat nr_throttled: one per throttle,
	// plus one for each further period a throttle spans when the period
	// is known. Throttled estimates cpu.stat throttled_time (summed over
	// CPUs, see the file comment); ThrottledWall is the wall time the
	// group spent throttled; ThrottledDelay the part of its tasks'
	// delays spent throttled (the rows' Throttled, summed).
	ThrottledPeriods int64 `json:"throttled_periods"`
	Throttled        int64 `json:"throttled_ns"`
	// ThrottledCounted: ThrottledPeriods and Throttled are a prediction's
	// own count of the throttles it simulated (its cpu.stat, Kernel), not
	// inferred from the schedule.
	ThrottledCounted bool  `json:"throttled_counted,omitempty"`
	ThrottledWall    int64 `json:"throttled_wall_ns"`
	ThrottledDelay   int64 `json:"throttled_delay_ns"`
	// QuotaNS and PeriodNS are the group's CFS bandwidth settings as used
	// (-1 quota: no limit; 0: unknown) and Settings where they came from:
	// "recorded" (the trace), "stated" (LatencyOptions.Cgroups) or
	// "unknown".
	QuotaNS  int64  `json:"quota_ns"`
	PeriodNS int64  `json:"period_ns,omitempty"`
	Settings string `json:"settings"`
	// Weight is the group's cpu.weight (1..10000; a v1 cpu.shares value
	// converted by trace.WeightFromShares, which Shares then holds), 0
	// unknown; WeightSettings where it came from ("stated", "recorded":
	// the last reading, as for the quota; "" unknown).
	Weight         int    `json:"weight,omitempty"`
	Shares         int    `json:"shares,omitempty"`
	WeightSettings string `json:"weight_settings,omitempty"`
	// Autogroup: the group is an autogroup session ("/autogroup-N",
	// which traceview record places processes in), whose weight its nice
	// sets (Nice, -20..19: Weight is trace.AutogroupWeight(Nice)) and
	// which has no quota (Settings AutogroupSettings); JSON leaves out
	// nice 0.
	Autogroup bool `json:"autogroup,omitempty"`
	Nice      int  `json:"nice,omitempty"`
	// WeightChange says how the recorded weight changed during the
	// trace (weightChange), "" when it did not.
	WeightChange string `json:"weight_change,omitempty"`
	// QuotaReadings, when the settings of Settings' source hold more than
	// one quota or period for the group (it changed during the trace:
	// traceview record reads the settings at each file's start and end,
	// and every 100 ms between), are each distinct one in the order read;
	// QuotaNS and PeriodNS are the last. The analysis uses each quota from
	// the reading that saw it (quotaAt); QuotaDated says every change was
	// read while the trace's tasks still ran (else when one came is not
	// recorded, and the start's quota held for the events before its
	// reading). With the period changed, the analysis uses the last
	// throughout.
	QuotaReadings []QuotaReading `json:"quota_readings,omitempty"`
	QuotaDated    bool           `json:"quota_change_dated,omitempty"`
	// Evidence counts the throttles found by each rule: runnable tasks
	// left for an idle CPU (Idle) and the quota used up over the trailing
	// period (Quota; a throttle with both counts in Idle).
	IdleEvidence  int64 `json:"throttles_idle_evidence"`
	QuotaEvidence int64 `json:"throttles_quota_evidence"`
	// Kernel is what the group's cpu.stat counted between the trace's
	// first and last reading of it (traceview record reads it at the start
	// and end of a file; trace.CgroupStatDelta), or its one reading when
	// its counts fit in the trace (kernelStat: a group created during the
	// capture), nil otherwise: the oracle the inferred figures can be
	// checked against.
	Kernel *trace.CgroupStat `json:"kernel_cpu_stat,omitempty"`
	// KernelPredicted: Kernel holds a prediction's counts (the trace is a
	// replay's, trace.Meta.Predicted: its simulator counted them), which
	// the reports name "the replay's" instead of "the kernel's".
	KernelPredicted bool `json:"kernel_cpu_stat_predicted,omitempty"`
	// Predicted: the trace is a replay's prediction (trace.Meta.Predicted),
	// which spans its input's trace, so CPUs is over that span, not the
	// predicted makespan.
	Predicted bool `json:"predicted,omitempty"`
	// QuotasOfTraces, of several traces merged (MergeCgroupThrottles)
	// that knew the group's quota, are their distinct quotas in order
	// when they differ (TimeNS 0); QuotaNS and PeriodNS are then the
	// first trace's.
	QuotasOfTraces []QuotaReading `json:"quotas_of_traces,omitempty"`
	// QuotaNote says when a stated quota (--recorded-cgroup) replaced the
	// one the trace recorded, or cannot have been in force: the group ran
	// more than it allows (quotaContradicted). "" otherwise.
	QuotaNote string `json:"quota_note,omitempty"`
	// KernelNote says how the inference disagrees with Kernel when it lies
	// more than KernelAgreement from it ("" otherwise).
	KernelNote string `json:"kernel_note,omitempty"`
	// Partial: the report is of a --time window or some CPUs (filtered,
	// or recorded so). The throttles of a window are inferred from the
	// whole trace on its CPUs and counted for their part inside it (a
	// period by its boundary inside it): a throttle its edge cuts counts
	// in both halves (new-user pass 21 F2: halves of a window held 1 and
	// 2 throttles of its 4, the one cut by their edge in neither). A
	// throttle seen only on a CPU left out is not counted.
	Partial bool `json:"partial,omitempty"`
	// KernelWholeTrace: the report is of a time window or some CPUs,
	// while Kernel covers the whole trace: no KernelNote.
	KernelWholeTrace bool `json:"kernel_covers_whole_trace,omitempty"`
	// KernelOf, of several traces merged (MergeCgroupThrottles) only some
	// of which hold the group's cpu.stat readings, says how many do
	// ("1 of 2 traces"): Kernel is theirs alone, and KernelNote compares
	// it with their inference alone ("" when every trace or none does).
	KernelOf string `json:"kernel_cpu_stat_of,omitempty"`
	// merge: per-trace counts while MergeCgroupThrottles sums them: the
	// traces merged, those with a Kernel reading, and their inferred
	// throttled periods and time.
	merge struct {
		parts, kernelParts   int
		kPeriods, kThrottled int64
	}
	// LostWindows and LostEvents: the recorder's loss windows (Meta.Lost)
	// that overlap the group's runs, from its first to its last, and the
	// events they lost (0 for windows of unknown count). A throttle is
	// found from the group's runs and waits: where events were lost it
	// may not show, so the throttle figures are then a lower bound.
	LostWindows int    `json:"lost_windows,omitempty"`
	LostEvents  uint64 `json:"lost_events,omitempty"`
	// ThrottledBy, for a group with no quota of its own, names the nearest
	// ancestor with one (recorded or stated): its throttles are that
	// ancestor's, whose line (with no cgroup id when no task ran in it
	// directly) counts them and charges its tasks' Throttled ms; this
	// line's throttle figures stay 0, as its cpu.stat counts none.
	ThrottledBy string `json:"throttled_by,omitempty"`
	// Subtree: the group has groups below it with tasks, which its quota
	// (known or not) limits too and which share its weight;
	// its Runtime, CPUs, Tasks and delays are then those of its whole
	// subtree (its own tasks' and every group's below), as its throttles
	// are inferred from them.
	Subtree bool `json:"subtree,omitempty"`
	// MixedBasis, of several traces merged or compared, says the group's
	// line counts its subtree in some (Subtree) and its own tasks in
	// others, where its line could not be rebuilt on the subtree basis
	// (sameBasis): its figures mix the two.
	MixedBasis bool `json:"mixed_basis,omitempty"`
	// AlsoUnder, for a group with a quota of its own under an ancestor
	// with one, names the nearest such ancestor: its tasks wait through
	// that ancestor's throttles too, which count on the ancestor's line
	// (and in its tasks' Throttled ms), not in this group's throttles. For
	// a group without one (ThrottledBy), the quota'd ancestor above
	// ThrottledBy, whose throttles it waits through too (new-user pass 20
	// F4 read all of a child's throttled delay as its parent's).
	AlsoUnder string `json:"also_under,omitempty"`
	// Throttles are the throttled stretches, ascending: from the first
	// evidence to the first run of a task of the group after it.
	Throttles []ThrottleSpan `json:"-"`
}

// QuotaReading is one reading of a group's CFS bandwidth settings: when
// (ns on the trace clock; 0 before the first event, or stated) and the
// quota and period (ns; quota -1 no limit).
type QuotaReading struct {
	TimeNS   int64 `json:"time_ns"`
	QuotaNS  int64 `json:"quota_ns"`
	PeriodNS int64 `json:"period_ns"`
}

// quotaReadings returns the distinct quota settings of path in list, in
// list order, when there are two or more (nil otherwise).
func quotaReadings(path string, list []trace.CgroupSettings) []QuotaReading {
	var out []QuotaReading
	for _, s := range list {
		if s.Path != path || s.QuotaNS == 0 {
			continue
		}
		p := s.PeriodNS
		if p <= 0 {
			p = trace.DefaultCfsPeriod
		}
		if n := len(out); n > 0 && out[n-1].QuotaNS == s.QuotaNS && out[n-1].PeriodNS == p {
			continue
		}
		out = append(out, QuotaReading{TimeNS: s.Time, QuotaNS: s.QuotaNS, PeriodNS: p})
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// quotaAt returns the quota (ns per period; -1 no limit) in force at t (ns,
// trace clock) by the group's readings: the latest read at or before t,
// the first before any. traceview record reads the settings at a file's
// start and end and every 100 ms between (ebpf's settings sampler), so a
// change takes effect here at the reading that saw it, up to one interval
// after it was made; a change only the end's reading saw (an older
// recording) leaves the start's in force through every event. With the
// period changed too, or one reading, it is QuotaNS throughout.
func (g *CgroupThrottle) quotaAt(t int64) int64 {
	rs := g.QuotaReadings
	if len(rs) < 2 || slices.ContainsFunc(rs, func(r QuotaReading) bool { return r.PeriodNS != rs[0].PeriodNS }) {
		return g.QuotaNS
	}
	q := rs[0].QuotaNS
	for _, r := range rs[1:] {
		if r.TimeNS <= t {
			q = r.QuotaNS
		}
	}
	return q
}

// QuotaChange says how the group's quota changed during the trace
// (QuotaReadings; "" when it did not): "changed during the trace: 50ms/100ms
// (read at the start), 25ms/100ms (read at 812.092 s); the analysis used
// the last".
func (g *CgroupThrottle) QuotaChange() string {
	if len(g.QuotaReadings) < 2 {
		return ""
	}
	parts := make([]string, len(g.QuotaReadings))
	for i, r := range g.QuotaReadings {
		q := "max (no limit)"
		if r.QuotaNS > 0 {
			q = durText(r.QuotaNS) + "/" + durText(r.PeriodNS)
		}
		at := "read at the start"
		if r.TimeNS > 0 {
			at = "read at " + trace.FormatSeconds(r.TimeNS, 6) + " s"
		}
		parts[i] = fmt.Sprintf("%s (%s)", q, at)
	}
	switch {
	case slices.ContainsFunc(g.QuotaReadings, func(r QuotaReading) bool { return r.PeriodNS != g.QuotaReadings[0].PeriodNS }):
		return "changed during the trace: " + strings.Join(parts, ", ") + "; the period changed too: the analysis used the last for the whole trace"
	case g.QuotaDated:
		return "changed during the trace: " + strings.Join(parts, ", ") + "; the analysis used each from when it was read"
	}
	return "changed during the trace: " + strings.Join(parts, ", ") + "; when is not recorded (read only as the recording ended): the analysis used each from when it was read, the start's for every event"
}

// weightChange says how the weight of path changed in list (its
// readings, in the order read), "" when it did not: "weight changed during
// the trace: 100 (nice 0, read at the start), 11 (nice 10, read at
// 33536.619030 s); the weight shown is the last" (new-user pass 28 F5: an
// autogroup's nice changed half way showed only the last).
func weightChange(path string, list []trace.CgroupSettings) string {
	var parts []string
	last := -1
	for _, s := range list {
		if s.Path != path || s.Weight <= 0 || s.Weight == last {
			continue
		}
		last = s.Weight
		w := strconv.Itoa(s.Weight)
		switch {
		case trace.IsAutogroupPath(path):
			w += fmt.Sprintf(" (nice %d", s.Nice)
		case s.Shares > 0:
			w += fmt.Sprintf(" (shares %d", s.Shares)
		default:
			w += " ("
		}
		if !strings.HasSuffix(w, "(") {
			w += ", "
		}
		if s.Time > 0 {
			w += "read at " + trace.FormatSeconds(s.Time, 6) + " s)"
		} else {
			w += "read at the start)"
		}
		parts = append(parts, w)
	}
	if len(parts) < 2 {
		return ""
	}
	return "weight changed during the trace: " + strings.Join(parts, ", ") + "; the weight shown is the last"
}

// ThrottleSpan is one inferred throttle of a group, Start to End (ns of the
// trace clock).
type ThrottleSpan struct{ Start, End int64 }

// CPUShare is Runtime / CPUTime, the group's share of the machine (0 when
// the trace covers no CPU time).
func (g *CgroupThrottle) CPUShare() float64 {
	if g.CPUTime <= 0 {
		return 0
	}
	return float64(g.Runtime) / float64(g.CPUTime)
}

type thrRun struct {
	start, end int64
	toIdle     bool // ended runnable with its CPU switching to idle
}

type thrDelay struct {
	t          *latTask
	start, end int64
	cpu        trace.CPU // the runqueue it waited on (-1 unknown)
	// kept: the filters keep the delay (throttleCollector.kept), so its
	// throttled part is charged to its task's row; the group counts it
	// either way. in: the window and CPUs select it (selects).
	kept, in bool
}

type thrGroup struct {
	runs   map[trace.CPU][]thrRun // per CPU, in time order (see retain)
	delays []thrDelay
	tasks  map[*latTask]bool
	// Totals over every run and delay, kept or not.
	runtime, nDelays, sumDelay, maxDelay int64
	// retain: 0 until the group needs its history, runs and delays then
	// trimmed to the last retainHorizon; 1 once it does (an idle-rule
	// mark, or a known quota): everything kept; -1 for the root group,
	// which is never throttled: nothing kept.
	retain int8
	latest int64 // the end of the latest run
	// first is the start of the earliest run (0: none yet), which the
	// runs kept need not hold (decide trims them to retainHorizon): the
	// losses "while the group ran" are those from it to latest.
	first int64
}

// retainHorizon is how much of a group's history is kept before it
// needs it: two bandwidth slices, twice what the idle rule looks back
// from a gap (BandwidthSlice). A group that never shows a throttle mark
// and has no known quota so costs memory for its last few runs only,
// whatever the trace's length (an eBPF capture puts every task in some
// cgroup).
const retainHorizon = 2 * BandwidthSlice

// trimEvery is how many runs a CPU's list of an undecided group grows by
// between trims.
const trimEvery = 1024

// throttleCollector keeps, during the latency pass, the runs and delays of
// tasks in a cgroup: what analyze needs. Runs of tasks without a cgroup
// cost one slice lookup.
type throttleCollector struct {
	groups map[uint64]*thrGroup
	// pending: per CPU, the group of a run that ended runnable at its
	// switch-out (the last of that group's runs on the CPU), until the
	// CPU's next run says whether idle followed (cg 0: none).
	pending []pendingRun
	// meta and stated decide, as the trace goes, which groups are kept
	// in full (decide).
	meta   *trace.Meta
	stated []trace.CgroupSettings
	// unplaced: delays of tasks whose cgroup was not known yet (a new
	// task's first wait); they count in the group its next switch-out
	// names (run), the group it waited in. noGroup: tasks whose
	// switch-out named no group (a trace without cgroups): their delays
	// are not held, which kept every delay of a 2 M-event perf.data
	// recorded without --all-cgroups (replay's observed table: 19 MB more
	// live heap on bench/replaymem's file).
	unplaced map[*schedule.Task][]unplacedDelay
	noGroup  map[*schedule.Task]bool
	// win is the report's time window and CPUs (nil, or neither: the
	// whole trace; its task lists are not used). The collector sees the
	// whole trace (schedule.Hooks GroupWhole) and infers the throttles
	// from it, on every CPU; the group's run time, delays and throttles
	// are counted inside win, as the rows are: a run's part inside the
	// window on its CPUs, a delay by its end and its switch-in's CPU, a
	// throttle's part inside the window on those CPUs' runqueues.
	win *schedule.Filter
	// ncpu is the number of CPUs of the whole trace, for the inference
	// (0: analyze's).
	ncpu int64
}

type unplacedDelay struct {
	t  *latTask
	d  int64
	in bool // selected by the window and CPUs (throttleCollector.selects)
}

type pendingRun struct {
	cg  uint64
	end int64
}

func newThrottleCollector(meta *trace.Meta, stated []trace.CgroupSettings) *throttleCollector {
	return &throttleCollector{groups: map[uint64]*thrGroup{}, meta: meta, stated: stated}
}

func (c *throttleCollector) group(cg uint64) *thrGroup {
	g := c.groups[cg]
	if g == nil {
		g = &thrGroup{runs: map[trace.CPU][]thrRun{}, tasks: map[*latTask]bool{}}
		c.groups[cg] = g
	}
	return g
}

// decide settles an undecided group from what the trace has said so far:
// the root group keeps nothing, a group with a known quota everything;
// otherwise its history is trimmed to retainHorizon.
func (c *throttleCollector) decide(cg uint64, g *thrGroup) {
	if c.meta != nil {
		if path, ok := c.meta.Cgroups[cg]; ok {
			if path == "/" {
				g.retain, g.runs, g.delays = -1, nil, nil
				return
			}
			if q, _, _ := groupSettings(path, c.meta, c.stated); q > 0 {
				g.retain = 1
				return
			}
		}
	}
	horizon := g.latest - retainHorizon
	for cpu, runs := range g.runs {
		k := sort.Search(len(runs), func(k int) bool { return runs[k].end >= horizon })
		k = min(k, len(runs)-1) // the last run stays: it may be pending
		if k > 0 {
			g.runs[cpu] = append(runs[:0:0], runs[k:]...)
		}
	}
	g.delays = slices.DeleteFunc(g.delays, func(d thrDelay) bool { return d.end < horizon })
}

// run records a CPU interval (schedule.Hooks.Run); t is the row of
// r.Task when it has a cgroup.
func (c *throttleCollector) run(r *schedule.Run, t *latTask) {
	if int(r.CPU) < len(c.pending) && r.CPU >= 0 {
		if p := &c.pending[r.CPU]; p.cg != 0 {
			if r.Task != nil && r.Task.TID == 0 && r.Start == p.end {
				if g := c.groups[p.cg]; g.retain >= 0 {
					if runs := g.runs[r.CPU]; len(runs) > 0 {
						runs[len(runs)-1].toIdle = true
						g.retain = 1
					}
				}
			}
			p.cg = 0
		}
	}
	if r.Task == nil || r.Task.TID == 0 {
		return
	}
	if r.Task.Cgroup == 0 {
		if c.noGroup == nil {
			c.noGroup = map[*schedule.Task]bool{}
		}
		c.noGroup[r.Task] = true
		delete(c.unplaced, r.Task)
		return
	}
	if ds := c.unplaced[r.Task]; len(ds) > 0 {
		g := c.group(r.Task.Cgroup)
		for _, u := range ds {
			if u.in {
				g.addDelay(u.t, u.d)
			}
		}
		delete(c.unplaced, r.Task)
	}
	if r.Quality == schedule.Unknown || r.CPU < 0 {
		return
	}
	g := c.group(r.Task.Cgroup)
	if s, e, in := c.win.Clip(r.Start, r.End); in && c.win.CPU(r.CPU) {
		g.tasks[t] = true
		// From where the task's row counts the run (new-user pass 27
		// F4: a Recovered run overlapping the wait before it made a
		// group 0.147 ms above the sum of its rows).
		if s = max(s, r.OnCPUFrom); e > s {
			g.runtime += e - s
		}
	}
	g.latest = max(g.latest, r.End)
	if g.first == 0 || r.Start < g.first {
		g.first = r.Start
	}
	if r.Prio >= 0 && r.Prio < 100 {
		t.X.rt = true
	}
	if g.retain < 0 || !t.X.underBandwidth() {
		// A deadline or real-time task's runs use none of the group's
		// quota and its switch-outs are no throttle's evidence.
		return
	}
	runs := append(g.runs[r.CPU], thrRun{start: r.Start, end: r.End})
	g.runs[r.CPU] = runs
	if g.retain == 0 && len(runs)%trimEvery == 0 {
		c.decide(r.Task.Cgroup, g)
	}
	if r.EndSwitch && r.EndState.Runnable() {
		for int(r.CPU) >= len(c.pending) {
			c.pending = append(c.pending, pendingRun{})
		}
		c.pending[r.CPU] = pendingRun{cg: r.Task.Cgroup, end: r.End}
	}
}

// delay records a measured delay (schedule.Hooks.Delay, not excluded).
func (c *throttleCollector) delay(d *schedule.Delay, t *latTask) {
	if d.Task.Cgroup == 0 {
		// A task not yet switched out in a known group (a new thread's
		// first wait): its next switch-out says which (run).
		if c.noGroup[d.Task] {
			return
		}
		if c.unplaced == nil {
			c.unplaced = map[*schedule.Task][]unplacedDelay{}
		}
		c.unplaced[d.Task] = append(c.unplaced[d.Task], unplacedDelay{t: t, d: d.End - d.Start, in: c.selects(d)})
		return
	}
	g := c.group(d.Task.Cgroup)
	in := c.selects(d)
	if in {
		g.addDelay(t, d.End-d.Start)
	}
	if d.End <= d.Start {
		return
	}
	if g.retain >= 0 && t.X.underBandwidth() {
		g.delays = append(g.delays, thrDelay{t: t, start: d.Start, end: d.End, cpu: d.QueueCPU, in: in})
	}
}

// selects reports whether the report's window and CPUs (win) keep delay
// d, as they keep the rows' delays: by its end, and by the CPU it was
// switched in on (the runqueue it waited on when that is unknown: a
// delay ended by a loss).
func (c *throttleCollector) selects(d *schedule.Delay) bool {
	cpu := d.CPU
	if cpu < 0 {
		cpu = d.QueueCPU
	}
	return c.win.Time(d.End) && c.win.CPU(cpu)
}

// kept marks the delay that delay recorded last, d of task t, as one the
// filters keep (latency's Delay hook, called just after GroupDelay for the
// same delay when the filters keep it).
func (c *throttleCollector) kept(d *schedule.Delay, t *latTask) {
	g := c.groups[d.Task.Cgroup]
	if d.Task.Cgroup == 0 || g == nil || len(g.delays) == 0 {
		return
	}
	if x := &g.delays[len(g.delays)-1]; x.t == t && x.start == d.Start && x.end == d.End {
		x.kept = true
	}
}

// lostDuring counts meta's loss windows that overlap g's runs (from the
// first start to the latest end) and the events they lost.
func (g *thrGroup) lostDuring(meta *trace.Meta) (windows int, events uint64) {
	if meta == nil || len(meta.Lost) == 0 {
		return 0, 0
	}
	// (From the first run, not the first kept: new-user pass 81 F3 counted
	// 1 window of 24, 4415 events of 186136, for a group that ran through
	// them all, its older runs trimmed by decide.)
	for _, l := range meta.Lost {
		if l.End >= g.first && l.Start <= g.latest {
			windows++
			events += l.Count
		}
	}
	return windows, events
}

// quotaAncestors returns the proper ancestors of path whose CFS bandwidth
// quota is known and limited (groupSettings: stated or recorded), nearest
// first.
func quotaAncestors(path string, meta *trace.Meta, stated []trace.CgroupSettings) []string {
	return ancestorsWhere(path, func(p string) bool { q, _, _ := groupSettings(p, meta, stated); return q > 0 })
}

// ancestorsWhere returns the proper ancestors of path (not the root) for
// which keep holds, nearest first.
func ancestorsWhere(path string, keep func(string) bool) []string {
	if !strings.HasPrefix(path, "/") {
		// Not a path from the root (a damaged record's): it names no
		// parent (new-user pass 103 F3: "Qn3/b" made up a group "Qn3"
		// with a line of its own).
		return nil
	}
	var out []string
	for p := path; ; {
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			return out
		}
		p = p[:i]
		if keep(p) {
			out = append(out, p)
		}
	}
}

// lineAncestors returns the proper ancestors of path (not the root),
// nearest first: each gets a line of its whole subtree, as a parent's
// weight is what its children share among themselves against its
// siblings (new-user pass 80 F1: /nu80a, shares 2048, whose two children
// together ran twice its sibling's CPU, was on no line), and its quota,
// known or not, limits them all. A group's path names its ancestors
// (cgroup paths are the hierarchy), so they are lines also where the
// trace has no settings or no table entry of theirs (new-user pass 102
// F2: a perf.data, and a .tv cut before its trailer, had /nu102p/c's line
// and none of /nu102p, which the whole .tv has).
func lineAncestors(path string) []string {
	return ancestorsWhere(path, func(string) bool { return true })
}

// absorb adds the runs, delays, tasks and totals of o, a group below g's
// in the hierarchy, to g (per CPU, runs are appended: sort them before
// analyze); unless evidence, without their idle evidence (thrRun.toIdle).
func (g *thrGroup) absorb(o *thrGroup, evidence bool) {
	for cpu, runs := range o.runs {
		n := len(g.runs[cpu])
		g.runs[cpu] = append(g.runs[cpu], runs...)
		if !evidence {
			for i := n; i < len(g.runs[cpu]); i++ {
				g.runs[cpu][i].toIdle = false
			}
		}
	}
	g.delays = append(g.delays, o.delays...)
	for t := range o.tasks {
		g.tasks[t] = true
	}
	g.runtime += o.runtime
	g.nDelays += o.nDelays
	g.sumDelay += o.sumDelay
	g.maxDelay = max(g.maxDelay, o.maxDelay)
	g.latest = max(g.latest, o.latest)
	if o.first != 0 && (g.first == 0 || o.first < g.first) {
		g.first = o.first
	}
}

// addDelay counts a delay of d ns of task t in the group's totals, as the
// latency table counts them (a 0 ns delay too).
func (g *thrGroup) addDelay(t *latTask, d int64) {
	g.tasks[t] = true
	g.nDelays++
	g.sumDelay += d
	g.maxDelay = max(g.maxDelay, d)
}

// groupSettings returns the CFS bandwidth settings of path: the stated ones
// first, else the last recorded snapshot; quota 0 when neither says.
func groupSettings(path string, meta *trace.Meta, stated []trace.CgroupSettings) (quota, period int64, src string) {
	var from string // the Source of the reading picked
	pick := func(list []trace.CgroupSettings) (int64, int64, bool) {
		found := false
		for _, s := range list {
			if s.Path == path && s.QuotaNS != 0 {
				quota, period, from, found = s.QuotaNS, s.PeriodNS, s.Source, true
			}
		}
		if found && period <= 0 {
			period = trace.DefaultCfsPeriod
		}
		return quota, period, found
	}
	if q, p, ok := pick(stated); ok {
		return q, p, "stated"
	}
	if trace.IsAutogroupPath(path) {
		// An autogroup's task group is made with no bandwidth limit
		// and has no cpu.max to set one (sched_create_group from
		// autogroup_create, kernel/sched/autogroup.c v6.18); a
		// recorded "max" for it (a replay's prediction) says the same.
		return -1, trace.DefaultCfsPeriod, AutogroupSettings
	}
	if meta != nil {
		if q, p, ok := pick(meta.CgroupSettings); ok {
			return q, p, settingsSource(meta, from)
		}
	}
	return 0, 0, "unknown"
}

// whatIfGroups returns, for a replay's prediction (meta), a line for each
// group whose quota or weight a what-if set and that is no row of groups:
// a parent with no task of its own whose quota --cpu-max PATH=max took
// away is in no row, so the what-if was said nowhere but in info
// (new-user pass 35 F3).
func whatIfGroups(meta *trace.Meta, groups []CgroupThrottle) []string {
	if meta == nil || !meta.Predicted() {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, g := range groups {
		seen[g.Path] = true
	}
	for i := len(meta.CgroupSettings) - 1; i >= 0; i-- {
		s := meta.CgroupSettings[i]
		if seen[s.Path] {
			continue
		}
		seen[s.Path] = true
		var what []string
		if strings.HasPrefix(s.Source, "what-if") {
			q := "max (no limit)"
			if s.QuotaNS > 0 {
				q = durText(s.QuotaNS) + "/" + durText(cmp.Or(s.PeriodNS, trace.DefaultCfsPeriod))
			}
			what = append(what, "quota "+q)
		}
		if strings.HasPrefix(cmp.Or(s.WeightSource, s.Source), "what-if") && s.Weight > 0 {
			what = append(what, "weight "+strconv.Itoa(s.Weight))
		}
		if len(what) == 0 {
			continue
		}
		why := "no task ran in it or below it"
		if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return strings.HasPrefix(g.Path, s.Path+"/") }) {
			why = "no task ran in it directly and it has no quota over the groups below it"
		}
		out = append(out, fmt.Sprintf("%s: %s, what-if (replay); no row, as %s", termsafe.Name(s.Path), strings.Join(what, ", "), why))
	}
	slices.Sort(out)
	return out
}

// settingsSource names where a trace's own settings reading came from:
// "recorded"; in a replay's prediction (trace.Meta.Predicted), where the
// replay took them, "what-if (replay)", "recorded (replay)" (the
// CgroupSettings.Source it wrote; new-user pass 27 F6: a what-if quota
// read "recorded").
func settingsSource(meta *trace.Meta, source string) string {
	if !meta.Predicted() {
		return "recorded"
	}
	return cmp.Or(source, "recorded") + " (replay)"
}

// NotModelled reports whether g is a group of a replay's prediction whose
// policy did not model task groups (its settings' Source
// trace.NotModelledSource): no quota or weight was in force.
func (g *CgroupThrottle) NotModelled() bool {
	return g.Predicted && strings.HasPrefix(g.Settings, trace.NotModelledSource)
}

// AutogroupSettings is the CgroupThrottle.Settings of an autogroup, which
// has no quota (groupSettings).
const AutogroupSettings = "autogroup"

// groupWeight returns the cpu.weight of path (and its v1 cpu.shares, 0 for
// a v2 group; an autogroup's nice) as stated, else as last recorded, and
// where it came from; 0 and "" when neither says.
func groupWeight(path string, meta *trace.Meta, stated []trace.CgroupSettings) (weight, shares, nice int, src string) {
	var from string // the Source of the reading picked
	pick := func(list []trace.CgroupSettings) bool {
		found := false
		for _, s := range list {
			if s.Path == path && s.Weight > 0 {
				weight, shares, nice, from, found = s.Weight, s.Shares, s.Nice, cmp.Or(s.WeightSource, s.Source), true
			}
		}
		return found
	}
	if pick(stated) {
		return weight, shares, nice, "stated"
	}
	if meta != nil && pick(meta.CgroupSettings) {
		return weight, shares, nice, settingsSource(meta, from)
	}
	return 0, 0, 0, ""
}

// analyze finds each group's throttles, charges the throttled part of
// every delay to its task (latExtra.thrN, thrNs) and returns the groups, by
// path. span is the report's time span (ns: the trace's, or its window,
// c.win) and ncpu its CPUs; root groups ("/") are left out.
func (c *throttleCollector) analyze(meta *trace.Meta, stated []trace.CgroupSettings, from, to, ncpu int64) []CgroupThrottle {
	for _, ds := range c.unplaced {
		// Never switched out in a group since: the group of its row.
		for _, u := range ds {
			if u.in && u.t != nil && u.t.Thread.Cgroup != 0 {
				c.group(u.t.Thread.Cgroup).addDelay(u.t, u.d)
			}
		}
	}
	return c.lines(meta, stated, from, to, ncpu)
}

// latest returns the end of the latest run of any group (ns, trace clock).
func (c *throttleCollector) latest() int64 {
	var t int64
	for _, g := range c.groups {
		t = max(t, g.latest)
	}
	return t
}

// ownGroup is a cgroup with runs or delays of its own tasks.
type ownGroup struct {
	cg    uint64
	path  string
	g     *thrGroup
	named bool // the trace names its path
}

// lines makes the group table's lines (see analyze). A quota limits its
// group's whole subtree: throttle_cfs_rq (kernel/sched/fair.c v6.18)
// throttles the group's cfs_rq, and with it every group below, whose
// runtime is charged up the hierarchy (account_cfs_rq_runtime on each
// level's cfs_rq); only the throttled group's cpu.stat counts the
// throttle. So a group with a quota is analyzed with the runs and delays
// of every group below it (its line's figures are then the subtree's:
// Subtree), ancestors before descendants, and a throttle found in a group
// below another's quota is counted there only outside the ancestor's
// throttles (new-user pass 17 F1: a child with a quota of its own under a
// throttled parent was left out of the parent's line, and the parent's
// throttles were counted as its own, 1380 ms beside its cpu.stat's 368).
// A group without a quota under an ancestor with one is throttled by that
// ancestor (ThrottledBy) and not analyzed on its own.
func (c *throttleCollector) lines(meta *trace.Meta, stated []trace.CgroupSettings, from, to, ncpu int64) []CgroupThrottle {
	span := to - from
	quota := func(p string) bool { q, _, _ := groupSettings(p, meta, stated); return q > 0 }
	var own []ownGroup
	byPath := map[string]*ownGroup{}
	for cg, g := range c.groups {
		path, ok := "", false
		if meta != nil {
			path, ok = meta.Cgroups[cg]
		}
		if !ok {
			path = unnamedPrefix + strconv.FormatUint(cg, 10)
		}
		if path == "/" {
			continue
		}
		own = append(own, ownGroup{cg, path, g, ok})
	}
	for i := range own {
		byPath[own[i].path] = &own[i] // (an unnamed id's "cgroup id N" is no path)
	}
	// subtree: each group with a quota that has named groups below it,
	// with their runs and delays and its own.
	subtree := map[string]*thrGroup{}
	for _, o := range own {
		if !o.named {
			continue
		}
		ancs := quotaAncestors(o.path, meta, stated)
		for _, a := range lineAncestors(o.path) {
			sub := subtree[a]
			if sub == nil {
				sub = &thrGroup{runs: map[trace.CPU][]thrRun{}, tasks: map[*latTask]bool{}}
				if og := byPath[a]; og != nil {
					sub.absorb(og.g, true)
				}
				subtree[a] = sub
			}
			// A task of a group with a quota of its own, or below one
			// nearer than a, left runnable for an idle CPU is that
			// group's throttle as likely as a's: its runs count in a's
			// runtime, not as a's idle evidence (new-user pass 18 F3: a
			// parent that never used its quota inferred 10 periods from
			// its child's throttles, where the kernel counted none).
			sub.absorb(o.g, len(ancs) > 0 && ancs[0] == a && !quota(o.path))
		}
	}
	paths := make([]string, 0, len(own)+len(subtree))
	for _, o := range own {
		paths = append(paths, o.path)
	}
	for a := range subtree {
		if byPath[a] == nil {
			paths = append(paths, a)
		}
	}
	// Ancestors first: a path sorts after every proper ancestor of it.
	slices.SortFunc(paths, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), cmp.Compare(a, b))
	})
	throttles := map[string][]ThrottleSpan{}
	out := make([]CgroupThrottle, 0, len(paths))
	for _, path := range paths {
		// A quota'd ancestor no task ran in directly has no own group
		// (cg 0); a group with named groups below its quota is analyzed
		// with them (subtree).
		var cg uint64
		named := true
		g, sub := subtree[path], subtree[path] != nil
		if o := byPath[path]; o != nil {
			cg, named = o.cg, o.named
			if !sub {
				g = o.g
			}
		}
		for _, runs := range g.runs {
			slices.SortFunc(runs, func(a, b thrRun) int { return cmp.Compare(a.start, b.start) })
		}
		ct := CgroupThrottle{Cgroup: cg, Path: path, CPUTime: span * ncpu, Tasks: len(g.tasks), Subtree: sub}
		ct.QuotaNS, ct.PeriodNS, ct.Settings = groupSettings(path, meta, stated)
		ct.Weight, ct.Shares, ct.Nice, ct.WeightSettings = groupWeight(path, meta, stated)
		if meta != nil && ct.WeightSettings != "stated" && ct.WeightSettings != "" {
			ct.WeightChange = weightChange(path, meta.CgroupSettings)
		}
		ct.Autogroup = trace.IsAutogroupPath(path)
		switch ct.Settings {
		case "stated":
			ct.QuotaReadings = quotaReadings(path, stated)
		case "unknown", AutogroupSettings:
		default: // the trace's
			ct.QuotaReadings = quotaReadings(path, meta.CgroupSettings)
		}
		ct.QuotaDated = len(ct.QuotaReadings) > 1 && ct.QuotaReadings[len(ct.QuotaReadings)-1].TimeNS <= c.latest()
		ct.Delays, ct.SumDelay, ct.MaxDelay = g.nDelays, g.sumDelay, g.maxDelay
		ct.Kernel = kernelStat(meta, path, from, to, ct.PeriodNS)
		ct.KernelPredicted = ct.Kernel != nil && meta.Predicted()
		ct.Predicted = meta != nil && meta.Predicted()
		ancs := quotaAncestors(path, meta, stated)
		// The throttles found on every ancestor's line, quota'd or of a
		// quota unknown, are theirs: a throttle here counts only outside
		// them, and a task's delay is charged once (new-user pass 106 F2:
		// a parent of unknown quota, analyzed with its subtree, and its
		// child both charged a task's waits: 2409 ms throttled of a 1254
		// ms delay). The group's tasks' delays inside them are on its
		// line too (ThrottledDelay), as its rows' Throttled ms hold them
		// (new-user passes 104 F1, 106 F1, 107 F1 and F2: 0, its own
		// part alone, or a moved task's delays in another group).
		var above []ThrottleSpan
		for _, a := range lineAncestors(path) {
			above = append(above, throttles[a]...)
		}
		above = mergeSpans(above)
		if named && !quota(path) && len(ancs) > 0 {
			ct.ThrottledBy = ancs[0]
			if len(ancs) > 1 {
				ct.AlsoUnder = ancs[1]
			}
			ct.ThrottledDelay = g.delayIn(above)
		} else {
			if len(ancs) > 0 {
				ct.AlsoUnder = ancs[0]
			}
			all := ncpu
			if c.ncpu > 0 {
				all = c.ncpu
			}
			throttles[path] = g.analyze(&ct, all, above, c.win)
			ct.ThrottledDelay += g.delayIn(above)
			ct.KernelNote = kernelDisagrees(&ct)
			if ct.Kernel != nil && meta != nil && meta.LostInFile > 0 {
				// The readings span what the file lost too: the
				// difference is the damage's, not contention (new-user pass
				// 19 F1 blamed contention for a damaged block's 2.8 s).
				ct.KernelNote = fmt.Sprintf("the file lost %d events in damaged or cut parts, which the kernel's counts cover and the inference does not: not compared", meta.LostInFile)
			}
			if ct.QuotaNS > 0 || ct.Settings == "unknown" && !ct.Autogroup {
				// (Only where a throttle could hide: new-user pass 83 F3
				// gave autogroups, "never throttled", and a group of no
				// quota a throttle "lower bound".)
				ct.LostWindows, ct.LostEvents = g.lostDuring(meta)
			}
		}
		ct.Runtime, ct.Span = g.runtime, span
		if span > 0 {
			ct.CPUs = float64(ct.Runtime) / float64(span)
		}
		ct.QuotaNote = quotaContradicted(&ct, meta, stated, span)
		if ct.Settings == "unknown" && !ct.Autogroup && ct.ThrottledPeriods > 0 && unknownAncestor(path, meta, stated) {
			// Each group's throttles are inferred on its own where no
			// quota is known, and only the group whose quota ran out is
			// throttled (throttle_cfs_rq, kernel/sched/fair.c v6.18): a
			// parent's throttle shows as its children's too (new-user pass
			// 104 F2: a child inferred 598 ms, its parent 554 ms, where
			// cpu.stat counted 1186 ms for the parent and none for them).
			ct.QuotaNote = strings.TrimPrefix(ct.QuotaNote+"; "+nestedUnknownNote, "; ")
		}
		if ct.QuotaNS > 0 && ct.Kernel == nil && !ct.Predicted && ct.ThrottledBy == "" {
			// (new-user pass 80 F2: a perf.data with the quota stated
			// inferred 64 % of the kernel's throttled time, and said
			// nothing of what the .tv of the same run says beside the
			// kernel's count.)
			note := noKernelNote
			if meta != nil && len(meta.CgroupStats) > 0 {
				// A capture that reads cpu.stat (at its start and end)
				// has none of a group made or removed in between
				// (new-user pass 107 F4: told to use traceview record, on
				// a traceview record capture).
				note = noReadingNote
			}
			ct.QuotaNote = strings.TrimPrefix(ct.QuotaNote+"; "+note, "; ")
		}
		out = append(out, ct)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// noReadingNote is noKernelNote for a trace that holds cpu.stat readings
// of other groups: this one's were not read (made after the recording's
// first reading or removed before its last).
const noReadingNote = "the trace holds no cpu.stat reading of this group (the recording reads them at its start and end: a group made or removed in between has none), so nothing checks the inference: a throttle shows only where the group's tasks wait with its quota used up, so its throttled periods and ms are an estimate: on recordings that hold cpu.stat it came out 0.64x to 2.3x the kernel's throttled time (under where other groups kept its CPUs busy and a throttle hid in that contention, over where waits for a CPU were taken for throttles)"

// nestedUnknownNote is the note of a group with an inferred throttle and
// an ancestor whose quota is unknown too (lines).
const nestedUnknownNote = "an ancestor's quota is unknown too: its throttles hold this group's tasks as well, so some of the throttles inferred here may be the ancestor's (state its quota with --recorded-cgroup to tell them apart)"

// unknownAncestor reports whether a proper ancestor of path (not the
// root) has no known quota (groupSettings "unknown").
func unknownAncestor(path string, meta *trace.Meta, stated []trace.CgroupSettings) bool {
	return len(ancestorsWhere(path, func(p string) bool { _, _, src := groupSettings(p, meta, stated); return src == "unknown" })) > 0
}

// noKernelNote is the note of a group with a quota and no cpu.stat
// reading in the trace (a perf.data, a quota stated with
// --recorded-cgroup): the inference is all there is. On the recordings
// that carry cpu.stat it found 86-100 % of the kernel's throttled time
// where groups competed (KernelAgreement's comment; new-user pass 80: 86 %
// and 87 % on r1.tv), and a perf.data of the same run with the quota
// stated 64 %; but 232 % for a request-like service beside a hog (new-user
// pass 121: B.tv, 42.6 against 18.3 ms) and 220 % on the perf.data of a
// nested quota with the quota stated (88.1 against 40.0 ms): an estimate
// either way, not the lower bound this note said.
const noKernelNote = "the trace has no cpu.stat reading to check the inference against: a throttle shows only where the group's tasks wait with its quota used up, so its throttled periods and ms are an estimate: on recordings that hold cpu.stat it came out 0.64x to 2.3x the kernel's throttled time (under where other groups kept its CPUs busy and a throttle hid in that contention, over where waits for a CPU were taken for throttles) ('traceview record' reads the kernel's cpu.stat)"

// quotaContradicted says, for a group whose quota was stated
// (--recorded-cgroup), when its run time over the span shows the quota
// was not the one in force: more than quota/period of the span, plus one
// quota for a period the span cuts and the burst (a period's runtime is at
// most quota + burst: do_sched_cfs_period_timer, kernel/sched/fair.c
// v6.18); and when the trace recorded another quota, which the stated one
// replaced. "" otherwise (new-user pass 18 F6: a stated 10ms/100ms beside
// 0.998 CPUs used, and a recorded 50ms/50ms replaced, without a word).
func quotaContradicted(g *CgroupThrottle, meta *trace.Meta, stated []trace.CgroupSettings, span int64) string {
	if g.Settings != "stated" || g.QuotaNS <= 0 || g.PeriodNS <= 0 || span <= 0 {
		return ""
	}
	var notes []string
	burst := int64(0)
	if meta != nil {
		if q, p, _ := groupSettings(g.Path, meta, nil); q != 0 && (q != g.QuotaNS || p != g.PeriodNS) {
			rec := "max (no limit)"
			if q > 0 {
				rec = durText(q) + "/" + durText(p)
			}
			notes = append(notes, fmt.Sprintf("the stated quota %s/%s replaces the %s the trace recorded", durText(g.QuotaNS), durText(g.PeriodNS), rec))
		}
	}
	for _, st := range stated {
		if st.Path == g.Path && st.BurstNS > 0 {
			burst = st.BurstNS
		}
	}
	if most := span/g.PeriodNS*g.QuotaNS + span%g.PeriodNS*g.QuotaNS/g.PeriodNS + g.QuotaNS + burst; g.Runtime > most {
		notes = append(notes, fmt.Sprintf("its tasks ran %.3f ms in the %.3f ms traced, more than the stated quota allows (%.3f ms): it was not the quota in force",
			ms(g.Runtime), ms(span), ms(most)))
	}
	return strings.Join(notes, "; ")
}

// mergeSpans returns spans sorted by start with overlapping ones merged.
func mergeSpans(spans []ThrottleSpan) []ThrottleSpan {
	slices.SortFunc(spans, func(a, b ThrottleSpan) int { return cmp.Compare(a.Start, b.Start) })
	var out []ThrottleSpan
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// KernelCgroupStats is, per group of meta's cpu.stat readings (in the
// order first read), what the kernel counted over the trace from..to (ns;
// kernelStat's rule, the group table's: the difference of two readings
// that bracket it, or one reading of a group made during it); groups whose
// readings do not cover the trace are left out. The period for the one
// reading's rule is the group's recorded one (default 100 ms).
func KernelCgroupStats(meta *trace.Meta, from, to int64) []trace.CgroupStat {
	if meta == nil {
		return nil
	}
	var out []trace.CgroupStat
	seen := map[string]bool{}
	for _, st := range meta.CgroupStats {
		if seen[st.Path] {
			continue
		}
		seen[st.Path] = true
		_, period, _ := groupSettings(st.Path, meta, nil)
		if period <= 0 {
			period = trace.DefaultCfsPeriod
		}
		if k := kernelStat(meta, st.Path, from, to, period); k != nil {
			out = append(out, *k)
		}
	}
	return out
}

// kernelStat is the difference between the first and the last cpu.stat
// reading of path in meta over the trace (or window) from..to, ns (nil:
// none, counters that went backwards, or readings that do not cover it).
//
// A group with one reading (at the end: a group created during the
// capture, which its start did not read) counts from its creation; those
// counts are the capture's when they fit in it: nr_periods counts the
// bandwidth periods in which the group had runnable tasks (one period
// timer expiry each, kernel/sched/fair.c do_sched_cfs_period_timer v6.12),
// so at most span/period + 1 of them lie in a trace of span (to-from) ns. More, and
// the counters predate the capture: nil. (A quota group made by the
// workload read 16 throttled periods, 1442 ms, and no kernel figure.)
func kernelStat(meta *trace.Meta, path string, from, to, period int64) *trace.CgroupStat {
	if meta == nil {
		return nil
	}
	var first, last *trace.CgroupStat
	for i := range meta.CgroupStats {
		if st := &meta.CgroupStats[i]; st.Path == path {
			if first == nil {
				first = st
			}
			last = st
		}
	}
	if first == nil {
		return nil
	}
	// Two readings count what came between them: the counters move once
	// a bandwidth period, so readings that overlap the trace by less than
	// one period say nothing of it. A flight-recorder dump reads the groups
	// when it is written, after its window: the difference of those
	// readings, 0, was shown as the kernel's count of the window (new-user
	// pass 16 F4: "the kernel counted none" beside 12 real throttled
	// periods). Such readings are taken as one reading at the end (below).
	if first != last {
		p := period
		if p <= 0 {
			p = trace.DefaultCfsPeriod
		}
		start := first.Time
		if start == 0 { // read before the first event
			start = from
		}
		if last.Time > 0 && min(last.Time, to)-max(start, from) < p { // (time 0 unknown)
			first = last
		}
	}
	if first == last {
		span := to - from
		if period <= 0 || span <= 0 || first.NrPeriods > uint64(span/period+1) {
			return nil
		}
		if first.Time > 0 && first.Time < to-period {
			// One reading more than a period before the trace's end: at
			// the start of a group removed during the capture, which the
			// end did not read (new-user pass 18 F4: its 0 throttled
			// periods of 3 were shown as the kernel's count beside 59
			// inferred while its hog ran 1.5 s under a 0.4-CPU quota).
			return nil
		}
		d := *first
		return &d
	}
	d, ok := trace.CgroupStatDelta(*first, *last)
	if !ok {
		return nil
	}
	return &d
}

// runtimeBefore returns the on-CPU time of runs (one CPU's, in time
// order, disjoint) before t, given cum[i], the total length of runs[:i].
func runtimeBefore(runs []thrRun, cum []int64, t int64) int64 {
	i := sort.Search(len(runs), func(i int) bool { return runs[i].end > t })
	v := cum[i]
	if i < len(runs) && runs[i].start < t {
		v += t - runs[i].start
	}
	return v
}

// candidate is a starved stretch of a group that may be a throttle; idle:
// found by the idle rule (else by the quota rule).
type candidate struct {
	span ThrottleSpan
	idle bool
}

// filterQuotaCandidates keeps the quota-rule candidates that look like a
// throttle in their own period, and every idle-rule one:
//   - it starts when the task switched in at its end began to wait (or at
//     the gap's start when it waited before): a throttled group waits for
//     the period timer, not for another group's slice;
//   - it ends near a boundary of the period timer: from timerSlack before
//     it (the phase is an estimate) to 2·timerSlack after (periodPhase
//     puts the phase at the earliest end of a cluster up to 2·timerSlack
//     wide: on a loaded machine an unthrottled task may wait a few ms for
//     its CPU; measured with four busy tasks beside the group, its first
//     runs came 2.2-2.3 ms after the earliest), and
//     began more than timerSlack before that boundary (a shorter wait is
//     too short to tell from chance; the kernel's own count of it, if it
//     was one, is a few ms at most): the phase is taken from every
//     candidate, idle-rule and quota-rule, weighed by length; with no
//     idle-rule one, at least two must agree on it (one wait alone cannot
//     tell a period timer from chance, so then none is kept). The period
//     timer keeps its phase while the period stays (start_cfs_bandwidth
//     restarts it with hrtimer_forward_now, kernel/sched/fair.c v6.18), so
//     one phase holds for the whole trace. Taken from the idle-rule
//     throttles alone, a handful of waits decided it over hundreds and
//     moved it as a --rotate series grew (new-user pass 51 F3: one file's
//     window read 28 throttled periods alone and 21 read with a later
//     file; now 28 both ways, and the files' figures add up to the
//     series'. Over the 136 quota'd groups with a cpu.stat reading in our
//     recordings, summed error 54.4 -> 52.2 s, 70 -> 71 within 5 %);
//   - the group used its quota (threshold) from the boundary before that
//     one to the start, counting what it overran the period before.
func (g *thrGroup) filterQuotaCandidates(cands []candidate, ct *CgroupThrottle, usedBefore func(int64) int64, threshold func(from, to int64) int64) []candidate {
	waitFrom := map[int64]int64{} // switch-in time -> earliest start of a delay ending there
	for _, d := range g.delays {
		if f, ok := waitFrom[d.end]; !ok || d.start < f {
			waitFrom[d.end] = d.start
		}
	}
	var ends []ThrottleSpan
	idle := false
	for _, c := range cands {
		ends = append(ends, c.span)
		idle = idle || c.idle
	}
	phase, n := periodPhase(ends, ct.PeriodNS)
	if !idle && n < 2 {
		ends = nil
	}
	kept := cands[:0]
	for _, c := range cands {
		if !c.idle {
			if len(ends) == 0 {
				continue
			}
			a, b := c.span.Start, c.span.End
			if w, ok := waitFrom[b]; ok && w > a {
				a = w
			}
			// The boundary nearest the end: the phase is estimated, so an
			// end a little before it is the same timer's.
			bnd := b - posMod(b-phase, ct.PeriodNS)
			if b-bnd > ct.PeriodNS-timerSlack {
				bnd += ct.PeriodNS
			}
			// Runtime used past the quota in the period before is paid
			// back from this one's (assign_cfs_rq_runtime tops a negative
			// runtime_remaining up first), so it counts as used.
			p0 := bnd - ct.PeriodNS
			if ct.quotaAt(a) <= 0 {
				continue // no limit then
			}
			debt := max(0, usedBefore(p0)-usedBefore(p0-ct.PeriodNS)-ct.quotaAt(p0))
			if b-bnd < -timerSlack || b-bnd > 2*timerSlack || bnd-a <= timerSlack || usedBefore(a)-usedBefore(p0)+debt < threshold(p0, a) {
				continue
			}
			c.span.Start = a
		}
		kept = append(kept, c)
	}
	return kept
}

// above are the throttles of the groups above g with a quota (sorted,
// disjoint): g's tasks wait through them too, but they are those groups'
// throttles, so the parts of g's candidate throttles inside them are not
// g's (clipAbove).
//
// g holds the whole trace (on the report's CPUs); win, the report's time
// window (nil: none), cuts what ct counts: the throttles' parts inside it,
// the periods whose boundary is inside it, the throttled waits of the
// delays that end inside it. It returns the throttles whole, for the
// groups below g.
func (g *thrGroup) analyze(ct *CgroupThrottle, ncpu int64, above []ThrottleSpan, win *schedule.Filter) []ThrottleSpan {
	// The group's busy time (the union of its runs on every CPU), its
	// idle-evidence switch-outs, and per CPU cumulative run time.
	type cpuRuns struct {
		runs []thrRun
		cum  []int64
	}
	var all []thrRun
	var per []cpuRuns
	var evidence []int64
	for _, runs := range g.runs {
		cum := make([]int64, len(runs)+1)
		for i, r := range runs {
			cum[i+1] = cum[i] + r.end - r.start
			all = append(all, r)
			if r.toIdle {
				evidence = append(evidence, r.end)
			}
		}
		per = append(per, cpuRuns{runs, cum})
	}
	slices.SortFunc(all, func(a, b thrRun) int { return cmp.Compare(a.start, b.start) })
	slices.Sort(evidence)
	var busy []ThrottleSpan
	for _, r := range all {
		if n := len(busy); n > 0 && r.start <= busy[n-1].End {
			busy[n-1].End = max(busy[n-1].End, r.end)
			continue
		}
		busy = append(busy, ThrottleSpan{r.start, r.end})
	}
	usedBefore := func(t int64) int64 {
		var v int64
		for _, c := range per {
			v += runtimeBefore(c.runs, c.cum, t)
		}
		return v
	}
	// The quota rule's threshold over [from, to]: the quota less what the
	// other CPUs' cfs_rqs of the group may hold of the period's runtime
	// unused: up to a slice on each other CPU the group ran on then, and
	// min_cfs_rq_runtime on each CPU it did not run on (a cfs_rq that
	// empties keeps that much, __return_cfs_rq_runtime); at least half the
	// quota. Measured on the developer recordings (grpq.q25, and two of
	// our own at 30 and 50 ms quota): the runtime the switches show in a
	// throttled period is 0.89-1.09 × the quota on two CPUs and 0.97-1.0 ×
	// on one, within these bounds.
	threshold := func(from, to int64) int64 {
		n := int64(0)
		for _, c := range per {
			i := sort.Search(len(c.runs), func(i int) bool { return c.runs[i].end > from })
			if i < len(c.runs) && c.runs[i].start < to {
				n++
			}
		}
		held := max(n-1, 0)*BandwidthSlice + max(ncpu-max(n, 1), 0)*minCfsRqRuntime
		q := ct.quotaAt(to)
		return max(q-held, q/2)
	}
	quotaKnown := ct.PeriodNS > 0 && slices.ContainsFunc(append(ct.QuotaReadings, QuotaReading{QuotaNS: ct.QuotaNS}), func(r QuotaReading) bool { return r.QuotaNS > 0 })
	// An autogroup has no quota and the root above it none: a gap in
	// its runs is no throttle (groupSettings).
	// Nor in a prediction whose policy did not model the groups
	// (trace.NotModelledSource): nothing throttled them.
	unlimited := ct.Settings == AutogroupSettings || ct.NotModelled()
	var cands []candidate
	for i := 0; i+1 < len(busy) && !unlimited; i++ {
		a, b := busy[i].End, busy[i+1].Start
		if b <= a {
			continue
		}
		// The earliest idle evidence within one slice before the gap.
		j := sort.Search(len(evidence), func(j int) bool { return evidence[j] >= a-BandwidthSlice })
		var c candidate
		switch {
		case j < len(evidence) && evidence[j] <= a:
			c = candidate{ThrottleSpan{evidence[j], b}, true}
		case quotaKnown && ct.quotaAt(a) > 0 && usedBefore(a)-usedBefore(a-ct.PeriodNS) >= threshold(a-ct.PeriodNS, a):
			c = candidate{ThrottleSpan{a, b}, false}
		default:
			continue
		}
		// One throttle: a task run in between on its way to the
		// throttle (v6.18 lets a task picked from a throttled hierarchy
		// run until it returns to user space) does not end it.
		if n := len(cands); n > 0 && c.span.Start < cands[n-1].span.End {
			cands[n-1].span.End = b
			cands[n-1].idle = cands[n-1].idle || c.idle
			continue
		}
		cands = append(cands, c)
	}
	if quotaKnown && len(cands) > 0 {
		cands = g.filterQuotaCandidates(cands, ct, usedBefore, threshold)
	}
	cands = clipAbove(cands, above)
	if len(cands) == 0 {
		return nil
	}
	// Charge the delays: the part of each inside a throttle; per CPU, the
	// first throttled wait of each throttle starts that cfs_rq's throttled
	// time. A candidate no task of the group waited through is no
	// throttle (the group had nothing to run).
	slices.SortFunc(g.delays, func(a, b thrDelay) int { return cmp.Compare(a.start, b.start) })
	type key struct {
		thr int
		cpu trace.CPU
	}
	// first and last: per throttle and CPU, the first throttled wait's
	// start and the latest end of one. A throttle ends at the latest when
	// the last of its waiting tasks runs again: one that left the group (a
	// move to another cgroup) runs elsewhere, and the gap in the group's
	// runs went on while it was empty (new-user pass 13: an empty second
	// counted as throttled, 29 periods where the kernel counted 23 in
	// all).
	first, last := map[key]int64{}, map[key]int64{}
	for _, d := range g.delays {
		if !d.t.X.underBandwidth() {
			// Known deadline or real-time only after this delay (its
			// first switch-in came later): its waits are no throttle's.
			continue
		}
		k := sort.Search(len(cands), func(k int) bool { return cands[k].span.End > d.start })
		for ; k < len(cands) && cands[k].span.Start < d.end; k++ {
			s := max(d.start, cands[k].span.Start)
			e := min(d.end, cands[k].span.End)
			if e <= s {
				continue
			}
			if d.kept {
				d.t.X.thrNs += e - s
				d.t.X.thrN++
			}
			if d.in {
				ct.ThrottledDelay += e - s
			}
			kk := key{k, d.cpu}
			if f, ok := first[kk]; !ok || s < f {
				first[kk] = s
			}
			last[kk] = max(last[kk], e)
		}
	}
	used := make([]bool, len(cands))
	sel := make([]bool, len(cands)) // a runqueue of win's CPUs waited in it
	ends := make([]int64, len(cands))
	for k := range first {
		used[k.thr] = true
		sel[k.thr] = sel[k.thr] || win.CPU(k.cpu)
		ends[k.thr] = max(ends[k.thr], last[k])
	}
	for k, s := range first {
		// A CPU's group runqueue counts throttled time from its first
		// throttled wait to the end of its own last one (the throttle's
		// end at the latest): the kernel counts a runqueue only while it
		// has queued tasks (v6.6+, "sched: don't account throttle time
		// for empty groups"; v6.18 from the first task sent to limbo),
		// and a pipeline's stages on the other CPU, blocked on the
		// throttled one, add none. Counted to the last wait on any CPU,
		// a quota'd pipeline read 640.8 ms where its cpu.stat counted
		// 340.9 (new-user pass 20 F1; now 341.2, and every other recording
		// with a kernel figure here unchanged but quota-siblings.tv, 3073.3
		// -> 2985.2 ms beside the kernel's 3000.4).
		// (Of a window and some CPUs, its part inside the window, on
		// their runqueues.)
		if s, e, in := win.Clip(s, min(cands[k.thr].span.End, last[k])); in && win.CPU(k.cpu) {
			ct.Throttled += e - s
		}
	}
	var whole []ThrottleSpan
	var counted []bool
	for k, c := range cands {
		if !used[k] {
			continue
		}
		c.span.End = min(c.span.End, ends[k])
		whole = append(whole, c.span)
		counted = append(counted, sel[k])
		s, e, in := win.Clip(c.span.Start, c.span.End)
		if !in || !sel[k] {
			continue
		}
		if c.idle {
			ct.IdleEvidence++
		} else {
			ct.QuotaEvidence++
		}
		ct.Throttles = append(ct.Throttles, ThrottleSpan{s, e})
		ct.ThrottledWall += e - s
	}
	ct.ThrottledPeriods = throttledPeriods(whole, ct.PeriodNS, win, counted)
	return whole
}

// delayIn is how much of the group's delays that the window and CPUs
// select (thrDelay.in) lies inside spans (sorted, merged), for tasks under
// bandwidth control (as analyze charges them).
func (g *thrGroup) delayIn(spans []ThrottleSpan) int64 {
	var sum int64
	for _, d := range g.delays {
		if !d.in || !d.t.X.underBandwidth() {
			continue
		}
		k := sort.Search(len(spans), func(k int) bool { return spans[k].End > d.start })
		for ; k < len(spans) && spans[k].Start < d.end; k++ {
			if e, st := min(d.end, spans[k].End), max(d.start, spans[k].Start); e > st {
				sum += e - st
			}
		}
	}
	return sum
}

// clipAbove removes from the candidates (in time order) the parts inside
// above (sorted, disjoint): an ancestor's throttles. What is left of a
// candidate is kept in pieces, each with the candidate's evidence.
func clipAbove(cands []candidate, above []ThrottleSpan) []candidate {
	if len(above) == 0 {
		return cands
	}
	var out []candidate
	for _, c := range cands {
		start := c.span.Start
		k := sort.Search(len(above), func(k int) bool { return above[k].End > start })
		for ; k < len(above) && above[k].Start < c.span.End; k++ {
			if above[k].Start > start {
				out = append(out, candidate{ThrottleSpan{start, above[k].Start}, c.idle})
			}
			start = max(start, above[k].End)
		}
		if start < c.span.End {
			out = append(out, candidate{ThrottleSpan{start, c.span.End}, c.idle})
		}
	}
	return out
}

// timerSlack is how long after a period boundary the first task of an
// unthrottled group may run and still be taken as unthrottled by that
// boundary's timer: 2 ms, the kernel's min_bandwidth_expiration (the
// slack timer yields to a period timer due within it; fair.c v6.18).
const timerSlack = 2_000_000

// throttledPeriods estimates cpu.stat nr_throttled (in win's time window
// when it has one: the boundaries inside it; of the spans counted says,
// nil: all, the phase found from all): the period timer
// counts a period when it finds the group throttled
// (do_sched_cfs_period_timer, fair.c v6.18), so the count is the number of
// distinct period boundaries that fall inside a throttle (after its start,
// at or before its end). A throttle that the slack timer ended before a
// boundary counts for none. The timer's phase is arbitrary (it starts when
// the group first uses quota), so it is estimated: the phase with the most
// throttle ends in the timerSlack after a boundary. period 0 (unknown)
// assumes the default 100 ms.
func throttledPeriods(spans []ThrottleSpan, period int64, win *schedule.Filter, counted []bool) int64 {
	if len(spans) == 0 {
		return 0
	}
	if period <= 0 {
		period = trace.DefaultCfsPeriod
	}
	best, _ := periodPhase(spans, period)
	mod := func(t int64) int64 { return posMod(t, period) }
	var count int64
	last := int64(-1 << 62)
	for i, sp := range spans {
		if counted != nil && !counted[i] {
			continue
		}
		// The last boundary at or before End, then back while after Start.
		b := sp.End - mod(sp.End-best)
		var n int64
		for ; b > sp.Start; b -= period {
			if b > last && win.Time(b) {
				n++
			}
		}
		count += n
		last = max(last, sp.End-mod(sp.End-best))
	}
	return count
}

// posMod is t mod m in [0, m).
func posMod(t, m int64) int64 { return ((t % m) + m) % m }

// periodPhase estimates the period timer's phase (a time mod period) from
// candidate throttles: among windows of ±timerSlack around each probe's
// end (mod period), the one that the most waiting time falls in, each span
// weighing its length (a throttle waits for the timer, often tens of ms; a
// wait behind another group's slice is short and ends at no particular
// phase); the phase is the earliest end in that window, so that every
// throttle the timer ended ends at or after a boundary. support is how
// many spans end in the window. The probes are the maxPhaseProbes longest
// spans, each checked against every span.
func periodPhase(spans []ThrottleSpan, period int64) (phase int64, support int) {
	if len(spans) == 0 {
		return 0, 0
	}
	probes := slices.Clone(spans)
	slices.SortFunc(probes, func(a, b ThrottleSpan) int { return cmp.Compare(b.End-b.Start, a.End-a.Start) })
	probes = probes[:min(len(probes), maxPhaseProbes)]
	bestW := int64(-1)
	for _, p := range probes {
		rp := posMod(p.End, period)
		var w, early int64
		n := 0
		for _, q := range spans {
			if off := posMod(q.End-rp+timerSlack, period) - timerSlack; off <= timerSlack {
				w += q.End - q.Start
				n++
				early = min(early, off)
			}
		}
		if w > bestW {
			phase, support, bestW = posMod(rp+early, period), n, w
		}
	}
	return phase, support
}

// maxPhaseProbes bounds periodPhase's work (measured: 1024 probes over 10⁴
// spans is 10⁷ steps, a few ms).
const maxPhaseProbes = 1024

// QuotaDiffers says, of several traces merged whose quotas of the group
// differ, each trace's ("differs between the traces: 30ms/100ms, max (no
// limit)"); "" otherwise.
func (g *CgroupThrottle) QuotaDiffers() string {
	if len(g.QuotasOfTraces) < 2 {
		return ""
	}
	parts := make([]string, len(g.QuotasOfTraces))
	for i, r := range g.QuotasOfTraces {
		parts[i] = "max (no limit)"
		if r.QuotaNS > 0 {
			parts[i] = durText(r.QuotaNS) + "/" + durText(r.PeriodNS)
		}
	}
	return "differs between the traces: " + strings.Join(parts, ", ")
}

// addQuota notes, merging group g into m, g's quota in list (m's first)
// when it differs from m's and from those already in it: the quotas of
// the traces (CgroupThrottle.QuotasOfTraces).
func addQuota(list []QuotaReading, m, g *CgroupThrottle) []QuotaReading {
	if g.QuotaNS == m.QuotaNS && (g.QuotaNS <= 0 || g.PeriodNS == m.PeriodNS) && len(list) == 0 {
		return nil
	}
	if len(list) == 0 {
		list = []QuotaReading{{QuotaNS: m.QuotaNS, PeriodNS: m.PeriodNS}}
	}
	r := QuotaReading{QuotaNS: g.QuotaNS, PeriodNS: g.PeriodNS}
	if !slices.ContainsFunc(list, func(x QuotaReading) bool {
		return x.QuotaNS == r.QuotaNS && (r.QuotaNS <= 0 || x.PeriodNS == r.PeriodNS)
	}) {
		list = append(list, r)
	}
	return list
}

// asSubtree returns the line of group g of a trace (its lines: groups)
// on the basis of a Subtree line: its own tasks' and every group's below
// it, summed (run time, tasks, delays, the largest delay, throttled
// waits), for setting it beside or merging it with another trace's
// line of the group that counted its subtree because its quota limits
// it there. false when a group below it is itself a Subtree line (its
// sum would count that line's groups twice).
func asSubtree(g *CgroupThrottle, groups []CgroupThrottle) (CgroupThrottle, bool) {
	out := *g
	if g.Subtree {
		return out, true
	}
	for i := range groups {
		b := &groups[i]
		if b.Path == g.Path || !schedule.CgroupBelow(b.Path, g.Path) {
			continue
		}
		if b.Subtree {
			return CgroupThrottle{}, false
		}
		out.addTasks(b)
	}
	if out.Span > 0 {
		out.CPUs = float64(out.Runtime) / float64(out.Span)
	}
	out.Subtree = true
	return out, true
}

// addTasks adds the figures of g's tasks to m's: run time, tasks,
// delays, their sum and largest, and the throttled waits.
func (m *CgroupThrottle) addTasks(g *CgroupThrottle) {
	m.Runtime += g.Runtime
	m.Tasks += g.Tasks
	m.Delays += g.Delays
	m.SumDelay += g.SumDelay
	m.MaxDelay = max(m.MaxDelay, g.MaxDelay)
	m.ThrottledDelay += g.ThrottledDelay
}

// sameBasis puts the lines of parts (one list per trace) of a group that
// is a Subtree line in some trace and not in another on the Subtree
// basis in every trace (asSubtree): one trace's quota made its line count
// the groups below it, another's did not (new-user pass 24 F1:
// compare divided a subtree's run time by the group's own, B/A 0.399
// where the subtree's was 1.05, and `latency A B` added them). A line
// that cannot be rebuilt keeps its basis and is marked MixedBasis.
func sameBasis(parts [][]CgroupThrottle) [][]CgroupThrottle {
	sub := map[string]bool{}
	for _, p := range parts {
		for i := range p {
			if p[i].Subtree {
				sub[p[i].Path] = true
			}
		}
	}
	if len(sub) == 0 {
		return parts
	}
	out := make([][]CgroupThrottle, len(parts))
	for k, p := range parts {
		out[k] = slices.Clone(p)
		for i := range out[k] {
			g := &out[k][i]
			if !sub[g.Path] || g.Subtree {
				continue
			}
			if r, ok := asSubtree(&p[i], p); ok {
				*g = r
			} else {
				g.MixedBasis = true
			}
		}
	}
	return out
}

// MergeCgroupThrottles merges the groups of several traces by path: sums,
// the largest delay, the throttles concatenated; the settings of the first
// trace that knows them.
func MergeCgroupThrottles(parts ...[]CgroupThrottle) []CgroupThrottle {
	parts = sameBasis(parts)
	idx := map[string]int{}
	var out []CgroupThrottle
	for _, p := range parts {
		for _, g := range p {
			i, ok := idx[g.Path]
			if !ok {
				idx[g.Path] = len(out)
				g.Throttles = slices.Clone(g.Throttles)
				g.merge.parts = 1
				if g.Kernel != nil {
					g.merge.kernelParts, g.merge.kPeriods, g.merge.kThrottled = 1, g.ThrottledPeriods, g.Throttled
				}
				out = append(out, g)
				continue
			}
			m := &out[i]
			m.merge.parts++
			if g.Kernel != nil {
				m.merge.kernelParts++
				m.merge.kPeriods += g.ThrottledPeriods
				m.merge.kThrottled += g.Throttled
			}
			m.addTasks(&g)
			m.CPUTime += g.CPUTime
			m.ThrottledPeriods += g.ThrottledPeriods
			m.Throttled += g.Throttled
			m.ThrottledWall += g.ThrottledWall
			m.IdleEvidence += g.IdleEvidence
			m.QuotaEvidence += g.QuotaEvidence
			m.Throttles = append(m.Throttles, g.Throttles...)
			// CPUs used: over the traces' spans together (set below).
			// Summed, a single-threaded hog of two traces read 1.158
			// CPUs, a group under a 0.3-CPU quota 1.315 (new-user pass
			// 23 F6).
			m.Span += g.Span
			if g.Kernel != nil {
				if m.Kernel == nil {
					m.Kernel = &trace.CgroupStat{Path: g.Path}
				}
				m.KernelPredicted = m.KernelPredicted || g.KernelPredicted
				k := *m.Kernel
				k.NrPeriods += g.Kernel.NrPeriods
				k.NrThrottled += g.Kernel.NrThrottled
				k.ThrottledNS += g.Kernel.ThrottledNS
				k.NrBursts += g.Kernel.NrBursts
				k.BurstNS += g.Kernel.BurstNS
				m.Kernel = &k
			}
			if m.WeightSettings == "" {
				m.Weight, m.Shares, m.Nice, m.WeightSettings = g.Weight, g.Shares, g.Nice, g.WeightSettings
			}
			m.Autogroup = m.Autogroup || g.Autogroup
			m.Predicted = m.Predicted || g.Predicted
			if m.Settings == "unknown" && g.Settings != "unknown" {
				m.QuotaNS, m.PeriodNS, m.Settings = g.QuotaNS, g.PeriodNS, g.Settings
			} else if g.Settings != "unknown" {
				m.QuotasOfTraces = addQuota(m.QuotasOfTraces, m, &g)
			}
			m.KernelWholeTrace = m.KernelWholeTrace || g.KernelWholeTrace
			m.Subtree = m.Subtree || g.Subtree
			m.ThrottledBy, m.AlsoUnder = cmp.Or(m.ThrottledBy, g.ThrottledBy), cmp.Or(m.AlsoUnder, g.AlsoUnder)
			if m.AlsoUnder == m.ThrottledBy {
				// (One trace's quota made the ancestor its throttler,
				// another's "also under" it: "under /p's quota; also
				// under /p's quota".)
				m.AlsoUnder = ""
			}
			m.MixedBasis = m.MixedBasis || g.MixedBasis
		}
	}
	for i := range out {
		g := &out[i]
		if mg := g.merge; mg.kernelParts > 0 && mg.kernelParts < mg.parts {
			// The kernel's readings of some traces against the inference
			// of those traces alone (new-user pass 72 F1: 71 periods of
			// two traces set against one trace's 68, "114 %", and the
			// quota change blamed).
			g.KernelOf = fmt.Sprintf("%d of %d traces", mg.kernelParts, mg.parts)
			if !g.KernelWholeTrace {
				c := *g
				c.ThrottledPeriods, c.Throttled = mg.kPeriods, mg.kThrottled
				if note := kernelDisagrees(&c); note != "" {
					g.KernelNote = "of the traces with readings, " + note
				}
			}
		} else if !g.KernelWholeTrace {
			g.KernelNote = kernelDisagrees(g) // of the sums
		}
		if out[i].Span > 0 {
			out[i].CPUs = float64(out[i].Runtime) / float64(out[i].Span)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// DelayCgroups holds, per task, the cgroup of each of its delays, in the
// order they ended (ns start and end): a task that moves between groups
// during the trace (written into a v1 group's tasks file for a while) is
// throttled only by the group it was in, which its last table row does not
// say. CollectDelayCgroups fills it during a latency pass.
type DelayCgroups map[trace.TID][]DelayCgroup

// DelayCgroup is one delay of a task and its task group's cgroup id.
type DelayCgroup struct {
	Start, End int64
	Cgroup     uint64
}

// CollectDelayCgroups returns hooks for LatencyOptions.Hooks that record
// the cgroup of every measured delay into the DelayCgroups it returns.
func CollectDelayCgroups() (schedule.Hooks, DelayCgroups) {
	dc := DelayCgroups{}
	return schedule.Hooks{Delay: func(d *schedule.Delay) {
		if !d.Excluded && d.Task.Cgroup != 0 && d.Task.TID > 0 {
			dc[d.Task.TID] = append(dc[d.Task.TID], DelayCgroup{d.Start, d.End, d.Task.Cgroup})
		}
	}}, dc
}

// at returns the cgroup of tid's delay that overlaps [start, end] (ns; the
// one ending at end when start == end), if one was recorded.
func (dc DelayCgroups) at(tid trace.TID, start, end int64) (uint64, bool) {
	ds := dc[tid]
	k := sort.Search(len(ds), func(k int) bool { return ds[k].End >= start })
	for ; k < len(ds) && ds[k].Start <= end; k++ {
		if ds[k].End >= start {
			return ds[k].Cgroup, true
		}
	}
	return 0, false
}

// groupOf returns the cgroup of task tid from start to end: its delay's
// there (dc), else its last table row's (res.TaskRows; a reused TID takes
// its last identity's).
func (res *LatencyResult) groupOf(dc DelayCgroups, rows map[trace.TID]uint64, tid trace.TID, start, end int64) (uint64, bool) {
	if g, ok := dc.at(tid, start, end); ok {
		return g, true
	}
	g, ok := rows[tid]
	return g, ok
}

// rowGroups maps each task to its last table row's cgroup.
func (res *LatencyResult) rowGroups() map[trace.TID]uint64 {
	m := map[trace.TID]uint64{}
	for _, r := range res.TaskRows {
		if r.TID > 0 && r.Cgroup != 0 {
			m[r.TID] = r.Cgroup
		}
	}
	return m
}

// ThrottledWithin returns a function that says how much of task tid's
// time from start to end (ns) its task group spent throttled, by res's
// inferred throttles (Cgroups) and the group the task was in then (dc,
// from the same pass: CollectDelayCgroups; else its last row's). timehist
// --throttled marks rows with it.
func (res *LatencyResult) ThrottledWithin(dc DelayCgroups) func(tid trace.TID, start, end int64) int64 {
	spans := map[uint64][]ThrottleSpan{}
	for id, thr := range res.throttlesByID() {
		sp := slices.Clone(thr)
		slices.SortFunc(sp, func(a, b ThrottleSpan) int { return cmp.Compare(a.Start, b.Start) })
		spans[id] = sp
	}
	rows := res.rowGroups()
	return func(tid trace.TID, start, end int64) int64 {
		g, ok := res.groupOf(dc, rows, tid, start, end)
		if !ok {
			return 0
		}
		sp := spans[g]
		var ns int64
		k := sort.Search(len(sp), func(k int) bool { return sp[k].End > start })
		for ; k < len(sp) && sp[k].Start < end; k++ {
			ns += max(0, min(end, sp[k].End)-max(start, sp[k].Start))
		}
		return ns
	}
}

// throttlesByID returns the throttles of each cgroup id of res.Cgroups
// that has some: its own and those of every ancestor with a quota, whose
// throttles stop it too (a group without a quota has none of its own:
// CgroupThrottle.ThrottledBy), in time order.
func (res *LatencyResult) throttlesByID() map[uint64][]ThrottleSpan {
	byPath := map[string]*CgroupThrottle{}
	for i := range res.Cgroups {
		byPath[res.Cgroups[i].Path] = &res.Cgroups[i]
	}
	out := map[uint64][]ThrottleSpan{}
	for _, g := range res.Cgroups {
		if g.Cgroup == 0 {
			continue
		}
		thr := slices.Clone(g.Throttles)
		for p := g.Path; strings.LastIndexByte(p, '/') > 0; {
			p = p[:strings.LastIndexByte(p, '/')]
			if a := byPath[p]; a != nil && a.QuotaNS > 0 {
				thr = append(thr, a.Throttles...)
			}
		}
		if len(thr) > 0 {
			out[g.Cgroup] = mergeSpans(thr)
		}
	}
	return out
}

// unnamedPrefix is the path CgroupThrottle gives a cgroup id the trace
// names no path for.
const unnamedPrefix = "cgroup id "

// unnamedCgroups counts the groups without a path and names the first.
func unnamedCgroups(groups []CgroupThrottle) (n int, first string) {
	for _, g := range groups {
		if strings.HasPrefix(g.Path, unnamedPrefix) {
			if n == 0 {
				first = g.Path
			}
			n++
		}
	}
	return n, first
}

// ThrottleEnds returns a function that says whether task tid's switch-in at
// at (ns) ended a throttle of its task group (the throttle's End is the
// group's first run after it), and how long that throttle was. map
// --throttled marks those switch-ins.
func (res *LatencyResult) ThrottleEnds(dc DelayCgroups) func(tid trace.TID, at int64) (int64, bool) {
	ends := map[uint64]map[int64]int64{}
	for id, thr := range res.throttlesByID() {
		for _, t := range thr {
			if ends[id] == nil {
				ends[id] = map[int64]int64{}
			}
			ends[id][t.End] = t.End - t.Start
		}
	}
	rows := res.rowGroups()
	return func(tid trace.TID, at int64) (int64, bool) {
		g, ok := res.groupOf(dc, rows, tid, at, at)
		if !ok {
			return 0, false
		}
		ns, ok := ends[g][at]
		return ns, ok
	}
}

// MarshalJSON writes g with its paths (Path, ThrottledBy, AlsoUnder) as
// the rows' names are written (termsafe.ValidUTF8): a cgroup's name may
// hold any byte but '/', and encoding/json made each byte of invalid
// UTF-8 U+FFFD (new-user pass 103 F2: "/n3/\ufffd" where the tables said
// /n3/\xff).
func (g CgroupThrottle) MarshalJSON() ([]byte, error) {
	type plain CgroupThrottle // (without this method)
	p := plain(g)
	p.Path, p.ThrottledBy, p.AlsoUnder = termsafe.ValidUTF8(p.Path), termsafe.ValidUTF8(p.ThrottledBy), termsafe.ValidUTF8(p.AlsoUnder)
	return json.Marshal(p)
}
