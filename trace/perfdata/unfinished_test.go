package perfdata

import (
	"os"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// useRecordingTracefs points LocalTracefs, for the rest of the test, at
// the copy of the sched formats of the kernel the repo's traces were
// recorded on.
func useRecordingTracefs(t *testing.T) {
	old := LocalTracefs
	LocalTracefs = []string{"../../testdata/traces/killed-record.tracefs"}
	t.Cleanup(func() { LocalTracefs = old })
}

// TestUnfinishedRecording reads a perf.data whose perf record never
// finished (header data size 0, no feature sections: testdata/traces/
// killed-record.meta.txt). Expected, from the finished file of the same run
// (every event of the copy is one of its events): 438 events, sched_switch
// 42, sched_waking 30, sched_wakeup_new 2, sched_migrate_task 3,
// sched_process_fork 143, sched_process_exec 3, sched_process_exit 11, comm
// 142, sched_stat_runtime 62; a warning saying the recording was not
// finished and one saying where the tracepoint formats came from. And 12
// more sched_process_fork, 450 events: perf's FORK records of the 122 ms
// before the first sample (1411.893059026 to 1412.014978013 s, forks of
// pids 31415-31426 while perf set up; the first sample, at 1412.015308291
// s, is taken from the data's first round, scanFirstSample), which the
// finished file's header time keeps too (beforeSamples: within
// NonSampleSlack) and the copy, without it, dropped until new-user pass 61
// F4.
func TestUnfinishedRecording(t *testing.T) {
	useRecordingTracefs(t)
	f, err := os.Open("../../testdata/traces/killed-record.data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range evs {
		got[e.Kind.String()]++
	}
	want := map[string]int{"sched_switch": 42, "sched_waking": 30, "sched_wakeup_new": 2, "sched_migrate_task": 3,
		"sched_process_fork": 155, "sched_process_exec": 3, "sched_process_exit": 11, "comm": 142, "sched_stat_runtime": 62}
	if len(evs) != 450 {
		t.Errorf("%d events, want 450", len(evs))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d", k, got[k], n)
		}
	}
	keys := map[string]string{}
	for _, w := range r.Meta().Warnings.List() {
		keys[w.Key] = w.Message
	}
	if !strings.Contains(keys["unfinished"], "the header's data size is 0: the recording was not finished") {
		t.Errorf("no unfinished warning: %v", keys)
	}
	if !strings.Contains(keys["local-formats"], "6 sched formats") {
		t.Errorf("no local-formats warning: %v", keys)
	}

	// Without formats anywhere the records are still read and the error
	// says why the tracepoints cannot be decoded.
	LocalTracefs = nil
	f.Seek(0, 0)
	r, err = NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	evs, err = trace.ReadAll(r)
	if err == nil || !strings.Contains(err.Error(), "no tracing data") || len(evs) == 0 {
		t.Errorf("without formats: %d events, error %v", len(evs), err)
	}
}
