package fidelity

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
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
	// Cgroups are the source's task-group settings, which a perf.data
	// does not carry (--recorded-cgroup); CgroupChanges the what-ifs
	// (--cpu-weight, --cpu-max).
	Cgroups       []trace.CgroupSettings
	CgroupChanges []replay.CgroupChange
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
	specs, err := policies.ParseSpecs(c.Policy)
	if err != nil {
		return nil, err
	}
	if specs, _, err = replay.Topology(specs, c.Topology, &m.Meta); err != nil {
		return nil, err
	}
	cfg := replay.DefaultConfig()
	cfg.CPUs, cfg.Overrides = c.CPUs, c.Overrides
	cfg.Cgroups, cfg.CgroupChanges = c.Cgroups, c.CgroupChanges
	p, err := predict.Predict(m, specs[0], cfg, predict.Options{Name: c.Name, Target: target})
	if err != nil {
		return nil, err
	}
	return p.Checks, nil
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
		// A task-group trace replays with the settings it was recorded
		// with, which its perf.data does not carry (groupSettings).
		cs = append(cs, FidelityCase{Name: "self:" + TraceName(p), Source: p, Target: p, Policy: "eevdf", Cgroups: groupSettings[TraceName(p)]})
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
	return append(cs, groupCases(have)...)
}

// groupSettings are the task-group settings the task-group traces of
// ../shared/traces were recorded with (their meta files and
// ../shared/workloads/README.md: v1 cpu.shares and cpu.cfs_quota_us per
// 100 ms period), which their perf.data files do not carry.
var groupSettings = map[string][]trace.CgroupSettings{
	"grpw.eq.1cpu":    {shares("/tv-a", 1024), shares("/tv-b", 1024)},
	"grpw.a2x.1cpu":   {shares("/tv-a", 2048), shares("/tv-b", 1024)},
	"grpw.eq.2cpu":    {shares("/tv-a", 1024), shares("/tv-b", 1024)},
	"grpl.a128.1cpu":  {shares("/tv-a", 128), shares("/tv-b", 1024)},
	"grpl.a2048.1cpu": {shares("/tv-a", 2048), shares("/tv-b", 1024)},
	"grpq.q25":        {quota("/tv-svc", 25_000_000)},
	"grpq.q50":        {quota("/tv-svc", 50_000_000)},
	"grpq.q50-r2":     {quota("/tv-svc", 50_000_000)},
	"grpq.none":       {quota("/tv-svc", -1)},
}

func shares(path string, s int) trace.CgroupSettings {
	return trace.CgroupSettings{Path: path, Weight: trace.WeightFromShares(s), Shares: s}
}

func quota(path string, q int64) trace.CgroupSettings {
	return trace.CgroupSettings{Path: path, QuotaNS: q, PeriodNS: 100_000_000}
}

// groupCases are the task-group what-ifs among each family of the
// developer set, both ways: the weight of /tv-a (grpw, grpl), the quota of
// /tv-svc (grpq); grpw.eq.2cpu -> .1cpu is among FidelityCases' 2 -> 1 CPU
// pairs.
func groupCases(have map[string]string) []FidelityCase {
	var cs []FidelityCase
	pair := func(from, to string, ch replay.CgroupChange, ov []replay.Override) {
		src, ok1 := have[from]
		dst, ok2 := have[to]
		if ok1 && ok2 {
			cs = append(cs, FidelityCase{Name: "whatif:" + from + "->" + to, Source: src, Target: dst, Policy: "eevdf",
				Cgroups: groupSettings[from], CgroupChanges: []replay.CgroupChange{ch}, Overrides: ov})
		}
	}
	weight := func(s int) replay.CgroupChange {
		return replay.CgroupChange{Path: "/tv-a", Weight: trace.WeightFromShares(s)}
	}
	pair("grpw.eq.1cpu", "grpw.a2x.1cpu", weight(2048), nil)
	pair("grpw.a2x.1cpu", "grpw.eq.1cpu", weight(1024), nil)
	pair("grpl.a128.1cpu", "grpl.a2048.1cpu", weight(2048), nil)
	pair("grpl.a2048.1cpu", "grpl.a128.1cpu", weight(128), nil)
	q := func(ns int64) replay.CgroupChange {
		return replay.CgroupChange{Path: "/tv-svc", Quota: ns, Period: 100_000_000}
	}
	for _, from := range []string{"grpq.q25", "grpq.q50", "grpq.q50-r2", "grpq.none"} {
		for to, ch := range map[string]replay.CgroupChange{"grpq.q25": q(25_000_000), "grpq.q50": q(50_000_000), "grpq.none": q(-1)} {
			if strings.TrimSuffix(from, "-r2") != to {
				pair(from, to, ch, nil)
			}
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}
