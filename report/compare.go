package report

import (
	"encoding/json"
	"fmt"
	"github.com/traceview/traceview/internal/termsafe"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

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
	// CgroupsB are b's stated task-group settings (LatencyOptions.Cgroups;
	// Latency.Cgroups are a's).
	CgroupsB []trace.CgroupSettings
}

// CompareSide holds one trace's figures for a command name: the
// LatencyColumns with a Compare figure, filled from the row by the columns
// (a figure without a field here is in Extra). Times are ns.
type CompareSide struct {
	NrTasks int   `json:"tasks"`
	Runtime int64 `json:"runtime_ns"` // LatencyRow.Runtime
	// RuntimeSource is LatencyRow.RuntimeSource: "sched_stat_runtime", or
	// "switches" when the trace has no sched_stat_runtime.
	RuntimeSource string `json:"runtime_source,omitempty"`
	// Switches: times switched in, as the kernel counts them: the
	// recorded switch-ins and those the trace lacks (LatencyRow.Switches +
	// Unrecorded), the figure replay's switches_obs gives.
	Switches int64 `json:"switches"`
	Count    int64 `json:"delays"`       // scheduling delays measured (perf's Count)
	AvgDelay int64 `json:"avg_delay_ns"` // SumDelay / Count
	MaxDelay int64 `json:"max_delay_ns"`
	SumDelay int64 `json:"sum_delay_ns"`
	P99Delay int64 `json:"p99_delay_ns"` // stat.Empirical quantile of the delays
	// Extra holds the integer figures of the compared LatencyColumns that
	// have no field above, by CompareFigure key (JSON: after the fields
	// above, in column order). A column compared through LatencyColumns
	// appears here without a change to this type.
	Extra map[string]int64 `json:"-"`
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
	// Extra holds the ratios of the compared figures that have no field
	// above, by ratio key (CompareFigure.Name with "_" for spaces; JSON:
	// after the fields above, in column order, null for no ratio).
	Extra map[string]*float64 `json:"-"`
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
	// UnmatchedA and UnmatchedB are set when the filters matched nothing
	// in that trace (LatencyResult.Unmatched; its latency-empty warning
	// is in WarningsA or WarningsB): CompareNoMatch says it once for both.
	UnmatchedA *Unmatched `json:"-"`
	UnmatchedB *Unmatched `json:"-"`
	// TaskRowsA and TaskRowsB are each trace's per-task rows
	// (LatencyResult.TaskRows), which the rows above merge by command
	// name: for the callers' notes on tasks renamed during a trace.
	TaskRowsA []LatencyRow `json:"-"`
	TaskRowsB []LatencyRow `json:"-"`
	// Cgroups sets each task group (by path) of A beside B's, in path
	// order; empty when neither trace records task groups.
	Cgroups []CompareCgroup `json:"cgroups,omitempty"`
	// SpanA and SpanB are the time each trace's report covers (its
	// schedule's span, within the filters' window), nil when unknown
	// (perf's mode): a trace cut short, or a window, shows there before
	// its ratios do (new-user pass 102 F4: a .tv cut 0.13 s into a 3.1 s
	// capture compared at ratios of 0.01-0.09, with only a byte offset
	// in a warning to say why).
	SpanA *TraceSpan `json:"span_a,omitempty"`
	SpanB *TraceSpan `json:"span_b,omitempty"`
}

// TraceSpan is the time a report covers, in ns of the trace's clock.
type TraceSpan struct {
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
}

// spanOf is r's span: its schedule's (nil without one, or with no event).
func spanOf(r *LatencyResult) *TraceSpan {
	if r.Schedule == nil {
		return nil
	}
	if from, to := r.Schedule.Span(); to > from {
		return &TraceSpan{from, to}
	}
	return nil
}

