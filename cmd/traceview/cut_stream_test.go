package main

import (
	"strings"
	"testing"
)

// A pipe-mode perf stream cut before its first sched_switch (head -c
// 20000 of sched-pipe-mode.data: its first 72 events are perf's start-up
// records) fails saying the input ends early, with the byte count, in every
// command; it said "no sched_switch events in 72 events read (record with
// 'perf sched record')", blaming the recording.
func TestCutStreamBeforeSwitches(t *testing.T) {
	cut := cutCopy(t, "../../testdata/traces/sched-pipe-mode.data", "cut.data", 20000)
	for _, c := range [][]string{
		{"latency"}, {"stats"}, {"timehist"}, {"map"}, {"replay", "--policy", "eevdf"}, {"export", "--format", "pprof", "-o", "-"},
	} {
		t.Run(c[0], func(t *testing.T) {
			_, errs, code := runCLI(t, append(c, "-i", cut)...)
			want := ": " + cut + ": the input ends early, cut inside a record after 20000 bytes (truncated), before any sched_switch event"
			if code != 1 || !strings.Contains(errs, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, errs, want)
			}
			// The reader's warning before it names the file (it said
			// "perf.data: the input ends ...").
			if w := "warning: " + cut + ": the input ends inside a record"; !strings.HasPrefix(errs, w) {
				t.Errorf("stderr:\n%s\nwant it to start with %q", errs, w)
			}
		})
	}
	if _, errs, _ := runCLI(t, "latency", "-i", cut); !strings.HasSuffix(errs, "before any sched_switch event: 72 events read") {
		t.Errorf("latency: stderr %q lacks the events read", errs)
	}
}
