package replay

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
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
		{func(c *Config) { c.CtxSwitch = -2 }, "context-switch cost -2 ns"},
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
