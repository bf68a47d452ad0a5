package replay

import (
	"strconv"

	"github.com/traceview/traceview/trace"
)

// sessionLeaderComm is the command name of setsid(1), util-linux: a task
// the trace shows under that name called setsid(2) before it exec'd its
// program, and so leads a new session.
const sessionLeaderComm = "setsid"

// inferSessions is the inference pass for autogroup sessions: with
// CONFIG_SCHED_AUTOGROUP and kernel.sched_autogroup_enabled (on by default),
// setsid(2) puts the caller in a new autogroup, a task group child of the
// root, which its descendants inherit (sched_autogroup_create_attach,
// kernel/sched/autogroup.c v6.18). A perf.data carries no autogroup, so
// the pass finds the session leaders the process tree shows (a task named
// "setsid" before its exec) and sets Task.Session on each leader and on
// every task forked below it; Groups then schedules those tasks in
// "/autogroup-LEADER" unless they run in a cgroup of their own (a task in a
// non-root cpu cgroup is never autogrouped: task_wants_autogroup) or
// Config.NoAutogroup. Sessions started before the trace, and setsid calls
// by programs that do not exec setsid(1), are not seen.
func inferSessions(m *Model) {
	if m.Meta.Autogroup < 0 {
		return // recorded with kernel.sched_autogroup_enabled = 0
	}
	for i := range m.Tasks {
		// At most len(m.Tasks) steps: a damaged trace may make the
		// parent links loop.
		for j, n := i, 0; j >= 0 && j < len(m.Tasks) && n <= len(m.Tasks); j, n = m.Tasks[j].Parent, n+1 {
			if m.Tasks[j].setsid {
				m.Tasks[i].Session = m.Tasks[j].TID
				m.Stats.SessionTasks++
				break
			}
		}
	}
}

// recordedAutogroups is the pass for the autogroups a recording read
// (traceview record: Meta.TaskAutogroups, from /proc/PID/autogroup): each
// task of the root cpu group whose process has one gets it as
// Task.Autogroup, which Groups schedules it in with the autogroup's
// recorded weight. Nothing when the recording says autogroup was off.
func recordedAutogroups(m *Model) {
	if m.Meta.Autogroup < 0 || len(m.Meta.TaskAutogroups) == 0 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		switch p := normPath(tk.Cgroup); {
		case trace.IsAutogroupPath(p):
			// The reader gave the process's events its autogroup's id
			// (trace.AutogroupCgroupID): it runs in the root cpu group.
			tk.Autogroup, tk.Cgroup = p, "/"
		case p == "/" && tk.PID > 0:
			tk.Autogroup = m.Meta.TaskAutogroups[tk.PID]
		}
	}
}

// sessionPath is the autogroup path of a task group Groups gives the tasks
// of the session led by leader.
func sessionPath(leader trace.TID) string { return "/autogroup-" + strconv.Itoa(int(leader)) }

// tracedSessionMinWait is the least mean scheduling delay, in ns, of the
// workload's tasks for inferTracedSession to read anything into the
// background tasks' delays: ten times the 0.1 ms a wakeup of an idle or
// lightly loaded CPU took on the recordings of ../shared/traces (the
// background tasks' mean delay where the workload waited less than 1 ms:
// 0.02-0.5 ms: SessionEvidence's background mean, computed for every
// trace there while this pass was written, 2026-12-04).
const tracedSessionMinWait = 1_000_000

// tracedSessionRatio bounds the background tasks' mean delay, as a
// fraction of the workload's, that one runqueue can explain, and
// tracedSessionMinQueue is the least number of the workload's runnable
// tasks per CPU, N, for which the test means anything. Under EEVDF with N
// runnable tasks of equal weight per CPU, a task that used its slice waits
// about N-1 of the others' runs for the CPU, and a woken task placed at
// the average vruntime (place_entity, kernel/sched/fair.c v6.18; lag 0)
// has a later deadline than about half of them: it waits about N/2 runs,
// half the workload's delay. In an autogroup the session competes as one
// entity with each root task, so a woken root task waits about one run of
// the session's: 1/(N-1) of the workload's delay. A quarter sits between
// the two for N >= 5; with fewer a woken task preempts or waits one run
// either way. N-1 is estimated as the workload's mean delay over its mean
// run (its run time over its recorded switch-ins).
const (
	tracedSessionRatio    = 4
	tracedSessionMinQueue = 5
)

