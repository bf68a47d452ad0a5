package main

import (
	"os"
	"testing"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/trace"
)

// TestTopNamesRenamed: top follows a task's name through a window from
// readings of the totals and names the work done under earlier names
// (new-user pass 51 F1: 1.5 s spun as alpha_spin was counted under
// beta_sleep, which only slept, with no note). TIDs no /proc has, so the
// readings' names stand (procComm). Totals (run time ms, switches in):
//
//	start      A: python3 0/0        B: hog 0/0
//	reading 1  A: python3 50/2       B: hog 100/1     C (new): x 1/1
//	reading 2  A: alpha 150/3        B: hog 200/1     C: y 2/2
//	reading 3  A: alpha 1150/5       B: hog 300/1     C: y 3/3
//	end        A: beta 1160/6        B: hog 400/1     C: y 3/3
//
// A: renamed at reading 2; each interval's run time and switches in go
// to the name at its end: python3 50 ms, 2 (start to reading 1); alpha
// 100+1000 ms, 1+2 (readings 1-3); beta 10 ms, 1. Its row is named beta,
// its last name: "ran 1150.000 ms and 5 of its 6 switch-ins as alpha
// (1100.000 ms, 3 switch-ins), python3 (50.000 ms, 2 switch-ins)"
// (python3 holds a tenth of the other names' switch-ins: listed). B never
// renamed; C renamed with 2 ms of work, below renamedMinRun and
// renamedMin: not named.
func TestTopNamesRenamed(t *testing.T) {
	const ms = int64(1_000_000)
	const a, b, c = trace.TID(2_000_000_001), trace.TID(2_000_000_002), trace.TID(2_000_000_003)
	st := func(tid trace.TID, comm string, rt, sw int64) ebpf.TaskStat {
		return ebpf.TaskStat{TID: tid, Comm: comm, Runtime: rt * ms, Switches: sw}
	}
	snap := func(ss ...ebpf.TaskStat) map[trace.TID]ebpf.TaskStat {
		m := map[trace.TID]ebpf.TaskStat{}
		for _, s := range ss {
			m[s.TID] = s
		}
		return m
	}
	var n topNames
	n.start(snap(st(a, "python3", 0, 0), st(b, "hog", 0, 0)))
	n.observe(snap(st(a, "python3", 50, 2), st(b, "hog", 100, 1), st(c, "x", 1, 1)))
	n.observe(snap(st(a, "alpha", 150, 3), st(b, "hog", 200, 1), st(c, "y", 2, 2)))
	n.observe(snap(st(a, "alpha", 1150, 5), st(b, "hog", 300, 1), st(c, "y", 3, 3)))
	n.observe(snap(st(a, "beta", 1160, 6), st(b, "hog", 400, 1), st(c, "y", 3, 3)))
	got, k := n.note()
	want := "renamed during the window, so counted under their last name: beta:2000000001 ran 1150.000 ms and 5 of its 6 switch-ins as alpha (1100.000 ms, 3 switch-ins), python3 (50.000 ms, 2 switch-ins) (top reads the names every 100 ms, so each interval between readings counts under the name at its end: a task that renames itself more often is split at the readings, not at its renames; traceview record keeps each rename)"
	if got != want || k != 1 {
		t.Errorf("note (%d tasks) %q\nwant (1) %q", k, got, want)
	}
	// A new window starts afresh: no rename in it, no note.
	n.start(snap(st(a, "beta", 1160, 6)))
	n.observe(snap(st(a, "beta", 1500, 9)))
	if got, k := n.note(); got != "" || k != 0 {
		t.Errorf("second window: note (%d) %q", k, got)
	}
}

// TestTopNamesAutogroupReread: observe reads a process's autogroup again
// when it ran since the last reading, so a first reading taken between its
// fork and its setsid() (its parent's session) does not stand (new-user
// pass 86 F3: a session's 340 ms counted in the shell's). This process,
// first read as "/autogroup-stale", runs between readings (run time 10 ->
// 20 ms): its entry becomes what /proc/self/autogroup says now. A process
// that did not run (TID 1, run time unchanged at 5 ms) keeps its entry
// unread; a PID no /proc has (gone: 1<<30) that ran keeps its last
// reading.
func TestTopNamesAutogroupReread(t *testing.T) {
	if ebpf.AutogroupEnabled("/proc") != 1 {
		t.Skip("kernel.sched_autogroup_enabled is off or missing here")
	}
	self := trace.PID(os.Getpid())
	now, ok := ebpf.ReadAutogroup("/proc", self)
	if !ok {
		t.Skip("no /proc/self/autogroup")
	}
	const gone = trace.PID(1 << 30)
	n := topNames{autogroups: map[trace.PID]string{self: "/autogroup-stale", 1: "/autogroup-one", gone: "/autogroup-gone"}}
	n.start(map[trace.TID]ebpf.TaskStat{
		trace.TID(self): {PID: self, Comm: "t", Runtime: 10e6},
		1:               {PID: 1, Comm: "init", Runtime: 5e6},
		trace.TID(gone): {PID: gone, Comm: "g", Runtime: 1e6},
	})
	n.observe(map[trace.TID]ebpf.TaskStat{
		trace.TID(self): {PID: self, Comm: "t", Runtime: 20e6},
		1:               {PID: 1, Comm: "init", Runtime: 5e6},
		trace.TID(gone): {PID: gone, Comm: "g", Runtime: 2e6},
	})
	want := map[trace.PID]string{self: now.Path, 1: "/autogroup-one", gone: "/autogroup-gone"}
	for pid, path := range want {
		if got := n.autogroups[pid]; got != path {
			t.Errorf("PID %d: autogroup %q, want %q", pid, got, path)
		}
	}
}
