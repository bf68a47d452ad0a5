package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestLatencyLostRename: a task whose sched_switch events name it
// otherwise after the record that named it lost a rename (a cut perf.data
// loses an exec's COMM record with the CPU buffer it was in), and the
// default report takes the events' name; perf's (PerfCompat) keeps the
// record's. Tasks, each switched in at 100 and out at 200 on CPU 0 with
// the name its events give:
//   - 7: "perf-exec" from perf's synthesized COMM (time 0), events "wl1.sh":
//     wl1.sh (perf: perf-exec);
//   - 8: "kworker/0:0-events" from the synthesized COMM (perf reads /proc,
//     which appends the workqueue), events "kworker/0:0": the record's
//     name extends the events', so it stays;
//   - 9: COMM "a" at 50, events "b": b;
//   - 10: COMM "c" at 150, after its switch-in said "d", and its
//     switch-out at 200 says "c": c.
func TestLatencyLostRename(t *testing.T) {
	named := func(tid trace.TID, at int64, name string) trace.Event {
		e := comm(tid, name)
		e.Time = at
		return e
	}
	run1 := func(tid trace.TID, in, out int64, inName, outName string) []trace.Event {
		a := sw(in, 0, 0, trace.StateRunning, tid)
		a.NextComm = inName
		b := sw(out, 0, tid, trace.StateInterruptible, 0)
		b.Comm = outName
		return []trace.Event{a, b}
	}
	var evs []trace.Event
	evs = append(evs, comm(7, "perf-exec"), comm(8, "kworker/0:0-events"), named(9, 50, "a"))
	evs = append(evs, run1(7, 100, 200, "wl1.sh", "wl1.sh")...)
	evs = append(evs, run1(8, 300, 400, "kworker/0:0", "kworker/0:0")...)
	evs = append(evs, run1(9, 500, 600, "b", "b")...)
	evs = append(evs, sw(700, 0, 0, trace.StateRunning, 10))
	evs[len(evs)-1].NextComm = "d"
	evs = append(evs, named(10, 750, "c"))
	out := sw(800, 0, 10, trace.StateInterruptible, 0)
	out.Comm = "c"
	evs = append(evs, out)
	for _, c := range []struct {
		perf bool
		want map[trace.TID]string
	}{
		{false, map[trace.TID]string{7: "wl1.sh", 8: "kworker/0:0-events", 9: "b", 10: "c"}},
		{true, map[trace.TID]string{7: "perf-exec", 8: "kworker/0:0-events", 9: "a", 10: "c"}},
	} {
		res := run(t, evs, LatencyOptions{PerTask: true, PerfCompat: c.perf})
		got := map[trace.TID]string{}
		for _, r := range res.Rows {
			got[r.TID] = r.Comm
		}
		for tid, w := range c.want {
			if got[tid] != w {
				t.Errorf("perf %v: task %d named %q, want %q", c.perf, tid, got[tid], w)
			}
		}
	}
}
