package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
	"github.com/traceview/traceview/trace/schedule"
)

// TestPerTaskTotals: the per-task table (-p) and the per-command one hold
// the same tasks, so their totals agree on every trace of testdata/traces,
// unfiltered and with --cpu 1. A task with run time or switches but no
// measured delay (its only delay spent where the recording could not see:
// a perf record -C 1 file's forked children, fork-cpu1.perf.data; run
// time recorded on the selected CPU without a delay there) counted in its
// command's row and had no row of its own: fork-cpu1.perf.data read
// 219.930 ms against 216.925 ms with -p. Such a row prints "-" for the
// delay figures it has none of (TestLatencyNoDelayRow).
func TestPerTaskTotals(t *testing.T) {
	files, _ := filepath.Glob("../testdata/traces/*")
	n := 0
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".txt", ".py", ".md", ".gz", ".json", ".kallsyms":
			continue
		}
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		for _, cpus := range [][]trace.CPU{nil, {1}} {
			var tot [2]LatencyTotal
			ok := true
			for i, perTask := range []bool{false, true} {
				src, err := trace.Open(f)
				if err != nil {
					ok = false
					break
				}
				opts := LatencyOptions{PerTask: perTask}
				if cpus != nil {
					opts.Filter = &schedule.Filter{CPUs: cpus}
				}
				res, err := ComputeLatency(src, opts)
				src.Close()
				if err != nil {
					ok = false
					break
				}
				tot[i] = res.Total
			}
			if !ok {
				continue
			}
			n++
			if tot[0] != tot[1] {
				t.Errorf("%s cpus %v: total %+v, per task %+v", filepath.Base(f), cpus, tot[0], tot[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("%d trace and filter pairs compared, want 20 or more", n)
	}
}

// TestLatencyNoDelayRow: a row kept without a measured delay (Count 0)
// prints "-" for the average, the maximum and its times, not 0.000 ms and
// 0.000000 s, which read as a delay measured; its sum is 0.000 ms.
func TestLatencyNoDelayRow(t *testing.T) {
	res := &LatencyResult{Rows: []LatencyRow{{Comm: "a", TID: 7, NrTasks: 1, Runtime: 39_000}}}
	var b strings.Builder
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	want := "|      0.039 ms |        0 | avg:       - ms | max:       - ms | sum:       0.000 ms | max start:            - s | max end:            - s"
	if !strings.Contains(b.String(), want) {
		t.Errorf("row without a delay:\n%s\nwant %q", b.String(), want)
	}
}

// TestByCgroupBackInGroup: with ByCgroup, a task has one row per group it
// was in: task 5 switched out in group 1, then 7, then 1 again has two
// rows (groups 1 and 7), not a second row in group 1 (latency --by cgroup
// -p printed a spinner moved into a quota group and back twice under /).
// Its delays from the wakings at 300 and 500 ns: 10 ns each, the first
// in group 7 (the run it ends switches out there), the second in group 1.
func TestByCgroupBackInGroup(t *testing.T) {
	sw := moverSwitch
	wake := func(at int64) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindWaking)
		e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU, e.CurTID, e.CurPID = 5, 5, "mover", 120, 0, 0, 0
		return e
	}
	evs := []trace.Event{sw(100, 0, 5, 0), sw(200, 5, 0, 1), wake(300), sw(310, 0, 5, 0), sw(400, 5, 0, 7), wake(500), sw(510, 0, 5, 0), sw(600, 5, 0, 1)}
	got := moverRows(t, evs, func(r LatencyRow) string {
		return fmt.Sprintf("cgroup %d: %d delays, %d ns", r.Cgroup, r.Count, r.SumDelay)
	})
	if want := "[cgroup 1: 1 delays, 10 ns cgroup 7: 1 delays, 10 ns]"; got != want {
		t.Errorf("task 5's rows %v, want %s", got, want)
	}
}

// moverSwitch is a sched_switch on CPU 0 at at from prev to next (task 5
// is "mover", 0 idle) whose switch-out names cgroup cg.
func moverSwitch(at int64, prev, next trace.TID, cg uint64) trace.Event {
	e := trace.NewEvent(at, 0, trace.KindSwitch)
	e.CurTID, e.CurPID = prev, trace.PID(prev)
	e.TID, e.PID, e.NextTID, e.NextPID, e.Prio, e.NextPrio, e.Cgroup = prev, trace.PID(prev), next, trace.PID(next), 120, 120, cg
	e.Comm, e.NextComm = map[trace.TID]string{0: "swapper/0", 5: "mover"}[prev], map[trace.TID]string{0: "swapper/0", 5: "mover"}[next]
	if prev != 0 {
		e.PrevState = trace.StateInterruptible
	}
	return e
}

