package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// StatsOptions tune ComputeStats.
type StatsOptions struct {
	// Buckets > 0 asks for time series (per-CPU utilization and runqueue
	// length) over that many equal time buckets spanning the trace.
	Buckets int
	// KeepLossy keeps delays and runs that overlap a window of lost events
	// (by default they are left out and counted in Lossy*; see package
	// trace/schedule).
	KeepLossy bool
	// Filter, when not nil, selects the CPUs, window and tasks the
	// statistics cover (see schedule.Filter): Start and End become the
	// window's, utilization and runqueues those of its CPUs inside it,
	// delays and migrations those of its tasks.
	Filter *schedule.Filter
}

// Stats is the system view of a trace: per-CPU utilization, runqueue
// length, migrations and scheduling-delay histograms. Times are ns.
type Stats struct {
	// Start and End are the times (ns) of the first and last scheduler
	// event (sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
	// sched_migrate_task, sched_stat_runtime, or a lost-events notice):
	// perf's fork/comm/exit records, written before the tracepoints were
	// enabled, do not stretch the span. Without any such event, the first
	// and last event of nonzero time.
	Start    int64 `json:"start_ns"`
	End      int64 `json:"end_ns"`
	Duration int64 `json:"duration_ns"` // End - Start
	// TraceStart and TraceEnd are Start and End without the filter's time
	// window (ns): the whole trace's span, which Events, Tasks and
	// TasksNamed count (they are not filtered).
	TraceStart int64 `json:"trace_start_ns"`
	TraceEnd   int64 `json:"trace_end_ns"`
	Events     int64 `json:"events"`
	// Tasks counts the task identities in a scheduler event (switched,
	// woken, forked or accounted: schedule.Task.Scheduled), as the replay
	// model does; TasksNamed every identity the trace names, including the
	// tasks perf's start-up records list that never ran. Idle is excluded.
	Tasks      int `json:"tasks"`
	TasksNamed int `json:"tasks_named"`
	// RecordedCPUs counts the CPUs with events in the whole trace,
	// whatever the filter (ObservedCPUs counts the view's).
	RecordedCPUs int `json:"recorded_cpus"`

	CPUs       []StatsCPU `json:"cpus"`
	Migrations int64      `json:"migrations"` // sched_migrate_task events
	// MigrationsUnknown: the trace has no sched_migrate_task event though a
	// task ran on more than one CPU: the capture did not record them
	// (perf record -e sched:sched_switch alone), and Migrations and the
	// CPUs' counts are unknown, not 0 (new-user pass 46 F1).
	MigrationsUnknown bool `json:"migrations_unknown,omitempty"`
	// NoWakeups: the trace has sched_switch events and no sched_waking or
	// sched_wakeup: WakeupDelays holds none because none could be
	// measured, Delays holds preemptions only, and the runqueues count
	// only preempted tasks (a warning says so; pass 46 F1).
	NoWakeups bool `json:"no_wakeups,omitempty"`

	// Delays holds every scheduling delay (wakeup or preemption to
	// switch-in); WakeupDelays and PreemptDelays split it by cause.
	Delays        StatsHistogram `json:"delays"`
	WakeupDelays  StatsHistogram `json:"wakeup_delays"`
	PreemptDelays StatsHistogram `json:"preempt_delays"`

	// LossyDelays and LossyRuns count the delays and task runs that
	// overlapped a window of lost events and are left out (unless
	// StatsOptions.KeepLossy); LossyRunNs is those runs' time (ns).
	LossyDelays int64 `json:"lossy_delays,omitempty"`
	// UnrecordedDelays counts the delays left out because the task may
	// have run meanwhile on a CPU the capture left out
	// (schedule.Delay.Unrecorded); not in LossyDelays.
	UnrecordedDelays int64 `json:"unrecorded_delays,omitempty"`
	LossyRuns        int64 `json:"lossy_runs,omitempty"`
	LossyRunNs       int64 `json:"lossy_run_ns,omitempty"`

	// Series is set when StatsOptions.Buckets > 0.
	Series *StatsSeries `json:"series,omitempty"`

	Warnings []trace.Warning `json:"warnings,omitempty"`
}

