package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/synth"
)

// Options size the experiments.
type Options struct {
	// Small runs reduced workloads (for tests): same shape, fewer frames,
	// loops and tasks.
	Small bool
	// TraceDir holds the shared recordings (../shared/traces); "" or a
	// missing directory skips the replays of recorded workloads.
	TraceDir string
}

var nan = math.NaN()

func (o Options) trace(name string) (*replay.Model, bool) {
	if o.TraceDir == "" {
		return nil, false
	}
	p := filepath.Join(o.TraceDir, name)
	if _, err := os.Stat(p); err != nil {
		return nil, false
	}
	m, err := Load(p)
	return m, err == nil
}

func secs(ns int64) float64 { return float64(ns) / 1e9 }
func ms(ns int64) float64   { return float64(ns) / 1e6 }

// The CFS variants of the x264 experiment, with and without NEXT_BUDDY
// and LB_BIAS, on a 2.6.31-like setting: balancing on the cpu_load[2]
// history, and a 4-core machine whose cores share a last-level cache in
// pairs (llc_size=2, a Core 2 Quad of that era; an assumption, the
// published figures do not give the machine).
const (
	cfs2631    = "newidle_idx=2,busy_idx=2,llc_size=2"
	cfsWith    = "cfs:NEXT_BUDDY,LB_BIAS," + cfs2631
	cfsWithout = "cfs:NO_NEXT_BUDDY,NO_LB_BIAS," + cfs2631
)

// Pipeline is experiment 1: the x264-style pipeline, 1 to 8 threads on 4
// CPUs, BFS vs CFS with NEXT_BUDDY (and LB_BIAS) vs CFS without.
func Pipeline(o Options) (Table, error) {
	frames := 300
	threads := []int{1, 2, 3, 4, 5, 6, 7, 8}
	if o.Small {
		frames, threads = 60, []int{2, 4, 8}
	}
	pols := []string{"bfs", cfsWith, cfsWithout}
	fps := map[string]map[int]float64{}
	var extra []string
	extra = append(extra, "Predicted fps by thread count (synthetic pipeline, 4 CPUs):\n",
		"| threads | "+strings.Join(pols, " | ")+" |", "|---|---|---|---|")
	for _, n := range threads {
		m := synth.Pipeline(n, frames, 300_000, 1, 4)
		line := fmt.Sprintf("| %d |", n)
		for _, p := range pols {
			res, err := Replay(m, p, 4, replay.DefaultConfig())
			if err != nil {
				return Table{}, err
			}
			if fps[p] == nil {
				fps[p] = map[int]float64{}
			}
			fps[p][n] = float64(frames) / secs(synth.Makespan(m, res))
			line += fmt.Sprintf(" %.1f |", fps[p][n])
		}
		extra = append(extra, line)
	}
	t := Table{
		Title:    "1. x264-style pipeline: BFS vs CFS with and without NEXT_BUDDY/LB_BIAS",
		Workload: fmt.Sprintf("`traceview synth pipeline threads=N frames=%d work=300us dist=1` replayed on 4 CPUs (pipeline.c's dependency rule; x264 encodes frames in such a pipeline)", frames),
		Source:   "the BFS vs CFS x264 comparison on LKML (2.6.31/2.6.32-tip, Core 2 Quad Q9300, 2009): at 4 threads 447.69 fps (BFS), 242.54 fps (CFS with NEXT_BUDDY and LB_BIAS), about 418 fps (CFS without both)",
		Extra:    extra,
	}
	n := 4
	t.Rows = append(t.Rows,
		Row{Case: "4 threads: bfs vs " + cfsWith, Metric: "frames per second", Unit: "fps", PubBase: 242.54, Pub: 447.69, PredBase: fps[cfsWith][n], Pred: fps["bfs"][n]},
		Row{Case: "4 threads: " + cfsWithout + " vs " + cfsWith, Metric: "frames per second", Unit: "fps", PubBase: 242.54, Pub: 418, PredBase: fps[cfsWith][n], Pred: fps[cfsWithout][n]})
	if m, ok := o.trace("pipeline.2cpu.perf.data"); ok {
		got := map[string]float64{}
		for _, p := range pols {
			res, err := Replay(m, p, 4, replay.DefaultConfig())
			if err != nil {
				return Table{}, err
			}
			got[p] = 300 / secs(res.Makespan)
		}
		t.Rows = append(t.Rows,
			Row{Case: "recorded pipeline.2cpu (4 threads) on 4 CPUs: bfs vs " + cfsWith, Metric: "frames per second", Unit: "fps", PubBase: 242.54, Pub: 447.69, PredBase: got[cfsWith], Pred: got["bfs"]},
			Row{Case: "recorded pipeline.2cpu on 4 CPUs: " + cfsWithout + " vs " + cfsWith, Metric: "frames per second", Unit: "fps", PubBase: 242.54, Pub: 418, PredBase: got[cfsWith], Pred: got[cfsWithout]})
	}
	t.Misses = "Sizes: in the model CFS loses frames against BFS mostly through wake placement (a wakee kept on its " +
		"waker's CPU or last-level cache while another CPU idles), which CFS with and without NEXT_BUDDY and LB_BIAS " +
		"share. Without LB_BIAS the 2.6.31 balancer takes the load now, not the cpu_load history (source_load and " +
		"target_load in kernel/sched.c v2.6.31), so a newly idle CPU pulls a queued thread at once: the " +
		"NO_NEXT_BUDDY,NO_LB_BIAS variant gains frames, as published, but by a tenth of the published 1.7 times; " +
		"NEXT_BUDDY only changes which queued task runs next on a CPU, rarely a choice with one pipeline thread per " +
		"CPU. The published gap also contains x264's intra-frame dependencies (threads lag by a fraction of a " +
		"frame, not whole frames as in pipeline.c) and cache effects, which the model lacks."
	return t, nil
}

