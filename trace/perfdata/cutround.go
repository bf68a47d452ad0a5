package perfdata

import (
	"fmt"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

// roundTrack follows perf's rounds for a file cut short. perf record copies
// each CPU's ring buffer in turn and then writes FINISHED_ROUND
// (tools/perf/builtin-record.c record__mmap_read_all): a file that ends
// inside a round holds the buffers of the CPUs perf copied before the cut,
// part of the buffer it was copying, and nothing of the CPUs after it. A
// file recorded in one big round (a short `perf sched record`) cut in half
// can hold CPU 0 only.
type roundTrack struct {
	rounds  int    // FINISHED_ROUND records read
	at      int64  // the largest event time when the last one was read
	before  []bool // CPUs with a timed event before it
	in      []bool // CPUs with a timed event after it
	events  int    // timed events after it
	lastCPU int    // CPU of the last timed event in file order
}

// finished notes a FINISHED_ROUND record at largest event time maxTime.
func (rt *roundTrack) finished(maxTime int64) {
	for len(rt.before) < len(rt.in) {
		rt.before = append(rt.before, false)
	}
	for c, ok := range rt.in {
		rt.before[c] = rt.before[c] || ok
	}
	clear(rt.in)
	rt.rounds++
	rt.at = maxTime
	rt.events = 0
}

// event notes a timed event on CPU c (0 <= c < 1<<12) in file order.
func (rt *roundTrack) event(c int) {
	for len(rt.in) <= c {
		rt.in = append(rt.in, false)
	}
	rt.in[c] = true
	rt.events++
	rt.lastCPU = c
}

// cutRound handles the end of a file cut short (a record cut, a data
// section shorter than its header says, perf killed) when events follow the
// last FINISHED_ROUND: the round perf was writing is incomplete. A CPU whose
// buffer came after the cut has nothing of it, the CPU whose buffer the cut
// went through lacks the rest of it, and even a CPU copied whole before it
// lacks what came after its copy (in the next round, gone): every CPU is
// unobserved from its last event to the trace's last (but the CPU that
// holds it). Each gets a Count 0 trace.LostWindow and a KindLost event at
// the end, so reports count that time as unknown, not idle, and leave out
// the delays that wait there. It returns what the warnings say of it (""
// when no event follows the last round: every CPU was copied to the end of
// that round, and every event before the cut was read).
//
// damaged says the records stop at damage rather than at the end of the
// input: the rounds read may then end in a FINISHED_ROUND read from the
// damage (records framed from the wrong offset), so every CPU is cut at
// its last event even when no event follows the last round (new-user pass
// 23 F4: a CPU with 2 events before a damaged header, whose buffer came
// after it, read as idle, its tasks' runs there as 768 ms of waiting).
func (r *Reader) cutRound(damaged bool) string {
	rt := &r.round
	if rt.events == 0 && !damaged {
		return ""
	}
	// (The events queued below go through roundTrack.event too.)
	events, last := rt.events, rt.lastCPU
	var present, missing, cut []int
	for c, ok := range rt.in {
		if ok {
			present = append(present, c)
		}
	}
	for c, ok := range rt.before {
		if ok && (c >= len(rt.in) || !rt.in[c]) {
			missing = append(missing, c)
		}
	}
	end := r.maxTime
	for c := range max(len(r.cpuLast), len(r.skipLast)) {
		// Observed up to its last record, a sample of a kind left out
		// included (skipLast).
		t := int64(-1)
		if c < len(r.cpuLast) {
			t = r.cpuLast[c]
		}
		if c < len(r.skipLast) {
			t = max(t, r.skipLast[c])
		}
		if t < 0 || t >= end {
			continue
		}
		cut = append(cut, c)
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: trace.CPU(c), Start: t, End: end})
		ev := r.q.slot()
		if t >= r.lastOut { // (at lastOut: the CPU's last event was the last delivered)
			// Where the CPU's buffer ends, with the window's length: the
			// events after it still wait in the window (the CPU mark is
			// at most t), so a consumer knows the CPU unobserved before
			// the delays that wait there end (trace.Event.Runtime).
			*ev = trace.NewEvent(t, trace.CPU(c), trace.KindLost)
			ev.Runtime = end - t
		} else if r.lastOut < end {
			// Events after the CPU's last one have left already (the
			// round rule let the other CPUs' out): the window is said
			// from the earliest time still to come, so the delays
			// waiting there after it are known lossy (a cut file's
			// rows up to 13 ms after the round printed their delays).
			*ev = trace.NewEvent(r.lastOut, trace.CPU(c), trace.KindLost)
			ev.Runtime = end - r.lastOut
		} else {
			*ev = trace.NewEvent(end, trace.CPU(c), trace.KindLost)
		}
		r.queue(ev, true)
	}
	var b strings.Builder
	if events == 0 {
		if len(cut) == 0 {
			return ""
		}
		fmt.Fprintf(&b, "the records after it are unread: perf writes each CPU's buffer in turn, so they may hold any CPU's events up to %s s", secs(end))
	} else if rt.rounds > 0 {
		fmt.Fprintf(&b, "the %d events after the last complete round (FINISHED_ROUND at %s s) come from a round perf was writing when the input ends: perf writes each CPU's buffer in turn, so from %s s to %s s the trace holds CPU %s",
			events, secs(rt.at), secs(rt.at), secs(end), cpulist.Format(present))
		if len(missing) > 0 {
			fmt.Fprintf(&b, " but not CPU %s (seen before)", cpulist.Format(missing))
		}
	} else {
		fmt.Fprintf(&b, "the input holds no FINISHED_ROUND record (perf's whole recording was one round, %d events, cut short): perf writes each CPU's buffer in turn, so CPUs other than CPU %s may be missing entirely",
			events, cpulist.Format(present))
	}
	if events > 0 {
		fmt.Fprintf(&b, ", and the buffer of CPU %d is cut", last)
	}
	if len(cut) > 0 {
		fmt.Fprintf(&b, "; the time of CPU %s from its last event to %s s is unobserved (not idle) and delays waiting there are not measured",
			cpulist.Format(cut), secs(end))
	}
	return b.String()
}

// secs prints ns as seconds the way trace.LostWindow.String does, so that
// the warning and the windows' lines agree.
func secs(ns int64) string { return trace.FormatSeconds(ns, 6) } // (cut, as the lost windows' times)
