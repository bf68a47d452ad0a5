package tvf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/traceview/traceview/trace"
)

// synthetic returns n events cycling through every kind, with every field
// set to varied values (including extremes and the -1 "unknown" ids), in
// time order.
func synthetic(n int, seed uint64) []trace.Event {
	rng := rand.New(rand.NewPCG(seed, 1))
	comms := []string{"", "swapper/0", "sched-messaging", "perf", "kworker/1:2H", "a much longer name than sixteen"}
	id := func() int32 {
		switch rng.IntN(4) {
		case 0:
			return -1
		case 1:
			return rng.Int32()
		default:
			return int32(1000 + rng.IntN(50))
		}
	}
	evs := make([]trace.Event, 0, n)
	t := int64(1_000_000_000_000)
	for i := 0; i < n; i++ {
		k := trace.Kind(1 + i%(len(trace.Kinds)-1))
		t += int64(rng.IntN(20000)) // equal timestamps happen (delta 0)
		e := trace.NewEvent(t, trace.CPU(rng.IntN(4)), k)
		if i%7 == 0 {
			e = trace.Event{Time: t, Kind: k} // zero ids, not -1
		}
		e.CurTID, e.CurPID = trace.TID(id()), trace.PID(id())
		e.TID, e.PID = trace.TID(id()), trace.PID(id())
		e.Comm = comms[rng.IntN(len(comms))]
		e.Prio = int32(rng.IntN(141)) - 1
		e.PrevState = trace.TaskState(rng.IntN(0x200))
		e.NextTID, e.NextPID = trace.TID(id()), trace.PID(id())
		e.NextComm = comms[rng.IntN(len(comms))]
		e.NextPrio = int32(rng.IntN(141)) - 1
		e.TargetCPU, e.WakerTID, e.WakerCPU = trace.CPU(id()), trace.TID(id()), trace.CPU(id())
		e.FromIRQ = trace.Tristate(rng.IntN(3) - 1)
		e.OrigCPU, e.DestCPU = trace.CPU(id()), trace.CPU(id())
		e.ChildTID, e.ChildPID = trace.TID(id()), trace.PID(id())
		e.ChildComm = comms[rng.IntN(len(comms))]
		e.Runtime = rng.Int64() - 1<<62
		pols := []trace.SchedPolicy{trace.PolicyUnknown, trace.PolicyNormal, trace.PolicyFIFO, trace.PolicyRR, trace.PolicyBatch, trace.PolicyIdle, trace.PolicyDeadline}
		e.Policy, e.NextPolicy = pols[rng.IntN(len(pols))], pols[rng.IntN(len(pols))]
		if rng.IntN(2) == 0 {
			e.Cgroup = rng.Uint64()
			e.Stack = trace.StackID(rng.Uint32())
		}
		if k == trace.KindLost {
			e.Count = rng.Uint64()
		}
		evs = append(evs, e)
	}
	return evs
}

func encode(t *testing.T, h Header, evs []trace.Event, lost []trace.LostWindow) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	w.AddTask(1, 1, "systemd")
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	w.SetLost(lost)
	w.SetCgroups(testCgroups)
	w.SetStacks(testStacks)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Events(); got != uint64(len(evs)) {
		t.Errorf("Events() = %d, want %d", got, len(evs))
	}
	if w.Bytes() != int64(buf.Len()) {
		t.Errorf("Bytes() = %d, file has %d", w.Bytes(), buf.Len())
	}
	return buf.Bytes()
}

func decodeAll(t *testing.T, r io.Reader) ([]trace.Event, *Reader) {
	t.Helper()
	tr, err := NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	return evs, tr
}

// onlyReader hides Seek, as a pipe would.
type onlyReader struct{ io.Reader }

// testCgroups and testStacks are the tables encode stores.
var (
	testCgroups = map[uint64]string{1: "/", 4242: "/system.slice/ssh.service"}
	testStacks  = []trace.Stack{
		{ID: 1, Frames: []trace.Frame{{Addr: 0xffffffff81000010, Func: "schedule", Module: "[kernel.kallsyms]", Kernel: true}, {Addr: 0x401000, Module: "/usr/bin/x", BuildID: "deadbeef"}}},
		{ID: 2, Frames: []trace.Frame{{Addr: 0x7f0000001234, Func: "read", Module: "/usr/lib/libc.so.6"}}},
	}
)

