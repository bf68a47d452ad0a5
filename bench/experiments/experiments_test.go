package experiments

import (
	"math"
	"testing"

	"github.com/traceview/traceview/replay"
	_ "github.com/traceview/traceview/trace/formats"
)

// knownGaps are rows whose predicted direction does not match the
// published one, with the model gap that explains it (also written under
// each table in docs/experiments.md). The tests require every other row to
// match, and a known gap to still miss, so this list stays true. The tests
// run the reduced workloads (Options.Small); the full-size tables in
// docs/experiments.md can differ (there the synthetic hackbench rows match).
var knownGaps = map[string]string{
	"synthetic: eevdf / cfs|sum delay":        "without switch costs the total wait of CPU-bound tasks is set by demand, not slicing",
	"synthetic hackbench: sd vs o1|run time":  "at the reduced size the O(1) receivers never earn the bonus that makes them preempt senders",
	"synthetic hackbench: cfs vs o1|run time": "same",
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

func TestExperiment1Pipeline(t *testing.T) {
	checkExperiment(t, Pipeline)
}

func TestExperiment2MassiveIntr(t *testing.T) {
	checkExperiment(t, MassiveIntr)
}

func TestExperiment3Hackbench(t *testing.T) {
	checkExperiment(t, Hackbench)
}

func TestExperiment4ManyTasks(t *testing.T) {
	checkExperiment(t, ManyTasks)
}

func TestExperiment5Latt(t *testing.T) {
	checkExperiment(t, Latt)
}

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
