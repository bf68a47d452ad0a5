package replay

import (
	"path"
	"slices"
	"strings"
)

// perfExecComm is the name perf record gives the child it forks for the
// traced command, from the fork until its execvp (tools/perf/util/evlist.c,
// evlist__prepare_workload: prctl(PR_SET_NAME, "perf-exec")). perf forks it
// before it enables the events, so the fork itself is not in the trace.
const perfExecComm = "perf-exec"

// findWorkload finds the traced command (Model.WorkloadRoot): the task the
// recorder's fork names (extractor.fork), else perf record's child seen
// under perfExecComm, else the first task named after the command of the
// recorder's command line, else guessRoot's pick; and marks its process
// tree as the workload.
func (x *extractor) findWorkload() {
	m := x.m
	if m.WorkloadRoot < 0 && x.perfExec > 0 && x.recordedBy("perf") {
		// Before the name match: with "perf sched record -- perf bench
		// ...", the first task named "perf" is the recorder itself. (Not
		// when another program recorded the trace: a perf record
		// started beside it has a perf-exec child of its own.)
		m.WorkloadRoot = m.Tasks[x.perfExec-1].TID
		m.Tasks[x.perfExec-1].Workload = true
	}
	if m.WorkloadRoot < 0 {
		x.recorderChild()
	}
	if m.WorkloadRoot < 0 && m.commandBeforeTrace() {
		// traceview record forks its command once the capture runs: a
		// file without that fork starts after it (a later file of a
		// --rotate series, a --ring dump). Its process tree cannot be
		// told from the tasks in the file (they come without their
		// forks), and a guess picked one short-lived child as the whole
		// workload ("makespan 6.5 ms" for a file of 500 ms of the
		// command's work): the workload is every task, as in a capture
		// of the whole system.
		m.CommandBefore = true
		return
	}
	if m.WorkloadRoot < 0 {
		// The recorder's command line: "perf sched record ... -- CMD ARGS";
		// the traced command is the first task named after CMD.
		args := m.Meta.Cmdline
		for k := 0; k+1 < len(args); k++ {
			if args[k] != "--" {
				continue
			}
			cmd := path.Base(args[k+1])
			for i := range m.Tasks {
				if c := m.Tasks[i].Comm; c == cmd || len(cmd) > 15 && c == cmd[:15] {
					m.WorkloadRoot = m.Tasks[i].TID
					m.Tasks[i].Workload = true
					break
				}
			}
			// CMD may exec another command before any event names it
			// (taskset -c 0 sh -c ..., nice, chrt, env, timeout): the
			// traced command is then the first task named after a later
			// word of the command line.
			for _, a := range args[k+2:] {
				if m.WorkloadRoot >= 0 {
					break
				}
				w := path.Base(a)
				for i := range m.Tasks {
					if c := m.Tasks[i].Comm; c != "" && (c == w || len(w) > 15 && c == w[:15]) && m.Tasks[i].Init != InitForked {
						m.WorkloadRoot = m.Tasks[i].TID
						m.Tasks[i].Workload = true
						break
					}
				}
			}
			break
		}
	}
	if m.WorkloadRoot < 0 && !m.NoCommand() {
		x.guessRoot()
	}
	// Workload membership through forks (parents precede children).
	for i := range m.Tasks {
		if p := m.Tasks[i].Parent; p >= 0 && m.Tasks[p].Workload {
			m.Tasks[i].Workload = true
		}
	}
}

// commandBeforeTrace reports whether the trace is a traceview record
// capture of a command (its command line has "--"), whose fork of it the
// file must then hold unless the command started before the file did.
func (m *Model) commandBeforeTrace() bool {
	return strings.HasPrefix(m.Meta.Tool, "traceview record") && slices.Contains(m.Meta.Cmdline, "--")
}

// NoCommand reports whether the recorder's command line says that no
// command was traced: traceview record takes a command only after "--"
// (a system-wide capture, "traceview record -d 2s -o t.tv", has none),
// so guessing one would present another user's process as the workload.
func (m *Model) NoCommand() bool {
	return strings.HasPrefix(m.Meta.Tool, "traceview record") && len(m.Meta.Cmdline) > 0 && !slices.Contains(m.Meta.Cmdline, "--")
}

// recorderChild takes for the traced command the first task the recorder
// forked inside the trace that then exec'd (its name is no longer the
// recorder's): traceview record starts its command that way, and a wrapper
// (cgrun, sh -c, taskset) leaves no task named after the command line's
// first word. A child that kept the recorder's name and did not exec is
// not it (Go's runtime forks a short-lived child to probe for pidfd
// support); one that exec'd a program named like a recorder is (`record
// -- perf stat -- CMD`: new-user pass 22 F7 found no traced command, and
// said it had started before the trace).
func (x *extractor) recorderChild() {
	m := x.m
	hasCmd := false
	for _, a := range m.Meta.Cmdline {
		hasCmd = hasCmd || a == "--"
	}
	if !hasCmd {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Init != InitForked || tk.Parent < 0 || x.isRecorder(tk.Comm) && !tk.execd || !x.recordedBy(m.Tasks[tk.Parent].Comm) {
			continue
		}
		m.WorkloadRoot = tk.TID
		tk.Workload = true
		return
	}
}

// guessRoot picks the traced command when the trace does not name it (no
// recorder fork, no command line, e.g. trace-cmd extract or raw ftrace): the
// task forked inside the trace, by a task that was not itself forked inside
// it, whose process tree used the most CPU time.
func (x *extractor) guessRoot() {
	m := x.m
	cpu := make([]int64, len(m.Tasks))
	for i := len(m.Tasks) - 1; i >= 0; i-- { // children follow parents
		for _, b := range m.Tasks[i].Bursts {
			cpu[i] += b.Len
		}
		if p := m.Tasks[i].Parent; p >= 0 {
			cpu[p] += cpu[i]
		}
	}
	best := -1
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Init != InitForked || tk.Parent < 0 || m.Tasks[tk.Parent].Init == InitForked {
			continue
		}
		if best < 0 || cpu[i] > cpu[best] {
			best = i
		}
	}
	if best >= 0 {
		m.WorkloadRoot = m.Tasks[best].TID
		m.Tasks[best].Workload = true
	}
}
