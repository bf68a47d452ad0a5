package report

import (
	"encoding/json"
	"fmt"
	"github.com/traceview/traceview/internal/termsafe"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ColumnKind says what a latency column's value is, and so how a renderer
// without a format of its own (HTML) prints it.
type ColumnKind uint8

const (
	ColumnCount     ColumnKind = iota // a count, printed as an integer
	ColumnDuration                    // ns, printed in ms with µs digits
	ColumnTimestamp                   // ns of the trace clock, printed as seconds.microseconds (truncated)
	ColumnText                        // a string (Str)
)

// LatencyColumn describes one column of the latency report. The renderers
// (WriteLatencyTable's default layout, LatencyResult.JSON, WriteLatencyCSV,
// the HTML report's latency table, and compare's CompareSide,
// CompareRatios, WriteCompareTable and WriteCompareCSV) iterate
// LatencyColumns, so a column is added in one place: its descriptor. perf's own layout (--perf) is
// perf's and is not built from this table.
type LatencyColumn struct {
	// Key names the column in JSON and CSV ("sum_delay_ns": times end in
	// _ns, integers in ns).
	Key string
	// Title is the column's name for people ("Sum delay"): the HTML
	// header.
	Title string
	Kind  ColumnKind
	// Int returns the row's value (every kind but ColumnText), Str a text
	// column's.
	Int func(r *LatencyRow) int64
	Str func(r *LatencyRow) string
	// Total returns the column's figure on the TOTAL line (table, CSV,
	// HTML); nil leaves the cell empty.
	Total func(t *LatencyTotal) int64
	// Need, when set, says whether a report carries the column at all
	// (e.g. only with LatencyOptions.Percentiles).
	Need func(o *LatencyOptions) bool
	// Table is the column's cell in the text table; nil: not in the table.
	Table *TableCell
	// Unmeasured, when set, says the row's figure is unknown rather than
	// the 0 Int gives: the table prints "-" there (default mode only).
	Unmeasured func(r *LatencyRow) bool
	// OfDelays marks a figure of the row's measured delays (average,
	// maximum and its times, percentiles): a row with none (Count 0,
	// kept for its run time or switches) prints "-" there, not a 0 that
	// reads as a measured delay.
	OfDelays bool
	// JSON and CSV say whether the column is in those outputs.
	JSON, CSV bool
	// OmitJSON, when set, leaves the field out of a row's JSON object for
	// which it returns true.
	OmitJSON func(r *LatencyRow) bool
	// HTML says whether the HTML report's latency table shows the column
	// (there the figures come first, then the timestamps).
	HTML bool
	// Compare, when set, puts the column in compare (Compare,
	// CompareLatency): each trace's figure in CompareSide and, for a
	// figure with a Name, its B/A ratio and its place in the compare
	// table and CSV.
	Compare *CompareFigure
}

// CompareFigure is how compare shows a latency column. The total of a
// trace is the column's value of all its rows merged as one (sums, the
// largest delay, percentiles over every delay).
type CompareFigure struct {
	// Key names the figure in CompareSide's JSON; "" is the column's Key.
	Key string
	// Name is the compared figure's name for people ("sum delay": the
	// compare table's "sum delay A ms" and the B/A summary), with spaces
	// as "_" its CSV columns ("sum_delay_a_ns") and its key in
	// CompareRatios' JSON ("sum_delay"). "": in CompareSide only, with no
	// ratio, table or CSV column.
	Name string
	// RatioNeedsB: no ratio when B's figure is 0 either (a runtime of 0
	// means the trace holds none for the row, and would read as "B never
	// ran").
	RatioNeedsB bool
}

// TableCell is a column of the text table, laid out like perf's: a cell is
// "|", the formatted value and a space (the last cell of a line has no
// space), Width characters when the value fits; the header pads "|" and
// Head to Width (the last header to Width-1, then "|").
type TableCell struct {
	Head  string
	Width int
	// Format renders a value (a row's, or the total's) without the
	// leading "|" and the trailing space.
	Format func(v int64) string
}

// msCell formats ns in ms with layout, a format with one %f verb.
func msCell(layout string) func(int64) string {
	return func(v int64) string { return fmt.Sprintf(layout, ms(v)) }
}

// stampCell formats a trace time with layout, a format with one %s verb
// (usecStamp).
func stampCell(layout string) func(int64) string {
	return func(v int64) string { return fmt.Sprintf(layout, usecStamp(v)) }
}

// unknownIn reports whether c's figure of row r is unknown rather than
// the 0 Int gives: a figure of delays where none was measured, or one
// Unmeasured says of (a run time every run of which ended unseen). The
// table and the HTML report print "-" there; JSON, CSV and Parquet keep
// the 0 beside the counts that tell it (count, unended_runs).
func unknownIn(c *LatencyColumn, r *LatencyRow) bool {
	return c.OfDelays && r.Count == 0 || c.Unmeasured != nil && c.Unmeasured(r)
}

func needPercentiles(o *LatencyOptions) bool { return o.Percentiles }

func needThrottle(o *LatencyOptions) bool { return o.Throttle }

// defaultModeOnly leaves a field out of perf-compatible rows (--perf),
// which have no runtime source.
func defaultModeOnly(r *LatencyRow) bool { return r.RuntimeSource == "" }

// LatencyColumns are the columns of the latency report in output order
// (every renderer keeps this order and picks the columns it shows). The
// table's widths and formats are perf 6.12's (output_lat_thread in
// tools/perf/builtin-sched.c); Sum delay and the percentiles are
// traceview's.
var LatencyColumns = []LatencyColumn{
	{Key: "comm", Title: "Task", Kind: ColumnText, Str: func(r *LatencyRow) string { return termsafe.ValidUTF8(r.Comm) }, JSON: true, CSV: true},
	{Key: "pid", Title: "PID", Int: rowTID, JSON: true, CSV: true},
	{Key: "nr_tasks", Title: "Tasks", Int: func(r *LatencyRow) int64 { return int64(r.NrTasks) }, JSON: true, CSV: true, Compare: &CompareFigure{Key: "tasks"}},
	{Key: "runtime_ns", Title: "Runtime", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.Runtime },
		Total: func(t *LatencyTotal) int64 { return t.Runtime }, JSON: true, CSV: true, HTML: true,
		Table: &TableCell{Head: "   Runtime ms", Width: 16, Format: msCell("%11.3f ms")},
		// (Every run of the row's tasks ended unseen: LatencyRow.RunsUnended.)
		Unmeasured: func(r *LatencyRow) bool { return r.Runtime == 0 && r.RunsUnended > 0 },
		Compare:    &CompareFigure{Name: "runtime", RatioNeedsB: true}},
	{Key: "count", Title: "Count", Int: func(r *LatencyRow) int64 { return r.Count },
		Total: func(t *LatencyTotal) int64 { return t.Count }, JSON: true, CSV: true, HTML: true,
		Table:   &TableCell{Head: "  Count", Width: 11, Format: func(v int64) string { return fmt.Sprintf("%9d", v) }},
		Compare: &CompareFigure{Key: "delays"}},
	{Key: "switches", Title: "Switches", Int: func(r *LatencyRow) int64 { return r.Switches },
		Total: func(t *LatencyTotal) int64 { return t.Switches }, JSON: true, CSV: true, HTML: true, Compare: &CompareFigure{Name: "switches"}},
	{Key: "avg_delay_ns", OfDelays: true, Title: "Avg delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.AvgDelay },
		JSON: true, CSV: true, HTML: true,
		Table:   &TableCell{Head: " Avg delay ms", Width: 18, Format: msCell(" avg:%8.3f ms")},
		Compare: &CompareFigure{Name: "avg delay"}},
	{Key: "max_delay_ns", OfDelays: true, Title: "Max delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.MaxDelay },
		JSON: true, CSV: true, HTML: true,
		Table:   &TableCell{Head: " Max delay ms", Width: 18, Format: msCell(" max:%8.3f ms")},
		Compare: &CompareFigure{Name: "max delay"}},
	{Key: "sum_delay_ns", Title: "Sum delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.SumDelay },
		Total: func(t *LatencyTotal) int64 { return t.SumDelay }, JSON: true, CSV: true, HTML: true,
		Table:   &TableCell{Head: " Sum delay ms", Width: 22, Format: msCell(" sum:%12.3f ms")},
		Compare: &CompareFigure{Name: "sum delay"}},
	// throttled_ns: the part of sum_delay spent while the task's group was
	// throttled (inferred, throttle.go); waited_ns the rest, waiting for a
	// CPU. Only for traces that record task groups (LatencyOptions.Throttle).
	{Key: "throttled_ns", Title: "Throttled", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.Throttled },
		Total: func(t *LatencyTotal) int64 { return t.Throttled }, Need: needThrottle, JSON: true, CSV: true, HTML: true,
		Table: &TableCell{Head: " Throttled ms", Width: 20, Format: msCell(" thr:%10.3f ms")}},
	{Key: "waited_ns", Title: "Waited for CPU", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.SumDelay - r.Throttled },
		Need: needThrottle, JSON: true, CSV: true},
	{Key: "throttled_delays", Title: "Throttled delays", Int: func(r *LatencyRow) int64 { return r.ThrottledDelays },
		Need: needThrottle, JSON: true, CSV: true},
	{Key: "max_delay_start_ns", OfDelays: true, Title: "Max delay start", Kind: ColumnTimestamp, Int: func(r *LatencyRow) int64 { return r.MaxDelayStart },
		JSON: true, CSV: true, HTML: true,
		Table: &TableCell{Head: " Max delay start", Width: 28, Format: stampCell(" max start: %12s s")}},
	{Key: "max_delay_end_ns", OfDelays: true, Title: "Max delay end", Kind: ColumnTimestamp, Int: func(r *LatencyRow) int64 { return r.MaxDelayEnd },
		JSON: true, CSV: true, HTML: true,
		Table: &TableCell{Head: " Max delay end", Width: 26, Format: stampCell(" max end: %12s s")}},
	{Key: "p50_delay_ns", OfDelays: true, Title: "p50 delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.P50 },
		Need: needPercentiles, JSON: true, CSV: true,
		Table: &TableCell{Head: " p50 delay ms", Width: 18, Format: msCell(" p50:%8.3f ms")}},
	{Key: "p90_delay_ns", OfDelays: true, Title: "p90 delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.DelayQuantile(0.90) },
		Need: needPercentiles, JSON: true, CSV: true,
		Table:   &TableCell{Head: " p90 delay ms", Width: 18, Format: msCell(" p90:%8.3f ms")},
		Compare: &CompareFigure{Name: "p90 delay"}},
	{Key: "p95_delay_ns", OfDelays: true, Title: "p95 delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.P95 },
		Need: needPercentiles, JSON: true, CSV: true,
		Table: &TableCell{Head: " p95 delay ms", Width: 18, Format: msCell(" p95:%8.3f ms")}},
	{Key: "p99_delay_ns", OfDelays: true, Title: "p99 delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.P99 },
		Need: needPercentiles, JSON: true, CSV: true, HTML: true,
		Table:   &TableCell{Head: " p99 delay ms", Width: 18, Format: msCell(" p99:%8.3f ms")},
		Compare: &CompareFigure{Name: "p99 delay"}},
	{Key: "p999_delay_ns", OfDelays: true, Title: "p99.9 delay", Kind: ColumnDuration, Int: func(r *LatencyRow) int64 { return r.P999 },
		Need: needPercentiles, JSON: true, CSV: true,
		Table: &TableCell{Head: " p99.9 delay ms", Width: 20, Format: msCell(" p99.9:%8.3f ms")}},
	// runtime_source and the lossy counts: default mode only (omitted
	// with --perf), JSON only.
	{Key: "runtime_source", Title: "Runtime source", Kind: ColumnText, Str: func(r *LatencyRow) string { return r.RuntimeSource },
		JSON: true, OmitJSON: defaultModeOnly, Compare: &CompareFigure{}},
	{Key: "lossy_delays", Title: "Lossy delays", Int: func(r *LatencyRow) int64 { return r.Lossy },
		JSON: true, OmitJSON: defaultModeOnly},
	{Key: "lossy_runtime_events", Title: "Lossy runtime events", Int: func(r *LatencyRow) int64 { return r.LossyRuntime },
		JSON: true, OmitJSON: defaultModeOnly},
	// recovered_delays: the row's delays whose switch-in the trace lacks,
	// closed at the task's first sched_stat_runtime on the CPU (perf drops
	// them); part of count. Default mode only, JSON only.
	{Key: "recovered_delays", Title: "Recovered delays", Int: func(r *LatencyRow) int64 { return r.Recovered },
		JSON: true, OmitJSON: defaultModeOnly},
	// unrecorded_switches: switch-ins of the row's tasks the trace lacks
	// (LatencyRow.Unrecorded; not in switches). Default mode only, JSON
	// only.
	// unended_runs: runs of the row's tasks whose switch-out the trace
	// lacks, left out of runtime_ns (LatencyRow.RunsUnended: with
	// runtime_ns 0, the run time is unknown). Default mode only; JSON and
	// CSV (new-user pass 118 F2: the CSV's 0 could not be told from none).
	{Key: "unended_runs", Title: "Unended runs", Int: func(r *LatencyRow) int64 { return r.RunsUnended },
		JSON: true, CSV: true, OmitJSON: defaultModeOnly},
	{Key: "unrecorded_switches", Title: "Unrecorded switches", Int: func(r *LatencyRow) int64 { return r.Unrecorded },
		JSON: true, OmitJSON: defaultModeOnly},
}

