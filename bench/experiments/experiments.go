package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/synth"
	"github.com/traceview/traceview/trace"
)

// Row is one line of an experiment table.
type Row struct {
	Case     string  // e.g. "4 threads, bfs vs cfs:NEXT_BUDDY"
	Metric   string  // e.g. "fps"
	Unit     string  // unit of Pub/Pred values ("fps", "s", "%", "ratio")
	PubBase  float64 // published value of the baseline (NaN: none)
	Pub      float64 // published value of the case (NaN: direction only)
	PubDir   int     // published direction when Pub is NaN: -1 lower, +1 higher
	PredBase float64 // predicted value of the baseline
	Pred     float64 // predicted value of the case
	// Lo, Hi: a published range for an absolute value (Hi > 0): Pub is its
	// midpoint, the row matches when Pred falls in [Lo, Hi], and the
	// effects are Pred / Pub.
	Lo, Hi float64
	Note   string
	// Headline marks the one row per experiment that scores it (issue
	// list: 000 BFS vs CFS fps, 001 BFS vs CFS(wakeup_granularity=0) max
	// latt delay, 002 SD vs O(1) hackbench 90 time, 003 goodness24 vs mq-hp
	// CPU share, 004 EEVDF/CFS total switches).
	Headline bool
	// Mechanism names the modelled mechanism behind the row and its source.
	Mechanism string
}

func (r Row) absolute() bool { return r.Hi > 0 }

// effect returns v/base (or v itself when base is 1 or NaN: the value is
// already a ratio).
func effect(v, base float64) float64 {
	if math.IsNaN(base) {
		return v
	}
	if base == 0 {
		return math.NaN()
	}
	return v / base
}

func dir(r float64) int {
	switch {
	case math.IsNaN(r):
		return 0
	case r > 1.01:
		return 1
	case r < 0.99:
		return -1
	}
	return 0
}

// PubEffect is the published effect (ratio to the baseline); 1 for an
// absolute row.
func (r Row) PubEffect() float64 {
	if r.absolute() {
		return 1
	}
	return effect(r.Pub, r.PubBase)
}

// PredEffect is the predicted effect (ratio to the baseline), or Pred / Pub
// for an absolute row.
func (r Row) PredEffect() float64 {
	if r.absolute() {
		return r.Pred / r.Pub
	}
	return effect(r.Pred, r.PredBase)
}

// PublishedDir is the sign of the published effect.
func (r Row) PublishedDir() int {
	if math.IsNaN(r.Pub) {
		return r.PubDir
	}
	return dir(r.PubEffect())
}

// Match reports whether the predicted effect points the published way (an
// absolute row: whether Pred is in the published range).
func (r Row) Match() bool {
	if r.absolute() {
		return r.Pred >= r.Lo && r.Pred <= r.Hi
	}
	return dir(r.PredEffect()) == r.PublishedDir()
}

// Size is (predicted effect − 1) / (published effect − 1): 1 means the
// same size, 0.5 half the published effect; NaN without a published value.
func (r Row) Size() float64 {
	if r.absolute() {
		return r.Pred / r.Pub
	}
	p := r.PubEffect() - 1
	if math.IsNaN(r.Pub) || p == 0 {
		return math.NaN()
	}
	return (r.PredEffect() - 1) / p
}

// LogSize is ln(predicted effect) / ln(published effect): 1 is the
// published size, 0.5 half of it on a log scale, negative the opposite
// direction; NaN without a published number.
func (r Row) LogSize() float64 {
	if r.absolute() || math.IsNaN(r.Pub) {
		return math.NaN()
	}
	p, q := r.PubEffect(), r.PredEffect()
	if p <= 0 || q <= 0 || p == 1 {
		return math.NaN()
	}
	return math.Log(q) / math.Log(p)
}

// Table is one experiment's result.
type Table struct {
	ID       string // "000".."004", the order of the seed documents
	Title    string
	Workload string   // how the workload was made
	Source   string   // where the published figures come from
	Rows     []Row    // comparisons with the published figures
	Extra    []string // further markdown lines (predicted-only series)
	Misses   string   // explanation of rows that miss
}

