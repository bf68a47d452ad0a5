package perfettopb

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/trace"
)

// How NewReader steps over damage (new-user pass 79 F2: one flipped byte,
// or 4 KiB zeroed, refused a whole 850 KB trace that, cut at the same
// offset, was read):
//
//   - A packet whose framing holds (its tag and length) but whose content
//     does not parse is skipped whole: its events are not kept (those
//     decoded before the broken field are taken back), and the CPU of its
//     ftrace bundle, when the bundle's cpu field can still be read, is
//     unobserved from its last event before the packet to its first after.
//   - Bytes that break the framing itself (a damaged tag or length) are
//     skipped up to the next offset where a packet plausibly begins
//     (resync): a TracePacket tag, a length that fits, content that parses
//     and has a field this package knows, followed by the end of the file
//     or another TracePacket tag whose length fits (two packets in a row: a
//     lone 0x0a byte inside an event is not enough). What lay between
//     belonged to no CPU we can name, so every CPU is unobserved across it.
//
// Each gap is a Count 0 trace.LostWindow and a KindLost known ahead to its
// end (Event.Runtime), as cutWindows makes for a cut, so that reports
// count that time as unknown, neither idle nor a delay; and a
// "damaged-packet" warning gives the offset, the bytes skipped and why.

// damage is one skipped stretch of the file.
type damage struct {
	off, end int64 // file offsets: the skipped bytes are [off, end)
	// idx, idxEnd: the events of rd.events before idx (in file order)
	// came before the damage, those from idxEnd on after it; those
	// between (a damaged bundle's events kept) lie inside its window.
	idx, idxEnd int
	cpu         trace.CPU // the CPU of the skipped bundle, -1 for unknown (every CPU)
	// tmin, tmax: the times the dropped events of a damaged-time span
	// had (0: none), which its window covers too (damageWindows).
	tmin, tmax int64
}

// bundleSpan is a bundle's events in rd.events: [start, end), of cpu.
type bundleSpan struct {
	start, end int
	cpu        trace.CPU
}

// markCompact notes that rd.events[i] came from a compact_sched block.
func (rd *Reader) markCompact(i int) {
	for len(rd.compact) <= i/64 {
		rd.compact = append(rd.compact, 0)
	}
	rd.compact[i/64] |= 1 << (i % 64)
}

// isCompact reports whether rd.events[i] came from a compact_sched block.
func (rd *Reader) isCompact(i int) bool {
	return i/64 < len(rd.compact) && rd.compact[i/64]&(1<<(i%64)) != 0
}

// errSelfSwitch is the damage of a sched_switch from a task to itself:
// the kernel traces a switch only between two tasks (__schedule calls
// trace_sched_switch under "if (likely(prev != next))", kernel/sched/core.c
// v6.18), so one is a damaged next_pid, or for compact_sched, whose
// previous task is the one before's next, a damaged chain (new-user pass
// 81 F5: 63 switches from idle to idle after 64 zeroed bytes, no warning).
var errSelfSwitch = fmt.Errorf("a sched_switch from a task to itself, which the kernel never traces")

// errBundleOrder is the damage of a full event whose time breaks its
// bundle's order (outOfBundleOrder).
var errBundleOrder = fmt.Errorf("an event time out of its bundle's order")

// outOfBundleOrder finds the full events of a bundle (items, in file
// order) whose times are out of place: those outside the longest ordered
// run of the bundle's full events in file order (outOfOrder). A CPU's
// ftrace events are read from its ring buffer in time order and a bundle
// holds them as read (the compact_sched block apart), so a time out of
// that order is damaged, even when it stays within the bundle's span,
// where sorting the bundle would hide it (new-user pass 98 F3: a switch
// moved 2 ms later or 50 ms earlier inside its bundle read as written,
// exit 0; F4: one moved 200 ms past its bundle made its CPU unobserved to
// the damaged time). late holds their seqs; after, for each, the seq of
// the next full event in file order that is not late (-1: none). Time-0
// task records (old exports put them in CPU 0's bundle) are left out.
func outOfBundleOrder(items []item) (late map[int]bool, after []int) {
	var seqs []int
	var times []int64
	for _, it := range items {
		if !it.compact && it.ev.Time != 0 {
			seqs, times = append(seqs, it.seq), append(times, it.ev.Time)
		}
	}
	bad := outOfOrder(times)
	if bad == nil {
		return nil, nil
	}
	late = map[int]bool{}
	next := -1
	for k := len(seqs) - 1; k >= 0; k-- {
		if !bad[k] {
			next = seqs[k]
			continue
		}
		late[seqs[k]] = true
		after = append(after, next)
	}
	return late, after
}

