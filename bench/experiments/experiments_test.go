package experiments

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// knownGaps are rows whose predicted direction does not match the
// published one, with the model gap that explains it (also written under
// each table in docs/experiments.md). The tests require every other row to
// match, and a known gap to still miss, so this list stays true. The tests
// run the reduced workloads (Options.Small); the full-size tables in
// docs/experiments.md can differ.
var knownGaps = map[string]string{
	"pipe-test: sd vs o1|run time":                                                         "the model prices no per-policy schedule() path: every policy switches on every pass",
	"pipe-test: cfs:era=2.6.23 vs o1|run time":                                             "same",
	"goodness24|share of CPU lost to scheduling":                                           "at the reduced size (2 loops) the start, with every task runnable at once, weighs more",
	"bfs:era=2.6.31 vs cfs:era=2.6.31,wakeup_granularity=0|latt-client max wakeup latency": "at the reduced size (3 s) the rare wait behind a compile job that makes the BFS maximum (a few per 30 s) does not occur",
	"bfs:era=2.6.31 vs cfs:era=2.6.31,wakeup_granularity=0|latt-client avg wakeup latency": "a near tie (published 11 vs 12 µs, full size 0.985): at the reduced size (3 s) the start weighs more and BFS's average lands 1 % above CFS's",
}

func checkRows(t *testing.T, tb Table) {
	t.Helper()
	if len(tb.Rows) == 0 {
		t.Fatalf("%s: no rows", tb.Title)
	}
	for _, r := range tb.Rows {
		key := r.Case + "|" + r.Metric
		if math.IsNaN(r.Pred) || math.IsNaN(r.PredEffect()) {
			t.Errorf("%s: no prediction", key)
			continue
		}
		_, gap := knownGaps[key]
		switch {
		case gap && r.Match():
			t.Errorf("%s: known gap now matches the published direction (effect %.3f): update knownGaps and the notes", key, r.PredEffect())
		case gap:
			t.Logf("%s: known gap (%s), predicted effect %.3f vs published %d", key, knownGaps[key], r.PredEffect(), r.PublishedDir())
		case !r.Match():
			t.Errorf("%s: predicted effect %.3f, published direction %d", key, r.PredEffect(), r.PublishedDir())
		}
	}
}

// small runs the synthetic workloads only: the rows replayed from the
// shared recordings depend on model extraction (package replay) and are
// checked by its fidelity tests, not here.
var small = Options{Small: true}

func checkExperiment(t *testing.T, run func(Options) (Table, error)) {
	t.Helper()
	tb, err := run(small)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, tb)
}

func TestExperiment000X264(t *testing.T) {
	checkExperiment(t, Pipeline)
}

func TestExperiment001Latt(t *testing.T) {
	checkExperiment(t, Latt)
}

func TestExperiment002Hackbench(t *testing.T) {
	checkExperiment(t, Hackbench)
}

func TestExperiment003ManyTasks(t *testing.T) {
	checkExperiment(t, ManyTasks)
}

func TestExperiment004MassiveIntr(t *testing.T) {
	checkExperiment(t, MassiveIntr)
}

// TestJSONHeadlines checks the machine-readable output of the reduced run:
// five experiments "000".."004" in order, exactly one headline row each,
// the headline's published effect a number, and every row's fields set
// as JSONRow documents.
func TestJSONHeadlines(t *testing.T) {
	tables, err := All(small)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, tables); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	heads := map[string]int{}
	var order []string
	for _, r := range rows {
		for _, k := range []string{"experiment", "case", "metric", "published_effect", "predicted_effect", "direction_matches", "headline"} {
			if _, ok := r[k]; !ok {
				t.Fatalf("row %v: no %q", r, k)
			}
		}
		id := r["experiment"].(string)
		if len(order) == 0 || order[len(order)-1] != id {
			order = append(order, id)
		}
		if _, ok := r["direction_matches"].(bool); !ok {
			t.Errorf("%s %s: direction_matches %v, want a bool", id, r["case"], r["direction_matches"])
		}
		if r["headline"] == true {
			heads[id]++
			if _, ok := r["published_effect"].(float64); !ok {
				t.Errorf("%s headline %s: published_effect %v, want a number", id, r["case"], r["published_effect"])
			}
		}
	}
	if want := []string{"000", "001", "002", "003", "004"}; !slices.Equal(order, want) {
		t.Errorf("experiments %v, want %v", order, want)
	}
	for _, id := range order {
		if heads[id] != 1 {
			t.Errorf("experiment %s: %d headline rows, want 1", id, heads[id])
		}
	}
}

func TestLogSize(t *testing.T) {
	// Published 242.54 → 447.69 fps (effect 1.8458, ln 0.6129); predicted
	// 100 → 135.86 (effect 1.3586, ln 0.3064): log size 0.3064 / 0.6129 =
	// 0.500. A direction-only row has none.
	r := Row{PubBase: 242.54, Pub: 447.69, PredBase: 100, Pred: 135.86}
	if got := r.LogSize(); math.Abs(got-0.5) > 0.001 {
		t.Errorf("log size %.4f, want 0.500", got)
	}
	if got := (Row{PubBase: math.NaN(), Pub: math.NaN(), PubDir: 1, PredBase: 1, Pred: 2}).LogSize(); !math.IsNaN(got) {
		t.Errorf("direction-only log size %v, want NaN", got)
	}
}

// BenchmarkDependentMiss measures the latency of a load that misses every
// cache: a random pointer chase over 64 MiB (1 Mi lines of 64 bytes),
// reported as ns/load. measuredMiss is its result on this machine.
func BenchmarkDependentMiss(b *testing.B) {
	const lines = 64 << 20 / 64
	next := make([]int32, lines*16)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(lines)
	for i := range perm {
		next[perm[i]*16] = int32(perm[(i+1)%lines] * 16)
	}
	const loads = 1 << 20
	b.ResetTimer()
	p := int32(0)
	for i := 0; i < b.N; i++ {
		for j := 0; j < loads; j++ {
			p = next[p]
		}
	}
	b.StopTimer()
	sink = p
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/loads, "ns/load")
}

