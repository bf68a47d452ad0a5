package replay

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// Fidelity bounds of a replay against a recording (issue "Replay", item 5):
// for every command name with at least MinRuntime of observed run time, the
// predicted run time within 5 %, switches within 20 %, average scheduling
// delay within 25 %, and the workload's makespan within 10 %.
const (
	MinRuntime    = 100_000_000 // ns
	BoundRuntime  = 0.05
	BoundSwitches = 0.20
	BoundAvgDelay = 0.25
	BoundMakespan = 0.10
)

// FidelityCase is one fidelity experiment: replay Source under Policy with
// Overrides and compare with the recording Target (Source itself for a
// self-replay).
type FidelityCase struct {
	Name      string
	Source    string // trace file
	Target    string // trace file whose observed table is the truth
	Policy    string // policy spec, e.g. "eevdf"
	Overrides []Override
	CPUs      int
}

// Check is one bounded comparison of a fidelity case.
type Check struct {
	Case      string  `json:"-"`
	Comm      string  `json:"comm"`      // "" for the makespan
	Metric    string  `json:"metric"`    // runtime, switches, avg_delay, makespan
	Observed  int64   `json:"observed"`  // ns, or a count for switches
	Predicted int64   `json:"predicted"` // same unit
	Bound     float64 `json:"bound"`     // allowed |pred/obs - 1|
}

// Err returns |pred/obs - 1| (Inf when obs is 0 and pred is not).
func (c Check) Err() float64 {
	if c.Observed == 0 {
		if c.Predicted == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(float64(c.Predicted)/float64(c.Observed) - 1)
}

// Pass reports whether the check is within its bound.
func (c Check) Pass() bool { return c.Err() <= c.Bound }

// ID names the check as "case/comm/metric" (known-gap lists use it).
func (c Check) ID() string { return c.Case + "/" + c.Comm + "/" + c.Metric }

func extractFile(path string) (*Model, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return Extract(src)
}

// RunFidelity runs a case and returns its checks, sorted by comm and
// metric (the makespan first).
func RunFidelity(c FidelityCase) ([]Check, error) {
	m, err := extractFile(c.Source)
	if err != nil {
		return nil, err
	}
	target := m
	if c.Target != c.Source {
		if target, err = extractFile(c.Target); err != nil {
			return nil, err
		}
	}
	obs, err := target.ObservedLatency(false)
	if err != nil {
		return nil, err
	}
	specs, err := policies.ParseSpecs(c.Policy)
	if err != nil {
		return nil, err
	}
	cfg := DefaultConfig()
	cfg.CPUs, cfg.Overrides = c.CPUs, c.Overrides
	n := c.CPUs
	if n == 0 {
		n = m.NrCPUs
	}
	pol, err := specs[0].New(n)
	if err != nil {
		return nil, err
	}
	res, err := Simulate(m, pol, cfg)
	if err != nil {
		return nil, err
	}
	pred, err := Latency(res.Source(), false)
	if err != nil {
		return nil, err
	}
	checks := []Check{{Case: c.Name, Metric: "makespan", Observed: target.ObservedMakespan(), Predicted: res.Makespan, Bound: BoundMakespan}}
	for _, p := range Pair(obs, pred) {
		if p.Observed.Runtime < MinRuntime {
			continue
		}
		checks = append(checks,
			Check{c.Name, p.Key, "runtime", p.Observed.Runtime, p.Pred.Runtime, BoundRuntime},
			Check{c.Name, p.Key, "switches", p.Observed.Switches, p.Pred.Switches, BoundSwitches},
			Check{c.Name, p.Key, "avg_delay", p.Observed.AvgDelay, p.Pred.AvgDelay, BoundAvgDelay})
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Comm < checks[j].Comm })
	return checks, nil
}

// SharedTraces lists the traces of dir (../shared/traces) that a reader of
// this project opens: *.perf.data, *.trace.dat and *.ftrace.txt.
func SharedTraces(dir string) []string {
	var out []string
	for _, pat := range []string{"*.perf.data", "*.trace.dat", "*.ftrace.txt"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// TraceName returns the trace's name without directory and format suffix.
func TraceName(path string) string {
	b := filepath.Base(path)
	for _, suf := range []string{".perf.data", ".trace.dat", ".ftrace.txt"} {
		b = strings.TrimSuffix(b, suf)
	}
	return b
}

// FidelityCases returns the standard cases over dir: a self-replay under
// eevdf of every trace with its own CPU count, and the what-if pairs found
// by name (../shared/traces/README.md): NAME.2cpu (and its repeat
// NAME.2cpu-r2) -> NAME.1cpu, the workload pinned to CPU 0 (its tasks get
// affinity {0}), and NAME.2cpu -> NAME.nice0, every workload task at nice 0.
func FidelityCases(dir string) []FidelityCase {
	var cs []FidelityCase
	traces := SharedTraces(dir)
	have := map[string]string{}
	for _, p := range traces {
		cs = append(cs, FidelityCase{Name: "self:" + TraceName(p), Source: p, Target: p, Policy: "eevdf"})
		have[TraceName(p)] = p
	}
	cpu0 := policies.CPUSet(1)
	wl := Selector{Workload: true, PID: -1, TID: -1}
	zero := 0
	for _, p := range traces {
		name := TraceName(p)
		base, ok := strings.CutSuffix(name, ".2cpu")
		if !ok {
			base, ok = strings.CutSuffix(name, ".2cpu-r2")
		}
		if !ok {
			continue
		}
		if t, ok := have[base+".1cpu"]; ok {
			cs = append(cs, FidelityCase{Name: "whatif:" + name + "->1cpu", Source: p, Target: t, Policy: "eevdf",
				Overrides: []Override{{Sel: wl, Affinity: &cpu0}}})
		}
		if t, ok := have[base+".nice0"]; ok {
			cs = append(cs, FidelityCase{Name: "whatif:" + name + "->nice0", Source: p, Target: t, Policy: "eevdf",
				Overrides: []Override{{Sel: wl, Nice: &zero}}})
		}
	}
	return cs
}

// MarkdownTable renders checks as the fidelity table of the README; gaps
// maps a check ID to the explanation of a known miss.
func MarkdownTable(checks []Check, gaps map[string]string) string {
	var b strings.Builder
	b.WriteString("| case | comm | metric | observed | predicted | ratio | bound | result |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range checks {
		unit := func(v int64) string {
			if c.Metric == "switches" {
				return fmt.Sprint(v)
			}
			return fmt.Sprintf("%.3f ms", float64(v)/1e6)
		}
		res := "ok"
		if !c.Pass() {
			res = "**miss**"
			if g, ok := gaps[c.ID()]; ok {
				res = "known gap: " + g
			}
		}
		comm := c.Comm
		if comm == "" {
			comm = "(workload)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.3f | ±%.0f %% | %s |\n", c.Case, comm, c.Metric,
			unit(c.Observed), unit(c.Predicted), Ratio(c.Predicted, c.Observed), 100*c.Bound, res)
	}
	return b.String()
}
