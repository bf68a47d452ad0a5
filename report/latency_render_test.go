package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// renderTrace: task a (10) woken twice on CPU 0 with delays 1.5 ms and
// 0.25 ms, and 2 ms of runtime; the first switch-in is a first-seen one.
//
//	t=1 s          idle -> a           (first seen: no delay)
//	t=1.002 s      a S -> idle         runtime 2 ms
//	t=2 s          waking a
//	t=2.0015 s     idle -> a           delay 1.5 ms
//	t=2.002 s      a S -> idle
//	t=3 s          waking a
//	t=3.00025 s    idle -> a           delay 0.25 ms
func renderTrace() []trace.Event {
	return []trace.Event{comm(10, "a"),
		sw(1e9, 0, 0, 0, 10), rt(1_002_000_000, 0, 10, 2_000_000), sw(1_002_000_000, 0, 10, sleeping, 0),
		wake(2e9, 1, 99, 10), sw(2_001_500_000, 0, 0, 0, 10), sw(2_002_000_000, 0, 10, sleeping, 0),
		wake(3e9, 1, 99, 10), sw(3_000_250_000, 0, 0, 0, 10),
	}
}

func TestLatencyJSON(t *testing.T) {
	res := run(t, renderTrace(), LatencyOptions{Percentiles: true})
	var buf bytes.Buffer
	if err := WriteLatencyJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// count 2, sum 1.75 ms, avg 0.875 ms, max 1.5 ms from 2 s to 2.0015 s;
	// 3 switch-ins. Empirical percentiles of {0.25, 1.5} ms: p50 -> the
	// first sample with i >= 0.5*2, i.e. 0.25 ms; p95/p99/p99.9 -> 1.5 ms.
	want := map[string]any{
		"tasks": []any{map[string]any{
			"comm": "a", "pid": 10.0, "nr_tasks": 1.0, "runtime_ns": 2e6, "count": 2.0, "switches": 3.0,
			"avg_delay_ns": 875000.0, "max_delay_ns": 1.5e6, "sum_delay_ns": 1.75e6,
			"max_delay_start_ns": 2e9, "max_delay_end_ns": 2_001_500_000.0,
			"p50_delay_ns": 250000.0, "p95_delay_ns": 1.5e6, "p99_delay_ns": 1.5e6, "p999_delay_ns": 1.5e6,
			// the trace has sched_stat_runtime and no lost events
			"runtime_source": "sched_stat_runtime", "lossy_delays": 0.0, "lossy_runtime_events": 0.0,
			// every switch-in is in the trace
			"recovered_delays": 0.0,
		}},
		"total": map[string]any{"runtime_ns": 2e6, "count": 2.0, "switches": 3.0, "sum_delay_ns": 1.75e6},
	}
	warns, _ := got["warnings"].([]any)
	delete(got, "warnings")
	// A field of a column without a LatencyJSONRow field of its own (in
	// Extra) is pinned by its column's test (latency_columns_test.go).
	task := got["tasks"].([]any)[0].(map[string]any)
	for k := range task {
		if _, typed := latencyJSONFields[k]; !typed && k != "recovered_delays" {
			if i := slices.IndexFunc(LatencyColumns, func(c LatencyColumn) bool { return c.Key == k && c.JSON }); i >= 0 {
				delete(task, k)
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("json (-want +got):\n%s", d)
	}
	// The one warning: the first-seen switch-in.
	if len(warns) != 1 || !strings.Contains(warns[0].(map[string]any)["message"].(string), "1 task was first seen") {
		t.Errorf("warnings = %v", warns)
	}

	// Without --percentiles the p* fields are absent.
	res = run(t, renderTrace(), LatencyOptions{})
	buf.Reset()
	WriteLatencyJSON(&buf, res)
	if strings.Contains(buf.String(), "p50_delay_ns") {
		t.Errorf("p50 without percentiles:\n%s", buf.String())
	}
}

func TestLatencyCSV(t *testing.T) {
	res := run(t, renderTrace(), LatencyOptions{})
	var buf bytes.Buffer
	if err := WriteLatencyCSV(&buf, res); err != nil {
		t.Fatal(err)
	}
	want := "comm,pid,nr_tasks,runtime_ns,count,switches,avg_delay_ns,max_delay_ns,sum_delay_ns,max_delay_start_ns,max_delay_end_ns,unended_runs\n" +
		"a,10,1,2000000,2,3,875000,1500000,1750000,2000000000,2001500000,0\n" // no TOTAL line: one kind of row
	if buf.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestLatencyTableText(t *testing.T) {
	res := run(t, renderTrace(), LatencyOptions{})
	var buf bytes.Buffer
	if err := WriteLatencyTable(&buf, res, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	// Runtime 2 ms, Count 2, avg 0.875 ms, max 1.5 ms, sum 1.75 ms, max
	// start 2.000000 s, end 2.001500 s.
	row := "  a:10                  |      2.000 ms |        2 | avg:   0.875 ms | max:   1.500 ms | sum:       1.750 ms | max start:     2.000000 s | max end:     2.001500 s"
	total := "  TOTAL:                |      2.000 ms |        2 |                 |                 | sum:       1.750 ms |"
	if lines[4] != row || lines[6] != total {
		t.Errorf("table:\n%s", buf.String())
	}
	// Every column separator of the row lines up with the header's.
	for i, ch := range lines[2] {
		if ch == '|' && i < len(row) && row[i] != '|' && i < len(lines[2])-30 {
			t.Errorf("header '|' at column %d, row has %q\n%s\n%s", i, row[i], lines[2], row)
		}
	}
}

func TestLatencyJSONLost(t *testing.T) {
	meta := &trace.Meta{Lost: []trace.LostWindow{{CPU: 1, Count: 1234, Start: 12_300_000_000, End: 12_400_000_000}}}
	res, err := ComputeLatency(trace.NewSliceSource(renderTrace(), meta), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteLatencyJSON(&buf, res)
	if !strings.Contains(buf.String(), `"lost": [
    {
      "cpu": 1,
      "count": 1234,
      "start_ns": 12300000000,
      "end_ns": 12400000000
    }
  ]`) {
		t.Errorf("json:\n%s", buf.String())
	}
}

// TestLatencySumColumnWide: a Sum delay of 100000 ms or more (236166.692 ms
// on pipe-multi.perf.data's TOTAL and sched-messaging rows) filled the
// "%10.3f" cell to "sum:236166.692 ms" with no space, and from 1000000 ms
// pushed the row off the header's separators. Now every '|' of rows and
// TOTAL with sums of 0.005, 236166.692 and 1234567.891 ms (total 1470734.588
// ms) falls under a '|' of the header, and the cells keep their space.
func TestLatencySumColumnWide(t *testing.T) {
	res := &LatencyResult{Rows: []LatencyRow{
		{Comm: "a", TID: 1, NrTasks: 1, Count: 1, SumDelay: 236166692000},
		{Comm: "b", TID: 2, NrTasks: 1, Count: 1, SumDelay: 1234567891000},
		{Comm: "c", TID: 3, NrTasks: 1, Count: 1, SumDelay: 5000},
	}, Total: LatencyTotal{SumDelay: 1470734588000}}
	var buf bytes.Buffer
	if err := WriteLatencyTable(&buf, res, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	header := lines[2]
	for _, want := range []string{"| sum:  236166.692 ms |", "| sum: 1234567.891 ms |", "| sum:       0.005 ms |", "| sum: 1470734.588 ms |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no cell %q in:\n%s", want, buf.String())
		}
	}
	for _, l := range append(lines[4:7], lines[8]) {
		for i, ch := range l {
			if ch == '|' && (i >= len(header) || header[i] != '|') {
				t.Errorf("'|' at column %d not under the header's:\n%s\n%s", i, header, l)
			}
		}
	}
}