var sink int32

// BenchmarkDependentDiv measures one 64-bit division by a divisor known
// only at run time (DIVQ), each depending on the last: the division O(1)'s
// schedule() does per switch (run_time /= CURRENT_BONUS(prev), kernel/
// sched.c v2.6.21). The divisor is 10, the bonus of a task that sleeps
// most of the time; the dividend a pass's run time, ns.
func BenchmarkDependentDiv(b *testing.B) {
	const divs = 1 << 20
	d := bonusDivisor
	x := uint64(1975)
	for i := 0; i < b.N; i++ {
		for j := 0; j < divs; j++ {
			x = x/d + 1975
		}
	}
	sink = int32(x)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/divs, "ns/div")
}

// bonusDivisor is a variable so that the compiler cannot turn the
// division into a multiplication.
var bonusDivisor = uint64(10)

func TestRowArithmetic(t *testing.T) {
	// Published 242.54 → 447.69 fps: effect 447.69 / 242.54 = 1.8458;
	// predicted 100 → 142.29: effect 1.4229; size (1.4229 − 1) / (1.8458 −
	// 1) = 0.4229 / 0.8458 = 0.5000.
	r := Row{PubBase: 242.54, Pub: 447.69, PredBase: 100, Pred: 142.29}
	if !r.Match() || math.Abs(r.Size()-0.5) > 0.001 {
		t.Errorf("match %v size %.4f, want true 0.5000", r.Match(), r.Size())
	}
	// A direction-only row: lower published, 0.995 predicted is "no
	// change" (within 1 %): no match.
	r = Row{PubBase: math.NaN(), Pub: math.NaN(), PubDir: -1, PredBase: 1, Pred: 0.995}
	if r.Match() {
		t.Error("0.995 counted as lower")
	}
}

// BenchmarkClassicPolicies reports simulated events per second for each
// classic policy on the synthetic many-task workload (400 tasks, 75
// runnable, 2 CPUs), where goodness24's O(n) pick is the slowest.
func BenchmarkClassicPolicies(b *testing.B) {
	m := mustModel("manytasks", "tasks=400", "loops=5")
	for _, p := range []string{"bfs", "sd", "o1", "goodness24", "mq-hp", "mq-lse", "cfs", "eevdf"} {
		b.Run(p, func(b *testing.B) {
			var events int64
			for i := 0; i < b.N; i++ {
				res, err := Replay(m, p, 2, replay.DefaultConfig())
				if err != nil {
					b.Fatal(err)
				}
				events += res.Stats.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// TestWakeupLatency: on one CPU a server wakes the client 10 µs into a
// 1 ms burst; without wakeup preemption the client runs when the server's
// burst ends, 990 µs after its sched_waking: mean and max 990 µs. A second
// task of another name does not count.
func TestWakeupLatency(t *testing.T) {
	m := &replay.Model{NrCPUs: 1, WorkloadRoot: -1}
	m.Tasks = []replay.Task{
		{TID: 1, PID: 1, Comm: "latt", Prio: 120, Parent: -1, Init: replay.InitRunnable,
			Bursts: []replay.Burst{{Len: 1_000_000, End: replay.EndExit}}},
		{TID: 2, PID: 2, Comm: "latt-client", Prio: 120, Parent: -1, Init: replay.InitSleeping,
			Bursts: []replay.Burst{{End: replay.EndBlock, Wake: replay.Cause{Kind: replay.CauseDependency, Waker: 0}},
				{Len: 5_000, End: replay.EndExit}}},
	}
	m.Tasks[0].SetActions(&m.Tasks[0].Bursts[0], []replay.Action{{At: 10_000, Kind: replay.ActWake, Target: 1, Block: 0}})
	res, err := Replay(m, "cfs:NO_WAKEUP_PREEMPTION", 1, replay.Config{HZ: 250})
	if err != nil {
		t.Fatal(err)
	}
	if avg, worst := WakeupLatency(res, "latt-client"); avg != 990_000 || worst != 990_000 {
		t.Errorf("latency avg %d max %d ns, want 990000 990000", avg, worst)
	}
	if avg, worst := WakeupLatency(res, "nobody"); avg != 0 || worst != 0 {
		t.Errorf("no such task: %d %d", avg, worst)
	}
}

// TestInitialWaits: two tasks runnable from 0 on one CPU, A (ID 0) 1 ms
// and B 2 ms, and C runnable from 0.5 ms: under fifo A runs 0-1 ms, B 1-3,
// C 3-3.5; the waits before the first run are 0, 1 and 2.5 ms: 3.5 ms.
func TestInitialWaits(t *testing.T) {
	m := &replay.Model{NrCPUs: 1, WorkloadRoot: -1}
	for i, l := range []int64{1_000_000, 2_000_000, 500_000} {
		m.Tasks = append(m.Tasks, replay.Task{TID: trace.TID(10 + i), PID: trace.PID(10 + i), Comm: "w", Prio: 120, Parent: -1,
			Init: replay.InitRunnable, Start: []int64{0, 0, 500_000}[i], Bursts: []replay.Burst{{Len: l, End: replay.EndExit}}})
	}
	res, err := Replay(m, "fifo", 1, replay.Config{HZ: 250})
	if err != nil {
		t.Fatal(err)
	}
	if got := initialWaits(m, res); got != 3_500_000 {
		t.Errorf("initial waits %d ns, want 3500000", got)
	}
}
