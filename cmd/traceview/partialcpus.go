package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

// partialCPUsKey is the warning every command that reads a trace gives when
// the trace holds sched_switch events of fewer CPUs than the machine had
// online (record --cpu, perf record -C): what ran on the others is missing.
const partialCPUsKey = "partial-cpus"

// watchCPUs wraps src so that, when the stream ends, the CPUs that had a
// sched_switch are compared with the machine's online CPUs (Meta.NrCPUs)
// and, when fewer, the partial-cpus warning is added to src's Meta (once).
// A source whose Meta names no CPU count is left alone.
func watchCPUs(src trace.Source) trace.Source {
	var seen []bool
	var last int64 // (the time of the latest event read, for stopAtInterrupt)
	return &trace.Tap{
		Source: src,
		Stop:   stopAtInterrupt(src.Meta, &last),
		Observe: func(e *trace.Event) {
			last = max(last, e.Time)
			if e.Kind != trace.KindSwitch || e.CPU < 0 {
				return
			}
			c := int(e.CPU)
			if c >= len(seen) {
				if c > 1<<16 {
					return
				}
				seen = append(seen, make([]bool, c+1-len(seen))...)
			}
			seen[c] = true
		},
		End: func(err error) {
			if err != io.EOF {
				return
			}
			m := src.Meta()
			if m == nil {
				return
			}
			if slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == partialCPUsKey }) {
				return // a converted file carries its source's (once, not "2 times")
			}
			// A file that names its recorded CPUs in its header (traceview
			// record --cpu) holds the migrations off them that any CPU
			// emitted (ebpf's cpu_wanted).
			// The reader skipped records as damaged: they may have been
			// the missing CPUs' (a flipped attr id dropped CPU 0's 1546
			// samples and the advice said "record all CPUs", new-user
			// pass 16 F7).
			skipped := slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == "unknown-sample-id" || cutOrDamaged(w.Key) })
			msg := partialCPUsMessage(seen, m.NrCPUs, m.Cut(), skipped, m.Format, len(m.RecordedCPUs) > 0)
			if msg != "" && strings.HasPrefix(m.Tool, "traceview record") && trace.RecordedCPUs(m) == nil && !m.Cut() {
				// Every CPU was recorded: a CPU without a switch ran one
				// task throughout, or idled (new-user pass 14: "record
				// all CPUs" on a capture of all of them).
				msg = quietCPUsMessage(seen, m.NrCPUs)
			}
			if msg != "" {
				m.Warnings.Add(partialCPUsKey, "%s", msg)
			}
		},
	}
}

// quietCPUsMessage is the partial-cpus warning's text for a capture of
// every CPU in which some CPUs (those not in seen) had no sched_switch.
func quietCPUsMessage(seen []bool, nr int) string {
	var quiet []int
	for c := 0; c < nr; c++ {
		if c >= len(seen) || !seen[c] {
			quiet = append(quiet, c)
		}
	}
	if len(quiet) == 0 {
		return ""
	}
	return fmt.Sprintf("%s of the machine's %d had no sched_switch in the trace (CPU %s), though the capture recorded every CPU: one task ran there throughout, or the CPU was idle; what ran there, and for how long, is not known",
		plural(len(quiet), "CPU"), nr, cpulist.Format(quiet))
}

// partialCPUsMessage is the partial-cpus warning's text for the CPUs with
// sched_switch events (seen[c]) of a machine of nr online CPUs, or "" when
// none is missing (or nr is unknown, or no CPU had a switch). cut says the
// input was cut short: then the missing CPUs may be in the part cut off
// (perf writes each CPU's buffer in turn), and recording all CPUs is not
// the advice; skipped, that the reader skipped damaged records, which may
// have been theirs.
func partialCPUsMessage(seen []bool, nr int, cut, skipped bool, format string, pullsSeen bool) string {
	var cpus []int
	for c, ok := range seen {
		if ok {
			cpus = append(cpus, c)
		}
	}
	if nr <= 0 || len(cpus) == 0 || len(cpus) >= nr {
		return ""
	}
	advice := "record all CPUs"
	if skipped { // (a cut, below, says more)
		advice = "the reader skipped damaged records, the warnings say which: the others' events may have been among them"
	}
	if cut {
		// How the recorder lays the CPUs out decides what a cut can take.
		switch {
		case strings.HasPrefix(format, "perf.data"):
			advice = "the input is cut short: perf writes each CPU's buffer in turn, and the others' may be in the part cut off"
		case strings.HasPrefix(format, "trace.dat"):
			advice = "the input is cut short: trace-cmd writes each CPU's data whole, one after the other, and the others' may be in the part cut off"
		default:
			advice = "the input is cut short: the others' events may be in the part cut off"
		}
	}
	delays := "a delay is not measured where the trace shows the task elsewhere, but another CPU's load balancer can pull a waiting task without an event here, so a delay ending in a switch-in here is an upper bound"
	if pullsSeen {
		delays = "a delay during which the task was on one of them is not measured (the recording holds every migration off its CPUs)"
	}
	return fmt.Sprintf("the trace holds sched_switch events of %s only (CPU %s) of the machine's %d: what ran on the others is missing; %s (%s)",
		plural(len(cpus), "CPU"), cpulist.Format(cpus), nr, delays, advice)
}

// withoutKey returns ws without the warnings of key (in a new slice).
func withoutKey(ws []trace.Warning, key string) []trace.Warning {
	var out []trace.Warning
	for _, w := range ws {
		if w.Key != key {
			out = append(out, w)
		}
	}
	return out
}