// MassiveIntr is experiment 2: massive_intr beside an interactive task,
// CFS vs EEVDF, ratios EEVDF over CFS for the massive_intr tasks.
func MassiveIntr(o Options) (Table, error) {
	args := []string{}
	if o.Small {
		args = []string{"loops=15", "probe_loops=400"}
	}
	m := mustModel("massive_intr", args...)
	t := Table{
		Title:    "2. massive_intr beside an interactive task: EEVDF over CFS",
		Workload: "`traceview synth massive_intr` (8 processes running 8 ms and sleeping 1 ms, 60 loops each, beside a probe waking every 1 ms for 20 µs) on 2 CPUs; and the recording massive_intr.2cpu.perf.data (massive_intr 8 8 1 2 with cyclictest)",
		Source:   "EEVDF over CFS for the massive_intr tasks in the 6.3-rc EEVDF series postings (perf sched latency totals, i7-4790): run time 0.999, switches 1.777, sum of scheduling delays 1.602",
	}
	add := func(label string, m *replay.Model, cpus int) error {
		var rows [2]struct{ rt, sw, sum float64 }
		for i, p := range []string{"cfs", "eevdf"} {
			res, err := Replay(m, p, cpus, replay.DefaultConfig())
			if err != nil {
				return err
			}
			r, err := Latency(res, "massive_intr")
			if err != nil {
				return err
			}
			rows[i].rt, rows[i].sw, rows[i].sum = float64(r.Runtime), float64(r.Switches), float64(r.SumDelay)
		}
		for _, x := range []struct {
			metric    string
			pub, a, b float64
		}{{"run time", 0.999, rows[0].rt, rows[1].rt}, {"switches", 1.777, rows[0].sw, rows[1].sw}, {"sum delay", 1.602, rows[0].sum, rows[1].sum}} {
			t.Rows = append(t.Rows, Row{Case: label + ": eevdf / cfs", Metric: x.metric, Unit: "ratio", PubBase: nan, Pub: x.pub, PredBase: nan, Pred: x.b / x.a})
		}
		return nil
	}
	if err := add("synthetic", m, 2); err != nil {
		return t, err
	}
	if rm, ok := o.trace("massive_intr.2cpu.perf.data"); ok {
		if err := add("recorded massive_intr.2cpu", rm, 2); err != nil {
			return t, err
		}
	}
	t.Misses = "Run time is fixed by the model (bursts are CPU time), so its ratio is 1 by construction; the published " +
		"0.999 says the same. Switches rise under EEVDF in both replays, as published, but by a few percent to 12 % instead of 78 %: " +
		"EEVDF's base slice (1.4 ms on 2 CPUs) preempts a task ending its 8 ms burst more often than CFS's share of " +
		"its 12 ms period, and the model charges no cost for it. The sum of delays is close to invariant in the model: " +
		"with more runnable tasks than CPUs and no switch cost, the total time tasks wait is set by the CPU demand, " +
		"not by how it is sliced, so both replays leave the ratio within a few percent of 1 where 1.6 was published. " +
		"What raises the kernel's delays under EEVDF (wakeup placement " +
		"with lag, tick-granular slices ending early or late, the probe's wakeups preempting) is only partly modelled."
	return t, nil
}

