package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
	"github.com/traceview/traceview/trace/schedule"
)

// TestPerTaskTotals: the per-task table (-p) and the per-command one hold
// the same tasks, so their totals agree on every trace of testdata/traces,
// unfiltered and with --cpu 1. A task with run time or switches but no
// measured delay (its only delay spent where the recording could not see:
// a perf record -C 1 file's forked children, fork-cpu1.perf.data; run
// time recorded on the selected CPU without a delay there) counted in its
// command's row and had no row of its own: fork-cpu1.perf.data read
// 219.930 ms against 216.925 ms with -p. Such a row prints "-" for the
// delay figures it has none of (TestLatencyNoDelayRow).
func TestPerTaskTotals(t *testing.T) {
	files, _ := filepath.Glob("../testdata/traces/*")
	n := 0
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".txt", ".py", ".md", ".gz", ".json", ".kallsyms":
			continue
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		for _, cpus := range [][]trace.CPU{nil, {1}} {
			var tot [2]LatencyTotal
			ok := true
			for i, perTask := range []bool{false, true} {
				src, err := trace.Open(f)
				if err != nil {
					ok = false
					break
				}
				opts := LatencyOptions{PerTask: perTask}
				if cpus != nil {
					opts.Filter = &schedule.Filter{CPUs: cpus}
				}
				res, err := ComputeLatency(src, opts)
				src.Close()
				if err != nil {
					ok = false
					break
				}
				tot[i] = res.Total
			}
			if !ok {
				continue
			}
			n++
			if tot[0] != tot[1] {
				t.Errorf("%s cpus %v: total %+v, per task %+v", filepath.Base(f), cpus, tot[0], tot[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("%d trace and filter pairs compared, want 20 or more", n)
	}
}

// TestLatencyNoDelayRow: a row kept without a measured delay (Count 0)
// prints "-" for the average, the maximum and its times, not 0.000 ms and
// 0.000000 s, which read as a delay measured; its sum is 0.000 ms.
func TestLatencyNoDelayRow(t *testing.T) {
	res := &LatencyResult{Rows: []LatencyRow{{Comm: "a", TID: 7, NrTasks: 1, Runtime: 39_000}}}
	var b strings.Builder
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	want := "|      0.039 ms |        0 | avg:       - ms | max:       - ms | sum:       0.000 ms | max start:            - s | max end:            - s"
	if !strings.Contains(b.String(), want) {
		t.Errorf("row without a delay:\n%s\nwant %q", b.String(), want)
	}
}
