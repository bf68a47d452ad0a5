package perfettopb

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/trace"
)

// How a trace's losses travel through a Perfetto trace (Write, and
// NewReader for what Write wrote):
//
//   - A loss on a CPU (trace.KindLost) is an FtraceEventBundle of that CPU
//     without events and with lost_events set (ftrace_event_bundle.proto:
//     "data loss between the last time we've read from the corresponding
//     per-cpu kernel buffer, and the earliest event recorded in this
//     bundle"; trace processor's ftrace_cpu_has_data_loss stat), in a
//     packet whose timestamp (TracePacket.timestamp, which trace processor
//     does not read for ftrace bundles) is when the loss was noticed: the
//     reader puts its KindLost there, the CPU unobserved from its previous
//     event, as a reader of the source did. A loss of an unknown CPU (a
//     damaged block of a .tv file) is one such bundle on every CPU that
//     had events. A loss known from its start (Event.Runtime: a CPU of a
//     cut file) also says where it began, as previous_bundle_end_timestamp
//     (the CPU's last event before it); the packet's timestamp is its end.
//     traced instead flags the bundle of the events after a loss: NewReader
//     reads that as a loss noticed at the bundle's first event.
//   - The counts of the losses on each CPU are an END_OF_TRACE FtraceStats
//     (FtraceCpuStats.overrun), which the reader gives to the CPU's first
//     loss; a loss of an unknown CPU counts on the first CPU marked.
//   - A source cut short (trace.Meta.Cut) ends in a TraceStats with
//     final_flush_outcome FINAL_FLUSH_FAILED (common/trace_stats.proto;
//     trace processor's traced_final_flush_failed data-loss stat): events
//     may have followed the last one, how many is unknown.
//   - What no Perfetto message has a place for, a TraceAttributes packet
//     (common/trace_attributes.proto: key-value pairs about the trace,
//     "trace_attribute.KEY" rows of trace processor's metadata table) holds
//     as the attrLost* keys and attrWarning: the events the source's file
//     held but its reader could not read (Meta.LostInFile), those lost
//     with no CPU or time (Meta.LostUnplaced), the source's loss windows
//     as its reader gave them (Meta.Lost: counts per window, where
//     FtraceStats has one per CPU) and its warnings, so that the trace
//     reads back saying what the source said: damaged or cut, how much
//     was lost and where.

// Attribute keys of the TraceAttributes packet Write writes.
const (
	attrLostInFile   = "traceview.lost_in_file"  // long_value: trace.Meta.LostInFile
	attrLostUnplaced = "traceview.lost_unplaced" // long_value: trace.Meta.LostUnplaced
	attrLostWindows  = "traceview.lost_windows"  // string_value: JSON array of lostWindowJSON, trace.Meta.Lost
	attrWarning      = "traceview.warning."      // + 1, 2, ...: string_value, JSON of a trace.Warning
)

// lostWindowJSON is a trace.LostWindow in attrLostWindows.
type lostWindowJSON struct {
	CPU   trace.CPU `json:"cpu"`
	Count uint64    `json:"count"`
	Start int64     `json:"start_ns"`
	End   int64     `json:"end_ns"`
}

// lost writes e, a loss, as a bundle with lost_events set and no events
// on its CPU, after the CPU's bundle of the events before it (on every CPU
// that had events, for a loss of an unknown CPU: CPU 0 when none had), and
// counts e.Count for ftrace_stats (on the first CPU marked).
func (w *writer) lost(e *trace.Event) {
	cpus := []trace.CPU{e.CPU}
	if e.CPU < 0 {
		cpus = append([]trace.CPU(nil), w.order...)
		if len(cpus) == 0 {
			cpus = []trace.CPU{0}
		}
	}
	for i, c := range cpus {
		b := w.cpu(c)
		w.flush(b)
		b.curr = -1 // the switches in between may be lost
		if i == 0 {
			b.lostN += e.Count
		}
		end := e.Time + max(e.Runtime, 0)
		var bundle []byte
		bundle = appendInt(bundle, fBundleCPU, int64(c))
		bundle = appendInt(bundle, fBundleLostEvents, 1)
		if e.Runtime > 0 {
			bundle = appendInt(bundle, fBundlePrevEnd, e.Time)
		}
		writePacket(w.out, appendMsg(packet(end), fPacketFtraceEvents, bundle))
		w.st.Packets++
		w.st.Bundles++
		w.st.LossBundles++
	}
}