// latencyColumns returns the columns of LatencyColumns that pick selects
// and o needs, in order.
func latencyColumns(o *LatencyOptions, pick func(c *LatencyColumn) bool) []*LatencyColumn {
	var out []*LatencyColumn
	for i := range LatencyColumns {
		c := &LatencyColumns[i]
		if pick(c) && (c.Need == nil || c.Need(o)) {
			out = append(out, c)
		}
	}
	return out
}

// text returns c's value for r as CSV writes it: the string, or the
// integer in decimal.
func (c *LatencyColumn) text(r *LatencyRow) string {
	if c.Str != nil {
		return c.Str(r)
	}
	return strconv.FormatInt(c.Int(r), 10)
}

// jsonFields maps the JSON keys of the fields of t, a struct type, to the
// fields' indexes.
func jsonFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); k != "" && k != "-" {
			m[k] = i
		}
	}
	return m
}

// setJSONField sets f, a field of a struct filled from the columns
// (string, int, int64 or *int64), to c's value for r.
func setJSONField(f reflect.Value, c *LatencyColumn, r *LatencyRow) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(c.Str(r))
	case reflect.Int, reflect.Int64:
		f.SetInt(c.Int(r))
	case reflect.Pointer:
		x := c.Int(r)
		f.Set(reflect.ValueOf(&x))
	default:
		panic("report: column field of kind " + f.Kind().String())
	}
}

