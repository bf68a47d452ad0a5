package trace

import (
	"fmt"
	"testing"
)

// TestPerfRecordCPUs: the CPUs of perf record's -C/--cpu, in the forms perf
// takes; nil for a recording of every CPU, another command, or a --cpu that
// is the workload's (perf stops reading options at the workload).
func TestPerfRecordCPUs(t *testing.T) {
	for argv, want := range map[string][]string{
		"perf sched record -C 1 -- stress-ng --cpu 3":   {"/usr/bin/perf", "sched", "record", "-C", "1", "--", "stress-ng", "--cpu", "3"},
		"perf record -C0,2-3 -e sched:*":                {"perf", "record", "-C0,2-3", "-e", "sched:*"},
		"perf record --cpu=1":                           {"perf", "record", "--cpu=1"},
		"perf sched record -- stress-ng --cpu 3":        {"perf", "sched", "record", "--", "stress-ng", "--cpu", "3"},
		"perf script -C 1":                              {"perf", "script", "-C", "1"},
		"traceview record -C 1":                         {"traceview", "record", "-C", "1"},
		"perf sched record stress-ng --cpu 3":           {"perf", "sched", "record", "stress-ng", "--cpu", "3"},
		"perf record -o x.data -e sched:* -C 1 sleep 1": {"perf", "record", "-o", "x.data", "-e", "sched:*", "-C", "1", "sleep", "1"},
	} {
		got := fmt.Sprint(PerfRecordCPUs(want))
		exp := map[string]string{
			"perf sched record -C 1 -- stress-ng --cpu 3":   "[1]",
			"perf record -C0,2-3 -e sched:*":                "[0 2 3]",
			"perf record --cpu=1":                           "[1]",
			"perf record -o x.data -e sched:* -C 1 sleep 1": "[1]",
		}[argv]
		if exp == "" {
			exp = "[]"
		}
		if got != exp {
			t.Errorf("%s: %s, want %s", argv, got, exp)
		}
	}
}
