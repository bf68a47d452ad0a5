package schedule_test

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// cgTickTrace (ns): task 1 runs on CPU 0 from 100 to 13000 with no switch
// between; perf --all-cgroups samples its cgroup at each tick's
// sched_stat_runtime: 11 at 4100 (4000 ns run since 100), 12 at 8100 and
// at 12100 (4000 ns each), and its switch-out at 13000 names 12. So it moved
// from 11 to 12 within the tick ending at 8100: its run splits at 4100,
// where that tick's interval began (100-4100 in 11, 4100-13000 in 12).
func cgTickTrace() []trace.Event {
	rt := func(at int64, cg uint64) trace.Event {
		e := runtime(at, 0, 1, 4000)
		e.Cgroup = cg
		return e
	}
	out := sw(13000, 0, 1, trace.StateInterruptible, 0)
	out.Cgroup = 12
	return []trace.Event{sw(100, 0, 0, 0, 1), rt(4100, 11), rt(8100, 12), rt(12100, 12), out}
}

// TestRuntimeCgroupSplitsRun: a run that spans a move shows in both groups,
// split at the tick that first names the new one.
func TestRuntimeCgroupSplitsRun(t *testing.T) {
	type run struct {
		start, end int64
		cgroup     uint64
	}
	var runs []run
	b := schedule.New(schedule.Options{}, schedule.Hooks{Run: func(r *schedule.Run) {
		if r.Task != nil && r.Task.TID == 1 {
			runs = append(runs, run{r.Start, r.End, r.Task.Cgroup})
		}
	}})
	if err := b.Run(trace.NewSliceSource(cgTickTrace(), nil)); err != nil {
		t.Fatal(err)
	}
	b.Finish()
	want := []run{{100, 4100, 11}, {4100, 13000, 12}}
	if len(runs) != len(want) || runs[0] != want[0] || runs[1] != want[1] {
		t.Errorf("task 1's runs %+v, want %+v", runs, want)
	}
	if b.C.CgroupMoveSplits != 1 {
		t.Errorf("CgroupMoveSplits %d, want 1", b.C.CgroupMoveSplits)
	}
}

// TestFilterCgroupLookup: a --cgroup filter over a table that grows while
// the trace is read (CgroupLookup; Cgroups empty at the start) selects each
// tick by the group it names: /b's ticks are the two at 8100 and 12100
// (8000 ns), /a's the one at 4100 (4000 ns), "/" all three; a path of no
// group selects none.
func TestFilterCgroupLookup(t *testing.T) {
	paths := map[uint64]string{11: "/a", 12: "/b/c"}
	for _, c := range []struct {
		want string
		ns   int64
	}{{"/b", 8000}, {"/a", 4000}, {"/", 12000}, {"/b/c", 8000}, {"/x", 0}} {
		f := &schedule.Filter{Cgroups: []uint64{}, CgroupNames: []string{c.want},
			CgroupLookup: func(id uint64) (string, bool) { p, ok := paths[id]; return p, ok }}
		var ns int64
		b := schedule.New(schedule.Options{Filter: f}, schedule.Hooks{Runtime: func(_ *schedule.Task, e *trace.Event, _ bool) { ns += e.Runtime }})
		if err := b.Run(trace.NewSliceSource(cgTickTrace(), nil)); err != nil {
			t.Fatal(err)
		}
		b.Finish()
		if ns != c.ns {
			t.Errorf("--cgroup %s: %d ns of sched_stat_runtime selected, want %d", c.want, ns, c.ns)
		}
		// The uncompiled filter answers the same.
		if got := f.TaskIDs(1, 1, "", 12); got != (c.ns == 8000 || c.ns == 12000) {
			t.Errorf("--cgroup %s: TaskIDs(cgroup 12) = %v", c.want, got)
		}
	}
}

// TestRenameSplitsRunUnderComm: under a --comm filter, a rename recorded
// while the task runs (PR_SET_NAME, trace.KindComm) splits its run there,
// so each name gets the part it ran under (new-user pass 52 F1: 1 s spun
// as flipB read "nothing matched"). Task 1 "flipA" is switched in on CPU 0
// at 100, renames itself "flipB" at 400 and is switched out (prev_comm
// flipB) at 1000. --comm flipA: OnCPU 300 (100-400); --comm flipB: 600
// (400-1000); no filter: 900, one run, no split.
func TestRenameSplitsRunUnderComm(t *testing.T) {
	in := sw(100, 0, 0, 0, 1)
	in.NextComm = "flipA"
	ren := trace.NewEvent(400, 0, trace.KindComm)
	ren.TID, ren.PID, ren.CurTID, ren.Comm = 1, 1, 1, "flipB"
	out := sw(1000, 0, 1, trace.StateInterruptible, 0)
	out.Comm = "flipB"
	evs := []trace.Event{in, ren, out}
	for _, c := range []struct {
		comms        []string
		onCPU        int64
		runs, splits int64
	}{{[]string{"flipA"}, 300, 2, 1}, {[]string{"flipB"}, 600, 2, 1}, {nil, 900, 1, 0}} {
		var f *schedule.Filter
		if c.comms != nil {
			f = &schedule.Filter{Comms: c.comms}
		}
		var runs int64
		b := schedule.New(schedule.Options{Filter: f}, schedule.Hooks{Run: func(r *schedule.Run) {
			if r.Task != nil && r.Task.TID == 1 {
				runs++
			}
		}})
		if err := b.Run(trace.NewSliceSource(evs, nil)); err != nil {
			t.Fatal(err)
		}
		b.Finish()
		var onCPU int64 = -1
		if task := b.Lookup(1); task != nil {
			onCPU = task.OnCPU
		}
		if onCPU != c.onCPU || runs != c.runs || b.C.RenameSplits != c.splits {
			t.Errorf("--comm %v: OnCPU %d, %d runs, %d splits; want %d, %d, %d", c.comms, onCPU, runs, b.C.RenameSplits, c.onCPU, c.runs, c.splits)
		}
	}
}

// TestRunnableEndUnknown: a task switched out with no switch-in the trace
// shows has a runnable interval the trace does not end (Interval.
// EndUnknown; new-user pass 53 F2: the Parquet export gave it as a
// measured wait). CPU 0: task 1 runs from 100 and is preempted at 200 by
// task 2 (runnable from 200); at 300 task 2 sleeps and task 3 runs; at 400
// task 1 is switched out (its switch-in, after 300, is missing): its delay
// is dropped, and its runnable interval is [200, 300], the CPU's last
// switch before, marked EndUnknown; task 2's and 3's intervals are not.
func TestRunnableEndUnknown(t *testing.T) {
	type iv struct {
		tid        trace.TID
		start, end int64
		endUnknown bool
	}
	var got []iv
	b := schedule.New(schedule.Options{}, schedule.Hooks{State: func(i *schedule.Interval) {
		if i.State == schedule.StateRunnable {
			got = append(got, iv{i.Task.TID, i.Start, i.End, i.EndUnknown})
		}
	}})
	evs := []trace.Event{
		sw(100, 0, 0, 0, 1),
		sw(200, 0, 1, trace.StateRunning, 2),
		sw(300, 0, 2, trace.StateInterruptible, 3),
		sw(400, 0, 1, trace.StateInterruptible, 0),
	}
	if err := b.Run(trace.NewSliceSource(evs, nil)); err != nil {
		t.Fatal(err)
	}
	b.Finish()
	want := []iv{{1, 200, 300, true}}
	if !slices.Equal(got, want) || b.C.Dropped != 1 {
		t.Errorf("runnable intervals %+v (%d dropped), want %+v (1)", got, b.C.Dropped, want)
	}
}
