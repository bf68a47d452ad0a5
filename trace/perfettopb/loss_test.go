package perfettopb_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfettopb"
	"github.com/traceview/traceview/trace/tvf"
)

// Tasks of the hand-made traces: A and B sleep and wake, C is woken
// after the losses.
const (
	tidA, tidB, tidC = 101, 102, 103
)

func comm(tid trace.TID) string {
	return map[trace.TID]string{0: "swapper", tidA: "a", tidB: "b", tidC: "c"}[tid]
}

// sw is a sched_switch on cpu from prev (state st) to next.
func sw(ns int64, cpu trace.CPU, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
	e := trace.NewEvent(ns, cpu, trace.KindSwitch)
	e.TID, e.PID, e.Comm, e.Prio, e.PrevState, e.CurTID = prev, trace.PID(prev), comm(prev), 120, st, prev
	e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), comm(next), 120
	return e
}

// wake is a sched_waking of tid onto cpu, by the idle task of cpu.
func wake(ns int64, cpu trace.CPU, tid trace.TID) trace.Event {
	e := trace.NewEvent(ns, cpu, trace.KindWaking)
	e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU, e.CurTID, e.CurPID = tid, trace.PID(tid), comm(tid), 120, cpu, 0, 0
	return e
}

func lostEv(ns int64, cpu trace.CPU, count uint64, ahead int64) trace.Event {
	e := trace.NewEvent(ns, cpu, trace.KindLost)
	e.Count, e.Runtime = count, ahead
	return e
}

// mark is what a test compares of a trace.KindLost.
type mark struct {
	CPU     trace.CPU
	Time    int64
	Runtime int64
	Count   uint64
}

func marks(evs []trace.Event) []mark {
	var out []mark
	for _, e := range evs {
		if e.Kind == trace.KindLost {
			out = append(out, mark{e.CPU, e.Time, e.Runtime, e.Count})
		}
	}
	return out
}

// exportAndRead writes src as a Perfetto trace and reads it back.
func exportAndRead(t *testing.T, src trace.Source) ([]byte, []trace.Event, *trace.Meta) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := perfettopb.Write(&buf, src, perfettopb.Options{}); err != nil {
		t.Fatal(err)
	}
	r, err := perfettopb.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), evs, r.Meta()
}

// lostBundles returns, per packet with an FtraceEventBundle with
// lost_events (TracePacket.ftrace_events 1; FtraceEventBundle cpu 1,
// event 2, lost_events 3, previous_bundle_end_timestamp 10), the packet's
// timestamp (TracePacket.timestamp 8) as a mark's Time, the bundle's CPU
// and its previous_bundle_end_timestamp as Runtime; it fails when such a
// bundle has events. finalFlush reports a TraceStats (TracePacket 35)
// with final_flush_outcome (15) FINAL_FLUSH_FAILED (2).
func lostBundles(t *testing.T, data []byte) (out []mark, finalFlush bool) {
	walk(t, data, func(_ protowire.Number, _ uint64, pkt []byte) {
		var ts int64
		walk(t, pkt, func(num protowire.Number, v uint64, b []byte) {
			switch num {
			case 8:
				ts = int64(v)
			case 35:
				walk(t, b, func(num protowire.Number, v uint64, _ []byte) {
					finalFlush = finalFlush || num == 15 && v == 2
				})
			case 1:
				m := mark{Time: ts}
				lost, events := false, 0
				walk(t, b, func(num protowire.Number, v uint64, _ []byte) {
					switch num {
					case 1:
						m.CPU = trace.CPU(v)
					case 2:
						events++
					case 3:
						lost = v != 0
					case 10:
						m.Runtime = int64(v)
					}
				})
				if lost && events > 0 {
					t.Errorf("a lost_events bundle with %d events", events)
				}
				if lost {
					out = append(out, m)
				}
			}
		})
	})
	return out, finalFlush
}

