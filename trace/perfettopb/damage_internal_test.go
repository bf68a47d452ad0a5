package perfettopb

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfdata"
)

// TestOutOfOrder: the events outside a longest non-decreasing run of a
// CPU's times are the damaged ones. By hand: in 1 2 3 100 4 5 the run
// 1 2 3 4 5 leaves out 100 (index 3); in 50 1 2 3 it leaves out 50
// (index 0); equal times are in order; sorted times give nil.
func TestOutOfOrder(t *testing.T) {
	for _, c := range []struct {
		times []int64
		bad   []int
	}{
		{[]int64{1, 2, 3, 100, 4, 5}, []int{3}},
		{[]int64{50, 1, 2, 3}, []int{0}},
		{[]int64{1, 2, 2, 0, 3}, []int{3}},
		{[]int64{1, 1, 2, 3}, nil},
		{nil, nil},
	} {
		got := outOfOrder(c.times)
		var idx []int
		for i, b := range got {
			if b {
				idx = append(idx, i)
			}
		}
		if !slices.Equal(idx, c.bad) || c.bad == nil && got != nil {
			t.Errorf("outOfOrder(%v) = %v, want %v", c.times, idx, c.bad)
		}
	}
}

// TestOutlyingEnds: an end event separated from the rest by a gap longer
// than the rest's span is dropped. By hand: times 10 11 12 13 on CPU 0
// and 12, 1000 on CPU 1: the gap 13 -> 1000 (987) exceeds the span 10..13
// (3), so hi is 13 and lo 10; 10 11 12 13 and 14 have no outlier; a
// first event at -1000 before 10..13 is dropped the same way.
func TestOutlyingEnds(t *testing.T) {
	on := func(evs ...[]int64) map[trace.CPU][]at {
		m := map[trace.CPU][]at{}
		for c, ts := range evs {
			for i, x := range ts {
				m[trace.CPU(c)] = append(m[trace.CPU(c)], at{i, x})
			}
		}
		return m
	}
	if lo, hi, ok := outlyingEnds(on([]int64{10, 11, 12, 13}, []int64{12, 1000})); !ok || lo != 10 || hi != 13 {
		t.Errorf("late outlier: %d %d %v, want 10 13 true", lo, hi, ok)
	}
	if _, _, ok := outlyingEnds(on([]int64{10, 11, 12, 13}, []int64{14})); ok {
		t.Error("no outlier: ok")
	}
	if lo, hi, ok := outlyingEnds(on([]int64{-1000, 10, 11, 12, 13})); !ok || lo != 10 || hi != 13 {
		t.Errorf("early outlier: %d %d %v, want 10 13 true", lo, hi, ok)
	}
}

// compactExport writes nice.2cpu.perf.data as a compact Perfetto trace
// in bundles of 256 events and returns it with the packed fields of the
// compact_sched block of CPU 0's third compact bundle: its
// switch_timestamp and switch_next_pid bytes (subslices of the file).
func compactExport(t *testing.T) (file, ts, nextPid []byte) {
	t.Helper()
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	src, err := perfdata.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, src, Options{Compact: true, BundleEvents: 256}); err != nil {
		t.Fatal(err)
	}
	file = buf.Bytes()
	seen := 0
	for off := 0; off < len(file); {
		_, _, n := protowire.ConsumeTag(file[off:])
		pkt, m := protowire.ConsumeBytes(file[off+n:])
		off += n + m
		b := field(pkt, fPacketFtraceEvents)
		if b == nil || bundleCPUOf(b) != 0 {
			continue
		}
		cs := field(b, fBundleCompactSched)
		if cs == nil || field(cs, fCompactSwitchTimestamp) == nil {
			continue
		}
		if seen++; seen == 3 {
			return file, field(cs, fCompactSwitchTimestamp), field(cs, fCompactSwitchNextPid)
		}
	}
	t.Fatal("no third compact bundle of CPU 0")
	return nil, nil, nil
}

