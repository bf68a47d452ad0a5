// Command fidelity replays every shared trace under eevdf (self-replay) and
// the what-if pairs, and prints the fidelity table in markdown: observed vs
// predicted run time, switches and average delay per command name with at
// least 100 ms of run time, and the workload's makespan, each with its
// bound and, where the shared traces hold a repeat recording of the same
// workload (NAME.2cpu and NAME.2cpu-r2), the real system's own run-to-run
// spread of that number: the floor of any prediction error. It ends with
// the counts within the bounds (±5/20/25/10 %) and within the tight bounds
// (±2/10/10/3 %).
//
// Usage: go run ./bench/fidelity/run [-dir ../shared/traces] [-policy eevdf:llc_size=0] [-run REGEXP]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/traceview/traceview/bench/fidelity"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// tight are the tight bounds by metric (the replay issue's second tier).
var tight = map[string]float64{"runtime": 0.02, "switches": 0.10, "avg_delay": 0.10, "makespan": 0.03}

func main() {
	dir := flag.String("dir", "../shared/traces", "directory of the shared traces")
	policy := flag.String("policy", "eevdf", "policy spec to replay under (the bounds and known gaps are for eevdf)")
	run := flag.String("run", "", "only the cases whose name matches this regular expression")
	topo := flag.String("topology", "policy", "cache domains: "+replay.TopologyModes+" (replay --topology)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("fidelity: ")
	re, err := regexp.Compile(*run)
	if err != nil {
		log.Fatalf("-run: %v", err) // exit status 1, as every failure of this program
	}
	var all []report.ReplayCheck
	for _, c := range fidelity.FidelityCases(*dir) {
		if !re.MatchString(c.Name) {
			continue
		}
		c.Policy, c.Topology = *policy, *topo
		checks, err := fidelity.RunFidelity(c)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fidelity: %s: %v\n", c.Name, err)
			continue
		}
		all = append(all, checks...)
	}
	spreads := spread(*dir, all)
	pass, tpass := 0, 0
	var b strings.Builder
	b.WriteString("| case | comm | metric | observed | predicted | ratio | bound | run-to-run spread | result |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range all {
		if c.Pass() {
			pass++
		}
		if c.Err() <= tight[c.Metric] {
			tpass++
		}
		unit := func(v int64) string {
			if c.Metric == "switches" {
				return fmt.Sprint(v)
			}
			return fmt.Sprintf("%.3f ms", float64(v)/1e6)
		}
		res := "ok"
		if !c.Pass() {
			res = "**miss**"
			if g, ok := fidelity.KnownGaps[c.ID()]; ok {
				res = "known gap: " + g
			}
		}
		comm := c.Comm
		if comm == "" {
			comm = "(workload)"
		}
		sp := "-"
		if v, ok := spreads[c.ID()]; ok {
			sp = fmt.Sprintf("%.1f %%", 100*v)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.3f | ±%.0f %% | %s | %s |\n", c.Case, comm, c.Metric,
			unit(c.Observed), unit(c.Predicted), report.PredRatio(c.Predicted, c.Observed), 100*c.Bound, sp, res)
	}
	fmt.Print(b.String())
	fmt.Printf("\n%d of %d checks within bounds (±5/20/25/10 %%); %d of %d within ±2/10/10/3 %%.\n", pass, len(all), tpass, len(all))
}

// spread returns, per check ID, |repeat/observed − 1| of the check's
// observed number against a repeat recording of the same workload: the
// target's own repeat (NAME <-> NAME-r2: NAME.2cpu-r2, grpq.q50-r2) for a
// self-replay, the source's for a what-if (the target has no repeat; the
// source's spread is the real system's spread of the same workload on this
// VM); for a trace without a repeat, its family's (the name up to its first
// dot: grpq.none and grpq.q25 take grpq.q50's), when the family has one.
func spread(dir string, checks []report.ReplayCheck) map[string]float64 {
	type obs struct {
		rows     map[string][3]int64 // comm -> runtime, switches, avg delay
		makespan int64
	}
	cache := map[string]*obs{}
	load := func(name string) *obs {
		if o, ok := cache[name]; ok {
			return o
		}
		cache[name] = nil
		src, err := trace.Open(filepath.Join(dir, name+".perf.data"))
		if err != nil {
			return nil
		}
		defer src.Close()
		m, err := replay.Extract(src)
		if err != nil {
			return nil
		}
		lat, err := report.ComputeLatency(m.RecordedSource(), report.LatencyOptions{})
		if err != nil {
			return nil
		}
		o := &obs{rows: map[string][3]int64{}, makespan: m.ObservedMakespan()}
		for _, r := range lat.Rows {
			o.rows[r.Comm] = [3]int64{r.Runtime, r.Switches, r.AvgDelay}
		}
		cache[name] = o
		return o
	}
	// The traces that have a repeat, and per family the first of them.
	repeats, families := map[string]bool{}, map[string]string{}
	rs, _ := filepath.Glob(filepath.Join(dir, "*-r2.perf.data"))
	sort.Strings(rs)
	for _, r := range rs {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(r), ".perf.data"), "-r2")
		repeats[name] = true
		if fam, _, _ := strings.Cut(name, "."); families[fam] == "" {
			families[fam] = name
		}
	}
	out := map[string]float64{}
	for _, c := range checks {
		name := strings.TrimPrefix(strings.TrimPrefix(c.Case, "self:"), "whatif:")
		name, _, _ = strings.Cut(name, "->")
		a := strings.TrimSuffix(name, "-r2")
		if !repeats[a] {
			fam, _, _ := strings.Cut(a, ".")
			a = families[fam]
		}
		if a == "" {
			continue
		}
		b := a + "-r2"
		oa, ob := load(a), load(b)
		if oa == nil || ob == nil {
			continue
		}
		var va, vb int64
		if c.Metric == "makespan" {
			va, vb = oa.makespan, ob.makespan
		} else {
			k := map[string]int{"runtime": 0, "switches": 1, "avg_delay": 2}[c.Metric]
			va, vb = oa.rows[c.Comm][k], ob.rows[c.Comm][k]
		}
		if va > 0 {
			out[c.ID()] = math.Abs(float64(vb)/float64(va) - 1)
		}
	}
	return out
}
