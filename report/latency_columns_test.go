package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/gonum/stat"

	"github.com/traceview/traceview/trace"
)

// TestLatencyJSONRowFieldsAreColumns: every field of LatencyJSONRow,
// CompareSide and CompareRatios (but Extra) is filled from the column of
// its JSON key, so a field without a column (left zero by JSON) fails here.
func TestLatencyJSONRowFieldsAreColumns(t *testing.T) {
	byKey := map[string]*LatencyColumn{}
	for i := range LatencyColumns {
		c := &LatencyColumns[i]
		if byKey[c.Key] != nil {
			t.Errorf("column key %q twice", c.Key)
		}
		byKey[c.Key] = c
		if (c.Int == nil) == (c.Str == nil) {
			t.Errorf("column %q: want exactly one of Int and Str", c.Key)
		}
		if c.Table != nil && c.Int == nil {
			t.Errorf("column %q: a table cell needs Int", c.Key)
		}
	}
	// The keys of the compared figures: CompareSide's, CompareRatios'.
	side, ratio := map[string]bool{}, map[string]bool{}
	for _, c := range compareColumns {
		side[c.sideKey()] = true
		if c.Compare.Name != "" {
			if c.Int == nil {
				t.Errorf("column %q: a compared figure with a ratio needs Int", c.Key)
			}
			ratio[c.ratioKey()] = true
		}
	}
	json := map[string]bool{}
	for k, c := range byKey {
		json[k] = c.JSON
	}
	for _, st := range []struct {
		v    any
		keys map[string]bool
	}{{LatencyJSONRow{}, json}, {CompareSide{}, side}, {CompareRatios{}, ratio}} {
		rt := reflect.TypeOf(st.v)
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			if f.Name == "Extra" {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !st.keys[key] {
				t.Errorf("%s.%s (json %q) has no column", rt.Name(), f.Name, key)
			}
		}
	}
}