// field returns the bytes of msg's first length-delimited field num.
func field(msg []byte, num protowire.Number) []byte {
	_, b, _ := findField(msg, num, protowire.BytesType)
	return b
}

// bundleCPUOf is a bundle's cpu field (-1 when absent).
func bundleCPUOf(b []byte) int {
	if c, _, ok := findField(b, fBundleCPU, protowire.VarintType); ok {
		return int(c)
	}
	return -1
}

// deltas decodes a packed delta-encoded timestamp column: absolute times.
func deltas(b []byte) []int64 {
	var out []int64
	var t int64
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		t += int64(v)
		out = append(out, t)
		b = b[n:]
	}
	return out
}

// offsetIn is where sub, a subslice of file, begins in it.
func offsetIn(file, sub []byte) int { return cap(file) - cap(sub) }

// readDamaged reads a damaged copy: its events and Meta.
func readDamaged(t *testing.T, data []byte) ([]trace.Event, *trace.Meta) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return evs, r.Meta()
}

// covered reports whether a lost window of CPU 0 covers [from, to].
func covered(m *trace.Meta, from, to int64) bool {
	for _, w := range m.Lost {
		if w.CPU == 0 && w.Start <= from && w.End >= to {
			return true
		}
	}
	return false
}

// TestDamagedCompactBlock: a compact_sched block whose switch_next_pid
// column loses a value (one byte's continuation bit set merges two
// varints) is damage: its events are skipped, CPU 0 is unobserved over
// the whole bundle (its first to last switch time, from the intact
// column, inside one lost window; new-user pass 81 F2: a window from the
// hole on, 83 ms of 610), and the next bundle's first compact switch
// has no previous task (TID -1), not the one current before the damaged
// block (pass 81 F1: a 520 ms delay of a task that had left the CPU).
func TestDamagedCompactBlock(t *testing.T) {
	file, ts, pids := compactExport(t)
	times := deltas(ts)
	first, last := times[0], times[len(times)-1]
	bad := append([]byte(nil), file...)
	at := offsetIn(file, pids)
	for pids[0]&0x80 != 0 { // the end of the first varint
		pids, at = pids[1:], at+1
	}
	bad[at] |= 0x80
	evs, meta := readDamaged(t, bad)
	if n := slices.IndexFunc(meta.Warnings.List(), func(w trace.Warning) bool { return w.Key == "damaged-event" }); n < 0 {
		t.Errorf("no damaged-event warning: %+v", meta.Warnings.List())
	}
	if !covered(meta, first, last) {
		t.Errorf("no lost window of CPU 0 covers the bundle %d..%d: %+v", first, last, meta.Lost)
	}
	if meta.LostInFile < uint64(len(times)) {
		// (The block's events are lost in the file: at least its
		// switches, new-user pass 101 F2: lost 0.)
		t.Errorf("lost in the file %d, want at least the block's %d switches", meta.LostInFile, len(times))
	}
	for _, e := range evs {
		if e.CPU == 0 && e.Kind == trace.KindSwitch && e.Time > last {
			if e.TID != -1 {
				t.Errorf("first switch after the block at %d: previous task %d, want -1 (unknown)", e.Time, e.TID)
			}
			break
		}
	}
}

