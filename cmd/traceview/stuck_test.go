package main

import (
	"testing"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/report"
)

// TestStuckWarning: three tasks left asleep, two of them "worker", one
// with an escape in its name, are named once each with their count, the
// name made safe for a terminal.
func TestStuckWarning(t *testing.T) {
	m := &replay.Model{Tasks: []replay.Task{{Comm: "worker"}, {Comm: "main"}, {Comm: "worker"}, {Comm: "x\x1b[2J"}}}
	got := stuckWarning("eevdf", &replay.Result{Stuck: []int{0, 2, 3}}, m)
	const want = "the eevdf prediction left 3 tasks asleep at its end, waiting for a wakeup no task sent (worker ×2, x\\x1b[2J): " +
		"their run time and switches lack the work after that sleep, and the makespan is a lower bound"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestTogetherNote: two "w" tasks of the workload ended 0.030 ms apart;
// the note names them, the spread and the change.
func TestTogetherNote(t *testing.T) {
	m := &replay.Model{WorkloadRoot: -1}
	for _, last := range []int64{300_000_000, 300_030_000} {
		m.Tasks = append(m.Tasks, replay.Task{Comm: "w", Parent: 5, Workload: true, Until: replay.UntilCount, Last: last,
			Bursts: []replay.Burst{{Len: 1, End: replay.EndExit}}})
	}
	k := &predict.KindSensitivity{Tasks: []string{"w"}, Changes: []report.ReplayCheck{{Metric: "makespan", Observed: 900_003_000, Predicted: 520_022_000}}}
	const want = "note: eevdf: w (2 tasks) ended within 0.030 ms of each other and the prediction takes that for the end of their iterations (count- or work-bound); " +
		"if they looped until a wall-clock time (a --time or --timeout option) it changes: makespan 900.003 ms -> 520.022 ms; --until w=deadline or w=count says which"
	if got := togetherNote(k, "eevdf", m); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestSensitivityNoteMore: past three changes the note counts the rest and
// still ends each part with a semicolon before the --until advice.
func TestSensitivityNoteMore(t *testing.T) {
	k := &predict.KindSensitivity{Changes: []report.ReplayCheck{
		{Metric: "makespan", Observed: 2_000_000, Predicted: 1_000_000},
		{Metric: "runtime", Comm: "a", Observed: 3_000_000, Predicted: 2_000_000},
		{Metric: "switches", Comm: "a", Observed: 10, Predicted: 5},
		{Metric: "switches", Comm: "b", Observed: 7, Predicted: 9},
	}}
	const want = "head: makespan 2.000 ms -> 1.000 ms; a runtime 3.000 ms -> 2.000 ms; a switches 10 -> 5; and 1 more; --until x says which"
	if got := sensitivityNote(k, "head:", " --until x says which"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