// CompareCgroup is one task group in a comparison: its line in each
// trace's group table (LatencyResult.Cgroups: run time, delays, inferred
// throttling, quota), nil in a trace where none of its tasks ran or
// waited. Groups match by path: the same service in a cgroup of another
// name is two lines, each with one side.
type CompareCgroup struct {
	Path string          `json:"path"`
	A    *CgroupThrottle `json:"a"`
	B    *CgroupThrottle `json:"b"`
}

// MarshalJSON writes c with its path as CgroupThrottle.MarshalJSON does.
func (c CompareCgroup) MarshalJSON() ([]byte, error) {
	type plain CompareCgroup // (without this method)
	p := plain(c)
	p.Path = termsafe.ValidUTF8(p.Path)
	return json.Marshal(p)
}

// compareCgroups pairs the groups of a and b by path (see CompareCgroup).
func compareCgroups(a, b []CgroupThrottle) []CompareCgroup {
	byPath := map[string]*CompareCgroup{}
	var out []*CompareCgroup
	add := func(groups []CgroupThrottle, side int) {
		for i := range groups {
			g := &groups[i]
			c := byPath[g.Path]
			if c == nil {
				c = &CompareCgroup{Path: g.Path}
				byPath[g.Path] = c
				out = append(out, c)
			}
			if side == 0 {
				c.A = g
			} else {
				c.B = g
			}
		}
	}
	add(a, 0)
	add(b, 1)
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(x, y *CompareCgroup) int { return strings.Compare(x.Path, y.Path) })
	res := make([]CompareCgroup, len(out))
	for i, c := range out {
		res[i] = *c
	}
	return res
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
		return nil, &CompareReadError{Side: "A", Err: err}
	}
	lb := lo
	if opts.FilterB != nil {
		lb.Filter = opts.FilterB
	}
	lb.Cgroups = opts.CgroupsB
	rb, err := ComputeLatency(b, lb)
	if err != nil {
		return nil, &CompareReadError{Side: "B", Err: err}
	}
	res := CompareLatency(ra, rb, lo.PerfCompat)
	res.TaskRowsA, res.TaskRowsB = ra.TaskRows, rb.TaskRows
	res.SpanA, res.SpanB = spanOf(ra), spanOf(rb)
	return res, nil
}

// CompareReadError is Compare's error when the latency report of one
// trace fails: Side is "A" or "B", Err ComputeLatency's error. Its text is
// "trace A: " and Err's; a caller that knows the traces' names puts the
// name in place of the side.
type CompareReadError struct {
	Side string
	Err  error
}

func (e *CompareReadError) Error() string { return "trace " + e.Side + ": " + e.Err.Error() }
func (e *CompareReadError) Unwrap() error { return e.Err }

