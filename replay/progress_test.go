package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// extractFile reads a trace file into a model, with opts if given.
func extractFile(t testing.TB, path string, opts ...ExtractOptions) *Model {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var o ExtractOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	m, err := ExtractWith(src, o)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// TestStillDecisionsMeasured measures what maxStillDecisions and
// StepsPerEvent rest on: the most scheduling decisions a simulation of a
// real trace takes at one instant, and its steps per recorded event and
// burst, under eevdf and cfs, on testdata/traces (and on the shared
// recordings too when TRACEVIEW_SHARED_TRACES names their directory). It
// fails when a trace comes within a factor 100 of maxStillDecisions or
// within a factor 4 of StepsPerEvent.
func TestStillDecisionsMeasured(t *testing.T) {
	files, _ := filepath.Glob("../testdata/traces/*.perf.data")
	if dir := os.Getenv("TRACEVIEW_SHARED_TRACES"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*.perf.data"))
		files = append(files, more...)
	}
	if len(files) < 5 {
		t.Fatalf("found %d traces in testdata/traces, want the committed ones", len(files))
	}
	var maxStill int64
	var maxRatio float64
	for _, f := range files {
		m := extractFile(t, f)
		for _, p := range []string{"eevdf", "cfs"} {
			s, err := Simulate(m, newPolicy(t, p, m.NrCPUs), DefaultConfig())
			if err != nil {
				t.Fatalf("%s %s: %v", f, p, err)
			}
			ratio := float64(s.steps) / float64(m.Recorded.Len()+s.nbursts)
			t.Logf("%-28s %-5s %2d decisions at one instant, %.2f steps an event or burst", filepath.Base(f), p, s.maxStill, ratio)
			maxStill, maxRatio = max(maxStill, s.maxStill), max(maxRatio, ratio)
		}
	}
	t.Logf("most: %d decisions at one instant, %.2f steps an event or burst", maxStill, maxRatio)
	if maxStill*100 > maxStillDecisions || maxRatio*4 > StepsPerEvent {
		t.Errorf("most %d decisions at one instant, %.2f steps an event: within a factor 100 of maxStillDecisions (%d) or 4 of StepsPerEvent (%d)",
			maxStill, maxRatio, maxStillDecisions, StepsPerEvent)
	}
}

// TestNoProgressStops: a model whose two tasks wake each other with
// bursts of no CPU time loops at one instant; Simulate stops it with
// ErrNoProgress, naming a task and the time, under eevdf and cfs.
func TestNoProgressStops(t *testing.T) {
	const n = 1_000_000
	m := &Model{NrCPUs: 1, WorkloadRoot: -1}
	// ping's burst b wakes pong's block b, pong's burst b+1 (after its
	// initial sleep) wakes ping's block b: a ping-pong of bursts that take
	// no CPU time, n blocks long.
	ping := Task{TID: 100, PID: 100, Comm: "ping", Prio: 120, Parent: -1, CPU: 0, Init: InitRunnable}
	pong := Task{TID: 101, PID: 100, Comm: "pong", Prio: 120, Parent: -1, CPU: 0, Init: InitSleeping,
		Bursts: []Burst{{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}}}}
	for b := 0; b < n; b++ {
		ping.Bursts = append(ping.Bursts, Burst{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 1}})
		ping.AddAction(&ping.Bursts[b], Action{Kind: ActWake, Target: 1, Block: int32(b)})
		pong.Bursts = append(pong.Bursts, Burst{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}})
		pong.AddAction(&pong.Bursts[b+1], Action{Kind: ActWake, Target: 0, Block: int32(b)})
	}
	ping.Bursts = append(ping.Bursts, Burst{End: EndExit})
	pong.Bursts[n].End = EndExit
	m.Tasks = []Task{ping, pong}
	for _, p := range []string{"eevdf", "cfs"} {
		specs, _ := policies.ParseSpecs(p)
		pol, _ := specs[0].New(1)
		cfg := DefaultConfig()
		cfg.ContextSwitchCost, cfg.IdleExit, cfg.WakePreempt = 0, 0, 0
		_, err := Simulate(m, pol, cfg)
		if err == nil || !strings.Contains(err.Error(), "without simulated time advancing") || !strings.Contains(err.Error(), "0.000000 s into the trace") ||
			!strings.Contains(err.Error(), "ping:100") && !strings.Contains(err.Error(), "pong:101") {
			t.Errorf("%s: Simulate = %v, want ErrNoProgress naming ping:100 or pong:101 at 0.000000 s", p, err)
		}
	}
}

// TestStepBudgetStops: a burst stretched to 11.6 days (as a damaged time
// or run time makes one) would tick 250 times a second of it, 250 million
// times; Simulate stops it once the step budget (MinSteps plus
// StepsPerEvent per burst) is spent, with ErrNoProgress naming the CPU,
// the task and the time, under eevdf and cfs.
func TestStepBudgetStops(t *testing.T) {
	m := hogModel(1e15, 120)
	for _, p := range []string{"eevdf", "cfs"} {
		specs, _ := policies.ParseSpecs(p)
		pol, _ := specs[0].New(1)
		_, err := Simulate(m, pol, DefaultConfig())
		if !errors.Is(err, ErrNoProgress) {
			t.Fatalf("%s: Simulate = %v, want ErrNoProgress", p, err)
		}
		// MinSteps+64 steps: the start, then ticks every 4 ms.
		want := "10000064 simulation steps at 40000.252000 s into the trace (CPU 0 running task hog:100)"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %q in it", p, err, want)
		}
	}
}
