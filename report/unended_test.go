package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// unendedRun is TestLatencyUnendedRuns's trace.
func unendedRun() []trace.Event {
	return []trace.Event{comm(50, "m"), comm(60, "x"),
		sw(100, 0, 0, trace.StateRunning, 50),
		sw(300, 0, 60, sleeping, 0),
		sw(400, 0, 0, trace.StateRunning, 60),
		sw(700, 0, 60, sleeping, 0),
	}
}

// TestLatencyUnendedRuns (new-user pass 117 F2): a trace with no
// sched_stat_runtime, so run time comes from the switches. CPU 0:
//
//	t=100  idle -> m (tid 50): m's run begins
//	t=300  x (tid 60) -> idle: the CPU's previous switch switched in m, so
//	       m's switch-out is missing (its run ended at an unknown time in
//	       100..300) and x's run began unseen
//	t=400  idle -> x
//	t=700  x -> idle: x ran 300 ns
//
// m's run time is unknown, not 0: RunsUnended 1, the table prints "-" in
// its Runtime cell (and 0.000 in perf's layout, as perf), the JSON
// unended_runs 1 beside runtime_ns 0. x ran 300 ns measured, no run
// unended (its unseen start is ShownRun's, another warning).
func TestLatencyUnendedRuns(t *testing.T) {
	res := run(t, unendedRun(), LatencyOptions{PerTask: true})
	got := map[string][2]int64{}
	for _, r := range res.Rows {
		got[r.Comm] = [2]int64{r.Runtime, r.RunsUnended}
	}
	if got["m"] != [2]int64{0, 1} || got["x"] != [2]int64{300, 0} {
		t.Fatalf("rows (runtime, unended runs) %v; want m [0 1], x [300 0]", got)
	}
	var b bytes.Buffer
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "  m:50"):
			if !strings.Contains(l, "|          - ms |") {
				t.Errorf("m's row %q: want its Runtime cell \"-\"", l)
			}
		case strings.HasPrefix(l, "  x:60"):
			if !strings.Contains(l, "|      0.000 ms |") {
				t.Errorf("x's row %q: want 0.000 ms (300 ns)", l)
			}
		}
	}
	var doc struct {
		Tasks []struct {
			Comm        string `json:"comm"`
			RuntimeNs   int64  `json:"runtime_ns"`
			UnendedRuns *int64 `json:"unended_runs"`
		} `json:"tasks"`
	}
	js, err := json.Marshal(res.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Tasks {
		if r.Comm == "m" && (r.UnendedRuns == nil || *r.UnendedRuns != 1 || r.RuntimeNs != 0) {
			t.Errorf("m's JSON runtime_ns %d, unended_runs %v; want 0 and 1", r.RuntimeNs, r.UnendedRuns)
		}
	}
}

// TestStatsChainWarningsPerCPU (new-user pass 118 F1): stats says the
// switches a trace lacks per CPU under latency's keys, so both count the
// same warnings. CPU 0 (as TestLatencyUnendedRuns): one sched_switch (300)
// switches out x where m was switched in; CPU 1: idle -> y (tid 70) at
// 100, then switch-outs of z (80) at 200 and of y at 300, each not the
// task the CPU's previous switch switched in (y, then idle: 2 breaks).
// Both reports: sched-switch-chain-cpu0 1, sched-switch-chain-cpu1 2.
func TestStatsChainWarningsPerCPU(t *testing.T) {
	evs := []trace.Event{comm(50, "m"), comm(60, "x"), comm(70, "y"), comm(80, "z"),
		sw(100, 0, 0, trace.StateRunning, 50),
		sw(100, 1, 0, trace.StateRunning, 70),
		sw(200, 1, 80, sleeping, 0),
		sw(300, 0, 60, sleeping, 0),
		sw(300, 1, 70, sleeping, 0),
		sw(400, 0, 0, trace.StateRunning, 60),
		sw(700, 0, 60, sleeping, 0),
	}
	chains := func(ws []trace.Warning) map[string]int {
		out := map[string]int{}
		for _, w := range ws {
			if strings.HasPrefix(w.Key, "sched-switch-chain") {
				out[w.Key] = w.Count
			}
		}
		return out
	}
	lat := run(t, evs, LatencyOptions{})
	st, err := ComputeStats(trace.NewSliceSource(evs, &trace.Meta{}), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"sched-switch-chain-cpu0": 1, "sched-switch-chain-cpu1": 2}
	if got := chains(lat.ReportWarnings); !maps.Equal(got, want) {
		t.Errorf("latency's chain warnings %v; want %v", got, want)
	}
	if got := chains(st.Warnings); !maps.Equal(got, want) {
		t.Errorf("stats' chain warnings %v; want %v (latency's)", got, want)
	}
}