// attributes returns the TraceAttributes packet of m's losses and
// warnings (see the keys above), nil when m has none and no loss was
// written (marked). text, when not nil, rewrites each warning's message.
func attributes(m *trace.Meta, text func(string) string, marked bool) []byte {
	if m == nil {
		return nil
	}
	var attrs []byte
	add := func(key string, num protowire.Number, long int64, str string) {
		var a []byte
		a = appendStr(a, fAttributeKey, key)
		if num == fAttributeLong {
			a = appendInt(a, fAttributeLong, long)
		} else {
			a = appendStr(a, fAttributeStr, str)
		}
		attrs = appendMsg(attrs, fAttributes, a)
	}
	if m.LostInFile > 0 {
		add(attrLostInFile, fAttributeLong, int64(m.LostInFile), "")
	}
	if m.LostUnplaced > 0 {
		add(attrLostUnplaced, fAttributeLong, int64(m.LostUnplaced), "")
	}
	if len(m.Lost) > 0 || marked {
		ws := make([]lostWindowJSON, len(m.Lost))
		for i, l := range m.Lost {
			ws[i] = lostWindowJSON{l.CPU, l.Count, l.Start, l.End}
		}
		js, _ := json.Marshal(ws) // (plain values: no error)
		add(attrLostWindows, fAttributeStr, 0, string(js))
	}
	for i, wn := range m.Warnings.List() {
		if text != nil {
			wn.Message = text(wn.Message)
		}
		js, _ := json.Marshal(wn)
		add(fmt.Sprintf("%s%d", attrWarning, i+1), fAttributeStr, 0, string(js))
	}
	if attrs == nil {
		return nil
	}
	return appendMsg(nil, fPacketTraceAttributes, attrs)
}

// traceStats returns the TraceStats packet that says the trace's end is
// missing (final_flush_outcome FINAL_FLUSH_FAILED).
func traceStats(ts int64) []byte {
	return appendMsg(packet(ts), fPacketTraceStats, appendInt(nil, fTraceStatsFinalFlush, finalFlushFailed))
}

// lostMark is a KindLost the reader made of a bundle with lost_events:
// its index in Reader.events and the start of its window (the CPU's
// previous event, or where the bundle says the loss began).
type lostMark struct {
	i     int
	start int64
}

// lostBundle adds the KindLost of a bundle of cpu with lost_events: at its
// first event (first, when it has one: traced's form), else at the
// packet's timestamp (ts, when hasTS: Write's bundle without events), else
// at the CPU's last event. Write's bundle of a loss known from its start
// (prevEnd, its previous_bundle_end_timestamp, before ts) gives a KindLost
// there lasting to ts (trace.Event.Runtime).
func (rd *Reader) lostBundle(cpu trace.CPU, first int64, hasFirst bool, ts int64, hasTS bool, prevEnd uint64) {
	last, seen := rd.lastTS[cpu]
	t := last
	switch {
	case hasFirst:
		t = first
	case hasTS:
		t = ts
	}
	e := trace.NewEvent(t, cpu, trace.KindLost)
	start := t
	if seen && last < t {
		start = last
	}
	if !hasFirst && hasTS && prevEnd > 0 && int64(prevEnd) < t {
		e.Time, e.Runtime, start = int64(prevEnd), t-int64(prevEnd), int64(prevEnd)
	}
	rd.marks = append(rd.marks, lostMark{i: len(rd.events), start: start})
	rd.add(e)
	rd.lastTS[cpu] = max(last, t)
	delete(rd.curr, cpu)
}

