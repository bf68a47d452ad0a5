package tables_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/report/tables"
)

// duckDB returns a function that runs one SQL statement with DuckDB
// (npm's @duckdb/node-api under bench/fleet, run by the machine's node
// through bench/fleet/query.mjs) and decodes its rows. Without node or the
// package the test skips, or fails when TRACEVIEW_REQUIRE_DUCKDB=1 (CI).
func duckDB(t *testing.T) func(sql string) []map[string]any {
	t.Helper()
	fleet, err := filepath.Abs("../../bench/fleet")
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	node, err := exec.LookPath("node")
	if err != nil {
		missing = "node not found (apt-get install nodejs npm)"
	} else if _, err := os.Stat(filepath.Join(fleet, "node_modules", "@duckdb", "node-api")); err != nil {
		missing = "@duckdb/node-api not installed (npm ci --prefix bench/fleet, as .ci/run does)"
	}
	if missing != "" {
		if os.Getenv("TRACEVIEW_REQUIRE_DUCKDB") == "1" {
			t.Fatalf("%s and TRACEVIEW_REQUIRE_DUCKDB=1", missing)
		}
		t.Skip(missing)
	}
	return func(sql string) []map[string]any {
		t.Helper()
		cmd := exec.Command(node, filepath.Join(fleet, "query.mjs"), sql)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("duckdb %q: %v: %s", sql, err, stderr.String())
		}
		var rows []map[string]any
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatalf("duckdb %q: %v: %s", sql, err, out)
		}
		return rows
	}
}

// i64 reads a DuckDB integer from a JSON row (BIGINT comes as a string).
func i64(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	case float64:
		return int64(x)
	}
	t.Fatalf("not an integer: %#v", v)
	return 0
}

