package schedule

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
)

// Filter selects what a Builder reports (Options.Filter): the one
// implementation of the --time, --cpu, --pid, --tid and --comm options of
// every command built on the reconstruction (latency, stats, report,
// export, compare). The schedule is still reconstructed from every event (a
// wakeup on another CPU, or before the window, still starts the delay it
// starts); the filter applies to what is reported:
//
//   - a Delay is reported when its task matches, it was switched in on one
//     of CPUs and its switch-in (End) is in the window;
//   - a sched_stat_runtime (Hooks.Runtime, Task.StatRuntime) when its task
//     matches and it was recorded on one of CPUs, clipped to the window
//     as the run it accounts (clipRuntime);
//   - a Run (and the running Interval and Task.OnCPU it gives) when its CPU
//     is one of CPUs, clipped to the window; runs are per-CPU facts, so the
//     task filter does not remove them from Hooks.Run and CPUStats (it does
//     from the running intervals and Task.OnCPU);
//   - a runnable or sleeping Interval when its task matches (runnable: and
//     it waited on one of CPUs), clipped to the window;
//   - a switch-in (Task.Switches, CPUStats.Switches), a wakeup (its target
//     CPU) and a migration (its source or destination CPU) when its task,
//     CPU and time match;
//   - a runqueue length (Hooks.Runqueue) when its CPU matches, inside the
//     window (the length at the window's start is reported at the start).
//
// Builder.CPUs lists only CPUs, and Builder.Span is clipped to the window.
// Counters describe the whole trace, except the lossy counts, which count
// only what the filter keeps.
//
// A task matches when each list given names it (perf's thread filter,
// tools/perf/util/thread.c thread__is_filtered): its tgid in PIDs, its tid
// in TIDs, its name at the time of the event in Comms, its cgroup (as of
// its last switch-out) in Cgroups.
type Filter struct {
	// Start and End bound the window in trace ns, both inclusive (perf's
	// perf_time__skip_sample); 0 leaves a side open.
	Start, End int64
	// Relative says the window was given as a share of the trace's span
	// (--time 10%/2, resolved against the file's first and last sample
	// times): it lies inside the trace by construction, so the reports
	// do not say that it reaches outside (report.NoMatch.WindowNote).
	Relative bool
	CPUs     []trace.CPU // nil: every CPU
	PIDs     []trace.PID // nil: every process
	TIDs     []trace.TID // nil: every thread
	Comms    []string    // nil: every name
	// Cgroups are cgroup v2 ids (Task.Cgroup); nil: every task. A task
	// whose cgroup is not known yet matches none, but the Builder holds
	// its delays and sched_stat_runtime back until a switch-out names its
	// cgroup, and decides them then (a new task's first wait). CgroupNames, when
	// set, is what String shows for them (the paths asked for).
	Cgroups     []uint64
	CgroupNames []string
	// CgroupLookup, when set (with Cgroups non-nil and CgroupNames the
	// paths asked for), resolves an id that Cgroups does not list the
	// first time a task shows it: the id is selected when its path is one
	// of CgroupNames or below one ("/" selects every path). It serves a
	// cgroup table that grows while the trace is read (trace.Meta.CgroupPath
	// of perf record --all-cgroups files), so Cgroups may start empty. An
	// id it does not know yet matches nothing and is asked again later.
	CgroupLookup func(id uint64) (path string, ok bool)

	compiled bool
	cpuSet   []bool
	pidSet   map[trace.PID]bool
	tidSet   map[trace.TID]bool
	commSet  map[string]bool
	cgSet    map[uint64]bool
	late     *sync.Map // cgroup id -> bool: lookup's decisions
}

// Active reports whether f selects anything less than the whole trace; a
// nil Filter selects everything.
func (f *Filter) Active() bool {
	return f != nil && (f.Start != 0 || f.End != 0 || f.CPUs != nil || f.PIDs != nil || f.TIDs != nil || f.Comms != nil || f.Cgroups != nil)
}