// impossibleSwitch returns the index in items (a bundle's, in time order)
// of the first sched_switch from a task to itself, the previous task of a
// compact one implied by the CPU's current task (curr[cpu], unknown when
// absent) and the switches before it; -1 when none is.
func impossibleSwitch(items []item, curr map[trace.CPU]trace.TID, cpu trace.CPU) int {
	cur, known := curr[cpu]
	for i := range items {
		e := &items[i].ev
		if e.Kind != trace.KindSwitch {
			continue
		}
		prev, ok := e.TID, true
		if items[i].compact {
			prev, ok = cur, known
		}
		if ok && prev == e.NextTID {
			return i
		}
		cur, known = e.NextTID, true
	}
	return -1
}

// minResyncRun is how many well-formed packets in a row (the one found
// and the next, or the file's end) resync asks for before it trusts an
// offset: one random 0x0a byte followed by a small length is common in
// varint-heavy data; two consistent packets in a row are not.
const minResyncRun = 2

// resync returns the first offset at or after from where a packet
// plausibly begins (see the comment above), or -1 when none does.
func resync(data []byte, from int) int {
	for p := from; p < len(data); p++ {
		if data[p] != byte(fTracePacket<<3|protowire.BytesType) {
			continue
		}
		if plausibleRun(data, p, minResyncRun) {
			return p
		}
	}
	return -1
}

// plausibleRun reports whether n packets in a row begin at p (fewer when
// the file ends after a whole packet: a file's last packet is enough).
func plausibleRun(data []byte, p, n int) bool {
	for ; n > 0; n-- {
		if p == len(data) {
			return true
		}
		num, typ, k := protowire.ConsumeTag(data[p:])
		if k < 0 || num != fTracePacket || typ != protowire.BytesType {
			return false
		}
		pkt, v := protowire.ConsumeBytes(data[p+k:])
		if v < 0 || len(pkt) == 0 || !knownPacket(pkt) {
			return false
		}
		p += k + v
	}
	return true
}

// knownPacket reports whether pkt's fields are well formed, include one
// a scheduler trace has (as Detect asks of a file's first packet) and
// have the wire type the proto gives each known field: a bundle's own
// fields (cpu 1 a varint, events 2) look like a packet's ftrace_events 1
// and process_tree 2 but for their types, and resync must not take a
// damaged packet's bundle for a packet.
func knownPacket(pkt []byte) bool {
	known := false
	for len(pkt) > 0 {
		num, typ, k := protowire.ConsumeTag(pkt)
		if k < 0 {
			return false
		}
		v := protowire.ConsumeFieldValue(num, typ, pkt[k:])
		if v < 0 {
			return false
		}
		want, ok := packetFieldTypes[num]
		if ok && typ != want {
			return false
		}
		known = known || ok
		pkt = pkt[k+v:]
	}
	return known
}

// packetFieldTypes: the wire type of each TracePacket field knownPacket
// knows (trace_packet.proto: messages and bytes are length-delimited,
// the integers and bools varints).
var packetFieldTypes = map[protowire.Number]protowire.Type{
	fPacketFtraceEvents: protowire.BytesType, fPacketProcessTree: protowire.BytesType,
	fPacketClockSnapshot: protowire.BytesType, fPacketFtraceStats: protowire.BytesType,
	fPacketTraceStats: protowire.BytesType, fPacketSystemInfo: protowire.BytesType,
	fPacketTraceAttributes: protowire.BytesType, fPacketTraceConfig: protowire.BytesType,
	fPacketTrackDescriptor: protowire.BytesType,
	fPacketTimestamp:       protowire.VarintType, fPacketSequenceID: protowire.VarintType,
	fPacketSequenceFlags: protowire.VarintType, fPacketFirstOnSequence: protowire.VarintType,
	fPacketTimestampClock: protowire.VarintType,
}

// findField returns the first field num of msg of wire type typ: its
// varint value, or its bytes for a length-delimited one; ok false when
// msg has none before its end or the first field that does not parse
// (a damaged message is read as far as it goes).
func findField(msg []byte, num protowire.Number, typ protowire.Type) (v uint64, b []byte, ok bool) {
	for len(msg) > 0 {
		n, t, k := protowire.ConsumeTag(msg)
		if k < 0 {
			return 0, nil, false
		}
		if n == num && t == typ {
			switch typ {
			case protowire.VarintType:
				x, m := protowire.ConsumeVarint(msg[k:])
				return x, nil, m >= 0
			case protowire.BytesType:
				y, m := protowire.ConsumeBytes(msg[k:])
				return 0, y, m >= 0
			}
		}
		m := protowire.ConsumeFieldValue(n, t, msg[k:])
		if m < 0 {
			return 0, nil, false
		}
		msg = msg[k+m:]
	}
	return 0, nil, false
}