// TestOldVersions: files written by earlier format versions still read,
// their events equal to the perf.data's they were converted from, field for
// field (`traceview convert` of that version):
//
//   - testdata/v1-nice3.1cpu.tv, version 1 (22 optional fields, before
//     Cgroup and Stack), of the shared nice3.1cpu.perf.data: 1887 events;
//   - testdata/v2-nice.2cpu.tv, version 2 (24 optional fields, before
//     CurGone), of testdata/traces/nice.2cpu.perf.data: 2340 events (no
//     sample of a released task, so CurGone is 0 in both);
//   - testdata/v3-messaging.2cpu.tv, version 3 (25 optional fields, before
//     Policy and NextPolicy; written by main at d054cc2), of
//     testdata/traces/messaging.2cpu.perf.data: 6047 events (a perf.data
//     has no policies, so both are unknown in both).
//
// The converters of versions 1 and 2 dropped the FORK record perf writes
// before its first sample (one in each: perf's own thread), which the
// reader now delivers (TestForkRecordBeforeFirstSample): it is left out of
// the comparison.
func TestOldVersions(t *testing.T) {
	for _, c := range []struct {
		file, perf  string
		version, n  int
		forkDropped bool
	}{
		{"testdata/v1-nice3.1cpu.tv", "../../../shared/traces/nice3.1cpu.perf.data", 1, 1887, true},
		{"testdata/v2-nice.2cpu.tv", "../../testdata/traces/nice.2cpu.perf.data", 2, 2340, true},
		{"testdata/v3-messaging.2cpu.tv", "../../testdata/traces/messaging.2cpu.perf.data", 3, 6047, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, tr := decodeAll(t, f)
			if tr.Version() != c.version || len(got) != c.n {
				t.Fatalf("version %d, %d events; want version %d, %d events", tr.Version(), len(got), c.version, c.n)
			}
			if ws := tr.Meta().Warnings.List(); len(ws) != 0 {
				t.Errorf("warnings: %v", ws)
			}
			src, err := trace.Open(c.perf)
			if err != nil {
				t.Skipf("the perf.data is not here to compare with: %v", err)
			}
			defer src.Close()
			all, err := trace.ReadAll(src)
			if err != nil {
				t.Fatal(err)
			}
			var want []trace.Event
			for _, ev := range all {
				if !c.forkDropped || ev.Kind != trace.KindFork || ev.Time == 0 || ev.Time >= src.Meta().FirstTime {
					want = append(want, ev)
				}
			}
			if c.forkDropped && len(want) != len(all)-1 {
				t.Errorf("%d FORK records before the perf.data's first sample, want 1 (perf's, of its thread)", len(all)-len(want))
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events differ from the perf.data's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	h := Header{Hostname: "vm", OSRelease: "6.18.44", Arch: "x86_64", Tool: "test", Cmdline: []string{"traceview", "record", "--", "sh", "-c", "x"}, NrCPUs: 4, Clock: "CLOCK_MONOTONIC"}
	lost := []trace.LostWindow{{CPU: 1, Count: 7, Start: 5, End: 9}}
	for _, n := range []int{0, 1, 11, BlockEvents, 2*BlockEvents + 13} {
		evs := synthetic(n, uint64(n))
		file := encode(t, h, evs, lost)
		for _, seek := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(file)
			if !seek {
				r = onlyReader{r}
			}
			got, tr := decodeAll(t, r)
			if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("n=%d seek=%v: events differ (-want +got):\n%s", n, seek, diff)
			}
			if tr.Header().Hostname != "vm" || tr.Meta().NrCPUs != 4 || tr.Meta().Cmdline[5] != "x" {
				t.Errorf("n=%d: header not read back: %+v", n, tr.Header())
			}
			if diff := cmp.Diff(lost, tr.Meta().Lost); diff != "" {
				t.Errorf("n=%d seek=%v: lost windows differ:\n%s", n, seek, diff)
			}
			if ws := tr.Meta().Warnings.List(); len(ws) != 0 {
				t.Errorf("n=%d seek=%v: warnings on an intact file: %v", n, seek, ws)
			}
			if diff := cmp.Diff(testCgroups, tr.Meta().Cgroups); diff != "" {
				t.Errorf("n=%d seek=%v: cgroups differ:\n%s", n, seek, diff)
			}
			if diff := cmp.Diff(testStacks, tr.Meta().Stacks); diff != "" {
				t.Errorf("n=%d seek=%v: stacks differ:\n%s", n, seek, diff)
			}
			if tk := tr.Tasks(); len(tk) == 0 || tk[0] != (Task{TID: 1, PID: 1, Comm: "systemd"}) {
				t.Errorf("n=%d: task table starts %v, want systemd (tid 1)", n, tk[:min(1, len(tk))])
			}
		}
	}
}

// TestLossesKnownAtOpen: a seekable file gives the trailer's losses before
// the first event; a pipe only at the end.
func TestLossesKnownAtOpen(t *testing.T) {
	evs := []trace.Event{trace.NewEvent(10, 0, trace.KindSwitch), trace.NewEvent(20, 1, trace.KindLost)}
	evs[1].Count = 3
	file := encode(t, Header{}, evs, nil)
	tr, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	// No windows were set: one window per CPU spanning first..last time.
	want := []trace.LostWindow{{CPU: 1, Count: 3, Start: 10, End: 20}}
	if diff := cmp.Diff(want, tr.Meta().Lost); diff != "" {
		t.Errorf("losses at open (-want +got):\n%s", diff)
	}
	pr, err := NewReader(onlyReader{bytes.NewReader(file)})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Meta().Lost) != 0 {
		t.Errorf("pipe knows losses before reading: %v", pr.Meta().Lost)
	}
	trace.ReadAll(pr)
	if diff := cmp.Diff(want, pr.Meta().Lost); diff != "" {
		t.Errorf("losses at end of pipe (-want +got):\n%s", diff)
	}
}