// StatsCPU describes one CPU.
type StatsCPU struct {
	CPU trace.CPU `json:"cpu"`
	// Busy is the time (ns) the CPU is known to have run a task other than
	// idle: runs whose switch-in and switch-out are recorded, or whose
	// switch-in is dated by the task's first sched_stat_runtime
	// (trace/schedule's Known and Recovered runs). Observed is the time
	// from its first such run (normally its first sched_switch) to the end
	// of the trace. Unknown is the part of Observed the trace cannot
	// attribute (switches missing, events lost): it is never counted as
	// busy.
	Busy     int64 `json:"busy_ns"`
	Observed int64 `json:"observed_ns"`
	Unknown  int64 `json:"unknown_ns"`
	// Utilization = Busy / Observed, 0..1: a lower bound when Unknown > 0.
	Utilization float64 `json:"utilization"`
	// UnknownShare = Unknown / Observed, 0..1: how much of Observed the
	// Utilization cannot tell busy from idle (0 when Observed is 0).
	UnknownShare float64 `json:"unknown_share"`
	// Unobserved: the CPU has no recorded run (no sched_switch on it: a
	// CPU the capture left out, or known only as a wakeup's target or a
	// migration's end): nothing on it is measured. In JSON its busy_ns,
	// observed_ns, unknown_ns, utilization, unknown_share, runqueue_avg,
	// runqueue_max, idle_waiting_ns and switches are null (unknown, not 0);
	// migrations_in/out count what the recorded CPUs saw.
	Unobserved bool `json:"unobserved,omitempty"`
	// RunqueueUnknown: the recording left out some CPU of the machine
	// (perf record -C, record --cpu), so a task queued here may have been
	// pulled there and run: RunqueueAvg, RunqueueMax and IdleWaiting are
	// not measured (null in JSON). A -C 0 capture read a runqueue of 3.4
	// tasks and 44 % of CPU 0's time idle with tasks waiting where the
	// whole machine's capture of the same run had 2.0 tasks and 0.3 %.
	RunqueueUnknown bool `json:"runqueue_unknown,omitempty"`
	// RunqueueLost: the CPU's observed time lies wholly in its lost
	// windows (statsStepMean), so what waited on it is not known either:
	// RunqueueAvg, RunqueueMax and IdleWaiting are not measured (null in
	// JSON). A cut file's CPU 1, unobserved through a 12 ms window, read
	// a runqueue of 0 tasks where the whole trace's was 45 (new-user pass
	// 60 F4).
	RunqueueLost bool `json:"runqueue_lost,omitempty"`
	// RunqueueAvg is the time-weighted mean number of tasks waiting on the
	// CPU's runqueue (runnable, not running) over its observed time less
	// its lost windows (while the CPU's events are missing, so is what
	// waited there); RunqueueMax its maximum there.
	RunqueueAvg float64 `json:"runqueue_avg"`
	RunqueueMax int     `json:"runqueue_max"`
	// IdleWaiting is the time (ns) the CPU ran no task while its runqueue
	// held runnable ones: a task group out of CPU quota (throttled: its
	// tasks stay runnable while the CPU idles), or a switch-in the trace
	// lacks. It is why a CPU can show a runqueue of 1.3 tasks at 16 %
	// utilization.
	IdleWaiting int64 `json:"idle_waiting_ns"`
	Switches    int64 `json:"switches"`       // sched_switch events recorded on the CPU
	MigrateIn   int64 `json:"migrations_in"`  // tasks moved to this CPU
	MigrateOut  int64 `json:"migrations_out"` // tasks moved away from it
}

// StatsHistogram is a log2 histogram of delays in microseconds, with the
// buckets of bcc/libbpf-tools runqlat (libbpf-tools/runqlat.h: [0, 2),
// [2, 4), [4, 8), ... us; the delay in ns is divided by 1000 first, as
// runqlat does). Buckets lists every bucket up to the highest non-empty one.
type StatsHistogram struct {
	Count   int64         `json:"count"`
	Sum     int64         `json:"sum_ns"`
	Max     int64         `json:"max_ns"`
	Buckets []StatsBucket `json:"buckets"`
}

// StatsBucket counts delays of Low..High microseconds (both inclusive).
type StatsBucket struct {
	Low   int64 `json:"low_us"`
	High  int64 `json:"high_us"`
	Count int64 `json:"count"`
}

