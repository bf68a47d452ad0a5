package report

import "testing"

// TestRecordedCPUsPipeMode: fork-cpu1.pipe.data is `perf sched record -C 1
// -o -` of fork-cpu1.py (testdata/traces/README-latency.md). A pipe-mode
// stream states perf's command line (HEADER_FEATURE records) after the
// source is opened, before its samples, so the CPU list is taken at the
// first event (schedule.Options.Meta): the delays spent queued on the
// unrecorded CPU 0 are left out (Diag.UnrecordedDelays), as in the file
// mode recording. Before, memfd:sealed-91 read a 253.163 ms delay (5
// delays, avg 50.7 ms) and bash 33.9 ms; with them left out no row's
// maximum reaches 10 ms (python3's, 7.881 ms, is the largest).
func TestRecordedCPUsPipeMode(t *testing.T) {
	res := latencyOf(t, "../testdata/traces/fork-cpu1.pipe.data", LatencyOptions{})
	if res.Diag.UnrecordedDelays == 0 {
		t.Errorf("no unrecorded delays")
	}
	for _, r := range res.Rows {
		if r.MaxDelay >= 10e6 {
			t.Errorf("%s: max delay %.3f ms", r.Comm, float64(r.MaxDelay)/1e6)
		}
	}
}