// blockOffsets returns the offsets of the events frames of file.
func blockOffsets(file []byte) []int {
	var out []int
	for off := 12; off+frameHeaderSize <= len(file); {
		h, ok := parseFrameHeader(file[off:])
		if !ok {
			break
		}
		if h.typ == frameEvents {
			out = append(out, off)
		}
		off += frameHeaderSize + int(h.length)
	}
	return out
}

func warning(tr *Reader, key string) int {
	for _, w := range tr.Meta().Warnings.List() {
		if w.Key == key {
			return w.Count
		}
	}
	return 0
}

// TestCorruptBlock damages one byte inside the second of three blocks: that
// block's events are lost and counted, the others read intact, and the
// third block starts with a trace.KindLost on every CPU (CPU -1) at its
// first event's time, Count the events lost (0 when a damaged frame
// header hides how many): the span is time the trace did not see.
func TestCorruptBlock(t *testing.T) {
	evs := synthetic(3*BlockEvents, 42)
	file := encode(t, Header{}, evs, nil)
	offs := blockOffsets(file)
	if len(offs) != 3 {
		t.Fatalf("%d blocks, want 3", len(offs))
	}
	wantLost := func(n uint64) []trace.Event {
		lost := trace.NewEvent(evs[2*BlockEvents].Time, -1, trace.KindLost)
		lost.Count = n
		w := append(append([]trace.Event(nil), evs[:BlockEvents]...), lost)
		return append(w, evs[2*BlockEvents:]...)
	}
	cases := []struct {
		name   string
		at     int // byte to flip, relative to the second block
		key    string
		events int // damaged-block-events count
	}{
		{"payload", frameHeaderSize + 100, "damaged-block", BlockEvents},
		{"frame header", 9, "damaged-frame", 0}, // the length field
		{"sync bytes", 0, "damaged-frame", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(file)
			bad[offs[1]+c.at] ^= 0x5a
			for _, seek := range []bool{true, false} {
				var r io.Reader = bytes.NewReader(bad)
				if !seek {
					r = onlyReader{r}
				}
				got, tr := decodeAll(t, r)
				if diff := cmp.Diff(wantLost(uint64(c.events)), got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("seek=%v: events (-want +got):\n%s", seek, diff)
				}
				if n := warning(tr, c.key); n != 1 {
					t.Errorf("seek=%v: warning %q counted %d times, want 1: %v", seek, c.key, n, tr.Meta().Warnings.List())
				}
				if n := warning(tr, "damaged-block-events"); n != c.events {
					t.Errorf("seek=%v: %d events counted lost, want %d", seek, n, c.events)
				}
			}
		})
	}
}

// TestDamagedHeader damages the header frame (the file's first, at offset
// 12): every event still reads, none is counted lost and no KindLost hole
// is made (a header holds no events), the host is unknown, and one
// damaged-header warning says so: for a flipped payload byte (checksum
// mismatch) and for a flipped length field (the frame header itself,
// skipped up to the first block's sync). Before, the second was "events in
// them are lost" with a hole before the first event, and a second warning
// under the same key ("no header frame ... host and kernel unknown") was
// hidden as "(2 times)" under the first's message (new-user pass 15 F7).
func TestDamagedHeader(t *testing.T) {
	evs := synthetic(2*BlockEvents, 5)
	file := encode(t, Header{Hostname: "h1", OSRelease: "6.18"}, evs, nil)
	for _, c := range []struct {
		name string
		at   int // byte to flip, from offset 12
	}{{"payload", frameHeaderSize + 3}, {"frame header", 9}} {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(file)
			bad[12+c.at] ^= 0x5a
			got, tr := decodeAll(t, bytes.NewReader(bad))
			if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			m := tr.Meta()
			if n := warning(tr, "damaged-header"); n != 1 || len(m.Warnings.List()) != 1 {
				t.Errorf("warnings %v, want one damaged-header", m.Warnings.List())
			}
			if m.Hostname != "" || m.LostInFile != 0 {
				t.Errorf("host %q, %d events lost in the file; want no host, none lost", m.Hostname, m.LostInFile)
			}
		})
	}
}

