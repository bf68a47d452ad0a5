package report

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// TestGroupRowsPercentiles: three tasks, two named "a" (samples 5, 1, 9
// and 7, 3) and one "b" (4, 2), grouped per command with percentiles: a's
// row holds its five delays sorted (1 3 5 7 9; p50 5, p95/p99/p99.9 9)
// and b's its two (2 4; p50 2), the rows keep no samples, and the task
// rows' samples keep their order (the merged rows sort copies); kept
// (KeepSamples), a's samples are the tasks' in task order. Per task, each
// row's delays are sorted from its own task's.
func TestGroupRowsPercentiles(t *testing.T) {
	tasks := func() []LatencyRow {
		return []LatencyRow{
			{Comm: "a", TID: 1, NrTasks: 1, Count: 3, SumDelay: 15, Samples: []int64{5, 1, 9}},
			{Comm: "b", TID: 2, NrTasks: 1, Count: 2, SumDelay: 6, Samples: []int64{4, 2}},
			{Comm: "a", TID: 3, NrTasks: 1, Count: 2, SumDelay: 10, Samples: []int64{7, 3}},
		}
	}
	tr := tasks()
	rows, _ := groupRows(tr, LatencyOptions{Percentiles: true})
	type got struct {
		Comm                string
		Sorted, Samples     []int64
		P50, P95, P99, P999 int64
	}
	var g []got
	for _, r := range rows {
		g = append(g, got{r.Comm, r.SortedDelays, r.Samples, r.P50, r.P95, r.P99, r.P999})
	}
	want := []got{{"a", []int64{1, 3, 5, 7, 9}, nil, 5, 9, 9, 9}, {"b", []int64{2, 4}, nil, 2, 4, 4, 4}}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("per command (-want +got):\n%s", d)
	}
	if d := cmp.Diff(tasks(), tr); d != "" {
		t.Errorf("task rows changed (-want +got):\n%s", d)
	}
	kept, _ := groupRows(tr, LatencyOptions{Percentiles: true, KeepSamples: true})
	if d := cmp.Diff([]int64{5, 1, 9, 7, 3}, kept[0].Samples); d != "" {
		t.Errorf("kept samples of a (-want +got):\n%s", d)
	}
	per, _ := groupRows(tr, LatencyOptions{Percentiles: true, PerTask: true})
	for _, r := range per {
		k := slices.IndexFunc(tr, func(x LatencyRow) bool { return x.TID == r.TID })
		if want := slices.Sorted(slices.Values(tr[k].Samples)); !slices.Equal(r.SortedDelays, want) {
			t.Errorf("per task, tid %d: sorted %v, want %v", r.TID, r.SortedDelays, want)
		}
	}
	if d := cmp.Diff(tasks(), tr); d != "" {
		t.Errorf("task rows changed per task (-want +got):\n%s", d)
	}
}

// BenchmarkGroupRows is the per-command grouping with percentiles of a
// table like bench/replaymem's messaging file's (800 tasks of one name,
// 1250 delays each, and 100 of other names): what the observed and the
// predicted tables of a replay spend after their pass.
func BenchmarkGroupRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var tr []LatencyRow
	for i := range 900 {
		comm, n := "sched-messaging", 1250
		if i >= 800 {
			comm, n = "other", 20
		}
		row := LatencyRow{Comm: comm, TID: trace.TID(i + 1), NrTasks: 1, Count: int64(n)}
		for range n {
			row.Samples = append(row.Samples, r.Int64N(5_000_000))
		}
		tr = append(tr, row)
	}
	b.ReportAllocs()
	for b.Loop() {
		groupRows(tr, LatencyOptions{Percentiles: true})
	}
}

// TestSortDelays: sortDelays sorts as slices.Sort does, below radixMin
// (pdqsort) and from it (radix): random delays under 1 ms, under 2^40
// and over the whole int64 range (negative ones too), all equal, and
// already sorted or reversed.
func TestSortDelays(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func(i, n int) int64{
		"under 1 ms": func(int, int) int64 { return r.Int64N(1_000_000) },
		"under 2^40": func(int, int) int64 { return r.Int64N(1 << 40) },
		"any int64":  func(int, int) int64 { return int64(r.Uint64()) },
		"all equal":  func(int, int) int64 { return 12345 },
		"sorted":     func(i, _ int) int64 { return int64(i) * 7 },
		"reversed":   func(i, n int) int64 { return int64(n-i) - 100 },
	}
	for name, gen := range gens {
		for _, n := range []int{1, 100, radixMin - 1, radixMin, 3 * radixMin} {
			s := make([]int64, n)
			for i := range s {
				s[i] = gen(i, n)
			}
			want := slices.Sorted(slices.Values(s))
			sortDelays(s)
			if !slices.Equal(s, want) {
				t.Errorf("%s, %d values: not sorted as slices.Sort sorts them", name, n)
			}
		}
	}
}
