package replay

import (
	"math/rand/v2"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// randomTrace is an inconsistent event stream: switches of tasks that never
// ran, wakeups of running tasks, forks of live TIDs, exits followed by reuse,
// runtime of sleeping tasks, unknown CPUs and prios.
func randomTrace(seed uint64, n int) []trace.Event {
	r := rand.New(rand.NewPCG(seed, 1))
	var evs []trace.Event
	t := int64(1_000_000)
	tid := func() trace.TID { return trace.TID(r.IntN(12)) }
	for i := 0; i < n; i++ {
		t += int64(r.IntN(200_000))
		cpu := trace.CPU(r.IntN(3))
		var e trace.Event
		switch r.IntN(7) {
		case 0, 1, 2:
			e = trace.NewEvent(t, cpu, trace.KindSwitch)
			e.TID, e.NextTID = tid(), tid()
			e.Prio, e.NextPrio = int32(r.IntN(140)), int32(90+r.IntN(50))
			e.PrevState = []trace.TaskState{0, trace.StatePreempted, trace.StateInterruptible, trace.StateUninterruptible, trace.StateDead}[r.IntN(5)]
		case 3:
			e = trace.NewEvent(t, cpu, trace.KindWaking)
			e.TID, e.CurTID, e.TargetCPU = tid(), tid(), trace.CPU(r.IntN(4)-1)
		case 4:
			e = trace.NewEvent(t, cpu, trace.KindFork)
			e.TID, e.ChildTID = tid(), tid()
		case 5:
			e = trace.NewEvent(t, cpu, trace.KindRuntime)
			e.TID, e.Runtime = tid(), int64(r.IntN(300_000))
		case 6:
			e = trace.NewEvent(t, cpu, trace.KindExit)
			e.TID = tid()
		}
		e.Comm = "t"
		evs = append(evs, e)
	}
	return evs
}

// TestRobustRandomTraces: extraction and simulation of inconsistent traces
// neither panic nor hang, under every fair and RT policy, and as-traced
// still reproduces the input.
func TestRobustRandomTraces(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		evs := randomTrace(seed, 600)
		m, err := Extract(trace.NewSliceSource(evs, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"as-traced", "eevdf", "cfs", "fifo", "rr", "eevdf:llc_size=0,NO_DELAY_DEQUEUE"} {
			specs, err := policies.ParseSpecs(p)
			if err != nil {
				t.Fatal(err)
			}
			pol, _ := specs[0].New(3)
			res, err := Simulate(m, pol, Config{CPUs: 3, HZ: 1000})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p, err)
			}
			if p == "as-traced" && len(res.Events()) != m.Recorded.Len() {
				t.Errorf("seed %d: as-traced gave %d events of %d", seed, len(res.Events()), m.Recorded.Len())
			}
			prev := int64(-1)
			for _, e := range res.Events() {
				if e.Time < prev {
					t.Fatalf("seed %d %s: events out of order at %v", seed, p, e)
				}
				prev = e.Time
			}
		}
	}
}
