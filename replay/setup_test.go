package replay

import "testing"

// TestRecordsBeforeFirstSampleSetTheScene: pipe.perf.data holds perf's
// FORK record of its own thread 14564 at 754.261473892 s, 67 ms before the
// first sample (754.328751694 s, a sched_stat_runtime; the header's sample
// times). The reader delivers it (nothing else says that fork happened),
// but nothing was scheduled in the trace then: the model starts at the
// first sample, and the thread is a task alive at the start, not one
// forked in the trace.
func TestRecordsBeforeFirstSampleSetTheScene(t *testing.T) {
	m := extractFile(t, "../testdata/traces/pipe.perf.data")
	if m.Start != 754328751694 {
		t.Errorf("model starts at %d ns, want 754328751694 (the first sample)", m.Start)
	}
	for _, task := range m.Tasks {
		if task.TID == 14564 && task.Init == InitForked {
			t.Errorf("perf's thread 14564 taken as forked in the trace (start %d ns)", task.Start)
		}
	}
}