// bundleCPU returns the cpu field of pkt's ftrace bundle, read as far as
// the damage lets it, or -1.
func bundleCPU(pkt []byte) trace.CPU {
	_, b, ok := findField(pkt, fPacketFtraceEvents, protowire.BytesType)
	if !ok {
		return -1
	}
	c, _, ok := findField(b, fBundleCPU, protowire.VarintType)
	if !ok || c >= 1<<16 {
		return -1
	}
	return trace.CPU(c)
}

// skipPacket takes back what the damaged packet at off (n bytes with its
// header) added before its error and records the gap.
func (rd *Reader) skipPacket(pkt []byte, off, n int64, before, marks int, err error) {
	rd.events = rd.events[:before]
	rd.marks = rd.marks[:marks]
	cpu := bundleCPU(pkt)
	if rd.meta.NrCPUs > 0 && int(cpu) >= rd.meta.NrCPUs {
		cpu = -1 // (a damaged CPU number: the bundle's CPU is unknown)
	}
	rd.forget(cpu)
	rd.damages = append(rd.damages, damage{off: off, end: off + n, idx: before, idxEnd: before, cpu: cpu})
	what := "a packet whose fields do not parse"
	if pe, ok := err.(*ParseError); ok {
		what = fmt.Sprintf("%s at offset %d", pe.What, pe.Offset)
	}
	rd.meta.Warnings.Add("damaged-packet", "perfetto: the packet at offset %d (%d bytes) is damaged (%s): skipped, its events are lost; the packets after it were read", off, n, what)
}

// skipBytes records the bytes [off, end) that break the framing, skipped
// to the next packet (end is the file's length when none follows).
func (rd *Reader) skipBytes(off, end int64, what string) {
	rd.forget(-1)
	rd.damages = append(rd.damages, damage{off: off, end: end, idx: len(rd.events), idxEnd: len(rd.events), cpu: -1})
	rd.meta.Warnings.Add("damaged-packet", "perfetto: %d bytes at offset %d are damaged (%s): skipped to the next packet that reads, their events are lost", end-off, off, what)
}

// forget drops what the reader carries from a CPU's earlier bundles (its
// current task, which compact_sched events imply) across a gap: every
// CPU's for -1.
func (rd *Reader) forget(cpu trace.CPU) {
	if cpu < 0 {
		clear(rd.curr)
		return
	}
	delete(rd.curr, cpu)
}

