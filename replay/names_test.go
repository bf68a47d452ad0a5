package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestExtractNamesAsReports: the model names its tasks as the reports name
// their rows (perfcompat.LatencyThread.Named), so the prediction's rows
// match the observed table's. Task 5 has no record naming it: its switches
// say "stress-ng" then "stress-ng-cpu" (a prctl rename whose COMM record a
// cut file lost): the latest, stress-ng-cpu (it stayed stress-ng, and a
// cut file's replay showed stress-ng-cpu at 0 ms and stress-ng at 8.9x).
// Task 6, named "perf-exec" by perf's synthesized COMM, then switched as
// "wl1.sh" (an exec whose record was lost): wl1.sh. Task 7, a kworker
// whose synthesized /proc name extends its switches' "kworker/0:0", keeps
// "kworker/0:0-events".
func TestExtractNamesAsReports(t *testing.T) {
	named := synthComm
	run := func(at int64, tid trace.TID, name string) []trace.Event {
		in := sw(at, 0, trace.StateRunning, tid)
		in.NextComm = name
		out := sw(at+1000, tid, trace.StateInterruptible, 0)
		out.Comm = name
		return []trace.Event{in, out}
	}
	evs := []trace.Event{named(6, "perf-exec"), named(7, "kworker/0:0-events")}
	evs = append(evs, run(10_000, 5, "stress-ng")...)
	evs = append(evs, run(20_000, 5, "stress-ng-cpu")...)
	evs = append(evs, run(30_000, 6, "wl1.sh")...)
	evs = append(evs, run(40_000, 7, "kworker/0:0")...)
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[trace.TID]string{5: "stress-ng-cpu", 6: "wl1.sh", 7: "kworker/0:0-events"}
	for _, tk := range m.Tasks {
		if w, ok := want[tk.TID]; ok && tk.Comm != w {
			t.Errorf("task %d named %q, want %q", tk.TID, tk.Comm, w)
		}
	}
}

// synthComm is perf's record-start COMM naming task tid (time 0, no CPU).
func synthComm(tid trace.TID, name string) trace.Event {
	e := trace.NewEvent(0, -1, trace.KindComm)
	e.TID, e.PID, e.Comm = tid, trace.PID(tid), name
	return e
}