// Hackbench is experiment 3: hackbench and pipe-test bound to one CPU, O(1)
// vs SD vs CFS.
func Hackbench(o Options) (Table, error) {
	groups, loops, pipeLoops := 10, 20, 1000
	if o.Small {
		groups, loops, pipeLoops = 2, 10, 200
	}
	m := mustModel("messaging", "groups="+strconv.Itoa(groups), "loops="+strconv.Itoa(loops))
	cfg := replay.DefaultConfig()
	cfg.CtxSwitch = 3_000 // ns per switch: direct cost plus cache refill, assumed
	pols := []string{"o1", "sd", "cfs"}
	run := func(m *replay.Model, synthetic bool) (map[string]float64, map[string]int64, error) {
		out, sw := map[string]float64{}, map[string]int64{}
		for _, p := range pols {
			res, err := Replay(m, p, 1, cfg)
			if err != nil {
				return nil, nil, err
			}
			if synthetic {
				out[p] = secs(synth.Makespan(m, res))
			} else {
				out[p] = secs(res.Makespan)
			}
			sw[p] = res.Stats.Switches
		}
		return out, sw, nil
	}
	hb, hsw, err := run(m, true)
	if err != nil {
		return Table{}, err
	}
	t := Table{
		Title: "3. hackbench and pipe-test on one CPU: O(1) vs SD vs CFS",
		Workload: fmt.Sprintf("`traceview synth messaging groups=%d loops=%d` (hackbench: 20 senders × 20 receivers per group) replayed on 1 CPU with a context-switch cost of 3 µs; "+
			"the recording messaging.1cpu.perf.data (perf bench sched messaging -g 4 -l 50 under taskset -c 0) replayed on 1 CPU; `traceview synth pipe` likewise", groups, loops),
		Source: "hackbench 90 bound to one core in the 2007 CFS/SD comparison on LKML: 16.24 s (O(1)), 12.53 s (SD), 13.54 s (CFS)",
	}
	for _, p := range []string{"sd", "cfs"} {
		t.Rows = append(t.Rows, Row{Case: "synthetic hackbench: " + p + " vs o1", Metric: "run time", Unit: "s",
			PubBase: 16.24, Pub: map[string]float64{"sd": 12.53, "cfs": 13.54}[p], PredBase: hb["o1"], Pred: hb[p]})
	}
	t.Extra = append(t.Extra, fmt.Sprintf("Synthetic hackbench switches: o1 %d, sd %d, cfs %d.", hsw["o1"], hsw["sd"], hsw["cfs"]))
	if rm, ok := o.trace("messaging.1cpu.perf.data"); ok {
		rb, rsw, err := run(rm, false)
		if err != nil {
			return t, err
		}
		for _, p := range []string{"sd", "cfs"} {
			t.Rows = append(t.Rows, Row{Case: "recorded messaging.1cpu: " + p + " vs o1", Metric: "makespan", Unit: "s",
				PubBase: 16.24, Pub: map[string]float64{"sd": 12.53, "cfs": 13.54}[p], PredBase: rb["o1"], Pred: rb[p]})
		}
		t.Extra = append(t.Extra, fmt.Sprintf("Recorded messaging.1cpu switches: o1 %d, sd %d, cfs %d.", rsw["o1"], rsw["sd"], rsw["cfs"]))
	}
	pm := mustModel("pipe", "loops="+strconv.Itoa(pipeLoops))
	pt, psw, err := run(pm, true)
	if err != nil {
		return t, err
	}
	t.Extra = append(t.Extra, fmt.Sprintf("Pipe-test (%d round trips of 5 µs passes, 1 CPU), no published figure in the issue: "+
		"o1 %.2f ms, sd %.2f ms, cfs %.2f ms; switches %d, %d, %d.", pipeLoops, pt["o1"]*1e3, pt["sd"]*1e3, pt["cfs"]*1e3, psw["o1"], psw["sd"], psw["cfs"]))
	t.Misses = fmt.Sprintf("Misses and sizes: on one CPU the total CPU demand is fixed, so run time differs between policies only "+
		"by the switch costs (3 µs each, assumed) and idle time. In the synthetic hackbench the O(1) interactivity "+
		"bonus makes woken receivers preempt senders (%d switches against %d for SD, %d for CFS): SD and CFS come out faster, ", hsw["o1"], hsw["sd"], hsw["cfs"]) +
		"the published direction, at a tenth of its size. The recorded messaging.1cpu run (4 groups, 50 loops) has " +
		"far fewer switches and its replay shows differences within ±1 %; the published gap at 90 groups also " +
		"contains the cache and lock effects of 3600 tasks, which the model lacks."
	return t, nil
}

