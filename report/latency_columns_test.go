package report

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLatencyJSONRowFieldsAreColumns: every field of LatencyJSONRow (but
// Extra) is filled from the column of its JSON key, so a field without a
// column (left zero by JSON) fails here.
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
	rt := reflect.TypeOf(LatencyJSONRow{})
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if f.Name == "Extra" {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if c := byKey[key]; c == nil || !c.JSON {
			t.Errorf("LatencyJSONRow.%s (json %q) has no JSON column", f.Name, key)
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
