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

// TestRecordedCPUs: the header's list first, then perf's command line,
// then traceview record's (files written before the header said so), in
// pflag's forms; a COMMAND's own --cpu and another command are not a list.
func TestRecordedCPUs(t *testing.T) {
	for _, c := range []struct {
		m    *Meta
		want string
	}{
		{nil, "[]"},
		{&Meta{RecordedCPUs: []CPU{1, 3}, Cmdline: []string{"perf", "record", "-C", "0"}}, "[1 3]"},
		{&Meta{Cmdline: []string{"perf", "record", "-C", "0"}}, "[0]"},
		{&Meta{Cmdline: []string{"/tmp/nu9/traceview", "record", "--cpu", "1", "-o", "tm_c1.tv", "-d", "5s"}}, "[1]"},
		{&Meta{Cmdline: []string{"traceview", "record", "-o", "x.tv", "--cpu=0-1"}}, "[0 1]"},
		{&Meta{Cmdline: []string{"traceview", "record", "-C2"}}, "[2]"},
		{&Meta{Cmdline: []string{"traceview", "record", "-C=3", "-g"}}, "[3]"},
		{&Meta{Cmdline: []string{"traceview", "record", "-o", "-C", "x"}}, "[]"}, // -C is -o's value (a file named -C)
		{&Meta{Cmdline: []string{"traceview", "record", "-d", "2s", "--", "stress-ng", "--cpu", "3"}}, "[]"},
		{&Meta{Cmdline: []string{"traceview", "record", "stress-ng", "--cpu", "3"}}, "[]"},
		{&Meta{Cmdline: []string{"traceview", "top", "--cpu", "1"}}, "[]"},
		{&Meta{Cmdline: []string{"traceview", "record", "--cpu", "x"}}, "[]"},
	} {
		var argv []string
		if c.m != nil {
			argv = c.m.Cmdline
		}
		if got := fmt.Sprint(RecordedCPUs(c.m)); got != c.want {
			t.Errorf("%q: %s, want %s", argv, got, c.want)
		}
	}
}