// StatsLog2Bucket returns the runqlat bucket index of a delay of ns
// nanoseconds: 0 for 0..1 us, k for 2^k..2^(k+1)-1 us.
func StatsLog2Bucket(ns int64) int {
	us := ns / 1000
	if us < 2 {
		return 0
	}
	return bits.Len64(uint64(us)) - 1
}

// Add counts one delay of ns nanoseconds.
func (h *StatsHistogram) Add(ns int64) {
	if ns < 0 {
		ns = 0
	}
	b := StatsLog2Bucket(ns)
	for len(h.Buckets) <= b {
		k := len(h.Buckets)
		lo := int64(1) << k
		if k == 0 {
			lo = 0
		}
		h.Buckets = append(h.Buckets, StatsBucket{Low: lo, High: int64(1)<<(k+1) - 1})
	}
	h.Buckets[b].Count++
	h.Count++
	h.Sum += ns
	if ns > h.Max {
		h.Max = ns
	}
}

// StatsSeries holds time series over equal buckets: bucket i covers
// [Start + i*Width, Start + (i+1)*Width).
type StatsSeries struct {
	Start int64 `json:"start_ns"`
	Width int64 `json:"width_ns"`
	// Utilization[c][i] is the busy fraction (0..1) of CPUs[c] in bucket i.
	CPUs        []trace.CPU `json:"cpus"`
	Utilization [][]float64 `json:"utilization"`
	// Unknown[c][i] is the fraction of bucket i in which the trace cannot
	// say whether CPUs[c] was busy (never counted in Utilization).
	Unknown [][]float64 `json:"unknown"`
	// Runqueue[c][i] is the time-weighted mean runqueue length of CPUs[c]
	// over the observed part of bucket i, RunqueueMax[c][i] its maximum;
	// both 0 in a bucket the trace did not observe at all (Unknown 1).
	Runqueue    [][]float64 `json:"runqueue"`
	RunqueueMax [][]int     `json:"runqueue_max"`
}

type statsStep struct {
	at int64
	n  int
}

type statsSpan struct{ start, end int64 }

// ComputeStats reads src to the end (it does not close it) and returns its
// system statistics. Errors are the source's, wrapped.
func ComputeStats(src trace.Source, opts StatsOptions) (*Stats, error) {
	c := newStatsCollector(opts, src.Meta())
	if err := c.b.Run(src); err != nil {
		return nil, err
	}
	return c.result(src.Meta()), nil
}

// statsCollector gathers Stats from events fed one by one, so that another
// analysis (the HTML report's latency table) can read the same stream.
type statsCollector struct {
	opts   StatsOptions
	st     *Stats
	b      *schedule.Builder
	rq     map[trace.CPU][]statsStep
	slices map[trace.CPU][]statsSpan
	unk    map[trace.CPU][]statsSpan
	migIn  map[trace.CPU]int64
	migOut map[trace.CPU]int64
	// ranOn is the CPU each task first ran on, and moved says a task ran
	// on another CPU later (a migration, recorded or not).
	ranOn map[*schedule.Task]trace.CPU
	moved bool
	// selectedRan: a run of a task the filters select, in their window
	// and on their CPUs (with --cgroup, in the group at that run): the
	// filters matched something even with no delay or migration to count.
	selectedRan bool
}

