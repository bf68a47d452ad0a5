package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// NoMatch is what the no-match message of every command (latency, stats,
// timehist, map, export, report) says of a trace whose filters matched
// nothing: the trace's events and sched_switch events, the span of its
// scheduler events, the CPUs with a sched_switch (all of them, --cpu or
// not: a capture of some CPUs has switches on those alone) and the task
// names closest to each --comm name.
type NoMatch struct {
	// SchedEvents: the trace's scheduler events (trace.Kind.Scheduler),
	// the same for a file whichever command reads it; Switches: its
	// sched_switch events.
	SchedEvents, Switches int64
	// First and Last are the scheduler events' span (ns); Last <= First
	// leaves the span out.
	First, Last int64
	CPUs        []int // CPUs with a sched_switch, any order
	// Names are the trace's task names, each with a process that had it
	// (the smallest pid > 0; 0 unknown), for a name no one can type
	// (CommArg); NameTIDs the one thread that had it (-1: several; absent
	// or 0: unknown).
	Names    map[string]int
	NameTIDs map[string]int
	// Threads maps the tid of each thread that is not its process's
	// leader (tid != pid) to its pid, and PIDs are the --pid values asked
	// for: a pid asked for that is such a thread's tid gets "--tid N
	// selects it" (--pid selects processes, as perf's --pid; a table with
	// -p shows threads by tid).
	Threads map[int]int
	PIDs    []trace.PID
	// Cgroups are the trace's cgroup paths (CgroupPaths), set when the
	// filters asked for cgroups (--cgroup): a path that names none of them
	// is the likely reason, and a perf --all-cgroups file's table is only
	// known once it has been read.
	Cgroups []string
}

// CgroupPaths returns the paths of meta's cgroup table, sorted, when f
// selects by cgroup (--cgroup); nil otherwise. It holds the table's lock
// (trace.Meta.CgroupsMu) while it copies.
func CgroupPaths(meta *trace.Meta, f *schedule.Filter) []string {
	if meta == nil || f == nil || f.Cgroups == nil {
		return nil
	}
	if meta.CgroupsMu != nil {
		meta.CgroupsMu.RLock()
		defer meta.CgroupsMu.RUnlock()
	}
	return slices.Sorted(maps.Values(meta.Cgroups))
}

// Message is the no-match message for the filters given (as the user typed
// them, flag names included) and the task names asked for (comms):
//
//	nothing matched the filters --comm sched-pip: the trace has 5105 scheduler events, 2023 of them sched_switch; it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1; closest task names: sched-pipe
func (x NoMatch) Message(given string, comms []string) string {
	return fmt.Sprintf("nothing matched the filters %s: %s", given, x.Extent(comms))
}