// CompareLatency sets two latency reports side by side (see Compare): ra
// and rb must have rows merged by command name with samples kept
// (LatencyOptions.KeepSamples, for the p99), as Compare computes them or
// MergeLatency merges groups of traces. perfCompat says the reports follow
// perf's rules (no runtime-source warning). The warnings are the reports'.
func CompareLatency(ra, rb *LatencyResult, perfCompat bool) *CompareResult {
	res := &CompareResult{WarningsA: ra.Warnings, WarningsB: rb.Warnings, UnmatchedA: ra.Unmatched, UnmatchedB: rb.Unmatched}
	if src := func(r *LatencyResult) string {
		if r.Diag.RuntimeFromSwitches {
			return RuntimeFromSwitches
		}
		return RuntimeFromStat
	}; !perfCompat && src(ra) != src(rb) {
		res.WarningsB = append(res.WarningsB, trace.Warning{Key: "compare-runtime-source", Count: 1,
			Message: fmt.Sprintf("runtime of A is from %s, of B from %s: the runtime ratio sets on-CPU time between switches against sched_stat_runtime (which leaves out IRQ and steal time)", src(ra), src(rb))})
	}
	// Rows merge by compareName: the same kworker is "kworker/u8:1" in one
	// trace and "kworker/u8:1-kv" in another.
	byName := map[string]*[2]*LatencyRow{}
	var names []string
	add := func(rows []LatencyRow, side int) {
		for i := range rows {
			r := &rows[i]
			n := compareName(r.Comm)
			pair := byName[n]
			if pair == nil {
				pair = &[2]*LatencyRow{}
				byName[n] = pair
				names = append(names, n)
			}
			if pair[side] == nil {
				c := *r
				c.Samples = slices.Clone(r.Samples)
				c.SortedDelays = slices.Clone(r.SortedDelays)
				pair[side] = &c
				continue
			}
			addRow(pair[side], r)
			pair[side].setPercentiles()
		}
	}
	add(ra.Rows, 0)
	add(rb.Rows, 1)
	for _, n := range names {
		cr := CompareRow{Comm: n}
		if a := byName[n][0]; a != nil {
			cr.A = compareSide(a)
		}
		if b := byName[n][1]; b != nil {
			cr.B = compareSide(b)
		}
		cr.Ratio = compareRatios(cr.A, cr.B)
		res.Rows = append(res.Rows, cr)
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
	sides := sameBasis([][]CgroupThrottle{ra.Cgroups, rb.Cgroups})
	res.Cgroups = compareCgroups(sides[0], sides[1])
	return res
}

// SameTaskName reports whether a and b name the same task the way compare
// matches rows: a kworker with and without the workqueue /proc appends
// (compareName) is one name.
func SameTaskName(a, b string) bool { return compareName(a) == compareName(b) }

// compareName is the name compare matches comm by: a kworker's name
// without the workqueue the kernel appends after its pool and id when
// /proc/PID/comm is read ("kworker/u8:1-kvfree_rcu_reclaim", cut to 15
// bytes, from perf's COMM records; "+" while it runs a work item, "@"
// for a rescuer: wq_worker_comm, kernel/workqueue.c v6.18), which the
// sched tracepoints and eBPF never show ("kworker/u8:1"). Other names are
// kept as they are.
func compareName(comm string) string {
	rest, ok := strings.CutPrefix(comm, "kworker/")
	if !ok {
		return comm
	}
	colon := strings.IndexByte(rest, ':')
	if colon < 0 {
		return comm
	}
	if end := strings.IndexAny(rest[colon:], "-+@"); end > 0 {
		return comm[:len("kworker/")+colon+end]
	}
	return comm
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

// compareTotal is the figures of all of r's rows merged as one (addRow:
// sums, the largest delay; percentiles over all their delays).
func compareTotal(r *LatencyResult) *CompareSide {
	var t LatencyRow
	for i := range r.Rows {
		if i == 0 {
			t = r.Rows[0]
			t.Samples = append([]int64(nil), t.Samples...)
			continue
		}
		addRow(&t, &r.Rows[i])
	}
	t.setPercentiles()
	return compareSide(&t)
}

// compareColumns are the LatencyColumns compare shows (in CompareSide),
// compareFigures those with a ratio (in the table and CSV), in order.
var compareColumns, compareFigures = func() (all, figures []*LatencyColumn) {
	for i := range LatencyColumns {
		c := &LatencyColumns[i]
		if c.Compare == nil {
			continue
		}
		all = append(all, c)
		if c.Compare.Name != "" {
			figures = append(figures, c)
		}
	}
	return all, figures
}()

// sideKey is c's key in CompareSide's JSON, ratioKey in CompareRatios'.
func (c *LatencyColumn) sideKey() string {
	if c.Compare.Key != "" {
		return c.Compare.Key
	}
	return c.Key
}

func (c *LatencyColumn) ratioKey() string { return strings.ReplaceAll(c.Compare.Name, " ", "_") }

var (
	compareSideFields  = jsonFields(reflect.TypeOf(CompareSide{}))
	compareRatioFields = jsonFields(reflect.TypeOf(CompareRatios{}))
)

// compareSide returns the compared figures of row r.
func compareSide(r *LatencyRow) *CompareSide {
	s := &CompareSide{}
	v := reflect.ValueOf(s).Elem()
	for _, c := range compareColumns {
		k := c.sideKey()
		if f, ok := compareSideFields[k]; ok {
			setJSONField(v.Field(f), c, r)
			continue
		}
		if s.Extra == nil {
			s.Extra = map[string]int64{}
		}
		s.Extra[k] = c.Int(r)
	}
	// Switch-ins as the kernel counts them, as replay scores them
	// (ScoreReplay): a prediction records every switch-in, and against a
	// trace's recorded ones alone it read 1.16x where the model was within
	// 1 % (new-user pass 122 F1: messaging.2cpu lacks 167 of 1459).
	s.Switches += r.Unrecorded
	return s
}

// value returns the figure of s of column c (an integer column).
func (s *CompareSide) value(c *LatencyColumn) int64 {
	k := c.sideKey()
	if f, ok := compareSideFields[k]; ok {
		return reflect.ValueOf(s).Elem().Field(f).Int()
	}
	return s.Extra[k]
}

// ratio returns the ratio of column c in r.
func (r *CompareRatios) ratio(c *LatencyColumn) *float64 {
	k := c.ratioKey()
	if f, ok := compareRatioFields[k]; ok {
		p, _ := reflect.ValueOf(r).Elem().Field(f).Interface().(*float64)
		return p
	}
	return r.Extra[k]
}

func compareRatios(a, b *CompareSide) CompareRatios {
	var out CompareRatios
	if a == nil || b == nil {
		return out
	}
	v := reflect.ValueOf(&out).Elem()
	for _, c := range compareFigures {
		x, y := a.value(c), b.value(c)
		var p *float64
		if r := float64(y) / float64(x); x != 0 && (y != 0 || !c.Compare.RatioNeedsB) && !math.IsInf(r, 0) && !math.IsNaN(r) {
			p = &r
		}
		k := c.ratioKey()
		if f, ok := compareRatioFields[k]; ok {
			v.Field(f).Set(reflect.ValueOf(p))
			continue
		}
		if out.Extra == nil {
			out.Extra = map[string]*float64{}
		}
		out.Extra[k] = p
	}
	return out
}

// compared returns key for the compared columns, "" for the others.
func compared(key func(*LatencyColumn) string) func(*LatencyColumn) string {
	return func(c *LatencyColumn) string {
		if c.Compare == nil {
			return ""
		}
		return key(c)
	}
}

// MarshalJSON writes the fields, then Extra in the order of
// LatencyColumns.
func (s CompareSide) MarshalJSON() ([]byte, error) {
	type plain CompareSide
	return marshalExtra(plain(s), s.Extra, compared((*LatencyColumn).sideKey))
}

// UnmarshalJSON reads the fields, and every other integer field into
// Extra.
func (s *CompareSide) UnmarshalJSON(b []byte) error {
	type plain CompareSide
	var err error
	if s.Extra, err = unmarshalExtra[int64](b, (*plain)(s), compareSideFields); err != nil {
		return fmt.Errorf("compare side: %w", err)
	}
	return nil
}

// MarshalJSON writes the fields, then Extra in the order of
// LatencyColumns.
func (r CompareRatios) MarshalJSON() ([]byte, error) {
	type plain CompareRatios
	return marshalExtra(plain(r), r.Extra, compared((*LatencyColumn).ratioKey))
}

// UnmarshalJSON reads the fields, and every other field into Extra.
func (r *CompareRatios) UnmarshalJSON(b []byte) error {
	type plain CompareRatios
	var err error
	if r.Extra, err = unmarshalExtra[*float64](b, (*plain)(r), compareRatioFields); err != nil {
		return fmt.Errorf("compare ratios: %w", err)
	}
	return nil
}
