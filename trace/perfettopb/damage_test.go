package perfettopb_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfettopb"
)

// packetOffsets returns the offset and length (with its header) of each
// top-level packet of an intact file.
func packetOffsets(t *testing.T, data []byte) (offs, lens []int) {
	t.Helper()
	for off := 0; off < len(data); {
		_, _, n := protowire.ConsumeTag(data[off:])
		_, m := protowire.ConsumeBytes(data[off+n:])
		if n < 0 || m < 0 {
			t.Fatalf("bad packet at %d", off)
		}
		offs, lens = append(offs, off), append(lens, n+m)
		off += n + m
	}
	return offs, lens
}

// readAll reads data with NewReader: its events but the KindLost ones,
// and its Meta.
func readAll(t *testing.T, data []byte) ([]trace.Event, *trace.Meta) {
	t.Helper()
	r := readExport(t, data)
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []trace.Event
	for _, e := range evs {
		if e.Kind != trace.KindLost {
			out = append(out, e)
		}
	}
	return out, r.Meta()
}

// bundlePacket returns the index of a packet past the middle of the file
// whose first field is an ftrace bundle (TracePacket 1) with events.
func bundlePacket(t *testing.T, data []byte, offs []int) int {
	t.Helper()
	for k := len(offs) / 2; k < len(offs); k++ {
		_, _, n := protowire.ConsumeTag(data[offs[k]:])
		pkt, _ := protowire.ConsumeBytes(data[offs[k]+n:])
		if b := fields(t, pkt, 1); len(b) == 1 && len(fields(t, b[0], 2)) > 2 {
			return k
		}
	}
	t.Fatal("no bundle packet")
	return -1
}