// marshalExtra returns the JSON object of plain (a struct without custom
// marshalling) followed by the members of extra: first the keys of
// LatencyColumns (as key names them) in column order, then the others,
// sorted.
func marshalExtra[V any](plain any, extra map[string]V, key func(c *LatencyColumn) string) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(extra))
	seen := map[string]bool{}
	for i := range LatencyColumns {
		if k := key(&LatencyColumns[i]); !seen[k] {
			if _, ok := extra[k]; ok {
				keys, seen[k] = append(keys, k), true
			}
		}
	}
	var rest []string
	for k := range extra {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	b = b[:len(b)-1] // the closing brace
	for _, k := range append(keys, rest...) {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(extra[k])
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// unmarshalExtra reads the JSON object b into plain (a pointer to a struct
// without custom unmarshalling, whose JSON keys known maps) and returns its
// other members (nil when none).
func unmarshalExtra[V any](b []byte, plain any, known map[string]int) (map[string]V, error) {
	if err := json.Unmarshal(b, plain); err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	var extra map[string]V
	for k, raw := range all {
		if _, ok := known[k]; ok {
			continue
		}
		var v V
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("field %q: %w", k, err)
		}
		if extra == nil {
			extra = map[string]V{}
		}
		extra[k] = v
	}
	return extra, nil
}
