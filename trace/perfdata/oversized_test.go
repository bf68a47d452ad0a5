package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// niceTrace returns a copy of nice.2cpu.perf.data, a perf sched record
// file (its samples' TIME at byte 32, CPU at 40), to damage.
func niceTrace(t *testing.T) []byte {
	t.Helper()
	return bytes.Clone(testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data")))
}

// readBack reads the perf.data b to its end, from a file (mapped: the
// look-ahead scan runs on mapped files only) or as a stream, and returns
// its events and Meta; an error fails the test.
func readBack(t *testing.T, b []byte, mapped bool) ([]trace.Event, *trace.Meta) {
	t.Helper()
	var evs []trace.Event
	var r *Reader
	var err error
	if mapped {
		path := filepath.Join(t.TempDir(), "f.perf.data")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r = openReader(t, path)
		evs, err = trace.ReadAll(r)
	} else {
		evs, r, err = drain(b, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	return evs, r.Meta()
}

// TestOversizedSample (new-user pass 89 F1: one flipped byte of a
// sched_switch's size made it 65384 bytes, 610 records inside it skipped
// without a word and a 293 ms delay measured across them): the size of
// nice.2cpu.perf.data's 200th sample record is raised by 4096, and by 8,
// so that its header frames the records after it inside it.
// Read from a file (mapped), the reader reads on from the record's true
// end: the same events as the intact file, and one damaged-record-size
// warning. Read as a stream (bytes.Reader: not mapped), the same: the
// bytes after its fields are read again before the rest.
func TestOversizedSample(t *testing.T) {
	data := niceTrace(t)
	le := binary.LittleEndian
	damage := func(add int) []byte {
		bad := bytes.Clone(data)
		pos := nthSample(t, bad, 199)
		size := int(le.Uint16(bad[pos+6:]))
		if add == -1 { // onto the start of the record after next
			add = int(le.Uint16(bad[pos+size+6:]))
		}
		le.PutUint16(bad[pos+6:], uint16(size+add))
		return bad
	}
	warning := func(m *trace.Meta) string {
		for _, w := range m.Warnings.List() {
			if w.Key == "damaged-record-size" {
				return w.String()
			}
		}
		return ""
	}
	whole, _ := readBack(t, data, false)
	same := func(evs []trace.Event) bool {
		if len(evs) != len(whole) {
			return false
		}
		for i := range evs {
			if evs[i].Time != whole[i].Time || evs[i].Kind != whole[i].Kind || evs[i].TID != whole[i].TID || evs[i].CPU != whole[i].CPU {
				return false
			}
		}
		return true
	}
	// 4096 bytes (new-user pass 89 F1: its high byte), and 8 (pass 90 F3:
	// 128 -> 136, the next record's header inside it, the 8 bytes after
	// it where the size says the next begins its fields).
	// And by the next record's size, onto a record's start (pass 91 F1:
	// no warning, the record between swallowed).
	// Made 16 bytes smaller (pass 91 F2: a header read inside its payload,
	// 60 % of the trace unread), a mapped file reads it whole.
	for _, add := range []int{4096, 8, -1, -16} {
		bad := damage(add)
		mapped, m := readBack(t, bad, true)
		if w := warning(m); !strings.Contains(w, "read on from offset") || !same(mapped) {
			t.Errorf("+%d, mapped: %d events (intact %d), warning %q; want the same events and the record re-framed", add, len(mapped), len(whole), w)
		}
		if add == -16 {
			continue // (a stream cannot read the rest of a record its size cut short)
		}
		stream, m := readBack(t, bad, false)
		if w := warning(m); !strings.Contains(w, "read on from offset") || !same(stream) {
			t.Errorf("+%d, stream: %d events (intact %d), warning %q; want the same events and the record re-framed", add, len(stream), len(whole), w)
		}
	}
}

// TestUnknownSampleID (new-user pass 90 F1: "lost: 0 events" and info
// exit 0): a byte of the 200th sample's id (PERF_SAMPLE_IDENTIFIER, its
// first field) changed makes it match no attribute: skipped, warned, and
// counted lost in the file (LostInFile 1), one event fewer.
func TestUnknownSampleID(t *testing.T) {
	data := niceTrace(t)
	bad := bytes.Clone(data)
	bad[nthSample(t, bad, 199)+8+7] ^= 0xff // the id's high byte
	whole, _ := readBack(t, data, false)
	evs, m := readBack(t, bad, false)
	if len(evs) != len(whole)-1 || m.LostInFile != 1 || !strings.Contains(fmt.Sprint(m.Warnings.List()), "unknown sample id") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want one fewer, counted, warned", len(evs), len(whole), m.LostInFile, m.Warnings.List())
	}
}

// TestSizeThenTimeAhead (new-user pass 91 F3): nice.2cpu.perf.data's 200th
// sample made 8 bytes longer (re-framed by the reader: TestOversizedSample)
// and its 1000th sample's time pushed 50 ms ahead, past its CPU's next
// sample. The look-ahead scan (scanLost) frames the damaged sample by its
// fields as the reader does, so it finds the time pushed ahead and the
// reader drops that one sample: one event fewer than the intact file, 1
// lost in the file. Before, the scan framed by the damaged size, read on
// from inside records, missed it, and the reader kept the outlier and
// dropped the CPU's good samples after it (19 in pass 91's file).
func TestSizeThenTimeAhead(t *testing.T) {
	data := niceTrace(t)
	le := binary.LittleEndian
	bad := bytes.Clone(data)
	late := nthSample(t, bad, 999) // (before the size damage shifts the framing)
	le.PutUint64(bad[late+32:], le.Uint64(bad[late+32:])+50_000_000)
	at := nthSample(t, bad, 199)
	le.PutUint16(bad[at+6:], le.Uint16(bad[at+6:])+8)
	whole, _ := readBack(t, data, true)
	evs, m := readBack(t, bad, true)
	ws := fmt.Sprint(m.Warnings.List())
	if len(evs) != len(whole)-1 || m.LostInFile != 1 || !strings.Contains(ws, "a damaged time, dropped") || strings.Contains(ws, "earlier than") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want one fewer, 1, the sample pushed ahead dropped alone", len(evs), len(whole), m.LostInFile, ws)
	}
}

// TestZeroSizeSample (new-user pass 93 F7): nice.2cpu.perf.data's 200th
// sample's size made 0 (no record has fewer than 8 bytes) or 8 (its
// header alone): its fields (IDENTIFIER, ..., RAW) say where it ends, and a
// record header is there, so the reader reads on from there, from a file
// (mapped) and from a stream: the same events as the intact file, and a
// damaged-record-size warning. Before, the read stopped there with 403 KB
// unread.
func TestZeroSizeSample(t *testing.T) {
	data := niceTrace(t)
	whole, _ := readBack(t, data, false)
	for _, size := range []uint16{0, 8} {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint16(bad[nthSample(t, bad, 199)+6:], size)
		for _, mapped := range []bool{true, false} {
			evs, m := readBack(t, bad, mapped)
			if len(evs) != len(whole) || !strings.Contains(fmt.Sprint(m.Warnings.List()), fmt.Sprintf("says %d bytes, and its fields end after", size)) {
				t.Errorf("size %d, mapped %v: %d events (intact %d), warnings %v", size, mapped, len(evs), len(whole), m.Warnings.List())
			}
		}
	}
}

// TestRunPushedAhead (new-user pass 94 F5): three samples of one CPU in a
// row (file order, from nice.2cpu.perf.data's 1000th sample on) pushed 1 s
// ahead: the look-ahead scan finds the run, which rose from the sample
// before it by as much as it falls to the next (1 s), and the reader drops
// the three alone: three events fewer than the intact file, 3 lost in the
// file. Before, the three were kept and the CPU's later samples dropped.
func TestRunPushedAhead(t *testing.T) {
	data := niceTrace(t)
	le := binary.LittleEndian
	bad := bytes.Clone(data)
	cpu, moved := uint32(0), 0
	for n := 999; moved < 3; n++ {
		at := nthSample(t, bad, n)
		if c := le.Uint32(bad[at+40:]); moved == 0 || c == cpu {
			cpu = c
			le.PutUint64(bad[at+32:], le.Uint64(bad[at+32:])+1_000_000_000)
			moved++
		}
	}
	whole, _ := readBack(t, data, true)
	evs, m := readBack(t, bad, true)
	if len(evs) != len(whole)-3 || m.LostInFile != 3 || strings.Contains(fmt.Sprint(m.Warnings.List()), "earlier than") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want three fewer, 3, the three alone dropped", len(evs), len(whole), m.LostInFile, m.Warnings.List())
	}
}