// String describes f for people, e.g. "--time 1.000000000,2.000000000 --cpu
// 0 --comm sched-pipe" ("" when f selects everything).
func (f *Filter) String() string {
	if !f.Active() {
		return ""
	}
	s := ""
	add := func(format string, args ...any) {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf(format, args...)
	}
	if f.Start != 0 || f.End != 0 {
		sec := func(ns int64) string {
			if ns == 0 {
				return ""
			}
			return trace.FormatSeconds(ns, 9)
		}
		add("--time %s,%s", sec(f.Start), sec(f.End))
	}
	if f.CPUs != nil {
		add("--cpu %v", join(f.CPUs))
	}
	if f.PIDs != nil {
		add("--pid %v", join(f.PIDs))
	}
	if f.TIDs != nil {
		add("--tid %v", join(f.TIDs))
	}
	if f.Comms != nil {
		comms := make([]string, len(f.Comms))
		for i, c := range f.Comms {
			comms[i] = EscapeComm(c) // (a tab typed in stays off the terminal)
		}
		add("--comm %v", join(comms))
	}
	if f.CgroupNames != nil {
		add("--cgroup %v", join(f.CgroupNames))
	} else if f.Cgroups != nil {
		add("--cgroup %v", join(f.Cgroups))
	}
	return s
}

// EscapeComm writes a task name as the --comm list takes it: as the
// tables print it (termsafe.Label: a backslash as `\\`, a TAB as `\t`, other
// control bytes and invalid UTF-8 as `\xHH`, a space at either end as
// `\x20`, which the list would trim; new-user pass 42 F4) with a comma as
// `\,`.
func EscapeComm(comm string) string { return strings.ReplaceAll(termsafe.Label(comm), ",", `\,`) }

func join[T any](vs []T) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(v)
	}
	return s
}

// compile returns a copy of f with its lists turned into sets (f itself is
// never changed, so one Filter may serve Builders in several goroutines);
// nil stays nil.
func (f *Filter) compile() *Filter {
	if f == nil || f.compiled {
		return f
	}
	f = &Filter{Start: f.Start, End: f.End, CPUs: f.CPUs, PIDs: f.PIDs, TIDs: f.TIDs, Comms: f.Comms,
		Cgroups: f.Cgroups, CgroupNames: f.CgroupNames, CgroupLookup: f.CgroupLookup, compiled: true}
	if f.CPUs != nil {
		f.cpuSet = []bool{}
		for _, c := range f.CPUs {
			if c < 0 {
				continue
			}
			for len(f.cpuSet) <= int(c) {
				f.cpuSet = append(f.cpuSet, false)
			}
			f.cpuSet[c] = true
		}
	}
	if f.PIDs != nil {
		f.pidSet = map[trace.PID]bool{}
		for _, p := range f.PIDs {
			f.pidSet[p] = true
		}
	}
	if f.TIDs != nil {
		f.tidSet = map[trace.TID]bool{}
		for _, t := range f.TIDs {
			f.tidSet[t] = true
		}
	}
	if f.Comms != nil {
		f.commSet = map[string]bool{}
		for _, c := range f.Comms {
			f.commSet[c] = true
		}
	}
	if f.Cgroups != nil {
		if f.CgroupLookup != nil {
			f.late = &sync.Map{}
		}
		f.cgSet = map[uint64]bool{}
		for _, c := range f.Cgroups {
			f.cgSet[c] = true
		}
	}
	return f
}

// CPU reports whether cpu is selected (an unknown CPU, -1, is not when
// CPUs is given).
func (f *Filter) CPU(cpu trace.CPU) bool {
	if f == nil || f.CPUs == nil {
		return true
	}
	if !f.compiled {
		return slices.Contains(f.CPUs, cpu)
	}
	return cpu >= 0 && int(cpu) < len(f.cpuSet) && f.cpuSet[cpu]
}

// Time reports whether t (ns) is inside the window.
func (f *Filter) Time(t int64) bool {
	return f == nil || ((f.Start == 0 || t >= f.Start) && (f.End == 0 || t <= f.End))
}

// Task reports whether t matches the task lists (see Filter). A nil task
// matches only when no task list is given.
func (f *Filter) Task(t *Task) bool {
	if f == nil || (f.PIDs == nil && f.TIDs == nil && f.Comms == nil && f.Cgroups == nil) {
		return true
	}
	if t == nil {
		return false
	}
	return f.TaskIDs(t.TID, t.PID, t.Comm, t.Cgroup)
}

