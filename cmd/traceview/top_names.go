package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// topNameEvery is how often top reads the tasks' names within a window
// (topNames): the in-kernel totals keep one name per task, its name at its
// latest switch (ebpf/sched.c stat_of), so a task renamed within a window
// would count its whole window under its last name (new-user pass 51 F1:
// 1.5 s spun as alpha_spin shown as beta_sleep, which only slept). A
// reading costs one pass over the totals map (Top.Snapshot); the run time
// between two readings is given to the name at the second (observe), so
// each rename moves up to this much run time to the wrong name: a task
// that renamed itself every 50 ms while spinning read 1399.5 ms under one
// of its two names where it ran 1000 (new-user pass 52 F3), which the note
// says.
const topNameEvery = 100_000_000 // ns

// topProcCommRun is the run time since the last reading (ns) past which
// observe reads a task's name from /proc: at most CPUs × topNameEvery /
// topProcCommRun tasks can have run so long, 20 reads per reading on 2
// CPUs, where reading every task's would cost a read per task.
const topProcCommRun = 10_000_000

// procComm is task tid's name now (/proc/TID/comm), or comm when it cannot
// be read (the task exited).
func procComm(tid trace.TID, comm string) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(tid)) + "/comm")
	if err != nil || len(b) == 0 {
		return comm
	}
	return strings.TrimSuffix(string(b), "\n")
}

// topNames follows the tasks' names through a window from readings of the
// totals (observe), and gives the tasks seen under more than one name in
// it each name's run time and switches in (renamed).
type topNames struct {
	tasks map[trace.TID]*topNamesOf
	// autogroups, when not nil (top --by cgroup with the autogroup sysctl
	// on), is each process's autogroup path as last read by observe ("":
	// none), for topAutogroups to use when the process is gone by the
	// window's end (new-user pass 85 F1: a setsid session that ended
	// inside the window read as "/"). observe reads it again for a process
	// that ran since the last reading: one first read between its fork and
	// its setsid() kept its parent's session (new-user pass 86 F3: a
	// session's 340 ms counted in the shell's, no row of its own).
	autogroups map[trace.PID]string
}

// topNamesOf is one task's: its name and totals at the latest reading, its
// totals at the window's start, and, once renamed in the window, each
// name's share.
type topNamesOf struct {
	comm                string
	runtime, switches   int64
	runtime0, switches0 int64
	names               map[string]nameUse
}

// start begins a window at the snapshot that opens it.
func (n *topNames) start(before map[trace.TID]ebpf.TaskStat) {
	n.tasks = make(map[trace.TID]*topNamesOf, len(before))
	for tid, s := range before {
		n.tasks[tid] = &topNamesOf{comm: s.Comm, runtime: s.Runtime, switches: s.Switches, runtime0: s.Runtime, switches0: s.Switches}
	}
}

// observe takes a reading: each task's run time and switches in since the
// last go to the name it has now (a task first seen now: all its totals,
// in this window). A rename between two readings splits that interval at
// an unknown point; most renames are an exec, early in a child's life,
// after which the new program runs (given to the old name, a shell's
// forks counted 60-122 ms of the programs they exec'd as bash). The totals' name is the one at the
// task's latest switch, which a task that runs on without one does not
// update (a prctl in a spin loop: its next 506 ms still read as the old
// name, measured); a task that ran topProcCommRun since the last reading
// is named by /proc instead, its name now.
func (n *topNames) observe(snap map[trace.TID]ebpf.TaskStat) {
	var readNow map[trace.PID]bool
	for tid, s := range snap {
		t := n.tasks[tid]
		if n.autogroups != nil && s.PID > 0 && !readNow[s.PID] {
			if _, read := n.autogroups[s.PID]; !read || t == nil || s.Runtime > t.runtime {
				if readNow == nil {
					readNow = map[trace.PID]bool{}
				}
				readNow[s.PID] = true
				if ag, ok := ebpf.ReadAutogroup("/proc", s.PID); ok || !read {
					n.autogroups[s.PID] = ag.Path // (gone since: as last read)
				}
			}
		}
		if t == nil {
			t = &topNamesOf{comm: s.Comm}
			n.tasks[tid] = t
		}
		if s.Runtime-t.runtime >= topProcCommRun {
			s.Comm = procComm(tid, s.Comm)
		}
		use := nameUse{max(s.Switches-t.switches, 0), max(s.Runtime-t.runtime, 0)}
		switch {
		case t.names != nil:
			t.names[s.Comm] = t.names[s.Comm].add(use)
		case s.Comm != t.comm:
			t.names = map[string]nameUse{t.comm: {max(t.switches-t.switches0, 0), max(t.runtime-t.runtime0, 0)}}
			t.names[s.Comm] = t.names[s.Comm].add(use)
		}
		t.comm, t.runtime, t.switches = s.Comm, s.Runtime, s.Switches
	}
}

// note is the stderr line naming the tasks of the window that did real work
// under names other than their last (renamedList's rule), which their
// rows carry, "" when none, and how many it names.
func (n *topNames) note() (string, int) {
	runs := nameRuns{}
	var rows []report.LatencyRow
	for tid, t := range n.tasks {
		if t.names != nil {
			runs[tid] = t.names
			rows = append(rows, report.LatencyRow{Comm: t.comm, TID: tid, NrTasks: 1})
		}
	}
	if list, k := renamedList(rows, runs); list != "" {
		return "renamed during the window, so counted under their last name: " + list + " (top reads the names every 100 ms, so each interval between readings counts under the name at its end: a task that renames itself more often is split at the readings, not at its renames; traceview record keeps each rename)", k
	}
	return "", 0
}