// TestTruncated cuts a file inside its last block: the earlier blocks read,
// the cut is a warning, not an error.
func TestTruncated(t *testing.T) {
	evs := synthetic(2*BlockEvents+5, 7)
	file := encode(t, Header{}, evs, nil)
	offs := blockOffsets(file)
	for _, cut := range []int{offs[2] + 10, offs[2] + frameHeaderSize + 10, offs[2]} {
		got, tr := decodeAll(t, bytes.NewReader(file[:cut]))
		if len(got) != 2*BlockEvents {
			t.Errorf("cut at %d: %d events, want %d", cut, len(got), 2*BlockEvents)
		}
		if warning(tr, "truncated") != 1 {
			t.Errorf("cut at %d: warnings %v, want one truncated", cut, tr.Meta().Warnings.List())
		}
	}
	// Cut 10 bytes into the last block's payload: the message says how
	// many bytes of it are missing and how many events (the 5 after the
	// two full blocks).
	cut := offs[2] + frameHeaderSize + 10
	_, tr := decodeAll(t, bytes.NewReader(file[:cut]))
	h, _ := parseFrameHeader(file[offs[2]:])
	want := fmt.Sprintf("traceview format: file ends inside the frame at offset %d (10 of %d bytes: %d bytes missing; 5 events lost)%s", offs[2], h.length, h.length-10, cutRestText)
	// The synthetic events carry cgroup ids and stack ids, whose paths and
	// table were in the lost trailer: a warning says so of each
	// (new-user passes 16 F6, 46 F2).
	if ws := tr.Meta().Warnings.List(); len(ws) != 3 || ws[0].Message != want || ws[1].Key != "truncated-cgroups" || ws[2].Key != "truncated-stacks" {
		t.Errorf("cut at %d: warnings %+v, want %q, truncated-cgroups and truncated-stacks", cut, ws, want)
	}
}

// TestCutFileDatedAtOpen: a file cut short (no trailer) read from a file
// gives its first event's time in Meta before the first event, from its
// first block, so that a --rotate series holding it is still one
// recording (new-user pass 64 F2: read file by file).
func TestCutFileDatedAtOpen(t *testing.T) {
	evs := synthetic(2*BlockEvents+5, 7)
	file := encode(t, Header{}, evs, nil)
	offs := blockOffsets(file)
	cut := file[:offs[2]+10]
	r, err := NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	first := evs[0].Time
	for _, e := range evs {
		if e.Time > 0 && e.Time < first {
			first = e.Time
		}
	}
	if got := r.Meta().FirstTime; got != first {
		t.Errorf("first time at open %d, want %d (the first block's)", got, first)
	}
	got, _ := decodeAll(t, bytes.NewReader(cut))
	if len(got) != 2*BlockEvents {
		t.Errorf("%d events, want %d (reading is unchanged)", len(got), 2*BlockEvents)
	}
}

// cutRestText is what a cut file's warning ends with: no trailer was read
// (Reader.cutRest).
const cutRestText = "; the file ends there, without its task table and trailer: the capture may have gone on past this point, and how many events are missing after it is unknown"

func TestNotOurs(t *testing.T) {
	for _, in := range []string{"", "PERFILE2xxxxxxxxxxxxxxxxxxxxx", Magic + "\x09\x00\x00\x00"} {
		_, err := NewReader(strings.NewReader(in))
		if err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	var v [12]byte
	copy(v[:], Magic)
	binary.LittleEndian.PutUint32(v[8:], 9)
	if _, err := NewReader(bytes.NewReader(v[:])); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("future version: %v", err)
	}
	if _, err := NewReader(strings.NewReader("hello world!")); !errors.Is(err, trace.ErrCorrupt) {
		t.Errorf("bad magic: %v does not wrap trace.ErrCorrupt", err)
	}
}

// TestOpenByContent: trace.Open finds the format by its magic, whatever the
// file's name.
func TestOpenByContent(t *testing.T) {
	evs := synthetic(100, 3)
	p := filepath.Join(t.TempDir(), "capture.data")
	if err := os.WriteFile(p, encode(t, Header{Tool: "x"}, evs, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := trace.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if src.Meta().Format != "traceview" || len(got) != 100 {
		t.Errorf("format %q, %d events; want traceview, 100", src.Meta().Format, len(got))
	}
}

// FuzzReader: no input makes the reader panic or loop.
func FuzzReader(f *testing.F) {
	f.Add([]byte(Magic + "\x01\x00\x00\x00"))
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Hostname: "h"})
	for _, e := range synthetic(50, 1) {
		w.Write(e)
	}
	// Task-group settings, one of them contradicting itself.
	w.SetCgroupSettings([]trace.CgroupSettings{{Path: "/a", Weight: 50, Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000}, {Path: "/b", QuotaNS: 5}})
	w.SetCgroupStats([]trace.CgroupStat{{Path: "/a", Time: 9, NrPeriods: 3, NrThrottled: 2, ThrottledNS: 7}})
	w.Close()
	f.Add(buf.Bytes())
	// Three numbered blocks of 20 events (Sync ends a block), for the
	// block numbers' placing (sequence): removed, swapped, repeated.
	buf.Reset()
	w, _ = NewWriter(&buf, Header{Hostname: "h"})
	for i, e := range synthetic(60, 2) {
		w.Write(e)
		if i%20 == 19 {
			w.Sync()
		}
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		for i := 0; i < 1<<20; i++ {
			if _, err := tr.Next(); err != nil {
				return
			}
		}
	})
}

