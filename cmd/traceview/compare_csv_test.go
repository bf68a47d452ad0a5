package main

import (
	"strings"
	"testing"
)

// TestCompareCSVWarnings (new-user pass 122 F3): compare -o csv says the
// traces' warnings on stderr as its table does (one summary line per
// trace; each warning with -v), where it said none: pipe.perf.data lacks
// switches (its summary line names them).
func TestCompareCSVWarnings(t *testing.T) {
	const a, b = "../../testdata/traces/pipe.perf.data", "../../testdata/traces/nice.2cpu.perf.data"
	_, table, _ := runCLI(t, "compare", a, b)
	out, csv, code := runCLI(t, "compare", a, b, "-o", "csv")
	if code != 0 || csv != table || !strings.Contains(csv, "warning: "+a+": ") || !strings.HasPrefix(out, "comm,") {
		t.Errorf("exit %d; csv stderr:\n%s\ntable stderr:\n%s", code, csv, table)
	}
	_, verbose, _ := runCLI(t, "compare", "-v", a, b, "-o", "csv")
	if !strings.Contains(verbose, "switched out a task that the CPU's previous sched_switch had not switched in") {
		t.Errorf("-v -o csv: stderr\n%s", verbose)
	}
}