func newStatsCollector(opts StatsOptions, m *trace.Meta) *statsCollector {
	c := &statsCollector{
		opts: opts, st: &Stats{},
		rq: map[trace.CPU][]statsStep{}, slices: map[trace.CPU][]statsSpan{}, unk: map[trace.CPU][]statsSpan{},
		migIn: map[trace.CPU]int64{}, migOut: map[trace.CPU]int64{}, ranOn: map[*schedule.Task]trace.CPU{},
	}
	st := c.st
	h := schedule.Hooks{
		Delay: func(d *schedule.Delay) {
			if d.Unrecorded {
				st.UnrecordedDelays++
				return
			}
			if d.Excluded {
				st.LossyDelays++
				return
			}
			st.Delays.Add(d.End - d.Start)
			if d.Cause == schedule.CausePreempted {
				st.PreemptDelays.Add(d.End - d.Start)
			} else {
				st.WakeupDelays.Add(d.End - d.Start)
			}
		},
		Runqueue: func(cpu trace.CPU, at int64, n int) {
			c.rq[cpu] = append(c.rq[cpu], statsStep{at, n})
		},
		Migrate: func(_ int64, _ *schedule.Task, from, to trace.CPU) {
			st.Migrations++
			if from >= 0 {
				c.migOut[from]++
			}
			if to >= 0 {
				c.migIn[to]++
			}
		},
	}
	// Runs: for the series, and for IdleWaiting (an Unknown run is not
	// idle).
	h.Run = func(r *schedule.Run) {
		switch {
		case r.Quality == schedule.Unknown:
			c.unk[r.CPU] = append(c.unk[r.CPU], statsSpan{r.Start, r.End})
		case r.Task != nil && r.Task.TID != 0:
			c.slices[r.CPU] = append(c.slices[r.CPU], statsSpan{r.Start, r.End})
			if !c.moved {
				if first, ok := c.ranOn[r.Task]; !ok {
					c.ranOn[r.Task] = r.CPU
				} else if first != r.CPU {
					c.moved, c.ranOn = true, nil
				}
			}
			if f := opts.Filter; !c.selectedRan && f.Active() && f.CPU(r.CPU) && f.Task(r.Task) {
				_, _, c.selectedRan = f.Clip(r.Start, r.End)
			}
		}
	}
	// (perf record -C: the CPU list from the Meta at the first event,
	// schedule.Options.Meta.)
	c.b = schedule.New(schedule.Options{KeepLossy: opts.KeepLossy, Filter: opts.Filter, Meta: m}, h)
	return c
}

func (c *statsCollector) observe(e *trace.Event) { c.b.Observe(e) }