// TestDamagedPacketTag: a packet whose tag byte is damaged (0x0a turned
// 0xff, which starts a longer varint tag) breaks the framing: the reader skips to the next packet (resync)
// and reads the rest, so it gives exactly the events of the file without
// that packet, with one damaged-packet warning naming the offset and the
// bytes skipped (the packet's length), and every CPU unobserved around
// the gap (new-user pass 79 F2: the whole file was refused).
func TestDamagedPacketTag(t *testing.T) {
	good := exportShared(t, "nice.2cpu.perf.data")
	offs, lens := packetOffsets(t, good)
	k := bundlePacket(t, good, offs)
	bad := append([]byte(nil), good...)
	bad[offs[k]] = 0xff
	without := append(append([]byte(nil), good[:offs[k]]...), good[offs[k]+lens[k]:]...)
	got, meta := readAll(t, bad)
	want, _ := readAll(t, without)
	if len(got) != len(want) {
		t.Fatalf("%d events, the file without the packet has %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Kind != want[i].Kind || got[i].Time != want[i].Time || got[i].CPU != want[i].CPU || got[i].TID != want[i].TID {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	msg := fmt.Sprintf("perfetto: %d bytes at offset %d are damaged (bad field ", lens[k], offs[k])
	if warningCount(meta, "damaged-packet") != 1 || !strings.Contains(fmt.Sprint(meta.Warnings.List()), msg) {
		t.Errorf("warnings %+v, want one %q", meta.Warnings.List(), msg)
	}
	if len(meta.Lost) == 0 {
		t.Error("no lost window around the skipped packet")
	}
}

// midEvent returns an event from the middle of a bundle past the middle
// of the export good (not a CPU's first: no window before the trace's
// start), as bytes of good, the event three before it in the bundle, and
// the bundle's CPU.
func midEvent(t *testing.T, good []byte) (ev, prev []byte, cpu uint64) {
	t.Helper()
	offs, _ := packetOffsets(t, good)
	k := bundlePacket(t, good, offs)
	_, _, n := protowire.ConsumeTag(good[offs[k]:])
	pkt, _ := protowire.ConsumeBytes(good[offs[k]+n:])
	bundle := fields(t, pkt, 1)[0]
	eachField(t, bundle, func(num protowire.Number, v uint64, _ []byte) {
		if num == 1 {
			cpu = v
		}
	})
	evs := fields(t, bundle, 2)
	return evs[len(evs)/2], evs[len(evs)/2-3], cpu
}

// windowHolds fails t unless one of meta's lost windows on cpu holds ts.
func windowHolds(t *testing.T, meta *trace.Meta, cpu, ts uint64) {
	t.Helper()
	for _, w := range meta.Lost {
		if w.CPU == trace.CPU(cpu) && w.Start <= int64(ts) && int64(ts) <= w.End {
			return
		}
	}
	t.Errorf("lost windows %+v: none on CPU %d holds %d", meta.Lost, cpu, ts)
}

// oneEventSkipped checks the read of bad, good with one event damaged (of
// CPU cpu, at time ts): one event fewer than good, one damaged-event
// warning, that event counted lost in the file (new-user passes 99 F3 and
// 101 F2: not in the lost line), and a window of cpu holding ts.
func oneEventSkipped(t *testing.T, good, bad []byte, cpu, ts uint64) {
	t.Helper()
	whole, _ := readAll(t, good)
	got, meta := readAll(t, bad)
	if len(got) != len(whole)-1 || warningCount(meta, "damaged-event") != 1 || meta.LostInFile != 1 {
		t.Errorf("%d events (the intact file's %d less one wanted), warnings %+v (one damaged-event wanted), %d lost in the file (1 wanted)", len(got), len(whole), meta.Warnings.List(), meta.LostInFile)
	}
	windowHolds(t, meta, cpu, ts)
}

// TestDamagedEvent: an event inside a bundle whose bytes are damaged
// (0xff over its body: no field tag reads) is skipped alone: the file
// reads with one event fewer than the intact one, a damaged-event
// warning, and the bundle's CPU unobserved over a window that holds the
// skipped event's time.
func TestDamagedEvent(t *testing.T) {
	good := exportShared(t, "nice.2cpu.perf.data")
	ev, _, cpu := midEvent(t, good)
	var ts uint64
	eachField(t, ev, func(num protowire.Number, v uint64, _ []byte) {
		if num == 1 { // FtraceEvent.timestamp
			ts = v
		}
	})
	at := bytes.Index(good, ev)
	bad := append([]byte(nil), good...)
	for i := range ev {
		bad[at+i] = 0xff
	}
	oneEventSkipped(t, good, bad, cpu, ts)
}

// TestEventFieldWireType (new-user pass 97 F7): an event inside a bundle
// whose event field (FtraceEvent's oneof, a message) is overwritten, same
// length, with varint fields of number 3 (print, a message): the event
// has no type traceview models, and its fields contradict the schema
// (every FtraceEvent field but timestamp, pid and common_flags is a
// message), so it is damage, not an event of a type not modelled: the
// file reads with one event fewer, a damaged-event warning, and the
// bundle's CPU unobserved over a window that holds the event's time.
func TestEventFieldWireType(t *testing.T) {
	good := exportShared(t, "nice.2cpu.perf.data")
	ev, _, cpu := midEvent(t, good)
	at := bytes.Index(good, ev)
	bad := append([]byte(nil), good...)
	var ts uint64
	for i := 0; i < len(ev); {
		num, typ, n := protowire.ConsumeTag(ev[i:])
		m := protowire.ConsumeFieldValue(num, typ, ev[i+n:])
		if num == 1 {
			ts, _ = protowire.ConsumeVarint(ev[i+n:])
		}
		if typ == protowire.BytesType {
			// The event field's bytes as "18 00" (field 3, varint 0)
			// pairs, a last odd byte folded in as "18 80 00" (0 in two
			// varint bytes).
			r := n + m
			fill := bad[at+i : at+i+r]
			for j := 0; j < r; {
				if r-j == 3 {
					copy(fill[j:], []byte{0x18, 0x80, 0x00})
					break
				}
				copy(fill[j:], []byte{0x18, 0x00})
				j += 2
			}
		}
		i += n + m
	}
	oneEventSkipped(t, good, bad, cpu, ts)
}

// TestEventTimeInBundle (new-user pass 98 F3): an event's timestamp made
// 1 us earlier than the event three before it in its bundle (the same
// varint length): within the bundle's span, so no other CPU's or bundle's
// time disagrees, but out of the bundle's order, which is its CPU's ring
// buffer's (the longest ordered run leaves out the one event, not the
// three): skipped as damaged (one event fewer, a damaged-event
// warning), its CPU unobserved between its neighbours, a window that
// holds its real time. Before, the bundle was sorted and the event read
// at the wrong time, exit 0.
func TestEventTimeInBundle(t *testing.T) {
	good := exportShared(t, "nice.2cpu.perf.data")
	ev, prev, cpu := midEvent(t, good)
	stamp := func(e []byte) (ts uint64, at int) {
		for i := 0; i < len(e); {
			num, typ, n := protowire.ConsumeTag(e[i:])
			if num == 1 {
				ts, _ = protowire.ConsumeVarint(e[i+n:])
				return ts, i + n
			}
			i += n + protowire.ConsumeFieldValue(num, typ, e[i+n:])
		}
		t.Fatal("an event without a timestamp")
		return 0, 0
	}
	ts, at := stamp(ev)
	before, _ := stamp(prev)
	moved := protowire.AppendVarint(nil, before-1000)
	if len(moved) != protowire.SizeVarint(ts) {
		t.Fatalf("timestamp %d and %d differ in varint length", ts, before-1000)
	}
	bad := append([]byte(nil), good...)
	copy(bad[bytes.Index(good, ev)+at:], moved)
	oneEventSkipped(t, good, bad, cpu, ts)
}

// TestBundleCPUBeyond (new-user pass 101 F5): a bundle's CPU number made
// 5 in a trace of 2 CPUs (system_info num_cpus): its events cannot be
// placed, so the packet is damaged: skipped with a damaged-packet warning
// naming the CPU, and its events (those of the bundle) counted lost in the
// file. Before, a CPU 5 read as written, exit 0.
func TestBundleCPUBeyond(t *testing.T) {
	good := exportShared(t, "nice.2cpu.perf.data")
	offs, _ := packetOffsets(t, good)
	k := bundlePacket(t, good, offs)
	_, _, n := protowire.ConsumeTag(good[offs[k]:])
	pkt, _ := protowire.ConsumeBytes(good[offs[k]+n:])
	bundle := fields(t, pkt, 1)[0]
	events := len(fields(t, bundle, 2))
	num, typ, m := protowire.ConsumeTag(bundle)
	if num != 1 || typ != protowire.VarintType || bundle[m] > 1 {
		t.Fatalf("the bundle does not start with its CPU (field %d, type %d)", num, typ)
	}
	bad := append([]byte(nil), good...)
	bad[bytes.Index(good, bundle)+m] = 5
	got, meta := readAll(t, bad)
	whole, _ := readAll(t, good)
	ws := fmt.Sprint(meta.Warnings.List())
	if len(got) != len(whole)-events || meta.LostInFile != uint64(events) || !strings.Contains(ws, "bundle of CPU 5, beyond the trace's 2 CPUs") {
		t.Errorf("%d events (intact %d, the bundle %d), %d lost in the file, warnings %v; want the bundle's events gone and counted, the CPU named", len(got), len(whole), events, meta.LostInFile, ws)
	}
}

// TestDamageSweep: 60 damaged copies of an export (one or ten bits
// flipped, a block zeroed or overwritten with random bytes, a block
// repeated), seeded, each read and measured: none fails to open, and
// none shows more run time in all, or a longer delay, than the intact
// file: damage loses events, it never adds busy time or waits (a flipped
// timestamp bit read 281476 s of run time before outOfOrder and
// outlyingEnds).
func TestDamageSweep(t *testing.T) {
	name := "nice.2cpu.perf.data"
	good := exportShared(t, name)
	measure := func(data []byte) (runtime, maxDelay int64, err error) {
		r, err := perfettopb.NewReader(bytes.NewReader(data))
		if err != nil {
			return 0, 0, err
		}
		res, err := report.ComputeLatency(r, report.LatencyOptions{})
		if err != nil {
			return 0, 0, err
		}
		for _, row := range res.Rows {
			runtime += row.Runtime
			maxDelay = max(maxDelay, row.MaxDelay)
		}
		return runtime, maxDelay, nil
	}
	wantRun, wantMax, err := measure(good)
	if err != nil || wantRun == 0 {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 {
		bad := append([]byte(nil), good...)
		var what string
		switch i % 5 {
		case 0, 1:
			flips := 1 + 9*(i%2)
			for range flips {
				bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
			}
			what = fmt.Sprintf("%d bits flipped", flips)
		case 2, 3:
			off, l := rng.IntN(len(bad)), []int{8, 256, 4096}[rng.IntN(3)]
			for j := off; j < off+l && j < len(bad); j++ {
				bad[j] = byte(rng.IntN(256) * (i % 5 % 2))
			}
			what = fmt.Sprintf("%d bytes at %d overwritten", l, off)
		case 4:
			off := rng.IntN(len(bad) - 4096)
			bad = append(append(append([]byte(nil), bad[:off+4096]...), bad[off:off+4096]...), bad[off+4096:]...)
			what = fmt.Sprintf("4096 bytes at %d repeated", off)
		}
		run, maxDelay, err := measure(bad)
		if err != nil {
			if !strings.Contains(err.Error(), "corrupt") && !strings.Contains(err.Error(), "no scheduler events") {
				t.Errorf("%s: %v", what, err)
			}
			continue
		}
		if run > wantRun || maxDelay > wantMax {
			t.Errorf("%s: run time %d ns, max delay %d ns; the intact file %d, %d", what, run, maxDelay, wantRun, wantMax)
		}
	}
}