// TestRecoveredOverNote (new-user pass 118 F4): missingSwitchIn's task m
// has one delay whose switch-in the trace lacks (Recovered 1, Count 1)
// and no recorded switch-in (Switches 0): the table says why its Count
// exceeds its switch-ins, and task_latency's recovered_delays is in the
// row (tables).
func TestRecoveredOverNote(t *testing.T) {
	res := run(t, missingSwitchIn(), LatencyOptions{})
	var b bytes.Buffer
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	if want := "  Count includes 1 delay whose switch-in the trace lacks (closed at the task's first event on its CPU): 1 row counts more delays than switch-ins\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the line %q", b.String(), want)
	}
	b.Reset()
	if err := WriteLatencyTable(&b, run(t, missingSwitchIn(), LatencyOptions{PerfCompat: true}), true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Count includes") {
		t.Errorf("perf's layout has no such line:\n%s", b.String())
	}
}

// TestHTMLUnknownRuntime (new-user pass 118 F2): the HTML report's table
// prints "-" where the CLI's does: m's run time (TestLatencyUnendedRuns)
// and its delay figures (none measured), not 0.000.
func TestHTMLUnknownRuntime(t *testing.T) {
	res := run(t, unendedRun(), LatencyOptions{PerTask: true})
	cols := htmlColumns(&res.Options)
	rows := htmlTableRows(res.Rows, cols)
	for i, r := range res.Rows {
		if r.Comm != "m" {
			continue
		}
		for j, c := range cols {
			if got := rows[i].Cells[j]; (c.Key == "runtime_ns" || c.OfDelays) && got != "-" {
				t.Errorf("m's %s cell %q; want -", c.Key, got)
			}
		}
		return
	}
	t.Fatal("no row m")
}

// TestRecoveredOverCountsAll (new-user pass 120 F5): the note counts every
// recovered delay, as the -v warning does, not only those of the rows it
// lifts above their switch-ins: rows a (2 recovered, Count 5 <= 9
// switches) and b (1 recovered, Count 4 > 3 switches) give 3 delays, 1
// row; without a row over, no note.
func TestRecoveredOverCountsAll(t *testing.T) {
	rows := []LatencyRow{{Comm: "a", Recovered: 2, Count: 5, Switches: 9}, {Comm: "b", Recovered: 1, Count: 4, Switches: 3}}
	if n, over := recoveredOver(rows); n != 3 || over != 1 {
		t.Errorf("recoveredOver = %d, %d; want 3, 1", n, over)
	}
	if n, over := recoveredOver(rows[:1]); n != 0 || over != 0 {
		t.Errorf("recoveredOver of a row not over = %d, %d; want 0, 0", n, over)
	}
}

// TestCompareSwitchesAsKernel (new-user pass 122 F1): compare counts a
// row's switch-ins as the kernel does, the recorded ones and those the
// trace lacks, as replay scores them: missingSwitchIn's m has no recorded
// switch-in and one the trace lacks (Unrecorded 1), so 1 on each side.
func TestCompareSwitchesAsKernel(t *testing.T) {
	res, err := Compare(trace.NewSliceSource(missingSwitchIn(), &trace.Meta{}), trace.NewSliceSource(missingSwitchIn(), &trace.Meta{}), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Comm == "m" {
			if r.A == nil || r.B == nil || r.A.Switches != 1 || r.B.Switches != 1 || res.Total.A.Switches != 1 {
				t.Errorf("m: A %+v, B %+v, total A %+v; want 1 switch each", r.A, r.B, res.Total.A)
			}
			return
		}
	}
	t.Fatal("no row m")
}
