package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/synth"
	"github.com/traceview/traceview/trace"
)

// Options size the experiments.
type Options struct {
	// Small runs reduced workloads (CI, tests): same shape, fewer frames,
	// loops and tasks.
	Small bool
	// TraceDir holds the shared recordings (../shared/traces); "" or a
	// missing directory skips the replays of recorded workloads.
	TraceDir string
	// Only, when set, runs only the experiment of that ID ("000".."004").
	Only string
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
func us(ns int64) float64   { return float64(ns) / 1e3 }

// Costs measured on this machine (a 2-vCPU AMD EPYC VM), used where an
// experiment needs a latency or cost the published figures do not give.
const (
	// measuredIdleExit and measuredWakePreempt are Model.IdleExit and
	// Model.WakePreempt of ../shared/traces/massive_intr.2cpu.perf.data
	// (the medians between a wakeup and the switch on an idle CPU, and on
	// a busy CPU the wakeup preempts), in ns.
	measuredIdleExit    = 10_159
	measuredWakePreempt = 10_329
	// measuredMiss is the latency of one dependent load that misses every
	// cache (a pointer chase over 64 MiB: BenchmarkDependentMiss), ns.
	measuredMiss = 250
	// measuredMessage is the CPU per hackbench message (send and receive)
	// in ns: 733.7 ms of run time for the 80000 messages of
	// messaging.1cpu.perf.data (perf bench sched messaging -g 4 -l 50 on
	// one CPU: 4 groups × 20 senders × 20 receivers × 50).
	measuredMessage = 9_170
	// measuredPipePass is half a round trip of `taskset -c 1 perf bench
	// sched pipe -l 100000` (7.9 µs per round trip): one write, one read
	// and one switch, ns.
	measuredPipePass = 3_950
	// measuredDiv is one 64-bit division by a divisor known only at run
	// time (BenchmarkDependentDiv: 5.1-5.3 ns over five runs, dependent
	// DIVQs; the lowest taken), ns.
	measuredDiv = 5.1
	// measuredDriver is the CPU of the gcc driver itself per compile, ns:
	// task-clock of `perf stat -r 20 gcc -### -c x.c` (1.57 ms; -### makes
	// the driver do its work and print the commands instead of running
	// cc1 and as).
	measuredDriver = 1_570_000
	// measuredL2 is this machine's L2 per CPU in bytes (lscpu: 1 MiB for
	// 2 instances).
	measuredL2 = 512 << 10
)

// piiiMiss is a main-memory miss on a Pentium III server of the 2001
// postings, ns: the DRAM access itself (tRAC 50-60 ns) is less than half
// of the latency the processor sees, and 160 ns is "a highly optimistic
// guess" for the 4-way Pentium III Xeon 450NX (Joe Chang, "Historical
// Systems", qdpma.com/ServerSystems/Historical.html, checked; the same
// page puts a 2-way Pentium II/III system's latency at more than twice
// tRAC, above 100-120 ns). One goodness() iteration costs one such miss:
// it follows p->run_list.next to a task_struct that is not in cache (1400
// of them, 1.7 KB each, against a 256-512 KB L2), and include/linux/sched.h
// v2.4 keeps every field goodness() reads (counter, nice, policy, mm,
// has_cpu, processor, cpus_allowed) and run_list.next in the one cache
// line from offset 32 ("only the 'next' pointer fits into the cacheline"),
// one 32-byte line of the Pentium III (checked).
const piiiMiss = 160

// Assumptions the posted experiments leave open, stated once.
const (
	// switchCost is the direct cost of a context switch, assumed half a
	// pipe-test pass (the pass is a switch plus a pipe write and read).
	switchCost = measuredPipePass / 2
	// pipeWrite is one pipe write: the rest of the pass, assumed split
	// evenly between the write and the read.
	pipeWrite = (measuredPipePass - switchCost) / 2
	// pipeRead is one pipe read, the other half of that rest.
	pipeRead = measuredPipePass - switchCost - pipeWrite
	// footprint is the cache working set a hackbench task touches per run
	// (its kernel stack top, task_struct and socket buffer heads), bytes:
	// an assumption.
	footprint = 2 << 10
)

// The x264 CPU, the Q9300 of the posting: 4 cores in two dual-core dies,
// each die one shared L2 (Intel Core 2 Quad Q9300 datasheet): llc_size=2.
const q9300 = "llc_size=2"

// The CFS variants of the x264 postings: Linux 2.6.31/2.6.32-tip defaults
// (era=2.6.31: NEXT_BUDDY and LB_BIAS on, cpu_load history, no newly idle
// balancing) and the same with the two features off.
const (
	cfsWith    = "cfs:era=2.6.31," + q9300
	cfsNoLB    = "cfs:era=2.6.31,NO_LB_BIAS," + q9300
	cfsNoNB    = "cfs:era=2.6.31,NO_NEXT_BUDDY," + q9300
	cfsWithout = "cfs:era=2.6.31,NO_NEXT_BUDDY,NO_LB_BIAS," + q9300
	bfsQ9300   = "bfs:era=2.6.31"
)

// hz1000 is the configuration of the experiments on 2009 desktop kernels
// (CONFIG_HZ_1000, as era=2.6.31 says) with the wakeup latencies measured
// on this machine.
func hz1000() replay.Config {
	cfg := replay.DefaultConfig()
	cfg.HZ = 1000
	cfg.IdleExit, cfg.WakePreempt = measuredIdleExit, measuredWakePreempt
	return cfg
}

// Pipeline is experiment 000: the x264-style pipeline, 1 to 8 threads on
// 4 CPUs, BFS vs CFS with and without NEXT_BUDDY and LB_BIAS.
func Pipeline(o Options) (Table, error) {
	frames := 600
	threads := []int{1, 2, 3, 4, 5, 6, 8}
	if o.Small {
		frames, threads = 120, []int{1, 4}
	}
	pols := []string{bfsQ9300, cfsWith, cfsNoLB, cfsNoNB, cfsWithout}
	fps := map[string]map[int]float64{}
	var extra []string
	extra = append(extra, "Predicted fps by thread count (`traceview synth x264`, 4 CPUs):\n",
		"| threads | "+strings.Join(pols, " | ")+" |", "|---|"+strings.Repeat("---|", len(pols)))
	for _, n := range threads {
		m := mustModel("x264", "threads="+strconv.Itoa(n), "frames="+strconv.Itoa(frames))
		line := fmt.Sprintf("| %d |", n)
		for _, p := range pols {
			res, err := Replay(m, p, 4, hz1000())
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
	mech := "CFS of 2.6.31 (policies era=2.6.31: sched_latency 20 ms × 3, a full sched_latency of sleeper credit, the tick " +
		"preempting only after sched_slice, NEXT_BUDDY, LB_BIAS with the cpu_load history " +
		"(idle_idx 1, 0 within an L2), CACHE_HOT_BUDDY, no SD_BALANCE_NEWIDLE, no select_idle_sibling, balance intervals of " +
		"1 to 4 ms (× 64 busy), tickless idle with its idle load balancer (NOHZ_LOAD); kernel/sched_fair.c, " +
		"kernel/sched.c, include/linux/topology.h v2.6.31, the x86_64 defconfig's CONFIG_NO_HZ) on the " +
		"Q9300's two shared L2s (llc_size=2), HZ 1000; BFS of 2009 (bfs:era=2.6.31, the BFS of the postings: kernel/sched_bfs.c of the 2.6.31 patch)"
	t := Table{
		ID:    "000",
		Title: "000. x264 --threads 4: BFS vs CFS with and without NEXT_BUDDY/LB_BIAS",
		Workload: fmt.Sprintf("`traceview synth x264 threads=N frames=%d` (x264's sliceless frame threading: a main thread "+
			"dispatching frames, each encoder row waiting for the previous frame to be 7 of 45 rows ahead, 130 fps on one "+
			"thread as posted) replayed on 4 CPUs at HZ 1000; the recording pipeline.2cpu (pipeline.c, whole-frame waits) on 4 CPUs", frames),
		Source: "the BFS vs CFS x264 comparison on LKML (2.6.31/2.6.32-tip, Core 2 Quad Q9300, 2009): at 4 threads 447.69 fps (BFS), " +
			"242.54 fps (CFS with NEXT_BUDDY and LB_BIAS), about 250 (NEXT_BUDDY, NO_LB_BIAS), about 345 (NO_NEXT_BUDDY, LB_BIAS), " +
			"418 to 425 (neither)",
		Extra: extra,
	}
	n := 4
	row := func(c, metric string, pub float64, base, pred float64, head bool) Row {
		return Row{Case: c, Metric: metric, Unit: "fps", PubBase: 242.54, Pub: pub, PredBase: base, Pred: pred, Headline: head, Mechanism: mech}
	}
	t.Rows = append(t.Rows,
		row("4 threads: "+bfsQ9300+" vs "+cfsWith, "frames per second", 447.69, fps[cfsWith][n], fps[bfsQ9300][n], true),
		row("4 threads: "+cfsNoLB+" vs "+cfsWith, "frames per second", 250, fps[cfsWith][n], fps[cfsNoLB][n], false),
		row("4 threads: "+cfsNoNB+" vs "+cfsWith, "frames per second", 345, fps[cfsWith][n], fps[cfsNoNB][n], false),
		row("4 threads: "+cfsWithout+" vs "+cfsWith, "frames per second", 421.5, fps[cfsWith][n], fps[cfsWithout][n], false))
	if m, ok := o.trace("pipeline.2cpu.perf.data"); ok {
		got := map[string]float64{}
		for _, p := range []string{bfsQ9300, cfsWith, cfsWithout} {
			res, err := Replay(m, p, 4, hz1000())
			if err != nil {
				return Table{}, err
			}
			got[p] = 300 / secs(res.Makespan)
		}
		t.Rows = append(t.Rows,
			row("recorded pipeline.2cpu (4 threads) on 4 CPUs: "+bfsQ9300+" vs "+cfsWith, "frames per second", 447.69, got[cfsWith], got[bfsQ9300], false),
			row("recorded pipeline.2cpu on 4 CPUs: "+cfsWithout+" vs "+cfsWith, "frames per second", 421.5, got[cfsWith], got[cfsWithout], false))
	}
	t.Misses = "In the model CFS of 2.6.31 loses frames when a woken encoder lands on a busy CPU (no idle-sibling search) " +
		"and the idle CPUs do not pull it: no newly idle balancing; under NO_HZ an idle CPU keeps the cpu_load history " +
		"of its last busy tick, which LB_BIAS reads, so it still looks loaded; and the queued encoder is the next buddy, " +
		"which CACHE_HOT_BUDDY keeps where it is. " +
		fmt.Sprintf("The stuck CFS runs at %.0f fps against the posted 242.54. ", fps[cfsWith][n]) +
		"In the model either feature off frees nearly all of it, where the postings saw part of the gain from each " +
		fmt.Sprintf("(250 and 345 fps; predicted %.0f and %.0f). ", fps[cfsNoLB][n], fps[cfsNoNB][n]) +
		"The model has no cache or memory-bandwidth effects, so BFS reaches 4 times the one-thread rate where the " +
		"postings saw 3.4. The recorded pipeline (300 µs frames, whole-frame waits, recorded on 2 CPUs) stalls for " +
		"one short frame at a time, so the balancing features that decide how long a stall lasts move it little. " +
		"One 2.6.31 detail was tried and left out because it breaks what it does not explain: 2.6.31's wakeup " +
		"placement (wake_affine and passive balancing on cpu_load[wake_idx 1] through LB_BIAS) made CFS with LB_BIAS " +
		"fast (464 fps) and without it slow, the reverse of the postings, as long as avg_overlap, which vetoes sync " +
		"affine wakeups of threads that keep running, is not modelled."
	return t, nil
}

// Latt is experiment 001: latt -c8 under a make -j4-like build on a dual
// core, BFS of 2009 vs CFS (2.6.31-era -tip) with wakeup_granularity 0.
func Latt(o Options) (Table, error) {
	// 30 s ('sleep 30') of 10 ms periods; each of the server's writes costs
	// one pipe write of this machine, each client's wakeup one pipe read
	// (a latt client reads the timestamp from its pipe and takes the time).
	write := "write=" + strconv.Itoa(pipeWrite) + "ns"
	work := "client_work=" + strconv.Itoa(pipeRead) + "ns"
	driver := "driver=" + strconv.Itoa(measuredDriver) + "ns"
	args := []string{"loops=3000", work, write, driver}
	if o.Small {
		args = []string{"loops=300", work, write, driver}
	}
	type r struct{ avg, max, sw float64 }
	got := map[string]r{}
	const tip, tip0 = "cfs:era=2.6.31", "cfs:era=2.6.31,wakeup_granularity=0"
	const bfs09, bfs440 = "bfs:era=2.6.31", "bfs"
	// The maximum of one run is one rare event, and which one occurs turns
	// on nanoseconds: each policy runs lattRuns times with the pipe costs
	// shifted by 0, 1, ... ns; a row gives the median of the maxima and
	// the mean of the averages and switch counts.
	maxima := map[string][]float64{}
	for k := 0; k < lattRuns; k++ {
		ka := append([]string(nil), args...)
		ka[1] = "client_work=" + strconv.Itoa(pipeRead+k) + "ns"
		ka[2] = "write=" + strconv.Itoa(pipeWrite+k) + "ns"
		m := mustModel("latt_make", ka...)
		for _, p := range []string{bfs09, tip, tip0} {
			res, err := Replay(m, p, 2, hz1000())
			if err != nil {
				return Table{}, err
			}
			avg, worst := WakeupLatencyFrom(res, "latt-client", lattWarmup)
			j, err := Latency(res, "cc1")
			if err != nil {
				return Table{}, err
			}
			g := got[p]
			g.avg += us(avg) / lattRuns
			g.sw += float64(j.Switches) / lattRuns
			got[p] = g
			maxima[p] = append(maxima[p], us(worst))
		}
	}
	for p, xs := range maxima {
		sort.Float64s(xs)
		g := got[p]
		g.max = xs[len(xs)/2]
		got[p] = g
	}
	mech := "BFS of 2009 (bfs:era=2.6.31: deadlines in jiffies, kept across sleep and inherited by a forked child; the first " +
		"expired deadline in queue order runs first; a sync wakeup, as a pipe write's, preempts nothing while no CPU is idle; " +
		"rr_interval 12 ms on 2 CPUs; kernel/sched_bfs.c of the 2.6.31 patch) against CFS of 2.6.31 (era=2.6.31, " +
		"wakeup_granularity 0: a wakee preempts when its vruntime is below the current task's; check_preempt_wakeup, kernel/sched_fair.c v2.6.31); " +
		"HZ 1000; wakeup latencies measured on this machine (10.2 µs idle exit, 10.3 µs preemption); the first 10 ms left out (every task of the model starts at once there)"
	t := Table{
		ID:    "001",
		Title: "001. latt -c8 under make -j4 on a dual core: BFS vs CFS with wakeup_granularity 0",
		Workload: fmt.Sprintf("`traceview synth latt_make %s` (a server writing a timestamp to each of 8 clients' pipes in "+
			"turn every 10 ms, as latt's loop over its clients does, %d ns of CPU per write and %d ns per client wakeup "+
			"(a pipe write and a pipe read of this machine: half each of a pipe-test pass less the switch); 4 job slots "+
			"(make, 500 µs per job) each forking a gcc driver (%.2f ms of CPU, the driver's own measured on this machine) "+
			"that forks a compile process cc1 of 10-30 ms CPU bursts with 1 ms I/O sleeps; the period and "+
			"the build's sizes are assumptions) on 2 CPUs", strings.Join(args, " "), pipeWrite, pipeRead, float64(measuredDriver)/1e6),
		Source: "the 2009 latt discussion on LKML (BFS vs -tip): -tip with sched_wakeup_granularity_ns 0: max 50 µs, avg 12 µs; " +
			"BFS: max 474 µs, avg 11 µs",
		Rows: []Row{
			{Case: bfs09 + " vs " + tip0, Metric: "latt-client max wakeup latency", Unit: "µs", PubBase: 50, Pub: 474, PredBase: got[tip0].max, Pred: got[bfs09].max, Headline: true, Mechanism: mech},
			{Case: bfs09 + " vs " + tip0, Metric: "latt-client avg wakeup latency", Unit: "µs", PubBase: 12, Pub: 11, PredBase: got[tip0].avg, Pred: got[bfs09].avg, Mechanism: mech},
			{Case: "wakeup_granularity=0 vs era default (15 ms on 2 CPUs)", Metric: "latt-client avg wakeup latency", Unit: "µs", PubBase: nan, Pub: nan, PubDir: -1, PredBase: got[tip].avg, Pred: got[tip0].avg, Mechanism: mech},
			{Case: "wakeup_granularity=0 vs era default", Metric: "compile job switches", Unit: "switches", PubBase: nan, Pub: nan, PubDir: 1, PredBase: got[tip].sw, Pred: got[tip0].sw, Mechanism: mech},
		},
	}
	t.Extra = append(t.Extra, fmt.Sprintf("Maxima of the %d runs (µs): %s: %s; %s: %s.\n", lattRuns, bfs09, floats(maxima[bfs09]), tip0, floats(maxima[tip0])))
	// Which BFS mechanism makes the maximum, and the client's work: the
	// maxima with each 2009 switch off, v0.440, and at other client work.
	if !o.Small {
		t.Extra = append(t.Extra, "latt-client wakeup latency (average / maximum of one run) by policy and client work per wakeup:\n",
			"| policy | "+strconv.Itoa(pipeRead)+" ns | 5 µs |", "|---|---|---|")
		models := map[string]*replay.Model{}
		for _, w := range []string{strconv.Itoa(pipeRead) + "ns", "5us"} {
			models[w] = mustModel("latt_make", "loops=3000", "client_work="+w, write, driver)
		}
		for _, p := range []string{bfs09, bfs09 + ",NO_EXPIRED_FIFO", bfs09 + ",NO_SYNC_NO_PREEMPT", bfs09 + ",NO_RR_SCALE",
			bfs09 + ",NO_JIFFY_DEADLINE", bfs440, tip0} {
			line := "| " + p + " |"
			for _, w := range []string{strconv.Itoa(pipeRead) + "ns", "5us"} {
				res, err := Replay(models[w], p, 2, hz1000())
				if err != nil {
					return t, err
				}
				a, worst := WakeupLatencyFrom(res, "latt-client", lattWarmup)
				line += fmt.Sprintf(" %.1f / %.0f µs |", us(a), us(worst))
			}
			t.Extra = append(t.Extra, line)
		}
	}
	t.Misses = "Under the 2009 BFS the maximum is a rare wait behind a compile job: make forks gcc and gcc forks cc1, " +
		"each child inheriting its parent's deadline (long expired, as make and the driver sleep most of the time) " +
		"with half of its remaining slice (sched_fork), so a cc1 runs with an expired deadline for about a quarter of " +
		"make's slice, less the driver's own CPU, ahead of the clients in queue order (EXPIRED_FIFO); the clients, woken " +
		"by sync pipe writes, preempt nothing while both CPUs are busy (SYNC_NO_PREEMPT); the table above shows each " +
		"switch's part. Such a wait occurs a few times in 30 s, as the posted single 474 µs maximum suggests; its length " +
		"is what is left of that quarter slice or of the cc1's burst, so the maxima of the runs spread widely (above) and " +
		"the headline takes their median. Without the driver (make forking cc1 itself, half of make's slice) the median " +
		"maximum was 1410 µs. The averages are this machine's: its measured 10 µs wakeup latencies dominate them; under " +
		"the 2009 BFS a sync-woken client waits for the server's remaining writes and the clients queued before it " +
		"(about 1 µs each) where the CFS client pays the 10 µs preemption, and the two land within 2 % of each other, " +
		"as the posting's 11 and 12 µs are within 1 µs."
	return t, nil
}

// lattRuns is how many runs experiment 001 takes the median maximum of.
const lattRuns = 5

// floats prints xs with no decimals, comma-separated.
func floats(xs []float64) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(out, ", ")
}

// lattWarmup is the start of experiment 001's latency statistics, ns: the
// first server period, when every task of the model (server, clients and
// build) starts at once; latt ran under a build already running.
const lattWarmup = 10_000_000

// Hackbench is experiment 002: hackbench 90 and pipe-test bound to one
// CPU, O(1) vs SD vs CFS.
func Hackbench(o Options) (Table, error) {
	groups, loops, pipeLoops := 90, 10, 10000
	if o.Small {
		groups, loops, pipeLoops = 20, 5, 1000
	}
	send := strconv.Itoa(measuredMessage/2) + "ns"
	m := mustModel("messaging", "groups="+strconv.Itoa(groups), "loops="+strconv.Itoa(loops), "send="+send, "recv="+send)
	cfg := replay.DefaultConfig()
	cfg.ContextSwitchCost = switchCost
	cfg.ColdSwitch = footprint / 64 * measuredMiss
	cfg.CacheTasks = measuredL2 / footprint
	pols := []string{"o1", "sd", "cfs:era=2.6.23"}
	run := func(m *replay.Model, synthetic bool, cfg replay.Config) (map[string]float64, map[string]int64, error) {
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
	hb, hsw, err := run(m, true, cfg)
	if err != nil {
		return Table{}, err
	}
	mech := fmt.Sprintf("O(1) of 2.6.21 (the interactivity estimator: receivers, asleep most of the time, earn a sleep_avg bonus "+
		"the ever-running senders lack, and a woken receiver with the better prio preempts its sender at every message, "+
		"TASK_PREEMPTS_CURR; MAX_BONUS, MAX_SLEEP_AVG, DEF_TIMESLICE as in kernel/sched.c v2.6.21), SD of "+
		"2.6.22-ck1, CFS of 2.6.23 (era=2.6.23); a switch costs %.2f µs (half a pipe-test pass measured on this machine) plus a cache "+
		"refill of %.1f µs × min(k, %d)/%d after k other switches (a %d KiB footprint, assumed, refilled at %d ns per 64-byte line, "+
		"measured here, in a %d KiB L2, this machine's)", us(cfg.ContextSwitchCost), us(cfg.ColdSwitch), cfg.CacheTasks, cfg.CacheTasks,
		footprint>>10, measuredMiss, measuredL2>>10)
	t := Table{
		ID:    "002",
		Title: "002. hackbench and pipe-test on one CPU: O(1) vs SD vs CFS",
		Workload: fmt.Sprintf("`traceview synth messaging groups=%d loops=%d send=%s recv=%s` (hackbench %d: %d tasks; "+
			"the per-message CPU measured on this machine, messaging.1cpu; a receiver reads its socket in arrival order, "+
			"all of one sender's messages before the next sender's, as when the senders run one after another) on 1 CPU; "+
			"the recording messaging.1cpu.perf.data "+
			"(perf bench sched messaging -g 4 -l 50 under taskset -c 0) on 1 CPU; `traceview synth pipe loops=%d work=%s`",
			groups, loops, send, send, groups, groups*40, pipeLoops, strconv.Itoa(measuredPipePass-switchCost)+"ns"),
		Source: "hackbench 90 bound to one core in the 2007 CFS/SD comparison on LKML: 16.24 s (2.6.21, O(1)), 12.53 s " +
			"(2.6.22-ck1, SD), 13.54 s (2.6.23 CFS); pipe-test 9.28 / 8.47 / 8.54",
	}
	pubHB := map[string]float64{"sd": 12.53, "cfs:era=2.6.23": 13.54}
	for _, p := range []string{"sd", "cfs:era=2.6.23"} {
		t.Rows = append(t.Rows, Row{Case: fmt.Sprintf("hackbench %d: %s vs o1", groups, p), Metric: "run time", Unit: "s",
			PubBase: 16.24, Pub: pubHB[p], PredBase: hb["o1"], Pred: hb[p], Headline: p == "sd", Mechanism: mech})
	}
	t.Extra = append(t.Extra, fmt.Sprintf("Hackbench %d switches: o1 %d, sd %d, cfs %d.", groups, hsw["o1"], hsw["sd"], hsw["cfs:era=2.6.23"]))
	// How much the O(1) rows rest on the sleep_avg of the workload's root,
	// which no trace shows (o1 start_sleep_avg, 0 above).
	long, err := Replay(m, "o1:start_sleep_avg=900ms", 1, cfg)
	if err != nil {
		return Table{}, err
	}
	lt := secs(synth.Makespan(m, long))
	t.Extra = append(t.Extra, fmt.Sprintf("The O(1) rows rest on the sleep_avg of the task the workload starts from, which a trace "+
		"cannot show; the model gives it none (o1 start_sleep_avg 0), and children inherit CURRENT_BONUS × 95 / 100 "+
		"(wake_up_new_task, kernel/sched.c v2.6.21). Taken for a long sleeper instead (start_sleep_avg=900ms, "+
		"MAX_SLEEP_AVG − DEF_TIMESLICE, as a shell waiting for its user gets; the synthetic tasks have no parent, so each "+
		"starts at bonus 9), a receiver preempts a sender only once its sleep has taken it past the sender's bonus: O(1) runs hackbench %d in %.2f s (%d switches), "+
		"SD / O(1) %.3f (log size %.2f against the published 0.772).", groups, lt, long.Stats.Switches, hb["sd"]/lt,
		math.Log(hb["sd"]/lt)/math.Log(12.53/16.24)))
	recMiss := ""
	if rm, ok := o.trace("messaging.1cpu.perf.data"); ok {
		rcfg := cfg
		rcfg.ColdSwitch, rcfg.CacheTasks = 0, 0 // the recorded bursts contain the recording machine's cache refills
		rb, rsw, err := run(rm, false, rcfg)
		if err != nil {
			return t, err
		}
		for _, p := range []string{"sd", "cfs:era=2.6.23"} {
			t.Rows = append(t.Rows, Row{Case: "recorded messaging.1cpu: " + p + " vs o1", Metric: "makespan", Unit: "s",
				PubBase: 16.24, Pub: pubHB[p], PredBase: rb["o1"], Pred: rb[p], Mechanism: mech})
		}
		t.Extra = append(t.Extra, fmt.Sprintf("Recorded messaging.1cpu switches: o1 %d, sd %d, cfs %d.", rsw["o1"], rsw["sd"], rsw["cfs:era=2.6.23"]))
		// The most O(1)'s wakee preemption can add within the model: two
		// switches (to the wakee and back) at each wakeup the recording
		// shows in the middle of its waker's burst.
		mid := midBurstWakeups(rm)
		bound := rb["sd"] / (rb["sd"] + secs(2*int64(mid)*rcfg.ContextSwitchCost))
		recMiss = fmt.Sprintf("The recording cannot show O(1)'s ping-pong: recorded under a modern kernel, each receiver "+
			"read many messages per burst (SD replays its 80000 messages with %d switches), and the replay model knows when a sender woke it "+
			"but not which message each part of its burst read, so a receiver that preempts its sender still runs its whole "+
			"recorded burst. The recording shows %d wakeups in the middle of the waker's burst; if O(1)'s wakee preempted its "+
			"waker at every one (two switches of %.2f µs each), SD over O(1) would still be %.4f, within the 1 %% this table "+
			"counts as no change: no mechanism that preempts only at the recorded wakeup points can bring these two rows "+
			"(O(1) switches %d times here, SD %d). ", rsw["sd"], mid, us(rcfg.ContextSwitchCost), bound, rsw["o1"], rsw["sd"])
	}
	pm := mustModel("pipe", "loops="+strconv.Itoa(pipeLoops), "work="+strconv.Itoa(measuredPipePass-switchCost)+"ns")
	pcfg := cfg
	pcfg.ColdSwitch, pcfg.CacheTasks = 0, 0
	pt, psw, err := run(pm, true, pcfg)
	if err != nil {
		return t, err
	}
	pubPT := map[string]float64{"sd": 8.47, "cfs:era=2.6.23": 8.54}
	for _, p := range []string{"sd", "cfs:era=2.6.23"} {
		t.Rows = append(t.Rows, Row{Case: "pipe-test: " + p + " vs o1", Metric: "run time", Unit: "s",
			PubBase: 9.28, Pub: pubPT[p], PredBase: pt["o1"], Pred: pt[p], Mechanism: mech})
	}
	t.Extra = append(t.Extra, fmt.Sprintf("Pipe-test switches: o1 %d, sd %d, cfs %d.", psw["o1"], psw["sd"], psw["cfs:era=2.6.23"]))
	// The posting's pipe-test gap in ns per pass of this machine, against
	// the one division O(1)'s schedule() adds.
	gap := (1 - pubPT["sd"]/9.28) * measuredPipePass
	t.Misses = "On one CPU the CPU demand is fixed, so the run time differs between policies only by what switches " +
		"cost and how often each policy switches: O(1) switches about twice per message (the receiver preempts, reads, " +
		"sleeps), SD and CFS about once per task (a sender runs out its burst). CFS 2.6.23 therefore lands next to SD, " +
		"where the posting saw it 8 % behind: the model prices neither the precise sched_clock() nor the start-up " +
		"penalty of new tasks that Ingo Molnar named for that gap. " + recMiss +
		"Pipe-test switches on every pass under all three, so the model gives them the same time: the published gap is " +
		"the cost of their schedule() and wakeup paths, which the model does not price. Counted in kernel/sched.c v2.6.21, " +
		"O(1)'s sleep_avg bookkeeping per pass is two sched_clock() reads (activate_task and schedule()), two " +
		"recalc_task_prio/effective_prio (multiplications and divisions by constants, which compile to multiplications) and " +
		fmt.Sprintf("one division by a variable (schedule(): run_time /= CURRENT_BONUS(prev)), %.1f ns on this machine "+
			"(BenchmarkDependentDiv), %.2f %% of a %.2f µs pass, where the posting's %.1f %% between O(1) and SD would be "+
			"%.0f ns per pass; the clock reads have their counterparts in SD and CFS (Ingo Molnar named CFS's as a cost), "+
			"so no count of these operations reaches the 1 %% this table counts as a change, and the rows stay unpriced.",
			measuredDiv, 100*measuredDiv/measuredPipePass, us(measuredPipePass), 100*(1-pubPT["sd"]/9.28), gap)
	return t, nil
}

// ManyTasks is experiment 003: about 1400 tasks with 70-80 runnable on 2
// CPUs, the 2.4 scheduler vs the HP multiqueue: CPU lost to scheduling.
func ManyTasks(o Options) (Table, error) {
	args := []string{"tasks=1400", "runnable=75", "burst=200us", "loops=10"}
	if o.Small {
		args = []string{"tasks=1400", "runnable=75", "burst=200us", "loops=2"}
	}
	m := mustModel("manytasks", args...)
	cfg := replay.DefaultConfig()
	cfg.HZ = 0 // the era's: HZ 100
	cfg.ContextSwitchCost = switchCost
	entry := strconv.Itoa(piiiMiss) + "ns"
	g24 := "goodness24:era=2.4,entry_cost=" + entry
	hp := "mq-hp:RUNQUEUE_LOCK,entry_cost=" + entry
	lse := "mq-lse:RUNQUEUE_LOCK,entry_cost=" + entry
	share, runnable := map[string]float64{}, map[string]float64{}
	for _, p := range []string{g24, hp, lse} {
		c := cfg
		if strings.HasPrefix(p, "mq-") {
			c.HZ = 100
		}
		res, err := Replay(m, p, 2, c)
		if err != nil {
			return Table{}, err
		}
		share[p] = 100 * SchedShare(res)
		lr, err := Latency(res, "")
		if err != nil {
			return Table{}, err
		}
		// Mean runnable tasks (waiting or running) over the run: perf
		// sched latency's delays count from a wakeup, so the wait of a
		// task runnable from its start until it first runs is added.
		runnable[p] = float64(lr.SumDelay+lr.Runtime+initialWaits(m, res)) / float64(max(res.Makespan, 1))
	}
	mech := fmt.Sprintf("the 2.4 schedule() (goodness24 era=2.4): goodness() walks the global runqueue under the global "+
		"runqueue_lock, one cache miss per entry (%d ns, a Pentium III server's memory latency, qdpma.com Historical Systems), the other CPU's decision "+
		"waits for the lock, a wakeup takes the same lock (try_to_wake_up: add_to_runqueue and reschedule_idle under it) and spins while "+
		"the other CPU scans, the epoch recalculation walks all tasks under tasklist_lock (kernel/sched.c v2.4.x), HZ 100 "+
		"(include/asm-i386/param.h v2.4); the HP multiqueue with one lock per CPU queue; %.2f µs per switch", piiiMiss, us(switchCost))
	t := Table{
		ID:    "003",
		Title: "003. Many runnable tasks on 2 CPUs: 2.4 goodness() vs the HP multiqueue",
		Workload: fmt.Sprintf("`traceview synth manytasks %s` (sleeps sized so that about 75 tasks are runnable) on 2 CPUs",
			strings.Join(args, " ")),
		Source: "20 to 30 % of CPU lost to scheduling with the 2.4 scheduler at 70-80 runnable tasks, the HP and LSE " +
			"multiqueue patches reaching 100 % utilisation (the 2001 HP and LSE multiqueue scheduler postings); the posting " +
			"behind the LSE figure: Fabio Riccardi, LKML 2001-03-29 \"Re: linux scheduler limitations?\" (<3AC3F638.FE761EAB@chromium.com>): " +
			"Apache with more than 1050 processes on two 1 GHz Pentium IIIs, 2.4.2-ac26; with the LSE multiqueue patch for 2.4.1 " +
			"100 % CPU utilisation and SPECweb 1300 → 1600",
		Rows: []Row{
			{Case: "goodness24 vs mq-hp", Metric: "CPU share doing task work", Unit: "%", PubBase: 100, Pub: 75,
				PredBase: 100 - share[hp], Pred: 100 - share[g24], Headline: true, Mechanism: mech},
			{Case: "goodness24", Metric: "share of CPU lost to scheduling", Unit: "%", PubBase: nan, Pub: 25, Lo: 20, Hi: 30, PredBase: nan, Pred: share[g24], Mechanism: mech},
			{Case: "goodness24 vs mq-hp", Metric: "share of CPU lost to scheduling", Unit: "%", PubBase: nan, Pub: nan, PubDir: 1, PredBase: share[hp], Pred: share[g24], Mechanism: mech},
			{Case: "goodness24 vs mq-lse", Metric: "throughput (posted: SPECweb; predicted: CPU share doing task work)", Unit: "", PubBase: 1600, Pub: 1300,
				PredBase: 100 - share[lse], Pred: 100 - share[g24], Mechanism: mech},
		},
	}
	t.Misses = fmt.Sprintf("The share lost (here %.1f %% for 2.4, %.1f %% for mq-hp) scales with the per-entry cost, "+
		"one memory latency of the era's servers, over the CPU a task runs between two decisions (the 200 µs burst, an "+
		"assumption: the postings give none); the switch cost is this machine's (an assumption for 2001 hardware). "+
		"Under 2.4 every wakeup takes the global runqueue_lock as well, so a wakeup on one CPU spins while the other "+
		"scans (without these spins and holds the model's 2.4 lost 17.6 %%). The offered load is about the two CPUs' capacity, so the run queue is what the scheduler's own cost makes it: "+
		"on average %.0f tasks runnable under 2.4 (the postings saw 70-80) and %.0f under mq-hp; at 75 runnable the "+
		"model's 2.4 would lose less (12 µs of scan, 75 × 160 ns, per 200 µs burst). "+
		"The one primary posting found for these figures (Riccardi, LKML 2001-03-29) gives throughput, not the share "+
		"lost: SPECweb 1300 under 2.4 and 1600 with the LSE multiqueue patch (0.81), against the model's task-work "+
		"share of 2.4 over mq-lse (%.1f %% lost under mq-lse); its two 1 GHz Pentium IIIs are not the 450NX server whose memory "+
		"latency the entry cost is, and it gives neither the runnable count nor the CPU per request.",
		share[g24], share[hp], runnable[g24], runnable[hp], share[lse])
	return t, nil
}

// initialWaits returns the ns the tasks of m that start runnable wait from
// their start until they first run in res.
func initialWaits(m *replay.Model, res *replay.Result) int64 {
	start := map[trace.TID]int64{}
	for _, t := range m.Tasks {
		if t.Init == replay.InitRunnable {
			start[t.TID] = t.Start
		}
	}
	var sum int64
	for _, e := range res.Events() {
		if e.Kind != trace.KindSwitch {
			continue
		}
		if s, ok := start[e.NextTID]; ok {
			sum += max(e.Time-s, 0)
			delete(start, e.NextTID)
		}
	}
	return sum
}

// MassiveIntr is experiment 004: massive_intr beside a video player on 8
// CPUs, 6.3-rc EEVDF vs 6.2 CFS, perf sched latency totals.
func MassiveIntr(o Options) (Table, error) {
	args := []string{}
	if o.Small {
		args = []string{"frames=60"}
	}
	m := mustModel("massive_video", args...)
	const cfs62, eevdf63 = "cfs:era=6.2,llc_size=8", "eevdf:era=6.3,llc_size=8"
	mech := "EEVDF as posted for 6.3-rc (era=6.3: base_slice 0.75 ms × 4 on 8 CPUs; the series' check_preempt_tick, which " +
		"preempts at every tick when pick_eevdf prefers another task, TICK_PICK, replaced on 2023-04-20; no RUN_TO_PARITY, " +
		"PREEMPT_SHORT or DELAY_DEQUEUE) against CFS of 6.2 (era=6.2), HZ 1000, one LLC of 8 CPUs (the i7-4790's shared L3, Intel datasheet)"
	t := Table{
		ID:    "004",
		Title: "004. massive_intr beside a video player: EEVDF over CFS",
		Workload: "`traceview synth massive_video " + strings.Join(args, " ") + "` (8 massive_intr processes running 8 ms and " +
			"sleeping 1 ms beside a 60 fps player: demuxer, 4 decode threads of 6 ms per frame, compositor, X; about 1.6 CPUs, " +
			"assumed) on 8 CPUs; and the recording " +
			"massive_intr.2cpu.perf.data (massive_intr 8 8 1 2 with cyclictest) on its 2 CPUs",
		Source: "EEVDF over CFS in the 6.3-rc EEVDF series postings (perf sched latency totals of all tasks, i7-4790, " +
			"massive_intr 8 9999 beside Firefox playing a video): run time 0.999, switches 1.777, sum of scheduling delays 1.602",
	}
	add := func(label string, m *replay.Model, cpus int, head bool) error {
		var rows [2]struct{ rt, sw, sum float64 }
		for i, p := range []string{cfs62, eevdf63} {
			res, err := Replay(m, p, cpus, hz1000())
			if err != nil {
				return err
			}
			r, err := Latency(res, "")
			if err != nil {
				return err
			}
			rows[i].rt, rows[i].sw, rows[i].sum = float64(r.Runtime), float64(r.Switches), float64(r.SumDelay)
		}
		for _, x := range []struct {
			metric    string
			pub, a, b float64
		}{{"total run time", 0.999, rows[0].rt, rows[1].rt}, {"total switches", 1.777, rows[0].sw, rows[1].sw}, {"total sum delay", 1.602, rows[0].sum, rows[1].sum}} {
			t.Rows = append(t.Rows, Row{Case: label + ": " + eevdf63 + " / " + cfs62, Metric: x.metric, Unit: "ratio", PubBase: nan,
				Pub: x.pub, PredBase: nan, Pred: x.b / x.a, Headline: head && x.metric == "total switches", Mechanism: mech})
		}
		return nil
	}
	if err := add("synthetic, 8 CPUs", m, 8, true); err != nil {
		return t, err
	}
	// The player's load is an assumption: the switch ratio at other
	// decode costs, for the reader to judge.
	if !o.Small {
		t.Extra = append(t.Extra, "Total switches EEVDF / CFS by the assumed decode CPU per frame (4 decode threads, 60 fps):\n",
			"| decode per frame | player CPUs | switches ratio |", "|---|---|---|")
		for _, d := range []string{"1ms", "3ms", "6ms", "8ms"} {
			dm := mustModel("massive_video", "decode="+d)
			var sw [2]float64
			for i, p := range []string{cfs62, eevdf63} {
				res, err := Replay(dm, p, 8, hz1000())
				if err != nil {
					return t, err
				}
				r, err := Latency(res, "")
				if err != nil {
					return t, err
				}
				sw[i] = float64(r.Switches)
			}
			ms, _ := strconv.ParseFloat(strings.TrimSuffix(d, "ms"), 64)
			t.Extra = append(t.Extra, fmt.Sprintf("| %s | %.2f | %.3f |", d, (4*ms+0.3+2+1)*60/1000, sw[1]/sw[0]))
		}
	}
	if rm, ok := o.trace("massive_intr.2cpu.perf.data"); ok {
		if err := add("recorded massive_intr.2cpu", rm, 2, false); err != nil {
			return t, err
		}
	}
	t.Misses = "Run time is fixed by the model (bursts are CPU time). The switches come from the tick preemption of " +
		"the posted series: once two tasks share a CPU, the one running stops being eligible within a tick (its vruntime " +
		"passes the queue's average) and the next tick switches, so a shared CPU switches every 1 ms, where CFS 6.2 lets " +
		"a task run its sched_slice (12 ms of the 24 ms period for two) and the merged EEVDF its 3 ms request. Wakers " +
		"wait more under this EEVDF (a wakee with little lag seldom has the earlier deadline) than under CFS's sleeper " +
		"credit. The player's load is an assumption: the table above shows the ratio at other loads."
	return t, nil
}

// All runs the five experiments in the order of their IDs.
func All(o Options) ([]Table, error) {
	var out []Table
	for i, f := range []func(Options) (Table, error){Pipeline, Latt, Hackbench, ManyTasks, MassiveIntr} {
		if o.Only != "" && o.Only != fmt.Sprintf("%03d", i) {
			continue
		}
		t, err := f(o)
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}

// midBurstWakeups counts the wakeups m records in the middle of the
// waker's burst (ActWake before the burst's end): the points where a
// policy whose wakee preempts its waker can split the waker's run.
func midBurstWakeups(m *replay.Model) int {
	n := 0
	for i := range m.Tasks {
		t := &m.Tasks[i]
		for _, b := range t.Bursts {
			for _, a := range t.ActionsOf(&b) {
				if a.Kind == replay.ActWake && a.At < b.Len {
					n++
				}
			}
		}
	}
	return n
}