// ManyTasks is experiment 4: about 1400 tasks with 70-80 runnable on 2
// CPUs, 2.4 goodness vs mq-hp: share of CPU lost to scheduling.
func ManyTasks(o Options) (Table, error) {
	args := []string{}
	if o.Small {
		args = []string{"tasks=1400", "runnable=75", "loops=2"}
	}
	m := mustModel("manytasks", args...)
	shown := strings.Join(args, " ")
	if shown == "" {
		shown = "tasks=1400 runnable=75 burst=200us loops=10"
	}
	cfg := replay.DefaultConfig()
	cfg.ScanCost = 250       // ns per runqueue entry goodness() examines, assumed (a task_struct cache miss on 2001 hardware)
	cfg.DecisionCost = 1_000 // ns per schedule() call outside the scan, assumed
	cfg.CtxSwitch = 3_000
	share := map[string]float64{}
	for _, p := range []string{"goodness24", "mq-hp"} {
		res, err := Replay(m, p, 2, cfg)
		if err != nil {
			return Table{}, err
		}
		share[p] = 100 * SchedShare(res)
	}
	t := Table{
		Title: "4. Many runnable tasks on 2 CPUs: 2.4 goodness() vs the HP multiqueue",
		Workload: fmt.Sprintf("`traceview synth manytasks %s` (sleeps sized so that about 75 tasks are runnable) on 2 CPUs; "+
			"costs assumed: 250 ns per runqueue entry scanned (and per task recalculated), 1 µs per decision, 3 µs per switch", shown),
		Source: "20 to 30 % of CPU lost to scheduling with the 2.4 scheduler at 70-80 runnable tasks (the 2001 HP and LSE multiqueue scheduler patch postings)",
		Rows: []Row{
			{Case: "goodness24", Metric: "share of CPU lost to scheduling", Unit: "%", PubBase: nan, Pub: 25, Lo: 20, Hi: 30, PredBase: nan, Pred: share["goodness24"]},
			{Case: "goodness24 vs mq-hp", Metric: "share of CPU lost to scheduling", Unit: "%", PubBase: nan, Pub: nan, PubDir: 1, PredBase: share["mq-hp"], Pred: share["goodness24"]},
		},
	}
	where := "inside"
	if !t.Rows[0].Match() {
		where = "outside"
	}
	t.Misses = fmt.Sprintf("The absolute share (here %.1f %%, %s the published 20-30 %%) scales with the assumed per-entry "+
		"cost of 250 ns and with the decision rate (200 µs bursts); the direction (the O(n) global scan and the epoch "+
		"recalculation over all tasks cost far more than per-CPU queue scans) does not depend on them.", share["goodness24"], where)
	return t, nil
}

// Latt is experiment 5: a latt-style wakeup latency probe under a make
// -j4-like load, CFS wakeup_granularity default vs 0.
func Latt(o Options) (Table, error) {
	args := []string{}
	if o.Small {
		args = []string{"loops=60"}
	}
	m := mustModel("latt", args...)
	type r struct{ avg, max, sw float64 }
	got := map[string]r{}
	for _, p := range []string{"cfs", "cfs:wakeup_granularity=0"} {
		res, err := Replay(m, p, 2, replay.DefaultConfig())
		if err != nil {
			return Table{}, err
		}
		c, err := Latency(res, "latt-client")
		if err != nil {
			return Table{}, err
		}
		j, err := Latency(res, "cc1")
		if err != nil {
			return Table{}, err
		}
		got[p] = r{ms(c.AvgDelay), ms(c.MaxDelay), float64(j.Switches)}
	}
	d, z := got["cfs"], got["cfs:wakeup_granularity=0"]
	t := Table{
		Title:    "5. latt under a make -j4-like load: CFS wakeup_granularity default vs 0",
		Workload: "`traceview synth latt` (a server wakes a client every 10 ms, the client runs 50 µs; 4 compile jobs of 20-60 ms bursts with 1 ms I/O sleeps) on 2 CPUs",
		Source:   "the 2009 latt/wakeup_granularity discussion on LKML (BFS vs -tip): setting sched_wakeup_granularity_ns to 0 lowers the client's wakeup latency (direction only; no figure in that discussion)",
		Rows: []Row{
			{Case: "wakeup_granularity=0 vs default (2 ms on 2 CPUs)", Metric: "latt-client avg delay", Unit: "ms", PubBase: nan, Pub: nan, PubDir: -1, PredBase: d.avg, Pred: z.avg},
			{Case: "wakeup_granularity=0 vs default", Metric: "latt-client max delay", Unit: "ms", PubBase: nan, Pub: nan, PubDir: -1, PredBase: d.max, Pred: z.max},
			{Case: "wakeup_granularity=0 vs default", Metric: "compile job switches", Unit: "switches", PubBase: nan, Pub: nan, PubDir: 1, PredBase: d.sw, Pred: z.sw},
		},
	}
	return t, nil
}

// All runs the five experiments.
func All(o Options) ([]Table, error) {
	var out []Table
	for _, f := range []func(Options) (Table, error){Pipeline, MassiveIntr, Hackbench, ManyTasks, Latt} {
		t, err := f(o)
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}