// TestLatencyJSONRowExtra: a field of Extra is written after the typed
// ones in column order (unknown keys last, sorted) and read back into Extra.
func TestLatencyJSONRowExtra(t *testing.T) {
	in := LatencyJSONRow{Comm: "a", PID: 3, Extra: map[string]int64{"zz": 2, "recovered_delays": 5, "aa": 1}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `,"recovered_delays":5,"aa":1,"zz":2}`; !strings.HasSuffix(string(b), want) {
		t.Errorf("marshal: %s, want it to end in %s", b, want)
	}
	var out LatencyJSONRow
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// TestRecoveredDelaysColumn: recovered_delays, a column added through
// LatencyColumns only. On nice.2cpu per task, perf 6.12 drops the delays
// whose switch-in the trace lacks, and these tasks have no other
// difference from perf (no first-seen switch-in, no raced waking): so
// their recovered_delays is traceview's Count minus perf's Count
// (testdata/traces/nice.2cpu.latency-all.txt: hog:13338 126, hog:13339 57,
// sh:13335 4, perf:13334 2; traceview 127, 59, 5, 3). The field is JSON
// only (the table and CSV bytes do not change) and absent with PerfCompat.
func TestRecoveredDelaysColumn(t *testing.T) {
	const path = "../testdata/traces/nice.2cpu.perf.data"
	golden, err := os.ReadFile("../testdata/traces/nice.2cpu.latency-all.txt")
	if err != nil {
		t.Skipf("perf's golden: %v", err)
	}
	perfRows, _, _, _ := parsePerfLatency(t, string(golden))
	perfCount := map[string]int64{}
	for _, r := range perfRows {
		perfCount[r.name] = r.count
	}
	res := latencyOf(t, path, LatencyOptions{PerTask: true})
	var buf bytes.Buffer
	if err := WriteLatencyJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var doc LatencyJSON
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"hog:13338": 1, "hog:13339": 2, "sh:13335": 1, "perf:13334": 1}
	var sum int64
	for _, r := range doc.Tasks {
		v, ok := r.Extra["recovered_delays"]
		if !ok {
			t.Fatalf("%s:%d: no recovered_delays in %s", r.Comm, r.PID, buf.String())
		}
		sum += v
		name := r.Comm + ":" + strconv.FormatInt(r.PID, 10)
		w, ok := want[name]
		if !ok {
			continue
		}
		if v != w {
			t.Errorf("%s: recovered_delays %d, want %d", name, v, w)
		}
		if d := r.Count - perfCount[name]; d != v {
			t.Errorf("%s: count %d, perf's %d: %d delays perf dropped, recovered_delays %d", name, r.Count, perfCount[name], d, v)
		}
	}
	if sum != 5 || sum != res.Diag.Recovered {
		t.Errorf("recovered_delays sum to %d; want 5, the report's %d", sum, res.Diag.Recovered)
	}
	for _, out := range []func() string{
		func() string { var b bytes.Buffer; WriteLatencyTable(&b, res, false); return b.String() },
		func() string { var b bytes.Buffer; WriteLatencyCSV(&b, res); return b.String() },
	} {
		if s := out(); strings.Contains(strings.ToLower(s), "recovered") {
			t.Errorf("table or CSV shows the JSON-only column:\n%s", s)
		}
	}
	compat := latencyOf(t, path, LatencyOptions{PerTask: true, PerfCompat: true})
	for _, r := range compat.JSON().Tasks {
		if _, ok := r.Extra["recovered_delays"]; ok {
			t.Errorf("PerfCompat row %s: recovered_delays present", r.Comm)
		}
	}
}

// TestCompareExtra: a compared figure without a field of its own (here a
// stand-in column "x_ns" with a ratio, appended to LatencyColumns for the
// test) is filled from the column in CompareSide.Extra and
// CompareRatios.Extra, shown in the table, CSV and JSON after the typed
// figures, and read back from JSON. x is twice the row's sum delay.
func TestCompareExtra(t *testing.T) {
	saved := LatencyColumns
	savedAll, savedFig := compareColumns, compareFigures
	defer func() { LatencyColumns, compareColumns, compareFigures = saved, savedAll, savedFig }()
	x := LatencyColumn{Key: "x_ns", Title: "X", Kind: ColumnDuration,
		Int: func(r *LatencyRow) int64 { return 2 * r.SumDelay }, Compare: &CompareFigure{Name: "x"}}
	LatencyColumns = append(append([]LatencyColumn(nil), saved...), x)
	compareColumns = append(append([]*LatencyColumn(nil), savedAll...), &LatencyColumns[len(LatencyColumns)-1])
	compareFigures = append(append([]*LatencyColumn(nil), savedFig...), &LatencyColumns[len(LatencyColumns)-1])

	res, err := Compare(trace.NewSliceSource(gNamed(gScenario()), nil), trace.NewSliceSource(gNamed(gScenarioB()), nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Row A: sum delay 200 us in A, 500 us in B (TestCompareHand): x 400
	// and 1000 us, ratio 2.5. TOTAL: 800 and 800 us: x 1600 us, ratio 1.
	a := res.Rows[0]
	if a.Comm != "A" || a.A.Extra["x_ns"] != 400*gUs || a.B.Extra["x_ns"] != 1000*gUs ||
		a.Ratio.Extra["x"] == nil || *a.Ratio.Extra["x"] != 2.5 {
		t.Errorf("row A: %+v %+v %+v", a.A, a.B, a.Ratio)
	}
	if tot := res.Total; tot.A.Extra["x_ns"] != 1600*gUs || *tot.Ratio.Extra["x"] != 1 {
		t.Errorf("total: %+v %+v", tot.A, tot.Ratio)
	}
	var tab bytes.Buffer
	if err := WriteCompareTable(&tab, res, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if s := tab.String(); !strings.Contains(s, "x A ms") || !strings.HasSuffix(s, "p99 delay 1.250, x 1.000\n") ||
		!strings.Contains(strings.Join(strings.Fields(strings.Split(s, "\n")[4]), " "), "2.500 0.400 1.000 2.500") {
		t.Errorf("table:\n%s", s)
	}
	var csvb bytes.Buffer
	if err := WriteCompareCSV(&csvb, res); err != nil {
		t.Fatal(err)
	}
	if l := strings.Split(csvb.String(), "\n"); !strings.HasSuffix(l[0], ",x_a_ns,x_b_ns,x_ratio") || !strings.HasSuffix(l[1], ",400000,1000000,2.500000") {
		t.Errorf("csv:\n%s", csvb.String())
	}
	js, err := json.Marshal(res.Rows[0])
	if err != nil {
		t.Fatal(err)
	}
	if s := string(js); !strings.Contains(s, `"p99_delay_ns":500000,`) || !strings.Contains(s, `,"x_ns":1000000}`) || !strings.Contains(s, `,"x":2.5}`) {
		t.Errorf("json: %s", s)
	}
	var back CompareRow
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Rows[0], back); d != "" {
		t.Errorf("json round trip (-want +got):\n%s", d)
	}
}

// TestDelayQuantileIsEmpirical: DelayQuantile equals gonum's
// stat.Quantile with stat.Empirical on the same delays, for delay sets of
// 1 to 200 (random, with repeats) and every p of the percentile columns
// plus the ends.
func TestDelayQuantileIsEmpirical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 200; n++ {
		r := LatencyRow{}
		for range n {
			r.Samples = append(r.Samples, rng.Int64N(50)*1000)
		}
		r.setPercentiles()
		xs := make([]float64, n)
		for i, v := range r.SortedDelays {
			xs[i] = float64(v)
		}
		for _, p := range []float64{0, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			if got, want := r.DelayQuantile(p), int64(stat.Quantile(p, stat.Empirical, xs, nil)); got != want {
				t.Fatalf("n %d p %g: %d, stat.Quantile %d", n, p, got, want)
			}
		}
	}
	if q := (&LatencyRow{}).DelayQuantile(0.5); q != 0 {
		t.Errorf("no delays: %d", q)
	}
}

// TestP90DelayColumn: the p90 delay, added through LatencyColumns only.
// renderTrace's task a has the delays 1.5 and 0.25 ms: the empirical p90 is
// the first sorted delay where the count reaches 0.9 x 2 = 1.8, the second,
// 1.5 ms; in the table ("p90:   1.500 ms", between p50 and p95, with
// --percentiles only), JSON (p90_delay_ns after the typed fields), CSV
// (after p50_delay_ns). In compare (gScenario against gScenarioB, one
// delay a row): row A 200 and 500 us, B/A 2.5; the totals' delays {200,
// 400, 200} and {500, 100, 200} us have p90 400 and 500 us, B/A 1.25. On
// pipe.perf.data every row's p90 lies between its p50 and p95, and the
// sched-pipe row's (1999 delays) is stat.Quantile's of its samples.
func TestP90DelayColumn(t *testing.T) {
	res := run(t, renderTrace(), LatencyOptions{Percentiles: true})
	var tab, js, cs bytes.Buffer
	if err := WriteLatencyTable(&tab, res, false); err != nil {
		t.Fatal(err)
	}
	if s := tab.String(); !strings.Contains(s, "| p50:   0.250 ms | p90:   1.500 ms | p95:   1.500 ms |") || !strings.Contains(s, "| p90 delay ms    |") {
		t.Errorf("table:\n%s", s)
	}
	if err := WriteLatencyJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	var doc LatencyJSON
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if v, ok := doc.Tasks[0].Extra["p90_delay_ns"]; !ok || v != 1_500_000 {
		t.Errorf("json p90_delay_ns %d (%v):\n%s", v, ok, js.String())
	}
	if err := WriteLatencyCSV(&cs, res); err != nil {
		t.Fatal(err)
	}
	if l := strings.Split(cs.String(), "\n"); !strings.Contains(l[0], ",p50_delay_ns,p90_delay_ns,p95_delay_ns,") || !strings.Contains(l[1], ",250000,1500000,1500000,") {
		t.Errorf("csv:\n%s", cs.String())
	}
	plain := run(t, renderTrace(), LatencyOptions{})
	tab.Reset()
	WriteLatencyTable(&tab, plain, false)
	if _, ok := plain.JSON().Tasks[0].Extra["p90_delay_ns"]; ok || strings.Contains(tab.String(), "p90") {
		t.Errorf("p90 without --percentiles:\n%s", tab.String())
	}

	cr, err := Compare(trace.NewSliceSource(gNamed(gScenario()), nil), trace.NewSliceSource(gNamed(gScenarioB()), nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := cr.Rows[0]
	if a.Comm != "A" || a.A.Extra["p90_delay_ns"] != 200*gUs || a.B.Extra["p90_delay_ns"] != 500*gUs || *a.Ratio.Extra["p90_delay"] != 2.5 {
		t.Errorf("compare row A: %+v %+v %+v", a.A, a.B, a.Ratio)
	}
	if tot := cr.Total; tot.A.Extra["p90_delay_ns"] != 400*gUs || tot.B.Extra["p90_delay_ns"] != 500*gUs || *tot.Ratio.Extra["p90_delay"] != 1.25 {
		t.Errorf("compare total: %+v %+v %+v", tot.A, tot.B, tot.Ratio)
	}
	tab.Reset()
	if err := WriteCompareTable(&tab, cr, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if s := tab.String(); !strings.Contains(s, "p90 delay A ms") || !strings.Contains(s, ", sum delay 1.000, p90 delay 1.250, p99 delay 1.250\n") {
		t.Errorf("compare table:\n%s", s)
	}

	real := latencyOf(t, "../testdata/traces/pipe.perf.data", LatencyOptions{Percentiles: true, KeepSamples: true})
	for _, r := range real.JSON().Tasks {
		if p90 := r.Extra["p90_delay_ns"]; p90 < *r.P50DelayNs || p90 > *r.P95DelayNs {
			t.Errorf("%s: p90 %d outside p50 %d .. p95 %d", r.Comm, p90, *r.P50DelayNs, *r.P95DelayNs)
		}
	}
	for _, r := range real.Rows {
		if r.Comm != "sched-pipe" {
			continue
		}
		xs := make([]float64, len(r.Samples))
		for i, v := range r.Samples {
			xs[i] = float64(v)
		}
		slices.Sort(xs)
		if got, want := r.DelayQuantile(0.9), int64(stat.Quantile(0.9, stat.Empirical, xs, nil)); got != want || len(xs) < 1000 {
			t.Errorf("sched-pipe p90 %d, stat.Quantile %d of %d delays", got, want, len(xs))
		}
	}
}