func BenchmarkWrite(b *testing.B) {
	evs := synthetic(BlockEvents, 5)
	b.ReportAllocs()
	w, _ := NewWriter(io.Discard, Header{})
	for i := 0; b.Loop(); i++ {
		w.Write(evs[i%len(evs)])
	}
	w.Close()
}

func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	evs := synthetic(4*BlockEvents, 5)
	for _, e := range evs {
		w.Write(e)
	}
	w.Close()
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		tr, _ := NewReader(bytes.NewReader(buf.Bytes()))
		n := 0
		for {
			if _, err := tr.Next(); err != nil {
				break
			}
			n++
		}
		if n != len(evs) {
			b.Fatal(n)
		}
	}
}

// TestDamagedHeaderAndBlock: zeros over the header frame and the start of
// the first event block (its frame header too): the reader skips to the
// second block, finding no frame start between, and the trailer's count
// says how many events the skipped bytes held: the first block's
// BlockEvents, counted lost in the file (new-user pass 18 F2: "no events
// among them", "lost: 0 events", 8192 events gone), and the second
// block's number where: at the start.
func TestDamagedHeaderAndBlock(t *testing.T) {
	evs := synthetic(2*BlockEvents, 5)
	file := encode(t, Header{Hostname: "h1", OSRelease: "6.18"}, evs, nil)
	offs := blockOffsets(file)
	bad := bytes.Clone(file)
	for i := 20; i < offs[0]+frameHeaderSize+64; i++ {
		bad[i] = 0
	}
	got, tr := decodeAll(t, bytes.NewReader(bad))
	m := tr.Meta()
	// The second block's number (2) says the first was lost: a lost
	// marker before its events makes the first block's span unobserved.
	if len(got) != BlockEvents+1 || !slices.Equal(lostMarkers(got), []int{0}) || m.LostInFile != BlockEvents || warning(tr, "damaged-skipped") != 1 || warning(tr, "damaged-block-missing") != 1 {
		t.Errorf("%d events read, lost markers at %v, %d lost in the file, warnings %v; want %d and a marker first, %d, one damaged-skipped and one damaged-block-missing", len(got), lostMarkers(got), m.LostInFile, m.Warnings.List(), BlockEvents+1, BlockEvents)
	}
}

// TestRepeatedBlock: a file holding one of its event blocks twice (the
// second of three copied in right after itself, the footer's tail offset
// moved by its length: every frame and checksum intact) reads the events
// once, with one damaged-block-repeated warning (new-user pass 36 F4: the
// copy's events were read again, 2750 delays counted twice, and nothing
// was said). A block of another file's joined in is more events than the
// trailer counts, whose number puts it out of place: skipped
// (damaged-block-order), and not counted lost (damaged-count-over).
func TestRepeatedBlock(t *testing.T) {
	evs := synthetic(3*BlockEvents, 7)
	file := encode(t, Header{}, evs, nil)
	offs := blockOffsets(file)
	if len(offs) != 3 {
		t.Fatalf("%d blocks, want 3", len(offs))
	}
	insert := func(block []byte) []byte {
		out := append(append(append([]byte(nil), file[:offs[2]]...), block...), file[offs[2]:]...)
		tail := binary.LittleEndian.Uint64(out[len(out)-8:])
		binary.LittleEndian.PutUint64(out[len(out)-8:], tail+uint64(len(block)))
		return out
	}
	got, tr := decodeAll(t, bytes.NewReader(insert(file[offs[1]:offs[2]])))
	if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("repeated block: events (-want +got):\n%s", diff)
	}
	if n := warning(tr, "damaged-block-repeated"); n != 1 {
		t.Errorf("repeated block: damaged-block-repeated %d times, want 1: %v", n, tr.Meta().Warnings.List())
	}
	other := encode(t, Header{}, synthetic(BlockEvents, 8), nil)
	ooffs := blockOffsets(other)
	got, tr = decodeAll(t, bytes.NewReader(insert(other[ooffs[0]:ooffs[0]+frameHeaderSize+int(binary.LittleEndian.Uint32(other[ooffs[0]+8:]))])))
	// Its number (1, after block 2) puts it out of place: skipped, and
	// beyond the trailer's count, so not lost either.
	if len(got) != 3*BlockEvents || tr.Meta().LostInFile != 0 || warning(tr, "damaged-block-order") != 1 || warning(tr, "damaged-count-over") != 1 || warning(tr, "damaged-block-repeated") != 0 {
		t.Errorf("a block joined in: %d events (want %d), %d lost (want 0), warnings %v", len(got), 3*BlockEvents, tr.Meta().LostInFile, tr.Meta().Warnings.List())
	}
}