// moverRows is latency --by cgroup -p of evs: task 5's rows, each as
// format renders it, sorted.
func moverRows(t *testing.T, evs []trace.Event, format func(LatencyRow) string) string {
	t.Helper()
	res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{PerTask: true, ByCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.TaskRows {
		if r.TID == 5 {
			got = append(got, format(r))
		}
	}
	sort.Strings(got)
	return fmt.Sprint(got)
}

// TestByCgroupRunSplitAtMove: task 5 runs on CPU 0 from 100 to 1000 ns and
// moves from cgroup 1 to cgroup 7 at 400 without a switch (a running task
// moves without one); traceview record writes a KindCgroupMove before the
// switch-out (Runtime 600: the move was 600 ns before it; Cgroup 1: the
// group it left), whose cgroup is 7. Its rows: 300 ns in cgroup 1 (100 to
// 400), 600 ns in cgroup 7 (400 to 1000). Before, all 900 ns were in 7:
// a quota'd group's run time went over what its quota allows (new-user
// pass 12 F1). A second move in the same run (to cgroup 9 at 700, written
// as a second KindCgroupMove from 7) splits it three ways: 300, 300, 300.
func TestByCgroupRunSplitAtMove(t *testing.T) {
	sw := moverSwitch
	move := func(at, ago int64, from uint64) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindCgroupMove)
		e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Runtime, e.Cgroup = 5, 5, 5, 5, "mover", ago, from
		return e
	}
	rows := func(evs []trace.Event) string {
		return moverRows(t, evs, func(r LatencyRow) string { return fmt.Sprintf("cgroup %d: %d ns", r.Cgroup, r.Runtime) })
	}
	one := []trace.Event{sw(100, 0, 5, 0), move(1000, 600, 1), sw(1000, 5, 0, 7)}
	if got, want := rows(one), "[cgroup 1: 300 ns cgroup 7: 600 ns]"; got != want {
		t.Errorf("one move: task 5's rows %v, want %s", got, want)
	}
	two := []trace.Event{sw(100, 0, 5, 0), move(1000, 600, 1), move(1000, 300, 7), sw(1000, 5, 0, 9)}
	if got, want := rows(two), "[cgroup 1: 300 ns cgroup 7: 300 ns cgroup 9: 300 ns]"; got != want {
		t.Errorf("two moves: task 5's rows %v, want %s", got, want)
	}
}

// TestByCgroupFirstDelayMoveIgnored: a new task's first delay is counted
// in the same group by its row and by the group table, also when the
// schedule does not split its first run at a recorded move. Task 5 is
// woken new at 50 and switched in at 100 (a 50 ns delay, before any
// switch-out has named its group); the recorder writes a move 950 ns
// before its switch-out at 1000, at 50, before the run began (the v1
// readings date a move only to within their interval), so the schedule
// leaves the run whole, in cgroup 7, the group its switch-out names. Its
// one row: cgroup 7, 1 delay, 900 ns; the group table: cgroup 7 with that
// delay, and no cgroup 1. Before, the row tracker split at the move on its
// own: the delay's row was cgroup 1's while the table counted it in 7
// (new-user pass 15 F5: a cgrun's delay in /'s rows, /nub's line one
// delay more than its rows).
func TestByCgroupFirstDelayMoveIgnored(t *testing.T) {
	wake := trace.NewEvent(50, 0, trace.KindWakeupNew)
	wake.TID, wake.PID, wake.Comm, wake.Prio, wake.TargetCPU = 5, 5, "mover", 120, 0
	move := trace.NewEvent(1000, 0, trace.KindCgroupMove)
	move.CurTID, move.CurPID, move.TID, move.PID, move.Comm, move.Runtime, move.Cgroup = 5, 5, 5, 5, "mover", 950, 1
	evs := []trace.Event{wake, moverSwitch(100, 0, 5, 0), move, moverSwitch(1000, 5, 0, 7)}
	got := moverRows(t, evs, func(r LatencyRow) string {
		return fmt.Sprintf("cgroup %d: %d delays, %d ns", r.Cgroup, r.Count, r.Runtime)
	})
	if want := "[cgroup 7: 1 delays, 900 ns]"; got != want {
		t.Errorf("task 5's rows %v, want %s", got, want)
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{PerTask: true, ByCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range res.Cgroups {
		groups = append(groups, fmt.Sprintf("cgroup %d: %d delays", g.Cgroup, g.Delays))
	}
	if want := "[cgroup 7: 1 delays]"; fmt.Sprint(groups) != want {
		t.Errorf("group table %v, want %s", groups, want)
	}
}