// TestDamagedCompactTime: a switch_timestamp delta of the same block made
// huge (its last varint byte set to 0x7f, adding up to 127<<(7k) ns)
// shifts every later time of the block: the whole block is skipped, not
// only the events that fall out of order (new-user pass 81 F4: the rest
// kept 459 µs late), and CPU 0 is unobserved over the bundle. No event
// of the damaged read lies after the intact file's last, and no switch of
// CPU 0 within the block's intact times is left.
func TestDamagedCompactTime(t *testing.T) {
	file, ts, _ := compactExport(t)
	times := deltas(ts)
	first, last := times[0], times[len(times)-1]
	bad := append([]byte(nil), file...)
	at := offsetIn(file, ts)
	// The fifth varint's last byte.
	for k := 0; k < 5; k++ {
		for ts[0]&0x80 != 0 {
			ts, at = ts[1:], at+1
		}
		if k < 4 {
			ts, at = ts[1:], at+1
		}
	}
	bad[at] = 0x7f
	whole, _ := readDamaged(t, file)
	evs, meta := readDamaged(t, bad)
	if n := slices.IndexFunc(meta.Warnings.List(), func(w trace.Warning) bool { return w.Key == "damaged-time" }); n < 0 {
		t.Fatalf("no damaged-time warning: %+v", meta.Warnings.List())
	}
	if !covered(meta, first, last) {
		t.Errorf("no lost window of CPU 0 covers the bundle %d..%d: %+v", first, last, meta.Lost)
	}
	end := whole[len(whole)-1].Time
	for _, e := range evs {
		if e.Time > end {
			t.Fatalf("event at %d after the intact file's last %d: %+v", e.Time, end, e)
		}
		// (The block's first four switches, before the damaged delta,
		// are in order: kept, they would be the block's, at its times.)
		if e.CPU == 0 && e.Kind == trace.KindSwitch && e.Time >= first && e.Time <= last {
			t.Fatalf("a switch of the damaged block kept: %+v", e)
		}
	}
}

// TestImpossibleSwitch: a sched_switch from a task to itself, the
// previous task of a compact one implied by the CPU's current task and
// the switches before it. By hand: CPU 0 current 5; compact switches
// to 7, then to 7 again (7 to 7: index 1); a full switch 3 -> 3 (index
// 0 of the second list); with no current task known the first compact
// switch is not judged.
func TestImpossibleSwitch(t *testing.T) {
	sw := func(compact bool, prev, next trace.TID) item {
		e := trace.NewEvent(1, 0, trace.KindSwitch)
		e.TID, e.NextTID = prev, next
		return item{ev: e, compact: compact}
	}
	curr := map[trace.CPU]trace.TID{0: 5}
	if got := impossibleSwitch([]item{sw(true, -1, 7), sw(true, -1, 7)}, curr, 0); got != 1 {
		t.Errorf("compact 5->7->7: %d, want 1", got)
	}
	if got := impossibleSwitch([]item{sw(false, 3, 3)}, curr, 0); got != 0 {
		t.Errorf("full 3->3: %d, want 0", got)
	}
	if got := impossibleSwitch([]item{sw(true, -1, 5), sw(true, -1, 6)}, map[trace.CPU]trace.TID{}, 0); got != -1 {
		t.Errorf("unknown current, 5 then 6: %d, want -1", got)
	}
}

// TestDamagedTimeWindowCoversDropped: when the block outOfOrder drops is
// the right one and the block before it, shifted later by a damaged
// delta, is kept, the window still covers the dropped block's times (new-
// user pass 86 F6: no window at all, delays of 100-220 ms measured across
// the hole), and, the kept block's times being in doubt, from the event
// before it on every CPU (pass 86 F2: another CPU's last run reached the
// shifted end). By hand, CPU 0's compact blocks in file order: A 100 200
// 300, B (shifted) 1400 1500 1600 1700, C 700 800; CPU 1 has full events
// at 250 and 1000. The longest ordered run of CPU 0 is A+B (7 events), so
// C is dropped; the kept event before it, B's 1700, is later than C's 700:
// B is suspect from A's 300, the event before it. The gap ends at the
// trace's last, 1700. Windows: CPU 0 and CPU 1, each 300 to 1700.
func TestDamagedTimeWindowCoversDropped(t *testing.T) {
	rd := &Reader{}
	add := func(ts ...int64) {
		start := len(rd.events)
		for _, x := range ts {
			e := trace.NewEvent(x, 0, trace.KindSwitch)
			e.TID, e.NextTID = 1, 2
			rd.markCompact(len(rd.events))
			rd.events = append(rd.events, e)
		}
		rd.spans = append(rd.spans, bundleSpan{start: start, end: len(rd.events), cpu: 0})
	}
	add(100, 200, 300)
	for _, x := range []int64{250, 1000} {
		e := trace.NewEvent(x, 1, trace.KindSwitch)
		e.TID, e.NextTID = 3, 4
		rd.events = append(rd.events, e)
	}
	add(1400, 1500, 1600, 1700)
	add(700, 800)
	rd.damageWindows()
	want := []trace.LostWindow{{CPU: 0, Start: 300, End: 1700}, {CPU: 1, Start: 300, End: 1700}}
	if !slices.Equal(rd.meta.Lost, want) {
		t.Errorf("lost windows %+v, want %+v", rd.meta.Lost, want)
	}
	for _, e := range rd.events {
		if e.Kind == trace.KindSwitch && (e.Time == 700 || e.Time == 800) {
			t.Errorf("C's switch at %d kept", e.Time)
		}
	}
}

