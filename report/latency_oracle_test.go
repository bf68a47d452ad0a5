package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// The oracle: perf 6.12.95's own `perf sched latency` output beside each
// NAME.perf.data, in this repo's testdata/traces and in ../shared/traces
// (the developer set, when present next to the repo).
var oracleDirs = []string{"../testdata/traces", "../../shared/traces"}

// oracleVariants: golden file suffix -> options, as the shared README lists.
var oracleVariants = []struct {
	golden string
	opts   LatencyOptions
}{
	{"latency", LatencyOptions{}},
	{"latency-all", LatencyOptions{PerTask: true}},
	{"latency-max", LatencyOptions{Sort: []string{"max"}}},
	// Generated with perf 6.12.95 for the repo's copies only
	// (testdata/traces/README.md): -C 1, -C 0 -p, -s runtime,switch, -s pid.
	{"latency-C1", LatencyOptions{CPUGiven: true, CPU: 1}},
	{"latency-C0-p", LatencyOptions{CPUGiven: true, CPU: 0, PerTask: true}},
	{"latency-runtime-switch", LatencyOptions{Sort: []string{"runtime,switch"}}},
	// -s pid (highest tid first; a merged row by its highest tid).
	{"latency-pid", LatencyOptions{Sort: []string{"pid"}}},
}

// perfRow is one parsed line of perf's table, numbers as printed.
type perfRow struct {
	name                          string // "comm:tid" or "comm:(n)"
	runtime, avg, max, start, end string
	count                         int64
}

var (
	perfRowRE   = regexp.MustCompile(`^  (.*:(?:\(\d+\)|\d+)) +\|\s*([0-9.]+) ms \|\s*(\d+) \| avg:\s*([0-9.]+) ms \| max:\s*([0-9.]+) ms \| max start:\s*([0-9.]+) s \| max end:\s*([0-9.]+) s$`)
	perfTotalRE = regexp.MustCompile(`^  TOTAL: +\|\s*([0-9.]+) ms \|\s*(\d+) \|$`)
)

// parsePerfLatency reads perf's table: rows, TOTAL runtime and count, INFO
// lines.
func parsePerfLatency(t *testing.T, text string) (rows []perfRow, totRuntime string, totCount int64, info []string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if m := perfRowRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[3], 10, 64)
			rows = append(rows, perfRow{name: m[1], runtime: m[2], count: n, avg: m[4], max: m[5], start: m[6], end: m[7]})
		} else if m := perfTotalRE.FindStringSubmatch(line); m != nil {
			totRuntime = m[1]
			totCount, _ = strconv.ParseInt(m[2], 10, 64)
		} else if strings.HasPrefix(line, "  INFO:") {
			info = append(info, line)
		}
	}
	if totRuntime == "" {
		t.Fatalf("no TOTAL line in perf output")
	}
	return
}

func ourPerfRow(r *LatencyRow) perfRow {
	name := fmt.Sprintf("%s:%d", r.Comm, r.TID)
	if r.NrTasks > 1 {
		name = fmt.Sprintf("%s:(%d)", r.Comm, r.NrTasks)
	}
	f := func(ns int64) string { return fmt.Sprintf("%.3f", ms(ns)) }
	return perfRow{name: name, runtime: f(r.Runtime), count: r.Count, avg: f(r.AvgDelay), max: f(r.MaxDelay),
		start: usecStamp(r.MaxDelayStart), end: usecStamp(r.MaxDelayEnd)}
}

func latencyOf(t *testing.T, path string, opts LatencyOptions) *LatencyResult {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	res, err := ComputeLatency(src, opts)
	if err != nil {
		t.Fatalf("latency: %v", err)
	}
	return res
}

func oracleTraces(t *testing.T) []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range oracleDirs {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.perf.data"))
		for _, m := range ms {
			name := strings.TrimSuffix(filepath.Base(m), ".perf.data")
			if seen[name] {
				continue // the repo's copy of a shared trace
			}
			seen[name] = true
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		t.Skip("no NAME.perf.data in testdata/traces or ../shared/traces")
	}
	return out
}