// Extent is Message after "nothing matched the filters GIVEN: ".
func (x NoMatch) Extent(comms []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the trace has %d scheduler events, %d of them sched_switch", x.SchedEvents, x.Switches)
	if x.Last > x.First {
		fmt.Fprintf(&b, "; it spans %s s to %s s", usecStamp(x.First), usecStamp(x.Last))
	}
	if len(x.CPUs) > 0 {
		cpus := slices.Sorted(slices.Values(x.CPUs))
		what := "CPUs"
		if len(cpus) == 1 {
			what = "CPU"
		}
		sep := ", "
		if x.Last <= x.First {
			sep = "; "
		}
		fmt.Fprintf(&b, "%ssched_switch on %s %s", sep, what, cpulist.Format(cpus))
	}
	var near []string
	seen := map[string]bool{}
	// Names as the tables print them (termsafe.Name), so that one typed
	// so, its control bytes escaped, finds its nearest too.
	names := make(map[string]bool, len(x.Names))
	raw := make(map[string]string, len(x.Names))
	for n := range x.Names {
		if n != "" {
			names[termsafe.Name(n)], raw[termsafe.Name(n)] = true, n
		}
	}
	for _, want := range comms {
		for _, p := range ClosestNames(termsafe.Name(want), names, 3) {
			// "x;y,z" typed unescaped is two names that both come
			// closest to it: name it once.
			if n := raw[p]; !seen[n] {
				seen[n] = true
				near = append(near, CommArg(n, x.Names[n], x.NameTIDs[n]))
			}
		}
	}
	if len(near) > 0 {
		fmt.Fprintf(&b, "; closest task names: %s", strings.Join(near, ", "))
	}
	for _, want := range comms {
		// A name the trace records (a rename record, a wakeup) that no
		// run of this view carries: the task held it only between its
		// switches, and a view that names a run by its switch-out (perf
		// sched timehist's rule) shows none under it (new-user pass 52
		// F1: timehist --comm flipB, 1 s spun as flipB).
		if _, ok := x.Names[want]; ok {
			who := ""
			if tid := x.NameTIDs[want]; tid > 0 {
				who = fmt.Sprintf(" (of tid %d)", tid)
			}
			fmt.Fprintf(&b, "; %s is a name the trace records%s that no sched_switch of these events gives: the task held it only between its switches, and this view names each run by the task's name at its switch-out; latency --comm counts the run time under each name", termsafe.Name(want), who)
		}
	}
	if len(x.Cgroups) > 0 {
		shown := x.Cgroups
		if len(shown) > 8 {
			shown = append(slices.Clip(shown[:8]), fmt.Sprintf("and %d more", len(x.Cgroups)-8))
		}
		fmt.Fprintf(&b, "; its cgroups: %s", strings.Join(shown, ", "))
	}
	for _, p := range x.PIDs {
		if leader, ok := x.Threads[int(p)]; ok {
			fmt.Fprintf(&b, "; %d is a thread of process %d, not a process: --tid %d selects it", p, leader, p)
		}
	}
	return b.String()
}

// AddThread records that thread tid belongs to process pid, for Message's
// --tid hint; a leader (tid == pid) or an unknown pid is no thread.
func (x *NoMatch) AddThread(tid, pid int) {
	if tid <= 0 || pid <= 0 || tid == pid {
		return
	}
	if x.Threads == nil {
		x.Threads = map[int]int{}
	}
	x.Threads[tid] = pid
}

// Unmatched is a trace's no-match message in parts, for a caller that
// says one message for several traces (CompareNoMatch): the filters given
// (as the user typed them), the task names asked for, and what the trace
// holds.
type Unmatched struct {
	Given string
	Comms []string
	X     NoMatch
}

// Message is the trace's no-match message (NoMatch.Message).
func (u *Unmatched) Message() string { return u.X.Message(u.Given, u.Comms) }

// CompareNoMatch is compare's one no-match message for traces A and B
// (named nameA and nameB) whose filters matched nothing in a, b or both (nil:
// they matched), and false when they matched in both:
//
//	nothing matched the filters --comm x in B, b.perf.data (they did in A): the trace has 1626 scheduler events, ...
//	nothing matched the filters --comm x in either trace: in A, a.perf.data, the trace has 5105 scheduler events, ...; in B, b.perf.data, the trace has 1626 scheduler events, ...
func CompareNoMatch(a, b *Unmatched, nameA, nameB string) (string, bool) {
	switch {
	case a == nil && b == nil:
		return "", false
	case b == nil:
		return fmt.Sprintf("nothing matched the filters %s in A, %s (they did in B): %s", a.Given, nameA, a.X.Extent(a.Comms)), true
	case a == nil:
		return fmt.Sprintf("nothing matched the filters %s in B, %s (they did in A): %s", b.Given, nameB, b.X.Extent(b.Comms)), true
	}
	given := a.Given
	if b.Given != a.Given {
		// --time resolves against each trace: say both.
		given = fmt.Sprintf("%s (A) and %s (B)", a.Given, b.Given)
	}
	return fmt.Sprintf("nothing matched the filters %s in either trace: in A, %s, %s; in B, %s, %s",
		given, nameA, a.X.Extent(a.Comms), nameB, b.X.Extent(b.Comms)), true
}

