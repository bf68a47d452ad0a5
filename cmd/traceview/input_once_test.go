package main

import (
	"strings"
	"testing"
)

// A repeated -i is a usage error on every command that has -i (pflag kept
// the last and dropped the others silently: latency -i a -i b read only b),
// naming both values; latency points to its arguments, which it merges.
func TestRepeatedInputRefused(t *testing.T) {
	const a, b = "../../testdata/traces/pipe.perf.data", messaging2
	for _, c := range [][]string{
		{"latency"}, {"timehist"}, {"map"}, {"stats"}, {"info"}, {"replay", "--policy", "eevdf"},
		{"export", "--format", "pprof"}, {"report"}, {"convert", "-o", "-"},
	} {
		t.Run(c[0], func(t *testing.T) {
			_, errs, code := runCLI(t, append(c, "-i", a, "-i", b)...)
			want := c[0] + ": -i given 2 times (" + a + ", " + b + "): -i names one trace"
			if code != 2 || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errs, want)
			}
			if c[0] == "latency" && !strings.Contains(errs, "give them as arguments (traceview latency "+a+" "+b+")") {
				t.Errorf("stderr %q: no hint to the arguments", errs)
			}
		})
	}
	// One -i still works.
	if _, errs, code := runCLI(t, "latency", "-i", a); code != 0 {
		t.Errorf("latency -i %s: exit %d, %s", a, code, errs)
	}
}