// TestDamageWindowsNoSchedulerEvents: a damaged bundle of CPU 0 in a trace
// whose only event kept is a rename (no scheduler event, so no time to
// place a window in) gives no lost window, rather than one from the
// smallest to the largest int64.
func TestDamageWindowsNoSchedulerEvents(t *testing.T) {
	rd := &Reader{}
	e := trace.NewEvent(5, 0, trace.KindComm)
	e.TID, e.Comm = 7, "a"
	rd.events = []trace.Event{e}
	rd.damages = []damage{{off: 10, end: 10, idx: 0, idxEnd: 0, cpu: 0}}
	rd.damageWindows()
	if len(rd.meta.Lost) != 0 || len(rd.events) != 1 {
		t.Errorf("lost %+v, events %d; want none and the rename", rd.meta.Lost, len(rd.events))
	}
}

// TestCompactTargetCPUBeyond: one waking_target_cpu of a compact_sched
// block made 5 in a trace of 2 CPUs, in place (one byte for one byte,
// the column's length kept): that waking alone is skipped, one event
// fewer than the intact file, counted lost in the file, with a
// damaged-event warning naming the column and the value, and its CPU
// unobserved over a window that holds its time. Before, the whole block
// went (new-user pass 101: 765 events for one value).
func TestCompactTargetCPUBeyond(t *testing.T) {
	file, _, _ := compactExport(t)
	var col, wts []byte
	cpu := -1
	for off := len(file) / 2; off < len(file) && col == nil; {
		_, _, n := protowire.ConsumeTag(file[off:])
		pkt, m := protowire.ConsumeBytes(file[off+n:])
		off += n + m
		if b := field(pkt, fPacketFtraceEvents); b != nil {
			if cs := field(b, fBundleCompactSched); cs != nil {
				if c := field(cs, fCompactWakingTargetCPU); len(c) > 2 {
					col, wts, cpu = c, field(cs, fCompactWakingTimestamp), bundleCPUOf(b)
				}
			}
		}
	}
	if col == nil || len(deltas(wts)) != len(col) {
		t.Fatal("no compact block with wakings (one byte each) past the middle")
	}
	i := len(col) / 2
	if col[i] > 1 {
		t.Fatalf("target CPU byte %d", col[i])
	}
	bad := append([]byte(nil), file...)
	bad[offsetIn(file, col)+i] = 5
	notLost := func(evs []trace.Event) int {
		n := 0
		for _, e := range evs {
			if e.Kind != trace.KindLost {
				n++
			}
		}
		return n
	}
	whole, _ := readDamaged(t, file)
	got, meta := readDamaged(t, bad)
	ws := fmt.Sprint(meta.Warnings.List())
	if notLost(got) != notLost(whole)-1 || meta.LostInFile != 1 || !strings.Contains(ws, "compact_sched target_cpu 5 beyond the trace's 2 CPUs") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want one waking fewer, counted, named", notLost(got), notLost(whole), meta.LostInFile, ws)
	}
	at := deltas(wts)[i]
	held := false
	for _, w := range meta.Lost {
		held = held || w.CPU == trace.CPU(cpu) && w.Start <= at && at <= w.End
	}
	if !held {
		t.Errorf("lost windows %+v: none of CPU %d holds the waking at %d", meta.Lost, cpu, at)
	}
}