// result ends the pass and returns the statistics; m (may be nil) gives
// the reader's warnings.
func (c *statsCollector) result(m *trace.Meta) *Stats {
	b, st := c.b, c.st
	b.Finish()
	if m != nil {
		st.Warnings = m.Warnings.List()
	}
	st.Start, st.End = b.Span()
	st.TraceStart, st.TraceEnd = b.Observed()
	st.Events = b.C.Events
	st.Duration = st.End - st.Start
	st.LossyRuns, st.LossyRunNs = b.C.LossyRuns, b.C.LossyRunNs
	for _, t := range b.Tasks() {
		if t.TID == 0 {
			continue
		}
		st.TasksNamed++
		if t.Scheduled() {
			st.Tasks++
		}
	}
	cpus, stats := b.CPUs()
	for i, cpu := range cpus {
		cs := stats[i]
		sc := StatsCPU{CPU: cpu, Busy: cs.Busy, Switches: cs.Switches, MigrateIn: c.migIn[cpu], MigrateOut: c.migOut[cpu]}
		if cs.HaveSeen {
			sc.Observed = max(st.End-cs.SeenFrom, 0)
			// Busy and unknown runs never overlap in an ordered trace;
			// events out of order (a damaged file's blocks swapped: new-
			// user pass 42 F2, 5708.6 busy + 539.0 unknown of 5733.5 ms
			// observed) can make them, and the reader's warnings say so.
			// The overlap counts once, as busy: Busy + Unknown <=
			// Observed.
			sc.Busy = min(sc.Busy, sc.Observed)
			sc.Unknown = min(cs.UnknownObserved, sc.Observed-sc.Busy)
			// Lost windows before the CPU's first run (a reader that
			// dropped the CPU's first events as damaged: new-user pass
			// 93 F5, 93 events of a trace.dat's first page) are time
			// the trace held but could not show: observed, unknown.
			if pre := lostBefore(b.Lost(), cpu, st.Start, cs.SeenFrom); pre > 0 {
				sc.Observed += pre
				sc.Unknown += pre
			}
		}
		if sc.Observed > 0 {
			sc.Utilization = float64(sc.Busy) / float64(sc.Observed)
			sc.UnknownShare = float64(sc.Unknown) / float64(sc.Observed)
		}
		sc.Unobserved = !cs.HaveSeen
		from := st.Start
		if cs.HaveSeen {
			from = max(from, cs.SeenFrom)
		}
		var lost []statsSpan
		for _, w := range b.Lost() {
			if w.CPU == cpu || w.CPU < 0 {
				lost = append(lost, statsSpan{w.Start, w.End})
			}
		}
		var measured bool
		sc.RunqueueAvg, sc.RunqueueMax, measured = statsStepMean(c.rq[cpu], lost, from, st.End)
		sc.IdleWaiting = statsIdleWaiting(c.rq[cpu], c.slices[cpu], c.unk[cpu], st.End)
		if !measured && !sc.Unobserved {
			sc.RunqueueLost = true
			sc.RunqueueAvg, sc.RunqueueMax, sc.IdleWaiting = 0, 0, 0
		}
		st.CPUs = append(st.CPUs, sc)
	}
	// The recording's CPUs, not the --cpu view's (new-user pass 33 F5:
	// --cpu 0 of a whole-machine recording hid the runqueue, saying the
	// recording left CPUs out).
	st.RecordedCPUs = b.RecordedCPUs()
	if observed := st.RecordedCPUs; m != nil && m.NrCPUs > 0 && observed > 0 && observed < m.NrCPUs {
		for i := range st.CPUs {
			st.CPUs[i].RunqueueUnknown = true
		}
	}
	if c.opts.Buckets > 0 && st.Duration > 0 {
		st.Series = statsMakeSeries(cpus, c.slices, c.unk, c.rq, st.Start, st.End, c.opts.Buckets)
	}
	if f := c.opts.Filter; f.Active() && st.Delays.Count == 0 && st.Migrations == 0 {
		// The answer, which the command prints first: an empty histogram
		// under an unfiltered-looking CPU table said nothing.
		st.Warnings = append(st.Warnings, trace.Warning{Key: "stats-empty", Count: 1, Message: statsNoMatch(b, f, m, c.selectedRan, b.C.SchedEvents, b.C.Switches)})
	} else {
		var x NoMatch
		x.First, x.Last = b.Observed()
		if w, ok := x.WindowNote(f); ok {
			st.Warnings = append(st.Warnings, w)
		}
	}
	st.Warnings = append(st.Warnings, ScheduleWarnings(&b.C)...)
	if b.C.Switches > 0 && b.C.Wakeups == 0 {
		st.NoWakeups = true
		st.Warnings = append(st.Warnings, trace.Warning{Key: "no-wakeups", Count: 1,
			Message: "the trace records no sched_waking or sched_wakeup events: no delay after a wakeup can be measured (the histogram's 0 is unknown, not none), the delays are preemptions only, and the runqueues count only preempted tasks (lower bounds); record with perf sched record or traceview record"})
	}
	if st.Migrations == 0 && c.moved && b.C.MigrateEvents == 0 {
		// (A trace that records them, filtered to tasks or a window that
		// did not migrate, has 0: new-user pass 87 F4.)
		st.MigrationsUnknown = true
		st.Warnings = append(st.Warnings, trace.Warning{Key: "no-migrations", Count: 1,
			Message: "the trace records no sched_migrate_task events, though tasks ran on more than one CPU: the migrations are unknown (-), not 0; record with perf sched record or traceview record"})
	}
	if st.UnrecordedDelays > 0 {
		st.Warnings = append(st.Warnings, trace.Warning{Key: "delay-unrecorded-cpu", Count: int(st.UnrecordedDelays), CountInMessage: true, Message: unrecordedMessage(st.UnrecordedDelays)})
	}
	if st.LossyDelays > 0 || st.LossyRuns > 0 {
		w := trace.Warning{Key: "lossy-excluded", Count: int(st.LossyDelays + st.LossyRuns), CountInMessage: true,
			Message: fmt.Sprintf("%s and %s (%.3f ms) overlapped lost events and are not counted (--keep-lossy keeps them)",
				plural(int(st.LossyDelays), "delay", "delays"), plural(int(st.LossyRuns), "task run", "task runs"), float64(st.LossyRunNs)/1e6)}
		if st.LossyDelays > st.Delays.Count {
			// Most delays left out: the answer to "why so few delays",
			// printed in full, as latency's (LossyMostKey; new-user pass
			// 60 F3: "0 delays" with 162 left out, behind "7 more
			// warnings").
			w.Key = LossyMostKey
			w.Message += fmt.Sprintf(": more delays than the histogram keeps (%d)", st.Delays.Count)
		}
		st.Warnings = append(st.Warnings, w)
	}
	return st
}

