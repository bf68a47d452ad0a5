package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// latency -o csv has one kind of row under unique column names, with and
// without --by: --by comm's header was "comm,comm,...", and a per-group (or
// the last) TOTAL line could not be told from a task named TOTAL. Each
// line is a task row: its pid cell is a number, never empty.
func TestLatencyCSVShape(t *testing.T) {
	const a, b = "../../testdata/traces/pipe.perf.data", "../../testdata/traces/nice.2cpu.perf.data"
	for _, c := range []struct {
		args  []string
		first string // the first column
	}{
		{[]string{a}, "comm"},
		{[]string{a, b, "--by", "trace"}, "by_trace"},
		{[]string{a, b, "--by", "comm"}, "by_comm"},
		{[]string{a, b, "--by", "cgroup"}, "by_cgroup"},
		{[]string{a, b, "--by", "host"}, "by_host"},
	} {
		t.Run(strings.Join(c.args[len(c.args)-1:], ""), func(t *testing.T) {
			out, errs, code := runCLI(t, append([]string{"latency", "-o", "csv"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(recs) < 2 {
				t.Fatalf("%d records, %v:\n%s", len(recs), err, out)
			}
			seen := map[string]bool{}
			pid := -1
			for i, h := range recs[0] {
				if seen[h] {
					t.Errorf("column %q twice in %v", h, recs[0])
				}
				seen[h] = true
				if h == "pid" {
					pid = i
				}
			}
			if recs[0][0] != c.first || pid < 0 {
				t.Errorf("header %v: want %s first and a pid column", recs[0], c.first)
			}
			for _, r := range recs[1:] {
				if r[pid] == "" || strings.Contains(strings.Join(r, ","), "TOTAL") {
					t.Errorf("not a task row: %v", r)
				}
			}
		})
	}
}