// TestLatencyOracle: with PerfCompat our numbers equal perf's printed ones
// (same rows in the same order; runtime and delays to the printed 0.001 ms,
// counts exact, max delay start/end exact to the printed microsecond; TOTAL
// and INFO lines) and the rendered text is byte-identical; without it every
// difference is one this package documents (checkCorrections).
func TestLatencyOracle(t *testing.T) {
	for _, path := range oracleTraces(t) {
		base := strings.TrimSuffix(path, ".perf.data")
		for _, v := range oracleVariants {
			golden, err := os.ReadFile(base + "." + v.golden + ".txt")
			if err != nil {
				continue
			}
			t.Run(filepath.Base(base)+"/"+v.golden, func(t *testing.T) {
				opts := v.opts
				opts.PerfCompat = true
				compat := latencyOf(t, path, opts)
				want, wantRT, wantCount, wantInfo := parsePerfLatency(t, string(golden))
				var got []perfRow
				for i := range compat.Rows {
					got = append(got, ourPerfRow(&compat.Rows[i]))
				}
				if len(got) != len(want) {
					t.Errorf("%d rows, perf has %d", len(got), len(want))
				}
				for i := 0; i < len(got) && i < len(want); i++ {
					if got[i] != want[i] {
						t.Errorf("row %d:\n got %+v\nperf %+v", i, got[i], want[i])
					}
				}
				if rt := fmt.Sprintf("%.3f", ms(compat.Total.Runtime)); rt != wantRT || compat.Total.Count != wantCount {
					t.Errorf("TOTAL %s ms %d, perf %s ms %d", rt, compat.Total.Count, wantRT, wantCount)
				}
				var buf bytes.Buffer
				writePerfInfo(&buf, &compat.Diag)
				if gotInfo := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"); buf.Len() > 0 && strings.Join(gotInfo, "|") != strings.Join(wantInfo, "|") {
					t.Errorf("INFO lines:\n got %q\nperf %q", gotInfo, wantInfo)
				}
				buf.Reset()
				if err := WriteLatencyTable(&buf, compat, true); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), golden) {
					t.Errorf("rendered table differs from perf's:\n%s", buf.String())
				}

				opts.PerfCompat = false
				checkCorrections(t, compat, latencyOf(t, path, opts))
			})
		}
	}
}