// Markdown renders t.
func (t Table) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\nWorkload: %s\n\nPublished: %s\n\n", t.Title, t.Workload, t.Source)
	b.WriteString("| case | metric | published (baseline → case) | predicted (baseline → case) | published effect | predicted effect | direction matches | size (pred/pub effect) | log size |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range t.Rows {
		pub := "direction only: " + map[int]string{-1: "lower", 0: "unchanged", 1: "higher"}[r.PubDir]
		pubEff := "—"
		switch {
		case r.absolute():
			pub = fmt.Sprintf("%s to %s", num(r.Lo, r.Unit), num(r.Hi, r.Unit))
		case !math.IsNaN(r.Pub):
			pub = num(r.Pub, r.Unit)
			if !math.IsNaN(r.PubBase) {
				pub = num(r.PubBase, r.Unit) + " → " + pub
			}
			pubEff = fmt.Sprintf("%.3f", r.PubEffect())
		}
		pred := num(r.Pred, r.Unit)
		if !r.absolute() && (!math.IsNaN(r.PubBase) || r.Unit != "ratio") {
			pred = num(r.PredBase, r.Unit) + " → " + pred
		}
		size := "—"
		if s := r.Size(); !math.IsNaN(s) && !math.IsInf(s, 0) {
			size = fmt.Sprintf("%.2f", s)
		}
		match := "no"
		if r.Match() {
			match = "yes"
		}
		if r.absolute() {
			match = "in range: " + match
		}
		lsize := "—"
		if s := r.LogSize(); !math.IsNaN(s) && !math.IsInf(s, 0) {
			lsize = fmt.Sprintf("%.2f", s)
		}
		c := r.Case
		if r.Headline {
			c = "**" + c + "** (headline)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.3f | %s | %s | %s |\n", c, r.Metric, pub, pred, pubEff, r.PredEffect(), match, size, lsize)
	}
	var mech []string
	for _, r := range t.Rows {
		if r.Mechanism != "" && !slices.Contains(mech, r.Mechanism) {
			mech = append(mech, r.Mechanism)
		}
	}
	if len(mech) > 0 {
		b.WriteString("\nMechanisms and sources:\n\n")
		for _, m := range mech {
			b.WriteString("- " + m + "\n")
		}
	}
	for _, l := range t.Extra {
		b.WriteString("\n" + l)
	}
	if t.Misses != "" {
		fmt.Fprintf(&b, "\n\n%s", t.Misses)
	}
	b.WriteString("\n\n")
	return b.String()
}