// TestLossesRoundTrip: the losses of a source go into the Perfetto trace
// and read back as the source gave them (before, each loss was a
// lost_events flag on its CPU's next bundle: read back at the CPU's next
// event, with the CPU's whole count on its first loss and no window
// length, and the source's file losses, windows and warnings were not
// written). The hand-made trace: CPU 0 runs A 100-200, CPU 1 runs B
// 150-250; then the case's losses; then A woken on CPU 0 at 700 and run
// at 800, B woken on CPU 1 at 900 and run at 950.
func TestLossesRoundTrip(t *testing.T) {
	head := []trace.Event{sw(100, 0, 0, 0, tidA), sw(150, 1, 0, 0, tidB), sw(200, 0, tidA, trace.TaskState(1), 0), sw(250, 1, tidB, trace.TaskState(1), 0)}
	tail := []trace.Event{wake(700, 0, tidA), sw(800, 0, 0, 0, tidA), wake(900, 1, tidB), sw(950, 1, 0, 0, tidB)}
	cat := func(mid ...trace.Event) []trace.Event {
		return append(append(append([]trace.Event(nil), head...), mid...), tail...)
	}
	for _, c := range []struct {
		name  string
		evs   []trace.Event
		meta  *trace.Meta
		marks []mark // read back
		wire  []mark // the lost bundles: CPU, packet timestamp, previous_bundle_end_timestamp as Runtime
		cut   bool
	}{
		{
			// Two losses on CPU 0, 5 events at 300 and 7 at 600:
			// ftrace_stats says 12 on CPU 0, the windows (attribute)
			// 5 and 7; before, the first read back 12, the second 0.
			name:  "two losses on a CPU",
			evs:   cat(lostEv(300, 0, 5, 0), lostEv(600, 0, 7, 0)),
			meta:  &trace.Meta{NrCPUs: 2, Lost: []trace.LostWindow{{CPU: 0, Count: 5, Start: 200, End: 300}, {CPU: 0, Count: 7, Start: 300, End: 600}}},
			marks: []mark{{0, 300, 0, 5}, {0, 600, 0, 7}},
			wire:  []mark{{0, 300, 0, 0}, {0, 600, 0, 0}},
		},
		{
			// A loss on every CPU at 500 (a .tv's missing block of 3
			// events, which its reader counts in LostInFile): a lost
			// bundle at 500 on each CPU with events, read back at 500
			// on both (before: at 700 on CPU 0 and 900 on CPU 1, the
			// CPUs' next events), LostInFile 3 and the warning.
			name: "a loss on every CPU",
			evs:  cat(lostEv(500, -1, 0, 0)),
			meta: func() *trace.Meta {
				m := &trace.Meta{NrCPUs: 2, LostInFile: 3}
				m.Warnings.Add("damaged-block-missing", "traceview format: 1 event block(s) missing")
				return m
			}(),
			marks: []mark{{0, 500, 0, 0}, {1, 500, 0, 0}},
			wire:  []mark{{0, 500, 0, 0}, {1, 500, 0, 0}},
		},
		{
			// A file cut short (as a perf.data's cut round): CPU 0
			// unobserved from its last event, 800, to the trace's
			// last, 950, known from its start (Runtime 150): a lost
			// bundle at 950 whose previous_bundle_end_timestamp is
			// 800, read back as the same KindLost; a TraceStats with a
			// failed final flush; the source's truncated warning, so
			// Meta.Cut.
			name: "a window known from its start, cut short",
			evs: func() []trace.Event {
				evs := cat() // (A switched in at 800 is CPU 0's last)
				return append(evs[:6:6], lostEv(800, 0, 0, 150), evs[6], evs[7])
			}(),
			meta: func() *trace.Meta {
				m := &trace.Meta{NrCPUs: 2, Lost: []trace.LostWindow{{CPU: 0, Start: 800, End: 950}}}
				m.Warnings.Add("truncated", "perf.data: the file ends inside a record")
				return m
			}(),
			marks: []mark{{0, 800, 150, 0}},
			wire:  []mark{{0, 950, 800, 0}},
			cut:   true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, evs, m := exportAndRead(t, trace.NewSliceSource(c.evs, c.meta))
			wire, flush := lostBundles(t, data)
			if diff := cmp.Diff(c.wire, wire); diff != "" || flush != c.cut {
				t.Errorf("lost bundles (-want +got):\n%s\nfinal flush failed %v, want %v", diff, flush, c.cut)
			}
			if diff := cmp.Diff(c.marks, marks(evs)); diff != "" {
				t.Errorf("lost events read back (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.meta.Lost, m.Lost, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Meta.Lost (-want +got):\n%s", diff)
			}
			if m.LostInFile != c.meta.LostInFile || m.Cut() != c.cut {
				t.Errorf("LostInFile %d, cut %v; want %d, %v", m.LostInFile, m.Cut(), c.meta.LostInFile, c.cut)
			}
			if diff := cmp.Diff(c.meta.Warnings.List(), m.Warnings.List(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDamagedTVRoundTrip: a .tv file written in blocks of 4 events, its
// second block removed (as the tester's d.drop10.tv), exported and read
// back. Blocks:
//
//	1: A runs on CPU 0 100-200, B on CPU 1 150-250
//	2: (removed) A woken and run on CPU 0 2000-2200, B woken on CPU 1 2300
//	3: C woken on CPU 1 at 5000; A switched in on CPU 0 at 6000; C on
//	   CPU 1 at 6500; both out at 7000 and 7100
//
// The .tv reader gives the gap as a loss on every CPU at 5000 (block 3's
// first event), 4 events lost in the file (block 2's count), and C's
// 1500 ns delay (5000 to 6500, after the gap). Read back, each CPU is
// marked lost at 5000 and C's delay is the same: before, CPU 0's mark
// was at its next event, 6000, so its window (200 to 6000) covered C's
// wait and the delay was left out as lossy (the tester's one delay of
// cat:2406), and the file's 4 lost events and the warnings were gone.
func TestDamagedTVRoundTrip(t *testing.T) {
	blocks := [][]trace.Event{
		{sw(100, 0, 0, 0, tidA), sw(150, 1, 0, 0, tidB), sw(200, 0, tidA, trace.TaskState(1), 0), sw(250, 1, tidB, trace.TaskState(1), 0)},
		{wake(2000, 0, tidA), sw(2100, 0, 0, 0, tidA), sw(2200, 0, tidA, trace.TaskState(1), 0), wake(2300, 1, tidB)},
		{wake(5000, 1, tidC), sw(6000, 0, 0, 0, tidA), sw(6500, 1, 0, 0, tidC), sw(7000, 1, tidC, trace.TaskState(1), 0), sw(7100, 0, tidA, trace.TaskState(1), 0)},
	}
	var buf bytes.Buffer
	w, err := tvf.NewWriter(&buf, tvf.Header{NrCPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		for _, e := range b {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := dropEventFrame(t, buf.Bytes(), 1)
	src, err := tvf.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if src.Meta().LostInFile != 4 || !cmp.Equal(marks(want), []mark{{-1, 5000, 0, 0}}) {
		t.Fatalf("the damaged .tv: %d lost in the file, lost events %v; want 4 and one of every CPU at 5000", src.Meta().LostInFile, marks(want))
	}
	_, got, m := exportAndRead(t, trace.NewSliceSource(want, src.Meta()))
	if diff := cmp.Diff([]mark{{0, 5000, 0, 0}, {1, 5000, 0, 0}}, marks(got)); diff != "" {
		t.Errorf("lost events read back (-want +got):\n%s", diff)
	}
	var keys []string
	for _, w := range m.Warnings.List() {
		keys = append(keys, w.Key)
	}
	if m.LostInFile != 4 || m.Cut() || !strings.Contains(strings.Join(keys, " "), "damaged-block-missing") {
		t.Errorf("read back: %d lost in the file, cut %v, warnings %v; want 4, not cut, damaged-block-missing", m.LostInFile, m.Cut(), keys)
	}
	for name, evs := range map[string][]trace.Event{"the .tv": want, "read back": got} {
		rows := perTask(t, trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 2}))
		if c := rows[tidC]; c.Count != 1 || c.MaxDelay != 1500 {
			t.Errorf("%s: C's delays %d, max %d ns; want 1 of 1500 ns", name, c.Count, c.MaxDelay)
		}
	}
}

// dropEventFrame returns file without its i-th (from 0) events frame,
// the footer's offset of the task table (its last 8 bytes) moved back by
// the bytes removed. A .tv file is 12 bytes of magic and version, then
// frames: "TVFR", the type ('E' events) at byte 4, the payload's length
// (u32) at byte 8, a 28-byte header in all (trace/tvf/format.go).
func dropEventFrame(t *testing.T, file []byte, i int) []byte {
	t.Helper()
	n := 0
	for off := 12; off+28 <= len(file) && string(file[off:off+4]) == "TVFR"; {
		end := off + 28 + int(binary.LittleEndian.Uint32(file[off+8:]))
		if file[off+4] == 'E' {
			if n == i {
				out := append(append([]byte(nil), file[:off]...), file[end:]...)
				tail := binary.LittleEndian.Uint64(out[len(out)-8:])
				binary.LittleEndian.PutUint64(out[len(out)-8:], tail-uint64(end-off))
				return out
			}
			n++
		}
		off = end
	}
	t.Fatalf("no events frame %d", i)
	return nil
}

// TestTracedLostBundle: a Perfetto trace as traced writes one, a CPU's
// second bundle flagged lost_events and a failed final flush: the loss
// reads back at the bundle's first event (500) with its window from the
// CPU's previous event (200), not from 500 (the tester's zero-length
// windows), and the failed flush as a truncated warning (Meta.Cut). Hand-encoded: Trace.packet 1; TracePacket ftrace_events
// 1, trace_stats 35; FtraceEventBundle cpu 1, event 2, lost_events 3;
// FtraceEvent timestamp 1, pid 2, sched_switch 4; SchedSwitchFtraceEvent
// prev_pid 2, prev_state 4, next_pid 6; TraceStats final_flush_outcome 15.
func TestTracedLostBundle(t *testing.T) {
	msg := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	num := func(n protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, n, protowire.VarintType), v)
	}
	switchEv := func(ns uint64, prev, next uint64) []byte {
		body := append(append(num(2, prev), num(4, 1)...), num(6, next)...)
		return msg(2, append(append(num(1, ns), num(2, prev)...), msg(4, body)...))
	}
	bundle := func(lost bool, evs ...[]byte) []byte {
		b := num(1, 0)
		for _, e := range evs {
			b = append(b, e...)
		}
		if lost {
			b = append(b, num(3, 1)...)
		}
		return msg(1, msg(1, b))
	}
	var data []byte
	data = append(data, bundle(false, switchEv(100, 0, tidA), switchEv(200, tidA, 0))...)
	data = append(data, bundle(true, switchEv(500, 0, tidA), switchEv(600, tidA, 0))...)
	data = append(data, msg(1, msg(35, num(15, 2)))...)
	r, err := perfettopb.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Meta()
	if diff := cmp.Diff([]mark{{0, 500, 0, 0}}, marks(evs)); diff != "" {
		t.Errorf("lost events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]trace.LostWindow{{CPU: 0, Start: 200, End: 500}}, m.Lost); diff != "" {
		t.Errorf("Meta.Lost (-want +got):\n%s", diff)
	}
	if ws := m.Warnings.List(); len(ws) != 1 || ws[0].Key != "truncated" || !strings.Contains(ws[0].Message, "final flush failed") || !m.Cut() {
		t.Errorf("warnings %v, cut %v; want one truncated of the failed final flush", ws, m.Cut())
	}
}
