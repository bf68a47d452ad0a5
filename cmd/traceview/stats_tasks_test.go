package main

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/report"
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

// Filtered, stats' first line says which figures are the window's and
// which the whole trace's: one "Trace:" line gave the window's duration and
// migrations beside the whole trace's events and tasks. pipe.perf.data
// spans 35.954 ms; --time 10%/2 is its second tenth, 35.954/10 = 3.595 ms;
// 5114 events (info: 5114 in all; its 169 task records of time 0 not counted) and 7 tasks scheduled are the
// unfiltered run's own figures.
func TestStatsHeaderWindow(t *testing.T) {
	const in = "../../testdata/traces/pipe.perf.data"
	out, errs, code := runCLI(t, "stats", "-i", in)
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "Trace: 35.954 ms (first to last scheduler event), 5114 events, 7 tasks scheduled (79 more only named), 2 CPUs with events, 6 migrations" {
		t.Errorf("unfiltered: exit %d, first line %q, stderr %s", code, first, errs)
	}
	out, errs, code = runCLI(t, "stats", "-i", in, "--time", "10%/2")
	want := "Window (--time 754.332347118,754.335942541): 3.595 ms of the trace's 35.954 ms (first to last scheduler event), 1 migration in it; the whole trace: 5114 events, 7 tasks scheduled (79 more only named), 2 CPUs with events"
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != want {
		t.Errorf("--time 10%%/2: exit %d, first line\n%s\nwant\n%s\nstderr %s", code, first, want, errs)
	}
}

// TestStatsCSV: -o csv has one row per CPU with the JSON's values (times
// in ns, shares with 6 decimals).
func TestStatsCSV(t *testing.T) {
	const f = "../../testdata/traces/nice.2cpu.perf.data"
	out, errs, code := runCLI(t, "stats", "-o", "csv", "-i", f)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	js, _, _ := runCLI(t, "stats", "-o", "json", "-i", f)
	var doc report.Stats
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(doc.CPUs) || strings.Join(rows[0], ",") != strings.Join(statsCSVHeader, ",") {
		t.Fatalf("csv:\n%s\nwant the header and %d CPU rows", out, len(doc.CPUs))
	}
	for i, c := range doc.CPUs {
		r := rows[1+i]
		if r[0] != strconv.Itoa(int(c.CPU)) || r[2] != strconv.FormatInt(c.Busy, 10) || r[9] != strconv.FormatInt(c.Switches, 10) ||
			r[1] != strconv.FormatFloat(c.Utilization, 'f', 6, 64) {
			t.Errorf("row %v; want CPU %d busy %d ns, utilization %.6f, %d switches", r, c.CPU, c.Busy, c.Utilization, c.Switches)
		}
	}
}