// damageWindows marks each skipped stretch as unobserved time (see the
// comment at the top of this file): for its CPU, or every CPU with events
// when unknown, from the CPU's last event before it in file order (the
// trace's first event when none) to its first after (the trace's last).
// Before that it drops the events whose time is out of place (outOfOrder),
// each a gap of its CPU too. rd.events is still in file order.
func (rd *Reader) damageWindows() {
	if len(rd.events) == 0 {
		return
	}
	// Each CPU's events as (file index, time), in file order, to find the
	// ones around a gap by binary search.
	var cpus []trace.CPU
	on := map[trace.CPU][]at{}
	for i := range rd.events {
		e := &rd.events[i]
		if e.CPU < 0 || !e.Kind.Scheduler() || trace.Synthesized(e) {
			continue // (perf's task records, exported, carry times of their own: a fork of 754.261473 s among CPU 1's events of 754.3288 s in pipe.perf.data)
		}
		if _, ok := on[e.CPU]; !ok {
			cpus = append(cpus, e.CPU)
		}
		on[e.CPU] = append(on[e.CPU], at{i, e.Time})
	}
	drop := rd.timeDamage(cpus, on)
	if len(drop) > 0 {
		for _, c := range cpus {
			on[c] = slices.DeleteFunc(on[c], func(a at) bool { return drop[a.i] })
		}
		// (Last, whatever returns: the windows below refer to the
		// indices, and their KindLost events are appended after them.)
		defer func() {
			kept := rd.events[:0]
			for i := range rd.events {
				if !drop[i] {
					kept = append(kept, rd.events[i])
				}
			}
			rd.events = kept
		}()
	}
	if len(rd.damages) == 0 {
		return
	}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, c := range cpus {
		if evs := on[c]; len(evs) > 0 {
			first, last = min(first, evs[0].t), max(last, evs[len(evs)-1].t)
		}
	}
	if first > last {
		return // (no scheduler event kept: no time to place a window in; NewReader then fails for want of events)
	}
	var wins []trace.LostWindow
	for _, d := range rd.damages {
		which := cpus
		if d.cpu >= 0 {
			which = []trace.CPU{d.cpu}
		}
		for _, c := range which {
			evs := on[c]
			k := sort.Search(len(evs), func(j int) bool { return evs[j].i >= d.idx })
			k2 := sort.Search(len(evs), func(j int) bool { return evs[j].i >= d.idxEnd })
			start, end := first, last
			if k > 0 {
				start = evs[k-1].t
			}
			if k2 < len(evs) {
				end = evs[k2].t
			}
			// Around damaged times the events kept on either side may be
			// the shifted ones (outOfOrder keeps the longer ordered run,
			// which can be a block shifted later): then the event before
			// the gap is later than the one after, and the stretch between
			// them is where the CPU's times disagree (new-user pass 86 F6:
			// no window, and delays of 100-220 ms measured across it).
			if end < start {
				start, end = end, start
			}
			if d.tmin > 0 {
				// The dropped events' own times, within the kept events'
				// span (an outlying end's are not): the block dropped may be
				// the right one, and the kept one before it shifted later
				// (pass 86 F6: the kept block ended at the trace's end).
				start = min(start, max(d.tmin, first))
				end = max(end, min(d.tmax, last))
				if k > 0 && evs[k-1].t > d.tmin {
					// The kept block before the gap is later than the
					// dropped one: it may be the shifted one, its times
					// from some delta on (or all of them) wrong. Every CPU
					// is unobserved from the last kept event before that
					// block to the end of the gap: a wrong time there set
					// the trace's end, to which another CPU's last run
					// reached (new-user pass 86 F2: 176 ms of run time
					// for a task whose intact runs came to 1.1 ms), and
					// ordered a wakeup on one CPU against a switch-in on
					// this one (a 134 ms delay that was 0).
					s0 := suspectStart(evs[:k], rd.spanOf(evs[k-1].i), first)
					for _, c2 := range cpus {
						wins = append(wins, trace.LostWindow{CPU: c2, Start: min(start, s0), End: end})
					}
					continue
				}
			}
			if end > start {
				wins = append(wins, trace.LostWindow{CPU: c, Start: start, End: end})
			}
		}
	}
	wins = mergeWindows(wins)
	for _, w := range wins {
		rd.meta.Lost = append(rd.meta.Lost, w)
		ev := trace.NewEvent(w.Start, w.CPU, trace.KindLost)
		ev.Runtime = w.End - w.Start
		rd.events = append(rd.events, ev) // (after drop's indices: appended below them)
	}
	if len(wins) > 0 {
		w := wins[0]
		rd.meta.Warnings.Add("damaged-packet-span", "perfetto: %s unobserved around the damaged data (the first: CPU %d between %s s and %s s): that time is neither idle nor a delay",
			plural(len(wins), "CPU window", "CPU windows"), w.CPU, trace.FormatSeconds(w.Start, 6), trace.FormatSeconds(w.End, 6))
	}
}

// spanOf returns the bundle span that holds rd.events[i] (a span of i
// alone when no bundle does).
func (rd *Reader) spanOf(i int) bundleSpan {
	k := sort.Search(len(rd.spans), func(j int) bool { return rd.spans[j].end > i })
	if k == len(rd.spans) || rd.spans[k].start > i {
		return bundleSpan{start: i, end: i + 1, cpu: -1}
	}
	return rd.spans[k]
}

// suspectStart is where a kept bundle sp whose times may be shifted begins
// to be in doubt: at the time of the CPU's last kept event before it (evs:
// the CPU's kept events in file order up to and including sp's), since
// even its first time may be wrong; first (the trace's first) when there
// is none.
func suspectStart(evs []at, sp bundleSpan, first int64) int64 {
	k := sort.Search(len(evs), func(j int) bool { return evs[j].i >= sp.start })
	if k > 0 {
		return evs[k-1].t
	}
	return first
}