// TestDuckDB converts two traces into Parquet (one directory each, as two
// batch jobs would) and queries the union with DuckDB. It checks, against
// values computed here without the tables: two trace_ids (the SHA-256 file
// ids); a sched_slice row starting at every sched_switch of each trace
// (raw events read here); per trace, task_latency's sums of switches,
// delay count and delay sum equal the TOTAL of traceview's own `latency -p`
// table; per command across both traces, delay count, sum and max equal
// the rows of `latency A B` (report.MergeLatency), and the p99 bucket found
// in SQL over the merged delay_hist holds that table's exact p99. The
// queries are those of docs/fleet.md.
func TestDuckDB(t *testing.T) {
	query := duckDB(t)
	traces := []string{pipeTrace, "../../testdata/traces/nice.2cpu.perf.data"}
	root := t.TempDir()
	ids := map[string]string{} // trace_id -> path
	var parts []*report.LatencyResult
	for i, path := range traces {
		id, err := tables.FileID(path)
		if err != nil {
			t.Fatal(err)
		}
		ids[id] = path
		if _, err := tables.Write(filepath.Join(root, fmt.Sprint("t", i)), open(t, path), tables.Options{TraceID: id, Source: path}); err != nil {
			t.Fatal(err)
		}
		ref, err := report.ComputeLatency(open(t, path), report.LatencyOptions{PerTask: true, Percentiles: true})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, ref)
	}
	if len(ids) != 2 {
		t.Fatalf("the two traces have one file id: %v", ids)
	}
	glob := func(table string) string { return fmt.Sprintf("read_parquet('%s/*/%s.parquet')", root, table) }

	rows := query("SELECT DISTINCT trace_id, source, schema_version FROM " + glob("trace") + " ORDER BY trace_id")
	if len(rows) != 2 {
		t.Fatalf("trace table: %v", rows)
	}
	for _, r := range rows {
		if ids[r["trace_id"].(string)] != r["source"] || r["schema_version"] != float64(1) {
			t.Errorf("trace row %v, want one of %v", r, ids)
		}
	}

	// A sched_slice row at every switch that starts a run.
	slices := query("SELECT trace_id, cpu, ts FROM " + glob("sched_slice"))
	starts := map[string]map[string]bool{}
	for _, r := range slices {
		id := r["trace_id"].(string)
		if starts[id] == nil {
			starts[id] = map[string]bool{}
		}
		starts[id][fmt.Sprintf("%d@%d", i64(t, r["cpu"]), i64(t, r["ts"]))] = true
	}
	for id, path := range ids {
		want, nsw := switchIns(t, path)
		missing := 0
		for k := range want {
			if !starts[id][k] {
				missing++
			}
		}
		if missing > 0 || len(want) == 0 {
			t.Errorf("%s: %d of %d switches (%d events) start no sched_slice row", path, missing, len(want), nsw)
		}
	}

	// task_latency per trace = the trace's own `latency -p` TOTAL.
	sums := query("SELECT trace_id, sum(switches) AS switches, sum(delay_count) AS n, sum(delay_sum) AS delay FROM " +
		glob("task_latency") + " GROUP BY trace_id")
	if len(sums) != 2 {
		t.Fatalf("task_latency sums: %v", sums)
	}
	for _, r := range sums {
		path := ids[r["trace_id"].(string)]
		ref := parts[0]
		if path != traces[0] {
			ref = parts[1]
		}
		if got := [3]int64{i64(t, r["switches"]), i64(t, r["n"]), i64(t, r["delay"])}; got != [3]int64{ref.Total.Switches, ref.Total.Count, ref.Total.SumDelay} {
			t.Errorf("%s: SQL switches, delays, delay sum %v; latency -p total %+v", path, got, ref.Total)
		}
	}

	// Across both traces, per command: `latency A B`.
	merged, err := report.MergeLatency(parts, report.LatencyOptions{Percentiles: true})
	if err != nil {
		t.Fatal(err)
	}
	byComm := query("SELECT comm, sum(delay_count) AS n, sum(delay_sum) AS delay, max(delay_max) AS max FROM " +
		glob("task_latency") + " GROUP BY comm HAVING sum(delay_count) > 0")
	got := map[string][3]int64{}
	for _, r := range byComm {
		got[r["comm"].(string)] = [3]int64{i64(t, r["n"]), i64(t, r["delay"]), i64(t, r["max"])}
	}
	n := 0
	for _, r := range merged.Rows {
		if r.Count == 0 {
			continue
		}
		n++
		if g := got[r.Comm]; g != [3]int64{r.Count, r.SumDelay, r.MaxDelay} {
			t.Errorf("%s: SQL count, sum, max %v; latency A B %d, %d, %d", r.Comm, g, r.Count, r.SumDelay, r.MaxDelay)
		}
	}
	if n != len(got) || n < 5 {
		t.Errorf("%d commands with delays in SQL, %d in the merged table", len(got), n)
	}

	p99 := query(`WITH h AS (SELECT comm, bucket, MIN(lo) AS lo, MIN(hi) AS hi, SUM(count) AS n
	                         FROM ` + glob("delay_hist") + ` GROUP BY comm, bucket),
	                  c AS (SELECT comm, lo, hi, SUM(n) OVER (PARTITION BY comm ORDER BY bucket) AS cum,
	                               SUM(n) OVER (PARTITION BY comm) AS total FROM h)
	              SELECT comm, MIN(lo) AS lo, MIN(hi) AS hi, MIN(total) AS total
	              FROM c WHERE cum >= 0.99 * total GROUP BY comm`)
	bounds := map[string][3]int64{}
	for _, r := range p99 {
		bounds[r["comm"].(string)] = [3]int64{i64(t, r["lo"]), i64(t, r["hi"]), i64(t, r["total"])}
	}
	for _, r := range merged.Rows {
		if r.Count == 0 {
			continue
		}
		b := bounds[r.Comm]
		if b[2] != r.Count || r.P99 < b[0] || r.P99 >= b[1] {
			t.Errorf("%s: p99 %d ns of %d delays; SQL's bucket [%d, %d) of %d", r.Comm, r.P99, r.Count, b[0], b[1], b[2])
		}
	}
}