// TestCopiedInPlace: a region from inside the second of three event
// blocks to the middle of the third copied in right after itself (a
// transfer that wrote a stretch twice): the third block's first copy
// runs into the copy and fails its checksum, the bytes after its stated
// length are skipped to the next frame header, which is the third block's
// again, now followed by its own rest. Every event is read once, none is
// counted lost, no lost marker enters the stream, and one
// damaged-block-reread warning says so (new-user pass 41 F1: 8192 events
// counted lost and their span unobserved, though read a few KiB on).
func TestCopiedInPlace(t *testing.T) {
	evs := synthetic(3*BlockEvents, 9)
	file := encode(t, Header{}, evs, nil)
	offs := blockOffsets(file)
	if len(offs) != 3 {
		t.Fatalf("%d blocks, want 3", len(offs))
	}
	a := offs[1] + 10
	c := offs[2] + frameHeaderSize + int(binary.LittleEndian.Uint32(file[offs[2]+8:]))/2
	dup := append(append(append([]byte(nil), file[:c]...), file[a:c]...), file[c:]...)
	tail := binary.LittleEndian.Uint64(dup[len(dup)-8:])
	binary.LittleEndian.PutUint64(dup[len(dup)-8:], tail+uint64(c-a))
	got, tr := decodeAll(t, bytes.NewReader(dup))
	if diff := cmp.Diff(evs, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	m := tr.Meta()
	if m.LostInFile != 0 || warning(tr, "damaged-block-reread") != 1 || warning(tr, "damaged-block") != 0 {
		t.Errorf("lost in file %d, warnings %v; want 0 and one damaged-block-reread", m.LostInFile, m.Warnings.List())
	}
}

// blockFrames returns the byte ranges [start, end) of file's event block
// frames, in file order.
func blockFrames(file []byte) [][2]int {
	var out [][2]int
	for _, off := range blockOffsets(file) {
		out = append(out, [2]int{off, off + frameHeaderSize + int(binary.LittleEndian.Uint32(file[off+8:]))})
	}
	return out
}

// lostMarkers returns the indexes of the KindLost events in evs.
func lostMarkers(evs []trace.Event) []int {
	var out []int
	for i, e := range evs {
		if e.Kind == trace.KindLost && e.CPU == -1 {
			out = append(out, i)
		}
	}
	return out
}

// TestBlockNumbers: the writer numbers its event blocks 1, 2, ... in
// their frame headers, and the reader places them by number. Of five
// blocks of BlockEvents events (synthetic: no KindLost on CPU -1 among
// them):
//   - block 2 removed whole: 4 blocks' events read, one lost marker right
//     before block 3's first event (index BlockEvents), a
//     damaged-block-missing warning, and the trailer's 8192 more events
//     counted lost "in the 1 event block(s) missing" (new-user pass 42 F1:
//     no marker, a made-up 616 ms delay across the gap, and "bytes
//     skipped" where none were);
//   - blocks 2 and 3 swapped: all events in their order, no marker, no
//     loss, one damaged-block-order warning (pass 42 F2);
//   - block 4 removed (the one before the last): the last is held for
//     its predecessor until the file ends, then read behind a marker;
//   - block 2 moved after block 4: blocks 1, 3, 4, 5 read (a marker
//     before block 3), block 2 skipped as out of place and counted lost;
//   - block 1 removed: every file starts at 1, so a marker goes first
//     (new-user pass 43 F1);
//   - block 5 removed: the trailer counts 5 blocks written, so a marker
//     goes last, after block 4's events (pass 43 F1).
func TestBlockNumbers(t *testing.T) {
	evs := synthetic(5*BlockEvents, 11)
	file := encode(t, Header{}, evs, nil)
	fr := blockFrames(file)
	if len(fr) != 5 {
		t.Fatalf("%d blocks, want 5", len(fr))
	}
	for i, f := range fr {
		if h, _ := parseFrameHeader(file[f[0]:]); h.seq != uint16(i+1) {
			t.Errorf("block %d numbered %d, want %d", i, h.seq, i+1)
		}
	}
	// rebuild writes the frames in order (indexes into fr), the rest of
	// the file as it was, the footer's tail offset moved by the change.
	rebuild := func(order ...int) []byte {
		out := append([]byte(nil), file[:fr[0][0]]...)
		for _, i := range order {
			out = append(out, file[fr[i][0]:fr[i][1]]...)
		}
		out = append(out, file[fr[4][1]:]...)
		tail := int64(binary.LittleEndian.Uint64(out[len(out)-8:]))
		binary.LittleEndian.PutUint64(out[len(out)-8:], uint64(tail+int64(len(out)-len(file))))
		return out
	}
	blocks := func(idx ...int) []trace.Event {
		var out []trace.Event
		for _, i := range idx {
			out = append(out, evs[i*BlockEvents:(i+1)*BlockEvents]...)
		}
		return out
	}
	without := func(got []trace.Event) []trace.Event {
		var out []trace.Event
		for _, e := range got {
			if !(e.Kind == trace.KindLost && e.CPU == -1) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		order   []int
		want    []trace.Event
		markers []int
		lost    uint64
		warning string
	}{
		{"block 2 removed", []int{0, 2, 3, 4}, blocks(0, 2, 3, 4), []int{BlockEvents}, BlockEvents, "damaged-block-missing"},
		{"blocks 2 and 3 swapped", []int{0, 2, 1, 3, 4}, evs, nil, 0, "damaged-block-order"},
		{"block 4 removed", []int{0, 1, 2, 4}, blocks(0, 1, 2, 4), []int{3 * BlockEvents}, BlockEvents, "damaged-block-missing"},
		{"block 2 after block 4", []int{0, 2, 3, 1, 4}, blocks(0, 2, 3, 4), []int{BlockEvents}, BlockEvents, "damaged-block-order"},
		{"block 1 removed", []int{1, 2, 3, 4}, blocks(1, 2, 3, 4), []int{0}, BlockEvents, "damaged-block-missing"},
		{"block 5 removed", []int{0, 1, 2, 3}, blocks(0, 1, 2, 3), []int{4 * BlockEvents}, BlockEvents, "damaged-block-missing"},
	} {
		got, tr := decodeAll(t, bytes.NewReader(rebuild(c.order...)))
		if diff := cmp.Diff(c.want, without(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", c.name, diff)
		}
		m := tr.Meta()
		if mk := lostMarkers(got); !slices.Equal(mk, c.markers) || m.LostInFile != c.lost || warning(tr, c.warning) != 1 {
			t.Errorf("%s: lost markers at %v (want %v), %d lost in the file (want %d), warnings %v (want one %s)", c.name, mk, c.markers, m.LostInFile, c.lost, m.Warnings.List(), c.warning)
		}
	}
}

// TestCutStacks: a file whose events carry stack ids (record --stacks),
// cut right after its last event block (the task table and the trailer,
// which holds the stack table, gone): every event is read, and a
// truncated-stacks warning says the callchains of the 100 events with a
// stack id are lost (new-user pass 46 F2: 6447 callchains lost with no
// word).
func TestCutStacks(t *testing.T) {
	evs := synthetic(2*BlockEvents, 12)
	for i := range evs {
		evs[i].Stack = 0
		if i%((2*BlockEvents)/100) == 0 && len(evs) > 0 {
			evs[i].Stack = 1
		}
	}
	var with int
	for _, e := range evs {
		if e.Stack != 0 {
			with++
		}
	}
	file := encode(t, Header{}, evs, nil)
	fr := blockFrames(file)
	got, tr := decodeAll(t, onlyReader{bytes.NewReader(file[:fr[len(fr)-1][1]])})
	if len(got) != len(evs) || warning(tr, "truncated-stacks") != 1 || !strings.Contains(fmt.Sprint(tr.Meta().Warnings.List()), fmt.Sprintf("the callchains of %d sched_switch events are lost", with)) {
		t.Errorf("%d events read (want %d), warnings %v; want one truncated-stacks of %d", len(got), len(evs), tr.Meta().Warnings.List(), with)
	}
}

// TestDamagedLastBlock: a byte flipped in the last of three numbered
// blocks: it is damaged (its events counted lost), not "missing at the
// file's end" as well (new-user pass 50 F2: the untrue line came first).
func TestDamagedLastBlock(t *testing.T) {
	evs := synthetic(3*BlockEvents, 13)
	file := encode(t, Header{}, evs, nil)
	fr := blockFrames(file)
	bad := bytes.Clone(file)
	bad[fr[2][0]+frameHeaderSize+100] ^= 0xff
	got, tr := decodeAll(t, bytes.NewReader(bad))
	if n := len(got) - len(lostMarkers(got)); n != 2*BlockEvents || tr.Meta().LostInFile != BlockEvents ||
		warning(tr, "damaged-block") != 1 || warning(tr, "damaged-block-missing") != 0 {
		t.Errorf("%d events, %d lost in the file, warnings %v; want %d, %d, damaged-block and no damaged-block-missing",
			n, tr.Meta().LostInFile, tr.Meta().Warnings.List(), 2*BlockEvents, BlockEvents)
	}
	// No intact block follows it: its time, from the second block's last
	// event to the trailer's last time (the third block's last event), is
	// unobserved on every CPU: a lost marker of unknown CPU at the end and
	// the span said (new-user pass 64 F1: a --rotate file's damaged last
	// block left 674 ms unsaid, delays measured across it in the series).
	lm := lostMarkers(got)
	last2, last3 := evs[2*BlockEvents-1].Time, evs[3*BlockEvents-1].Time
	if len(lm) != 1 || lm[0] != len(got)-1 || got[lm[0]].Time != last3 || warning(tr, "damaged-block-span") != 1 ||
		!strings.Contains(fmt.Sprint(tr.Meta().Warnings.List()), fmt.Sprintf("lay between %s s and %s s", trace.FormatSeconds(last2, 6), trace.FormatSeconds(last3, 6))) {
		t.Errorf("lost markers %+v, warnings %v; want one of CPU -1 at %d, last, and the span %d-%d", lm, tr.Meta().Warnings.List(), last3, last2, last3)
	}
}

// TestJoinedFiles: files joined end to end (cat a.tv b.tv c.tv) read as the
// first, described by its own header and trailer, with one warning that
// says where the next begins and how many bytes are not read (new-user
// pass 60 F2: the last file's command line and sample times described the
// first's events, and its blocks were "skipped (counted lost)"). The
// offsets: a's length, and the sum of the others'.
func TestJoinedFiles(t *testing.T) {
	mk := func(cmd string, n int, seed uint64) ([]byte, []trace.Event) {
		evs := synthetic(n, seed)
		return encode(t, Header{Hostname: "vm", Cmdline: []string{cmd}, NrCPUs: 4}, evs, nil), evs
	}
	a, evsA := mk("a", BlockEvents+7, 1)
	b, _ := mk("b", 11, 2)
	c, _ := mk("c", 2*BlockEvents, 3)
	for _, tc := range []struct {
		file  []byte
		files int
	}{{slices.Concat(a, b), 2}, {slices.Concat(a, b, c), 3}} {
		for _, seek := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(tc.file)
			if !seek {
				r = onlyReader{r}
			}
			got, tr := decodeAll(t, r)
			if diff := cmp.Diff(evsA, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%d files, seek %v: events are not a's (-want +got):\n%s", tc.files, seek, diff)
			}
			if m := tr.Meta(); len(m.Cmdline) != 1 || m.Cmdline[0] != "a" {
				t.Errorf("%d files, seek %v: command line %q, want a's", tc.files, seek, m.Cmdline)
			}
			want := fmt.Sprintf("traceview format: another traceview file begins at offset %d, after this one's footer (%d files joined, as by cat a.tv b.tv?): the %d bytes from there are not read, their events are not in the trace; read each file apart",
				len(a), tc.files, len(tc.file)-len(a))
			if !seek {
				// (a stream knows neither the count nor the rest's length)
				want = fmt.Sprintf("traceview format: another traceview file begins at offset %d, after this one's footer (files joined, as by cat a.tv b.tv?): it is not read, its events are not in the trace; read each file apart", len(a))
			}
			if ws := tr.Meta().Warnings.List(); len(ws) != 1 || ws[0].Key != "damaged-trailing-bytes" || ws[0].Message != want {
				t.Errorf("%d files, seek %v: warnings %+v\nwant %q", tc.files, seek, ws, want)
			}
		}
	}
}

// TestSkippedBeforeCut (new-user pass 89 F2): of four blocks, blocks 2 and
// 3 zeroed whole (their frame headers too: skipped as damaged bytes) and
// the file cut inside block 4, whose frame header is intact: its number,
// 4, after block 1's says 2 blocks lay in the skipped bytes, which a
// SkippedBlocksKey warning names (it said only "an unknown number after
// the cut").
func TestSkippedBeforeCut(t *testing.T) {
	evs := synthetic(4*BlockEvents, 14)
	file := encode(t, Header{}, evs, nil)
	fr := blockFrames(file)
	bad := bytes.Clone(file[:fr[3][0]+frameHeaderSize+(fr[3][1]-fr[3][0]-frameHeaderSize)/2])
	for i := fr[1][0]; i < fr[2][1]; i++ {
		bad[i] = 0
	}
	_, tr := decodeAll(t, onlyReader{bytes.NewReader(bad)})
	if !strings.Contains(fmt.Sprint(tr.Meta().Warnings.List()), "2 event block(s) lay in the bytes skipped as damaged before the frame cut") {
		t.Errorf("warnings %v; want the 2 blocks skipped before the cut named", tr.Meta().Warnings.List())
	}
}

// TestSkippedBlockCut (new-user pass 91 F9): a file of 5 blocks cut inside
// its fourth block (no trailer), with the second block zeroed (its frame
// header too, so it is skipped as bytes): block numbers jump from 1 to 3
// at the third, which names the 1 block in the skipped bytes with the
// SkippedBlocksKey warning. Before, only the cut block's events were
// counted, and the skipped block was in no count nor unknown number.
func TestSkippedBlockCut(t *testing.T) {
	evs := synthetic(5*BlockEvents, 14)
	file := encode(t, Header{}, evs, nil)
	fr := blockFrames(file)
	bad := bytes.Clone(file[:fr[3][0]+frameHeaderSize+(fr[3][1]-fr[3][0]-frameHeaderSize)/2])
	for i := fr[1][0]; i < fr[1][1]; i++ {
		bad[i] = 0
	}
	_, tr := decodeAll(t, onlyReader{bytes.NewReader(bad)})
	if warning(tr, SkippedBlocksKey) != 1 || !strings.Contains(fmt.Sprint(tr.Meta().Warnings.List()), "1 event block(s) lay in the bytes skipped as damaged before the block at offset ") {
		t.Errorf("warnings %v; want the 1 block skipped named (%s)", tr.Meta().Warnings.List(), SkippedBlocksKey)
	}
}