// TestDamagedSampleType (new-user pass 97 F6, 98 F6): nice.2cpu.perf.data's
// 200th sample's type made 16393 (9 with a bit flipped in its high byte),
// no type perf writes, or 3 (PERF_RECORD_COMM): either way its fields are
// still a sample's (an attribute's id where a sample holds it, the
// tracepoint data ending where its size says), so it is a sample with a
// damaged header: skipped, counted lost (1), warned as damage
// (damaged-record-type). Before, "unknown record type" for 16393, and a
// COMM at time 0 ("delivered late") for 3, lost 0.
func TestDamagedSampleType(t *testing.T) {
	for _, typ := range []uint32{16393, recComm} {
		bad := niceTrace(t)
		binary.LittleEndian.PutUint32(bad[nthSample(t, bad, 199):], typ)
		_, m := readBack(t, bad, false)
		if m.LostInFile != 1 || !strings.Contains(fmt.Sprint(m.Warnings.List()), "holds a sample's fields: a damaged header") {
			t.Errorf("type %d: %d lost in the file, warnings %v; want 1, the damaged type named", typ, m.LostInFile, m.Warnings.List())
		}
	}
}

// TestFirstRunPushedAhead (new-user pass 98 F5): CPU 1's first three
// samples of nice.2cpu.perf.data pushed 30 ms ahead. No sample of the CPU
// comes before them to tell by, but more samples than three follow them in
// order, all earlier than the first of them: the three are the ones
// stamped ahead, and the reader drops them alone (three events fewer, 3
// lost in the file). Before, they were kept and the CPU's good samples of
// the next 30 ms dropped. The other way round, the CPU's third sample
// pulled 30 ms back (its first two intact) is dropped alone: the sample
// after it is in order with the first two; and its samples 4-11 pulled 50
// ms back are the eight dropped, not its three intact first ones (pass 99
// F2: a run moved back, longer than the samples before it, took them).
func TestFirstRunPushedAhead(t *testing.T) {
	data := niceTrace(t)
	whole, _ := readBack(t, data, true)
	for _, c := range []struct {
		which []int // of CPU 1's first samples, 0-based
		delta int64
		lost  int
	}{{[]int{0, 1, 2}, 30_000_000, 3}, {[]int{2}, -30_000_000, 1}, {[]int{3, 4, 5, 6, 7, 8, 9, 10}, -50_000_000, 8}} {
		le := binary.LittleEndian
		bad := bytes.Clone(data)
		for n, k := 0, 0; k <= slices.Max(c.which); n++ {
			at := nthSample(t, bad, n)
			if le.Uint32(bad[at+40:]) != 1 {
				continue
			}
			if slices.Contains(c.which, k) {
				le.PutUint64(bad[at+32:], uint64(int64(le.Uint64(bad[at+32:]))+c.delta))
			}
			k++
		}
		evs, m := readBack(t, bad, true)
		if len(evs) != len(whole)-c.lost || m.LostInFile != uint64(c.lost) {
			t.Errorf("samples %v moved %d ns: %d events (intact %d), %d lost in the file, warnings %v; want %d fewer, counted", c.which, c.delta, len(evs), len(whole), m.LostInFile, m.Warnings.List(), c.lost)
		}
	}
}
