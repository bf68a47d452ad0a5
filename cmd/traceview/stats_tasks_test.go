package main

import (
	"strings"
	"testing"
)

// TestStatsReplayTaskCounts: stats and replay count the same tasks, those
// in a scheduler event, and stats says how many more the trace only names.
// pipe.perf.data: stats said "86 tasks" and replay "model: 7 tasks". The
// 86 are every task identity: perf sched record's start-up COMM records
// name the 86 tasks alive then (the info line's "comm 86"), 79 of which
// never switch, wake, migrate or run in the 36 ms recorded; the 7 that do
// are the latency table's rows (sched-pipe:(2) is two threads): perf,
// sh, appstreamcli, rcu_preempt, migration/0 and the two sched-pipe.
func TestStatsReplayTaskCounts(t *testing.T) {
	stats, stderr, code := runCLI(t, "stats", "-i", gTrace)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	if want := ", 7 tasks scheduled (79 more only named), "; !strings.Contains(stats, want) {
		t.Errorf("stats first line %q, want %q", strings.SplitN(stats, "\n", 2)[0], want)
	}
	js, stderr, code := runCLI(t, "stats", "-i", gTrace, "-o", "json")
	if code != 0 {
		t.Fatalf("stats -o json: exit %d: %s", code, stderr)
	}
	if !strings.Contains(js, `"tasks": 7,`) || !strings.Contains(js, `"tasks_named": 86,`) {
		t.Errorf("stats -o json lacks tasks 7 and tasks_named 86")
	}
	rep, stderr, code := runCLI(t, "replay", "-i", gTrace, "--policy", "as-traced")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	if !strings.Contains(rep, "model: 7 tasks (in a scheduler event), ") {
		t.Errorf("replay model line %q, want 7 tasks (in a scheduler event)", firstLineWith(rep, "model:"))
	}
}

func firstLineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
