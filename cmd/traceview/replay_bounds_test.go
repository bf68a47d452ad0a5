package main

import (
	"strings"
	"testing"
)

// TestReplayCostBounds is the regression test for unbounded cost flags:
// `--decision-cost 1h` ran for minutes. Every cost flag takes 0..1s
// (replay.MaxCost); 1h, 1.5s and a negative cost are a one-line usage
// error (exit 2) before the trace is read, and the bound is in --help.
func TestReplayCostBounds(t *testing.T) {
	for _, flag := range []string{"--decision-cost", "--context-switch-cost", "--migration-cost", "--scan-cost", "--remote-wakeup-cost", "--remote-wakee-cost", "--idle-start-cost"} {
		for _, v := range []string{"1h", "1.5s", "-1us"} {
			args := []string{"replay", "--policy", "eevdf", flag, v, messaging2}
			_, errs, code := runCLI(t, args...)
			want := flag + ` "` + v + `": want a duration 0..1s`
			if code != 2 || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q on one line", args, code, errs, want)
			}
		}
	}
	help, _, _ := runCLI(t, "replay", "--help")
	if n := strings.Count(help, "at most 1s"); n != 7 {
		t.Errorf("replay --help states the 1s bound %d times, want 7 (one per cost flag)", n)
	}
}

// TestReplayContextSwitchCostOldName: the flag's earlier name,
// --ctx-switch-cost, is read as --context-switch-cost (the same output,
// byte for byte, and the same one-line error for a bad value).
func TestReplayContextSwitchCostOldName(t *testing.T) {
	a, _, ca := runCLI(t, "replay", "--policy", "eevdf", "--no-self-replay", "--context-switch-cost", "3us", "-o", "json", messaging2)
	b, _, cb := runCLI(t, "replay", "--policy", "eevdf", "--no-self-replay", "--ctx-switch-cost", "3us", "-o", "json", messaging2)
	if ca != 0 || cb != 0 || a != b || !strings.Contains(a, `"context_switch_cost_ns"`) {
		t.Errorf("exit %d / %d; outputs equal %v; context_switch_cost_ns in JSON %v", ca, cb, a == b, strings.Contains(a, `"context_switch_cost_ns"`))
	}
	_, errs, code := runCLI(t, "replay", "--policy", "eevdf", "--ctx-switch-cost", "1h", messaging2)
	if code != 2 || !strings.Contains(errs, `--context-switch-cost "1h": want a duration 0..1s`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
