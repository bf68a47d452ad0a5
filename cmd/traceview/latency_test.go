package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// --perf prints perf 6.12's own output byte for byte (the golden file is
// `perf sched latency -s max -i stress-cpu.perf.data`); our diagnostics go
// to stderr.
func TestLatencyCLIPerf(t *testing.T) {
	golden, err := os.ReadFile("../../testdata/traces/stress-cpu.latency-max.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "latency", "--perf", "-s", "max", "-i", "../../testdata/traces/stress-cpu.perf.data")
	if code != 0 || out != string(golden) {
		t.Fatalf("exit %d, stderr %s\nstdout:\n%s", code, errs, out)
	}
	// By default one summary line: the chain breaks on CPU 1 and the
	// recovered delays (missing switches), the wakeups that were never
	// recorded (--perf leaves out the first-seen switch-ins).
	if want := "warning: ../../testdata/traces/stress-cpu.perf.data: 3 warnings: 2 about missing switches, 1 about missing wakeups; -v for detail\n"; errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
	// stress-cpu: perf's "79 out of 157" are 79 chain breaks on CPU 1 (77
	// out of idle, 2 out of task 68, which sched_switch names tokio-rt-worker
	// where perf's table says ":68:68"), in the detail of -v.
	out, errs, code = runCLI(t, "latency", "-v", "--perf", "-s", "max", "-i", "../../testdata/traces/stress-cpu.perf.data")
	if code != 0 || out != string(golden) {
		t.Fatalf("-v: exit %d, stderr %s\nstdout:\n%s", code, errs, out)
	}
	if !strings.Contains(errs, "CPU 1: 79 of 385 sched_switch events") || !strings.Contains(errs, "idle (swapper/1) 77, tokio-rt-worker:68 2") ||
		strings.Count(errs, "\n") != 3 {
		t.Errorf("-v: stderr:\n%s", errs)
	}
}

func TestLatencyCLIJSON(t *testing.T) {
	out, errs, code := runCLI(t, "latency", "-o", "json", "--percentiles", "-p", "-i", "../../testdata/traces/pipe.perf.data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Tasks []map[string]any `json:"tasks"`
		Total map[string]any   `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// perf -p: rcu_preempt:15 first (avg 3.700 ms over 3 delays; ours 4:
	// one recovered), 61.672 ms runtime in total.
	if doc.Tasks[0]["comm"] != "rcu_preempt" || doc.Tasks[0]["pid"] != 15.0 || doc.Total["runtime_ns"] != 61672152.0 {
		t.Errorf("first row %v total %v", doc.Tasks[0], doc.Total)
	}
	if _, ok := doc.Tasks[0]["p99_delay_ns"]; !ok {
		t.Errorf("no p99_delay_ns: %v", doc.Tasks[0])
	}
}

func TestLatencyCLIErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"latency", "-s", "avg,bogus", "-i", "../../testdata/traces/pipe.perf.data"}, 2, `unknown sort key "bogus"`},
		// The sort keys are checked before the input is opened: the file does not exist.
		{[]string{"latency", "-s", "bogus", "-i", "/nonexistent/x.perf.data"}, 2, `unknown sort key "bogus"`},
		// perf sched latency -s sum prints its usage (exit 129): perf has no
		// Sum delay column; without --perf sum is a key.
		{[]string{"latency", "--perf", "-s", "max,sum", "-i", "/nonexistent/x.perf.data"}, 2, `unknown sort key "sum" with --perf`},
		{[]string{"latency", "-o", "xml", "-i", "../../testdata/traces/pipe.perf.data"}, 2, `unknown output format "xml"`},
		{[]string{"latency", "-i", "../../testdata/traces/nosched-cpu-clock.data"}, 1, "no sched tracepoints"},
		{[]string{"latency", "-i", "../../testdata/traces/does-not-exist.data"}, 1, "no such file"},
		// --perf's table has no percentile columns: --percentiles was silently dropped.
		{[]string{"latency", "--perf", "--percentiles", "-i", "../../testdata/traces/pipe.perf.data"}, 2, "--percentiles adds columns that perf's table (--perf) does not have"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q on one line", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestWarningCountsOnce: warnings whose message states its count are not
// followed by "(N times)": the HTML report of messaging.2cpu said "164
// scheduling delays had no recorded switch-in ... (164 times)". compare
// prints the same warnings on stderr through the same rendering
// (trace.Warning.String).
func TestWarningCountsOnce(t *testing.T) {
	in := "../../testdata/traces/messaging.2cpu.perf.data"
	page := reportHTML(t, in)
	_, stderr, code := runCLI(t, "compare", "-v", in, in)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for name, text := range map[string]string{"report": string(page), "compare": stderr} {
		// One line per warning: the count may follow only messages that
		// do not start with it.
		re := regexp.MustCompile(`(\d+) scheduling delays had no recorded switch-in[^\n<]*`)
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: no recovered-delay warning", name)
			continue
		}
		if strings.Contains(m[0], "times)") {
			t.Errorf("%s repeats the count: %q", name, m[0])
		}
	}
}
