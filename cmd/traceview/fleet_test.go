package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/report/tables"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

const (
	tdPipe = "../../testdata/traces/pipe.perf.data"
	tdNice = "../../testdata/traces/nice.2cpu.perf.data"
)

// cliJSON runs the CLI with args, which must succeed, and decodes its
// JSON output as a T.
func cliJSON[T any](t *testing.T, args ...string) T {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var doc T
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return doc
}

func latencyJSON(t *testing.T, args ...string) report.LatencyJSON {
	t.Helper()
	return cliJSON[report.LatencyJSON](t, append([]string{"latency", "-o", "json"}, args...)...)
}

// TestLatencyArgumentAsInput: a trace given as latency's argument is
// read as with -i. (`latency X X` reported twice X's counts; it is now a
// usage error, TestLatencySameTraceTwice; that a merge of a report with
// itself doubles its counts and keeps its quantiles is report's
// TestMergeLatency.)
func TestLatencyArgumentAsInput(t *testing.T) {
	one := latencyJSON(t, "--percentiles", "-i", tdPipe)
	if d := cmp.Diff(one, latencyJSON(t, "--percentiles", tdPipe)); d != "" {
		t.Errorf("the trace as an argument differs from -i (-i +argument):\n%s", d)
	}
}

// TestLatencyByTrace: --by trace keeps two traces apart, each group
// equal to the trace's own table (rows and total), in argument order;
// without --by a glob plus a path merge them (totals add up).
func TestLatencyByTrace(t *testing.T) {
	pipe := latencyJSON(t, "-i", tdPipe)
	nice := latencyJSON(t, "-i", tdNice)
	doc := cliJSON[latencyGroupsJSON](t, "latency", "-o", "json", "--by", "trace", tdNice, tdPipe)
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

// TestLatencyManyWarnings: with several traces each trace's warnings read
// as a single trace's ("warning: PATH: ..."), the no-match line first and
// in full (they read "PATH: warning: ...", unlike every other command's).
func TestLatencyManyWarnings(t *testing.T) {
	_, errs, code := runCLI(t, "latency", "--comm", "nosuch", tdNice, tdPipe)
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if code != 0 || len(lines) != 4 ||
		!strings.HasPrefix(lines[0], "warning: "+tdNice+": nothing matched the filters --comm nosuch: the trace has ") ||
		!strings.HasPrefix(lines[1], "warning: "+tdNice+": ") || !strings.HasSuffix(lines[1], "; -v for detail") ||
		!strings.HasPrefix(lines[2], "warning: "+tdPipe+": nothing matched the filters --comm nosuch: the trace has ") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
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
		{[]string{"latency", "--perf", tdPipe, messaging2}, 2, "--perf reproduces perf, which reads one trace"},
		{[]string{"latency", "--perf", "--by", "comm", messaging2}, 2, "--perf reproduces perf's table, which has no --by comm grouping; drop --perf or --by"},
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
	// A perf.data header with its data section cut short and garbage after:
	// read up to the garbage (a truncated file), without a sched_switch.
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
		{[]string{"-i", bad, "-o", filepath.Join(dir, "out")}, 1, bad + ": the input ends early, cut inside a record after 4608 bytes (truncated), before any sched_switch event: 36 events read"}, // (as latency says it)
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

// cgroupTrace writes a hand-made traceview capture (as `record` writes
// one) in which task a=10 runs in /a.slice and b=20 in /b.slice on CPU 0
// (ns): 1000 idle -> a; 1500 a wakes b; 2000 a sleeps -> b (b waited 500);
// 2200 b wakes a; 3000 b sleeps -> a (a waited 800); 3100 a wakes b; 4000
// a sleeps -> b (b waited 900); 4500 b sleeps -> idle. So /a.slice: a, 1
// delay of 800 ns; /b.slice: b, 2 delays, sum 1400, max 900.
func cgroupTrace(t *testing.T) string {
	t.Helper()
	const cgA, cgB = 100, 200
	cg := map[trace.TID]uint64{10: cgA, 20: cgB}
	comm := map[trace.TID]string{0: "swapper/0", 10: "a", 20: "b"}
	sw := func(ts int64, prev, next trace.TID) trace.Event {
		e := trace.NewEvent(ts, 0, trace.KindSwitch)
		e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = prev, trace.PID(prev), prev, trace.PID(prev), comm[prev]
		e.NextTID, e.NextPID, e.NextComm, e.Prio, e.NextPrio = next, trace.PID(next), comm[next], 120, 120
		if prev != 0 {
			e.PrevState, e.Cgroup = trace.StateInterruptible, cg[prev]
		}
		return e
	}
	wk := func(ts int64, waker, wakee trace.TID) trace.Event {
		e := trace.NewEvent(ts, 0, trace.KindWaking)
		e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.TargetCPU = waker, trace.PID(waker), wakee, trace.PID(wakee), comm[wakee], 0
		return e
	}
	name := func(tid trace.TID) trace.Event { // as perf synthesizes at record start
		e := trace.NewEvent(0, 0, trace.KindComm)
		e.TID, e.PID, e.Comm = tid, trace.PID(tid), comm[tid]
		return e
	}
	evs := []trace.Event{name(10), name(20), sw(1000, 0, 10), wk(1500, 10, 20), sw(2000, 10, 20), wk(2200, 20, 10),
		sw(3000, 20, 10), wk(3100, 10, 20), sw(4000, 10, 20), sw(4500, 20, 0)}
	path := filepath.Join(t.TempDir(), "cg.tv")
	writeTV(t, path, tvf.Header{Hostname: "box", NrCPUs: 1, Tool: "test"}, evs, func(w *tvf.Writer) {
		w.AddTask(10, 10, "a")
		w.AddTask(20, 20, "b")
	}, func(w *tvf.Writer) { w.SetCgroups(map[uint64]string{cgA: "/a.slice", cgB: "/b.slice"}) })
	return path
}

// TestLatencyByCgroup: --by cgroup puts each task under its cgroup's path
// with the hand-computed delays of cgroupTrace; the Parquet process table
// has the same paths.
func TestLatencyByCgroup(t *testing.T) {
	in := cgroupTrace(t)
	doc := cliJSON[latencyGroupsJSON](t, "latency", "-o", "json", "--by", "cgroup", in)
	var got []string
	for _, g := range doc.Groups {
		for _, r := range g.Tasks {
			got = append(got, fmt.Sprintf("%s %s count=%d sum=%d max=%d", g.Key, r.Comm, r.Count, r.SumDelayNs, r.MaxDelayNs))
		}
	}
	want := []string{"/a.slice a count=1 sum=800 max=800", "/b.slice b count=2 sum=1400 max=900"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups\n got %q\nwant %q", got, want)
	}

	dir := filepath.Join(t.TempDir(), "pq")
	if _, errs, code := runCLI(t, "export", "--format", "parquet", "-i", in, "-o", dir); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	procs, err := parquet.ReadFile[tables.Process](filepath.Join(dir, "process.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range procs {
		cg := "-"
		if p.Cgroup != nil {
			cg = *p.Cgroup
		}
		ps = append(ps, fmt.Sprintf("%d %s %s", p.PID, p.Name, cg))
	}
	if w := []string{"0 swapper -", "10 a /a.slice", "20 b /b.slice"}; fmt.Sprint(ps) != fmt.Sprint(w) {
		t.Errorf("process rows %q, want %q", ps, w)
	}
}

// TestLatencyCgroupFilter: --cgroup keeps the tasks of the cgroups named
// (a path, or a parent of it), with the delays --by cgroup gives them,
// b's first (1500-2000 ns) too: it ends before b's first switch-out, the
// event that says b's cgroup, which decides it (the filter dropped it, so
// that --cgroup /b.slice said 1 delay of 900 ns where --by cgroup's
// /b.slice said 2, 1400 ns). A path the trace has no cgroup under, a
// relative path and a trace without a cgroup table are usage errors;
// timehist has no --cgroup.
func TestLatencyCgroupFilter(t *testing.T) {
	in := cgroupTrace(t)
	rows := func(args ...string) []string {
		t.Helper()
		var got []string
		for _, r := range latencyJSON(t, append(args, in)...).Tasks {
			got = append(got, fmt.Sprintf("%s count=%d sum=%d max=%d", r.Comm, r.Count, r.SumDelayNs, r.MaxDelayNs))
		}
		return got
	}
	for _, c := range []struct {
		cgroup string
		want   []string
	}{
		{"/a.slice", []string{"a count=1 sum=800 max=800"}},
		{"/b.slice/", []string{"b count=2 sum=1400 max=900"}},
		{"/", []string{"a count=1 sum=800 max=800", "b count=2 sum=1400 max=900"}},
		{"/a.slice,/b.slice", []string{"a count=1 sum=800 max=800", "b count=2 sum=1400 max=900"}},
	} {
		if got := rows("--cgroup", c.cgroup); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("--cgroup %s: %q, want %q", c.cgroup, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"latency", "--cgroup", "/c.slice", in}, "no cgroup of the trace is there or below (it has /a.slice, /b.slice)"},
		{[]string{"latency", "--cgroup", "a.slice", in}, `"a.slice" is not a path from the hierarchy's root`},
		{[]string{"latency", "--cgroup", "/a.slice", tdPipe}, "the trace has no cgroup table"},
		{[]string{"timehist", "--cgroup", "/a.slice", in}, "unknown flag: --cgroup"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestCompareGroups: a group of pipe.perf.data and nice.2cpu.perf.data
// against pipe.perf.data: A's totals of runtime, switches and sum delay
// are the sums of the two traces' own (compare of each against pipe), and
// B/A is pipe's over that sum. (Two copies of one trace are read once:
// TestCompareGlobReadsCopyOnce.) A glob that matches one trace gives the
// same document as the trace named directly.
func TestCompareGroups(t *testing.T) {
	dir := t.TempDir()
	for n, src := range map[string]string{"1.perf.data": tdPipe, "2.perf.data": tdNice} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(a, b string) report.CompareResult {
		t.Helper()
		return cliJSON[report.CompareResult](t, "compare", "-o", "json", a, b)
	}
	res := compare(filepath.Join(dir, "*.perf.data"), tdPipe)
	p, n := compare(tdPipe, tdPipe).Total.A, compare(tdNice, tdPipe).Total.A
	a := res.Total.A
	if a.Runtime != p.Runtime+n.Runtime || a.Switches != p.Switches+n.Switches || a.SumDelay != p.SumDelay+n.SumDelay || a.NrTasks != p.NrTasks+n.NrTasks {
		t.Errorf("total A %+v; want the sums of pipe's %+v and nice's %+v", a, p, n)
	}
	if r := res.Total.Ratio.Runtime; r == nil || *r != float64(p.Runtime)/float64(p.Runtime+n.Runtime) {
		t.Errorf("total B/A runtime %v, want %v", r, float64(p.Runtime)/float64(p.Runtime+n.Runtime))
	}
	direct := compare(tdNice, tdPipe)
	glob := compare(filepath.Join(filepath.Dir(tdNice), "nice.2cpu.perf.dat?"), filepath.Join(filepath.Dir(tdPipe), "pipe.perf.dat?"))
	if d := cmp.Diff(direct.Rows, glob.Rows); d != "" || !cmp.Equal(direct.Total, glob.Total) {
		t.Errorf("globs of one trace differ from the traces (-direct +glob):\n%s", d)
	}
	if _, errs, code := runCLI(t, "compare", filepath.Join(dir, "*.none"), tdPipe); code != 2 || !strings.Contains(errs, "no trace matches the pattern") {
		t.Errorf("glob matching nothing: exit %d, %q", code, errs)
	}
}
