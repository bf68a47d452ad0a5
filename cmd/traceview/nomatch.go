package main

import (
	"fmt"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// traceExtent gathers, while a command that does not rebuild the schedule
// (timehist, map, export, report) reads a trace, what the no-match message
// every command gives says of it (report.NoMatch, as latency's and
// stats'): its events, its sched_switch events, the span of its scheduler
// events, the CPUs with a sched_switch and the task names. observe is a
// trace.Tap's Observe.
type traceExtent struct {
	x    report.NoMatch
	cpus map[int]bool
	// meta and filter, when set, give the trace's cgroup paths for a
	// --cgroup that matched nothing (report.CgroupPaths).
	meta   *trace.Meta
	filter *schedule.Filter
}

func newTraceExtent() *traceExtent {
	return &traceExtent{cpus: map[int]bool{}}
}

func (x *traceExtent) observe(e *trace.Event) {
	if e.Kind.Scheduler() {
		x.x.SchedEvents++
	}
	pid := func(p trace.PID) int { return max(int(p), 0) }
	switch e.Kind {
	case trace.KindSwitch:
		x.x.Switches++
		x.cpus[int(e.CPU)] = true
		x.x.AddName(e.Comm, pid(e.PID), max(int(e.TID), 0))
		x.x.AddName(e.NextComm, pid(e.NextPID), max(int(e.NextTID), 0))
		x.x.AddThread(int(e.TID), int(e.PID))
		x.x.AddThread(int(e.NextTID), int(e.NextPID))
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime:
		x.x.AddName(e.Comm, pid(e.PID), max(int(e.TID), 0))
	case trace.KindComm, trace.KindExec:
		x.x.AddName(e.Comm, pid(e.PID), max(int(e.TID), 0))
		return
	default:
		return
	}
	if x.x.First == 0 || e.Time < x.x.First {
		x.x.First = e.Time
	}
	x.x.Last = max(x.x.Last, e.Time)
}

// noMatch is the no-match message (report.NoMatch.Message) for the filters
// given (as the user typed them, flag names included), the names asked
// for (comms) and the pids (--pid).
func (x *traceExtent) noMatch(given string, comms []string, pids []trace.PID) string {
	x.x.CPUs, x.x.PIDs = x.x.CPUs[:0], pids
	x.x.Cgroups = report.CgroupPaths(x.meta, x.filter)
	for c := range x.cpus {
		x.x.CPUs = append(x.x.CPUs, c)
	}
	return x.x.Message(given, comms)
}

// perfSeconds renders ns as perf prints a time: seconds with six digits.
func perfSeconds(ns int64) string { return fmt.Sprintf("%d.%06d", ns/1e9, ns%1e9/1e3) }

// addWindowNote adds to meta's warnings, when the --time window of f
// reaches outside the trace's scheduler events, the note that says so
// (report.NoMatch.WindowNote), which printWarnings prints first
// (answerKey) and a view's JSON holds. A command calls it when its
// filters matched something (the no-match message says the span
// otherwise).
func (x *traceExtent) addWindowNote(meta *trace.Meta, f *schedule.Filter) {
	if w, ok := x.x.WindowNote(f); ok && meta != nil {
		meta.Warnings.Add(w.Key, "%s", w.Message)
	}
}
