package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestLatencyWindowRunThrough: a task that runs through a --time window,
// or into or out of it, gets the part of its run inside the window, and a
// row even without a delay there. testsched.Scenario without its
// sched_stat_runtime events (runtime from the switches, as traceview
// record's captures), times in us:
//
//	window 600-900: C runs on CPU0 300-1000 and A on CPU1 500-2000, both
//	  through the window: 300 each; no switch-in, so no delay (B's at 1000
//	  is after the window). Total 600.
//	window 1200-1800: B runs on CPU0 1000-1500, out of the window at 1500:
//	  1500-1200 = 300; A through it: 600. Total 900.
func TestLatencyWindowRunThrough(t *testing.T) {
	var evs []trace.Event
	for _, e := range testsched.Scenario() {
		if e.Kind != trace.KindRuntime {
			evs = append(evs, e)
		}
	}
	const us = testsched.Us
	row := func(comm string, tid trace.TID, rt int64) LatencyRow {
		return LatencyRow{Comm: comm, TID: tid, PID: trace.PID(tid), NrTasks: 1, Runtime: rt, RuntimeSource: RuntimeFromSwitches}
	}
	for _, tc := range []struct {
		name       string
		start, end int64
		want       []LatencyRow
		total      int64
	}{
		{"through", 600 * us, 900 * us, []LatencyRow{row("C", 30, 300*us), row("A", 10, 300*us)}, 600 * us},
		{"out-and-through", 1200 * us, 1800 * us, []LatencyRow{row("B", 20, 300*us), row("A", 10, 600*us)}, 900 * us},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, evs, LatencyOptions{PerTask: true, Filter: &schedule.Filter{Start: tc.start, End: tc.end}})
			if d := cmp.Diff(tc.want, rowsOf(res), ignoreSamples); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
			if res.Total != (LatencyTotal{Runtime: tc.total}) {
				t.Errorf("total = %+v, want runtime %d", res.Total, tc.total)
			}
		})
	}
}
