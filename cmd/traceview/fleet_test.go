package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/report"
)

const (
	tdPipe = "../../testdata/traces/pipe.perf.data"
	tdNice = "../../testdata/traces/nice.2cpu.perf.data"
)

func latencyJSON(t *testing.T, args ...string) report.LatencyJSON {
	t.Helper()
	out, errs, code := runCLI(t, append([]string{"latency", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("latency %v: exit %d: %s", args, code, errs)
	}
	var doc report.LatencyJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestLatencySameTraceTwice: `latency X X` reports exactly twice X's
// counts: every row's count, switches, runtime and sum delay doubled, its
// max delay and percentiles unchanged (the union of a multiset with itself
// has the same empirical quantiles), and so the totals. With -p every task
// row comes twice (tasks of different traces are never merged).
func TestLatencySameTraceTwice(t *testing.T) {
	one := latencyJSON(t, "--percentiles", "-i", tdPipe)
	two := latencyJSON(t, "--percentiles", tdPipe, tdPipe)
	if len(one.Tasks) < 3 || len(two.Tasks) != len(one.Tasks) {
		t.Fatalf("%d rows twice, %d once", len(two.Tasks), len(one.Tasks))
	}
	byComm := map[string]report.LatencyJSONRow{}
	for _, r := range one.Tasks {
		byComm[r.Comm] = r
	}
	for _, g := range two.Tasks {
		w := byComm[g.Comm]
		if g.Count != 2*w.Count || g.Switches != 2*w.Switches || g.RuntimeNs != 2*w.RuntimeNs || g.SumDelayNs != 2*w.SumDelayNs ||
			g.NrTasks != 2*w.NrTasks || g.MaxDelayNs != w.MaxDelayNs || *g.P99DelayNs != *w.P99DelayNs || *g.P50DelayNs != *w.P50DelayNs {
			t.Errorf("%s twice: %+v\nonce: %+v", g.Comm, g, w)
		}
	}
	if two.Total.Count != 2*one.Total.Count || two.Total.Switches != 2*one.Total.Switches ||
		two.Total.RuntimeNs != 2*one.Total.RuntimeNs || two.Total.SumDelayNs != 2*one.Total.SumDelayNs {
		t.Errorf("totals twice %+v, once %+v", two.Total, one.Total)
	}
	p1 := latencyJSON(t, "-p", "-i", tdPipe)
	p2 := latencyJSON(t, "-p", tdPipe, tdPipe)
	if len(p2.Tasks) != 2*len(p1.Tasks) || p2.Total.Switches != 2*p1.Total.Switches {
		t.Errorf("-p twice: %d rows, %d switches; once %d rows, %d switches", len(p2.Tasks), p2.Total.Switches, len(p1.Tasks), p1.Total.Switches)
	}
}

// TestLatencyByTrace: --by trace keeps two traces apart, each group
// equal to the trace's own table (rows and total), in argument order;
// without --by a glob plus a path merge them (totals add up).
func TestLatencyByTrace(t *testing.T) {
	pipe := latencyJSON(t, "-i", tdPipe)
	nice := latencyJSON(t, "-i", tdNice)
	out, errs, code := runCLI(t, "latency", "-o", "json", "--by", "trace", tdNice, tdPipe)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc latencyGroupsJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.By != "trace" || len(doc.Groups) != 2 || doc.Groups[0].Key != tdNice || doc.Groups[1].Key != tdPipe {
		t.Fatalf("groups %+v", doc)
	}
	for i, want := range []report.LatencyJSON{nice, pipe} {
		g := doc.Groups[i]
		if g.Total != want.Total {
			t.Errorf("group %s: total %+v, alone %+v", g.Key, g.Total, want.Total)
		}
		if d := cmp.Diff(want.Tasks, g.Tasks); d != "" {
			t.Errorf("group %s: rows differ from the trace's own (-alone +group):\n%s", g.Key, d)
		}
	}
	glob := filepath.Join(filepath.Dir(tdNice), "nice.2cpu.perf.dat?")
	both := latencyJSON(t, glob, tdPipe)
	if both.Total.Switches != nice.Total.Switches+pipe.Total.Switches || both.Total.Count != nice.Total.Count+pipe.Total.Count ||
		both.Total.SumDelayNs != nice.Total.SumDelayNs+pipe.Total.SumDelayNs {
		t.Errorf("merged total %+v, want the sum of %+v and %+v", both.Total, nice.Total, pipe.Total)
	}
}

// TestLatencyManyErrors: one clear line and exit 2 for a glob matching
// nothing, an unknown --by and --perf with several traces; exit 1 for a
// missing trace among several.
func TestLatencyManyErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"latency", tdPipe, "/nonexistent/*.perf.data"}, 2, "latency: /nonexistent/*.perf.data: no trace matches the pattern"},
		{[]string{"latency", "--by", "pid", tdPipe}, 2, `latency: unknown --by "pid"`},
		{[]string{"latency", "--perf", tdPipe, tdPipe}, 2, "--perf reproduces perf, which reads one trace"},
		{[]string{"latency", tdPipe, "/nonexistent.data"}, 1, "/nonexistent.data: no such file"},
	} {
		out, errs, code := runCLI(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", c.args, code, out, errs, c.code, c.want)
		}
	}
}

// TestExportParquetErrors: a non-empty target, a target under a regular
// file, a damaged trace, no -o and stdin without --trace-id: one line,
// exit 1 or 2, and nothing left in the parent directory.
func TestExportParquetErrors(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.data")
	data, err := os.ReadFile(tdPipe)
	if err != nil {
		t.Fatal(err)
	}
	// A perf.data header with its data section cut short and garbage after.
	if err := os.WriteFile(bad, append(data[:4096:4096], strings.Repeat("\xff", 512)...), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(dir)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-i", tdPipe, "-o", full}, 1, "export parquet: " + full + ": exists and is not empty"},
		{[]string{"-i", tdPipe, "-o", filepath.Join(bad, "out")}, 1, "not a directory"},
		{[]string{"-i", tdPipe, "-o", bad}, 1, "export parquet: " + bad + ": exists and is not a directory"},
		{[]string{"-i", bad, "-o", filepath.Join(dir, "out")}, 1, bad + ": perf.data: data section"},
		{[]string{"-i", tdPipe}, 2, "give it with -o DIR"},
		{[]string{"-i", "-", "-o", filepath.Join(dir, "out")}, 2, "needs --trace-id"},
	} {
		out, errs, code := runCLI(t, append([]string{"export", "--format", "parquet"}, c.args...)...)
		last := errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:]
		if code != c.code || out != "" || !strings.Contains(last, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errs, c.code, c.want)
		}
		after, _ := os.ReadDir(dir)
		if len(after) != len(before) {
			t.Errorf("%v: the directory holds %d entries, had %d", c.args, len(after), len(before))
		}
	}
	// And the good case: seven files.
	okDir := filepath.Join(dir, "ok")
	if _, errs, code := runCLI(t, "export", "--format", "parquet", "-i", tdPipe, "-o", okDir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ents, _ := os.ReadDir(okDir)
	if len(ents) != 7 {
		t.Errorf("%d files, want 7", len(ents))
	}
}