// TaskIDs is Task for a task given by its tid, tgid (-1 unknown: no PIDs
// match it), name and cgroup id (0 unknown: no Cgroups match it).
func (f *Filter) TaskIDs(tid trace.TID, pid trace.PID, comm string, cgroup uint64) bool {
	if f == nil {
		return true
	}
	if !f.compiled {
		return (f.PIDs == nil || slices.Contains(f.PIDs, pid)) && (f.TIDs == nil || slices.Contains(f.TIDs, tid)) &&
			(f.Comms == nil || slices.Contains(f.Comms, comm)) && (f.Cgroups == nil || cgroup != 0 && (slices.Contains(f.Cgroups, cgroup) || f.lookup(cgroup)))
	}
	if f.pidSet != nil && !f.pidSet[pid] {
		return false
	}
	if f.tidSet != nil && !f.tidSet[tid] {
		return false
	}
	if f.commSet != nil && !f.commSet[comm] {
		return false
	}
	if f.cgSet != nil && (cgroup == 0 || !f.cgSet[cgroup] && !f.lookup(cgroup)) {
		return false
	}
	return true
}

// lookup decides a cgroup id that Cgroups does not list by its path
// (CgroupLookup), remembering the answer once the path is known (in a
// compiled filter: its Builders may run in several goroutines).
func (f *Filter) lookup(id uint64) bool {
	if f.CgroupLookup == nil {
		return false
	}
	if f.late != nil {
		if in, ok := f.late.Load(id); ok {
			return in.(bool)
		}
	}
	p, ok := f.CgroupLookup(id)
	if !ok {
		return false
	}
	in := slices.ContainsFunc(f.CgroupNames, func(want string) bool { return CgroupBelow(p, want) })
	if f.late != nil {
		f.late.Store(id, in)
	}
	return in
}

// Event reports whether an event of task t recorded on cpu at time at
// (ns) is selected.
func (f *Filter) Event(t *Task, cpu trace.CPU, at int64) bool {
	return f.Time(at) && f.CPU(cpu) && f.Task(t)
}

// Clip returns [start, end] (ns) clipped to the window, and false when
// nothing of it is left.
func (f *Filter) Clip(start, end int64) (int64, int64, bool) {
	if f != nil {
		if f.Start != 0 {
			start = max(start, f.Start)
		}
		if f.End != 0 {
			end = min(end, f.End)
		}
	}
	return start, end, end > start
}

// clipRuntime returns the time and run time of sched_stat_runtime e
// clipped to the window, and whether any of it is inside. e accounts the task's run of e.Runtime ns
// that ended at e.Time (update_curr charges now − exec_start, and
// exec_start is set when the task is switched in and at each update:
// kernel/sched/fair.c v6.18), so it is taken as the run [e.Time −
// e.Runtime, e.Time] on its CPU, and only the part inside the window is
// kept, ending at the window's end when the run goes past it: a run that
// began before the window, or is recorded after it, counts what it ran
// inside, and the window's run time is at most its length per CPU. (Time
// the clock of run time leaves out, interrupts under
// IRQ_TIME_ACCOUNTING, makes the run start a little later than it did:
// the clip may keep a little less than it ran in the window, never more.)
func (f *Filter) clipRuntime(e *trace.Event) (at, runtime int64, in bool) {
	if f == nil || f.Start == 0 && f.End == 0 {
		return e.Time, e.Runtime, true
	}
	if e.Runtime <= 0 {
		return e.Time, e.Runtime, f.Time(e.Time)
	}
	start, end, ok := f.Clip(e.Time-e.Runtime, e.Time)
	if !ok {
		return e.Time, e.Runtime, false
	}
	return end, end - start, true
}

// Filter returns the Builder's filter (nil: none): a copy of
// Options.Filter prepared for fast matching. A nil Builder has none.
func (b *Builder) Filter() *Filter {
	if b == nil {
		return nil
	}
	return b.opts.Filter
}

// Undecided reports whether the filter cannot judge t yet: it selects by
// cgroup and t's is not known (0), or by PID and t's is not (-1). The
// Builder holds such a task's delays until an event says them. A nil
// filter judges every task.
func (f *Filter) Undecided(t *Task) bool {
	return f != nil && (f.Cgroups != nil && t.Cgroup == 0 || f.PIDs != nil && t.PID < 0)
}

// CgroupBelow reports whether cgroup path is want or below it ("/" is
// above every path): what --cgroup selects.
func CgroupBelow(path, want string) bool {
	return path == want || want == "/" || strings.HasPrefix(path, want+"/")
}
