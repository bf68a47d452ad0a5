package main

import (
	"strings"
	"testing"
)

// TestStatsCPUFilterRunqueue: `stats --cpu 0` of a recording of both CPUs
// (messaging.2cpu) shows CPU 0's runqueue as the whole view does (31.319
// tasks on average, 65 at most) and counts the trace's 2 CPUs with events,
// where it printed "-" with "the recording left out some of the machine's
// CPUs" and "1 CPU with events" (new-user pass 33 F5).
func TestStatsCPUFilterRunqueue(t *testing.T) {
	out, stderr, code := runCLI(t, "stats", "-i", "../../testdata/traces/messaging.2cpu.perf.data", "--cpu", "0")
	if code != 0 || !strings.Contains(out, "31.319 tasks      65 tasks") || !strings.Contains(out, "2 CPUs with events") || strings.Contains(out, "left out some") {
		t.Errorf("stats --cpu 0: exit %d\n%s\n%s", code, out, stderr)
	}
}
