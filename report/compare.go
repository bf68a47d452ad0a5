package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// CompareOptions tune Compare. Latency is passed to ComputeLatency for both
// traces (PerTask and Sort are ignored: compare merges rows by command name
// and keeps its own order; percentiles are always computed).
type CompareOptions struct {
	Latency LatencyOptions
	// FilterB, when not nil, is b's filter instead of Latency.Filter (the
	// same options resolve per trace: a percentage window is a share of
	// each trace's span).
	FilterB *schedule.Filter
}

// CompareSide holds one trace's figures for a command name. Times are ns.
type CompareSide struct {
	NrTasks int   `json:"tasks"`
	Runtime int64 `json:"runtime_ns"` // LatencyRow.Runtime
	// RuntimeSource is LatencyRow.RuntimeSource: "sched_stat_runtime", or
	// "switches" when the trace has no sched_stat_runtime.
	RuntimeSource string `json:"runtime_source,omitempty"`
	Switches      int64  `json:"switches"`     // times switched in
	Count         int64  `json:"delays"`       // scheduling delays measured (perf's Count)
	AvgDelay      int64  `json:"avg_delay_ns"` // SumDelay / Count
	MaxDelay      int64  `json:"max_delay_ns"`
	SumDelay      int64  `json:"sum_delay_ns"`
	P99Delay      int64  `json:"p99_delay_ns"` // stat.Empirical quantile of the delays
}

// CompareRatios are B/A for each figure; nil when A's figure is 0 (no
// ratio), or when the row is missing from either trace. The runtime ratio is
// also nil when B's runtime is 0: the trace holds no runtime for the row
// (neither sched_stat_runtime nor a recorded run), and 0 would read as "B
// never ran".
type CompareRatios struct {
	Runtime  *float64 `json:"runtime"`
	Switches *float64 `json:"switches"`
	AvgDelay *float64 `json:"avg_delay"`
	MaxDelay *float64 `json:"max_delay"`
	SumDelay *float64 `json:"sum_delay"`
	P99Delay *float64 `json:"p99_delay"`
}

// CompareRow is one command name (or the total) in both traces. A or B is
// nil when the name appears in one trace only ("only in A/B").
type CompareRow struct {
	Comm  string        `json:"comm"`
	A     *CompareSide  `json:"a"`
	B     *CompareSide  `json:"b"`
	Ratio CompareRatios `json:"ratio"`
}

// CompareResult compares two traces: one row per command name in either
// trace, sorted by the larger of the two sum delays (descending, then
// comm), and the total over all rows (Comm "TOTAL"; its P99 is over every
// delay of the trace, its Max the largest).
type CompareResult struct {
	Rows      []CompareRow    `json:"rows"`
	Total     CompareRow      `json:"total"`
	WarningsA []trace.Warning `json:"warnings_a,omitempty"`
	WarningsB []trace.Warning `json:"warnings_b,omitempty"`
}

// Compare computes the latency report (ComputeLatency, rows merged by
// command name) of a and b and sets them side by side with B/A ratios, as
// kernel mailing-list reports do by hand ("runtime .999, switches 1.777,
// sum delay 1.602"). It reads both sources to the end and closes neither.
func Compare(a, b trace.Source, opts CompareOptions) (*CompareResult, error) {
	lo := opts.Latency
	lo.PerTask = false
	lo.Sort = nil
	lo.Percentiles = true
	lo.KeepSamples = true
	ra, err := ComputeLatency(a, lo)
	if err != nil {
		return nil, fmt.Errorf("trace A: %w", err)
	}
	lb := lo
	if opts.FilterB != nil {
		lb.Filter = opts.FilterB
	}
	rb, err := ComputeLatency(b, lb)
	if err != nil {
		return nil, fmt.Errorf("trace B: %w", err)
	}
	return CompareLatency(ra, rb, lo.PerfCompat), nil
}

