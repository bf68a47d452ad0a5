package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

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
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	damage := func(add int) []byte {
		bad := append([]byte(nil), data...)
		pos := int(le.Uint64(data[40:48])) // perf_file_header.data.offset
		for n := 0; ; {
			typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
			if typ == recSample {
				if n++; n == 200 {
					if add == -1 { // onto the start of the record after next
						add = int(le.Uint16(bad[pos+size+6:]))
					}
					le.PutUint16(bad[pos+6:], uint16(size+add))
					return bad
				}
			}
			pos += size
		}
	}
	read := func(in any) ([]trace.Event, *trace.Meta) {
		var r *Reader
		var err error
		switch in := in.(type) {
		case string:
			f, ferr := os.Open(in)
			if ferr != nil {
				t.Fatal(ferr)
			}
			defer f.Close()
			r, err = NewReader(f)
		case []byte:
			r, err = NewReader(bytes.NewReader(in))
		}
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return evs, r.Meta()
	}
	warning := func(m *trace.Meta) string {
		for _, w := range m.Warnings.List() {
			if w.Key == "damaged-record-size" {
				return w.String()
			}
		}
		return ""
	}
	whole, _ := read(data)
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
		path := filepath.Join(t.TempDir(), "bad.perf.data")
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		mapped, m := read(path)
		if w := warning(m); !strings.Contains(w, "read on from offset") || !same(mapped) {
			t.Errorf("+%d, mapped: %d events (intact %d), warning %q; want the same events and the record re-framed", add, len(mapped), len(whole), w)
		}
		if add == -16 {
			continue // (a stream cannot read the rest of a record its size cut short)
		}
		stream, m := read(bad)
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
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	bad := append([]byte(nil), data...)
	pos := int(le.Uint64(data[40:48]))
	for n := 0; ; {
		typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
		if typ == recSample {
			if n++; n == 200 {
				bad[pos+8+7] ^= 0xff // the id's high byte
				break
			}
		}
		pos += size
	}
	count := func(b []byte) (int, *trace.Meta) {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs), r.Meta()
	}
	whole, _ := count(data)
	n, m := count(bad)
	if n != whole-1 || m.LostInFile != 1 || !strings.Contains(fmt.Sprint(m.Warnings.List()), "unknown sample id") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want one fewer, counted, warned", n, whole, m.LostInFile, m.Warnings.List())
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
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	bad := append([]byte(nil), data...)
	pos := int(le.Uint64(data[40:48]))
	for n := 0; n < 1000; {
		typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
		if typ == recSample {
			switch n++; n {
			case 200:
				le.PutUint16(bad[pos+6:], uint16(size+8))
			case 1000:
				le.PutUint64(bad[pos+32:], le.Uint64(bad[pos+32:])+50_000_000) // (perf sched record's layout: TIME at 32)
			}
		}
		pos += size
	}
	count := func(b []byte) (int, *trace.Meta) {
		path := filepath.Join(t.TempDir(), "f.perf.data")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path) // (mapped: the scan runs on mapped files only)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs), r.Meta()
	}
	whole, _ := count(data)
	n, m := count(bad)
	ws := fmt.Sprint(m.Warnings.List())
	if n != whole-1 || m.LostInFile != 1 || !strings.Contains(ws, "a damaged time, dropped") || strings.Contains(ws, "earlier than") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want one fewer, 1, the sample pushed ahead dropped alone", n, whole, m.LostInFile, ws)
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
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	read := func(bad []byte, mapped bool) ([]trace.Event, *trace.Meta) {
		var r *Reader
		var err error
		if mapped {
			path := filepath.Join(t.TempDir(), "f.perf.data")
			if err := os.WriteFile(path, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			f, ferr := os.Open(path)
			if ferr != nil {
				t.Fatal(ferr)
			}
			defer f.Close()
			r, err = NewReader(f)
		} else {
			r, err = NewReader(bytes.NewReader(bad))
		}
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return evs, r.Meta()
	}
	whole, _ := read(data, false)
	for _, size := range []uint16{0, 8} {
		bad := append([]byte(nil), data...)
		pos := int(le.Uint64(data[40:48]))
		for n := 0; ; {
			typ, sz := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
			if typ == recSample {
				if n++; n == 200 {
					le.PutUint16(bad[pos+6:], size)
					break
				}
			}
			pos += sz
		}
		for _, mapped := range []bool{true, false} {
			evs, m := read(bad, mapped)
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
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	bad := append([]byte(nil), data...)
	pos := int(le.Uint64(data[40:48]))
	cpu, moved := -1, 0
	for n := 0; moved < 3; {
		typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
		if typ == recSample {
			n++
			c := int(le.Uint32(bad[pos+40:])) // (perf sched record's layout: CPU at 40, TIME at 32)
			if n >= 1000 && (cpu < 0 || c == cpu) {
				cpu = c
				le.PutUint64(bad[pos+32:], le.Uint64(bad[pos+32:])+1_000_000_000)
				moved++
			}
		}
		pos += size
	}
	count := func(b []byte) (int, *trace.Meta) {
		path := filepath.Join(t.TempDir(), "f.perf.data")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs), r.Meta()
	}
	whole, _ := count(data)
	n, m := count(bad)
	if n != whole-3 || m.LostInFile != 3 || strings.Contains(fmt.Sprint(m.Warnings.List()), "earlier than") {
		t.Errorf("%d events (intact %d), %d lost in the file, warnings %v; want three fewer, 3, the three alone dropped", n, whole, m.LostInFile, m.Warnings.List())
	}
}

// TestDamagedSampleType (new-user pass 97 F6): nice.2cpu.perf.data's 200th
// sample's type made 16393 (9 with a bit flipped in its high byte): no
// type perf writes, and its fields end where its size says, so it is a
// sample with a damaged header: skipped, counted lost (1), warned as
// damage (damaged-record-type). Before, "unknown record type", lost 0.
func TestDamagedSampleType(t *testing.T) {
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	le := binary.LittleEndian
	bad := append([]byte(nil), data...)
	pos := int(le.Uint64(data[40:48]))
	for n := 0; ; {
		typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
		if typ == recSample {
			if n++; n == 200 {
				le.PutUint32(bad[pos:], 16393)
				break
			}
		}
		pos += size
	}
	r, err := NewReader(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	m := r.Meta()
	if m.LostInFile != 1 || !strings.Contains(fmt.Sprint(m.Warnings.List()), "holds a sample's fields: a damaged header") {
		t.Errorf("%d lost in the file, warnings %v; want 1, the damaged type named", m.LostInFile, m.Warnings.List())
	}
}
