package policies_test

import (
	"path/filepath"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// classicAndFair is every registered policy: each must replay every shared trace.
const classicAndFair = "bfs,sd,o1,goodness24,mq-hp,mq-lse,cfs,eevdf"

// TestAllPoliciesOnSharedTraces replays every shared perf.data and
// trace-cmd trace under
// every policy of classicAndFair and checks the prediction conserves work:
// the CPU time the simulator hands out (sched_stat_runtime events) equals
// the CPU time of the bursts the model's tasks got through, to the ns, and
// no dependency is left waiting for a waker that never ran.
func TestAllPoliciesOnSharedTraces(t *testing.T) {
	files, _ := filepath.Glob("../../shared/traces/*.perf.data")
	dat, _ := filepath.Glob("../../shared/traces/*.trace.dat")
	files = append(files, dat...)
	if len(files) == 0 {
		t.Skip("../shared/traces not found")
	}
	specs, err := policies.ParseSpecs(classicAndFair)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := trace.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := replay.Extract(src)
		src.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var modelCPU int64
		for _, tk := range m.Tasks {
			for _, b := range tk.Bursts {
				modelCPU += b.Len
			}
		}
		for _, sp := range specs {
			pol, err := sp.New(m.NrCPUs)
			if err != nil {
				t.Fatal(err)
			}
			// Work conservation is the point here: deadline-bound tasks
			// (replay.UntilDeadline) get the CPU their deadline allows, not
			// their recorded work, so they replay as work-bound.
			cfg := replay.DefaultConfig()
			if m.Stats.DeadlineBound > 0 {
				cfg.Overrides = []replay.Override{{Sel: replay.Selector{Workload: true, PID: -1, TID: -1},
					Until: &replay.UntilOverride{Kind: replay.UntilWork}}}
			}
			res, err := replay.Simulate(m, pol, cfg)
			if err != nil {
				t.Fatalf("%s %s: %v", filepath.Base(f), sp, err)
			}
			var ran int64
			for _, ev := range res.Events() {
				if ev.Kind == trace.KindRuntime {
					ran += ev.Runtime
				}
			}
			t.Logf("%s %-10s makespan %8.1f ms  cpu %8.1f/%8.1f ms  switches %d unfinished %d",
				filepath.Base(f), sp, float64(res.Makespan)/1e6, float64(ran)/1e6, float64(modelCPU)/1e6, res.Stats.Switches, res.Stats.Unfinished)
			if res.Stats.Unfinished != 0 {
				t.Errorf("%s %s: %d tasks wait for a dependency that never fired", filepath.Base(f), sp, res.Stats.Unfinished)
			}
			// The remote-wakeup, remote-wakee and idle-start costs move
			// CPU time between the model and the prediction by their
			// Stats charges.
			charge := res.Stats.WakeCharge + res.Stats.WokenCharge + res.Stats.IdleCharge
			if want := modelCPU + charge; ran > want || ran < want*99/100 {
				t.Errorf("%s %s: %d ns of CPU time handed out, the model has %d (%+d ns of wakeup and idle-start costs)", filepath.Base(f), sp, ran, modelCPU, charge)
			}
		}
	}
}