// inferTracedSession is the inference pass for the session the trace was
// recorded from: with autogroup on (kernel.sched_autogroup_enabled, on by
// default), the recorder and the traced command run in the autogroup of
// the shell or service that started them, the kernel's threads in the
// root group (autogroups are children of the root task group; kthreads
// and init keep autogroup_default, the root: kernel/sched/autogroup.c
// v6.18). A perf.data says neither, but the delays show it: when the
// workload's tasks waited for a CPU at least tracedSessionMinWait and
// tracedSessionMinQueue-1 of their runs on average, and the tasks outside
// it, in the root cgroup, waited less than 1/tracedSessionRatio of that,
// one runqueue cannot explain the shares.
// The pass then puts the workload's tasks and the recorder (those in the
// root cgroup, not already in a setsid session) in the session
// "/autogroup-ROOT" (ROOT: the workload root's TID), and records the
// evidence in Model.TracedSession. Nothing is inferred without a workload
// root or when the recording says autogroup was off (Meta.Autogroup < 0);
// Config.NoAutogroup (--autogroup off) undoes it.
func (x *extractor) inferTracedSession() {
	m := x.m
	if m.WorkloadRoot < 0 || m.Meta.Autogroup < 0 || len(m.Meta.TaskAutogroups) > 0 {
		return // nothing to infer from, or the recording read the sessions
	}
	in := func(tk *Task) bool {
		return tk.Session == 0 && normPath(tk.Cgroup) == "/" && (tk.Workload || x.isRecorder(tk.Comm))
	}
	var ev SessionEvidence
	var wsum, bsum, run int64 // ns: the workload's and the others' delays, the workload's run time
	ins := 0                  // the workload's switch-ins
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if i >= len(x.st) || normPath(tk.Cgroup) != "/" || tk.Session != 0 || x.isRecorder(tk.Comm) {
			continue
		}
		s := &x.st[i]
		if !tk.Workload {
			bsum += s.waitSum
			ev.BackgroundWaits += s.waitN
			continue
		}
		wsum += s.waitSum
		ev.WorkloadWaits += s.waitN
		ins += s.ins
		for _, b := range tk.Bursts {
			run += b.Len
		}
	}
	if ev.WorkloadWaits == 0 || ev.BackgroundWaits == 0 || ins == 0 {
		return
	}
	ev.WorkloadWaitNS = wsum / int64(ev.WorkloadWaits)
	ev.BackgroundWaitNS = bsum / int64(ev.BackgroundWaits)
	ev.WorkloadRunNS = run / int64(ins)
	if ev.WorkloadWaitNS < tracedSessionMinWait || ev.WorkloadWaitNS < (tracedSessionMinQueue-1)*ev.WorkloadRunNS ||
		ev.BackgroundWaitNS*tracedSessionRatio >= ev.WorkloadWaitNS {
		return
	}
	ev.Leader = m.WorkloadRoot
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; in(tk) {
			tk.Session = ev.Leader
			ev.Tasks++
		}
	}
	m.TracedSession = ev
}

// SessionEvidence is what made inferTracedSession put the traced command
// in an autogroup session of its own (Model.TracedSession): the mean
// scheduling delays in ns, over how many waits, of the workload's tasks
// and of the other tasks in the root cgroup, and the workload's mean run.
type SessionEvidence struct {
	Leader           trace.TID `json:"leader,omitempty"` // 0: not inferred
	Tasks            int       `json:"tasks,omitempty"`
	WorkloadWaitNS   int64     `json:"workload_wait_ns,omitempty"`
	WorkloadWaits    int       `json:"workload_waits,omitempty"`
	WorkloadRunNS    int64     `json:"workload_run_ns,omitempty"` // mean run between switch-in and switch-out
	BackgroundWaitNS int64     `json:"background_wait_ns,omitempty"`
	BackgroundWaits  int       `json:"background_waits,omitempty"`
}