// statsIdleWaiting returns the time (ns) up to end during which the
// runqueue steps say a task waited and none of the runs (busy, unknown;
// each list in time order, not overlapping) covers: the CPU idled with
// tasks runnable.
func statsIdleWaiting(steps []statsStep, busy, unknown []statsSpan, end int64) int64 {
	runs := slices.Concat(busy, unknown)
	slices.SortFunc(runs, func(a, b statsSpan) int { return cmp.Compare(a.start, b.start) })
	var idle int64
	j := 0
	for i, s := range steps {
		if s.n <= 0 {
			continue
		}
		from, to := s.at, end
		if i+1 < len(steps) {
			to = steps[i+1].at
		}
		for j < len(runs) && runs[j].end <= from {
			j++
		}
		t := from
		for k := j; k < len(runs) && runs[k].start < to && t < to; k++ {
			if runs[k].start > t {
				idle += runs[k].start - t
			}
			t = max(t, runs[k].end)
		}
		if t < to {
			idle += to - t
		}
	}
	return idle
}

// statsStepMean returns the time-weighted mean and the maximum of a step
// function (value 0 before its first step) over the part of [from, to]
// outside unknown (the CPU's lost windows: while its events are missing,
// what waited there is not known either). A lossy recording's CPU 1,
// unobserved for 90 % of the trace, showed a runqueue of 10 tasks on
// average and 29 at most: the tasks that had migrated to it stayed
// counted as waiting there through the loss. measured is false when all
// of [from, to] lies in unknown (nothing of the runqueue is known: mean
// and maximum 0 then, not measured).
func statsStepMean(steps []statsStep, unknown []statsSpan, from, to int64) (mean float64, mx int, measured bool) {
	if to <= from {
		for _, s := range steps {
			mx = max(mx, s.n)
		}
		return 0, mx, true
	}
	unk := slices.Clone(unknown)
	slices.SortFunc(unk, func(a, b statsSpan) int { return cmp.Compare(a.start, b.start) })
	j := 0
	// known returns how much of [a, b) lies outside unk; the intervals
	// asked for come in time order.
	known := func(a, b int64) int64 {
		for j < len(unk) && unk[j].end <= a {
			j++
		}
		n := b - a
		for k := j; k < len(unk) && unk[k].start < b; k++ {
			n -= max(0, min(b, unk[k].end)-max(a, unk[k].start))
		}
		return max(n, 0)
	}
	var area float64
	var total int64
	cur, at := 0, from
	span := func(b int64) {
		if b > at {
			if k := known(at, b); k > 0 {
				area += float64(cur) * float64(k)
				total += k
				mx = max(mx, cur)
			}
			at = b
		}
	}
	for _, s := range steps {
		if s.at > to {
			break
		}
		span(s.at)
		cur = s.n
	}
	span(to)
	if total == 0 {
		return 0, 0, false
	}
	return area / float64(total), mx, true
}