// CompareLatency sets two latency reports side by side (see Compare): ra
// and rb must have rows merged by command name with samples kept
// (LatencyOptions.KeepSamples, for the p99), as Compare computes them or
// MergeLatency merges groups of traces. perfCompat says the reports follow
// perf's rules (no runtime-source warning). The warnings are the reports'.
func CompareLatency(ra, rb *LatencyResult, perfCompat bool) *CompareResult {
	res := &CompareResult{WarningsA: ra.Warnings, WarningsB: rb.Warnings}
	if src := func(r *LatencyResult) string {
		if r.Diag.RuntimeFromSwitches {
			return RuntimeFromSwitches
		}
		return RuntimeFromStat
	}; !perfCompat && src(ra) != src(rb) {
		res.WarningsB = append(res.WarningsB, trace.Warning{Key: "compare-runtime-source", Count: 1,
			Message: fmt.Sprintf("runtime of A is from %s, of B from %s: the runtime ratio sets on-CPU time between switches against sched_stat_runtime (which leaves out IRQ and steal time)", src(ra), src(rb))})
	}
	byComm := map[string]*CompareRow{}
	var names []string
	add := func(rows []LatencyRow, isB bool) {
		for i := range rows {
			r := &rows[i]
			cr := byComm[r.Comm]
			if cr == nil {
				cr = &CompareRow{Comm: r.Comm}
				byComm[r.Comm] = cr
				names = append(names, r.Comm)
			}
			s := &CompareSide{NrTasks: r.NrTasks, Runtime: r.Runtime, RuntimeSource: r.RuntimeSource, Switches: r.Switches, Count: r.Count,
				AvgDelay: r.AvgDelay, MaxDelay: r.MaxDelay, SumDelay: r.SumDelay, P99Delay: r.P99}
			if isB {
				cr.B = s
			} else {
				cr.A = s
			}
		}
	}
	add(ra.Rows, false)
	add(rb.Rows, true)
	for _, n := range names {
		cr := byComm[n]
		cr.Ratio = compareRatios(cr.A, cr.B)
		res.Rows = append(res.Rows, *cr)
	}
	sort.SliceStable(res.Rows, func(i, j int) bool {
		x, y := compareKey(&res.Rows[i]), compareKey(&res.Rows[j])
		if x != y {
			return x > y
		}
		return res.Rows[i].Comm < res.Rows[j].Comm
	})
	ta, tb := compareTotal(ra), compareTotal(rb)
	res.Total = CompareRow{Comm: "TOTAL", A: ta, B: tb, Ratio: compareRatios(ta, tb)}
	return res
}

func compareKey(r *CompareRow) int64 {
	var k int64
	if r.A != nil {
		k = r.A.SumDelay
	}
	if r.B != nil && r.B.SumDelay > k {
		k = r.B.SumDelay
	}
	return k
}

// compareTotal sums a latency result's rows; P99 is over all their delays.
func compareTotal(r *LatencyResult) *CompareSide {
	s := &CompareSide{Runtime: r.Total.Runtime, Switches: r.Total.Switches, Count: r.Total.Count, SumDelay: r.Total.SumDelay}
	var all []int64
	for i := range r.Rows {
		s.NrTasks += r.Rows[i].NrTasks
		s.MaxDelay = max(s.MaxDelay, r.Rows[i].MaxDelay)
		all = append(all, r.Rows[i].Samples...)
	}
	if s.Count > 0 {
		s.AvgDelay = s.SumDelay / s.Count
	}
	_, _, s.P99Delay, _ = percentiles(all)
	return s
}

func compareRatios(a, b *CompareSide) CompareRatios {
	if a == nil || b == nil {
		return CompareRatios{}
	}
	f := func(x, y int64) *float64 {
		if x == 0 {
			return nil
		}
		r := float64(y) / float64(x)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil
		}
		return &r
	}
	var rt *float64
	if b.Runtime != 0 {
		rt = f(a.Runtime, b.Runtime)
	}
	return CompareRatios{
		Runtime:  rt,
		Switches: f(a.Switches, b.Switches),
		AvgDelay: f(a.AvgDelay, b.AvgDelay),
		MaxDelay: f(a.MaxDelay, b.MaxDelay),
		SumDelay: f(a.SumDelay, b.SumDelay),
		P99Delay: f(a.P99Delay, b.P99Delay),
	}
}
