package report_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// cgroupTrace: tasks 1 (cgroup 5) and 2 (cgroup 6) each run, sleep, are
// woken at 300 and switched in, 1 after 100 ns on CPU 0, 2 after 150 ns on
// CPU 1. Their cgroups come from their switch-outs, as in traceview's
// captures.
func cgroupTrace() []trace.Event {
	sw := func(t int64, cpu trace.CPU, prev trace.TID, state trace.TaskState, cg uint64, next trace.TID) trace.Event {
		e := trace.NewEvent(t, cpu, trace.KindSwitch)
		e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.PrevState, e.Cgroup = prev, prev, trace.PID(prev), fmt.Sprint("t", prev), 120, state, cg
		e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), fmt.Sprint("t", next), 120
		if prev == 0 {
			e.Comm = "swapper"
		}
		if next == 0 {
			e.NextComm = "swapper"
		}
		return e
	}
	waking := func(t int64, cpu trace.CPU, tid trace.TID) trace.Event {
		e := trace.NewEvent(t, cpu, trace.KindWaking)
		e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = 0, tid, trace.PID(tid), fmt.Sprint("t", tid), 120, cpu
		return e
	}
	return []trace.Event{
		sw(100, 0, 0, trace.StateRunning, 0, 1),
		sw(200, 0, 1, trace.StateInterruptible, 5, 0),
		sw(210, 1, 0, trace.StateRunning, 0, 2),
		sw(220, 1, 2, trace.StateInterruptible, 6, 0),
		waking(300, 0, 1),
		waking(300, 1, 2),
		sw(400, 0, 0, trace.StateRunning, 0, 1),
		sw(450, 1, 0, trace.StateRunning, 0, 2),
		sw(500, 0, 1, trace.StateInterruptible, 5, 0),
		sw(550, 1, 2, trace.StateInterruptible, 6, 0),
	}
}

// TestLatencyCgroupFilter: a Cgroups filter keeps the delays, switch-ins
// and rows of the tasks whose last switch-out was in one of the cgroups.
func TestLatencyCgroupFilter(t *testing.T) {
	for _, c := range []struct {
		cgroups []uint64
		want    string
	}{
		{nil, "[1 cg 5 count 1 max 100 2 cg 6 count 1 max 150]"},
		{[]uint64{5}, "[1 cg 5 count 1 max 100]"},
		{[]uint64{6, 5}, "[1 cg 5 count 1 max 100 2 cg 6 count 1 max 150]"},
		{[]uint64{7}, "[]"},
	} {
		t.Run(fmt.Sprint(c.cgroups), func(t *testing.T) {
			var f *schedule.Filter
			if c.cgroups != nil {
				f = &schedule.Filter{Cgroups: c.cgroups}
			}
			res, err := report.ComputeLatency(trace.NewSliceSource(cgroupTrace(), &trace.Meta{NrCPUs: 2}), report.LatencyOptions{PerTask: true, Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, r := range res.Rows {
				if r.TID == 0 {
					continue
				}
				got = append(got, fmt.Sprintf("%d cg %d count %d max %d", r.TID, r.Cgroup, r.Count, r.MaxDelay))
			}
			slices.Sort(got)
			if s := fmt.Sprint(got); s != c.want {
				t.Errorf("rows %s, want %s", s, c.want)
			}
		})
	}
}

// TestLatencyPIDFilterForkedChild: a child switched in before any event
// says its process (a perf.data's sched_process_fork gives the child's TID
// only: next_pid of the switch is the TID, its PID unknown) counts under
// --pid once its first switch-out says it, as under --tid (new-user pass
// 26 F8: --pid counted one switch fewer). Task 7 (parent 1) is forked at
// 50, switched in at 100 with PID unknown, out at 200 (PID 7 from then),
// woken at 300 and in again at 400: 2 switch-ins, 2 delays
// (100-50 and 400-300) under either filter.
func TestLatencyPIDFilterForkedChild(t *testing.T) {
	swf := func(tm int64, prev trace.TID, prevPID trace.PID, state trace.TaskState, next trace.TID, nextPID trace.PID) trace.Event {
		e := trace.NewEvent(tm, 0, trace.KindSwitch)
		e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.PrevState = prev, prev, prevPID, fmt.Sprint("t", prev), 120, state
		e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, nextPID, fmt.Sprint("t", next), 120
		return e
	}
	fork := trace.NewEvent(50, 0, trace.KindFork)
	fork.CurTID, fork.TID, fork.PID, fork.Comm, fork.ChildTID, fork.ChildPID, fork.ChildComm = 1, 1, 1, "t1", 7, -1, "t1"
	newWake := trace.NewEvent(50, 0, trace.KindWakeupNew)
	newWake.CurTID, newWake.TID, newWake.PID, newWake.Comm, newWake.Prio, newWake.TargetCPU = 1, 7, -1, "t1", 120, 0
	waking := trace.NewEvent(300, 0, trace.KindWaking)
	waking.CurTID, waking.TID, waking.PID, waking.Comm, waking.Prio, waking.TargetCPU = 0, 7, 7, "t7", 120, 0
	evs := []trace.Event{
		swf(10, 0, 0, trace.StateRunning, 1, 1),
		fork, newWake,
		swf(100, 1, 1, trace.StateInterruptible, 7, -1),
		swf(200, 7, 7, trace.StateInterruptible, 0, 0),
		waking,
		swf(400, 0, 0, trace.StateRunning, 7, 7),
		swf(500, 7, 7, trace.StateInterruptible, 0, 0),
	}
	for _, f := range []*schedule.Filter{{PIDs: []trace.PID{7}}, {TIDs: []trace.TID{7}}} {
		res, err := report.ComputeLatency(trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 1}), report.LatencyOptions{PerTask: true, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 || res.Rows[0].TID != 7 || res.Rows[0].Switches != 2 || res.Rows[0].Count != 2 || res.Rows[0].SumDelay != 150 {
			t.Errorf("%s: rows %+v, want task 7 with 2 switches, 2 delays of 150 ns in all", f, res.Rows)
		}
	}
}
