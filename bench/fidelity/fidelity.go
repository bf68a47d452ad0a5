package fidelity

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// FidelityCase is one fidelity experiment: replay Source under Policy with
// Overrides and compare with the recording Target (Source itself for a
// self-replay).
type FidelityCase struct {
	Name      string
	Source    string // trace file
	Target    string // trace file whose observed table is the truth
	Policy    string // policy spec, e.g. "eevdf"
	Overrides []replay.Override
	CPUs      int
	// Topology is replay.Topology's topo ("" = policy: the policies'
	// default llc_size).
	Topology string
}

func extractFile(path string) (*replay.Model, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return replay.Extract(src)
}

// RunFidelity runs a case and returns its checks (report.ScoreReplay:
// the makespan first, then by command name).
func RunFidelity(c FidelityCase) ([]report.ReplayCheck, error) {
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
	obs, err := latency(target.RecordedSource())
	if err != nil {
		return nil, err
	}
	specs, err := policies.ParseSpecs(c.Policy)
	if err != nil {
		return nil, err
	}
	if specs, _, err = replay.Topology(specs, c.Topology, &m.Meta); err != nil {
		return nil, err
	}
	cfg := replay.DefaultConfig()
	cfg.CPUs, cfg.Overrides = c.CPUs, c.Overrides
	n := c.CPUs
	if n == 0 {
		n = m.NrCPUs
	}
	pol, err := specs[0].New(n)
	if err != nil {
		return nil, err
	}
	res, err := replay.Simulate(m, pol, cfg)
	if err != nil {
		return nil, err
	}
	pred, err := latency(res.Source())
	if err != nil {
		return nil, err
	}
	return report.ScoreReplay(c.Name, obs, pred, target.ObservedMakespan(), res.Makespan), nil
}

// latency is the per-command latency table (with percentiles) of src.
func latency(src trace.Source) (*report.LatencyResult, error) {
	return report.ComputeLatency(src, report.LatencyOptions{Percentiles: true})
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
	wl := replay.Selector{Workload: true, PID: -1, TID: -1}
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
				Overrides: []replay.Override{{Sel: wl, Affinity: &cpu0}}})
		}
		if t, ok := have[base+".nice0"]; ok {
			cs = append(cs, FidelityCase{Name: "whatif:" + name + "->nice0", Source: p, Target: t, Policy: "eevdf",
				Overrides: []replay.Override{{Sel: wl, Nice: &zero}}})
		}
	}
	return cs
}