// mergeWindows returns ws, per CPU, with the windows that overlap or
// touch merged, by CPU and start.
func mergeWindows(ws []trace.LostWindow) []trace.LostWindow {
	slices.SortFunc(ws, func(a, b trace.LostWindow) int {
		return cmp.Or(cmp.Compare(a.CPU, b.CPU), cmp.Compare(a.Start, b.Start))
	})
	var out []trace.LostWindow
	for _, w := range ws {
		if n := len(out); n > 0 && out[n-1].CPU == w.CPU && w.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, w.End)
			continue
		}
		out = append(out, w)
	}
	return out
}

// plural is "1 window" or "N windows".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// timeDamage finds the scheduler events whose time is damaged (out of
// their CPU's order, outOfOrder, or alone beyond the rest, outlyingEnds;
// on: each CPU's, as damageWindows lists them) and returns the events to
// drop, their indices in rd.events: each one, or, when it came from a
// compact_sched block, the whole block, whose times are deltas, so that
// a damaged one shifts every later one (new-user pass 81 F4: 8 events
// dropped, the bundle's later ones kept 459 µs late). The CPU is then
// unobserved over the bundle's time (a damage of the bundle's span).
func (rd *Reader) timeDamage(cpus []trace.CPU, on map[trace.CPU][]at) map[int]bool {
	bad := map[int]bool{}
	for _, c := range cpus {
		times := make([]int64, len(on[c]))
		for k, a := range on[c] {
			times[k] = a.t
		}
		for k, b := range outOfOrder(times) {
			if b {
				bad[on[c][k].i] = true
			}
		}
	}
	rest := map[trace.CPU][]at{}
	for _, c := range cpus {
		for _, a := range on[c] {
			if !bad[a.i] {
				rest[c] = append(rest[c], a)
			}
		}
	}
	if lo, hi, ok := outlyingEnds(rest); ok {
		for _, c := range cpus {
			for _, a := range rest[c] {
				if a.t < lo || a.t > hi {
					bad[a.i] = true
				}
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	idx := make([]int, 0, len(bad))
	for i := range bad {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	drop := map[int]bool{}
	spanDone := map[int]bool{}
	for _, i := range idx {
		e := &rd.events[i]
		k := sort.Search(len(rd.spans), func(j int) bool { return rd.spans[j].end > i })
		if k == len(rd.spans) || rd.spans[k].start > i {
			drop[i] = true
			rd.damages = append(rd.damages, damage{off: -1, end: -1, idx: i, idxEnd: i + 1, cpu: e.CPU})
			continue
		}
		sp := rd.spans[k]
		if rd.isCompact(i) {
			for j := sp.start; j < sp.end; j++ {
				if rd.isCompact(j) {
					drop[j] = true
				}
			}
		} else {
			drop[i] = true
		}
		if !spanDone[k] {
			spanDone[k] = true
			d := damage{off: -1, end: -1, idx: sp.start, idxEnd: sp.end, cpu: sp.cpu}
			for j := sp.start; j < sp.end; j++ {
				if drop[j] || j == i {
					t := rd.events[j].Time
					if d.tmin == 0 || t < d.tmin {
						d.tmin = t
					}
					d.tmax = max(d.tmax, t)
				}
			}
			rd.damages = append(rd.damages, d)
		}
	}
	first := &rd.events[idx[0]]
	rd.meta.LostInFile += uint64(len(drop)) // (events the file held, skipped: info's lost line counts them)
	sort.SliceStable(rd.damages, func(i, j int) bool { return rd.damages[i].idx < rd.damages[j].idx })
	rd.meta.Warnings.Add("damaged-time", "perfetto: %d events have a time out of their CPU's order (first: CPU %d's event at %s s), a damaged timestamp: %d events skipped (a compact_sched block's all, its times being deltas), their CPU unobserved over their bundle's time",
		len(idx), first.CPU, trace.FormatSeconds(first.Time, 6), len(drop))
	return drop
}

// at is an event of rd.events: its index and time.
type at struct {
	i int
	t int64
}

// outlyingEnds returns the time range [lo, hi] outside which the first or
// last events of the whole trace lie alone, separated from the rest by a
// gap longer than the rest's whole span (ok false when none is): a
// damaged timestamp at a CPU's first or last event, which outOfOrder
// cannot see (nothing before or after it disagrees; a flipped bit 48 of
// the last event made a run of 281476 s in a trace of 0.5 s). A running
// system is not silent on every CPU for longer than all the rest of its
// trace: the tracer's own reads, the tick and the kernel threads
// switch on some CPU meanwhile.
func outlyingEnds(on map[trace.CPU][]at) (lo, hi int64, ok bool) {
	var ts []int64
	for _, evs := range on {
		for _, a := range evs {
			ts = append(ts, a.t)
		}
	}
	slices.Sort(ts)
	i, j := 0, len(ts)-1
	for j-i >= 2 {
		switch {
		case ts[j]-ts[j-1] > ts[j-1]-ts[i]:
			j--
		case ts[i+1]-ts[i] > ts[j]-ts[i+1]:
			i++
		default:
			return ts[i], ts[j], i > 0 || j < len(ts)-1
		}
	}
	return 0, 0, false
}

// outOfOrder returns, for one CPU's scheduler event times in file order
// (trace.Kind.Scheduler: the tracepoints), which are out of place (nil when none is): those outside a longest non-decreasing
// subsequence. A CPU's events come from one kernel ring buffer in time
// order and its bundles are written in order (see Reader), so in an
// intact trace the times never go back; a damaged timestamp (a flipped
// bit: 4409 s in a trace of 7329-7330 s, new-user pass 79's flipped
// copy) breaks the order, and the longest ordered run keeps the most
// events that agree with each other. O(n log n), patience sorting.
func outOfOrder(times []int64) []bool {
	sorted := true
	for k := 1; k < len(times); k++ {
		if times[k] < times[k-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	// tails[l]: the index of the smallest last time of a non-decreasing
	// run of length l+1; prev: each index's predecessor in its run.
	var tails []int
	prev := make([]int, len(times))
	for k, t := range times {
		l := sort.Search(len(tails), func(j int) bool { return times[tails[j]] > t })
		prev[k] = -1
		if l > 0 {
			prev[k] = tails[l-1]
		}
		if l == len(tails) {
			tails = append(tails, k)
		} else {
			tails[l] = k
		}
	}
	bad := make([]bool, len(times))
	for k := range bad {
		bad[k] = true
	}
	for k := tails[len(tails)-1]; k >= 0; k = prev[k] {
		bad[k] = false
	}
	return bad
}

// resyncAfter skips the damaged bytes at off (why: what broke) to the
// next packet that reads, returning its offset, or -1 (and the rest of
// the file skipped) when none follows.
func (rd *Reader) resyncAfter(data []byte, off int, why string) int {
	next := resync(data, off+1)
	end := next
	if next < 0 {
		end = len(data)
	}
	rd.skipBytes(int64(off), int64(end), why)
	return next
}

// bundleHole is something skipped in a bundle: pos, the good events
// before it in bundle order; whole, when where it lay in the bundle's
// time is unknown (a compact_sched block, the bundle's rest past a broken
// field, a damaged event beside a compact block).
type bundleHole struct {
	pos   int
	whole bool
}

// bundleHoles records the damage skipped inside a bundle of cpu in the
// packet at off (its events kept: rd.events from base on; why: the first
// error). A damaged full event of a bundle of full events lay between its
// neighbours, and the CPU is unobserved between them. Anything else lay
// somewhere in the bundle's time, and a compact_sched block's times are
// deltas and its previous tasks implied, so the CPU is unobserved over
// the whole bundle, from its last event before it to its first after
// (new-user pass 81 F2: a window from the hole on, 83 ms of a 610 ms
// loss, the rest read as 393-415 ms delays), and the task on the CPU
// after the bundle is unknown (pass 81 F1: the next bundle's first
// compact switch took the task current before the damaged block for its
// previous task, and read it waiting 520 ms).
func (rd *Reader) bundleHoles(cpu trace.CPU, off int64, base int, holes []bundleHole, why error) {
	if len(holes) == 0 {
		return
	}
	whole := slices.ContainsFunc(holes, func(h bundleHole) bool { return h.whole })
	if whole {
		rd.damages = append(rd.damages, damage{off: off, end: off, idx: base, idxEnd: len(rd.events), cpu: cpu})
		rd.forget(cpu)
	} else {
		for _, h := range holes {
			rd.damages = append(rd.damages, damage{off: off, end: off, idx: base + h.pos, idxEnd: base + h.pos, cpu: cpu})
		}
	}
	what := why.Error()
	if pe, ok := why.(*ParseError); ok {
		what = fmt.Sprintf("%s at offset %d", pe.What, pe.Offset)
	}
	over := "between the events around each"
	if whole {
		over = "over the bundle's time"
	}
	rd.meta.Warnings.Add("damaged-event", "perfetto: %s of CPU %d's bundle in the packet at offset %d damaged (%s): skipped, the bundle's other events were read and its CPU is unobserved %s", plural(len(holes), "event or field", "events or fields"), cpu, off, what, over)
}
