package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
)

// Replay fidelity bounds (the replay issue's "Done when"): for every
// command name with at least ReplayMinRuntime of observed run time, the
// predicted run time within 5 %, switches within 20 %, average scheduling
// delay within 25 %, and the workload's makespan within 10 %.
const (
	ReplayMinRuntime    = 100_000_000 // ns
	ReplayBoundRuntime  = 0.05
	ReplayBoundSwitches = 0.20
	ReplayBoundAvgDelay = 0.25
	ReplayBoundMakespan = 0.10
)

// ReplayCheck is one bounded comparison of a replay against a recording.
type ReplayCheck struct {
	Case      string  `json:"-"`
	Comm      string  `json:"comm"`      // "" for the makespan
	Metric    string  `json:"metric"`    // runtime, switches, avg_delay, makespan
	Observed  int64   `json:"observed"`  // ns, or a count for switches
	Predicted int64   `json:"predicted"` // same unit
	Bound     float64 `json:"bound"`     // allowed |pred/obs - 1|
	// Cgroup names the task group of a throttled_time check
	// (ScoreGroupThrottle); Comm is then "".
	Cgroup string `json:"cgroup,omitempty"`
}

// ReplayBoundThrottled bounds a task group's predicted throttled time
// (cpu.stat throttled_time) against the recording's: it is scored as the
// average delay is, ±25 %, since throttled time is waiting its tasks do
// (the latency rows' Throttled is part of their Sum delay), not a bound of
// its own fitted to a trace.
const ReplayBoundThrottled = ReplayBoundAvgDelay

// Unit is the unit of Observed and Predicted: "switches" for the
// switches metric, else "ns".
func (c ReplayCheck) Unit() string {
	if c.Metric == "switches" {
		return "switches"
	}
	return "ns"
}

// MarshalJSON writes the check with its unit ("unit": "ns" or
// "switches"; "bound" is a fraction, |pred/obs - 1| allowed).
func (c ReplayCheck) MarshalJSON() ([]byte, error) {
	type plain ReplayCheck
	return json.Marshal(struct {
		plain
		Unit string `json:"unit"`
	}{plain(c), c.Unit()})
}

// Err returns |pred/obs - 1| (Inf when obs is 0 and pred is not).
func (c ReplayCheck) Err() float64 {
	if c.Observed == 0 {
		if c.Predicted == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(float64(c.Predicted)/float64(c.Observed) - 1)
}

// Pass reports whether the check is within its bound.
func (c ReplayCheck) Pass() bool { return c.Err() <= c.Bound }

// offBy is how many times off the prediction is, either way: the larger
// of pred/obs and obs/pred (1 when equal, +Inf when one of them is 0 and
// the other not). Err is not symmetric: a task predicted at 0.022x its
// run time is 0.98 off, one at 7.13x 6.13 (new-user pass 105 F1: the
// verdict named the second first and left the first, 45 times short,
// among "26 more").
func (c ReplayCheck) offBy() float64 {
	o, p := float64(c.Observed), float64(c.Predicted)
	switch {
	case o == p:
		return 1
	case o <= 0 || p <= 0:
		return math.Inf(1)
	}
	return max(p/o, o/p)
}

// beyond is how far a check lies relative to its bound, either way alike:
// ln(offBy) / ln(1 + Bound), so 1 at the bound's edge on the high side
// (and a little under 1 at 1 - Bound on the low side), and a prediction k
// times short as far as one k times over. +Inf for offBy's +Inf.
func (c ReplayCheck) beyond() float64 {
	f := c.offBy()
	if math.IsInf(f, 1) || c.Bound <= 0 {
		return f
	}
	return math.Log(f) / math.Log1p(c.Bound)
}

// ID names the check as "case/comm/metric" (known-gap lists use it).
// A group's check is "case/cgroup:PATH/metric".
func (c ReplayCheck) ID() string {
	if c.Cgroup != "" {
		return c.Case + "/cgroup:" + c.Cgroup + "/" + c.Metric
	}
	return c.Case + "/" + c.Comm + "/" + c.Metric
}

// ScoreReplay compares a predicted latency table and makespan (ns) with
// the observed ones: the makespan check first, then for every row pair
// (PairRows, command names unless the tables are per task) with at least
// ReplayMinRuntime of observed run time its runtime, switches and average
// delay, sorted by name.
func ScoreReplay(name string, obs, pred *LatencyResult, obsMakespan, predMakespan int64) []ReplayCheck {
	checks := []ReplayCheck{{Case: name, Metric: "makespan", Observed: obsMakespan, Predicted: predMakespan, Bound: ReplayBoundMakespan}}
	for _, p := range PairRows(obs, pred) {
		if p.Observed.Runtime < ReplayMinRuntime {
			continue
		}
		checks = append(checks, rowChecks(name, &p)...)
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Comm < checks[j].Comm })
	return checks
}