// checkCorrections checks that the default result differs from perf's only
// by the documented corrections, row by row: Count loses perf's 0 ns
// first-seen delays and gains the recovered delays, whose sum is the whole
// difference in SumDelay; Runtime and Switches are unchanged; a maximum
// changes only to a recovered delay. Every row perf prints is ours too (with
// Count 0 when perf's were all first-seen zeros); a row we print and perf
// does not holds only recovered delays. A task no COMM record named is
// perf's ":TID" and ours under the name its events gave it: perf's rows are
// regrouped under our names first.
//
// In a recording of some CPUs (ours.Diag.UnrecordedDelays > 0) a row may
// also lose the delays left out as unrecorded: its count is at most
// perf's (corrected as above), its runtime and switches perf's. In a
// recording that lost events (lossy-messaging) a row loses the delays and
// runs that overlapped a loss: its count and runtime are at most perf's,
// and a switch perf took for a context-switch bug may be one a loss hid
// (chain breaks are not compared).
func checkCorrections(t *testing.T, compat, ours *LatencyResult) {
	t.Helper()
	lossy := ours.Diag.LostEvents > 0
	unrecorded := ours.Diag.UnrecordedDelays > 0 || lossy
	key := func(r *LatencyRow) string { return fmt.Sprintf("%s/%d/%d", r.Comm, r.TID, r.NrTasks) }
	idx := map[string]*LatencyRow{}
	for i := range ours.Rows {
		idx[key(&ours.Rows[i])] = &ours.Rows[i]
	}
	named := map[trace.TID]string{}
	for _, r := range ours.TaskRows {
		if !strings.HasPrefix(r.Comm, ":") {
			named[r.TID] = r.Comm
		}
	}
	perfTasks := slices.Clone(compat.TaskRows)
	for i := range perfTasks {
		if r := &perfTasks[i]; r.Comm == fmt.Sprintf(":%d", r.TID) && named[r.TID] != "" {
			r.Comm = named[r.TID]
		}
	}
	perfRows, _ := groupRows(perfTasks, compat.Options)
	for i := range perfRows {
		p := &perfRows[i]
		o := idx[key(p)]
		if o == nil {
			if !unrecorded { // (there, a row whose every delay was left out)
				t.Errorf("row %s (perf count %d, %d first-seen) missing from ours", key(p), p.Count, p.FirstSeen)
			}
			continue
		}
		delete(idx, key(p))
		if unrecorded {
			// A recording of some CPUs (perf record -C): the delays the
			// task may have spent running on a CPU left out are not
			// counted (Delay.Unrecorded), so a row has at most perf's.
			if o.Count > p.Count-p.FirstSeen+o.Recovered+o.Raced || o.Runtime != p.Runtime && !lossy || o.Runtime > p.Runtime || o.Switches != p.Switches && !lossy {
				t.Errorf("row %s: ours count %d runtime %d switches %d, perf %d (-%d first seen, +%d recovered, +%d raced) runtime %d switches %d",
					key(p), o.Count, o.Runtime, o.Switches, p.Count, p.FirstSeen, o.Recovered, o.Raced, p.Runtime, p.Switches)
			}
			continue
		}
		if o.Count != p.Count-p.FirstSeen+o.Recovered+o.Raced || o.SumDelay != p.SumDelay+o.RecoveredSum+o.RacedSum-o.RestartShift ||
			o.Runtime != p.Runtime || o.Switches != p.Switches {
			t.Errorf("row %s: ours count %d sum %d runtime %d, perf %d (-%d first seen, +%d recovered, +%d raced) sum %d (+%d +%d -%d restarted) runtime %d",
				key(p), o.Count, o.SumDelay, o.Runtime, p.Count, p.FirstSeen, o.Recovered, o.Raced, p.SumDelay, o.RecoveredSum, o.RacedSum, o.RestartShift, p.Runtime)
		}
		if (o.MaxDelay < p.MaxDelay && o.RestartShift == 0) || (o.MaxDelay > p.MaxDelay && o.Recovered+o.Raced == 0) {
			t.Errorf("row %s: max %d, perf %d, recovered %d, raced %d", key(p), o.MaxDelay, p.MaxDelay, o.Recovered, o.Raced)
		}
	}
	for k, o := range idx {
		if o.Recovered+o.Raced != o.Count {
			t.Errorf("row %s only in ours has %d delays, %d recovered, %d raced", k, o.Count, o.Recovered, o.Raced)
		}
	}
	if ours.Diag.PerfSwitchBugs != compat.Diag.PerfSwitchBugs {
		t.Errorf("switch bugs %d vs %d", ours.Diag.PerfSwitchBugs, compat.Diag.PerfSwitchBugs)
	}
	var breaks int64
	for _, cb := range ours.Diag.Chains {
		breaks += cb.Breaks
	}
	// Our per-CPU chain breaks are perf's "context switch bugs", counted
	// the same way (one per gap), just attributed to CPUs and tasks.
	if breaks != compat.Diag.PerfSwitchBugs && !lossy {
		t.Errorf("chain breaks %d, perf's context switch bugs %d", breaks, compat.Diag.PerfSwitchBugs)
	}
}

