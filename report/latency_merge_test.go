package report

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestMergeLatency: merging one trace's report gives its own table row for
// row (one code path: ComputeLatency groups its task rows as MergeLatency
// does); merging the same trace twice doubles every count and sum, keeps
// every maximum, doubles NrTasks, and leaves the percentiles unchanged (the
// empirical quantiles of a multiset taken twice are its own: percentiles
// come from the merged samples, never from averaging).
func TestMergeLatency(t *testing.T) {
	for _, perTask := range []bool{false, true} {
		opts := LatencyOptions{PerTask: perTask, Percentiles: true}
		one, err := ComputeLatency(testsched.Open(t, "../testdata/traces/messaging.2cpu.perf.data"), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(one.Rows) < 5 {
			t.Fatalf("%d rows: the trace should give more", len(one.Rows))
		}
		self, err := MergeLatency([]*LatencyResult{one}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(one.Rows, self.Rows); d != "" {
			t.Errorf("perTask=%v: merge of one report differs from it (-want +got):\n%s", perTask, d)
		}
		two, err := MergeLatency([]*LatencyResult{one, one}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if perTask {
			// Tasks of different traces are never merged: each row twice.
			if len(two.Rows) != 2*len(one.Rows) {
				t.Fatalf("-p: %d rows, want %d", len(two.Rows), 2*len(one.Rows))
			}
		} else {
			if len(two.Rows) != len(one.Rows) {
				t.Fatalf("%d rows, want %d", len(two.Rows), len(one.Rows))
			}
			want := map[string]LatencyRow{}
			for _, r := range one.Rows {
				want[r.Comm] = r
			}
			for _, g := range two.Rows {
				w := want[g.Comm]
				if g.Count != 2*w.Count || g.Switches != 2*w.Switches || g.Runtime != 2*w.Runtime || g.SumDelay != 2*w.SumDelay ||
					g.NrTasks != 2*w.NrTasks || g.MaxDelay != w.MaxDelay || g.AvgDelay != w.SumDelay*2/(w.Count*2) ||
					g.P50 != w.P50 || g.P99 != w.P99 || g.P999 != w.P999 {
					t.Errorf("%s: merged twice %+v\nonce %+v", g.Comm, g, w)
				}
			}
		}
		if two.Total.Count != 2*one.Total.Count || two.Total.Switches != 2*one.Total.Switches ||
			two.Total.SumDelay != 2*one.Total.SumDelay || two.Total.Runtime != 2*one.Total.Runtime {
			t.Errorf("perTask=%v: totals %+v, want twice %+v", perTask, two.Total, one.Total)
		}
		if two.Diag.Switches != 2*one.Diag.Switches {
			t.Errorf("diag switches %d, want %d", two.Diag.Switches, 2*one.Diag.Switches)
		}
	}
}

// TestLatencyRegroup: a report computed per command and regrouped per task
// is the report computed per task, and the other way round, row for row
// and in its totals and options (grpq.q25 has a throttled cgroup: the
// throttling analysis comes along).
func TestLatencyRegroup(t *testing.T) {
	for _, f := range []string{"../testdata/traces/messaging.2cpu.perf.data", "../testdata/traces/grpq.q25.perf.data"} {
		res := map[bool]*LatencyResult{}
		for _, perTask := range []bool{false, true} {
			r, err := ComputeLatency(testsched.Open(t, f), LatencyOptions{PerTask: perTask, Percentiles: true})
			if err != nil {
				t.Fatal(err)
			}
			res[perTask] = r
		}
		for _, perTask := range []bool{false, true} {
			want, got := res[perTask], res[!perTask].Regroup(perTask)
			if len(want.Rows) < 3 {
				t.Fatalf("%s: %d rows: the trace should give more", f, len(want.Rows))
			}
			if d := cmp.Diff(want.Rows, got.Rows); d != "" {
				t.Errorf("%s: perTask=%v: regrouped rows differ (-computed +regrouped):\n%s", f, perTask, d)
			}
			if want.Total != got.Total || !cmp.Equal(want.Options, got.Options) || !cmp.Equal(want.Warnings, got.Warnings) {
				t.Errorf("%s: perTask=%v: totals, options or warnings differ: %+v %+v / %+v %+v", f, perTask,
					want.Total, want.Options, got.Total, got.Options)
			}
		}
	}
}

// TestLatencyNoMatchNamesSwitchCPUs: a filter that matches nothing says on
// which CPUs the trace has sched_switch events, --cpu given or not: a
// capture of CPU 0 alone (record --cpu 0) read with --cpu 1 says "CPU 0"
// (before: no CPUs with --cpu, and a wakeup's target CPU counted as one
// with events).
func TestLatencyNoMatchNamesSwitchCPUs(t *testing.T) {
	evs := []trace.Event{
		testsched.Switch(1000, 0, 0, "swapper/0", 0, 10, "a"),
		testsched.Waking(1500, 0, 10, 11, "b", 1),
		testsched.Switch(2000, 0, 10, "a", trace.StateInterruptible, 0, "swapper/0"),
	}
	for _, c := range []struct {
		filter *schedule.Filter
		want   string
	}{
		{&schedule.Filter{CPUs: []trace.CPU{1}}, "nothing matched the filters --cpu 1: the trace has 3 scheduler events, 2 of them sched_switch; it spans 0.000001 s to 0.000002 s, sched_switch on CPU 0"},
		{&schedule.Filter{Comms: []string{"c"}}, "nothing matched the filters --comm c: the trace has 3 scheduler events, 2 of them sched_switch; it spans 0.000001 s to 0.000002 s, sched_switch on CPU 0; closest task names: a, b"},
	} {
		res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{Filter: c.filter})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range res.Warnings {
			if w.Key == "latency-empty" {
				got = append(got, w.Message)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: %q, want %q", c.filter, got, c.want)
		}
	}
}

// TestMergeSkipsEmptyTaskRows: three files each hold hog:25992; a fourth
// names it but holds nothing of it (runtime, switches and delays 0, as
// --comm hog selected none of its events there: the part's filter). A
// task row that a single trace's filter empties is not shown either
// (groupRows); without a filter an empty row still counts, as perf
// counts it ("true:(9)" in emptytask.perf.data). Merged, the row is "hog:(3)" with the sums
// of the three (680.564 + 520.899 + 440.089 = 1641.552 ms, 191 + 435 +
// 297 = 923 delays); it said "hog:(4)".
func TestMergeSkipsEmptyTaskRows(t *testing.T) {
	ms := int64(1_000_000)
	part := func(runtime, count int64) *LatencyResult {
		return &LatencyResult{TaskRows: []LatencyRow{{Comm: "hog", TID: 25992, PID: 25992, NrTasks: 1, Runtime: runtime, Count: count, Switches: count, SumDelay: count * ms}}}
	}
	last := part(0, 0)
	last.Options.Filter = &schedule.Filter{Comms: []string{"hog"}}
	m, err := MergeLatency([]*LatencyResult{part(680564*1000, 191), part(520899*1000, 435), part(440089*1000, 297), last}, LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rows) != 1 || m.Rows[0].NrTasks != 3 || m.Rows[0].Runtime != 1641552*1000 || m.Rows[0].Count != 923 {
		t.Errorf("rows %+v, want one hog row of 3 tasks, 1641.552 ms, 923 delays", m.Rows)
	}
}

// TestMergeOneCapture: with OneCapture (a record --rotate series) the
// rows of one task across the files are one row: hog:25992, 191 + 435 +
// 297 = 923 delays, max 41 ms, NrTasks 1 (it was "hog:(3)", one task
// counted once per file); another task of the same name stays apart.
func TestMergeOneCapture(t *testing.T) {
	ms := int64(1_000_000)
	row := func(tid trace.TID, count, maxd int64) LatencyRow {
		return LatencyRow{Comm: "hog", TID: tid, PID: trace.PID(tid), NrTasks: 1, Runtime: count * ms, Count: count, Switches: count, SumDelay: count * ms, MaxDelay: maxd * ms}
	}
	parts := []*LatencyResult{
		{TaskRows: []LatencyRow{row(25992, 191, 24)}},
		{TaskRows: []LatencyRow{row(25992, 435, 41), row(30000, 5, 1)}},
		{TaskRows: []LatencyRow{row(25992, 297, 37)}},
	}
	m, err := MergeLatency(parts, LatencyOptions{PerTask: true, OneCapture: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Rows {
		got = append(got, fmt.Sprintf("%s:%d n=%d count=%d max=%d", r.Comm, r.TID, r.NrTasks, r.Count, r.MaxDelay/ms))
	}
	want := []string{"hog:25992 n=1 count=923 max=41", "hog:30000 n=1 count=5 max=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	m, _ = MergeLatency(parts, LatencyOptions{})
	if len(m.Rows) != 1 || m.Rows[0].NrTasks != 4 {
		t.Errorf("without OneCapture: %d rows, %d tasks; want 1 row of 4 (one per file and task)", len(m.Rows), m.Rows[0].NrTasks)
	}
}
