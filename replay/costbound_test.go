package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// TestSimulateRejectsHugeCosts: Simulate refuses a cost or latency above
// MaxCost (1 s) or below 0 (-1 only where Config allows "measured") with
// an error naming it, instead of simulating hours; exactly 1 s is allowed.
func TestSimulateRejectsHugeCosts(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.DecisionCost = 3600e9 }, "decision cost 3600000000000 ns"},
		{func(c *Config) { c.ScanCost = MaxCost + 1 }, "scan cost 1000000001 ns"},
		{func(c *Config) { c.Migration = -1 }, "migration cost -1 ns"},
		{func(c *Config) { c.ContextSwitchCost = -2 }, "context-switch cost -2 ns"},
		{func(c *Config) { c.IdleExit = 2e9 }, "idle-exit latency"},
		{func(c *Config) { c.WakePreempt = 2e9 }, "wakeup-preemption latency"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := cfg.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check() = %v, want an error with %q", err, c.want)
		}
		if _, err := Simulate(&Model{NrCPUs: 1}, policies.NewStack(policies.NewEEVDF(nil, 1)), cfg); err == nil {
			t.Errorf("Simulate accepted %q", c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.DecisionCost, cfg.Migration = MaxCost, MaxCost
	if err := cfg.Check(); err != nil {
		t.Errorf("1 s costs: %v, want accepted", err)
	}
}

// idleWakeTrace is a task that runs 1 ms on CPU 0, sleeps (CPU 0 goes
// idle), is woken from CPU 1 for CPU 0 1 ms later and switched in delay
// ns after that, n times: each wakeup is an idle exit of delay ns.
func idleWakeTrace(n int, delay int64) []trace.Event {
	var evs []trace.Event
	t := int64(1e9)
	sw := func(cpu trace.CPU, prev, next trace.TID, st trace.TaskState) {
		e := trace.NewEvent(t, cpu, trace.KindSwitch)
		e.TID, e.NextTID, e.PrevState, e.Comm, e.Prio, e.NextPrio = prev, next, st, "idle", 120, 120
		if prev == 10 {
			e.Comm = "sleeper"
		}
		if next == 10 {
			e.NextComm = "sleeper"
		}
		evs = append(evs, e)
	}
	sw(0, 0, 10, 0)
	for k := 0; k < n; k++ {
		t += 1e6
		sw(0, 10, 0, trace.StateInterruptible)
		t += 1e6
		w := trace.NewEvent(t, 1, trace.KindWaking)
		w.TID, w.TargetCPU, w.Comm, w.Prio = 10, 0, "sleeper", 120
		evs = append(evs, w)
		t += delay
		sw(0, 0, 10, 0)
	}
	return evs
}

// TestMeasuredCostBound: an idle exit measured at 0.5 ms is taken; one
// measured at 3 ms (above maxMeasuredCost, as srvn.nice0's 3144.5 µs) is
// not: Model.IdleExit is 0, Model.Unmeasured says what was measured and
// the bound, and the model line renders it.
func TestMeasuredCostBound(t *testing.T) {
	m, err := Extract(trace.NewSliceSource(idleWakeTrace(5, 500_000), nil))
	if err != nil {
		t.Fatal(err)
	}
	if m.IdleExit != 500_000 || len(m.Unmeasured) != 0 {
		t.Errorf("0.5 ms delays: idle exit %d ns, unmeasured %v; want 500000 and none", m.IdleExit, m.Unmeasured)
	}
	m, err = Extract(trace.NewSliceSource(idleWakeTrace(5, 3_000_000), nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []UnmeasuredCost{{Name: "idle exit", Measured: 3_000_000, Bound: maxMeasuredCost}}
	if m.IdleExit != 0 || !slices.Equal(m.Unmeasured, want) {
		t.Errorf("3 ms delays: idle exit %d ns, unmeasured %v; want 0 and %v", m.IdleExit, m.Unmeasured, want)
	}
	if s, w := want[0].String(), "not measurable (3000.0 µs measured, above the 1000.0 µs bound; none charged)"; s != w {
		t.Errorf("String() = %q, want %q", s, w)
	}
}
