package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

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
	evs := []trace.Event{comm(50, "m"), comm(60, "x"),
		sw(100, 0, 0, trace.StateRunning, 50),
		sw(300, 0, 60, sleeping, 0),
		sw(400, 0, 0, trace.StateRunning, 60),
		sw(700, 0, 60, sleeping, 0),
	}
	res := run(t, evs, LatencyOptions{PerTask: true})
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
