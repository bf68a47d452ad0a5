package perfdata

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestForkRecordBeforeFirstSample: perf record's tracking event reports
// forks from the moment it is enabled, the sched tracepoints a few ms
// later. pipe.perf.data (perf script --show-task-events) holds
//
//	perf 14562 [001] 754.261473892: PERF_RECORD_FORK(14562:14564):(14562:14562)
//
// 67 ms before its first sample (754.328751 s, the header's sample times),
// and 2 sched_process_fork samples later on, each with its own FORK record.
// The early fork has no tracepoint beside it, so the reader delivers the
// record; the later ones stay one event each (the tracepoint's). perf names
// a child forked in that window after its parent from the record: in a
// capture of a workload renamed by prctl, three bash children forked
// before the first sample showed as ":4415:4415" in `latency --perf` where
// perf printed "bash:4415".
func TestForkRecordBeforeFirstSample(t *testing.T) {
	evs, r, err := drain(readFile(t, "../../testdata/traces/pipe.perf.data"), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Meta().FirstTime; got/1000 != 754328751 {
		t.Fatalf("first sample time %d ns, want 754.328751 s", got)
	}
	var forks []trace.Event
	for _, ev := range evs {
		if ev.Kind == trace.KindFork && ev.Time > 0 { // not perf's synthesized table
			forks = append(forks, ev)
		}
	}
	if len(forks) != 3 {
		t.Fatalf("%d fork events, want 3 (1 record before the first sample, 2 tracepoints)", len(forks))
	}
	f := forks[0]
	if f.Time != 754261473892 || f.CPU != 1 || f.TID != 14562 || f.PID != 14562 || f.ChildTID != 14564 || f.ChildPID != 14562 {
		t.Errorf("first fork %+v, want 754.261473892 s on CPU 1, 14562 -> thread 14564 of process 14562", f)
	}
}