// AddName records that thread tid of process pid (0 unknown) had task
// name comm, for Message's closest names: of each name, the smallest pid
// > 0 is kept, and the thread when it is the only one (NameTIDs).
func (x *NoMatch) AddName(comm string, pid, tid int) {
	if x.Names == nil {
		x.Names, x.NameTIDs = map[string]int{}, map[string]int{}
	}
	if p, ok := x.Names[comm]; !ok || (pid > 0 && (p == 0 || pid < p)) {
		x.Names[comm] = pid
	}
	switch t, ok := x.NameTIDs[comm]; {
	case !ok || t == 0:
		x.NameTIDs[comm] = tid
	case tid > 0 && t != tid:
		x.NameTIDs[comm] = -1
	}
}

// noMatchOf is the NoMatch of the trace the schedule sb rebuilt, of events
// events and switches sched_switch events.
func noMatchOf(sb *schedule.Builder, events, switches int64) NoMatch {
	x := NoMatch{SchedEvents: events, Switches: switches}
	x.First, x.Last = sb.Observed()
	for _, c := range sb.SwitchCPUs() {
		x.CPUs = append(x.CPUs, int(c))
	}
	for _, t := range sb.Tasks() {
		if t.Comm != "" {
			x.AddName(t.Comm, int(t.PID), int(t.TID))
		}
		x.AddThread(int(t.TID), int(t.PID))
	}
	return x
}

// TimeOutsideKey is the key of the warning WindowNote makes; the commands
// print it first, in full, as they do the no-match message.
const TimeOutsideKey = "time-outside-trace"

// WindowNote says, of a --time window given in seconds (f.Relative false)
// that reaches before the first or after the last of the trace's
// scheduler events (x.First, x.Last: the span every report covers), how
// far, and the window the report then covers: a window wider than the
// trace reads the same as the trace, and a report compared with another
// of the asked window (top's, a second recording's) looks wrong without it
// (new-user pass 109 F1: --time 84 ms before a capture began gave 5-6 %
// less than top's window, without a word). ok is false when the window
// lies inside the span, when f has no window, and when the span is unknown
// (Last <= First) or outside the window (the no-match message says that):
//
//	--time 54164.000000000,54166.435799000 starts 515.992 ms before the trace's first scheduler event: the report covers 54164.515992 s to 54166.435799 s, 1919.807 ms of the 2435.799 ms asked
func (x NoMatch) WindowNote(f *schedule.Filter) (trace.Warning, bool) {
	if f == nil || f.Relative || (f.Start == 0 && f.End == 0) || x.Last <= x.First {
		return trace.Warning{}, false
	}
	before := f.Start != 0 && f.Start < x.First
	after := f.End != 0 && f.End > x.Last
	from, to := x.First, x.Last
	if f.Start != 0 {
		from = max(from, f.Start)
	}
	if f.End != 0 {
		to = min(to, f.End)
	}
	if !before && !after || to < from {
		return trace.Warning{}, false
	}
	var parts []string
	if before {
		parts = append(parts, fmt.Sprintf("starts %.3f ms before the trace's first scheduler event", ms(x.First-f.Start)))
	}
	switch {
	case after && before:
		parts = append(parts, fmt.Sprintf("ends %.3f ms after its last", ms(f.End-x.Last)))
	case after:
		parts = append(parts, fmt.Sprintf("ends %.3f ms after the trace's last scheduler event", ms(f.End-x.Last)))
	}
	window := (&schedule.Filter{Start: f.Start, End: f.End}).String() // "--time A,B"
	msg := fmt.Sprintf("%s %s: the report covers %s s to %s s", window, strings.Join(parts, " and "), usecStamp(from), usecStamp(to))
	if f.Start != 0 && f.End != 0 {
		msg += fmt.Sprintf(", %.3f ms of the %.3f ms asked", ms(to-from), ms(f.End-f.Start))
	}
	return trace.Warning{Key: TimeOutsideKey, Count: 1, Message: msg}, true
}