// ScoreSelfReplay scores a self-replay for ReplayTrust: the rows as the
// output shows them (ScoreReplay of obs and pred: per task when they are
// per task, else per command) and, when they are per command, each task
// with at least ReplayMinRuntime of observed run time in a command row
// that merges several tasks, scored on its own (named "comm:TID"): a sum
// can hide opposite errors (three hogs at 1004/506/501 ms predicted
// 668/673/669 ms sum to within 1 %). obsTasks and predTasks are the
// per-task tables of the same traces (nil: command rows only).
func ScoreSelfReplay(name string, obs, pred, obsTasks, predTasks *LatencyResult, obsMakespan, predMakespan int64) []ReplayCheck {
	checks := ScoreReplay(name, obs, pred, obsMakespan, predMakespan)
	if obs.Options.PerTask || obsTasks == nil || predTasks == nil {
		return checks
	}
	merged := map[string]bool{}
	for _, r := range obs.Rows {
		if r.NrTasks > 1 {
			merged[r.Comm] = true
		}
	}
	for _, p := range PairRows(obsTasks, predTasks) {
		if p.Observed.Runtime < ReplayMinRuntime || !merged[p.Observed.Comm] {
			continue
		}
		checks = append(checks, rowChecks(name, &p)...)
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Comm < checks[j].Comm })
	return checks
}

// rowChecks are the runtime, switches (as the kernel counts them: the
// recorded switch-ins and those the trace lacks) and average-delay checks
// of one row pair.
func rowChecks(name string, p *RowPair) []ReplayCheck {
	cs := []ReplayCheck{
		{Case: name, Comm: p.Key, Metric: "runtime", Observed: p.Observed.Runtime, Predicted: p.Pred.Runtime, Bound: ReplayBoundRuntime},
		{Case: name, Comm: p.Key, Metric: "switches", Observed: p.Observed.Switches + p.Observed.Unrecorded,
			Predicted: p.Pred.Switches + p.Pred.Unrecorded, Bound: ReplayBoundSwitches},
	}
	if p.Observed.Count > 0 {
		// (No delay measured in the recording, every one left out as
		// unmeasurable: no average to score, where "avg_delay 0.00x"
		// failed the self-replay, new-user pass 78 F2.)
		cs = append(cs, ReplayCheck{Case: name, Comm: p.Key, Metric: "avg_delay", Observed: p.Observed.AvgDelay, Predicted: p.Pred.AvgDelay, Bound: ReplayBoundAvgDelay})
	}
	return cs
}

// ObservedThrottled is a task group's throttled time in the recording
// (ns, summed over CPUs as cpu.stat throttled_time is) and its source:
// the kernel's cpu.stat over the trace when the trace carries readings
// that cover it (CgroupThrottle.Kernel), else "inferred", the figure
// inferred from the schedule (CgroupThrottle.Throttled).
func ObservedThrottled(g *CgroupThrottle) (ns int64, source string) {
	if g.Kernel != nil && !g.KernelWholeTrace {
		return g.Kernel.ThrottledNS, "cpu.stat"
	}
	return g.Throttled, "inferred"
}

// ScoreGroupThrottle scores a replay's task-group throttling against the
// recording's: for each group of obs with a quota (QuotaNS > 0) that pred
// (path -> predicted throttled time, ns, as the policy's cpu.stat counts
// it) has, a "throttled_time" check of ObservedThrottled, bounded by
// ReplayBoundThrottled, when either side is ReplayMinRuntime or more (a
// group throttled less than that in both is not scored, as a row with
// less run time is not). Sorted by path.
func ScoreGroupThrottle(name string, obs *LatencyResult, pred map[string]int64) []ReplayCheck {
	var checks []ReplayCheck
	for _, c := range groupThrottleChecks(name, obs, pred) {
		if c.Observed >= ReplayMinRuntime || c.Predicted >= ReplayMinRuntime {
			checks = append(checks, c)
		}
	}
	return checks
}

