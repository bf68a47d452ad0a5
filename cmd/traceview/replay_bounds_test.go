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
	for _, flag := range []string{"--decision-cost", "--ctx-switch-cost", "--migration-cost", "--scan-cost", "--remote-wakeup-cost", "--remote-wakee-cost", "--idle-start-cost"} {
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
