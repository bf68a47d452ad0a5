package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

const gTrace = "../../testdata/traces/pipe.perf.data"

func gNeedTrace(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(gTrace); err != nil {
		t.Skipf("%s missing", gTrace)
	}
}

// gLatencyTotal is the latency report's total of the test trace.
func gLatencyTotal(t *testing.T) report.LatencyTotal {
	t.Helper()
	src, err := trace.Open(gTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	res, err := report.ComputeLatency(src, report.LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Total
}

func TestStatsCommandJSON(t *testing.T) {
	gNeedTrace(t)
	out, stderr, code := runCLI(t, "stats", "-i", gTrace, "-o", "json", "--series", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st report.Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	tot := gLatencyTotal(t)
	// pipe.perf.data was recorded on 2 CPUs; the histogram holds the
	// latency table's delays.
	if len(st.CPUs) != 2 || st.Series == nil || len(st.Series.Utilization[0]) != 10 ||
		st.Delays.Count != tot.Count || st.Delays.Sum != tot.SumDelay {
		t.Errorf("stats: %d CPUs, series %v, %d delays / %d ns; latency: %d delays / %d ns",
			len(st.CPUs), st.Series != nil, st.Delays.Count, st.Delays.Sum, tot.Count, tot.SumDelay)
	}
	table, _, code := runCLI(t, "stats", "-i", gTrace)
	if code != 0 || !strings.Contains(table, "Utilization %") || !strings.Contains(table, "usecs") {
		t.Errorf("table output:\n%s", table)
	}
}

func TestCompareCommand(t *testing.T) {
	gNeedTrace(t)
	out, stderr, code := runCLI(t, "compare", gTrace, gTrace, "-o", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// A trace against itself: every command in both, every ratio 1 (or
	// none, for a figure that is 0 in A); rows of one kind only, no TOTAL
	// line (the table's B/A line below has the total).
	ratios := 0
	for i, h := range recs[0] {
		if strings.HasSuffix(h, "_ratio") {
			ratios++
			for _, r := range recs[1:] {
				if r[i] != "1.000000" && !(r[i] == "" && r[i-2] == "0") {
					t.Errorf("%s %s = %q (A %q), want 1.000000", r[0], h, r[i], r[i-2])
				}
			}
		}
	}
	for _, r := range recs[1:] {
		if r[0] == "TOTAL" || r[1] != "both" {
			t.Errorf("row %v: want a command in both traces, no TOTAL", r[:2])
		}
	}
	if ratios < 6 || len(recs) < 3 {
		t.Errorf("%d rows, %d ratios", len(recs)-1, ratios)
	}
	table, _, code := runCLI(t, "compare", gTrace, gTrace)
	_, summary, _ := strings.Cut(table, "\nB/A: ")
	figures := strings.Split(strings.TrimSuffix(summary, "\n"), ", ")
	for _, f := range figures {
		if !strings.HasSuffix(f, " 1.000") {
			t.Errorf("B/A %q, want 1.000", f)
		}
	}
	if code != 0 || len(figures) != ratios || !strings.HasPrefix(summary, "runtime 1.000, switches 1.000, avg delay 1.000, max delay 1.000, sum delay 1.000") {
		t.Errorf("table:\n%s", table)
	}
}

func TestExportCommands(t *testing.T) {
	gNeedTrace(t)
	dir := t.TempDir()
	pb := filepath.Join(dir, "d.pb.gz")
	if _, stderr, code := runCLI(t, "export", "--format", "pprof", "-i", gTrace, "-o", pb); code != 0 {
		t.Fatalf("pprof: exit %d: %s", code, stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prof, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var delay int64
	for _, s := range prof.Sample {
		delay += s.Value[0]
	}
	if tot := gLatencyTotal(t); delay != tot.SumDelay {
		t.Errorf("profile delay %d ns, latency total Sum delay %d ns", delay, tot.SumDelay)
	}
	js, stderr, code := runCLI(t, "export", "--format", "chrome-json", "-i", gTrace)
	if code != 0 {
		t.Fatalf("perfetto: exit %d: %s", code, stderr)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.TraceEvents) < 100 {
		t.Errorf("perfetto JSON: %v, %d events", err, len(doc.TraceEvents))
	}
}

func TestReportCommand(t *testing.T) {
	gNeedTrace(t)
	data := reportHTML(t, gTrace)
	if n := strings.Count(string(data), "<svg"); n != report.HTMLPlots {
		t.Errorf("%d plots, want %d", n, report.HTMLPlots)
	}
}

// Usage errors exit with 2 and one line that names the problem.
func TestGCommandUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"compare", "a.data"}, "want two traces"},
		{[]string{"export", "-i", gTrace}, "--format is required"},
		{[]string{"export", "--format", "svg", "-i", gTrace}, `unknown format "svg"`},
		{[]string{"stats", "-o", "xml"}, `unknown output format "xml"`},
		{[]string{"report", "--top", "0"}, "must be positive"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.msg) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.msg)
		}
	}
	// A missing file is an error of the input, not of usage.
	if _, stderr, code := runCLI(t, "stats", "-i", "/nonexistent.data"); code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing input: exit %d, %q", code, stderr)
	}
}
