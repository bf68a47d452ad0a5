package tvf

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// TestDecodePrefix: a block cut short gives the events whose every value
// is before the cut. The block below holds, by hand, an exit of tid 5
// "a" at 1000 ns, a sched_stat_runtime of 300 ns of the same task at 2000
// ns and an exit of tid 6 "b" at 3000 ns: columns time, CPU, kind, mask,
// then the fields' (tid, pid, comm hold all three events' values, runtime
// only the second's). Cut at the start of the runtime column's data (its
// length read, its value not), the two exits are read whole and the
// runtime event is left out; cut one byte into the comm column (string
// indexes, one byte each), only the first event is; the block's count, 3,
// is reported either way. A .tv file cut inside its
// only block gave no event at all: its reader never decoded a partial
// block (see TestReaderCutBlock for what the zstd framing leaves of one).
func TestDecodePrefix(t *testing.T) {
	ev := func(at int64, kind trace.Kind, tid trace.TID, comm string, runtime int64) trace.Event {
		e := trace.NewEvent(at, 0, kind)
		e.TID, e.PID, e.Comm, e.Runtime = tid, trace.PID(tid), comm, runtime
		return e
	}
	evs := []trace.Event{
		ev(1000, trace.KindExit, 5, "a", 0),
		ev(2000, trace.KindRuntime, 5, "a", 300),
		ev(3000, trace.KindExit, 6, "b", 0),
	}
	b := newBlockEncoder()
	for i := range evs {
		b.add(&evs[i])
	}
	raw := b.bytes(nil)
	// colStart returns the offset of column c's data (after its length).
	colStart := func(c int) int {
		p := 0
		u := func() uint64 { v, n := binary.Uvarint(raw[p:]); p += n; return v }
		u() // events
		for ns := u(); ns > 0; ns-- {
			p += int(u())
		}
		for i := 0; ; i++ {
			l := u()
			if i == c {
				return p
			}
			p += int(l)
		}
	}
	intern := func(b []byte) string { return string(b) }
	full, err := decodeBlock(raw, nil, intern, Version)
	if err != nil || len(full) != 3 {
		t.Fatalf("whole block: %d events, %v", len(full), err)
	}
	for _, c := range []struct {
		name string
		cut  int
		want []trace.Event
	}{
		{"in runtime", colStart(colFields + fRuntime), []trace.Event{full[0], full[2]}},
		{"in comm", colStart(colFields+fComm) + 1, []trace.Event{full[0]}},
		{"whole", len(raw), full},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, n := decodePrefix(raw[:c.cut], nil, intern, Version)
			if n != 3 {
				t.Errorf("block count %d, want 3", n)
			}
			if d := cmp.Diff(c.want, got, cmp.Comparer(func(a, b trace.Event) bool { return a == b })); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

// TestReaderCutBlock: a file cut inside its only events block reads what
// the cut leaves of the block, and its warning says how much that is. The
// writer's zstd (SpeedFastest) compresses a block in 64 KiB pieces, each
// decodable only whole: testdata/traces/messaging.2cpu.perf.data written
// as one block of 6047 events (the writer's blocks hold 8192) and cut 100
// bytes before the block's end leaves its first 65536 raw bytes (of
// 121387, two of them the empty policy columns of format version 4): the time, CPU, kind and mask columns and the first fields'; no
// event has all its values there, so all 6047 are lost, as the warning
// now says (it said that bytes were missing, not why nothing was read).
func TestReaderCutBlock(t *testing.T) {
	file := gConvert(t, "../../testdata/traces/messaging.2cpu.perf.data")
	// The events frame: the first frame of type frameEvents.
	off, end := 12, 0
	for off+frameHeaderSize <= len(file) {
		h, ok := parseFrameHeader(file[off:])
		if !ok {
			t.Fatalf("no frame at offset %d", off)
		}
		if h.typ == frameEvents {
			if h.count != 6047 {
				t.Fatalf("events block of %d events, want 6047 (one block)", h.count)
			}
			end = off + frameHeaderSize + int(h.length)
			break
		}
		off += frameHeaderSize + int(h.length)
	}
	r, err := NewReader(bytes.NewReader(file[:end-100]))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 0 {
		t.Errorf("%d events, want 0", len(evs))
	}
	want := "file ends inside the frame at offset 1711 (40289 of 40389 bytes: 100 bytes missing" // after the header frame and the first tasks frame
	wantEnd := "; 6047 events lost): the block's first 65536 of 121387 raw bytes decompress, holding 0 of its 6047 events whole (an event needs its value in every column, and the columns are stored one after another)" + cutRestText
	var got []string
	found := false
	for _, w := range r.Meta().Warnings.List() {
		got = append(got, w.Key+": "+w.Message)
		found = found || w.Key == "truncated" && w.Count == 1 && strings.Contains(w.Message, want) && strings.HasSuffix(w.Message, wantEnd)
	}
	if !found {
		t.Errorf("no truncated warning %q...%q in %q", want, wantEnd, got)
	}
}

// gConvert writes the trace at path in this format, in memory, as
// 'traceview convert' does.
func gConvert(t *testing.T, path string) []byte {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, HeaderFromMeta(src.Meta()))
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