func statsMakeSeries(cpus []trace.CPU, runs, unk map[trace.CPU][]statsSpan, rq map[trace.CPU][]statsStep, from, to int64, n int) *StatsSeries {
	width := (to - from + int64(n) - 1) / int64(n)
	if width <= 0 {
		width = 1
	}
	s := &StatsSeries{Start: from, Width: width, CPUs: cpus}
	for _, c := range cpus {
		busy := make([]float64, n)
		for _, sp := range runs[c] {
			statsSpread(busy, sp.start-from, sp.end-from, width, 1)
		}
		for i := range busy {
			busy[i] /= float64(width)
		}
		s.Utilization = append(s.Utilization, busy)
		u := make([]float64, n)
		for _, sp := range unk[c] {
			statsSpread(u, sp.start-from, sp.end-from, width, 1)
		}
		for i := range u {
			u[i] /= float64(width)
		}
		s.Unknown = append(s.Unknown, u)

		// The mean over the bucket's observed time: the runqueue of a CPU
		// the trace did not see is unknown, not the length last known (an
		// overwritten ftrace ring showed 2 waiting tasks on a CPU
		// unobserved for the whole bucket).
		gaps := slices.Clone(unk[c])
		slices.SortFunc(gaps, func(a, b statsSpan) int { return cmp.Compare(a.start, b.start) })
		area := make([]float64, n)
		mx := make([]int, n)
		cur, at, k := 0, from, 0
		for _, st := range rq[c] {
			statsSpreadKnown(area, at, st.at, from, width, float64(cur), gaps, &k)
			if st.at > at {
				at = st.at
			}
			cur = st.n
		}
		statsSpreadKnown(area, at, to, from, width, float64(cur), gaps, &k)
		// The maximum of a bucket counts the length carried into it.
		steps := rq[c]
		cur, idx := 0, 0
		for i := 0; i < n; i++ {
			for idx < len(steps) && steps[idx].at <= from+int64(i)*width {
				cur = steps[idx].n
				idx++
			}
			m := cur
			end := from + int64(i+1)*width
			for idx < len(steps) && steps[idx].at < end {
				cur = steps[idx].n
				m = max(m, cur)
				idx++
			}
			mx[i] = m
		}
		for i := range area {
			if known := float64(width) * (1 - u[i]); known > 0.5 {
				area[i] /= known
			} else {
				area[i], mx[i] = 0, 0 // not observed at all: see Unknown
			}
		}
		s.Runqueue = append(s.Runqueue, area)
		s.RunqueueMax = append(s.RunqueueMax, mx)
	}
	return s
}

// statsSpread adds weight*overlap of [start, end) with each bucket of
// width w to acc.
// statsSpreadKnown is statsSpread of [start, end) less the unknown spans
// gaps (sorted by start), all in absolute ns, into buckets of width w from
// from. k is the index of the first gap that may still overlap: calls with
// increasing start share it.
func statsSpreadKnown(acc []float64, start, end, from, w int64, weight float64, gaps []statsSpan, k *int) {
	for *k < len(gaps) && gaps[*k].end <= start {
		*k++
	}
	at := start
	for j := *k; j < len(gaps) && gaps[j].start < end; j++ {
		if gaps[j].start > at {
			statsSpread(acc, at-from, gaps[j].start-from, w, weight)
		}
		at = max(at, gaps[j].end)
	}
	if end > at {
		statsSpread(acc, at-from, end-from, w, weight)
	}
}

func statsSpread(acc []float64, start, end, w int64, weight float64) {
	if end <= start || weight == 0 {
		return
	}
	for i := start / w; i < int64(len(acc)) && i*w < end; i++ {
		if i < 0 {
			continue
		}
		lo := max(start, i*w)
		hi := min(end, (i+1)*w)
		if hi > lo {
			acc[i] += weight * float64(hi-lo)
		}
	}
}

// ObservedCPUs is the number of CPUs of st with a recorded run (not
// Unobserved): the CPUs the trace has sched_switch events of.
func (st *Stats) ObservedCPUs() int {
	n := 0
	for _, c := range st.CPUs {
		if !c.Unobserved {
			n++
		}
	}
	return n
}

// RunqueueMeasured reports whether c's RunqueueAvg, RunqueueMax and
// IdleWaiting are measured: not when the recording left out CPUs
// (RunqueueUnknown) or the CPU's observed time was all lost (RunqueueLost).
func (c StatsCPU) RunqueueMeasured() bool { return !c.RunqueueUnknown && !c.RunqueueLost }

// MarshalJSON writes c, with the fields nothing measured null when c is
// Unobserved (see StatsCPU.Unobserved), and the runqueue's when it is
// RunqueueUnknown or RunqueueLost.
func (c StatsCPU) MarshalJSON() ([]byte, error) {
	type plain StatsCPU
	if !c.Unobserved && !c.RunqueueMeasured() {
		return json.Marshal(struct {
			plain
			RunqueueAvg *float64 `json:"runqueue_avg"`
			RunqueueMax *int     `json:"runqueue_max"`
			IdleWaiting *int64   `json:"idle_waiting_ns"`
		}{plain: plain(c)})
	}
	if !c.Unobserved {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		Busy         *int64   `json:"busy_ns"`
		Observed     *int64   `json:"observed_ns"`
		Unknown      *int64   `json:"unknown_ns"`
		Utilization  *float64 `json:"utilization"`
		UnknownShare *float64 `json:"unknown_share"`
		RunqueueAvg  *float64 `json:"runqueue_avg"`
		RunqueueMax  *int     `json:"runqueue_max"`
		IdleWaiting  *int64   `json:"idle_waiting_ns"`
		Switches     *int64   `json:"switches"`
	}{plain: plain(c)})
}