// TestLatencyPerfWrongNice pins where perf 6.12 is wrong on nice.2cpu (-p),
// computed by hand from the events (perf script -F ... of the same file):
//
// hog:13339 (nice -5): perf prints Count 57. Twice the trace lacks its
// switch-in on CPU 1, after tokio-rt-worker:68 (a task whose own events
// are never recorded) had preempted it:
//
//	687.621975126 [001] sched_switch hog:13339 R+ ==> tokio-rt-worker:68   (delay starts)
//	687.624677974 [001] sched_stat_runtime hog 13339 runtime=2498364 ns   (first event of 13339 after)
//	  switch-in >= 687.624677974 - 0.002498364 = 687.622179610 -> delay 204484 ns
//	688.622197936 [001] sched_switch hog:13339 R+ ==> tokio-rt-worker:68
//	688.624682975 [001] sched_stat_runtime hog 13339 runtime=2272842 ns
//	  switch-in 688.622410133 -> delay 212197 ns
//
// perf drops both delays (its "context switch bugs"); we count them:
// Count 59, SumDelay = perf's + 416681 ns.
//
// sh:13335: perf Count 4; woken at 689.437512904 (sched_waking on CPU 0),
// its switch-in on CPU 1 (from idle, never recorded on CPU 1) is implied by
// 689.437712629 [001] sched_stat_runtime sh 13335 runtime=171382 ns ->
// 689.437541247, delay 28343 ns: Count 5.
//
// hog:13338: woken (sched_wakeup_new) at 687.431323315 onto idle CPU 1;
// 687.431645248 [001] sched_stat_runtime runtime=323176 ns implies a
// switch-in at 687.431322072, before the wakeup, so it is clamped to the
// wakeup: delay 0 ns, Count 127 (perf 126).
func TestLatencyPerfWrongNice(t *testing.T) {
	path := ""
	for _, dir := range oracleDirs {
		if p := filepath.Join(dir, "nice.2cpu.perf.data"); fileExists(p) {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("nice.2cpu.perf.data not found")
	}
	compat := latencyOf(t, path, LatencyOptions{PerTask: true, PerfCompat: true})
	ours := latencyOf(t, path, LatencyOptions{PerTask: true})
	find := func(res *LatencyResult, tid trace.TID) *LatencyRow {
		for i := range res.Rows {
			if res.Rows[i].TID == tid {
				return &res.Rows[i]
			}
		}
		t.Fatalf("no row for %d", tid)
		return nil
	}
	for _, c := range []struct {
		tid                     trace.TID
		perfCount, count, added int64
	}{
		{13339, 57, 59, 204484 + 212197},
		{13335, 4, 5, 28343},
		{13338, 126, 127, 0},
	} {
		p, o := find(compat, c.tid), find(ours, c.tid)
		if p.Count != c.perfCount || o.Count != c.count || o.SumDelay-p.SumDelay != c.added {
			t.Errorf("tid %d: perf count %d, ours %d, added delay %d ns; want %d, %d, %d",
				c.tid, p.Count, o.Count, o.SumDelay-p.SumDelay, c.perfCount, c.count, c.added)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestLatencyNamesFromEvents: in nice.2cpu.perf.data no COMM record names
// tid 68 (a tokio-rt-worker thread of the VM's agent; perf prints
// ":68:68"), but its sched_switch events do ("hog:13339 R+ ==>
// tokio-rt-worker:68"), as timehist prints it. The default report names
// the row, and the chain-break warning, after them; --perf keeps perf's
// ":68". Before, both printed ":68", a row a reader could not place.
func TestLatencyNamesFromEvents(t *testing.T) {
	path := "../testdata/traces/nice.2cpu.perf.data"
	for _, c := range []struct {
		name string
		perf bool
		want string
	}{
		{"default", false, "tokio-rt-worker"},
		{"perf", true, ":68"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := latencyOf(t, path, LatencyOptions{PerTask: true, PerfCompat: c.perf})
			var row *LatencyRow
			for i := range res.Rows {
				if res.Rows[i].TID == 68 {
					row = &res.Rows[i]
				}
			}
			if row == nil || row.Comm != c.want || row.Switches != 2 || row.Count != 1 || row.SumDelay != 19377 {
				t.Fatalf("row of tid 68: %+v; want %q, 2 switches, 1 delay of 19377 ns", row, c.want)
			}
			if c.perf {
				return
			}
			var buf bytes.Buffer
			for _, w := range res.ReportWarnings {
				buf.WriteString(w.Message + "\n")
			}
			if !strings.Contains(buf.String(), "the switches out of: idle (swapper/1) 5, tokio-rt-worker:68 2 ") {
				t.Errorf("warnings do not name tid 68 tokio-rt-worker:\n%s", buf.String())
			}
		})
	}
}

// TestLatencyRuntimeSourceWarnings: on a trace without sched_stat_runtime
// (gScenario's events without them), --perf's Runtime column is all zeros,
// as perf prints it, and a warning says so (before: zeros in silence, e.g.
// stress-ng-cpu 0.000 ms after 3 s on the CPU of a traceview capture); the
// default report takes Runtime from the switches and says so, except for a
// traceview record capture, which leaves sched_stat_runtime out by design
// (every default capture warned).
func TestLatencyRuntimeSourceWarnings(t *testing.T) {
	var noRT []trace.Event
	for _, e := range gScenario() {
		if e.Kind != trace.KindRuntime {
			noRT = append(noRT, e)
		}
	}
	for _, c := range []struct {
		name string
		tool string
		perf bool
		want string // warning keys about the runtime
	}{
		{"perf", "perf 6.12", true, "latency-runtime-none"},
		{"default", "perf 6.12", false, "runtime-from-switches"},
		{"traceview record", "traceview record (tp_btf)", false, ""},
		{"traceview record --perf", "traceview record (tp_btf)", true, "latency-runtime-none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ComputeLatency(trace.NewSliceSource(noRT, &trace.Meta{Tool: c.tool}), LatencyOptions{PerfCompat: c.perf})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Key, "runtime") {
					got = append(got, w.Key)
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("runtime warnings %q, want %q", got, c.want)
			}
			if c.perf && res.Total.Runtime != 0 || !c.perf && res.Total.Runtime != 3400000 {
				t.Errorf("total runtime %d ns", res.Total.Runtime)
			}
		})
	}
	// With sched_stat_runtime, --perf has no such warning.
	res, err := ComputeLatency(trace.NewSliceSource(gScenario(), nil), LatencyOptions{PerfCompat: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if w.Key == "latency-runtime-none" {
			t.Errorf("warning %q on a trace with sched_stat_runtime", w)
		}
	}
}

// TestPerfModeWarningNames: --perf's warnings are traceview's own prose,
// so they name a task as the trace knows it, as the default mode does,
// not as perf's table does: dupattr.perf.data's tid 74 has no COMM record
// (perf's row ":74:74") and sched_switch names it tokio-rt-worker; the
// switch-out of it the CPU's previous switch had not switched in reads
// "tokio-rt-worker:74 1" in both modes (new-user pass 70 F4: ":74:74 1").
func TestPerfModeWarningNames(t *testing.T) {
	for _, perf := range []bool{false, true} {
		res := latencyOf(t, "../testdata/traces/dupattr.perf.data", LatencyOptions{PerfCompat: perf})
		found := false
		for _, w := range res.ReportWarnings {
			found = found || strings.Contains(w.Message, "the switches out of: tokio-rt-worker:74 1")
			if strings.Contains(w.Message, ":74:74") {
				t.Errorf("perf %v: %q names tid 74 as perf's table does", perf, w.Message)
			}
		}
		if !found {
			t.Errorf("perf %v: no warning naming tokio-rt-worker:74 in %+v", perf, res.ReportWarnings)
		}
	}
}
