package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
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