func num(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	switch unit {
	case "ratio":
		return fmt.Sprintf("%.3f", v)
	case "%":
		return fmt.Sprintf("%.1f %%", v)
	case "ms":
		return fmt.Sprintf("%.3f ms", v)
	case "switches":
		return fmt.Sprintf("%.0f switches", v)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// Replay runs m under spec on cpus CPUs (0: the model's) with cfg's costs.
// A cfg.HZ of 0 takes the tick rate of the spec's era preset
// (policies.Era.HZ), else 250.
func Replay(m *replay.Model, spec string, cpus int, cfg replay.Config) (*replay.Result, error) {
	specs, err := policies.ParseSpecs(spec)
	if err != nil {
		return nil, err
	}
	if cpus <= 0 {
		cpus = m.NrCPUs
	}
	cfg.CPUs = cpus
	if e, ok := specs[0].EraOf(); ok && cfg.HZ == 0 && e.HZ > 0 {
		cfg.HZ = e.HZ
	}
	if cfg.HZ == 0 {
		cfg.HZ = 250
	}
	return predict.Simulate(m, specs[0], cfg)
}

// Latency returns the latency row of comm in res (zero when absent); comm
// "" sums every task, as perf sched latency's TOTAL row.
func Latency(res *replay.Result, comm string) (report.LatencyRow, error) {
	lr, err := report.ComputeLatency(res.Source(), report.LatencyOptions{})
	if err != nil {
		return report.LatencyRow{}, err
	}
	var out report.LatencyRow
	out.Comm = comm
	for _, r := range lr.Rows {
		if r.Comm == comm || comm == "" {
			out.Runtime += r.Runtime
			out.Switches += r.Switches
			out.SumDelay += r.SumDelay
			out.Count += r.Count
			out.MaxDelay = max(out.MaxDelay, r.MaxDelay)
		}
	}
	if out.Count > 0 {
		out.AvgDelay = out.SumDelay / out.Count
	}
	return out, nil
}

// SchedShare returns the share (0..1) of busy CPU time that went to
// scheduling decisions, context switches and migrations rather than to
// tasks: 1 − Σ sched_stat_runtime / Σ time CPUs were not idle.
func SchedShare(res *replay.Result) float64 {
	busy, useful := int64(0), int64(0)
	since := map[trace.CPU]int64{}
	running := map[trace.CPU]bool{}
	for _, ev := range res.Events() {
		switch ev.Kind {
		case trace.KindRuntime:
			useful += ev.Runtime
		case trace.KindSwitch:
			if running[ev.CPU] {
				busy += ev.Time - since[ev.CPU]
			}
			running[ev.CPU] = ev.NextTID != 0
			since[ev.CPU] = ev.Time
		}
	}
	if busy == 0 {
		return 0
	}
	return 1 - float64(useful)/float64(busy)
}

// Load extracts a model from a recorded trace.
func Load(path string) (*replay.Model, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return replay.Extract(src)
}

func mustModel(name string, args ...string) *replay.Model {
	g, ok := synth.Lookup(name)
	if !ok {
		panic("experiments: no generator " + name)
	}
	v, err := g.Parse(args)
	if err != nil {
		panic(err)
	}
	return g.Model(v)
}

// Header opens docs/experiments.md.
const Header = `# The classic scheduler experiments, replayed

Generated by ` + "`bench/experiments/run.sh`" + ` (go run ./bench/experiments/run); do not edit by hand. The same rows
as JSON: ` + "`go run ./bench/experiments/run -json`" + ` (one object per row: experiment, case, metric, published_effect,
predicted_effect, direction_matches, headline, log_size, mechanism); ` + "`-small`" + ` runs the reduced workloads of CI.

Each table compares a policy with the experiment's baseline. *Published effect* and *predicted effect* are
case / baseline (or the published ratio itself); *direction matches* says whether both effects point the same
way (an effect within 1 % of 1.000 counts as no change); *size* is (predicted effect − 1) / (published effect − 1)
and *log size* ln(predicted effect) / ln(published effect): 1.00 is the published size, 0.50 half of it (on the
log scale), negative the opposite direction. A row with a published range compares the predicted value with its
midpoint (effect and size = predicted / midpoint) and says whether it falls in the range. One row per
experiment is its **headline**, the figure the experiment is known for. Policies are given with their era
presets (` + "`traceview policies`" + ` lists what each sets, with its kernel sources); every cost or latency is
stated under its table with its source, "measured on this machine" or "assumed". The workloads are synthesized
with ` + "`traceview synth`" + ` (every dependency known) and, where this machine's recordings hold the same program,
also replayed from ../shared/traces (` + "`run.sh --record`" + ` records them afresh with perf instead). Misses are
explained under each table; the summary at the end lists the headline sizes.

`

// WakeupLatency returns the mean and the largest time in ns from a
// task's sched_waking to its next switch-in, over the tasks named comm in
// res: the latency latt measures (a preempted task's wait, which perf
// sched latency also counts, is not a wakeup latency).
func WakeupLatency(res *replay.Result, comm string) (avg, worst int64) {
	return WakeupLatencyFrom(res, comm, 0)
}

// WakeupLatencyFrom is WakeupLatency over the wakeups at from ns or later
// (a warm-up left out).
func WakeupLatencyFrom(res *replay.Result, comm string, from int64) (avg, worst int64) {
	woke := map[trace.TID]int64{}
	var sum, n int64
	for _, e := range res.Events() {
		switch {
		case e.Kind == trace.KindWaking && e.Comm == comm && e.Time >= from:
			if _, ok := woke[e.TID]; !ok {
				woke[e.TID] = e.Time
			}
		case e.Kind == trace.KindSwitch && e.NextComm == comm:
			if w, ok := woke[e.NextTID]; ok {
				d := e.Time - w
				sum += d
				n++
				worst = max(worst, d)
				delete(woke, e.NextTID)
			}
		}
	}
	if n > 0 {
		avg = sum / n
	}
	return avg, worst
}