// traceStats reads a TraceStats: a failed final flush means events may
// be missing after the last one (see finish).
func (rd *Reader) traceStats(b []byte, off int64) error {
	return fields(b, off, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num == fTraceStatsFinalFlush && typ == protowire.VarintType && v == finalFlushFailed {
			rd.finalFlushFailed = true
		}
		return nil
	})
}

// traceAttributes reads the attributes Write gives a source's losses and
// warnings (the attr keys) into Meta; others are skipped. A value that is
// not what Write writes is a bad-trace-attribute warning.
func (rd *Reader) traceAttributes(b []byte, off int64) error {
	return fields(b, off, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		if num != fAttributes {
			return nil
		}
		var key, str string
		var long uint64
		isLong := false
		err := fields(b, off, func(num protowire.Number, _ protowire.Type, v uint64, b []byte) error {
			switch num {
			case fAttributeKey:
				key = string(b)
			case fAttributeLong:
				long, isLong = v, true
			case fAttributeStr:
				str = string(b)
			}
			return nil
		})
		if err != nil {
			return err
		}
		bad := func(why string) {
			rd.meta.Warnings.Add("bad-trace-attribute", "perfetto: trace attribute %q: %s: skipped", key, why)
		}
		switch {
		case key == attrLostInFile && isLong:
			rd.meta.LostInFile += long
		case key == attrLostUnplaced && isLong:
			rd.meta.LostUnplaced += long
		case key == attrLostWindows:
			var ws []lostWindowJSON
			if err := json.Unmarshal([]byte(str), &ws); err != nil {
				bad(err.Error())
				return nil
			}
			rd.carried = true
			for _, l := range ws {
				rd.carriedLost = append(rd.carriedLost, trace.LostWindow{CPU: l.CPU, Count: l.Count, Start: l.Start, End: l.End})
			}
		case strings.HasPrefix(key, attrWarning):
			var wn trace.Warning
			if err := json.Unmarshal([]byte(str), &wn); err != nil || wn.Key == "" || wn.Count < 1 {
				bad("not a warning")
				return nil
			}
			// Apart from the reader's own of the same key (a Perfetto
			// source's truncated-file is not this file's).
			rd.meta.Warnings.AddScoped("exported", wn)
		}
		return nil
	})
}

// countMarks gives the lost-events marks their counts and returns the
// CPUs that have one. A mark takes the count of the source's window
// (carriedLost) of its CPU that ends where it does, in turn; what
// ftrace_stats counts on a CPU beyond those (all of it, in a trace
// without them: traced's) goes to the CPU's first mark without a window.
func (rd *Reader) countMarks() map[trace.CPU]bool {
	type key struct {
		cpu trace.CPU
		end int64
	}
	windows := map[key][]uint64{}
	for _, l := range rd.carriedLost {
		k := key{l.CPU, l.End}
		windows[k] = append(windows[k], l.Count)
	}
	counted := map[trace.CPU]uint64{}
	var rest []*trace.Event // marks of no window, in file order
	for _, mk := range rd.marks {
		e := &rd.events[mk.i]
		k := key{e.CPU, e.Time + e.Runtime}
		if q := windows[k]; len(q) > 0 {
			e.Count, windows[k] = q[0], q[1:]
			counted[e.CPU] += e.Count
			continue
		}
		rest = append(rest, e)
	}
	given := map[trace.CPU]bool{}
	for _, e := range rest {
		if n := rd.lost[e.CPU]; !given[e.CPU] && n > counted[e.CPU] {
			e.Count = n - counted[e.CPU]
		}
		given[e.CPU] = true
	}
	for c := range counted {
		given[c] = true
	}
	return given
}
