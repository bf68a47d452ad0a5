package replay_test

import (
	"fmt"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

// Two nice-0 CPU hogs of 12 ms each on one CPU under eevdf at HZ 250: the
// 0.7 ms base slice expires inside each 4 ms tick, so they alternate per
// tick and the second finishes at 24 ms.
func ExampleSimulate() {
	m := &replay.Model{NrCPUs: 1, WorkloadRoot: -1}
	for i := 0; i < 2; i++ {
		m.Tasks = append(m.Tasks, replay.Task{TID: trace.TID(100 + i), PID: -1, Comm: "hog", Prio: 120, Parent: -1,
			Init: replay.InitRunnable, Bursts: []replay.Burst{{Len: 12_000_000, End: replay.EndExit}}})
	}
	specs, _ := policies.ParseSpecs("eevdf")
	pol, _ := specs[0].New(1)
	res, _ := replay.Simulate(m, pol, replay.Config{HZ: 250})
	fmt.Printf("%d switches, makespan %.1f ms\n", res.Stats.Switches, float64(res.Makespan)/1e6)
	// Output: 7 switches, makespan 24.0 ms
}
