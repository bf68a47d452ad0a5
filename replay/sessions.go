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

// sessionPath is the autogroup path of a task group Groups gives the tasks
// of the session led by leader.
func sessionPath(leader trace.TID) string { return "/autogroup-" + strconv.Itoa(int(leader)) }