// groupThrottleChecks is a "throttled_time" check of every group of obs
// with a quota that pred has, sorted by path (ScoreGroupThrottle,
// UnscoredGroupThrottle).
func groupThrottleChecks(name string, obs *LatencyResult, pred map[string]int64) []ReplayCheck {
	var checks []ReplayCheck
	for i := range obs.Cgroups {
		g := &obs.Cgroups[i]
		p, ok := pred[g.Path]
		if !ok || g.QuotaNS <= 0 {
			continue
		}
		o, _ := ObservedThrottled(g)
		checks = append(checks, ReplayCheck{Case: name, Cgroup: g.Path, Metric: "throttled_time", Observed: o, Predicted: p, Bound: ReplayBoundThrottled})
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Cgroup < checks[j].Cgroup })
	return checks
}

// UnscoredGroupThrottle is the checks ScoreGroupThrottle leaves out (both
// sides under ReplayMinRuntime) that would miss their bound, with at least
// one side over 0: too small to score, too far off to pass in silence.
func UnscoredGroupThrottle(name string, obs *LatencyResult, pred map[string]int64) []ReplayCheck {
	var out []ReplayCheck
	for _, c := range groupThrottleChecks(name, obs, pred) {
		if c.Observed < ReplayMinRuntime && c.Predicted < ReplayMinRuntime && (c.Observed > 0 || c.Predicted > 0) && !c.Pass() {
			out = append(out, c)
		}
	}
	return out
}

// ReplayTrust is how far a prediction can be trusted: the checks of the
// self-replay (the source trace replayed under its recording kernel's
// policy on its own CPU count).
type ReplayTrust struct {
	Policy string        `json:"policy"`
	CPUs   int           `json:"cpus"`
	Rows   []ReplayCheck `json:"rows"`
	// MaxErr is the largest finite |pred/obs − 1| over Rows; Within is
	// whether every row is within its bound, and false when there is no
	// row (nothing was compared: the error is unknown, not 0).
	MaxErr float64 `json:"max_error"`
	Within bool    `json:"within_bounds"`
	// Worst names the row and metric farthest from its bound (either way
	// alike: ReplayCheck.beyond), e.g. "a1:4242 runtime 1.33x".
	Worst string `json:"worst"`
	// Censored counts workload tasks still alive when the capture ended
	// (running, runnable, or the traced command asleep): the makespan is then not scored, and the verdict says it
	// cannot be predicted.
	Censored int `json:"censored_tasks,omitempty"`
	// DeadlineInferred counts the workload tasks the model inferred
	// deadline-bound (replay.ModelStats.DeadlineInferred): on the
	// recording's own CPUs their deadline and their work end them alike, so
	// a self-replay cannot check that inference, and a trusting verdict
	// says so (new-user pass 119 F1: fixed-work children recorded on 1 CPU,
	// inferred deadline-bound, predicted 1.9x their run time on 2 CPUs
	// under "trust the prediction").
	DeadlineInferred int `json:"deadline_inferred,omitempty"`
	// Unscored are the task groups with a quota whose throttled time was
	// under ReplayMinRuntime on both sides, so not scored, and off by more
	// than ReplayBoundThrottled (UnscoredGroupThrottle): a trusting verdict
	// names them (new-user pass 121 F2: 8.0 against 18.3 ms, 0.44x, under
	// "within 21 %").
	Unscored []ReplayCheck `json:"unscored,omitempty"`
}

// NewReplayTrust summarizes the self-replay checks of policy on cpus CPUs.
func NewReplayTrust(policy string, cpus int, checks []ReplayCheck) *ReplayTrust {
	t := &ReplayTrust{Policy: policy, CPUs: cpus, Rows: checks, Within: len(checks) > 0}
	worst := -1.0
	for _, c := range checks {
		if e := c.Err(); !math.IsInf(e, 0) {
			t.MaxErr = max(t.MaxErr, e)
		}
		t.Within = t.Within && c.Pass()
		if r := c.beyond(); r > worst {
			worst, t.Worst = r, c.label()
		}
	}
	return t
}

// label is "who metric ratio", as the verdict names a check.
func (c ReplayCheck) label() string {
	who := termsafe.Name(c.Comm) // as the tables print it (new-user pass 39 F1: raw bytes to the terminal)
	switch {
	case c.Cgroup != "":
		who = "cgroup " + termsafe.Name(c.Cgroup)
	case who == "":
		who = "workload"
	}
	return fmt.Sprintf("%s %s %.2fx", who, c.Metric, PredRatio(c.Predicted, c.Observed))
}

