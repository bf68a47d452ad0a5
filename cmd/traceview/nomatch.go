package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// traceExtent gathers, while a view (timehist, map) reads a trace, what a
// no-match message says of it, as latency's does (report's filterExtent):
// its events, its sched_switch events, the span of its scheduler events,
// the CPUs with a sched_switch and the task names. observe is a
// trace.Tap's Observe.
type traceExtent struct {
	events, switches int64
	first, last      int64
	cpus             map[int]bool
	names            map[string]bool
}

func newTraceExtent() *traceExtent {
	return &traceExtent{cpus: map[int]bool{}, names: map[string]bool{}}
}

func (x *traceExtent) observe(e *trace.Event) {
	x.events++
	switch e.Kind {
	case trace.KindSwitch:
		x.switches++
		x.cpus[int(e.CPU)] = true
		x.names[e.Comm], x.names[e.NextComm] = true, true
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime:
		x.names[e.Comm] = true
	case trace.KindComm, trace.KindExec:
		x.names[e.Comm] = true
		return
	default:
		return
	}
	if x.first == 0 || e.Time < x.first {
		x.first = e.Time
	}
	x.last = max(x.last, e.Time)
}

// noMatch is the no-match message every view gives, in latency's shape:
// "nothing matched the filters GIVEN: the trace has N events, M of them
// sched_switch; it spans A s to B s, sched_switch on CPUs C; closest task
// names: ...". given is the filters as the user typed them (the flag
// names included); comms the names asked for.
func (x *traceExtent) noMatch(given string, comms []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "nothing matched the filters %s: the trace has %d events, %d of them sched_switch", given, x.events, x.switches)
	if x.last > x.first {
		fmt.Fprintf(&b, "; it spans %s s to %s s", perfSeconds(x.first), perfSeconds(x.last))
	}
	if len(x.cpus) > 0 {
		cpus := make([]int, 0, len(x.cpus))
		for c := range x.cpus {
			cpus = append(cpus, c)
		}
		sort.Ints(cpus)
		what := "CPUs"
		if len(cpus) == 1 {
			what = "CPU"
		}
		fmt.Fprintf(&b, ", sched_switch on %s %s", what, cpulist.Format(cpus))
	}
	delete(x.names, "")
	var near []string
	seen := map[string]bool{}
	for _, want := range comms {
		for _, n := range report.ClosestNames(want, x.names, 3) {
			if !seen[n] { // each name once, as --comm takes it (as latency's)
				seen[n] = true
				near = append(near, report.CommArg(n, 0))
			}
		}
	}
	if len(near) > 0 {
		fmt.Fprintf(&b, "; closest task names: %s", strings.Join(near, ", "))
	}
	return b.String()
}

// perfSeconds renders ns as perf prints a time: seconds with six digits.
func perfSeconds(ns int64) string { return fmt.Sprintf("%d.%06d", ns/1e9, ns%1e9/1e3) }