// statsNoMatch is the stats-empty message: every command's no-match
// message (NoMatch), unless the filters select a task of the trace, which
// then had no scheduling delay or migration to count: ran says a selected
// task ran in the filters' window and CPUs (the Run hook, each run in the
// cgroup it ran in), else a task of the trace matches them now.
func statsNoMatch(b *schedule.Builder, f *schedule.Filter, meta *trace.Meta, ran bool, events, switches int64) string {
	x := noMatchOf(b, events, switches)
	x.PIDs, x.Cgroups = f.PIDs, CgroupPaths(meta, f)
	if ran {
		// A selected task ran in the window (a task that left the
		// --cgroup group before the end: its last group is another).
		return fmt.Sprintf("no scheduling delay or migration of the tasks selected matched the filters %s: %s", f, x.Extent(f.Comms))
	}
	if f.PIDs != nil || f.TIDs != nil || f.Comms != nil || f.Cgroups != nil {
		for _, t := range b.Tasks() {
			if t.TID != 0 && f.Task(t) {
				return fmt.Sprintf("no scheduling delay or migration of the tasks selected matched the filters %s: %s", f, x.Extent(f.Comms))
			}
		}
	}
	return x.Message(f.String(), f.Comms)
}

// ScheduleWarnings are the warnings of the schedule's counters c that
// the figures of a report rebuilt from the schedule depend on (stats, the
// pprof and Chrome JSON exports), as latency says them (diagWarnings): delays
// not counted (no switch-in, no wakeup), inferred switch-ins, raced and
// rewoken waits, CPUs gone offline, and the switches missing from the
// trace (a line per CPU, as latency's: latency -v names the tasks). Stats
// printed none of them, not even with -v (new-user pass 49 F2). The
// unrecorded and lossy delays and the trace without wakeups have stats'
// own lines (delay-unrecorded-cpu, lossy-excluded, no-wakeups).
func ScheduleWarnings(c *schedule.Counters) []trace.Warning {
	d := LatencyDiagnostics{Recovered: c.Recovered, Dropped: c.Dropped, Unwoken: c.Unwoken, Wakeups: max(c.Wakeups, 1),
		Raced: c.Raced, Rewoken: c.Rewoken, OfflineCPUs: c.OfflineCPUs}
	out := diagWarnings(&d, LatencyOptions{}, func(trace.TID) string { return "" })
	// One per CPU, under latency's keys, so that every report counts the
	// same warnings of a trace (new-user pass 118 F1: "4 warnings" from
	// stats and pprof where latency said 5).
	for cpu, n := range c.ChainBreaksByCPU {
		if n == 0 {
			continue
		}
		out = append(out, trace.Warning{Key: fmt.Sprintf("sched-switch-chain-cpu%d", cpu), Count: int(n), CountInMessage: true,
			Message: fmt.Sprintf("CPU %d: %s switched out a task that the CPU's previous sched_switch had not switched in: the trace lacks the switches in between, and the CPU's time there is unknown (latency -v names the tasks)", cpu, plural(int(n), "sched_switch event", "sched_switch events"))})
	}
	return out
}

// lostBefore is how much of [from, to) the lost windows of cpu (or of
// every CPU) cover, each instant once (ns).
func lostBefore(lost []trace.LostWindow, cpu trace.CPU, from, to int64) int64 {
	type iv struct{ a, b int64 }
	var ivs []iv
	for _, w := range lost {
		if w.CPU != cpu && w.CPU >= 0 {
			continue
		}
		if a, b := max(w.Start, from), min(w.End, to); b > a {
			ivs = append(ivs, iv{a, b})
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].a < ivs[j].a })
	var sum, end int64 = 0, from
	for _, v := range ivs {
		a := max(v.a, end)
		if v.b > a {
			sum += v.b - a
			end = v.b
		}
	}
	return sum
}