// errPct is err (a fraction) as the verdict's whole per cent, rounded up
// (an error of 2.48 % is "within 3 %", never 2) but not by floating-point
// noise: 102/100 − 1 is 0.020000000000000018, within 2 %.
func errPct(err float64) float64 { return math.Ceil(100*err - 1e-9) }

// Verdict is the one-line summary of t, e.g. "self-replay under eevdf on 2
// CPUs within 12 % on the makespan and every row with 100 ms of run time
// or more (closest to its bound: ...): trust the prediction to about
// that" (the rows the
// fidelity bounds cover; rarely running tasks' delays are not scored), or,
// when a row misses its bound, the misses (at most three, worst first:
// the farthest beyond its bound, either way alike, beyond).
func (t *ReplayTrust) Verdict() string {
	cpus := "CPUs"
	if t.CPUs == 1 {
		cpus = "CPU"
	}
	head := fmt.Sprintf("self-replay under %s on %d %s", t.Policy, t.CPUs, cpus)
	if len(t.Rows) == 0 {
		why := "no row has"
		if t.Censored > 0 {
			why = fmt.Sprintf("the makespan cannot be predicted (%s still alive when the capture ended) and no row has", plural(t.Censored, "task was", "tasks were"))
		}
		return fmt.Sprintf("%s compared nothing: %s %d ms of run time or more; the prediction's error is unknown", head, why, ReplayMinRuntime/1_000_000)
	}
	groups := ""
	if slices.ContainsFunc(t.Rows, func(c ReplayCheck) bool { return c.Cgroup != "" }) {
		groups = " and the throttled time of every task group with a quota"
	}
	if t.Within {
		trust := "trust the prediction to about that"
		if len(t.Unscored) > 0 {
			var parts []string
			for _, c := range t.Unscored {
				parts = append(parts, fmt.Sprintf("%s (%.3f against %.3f ms)", c.label(), float64(c.Predicted)/1e6, float64(c.Observed)/1e6))
			}
			trust = fmt.Sprintf("not scored, under %d ms on both sides: %s; %s", ReplayMinRuntime/1_000_000, strings.Join(parts, ", "), trust)
		}
		if t.DeadlineInferred > 0 {
			trust += fmt.Sprintf(", except how the %s inferred deadline-bound end, which a self-replay cannot check (on the recording's CPUs a deadline and their work end them alike; a note says when the prediction depends on it)",
				plural(t.DeadlineInferred, "task", "tasks"))
		}
		// Rounded up: an error of 2.48 % is "within 3 %", never 2.
		if t.Censored > 0 {
			return fmt.Sprintf("%s within %.0f %% on every row with %d ms of run time or more%s (closest to its bound: %s): %s; the makespan cannot be predicted: %s still alive when the capture ended", head, errPct(t.MaxErr), ReplayMinRuntime/1_000_000, groups, t.Worst, trust, plural(t.Censored, "task was", "tasks were"))
		}
		return fmt.Sprintf("%s within %.0f %% on the makespan and every row with %d ms of run time or more%s (closest to its bound: %s): %s", head, errPct(t.MaxErr), ReplayMinRuntime/1_000_000, groups, t.Worst, trust)
	}
	var miss []ReplayCheck
	for _, c := range t.Rows {
		if !c.Pass() {
			miss = append(miss, c)
		}
	}
	sort.SliceStable(miss, func(i, j int) bool { return miss[i].beyond() > miss[j].beyond() })
	var parts []string
	for k, c := range miss {
		if k == 3 {
			parts = append(parts, "and "+strconv.Itoa(len(miss)-3)+" more")
			break
		}
		parts = append(parts, fmt.Sprintf("%s (bound ±%.0f %%)", c.label(), 100*c.Bound))
	}
	censored := ""
	if t.Censored > 0 {
		censored = fmt.Sprintf("; the makespan cannot be predicted: %s still alive when the capture ended", plural(t.Censored, "task was", "tasks were"))
	}
	return fmt.Sprintf("%s misses its bounds: %s; read the prediction's deltas with that error in mind%s", head, strings.Join(parts, ", "), censored)
}

// plural is "1 task was" or "N tasks were".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
