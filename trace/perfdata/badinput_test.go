package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// The repo's own small traces (testdata/traces):
//   - sched-pipe-mode.data: `perf sched record -o - -- true` (perf 6.12.95,
//     Linux 6.18, pipe mode);
//   - nosched-cpu-clock.data: `perf record -e cpu-clock -F 50 -a --synth=no
//     -- sleep 0.01` (file mode, no tracepoints).
const (
	pipeTrace    = "../../testdata/traces/sched-pipe-mode.data"
	noSchedTrace = "../../testdata/traces/nosched-cpu-clock.data"
	// sched-compressed.data: perf record -z (zstd), see its meta file.
	compressedTrace = "../../testdata/traces/sched-compressed.data"
	// sched-compressed-big.data: perf sched record -z, compressed records
	// of more than one zstd block (its meta file).
	compressedBigTrace = "../../testdata/traces/sched-compressed-big.data"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openPath opens the perf.data file at path (mapped, as the commands
// read a file) and its reader, the file closed when the test ends.
func openPath(t testing.TB, path string) *Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// drain reads every event of data (through a seekable reader unless pipe),
// returning the events and the error that ended the stream (nil for EOF).
func drain(data []byte, pipe bool) ([]trace.Event, *Reader, error) {
	var in io.Reader = bytes.NewReader(data)
	if pipe {
		in = io.MultiReader(in) // not seekable
	}
	r, err := NewReader(in)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs, r, nil
		}
		if err != nil {
			return evs, r, err
		}
		evs = append(evs, ev)
	}
}

type span struct{ off, size int }

// records walks the records of a stream from off to end.
func records(b []byte, off, end int) []span {
	var out []span
	for off+8 <= end {
		size := int(binary.LittleEndian.Uint16(b[off+6:]))
		typ := binary.LittleEndian.Uint32(b[off:])
		out = append(out, span{off, size})
		if typ == recTracingData {
			size += int(binary.LittleEndian.Uint32(b[off+8:])+7) &^ 7
		}
		off += size
	}
	return out
}

// dataSection returns the data section bounds of a file-mode perf.data.
func dataSection(b []byte) (int, int) {
	off := int(binary.LittleEndian.Uint64(b[40:]))
	return off, off + int(binary.LittleEndian.Uint64(b[48:]))
}

func sharedTrace(t *testing.T, name string) []byte {
	b, err := os.ReadFile(sharedTraces + "/" + name)
	if err != nil {
		t.Skipf("%s: %v", name, err)
	}
	return b
}

func TestBadHeaders(t *testing.T) {
	pipe := readFile(t, pipeTrace)
	file := readFile(t, noSchedTrace)
	dataOff, dataEnd := dataSection(file)
	for _, c := range []struct {
		name    string
		data    []byte
		want    error
		message string
	}{
		{"empty", nil, trace.ErrCorrupt, "header at offset 0: 0 of 16 bytes: truncated"},
		{"wrong magic", []byte("PERFILE1xxxxxxxxxxxxxxxxxxxxxxxxxxxx"), ErrNotPerfData, "not a perf.data"},
		{"text", []byte("# tracer: nop\n"), ErrNotPerfData, "not a perf.data"},
		{"truncated file header", file[:50], trace.ErrCorrupt, "file header at offset 0: truncated"},
		{"truncated pipe header", pipe[:12], trace.ErrCorrupt, "header at offset 0: 12 of 16 bytes: truncated"},
		{"truncated attrs", file[:dataOff-8], trace.ErrCorrupt, "past the end of the file"},
		// Cut inside the data or the features, the file is read (see
		// TestTruncatedFile); this one holds no sched events.
		{"truncated in data", file[:dataOff+(dataEnd-dataOff)/2], ErrNoSchedEvents, "events in the file: attr0"},
		{"truncated features", file[:len(file)-20], ErrNoSchedEvents, "events in the file: cpu-clock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, pipeIn := range []bool{false, true} {
				_, _, err := drain(c.data, pipeIn)
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.message) {
					t.Errorf("pipe input %v: error %v, want %q wrapping %v", pipeIn, err, c.message, c.want)
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("multi-line error %q", err)
				}
			}
		})
	}
}

// A pipe stream cut short (`perf sched record -o - | head -c N`) delivers
// every complete record's event and ends with a counted "truncated"
// warning naming the offset of the cut record, not an error: an error
// would make the commands discard the events read.
func TestTruncatedPipe(t *testing.T) {
	b := readFile(t, pipeTrace)
	recs := records(b, pipeHeaderSize, len(b))
	cut := recs[len(recs)*2/3]
	whole, rw, err := drain(b[:cut.off], true)
	if err != nil {
		t.Fatalf("stream cut at a record boundary: %v", err)
	}
	// Cut at a record boundary inside a round: perf ends every stream with
	// a FINISHED_ROUND, so the events after the last one say it was cut
	// (it read with no warning). The whole stream ends with one: none.
	if w := warningCounts(rw); w["truncated-round"] != 1 || rw.Meta().CutAt != int64(cut.off) {
		t.Errorf("cut at the record boundary %d: warnings %v, CutAt %d; want truncated-round", cut.off, w, rw.Meta().CutAt)
	}
	if _, rf, err := drain(b, true); err != nil || warningCounts(rf)["truncated-round"] != 0 {
		t.Errorf("whole stream: %v, warnings %v; want no truncated-round", err, warningCounts(rf))
	}
	for _, end := range []int{cut.off + cut.size/2 + 1, cut.off + 5} { // inside the record, inside its header
		got, r, err := drain(b[:end], true)
		if err != nil {
			t.Fatalf("cut at %d: error %v, want a warning", end, err)
		}
		w := r.Meta().Warnings.List()
		if len(w) == 0 || w[len(w)-1].Key != "truncated" || w[len(w)-1].Count != 1 ||
			!strings.Contains(w[len(w)-1].Message, "at offset "+strconv.Itoa(cut.off)) {
			t.Errorf("cut at %d: warnings %+v, want one truncated warning at offset %d", end, w, cut.off)
		}
		if len(got) != len(whole) || len(got) < 100 {
			t.Errorf("cut at %d: truncated stream delivered %d events, the complete records hold %d", end, len(got), len(whole))
		}
	}
	// Cut before or inside the tracing data: the stream is cut short
	// (it said "tracepoints recorded but no tracing data ...: corrupt
	// trace", as of a file without them).
	for _, r := range recs {
		if binary.LittleEndian.Uint32(b[r.off:]) == recTracingData {
			_, _, err := drain(b[:r.off], true)
			want := fmt.Sprintf("the pipe-mode stream ends after %d bytes, before its tracing data", r.off)
			if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cut short") {
				t.Errorf("cut before the tracing data at %d: %v; want %q", r.off, err, want)
			}
			_, _, err = drain(b[:r.off+100], true)
			if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), "tracing data") || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("cut in tracing data: %v", err)
			}
		}
	}
	// Cut at the end of its tracing data, before any sample: cut short (it
	// read as a recording without sched_switch: "record with 'perf sched
	// record'").
	for _, r := range recs {
		if binary.LittleEndian.Uint32(b[r.off:]) == recTracingData {
			end := r.off + r.size + int(binary.LittleEndian.Uint32(b[r.off+8:]))
			_, rd, err := drain(b[:end], true)
			if err != nil || warningCounts(rd)["truncated-round"] != 1 || rd.Meta().CutAt != int64(end) {
				t.Errorf("cut after the tracing data at %d: %v, warnings %v, CutAt %d", end, err, warningCounts(rd), rd.Meta().CutAt)
			}
		}
	}
	// Cut before or inside its first attr record (the 16-byte header
	// alone, or 14 bytes into the first record): cut short too, not "no
	// sched tracepoints recorded", which sent the user to re-record.
	for _, end := range []int{pipeHeaderSize, pipeHeaderSize + 14} {
		_, _, err := drain(b[:end], true)
		want := "the pipe-mode stream ends after 16 bytes, before the description of its first event"
		if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), want) || errors.Is(err, ErrNoSchedEvents) {
			t.Errorf("cut at %d: %v; want %q", end, err, want)
		}
	}
}

// A record whose size field is broken (under 8 bytes) ends the records
// there as a cut does: the events before it are delivered, then io.EOF,
// with a warning that names its offset and the bytes left unread (it was
// an error, and a zeroed block made the whole run fail).
func TestCorruptRecordSize(t *testing.T) {
	b := sharedTrace(t, "pipe.perf.data")
	dataOff, dataEnd := dataSection(b)
	recs := records(b, dataOff, dataEnd)
	bad := recs[len(recs)/2]
	c := append([]byte(nil), b...)
	// (Its type too: a sample's fields would say where it ends,
	// TestZeroSizeSample.)
	binary.LittleEndian.PutUint32(c[bad.off:], 0)
	binary.LittleEndian.PutUint16(c[bad.off+6:], 4)
	got, r, err := drain(c, false)
	if err != nil {
		t.Fatalf("error %v", err)
	}
	want := fmt.Sprintf("damaged record header at offset %d: it says 4 bytes, and every record has at least 8, so the records after it cannot be found, %d bytes of the data section after it unread: the trace ends there", bad.off, dataEnd-bad.off)
	found := false
	for _, w := range r.Meta().Warnings.List() {
		found = found || w.Key == "damaged-record-size" && strings.Contains(w.Message, want)
	}
	if !found {
		t.Errorf("no damaged-record-size warning %q in %v", want, r.Meta().Warnings.List())
	}
	if len(got) < len(recs)/4 {
		t.Errorf("only %d events before the corrupt record %d of %d", len(got), len(recs)/2, len(recs))
	}
}

func TestNoSchedTracepoints(t *testing.T) {
	evs, r, err := drain(readFile(t, noSchedTrace), false)
	if !errors.Is(err, ErrNoSchedEvents) || !strings.Contains(err.Error(), "cpu-clock") {
		t.Fatalf("error %v, want ErrNoSchedEvents naming cpu-clock", err)
	}
	if r.HasSched() {
		t.Error("HasSched")
	}
	for _, ev := range evs {
		if ev.Kind != trace.KindComm && ev.Kind != trace.KindExec && ev.Kind != trace.KindFork && ev.Kind != trace.KindExit {
			t.Errorf("unexpected event %v", ev)
		}
	}
	if got := r.SampleCounts()["cpu-clock"]; got == 0 {
		t.Errorf("cpu-clock samples %d", got)
	}
}

// timeOfSample returns a sched sample's time field (sample_type
// IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER: time at byte 32).
func timeOfSample(b []byte, r span) uint64 { return binary.LittleEndian.Uint64(b[r.off+32:]) }

// LOST records: we turn a sched_stat_runtime sample on CPU 1 into a
// PERF_RECORD_LOST of the same size, {id, lost=1234} then the sample_id
// trailer {pid,tid; time; cpu,res; identifier} at the record's end.
func TestLostRecord(t *testing.T) {
	b := sharedTrace(t, "pipe.perf.data")
	c := append([]byte(nil), b...)
	dataOff, dataEnd := dataSection(c)
	full, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	var victim span
	var prevOnCPU1 uint64
	for _, r := range records(c, dataOff, dataEnd) {
		if binary.LittleEndian.Uint32(c[r.off:]) != recSample {
			continue
		}
		cpu := binary.LittleEndian.Uint32(c[r.off+40:])
		if cpu != 1 {
			continue
		}
		if prevOnCPU1 != 0 && r.size >= 8+16+32 {
			victim = r
			break
		}
		prevOnCPU1 = timeOfSample(c, r)
	}
	if victim.size == 0 {
		t.Fatal("no sample on CPU 1")
	}
	tm := timeOfSample(c, victim)
	id := binary.LittleEndian.Uint64(c[victim.off+8:])
	rec := c[victim.off : victim.off+victim.size]
	binary.LittleEndian.PutUint32(rec, recLost)
	binary.LittleEndian.PutUint64(rec[8:], id)
	binary.LittleEndian.PutUint64(rec[16:], 1234)
	tr := rec[len(rec)-32:]
	binary.LittleEndian.PutUint32(tr, 0)
	binary.LittleEndian.PutUint32(tr[4:], 0)
	binary.LittleEndian.PutUint64(tr[8:], tm)
	binary.LittleEndian.PutUint32(tr[16:], 1)
	binary.LittleEndian.PutUint64(tr[24:], id)

	evs, r, err := drain(c, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(full) {
		t.Errorf("%d events, want %d (one sample became a LOST event)", len(evs), len(full))
	}
	want := []trace.LostWindow{{CPU: 1, Count: 1234, Start: int64(prevOnCPU1), End: int64(tm)}}
	if got := r.Meta().Lost; len(got) != 1 || got[0] != want[0] {
		t.Errorf("lost windows %+v, want %+v", got, want)
	}
	// The event says the window ahead: from where the loss began (CPU
	// 1's previous sample, or the earliest time still to come) with its
	// length, ending at the LOST record's time.
	n := 0
	for _, ev := range evs {
		if ev.Kind == trace.KindLost {
			n++
			if ev.Count != 1234 || ev.CPU != 1 || ev.Time+ev.Runtime != int64(tm) || ev.Time < int64(prevOnCPU1) || ev.Runtime <= 0 {
				t.Errorf("lost event %+v, want it from %d or later to %d", ev, prevOnCPU1, tm)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d lost events, want 1", n)
	}
	// perf's own modes (KeepRepeats) keep perf's time, the record's.
	pr, err := NewReader(bytes.NewReader(c))
	if err != nil {
		t.Fatal(err)
	}
	pr.KeepRepeats()
	all, err := trace.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range all {
		if ev.Kind == trace.KindLost && (ev.Time != int64(tm) || ev.Runtime != 0) {
			t.Errorf("KeepRepeats: lost event %+v, want it at %d", ev, tm)
		}
	}
}

// Unknown record types are skipped and counted; nothing else is lost.
func TestUnknownRecordType(t *testing.T) {
	b := sharedTrace(t, "pipe.perf.data")
	c := append([]byte(nil), b...)
	dataOff, dataEnd := dataSection(c)
	n := 0
	for _, r := range records(c, dataOff, dataEnd) {
		if binary.LittleEndian.Uint32(c[r.off:]) == recMMAP {
			binary.LittleEndian.PutUint32(c[r.off:], 200)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no MMAP record to retype")
	}
	full, _, _ := drain(b, false)
	evs, r, err := drain(c, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(full) {
		t.Errorf("%d events, want %d", len(evs), len(full))
	}
	w := r.Meta().Warnings.List()
	if len(w) != 1 || w[0].Key != "unknown-record-type" || w[0].Count != n || !strings.Contains(w[0].Message, "type 200") {
		t.Errorf("warnings %+v, want %d unknown-record-type", w, n)
	}
}

// With a reordering window far smaller than a round, events are released
// early: all are still delivered, the window overflow is counted, and the
// order breaks only where a late event had to be let through (counted).
func TestSmallReorderWindow(t *testing.T) {
	b := sharedTrace(t, "messaging.2cpu.perf.data")
	full, _, _ := drain(b, false)
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r.MaxPending = 64
	n, backwards := 0, 0
	last := int64(0)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time < last {
			backwards++
		}
		last = max(last, ev.Time)
		n++
	}
	if n != len(full) {
		t.Errorf("%d events, want %d", n, len(full))
	}
	var overflow, late int
	for _, w := range r.Meta().Warnings.List() {
		switch w.Key {
		case "reorder-window-full":
			overflow = w.Count
		case "out-of-order":
			late = w.Count
		}
	}
	if overflow == 0 {
		t.Error("no reorder-window-full warning")
	}
	if backwards > late {
		t.Errorf("%d events went back in time, only %d counted", backwards, late)
	}
}

// A file-mode perf.data read from a pipe is spilled to a temporary file and
// gives the same events.
func TestFileModeFromPipe(t *testing.T) {
	b := sharedTrace(t, "nice.2cpu.perf.data")
	a, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := drain(b, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(p) || a[len(a)-1] != p[len(p)-1] {
		t.Errorf("pipe read %d events, file read %d", len(p), len(a))
	}
}

func TestMeta(t *testing.T) {
	_, r, err := drain(sharedTrace(t, "pipe.perf.data"), false)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Meta()
	// From pipe.meta.txt's `perf report --header-only`.
	if m.Hostname != "vm" || m.OSRelease != "6.18.44-fc-v782" || m.Arch != "x86_64" || m.Tool != "perf 6.1.187" ||
		m.NrCPUs != 2 || m.NrCPUsAvail != 2 || m.FirstTime != 754328751694 || m.LastTime != 754364705932 ||
		strings.Join(m.Cmdline, " ") != "/usr/bin/perf sched record -o pipe.perf.data -- sh -c perf bench sched pipe -l 1000" {
		t.Errorf("meta %+v", m)
	}
	names := strings.Join(r.EventNames(), ",")
	if names != "sched:sched_switch,sched:sched_stat_runtime,sched:sched_process_fork,sched:sched_wakeup_new,sched:sched_migrate_task,sched:sched_waking,dummy:HG" {
		t.Errorf("event names %s", names)
	}
}

// A zstd-compressed perf.data (perf record -z) whose second compressed
// record is damaged: the records before it are delivered and the stream
// ends there with a "damaged-compressed" warning naming the record (the
// records after it are in the same zstd stream); it was an error that
// discarded them.
func TestTruncatedCompressed(t *testing.T) {
	b := readFile(t, compressedTrace)
	dataOff, dataEnd := dataSection(b)
	var comp []span
	for _, r := range records(b, dataOff, dataEnd) {
		if binary.LittleEndian.Uint32(b[r.off:]) == recCompressed {
			comp = append(comp, r)
		}
	}
	if len(comp) < 2 {
		t.Fatalf("%d compressed records", len(comp))
	}
	// Corrupt the second compressed payload: the first one's events come
	// out, then a one-line error naming the record.
	c := append([]byte(nil), b...)
	for i := comp[1].off + 8; i < comp[1].off+comp[1].size; i++ {
		c[i] ^= 0x5a
	}
	evs, r, err := drain(c, false)
	m := r.Meta()
	if err != nil {
		t.Fatalf("error %v, want the events before the damage and a warning", err)
	}
	var warned bool
	for _, w := range m.Warnings.List() {
		warned = warned || w.Key == "damaged-compressed" && strings.Contains(w.Message, "compressed record at offset "+strconv.Itoa(comp[1].off))
	}
	if !warned || m.CutAt != int64(comp[1].off) {
		t.Errorf("warnings %v, CutAt %d; want a damaged-compressed warning naming offset %d, and CutAt there", m.Warnings.List(), m.CutAt, comp[1].off)
	}
	if len(evs) == 0 {
		t.Error("no events from the first compressed record")
	}
}

// TestCutInsideCompressed: a `perf record -z` file cut (`head -c`) three
// quarters into its largest compressed record reads the records whose
// zstd blocks are whole in the part there: more events than the file cut
// at that record's start, each one an event of the whole file, and a
// truncated warning that names the record's type, 81 (new-user pass 79
// F3: 14 events, those before the record, and the type read as
// 3078622259 from a buffer the record's own read had moved).
func TestCutInsideCompressed(t *testing.T) {
	b := readFile(t, compressedBigTrace)
	dataOff, dataEnd := dataSection(b)
	var big span
	for _, r := range records(b, dataOff, dataEnd) {
		if binary.LittleEndian.Uint32(b[r.off:]) == recCompressed && r.size > big.size {
			big = r
		}
	}
	if big.size < 1024 {
		t.Fatalf("largest compressed record %d bytes", big.size)
	}
	whole, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := drain(b[:big.off], false)
	cut := big.off + 8 + (big.size-8)*3/4
	evs, r, err := drain(b[:cut], false)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) <= len(before) {
		t.Errorf("%d events cut inside the record, %d cut at its start: none decoded from its part", len(evs), len(before))
	}
	type key struct {
		k    trace.Kind
		cpu  trace.CPU
		time int64
		tid  trace.TID
	}
	in := map[key]int{}
	for _, e := range whole {
		in[key{e.Kind, e.CPU, e.Time, e.TID}]++
	}
	for _, e := range evs {
		if e.Kind == trace.KindLost {
			continue
		}
		k := key{e.Kind, e.CPU, e.Time, e.TID}
		if in[k] == 0 {
			t.Fatalf("event %+v is not in the whole file", e)
		}
		in[k]--
	}
	want := fmt.Sprintf("record of type %d at offset %d: %d of %d bytes; its %d bytes there decompressed to", recCompressed, big.off, cut-big.off, big.size, cut-big.off-8)
	if !strings.Contains(fmt.Sprint(r.Meta().Warnings.List()), want) {
		t.Errorf("warnings %v, want one with %q", r.Meta().Warnings.List(), want)
	}
}

// A stream whose tracing data (the tracepoint formats) is missing cannot
// decode its tracepoints: a clear error, not an empty trace.
func TestNoTracingData(t *testing.T) {
	b := readFile(t, pipeTrace)
	var c []byte
	for _, r := range records(b, pipeHeaderSize, len(b)) {
		if binary.LittleEndian.Uint32(b[r.off:]) == recTracingData {
			n := int(binary.LittleEndian.Uint32(b[r.off+8:])+7) &^ 7
			c = append(append([]byte(nil), b[:r.off]...), b[r.off+r.size+n:]...)
		}
	}
	_, _, err := drain(c, true)
	if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), "no tracing data") {
		t.Errorf("error %v", err)
	}
}

// TestCompressedBadRecordSize: a record decompressed from a perf record
// -z file whose header says size 0 (damage that passes zstd's checks: the
// reader's buffer of decompressed records is overwritten once some are
// held). The records after it cannot be framed: the trace ends there with
// a damaged-compressed warning, the events before it read, no error
// (new-user pass 13 F2: "record size 0: corrupt trace" failed the run
// after 311,410 events read).
func TestCompressedBadRecordSize(t *testing.T) {
	whole, _, err := drain(readFile(t, compressedTrace), false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(readFile(t, compressedTrace)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, damaged := 0, false
	for {
		if !damaged && r.decomp != nil && r.decomp.pending() >= 8 {
			r.decomp.buf[r.decomp.pos+6], r.decomp.buf[r.decomp.pos+7] = 0, 0
			damaged = true
		}
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d events: %v; want the events before the damage and a warning", n, err)
		}
		n++
	}
	var warned bool
	for _, w := range r.Meta().Warnings.List() {
		warned = warned || w.Key == "damaged-compressed" && strings.Contains(w.Message, "record size 0")
	}
	// (The reader decompresses a record ahead: the first one it holds
	// here is among the file's last, so the events read can be all of
	// the whole file's.)
	if !damaged || !warned || n == 0 || n > len(whole) {
		t.Errorf("damaged %v, %d of %d events, warnings %v; want a damaged-compressed one naming the record size 0 and the events before it", damaged, n, len(whole), r.Meta().Warnings.List())
	}
}

// TestDamagedHeaderAfterRound (new-user pass 23 F4): records that stop at
// a damaged header just after a FINISHED_ROUND (one read from the damage
// itself, here a real one) were taken for a cut at a round's end, where
// every CPU's buffer was written: "every event before it was read", and
// a CPU whose buffer came after the damage read as idle up to the end
// (its tasks' runs there counted as 768 ms of waiting). The records after
// it are unread, so every CPU is unobserved from its last event to the
// last one read: lossy-messaging.perf.data with the header after its
// middle FINISHED_ROUND zeroed has a Count 0 window on a CPU that ends at
// the last event's time, and the warning says the records are unread.
func TestDamagedHeaderAfterRound(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/lossy-messaging.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	dataOff, dataEnd := dataSection(b)
	recs := records(b, dataOff, dataEnd)
	var rounds []int
	for i, s := range recs[:len(recs)-1] {
		if binary.LittleEndian.Uint32(b[s.off:]) == recFinishedRound {
			rounds = append(rounds, i)
		}
	}
	if len(rounds) < 3 {
		t.Fatalf("%d rounds", len(rounds))
	}
	next := recs[rounds[len(rounds)/2]+1]
	c := append([]byte(nil), b...)
	copy(c[next.off:next.off+8], make([]byte, 8)) // (the whole header: a sample's fields would say where it ends)
	evs, r, err := drain(c, false)
	if err != nil || len(evs) == 0 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	last := evs[len(evs)-1].Time
	var msg string
	for _, w := range r.Meta().Warnings.List() {
		if w.Key == "damaged-record-size" {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "the records after it are unread: perf writes each CPU's buffer in turn") || strings.Contains(msg, "every event before it was read") {
		t.Errorf("warning %q", msg)
	}
	cut := false
	for _, l := range r.Meta().Lost {
		cut = cut || l.Count == 0 && l.End == last && l.Start < last
	}
	if !cut {
		t.Errorf("no CPU unobserved up to the last event (%d ns): %v", last, r.Meta().Lost)
	}
}

// TestTrailingBytes: a perf.data with another appended (cat
// nice.2cpu.perf.data pipe.perf.data: 255921 + 621609 bytes) reads as the
// first, and says that the 621609 bytes after its last section, from
// offset 255921, are another perf.data, not read (new-user pass 60 F1:
// nothing said). The events are the first file's alone, read from a file
// or a pipe; bytes that are not a perf.data header are said as such; the
// file alone has no such warning.
func TestTrailingBytes(t *testing.T) {
	a := readFile(t, "../../testdata/traces/nice.2cpu.perf.data")
	b := readFile(t, "../../testdata/traces/pipe.perf.data")
	alone, ra, err := drain(a, false)
	if err != nil {
		t.Fatal(err)
	}
	if ws := ra.Meta().Warnings.List(); slices.ContainsFunc(ws, func(w trace.Warning) bool { return w.Key == "damaged-trailing-bytes" }) {
		t.Errorf("the file alone: %+v", ws)
	}
	for _, c := range []struct {
		tail []byte
		want string
	}{
		{b, "perf.data: 621609 bytes follow the file's last section (it ends at offset 255921 of 877530): another perf.data (its PERFILE2 header is there: `tail -c +255922` of the file, uncompressed, is that one); not read, its events are not in the trace"},
		{bytes.Repeat([]byte{0xab}, 100), "perf.data: 100 bytes follow the file's last section (it ends at offset 255921 of 256021): not perf.data records; not read, its events are not in the trace"},
	} {
		for _, pipe := range []bool{false, true} {
			evs, r, err := drain(append(slices.Clone(a), c.tail...), pipe)
			if err != nil {
				t.Fatalf("pipe %v: %v", pipe, err)
			}
			if len(evs) != len(alone) {
				t.Errorf("pipe %v: %d events, the file alone %d", pipe, len(evs), len(alone))
			}
			i := slices.IndexFunc(r.Meta().Warnings.List(), func(w trace.Warning) bool { return w.Key == "damaged-trailing-bytes" })
			if i < 0 || r.Meta().Warnings.List()[i].Message != c.want {
				t.Errorf("pipe %v: warnings %+v\nwant %q", pipe, r.Meta().Warnings.List(), c.want)
			}
		}
	}
}

// TestCutAfterData: a perf.data cut right after its data section (its
// feature sections gone, HEADER_SAMPLE_TIME with them) reads every event
// the whole file gives: the traced command's PERF_RECORD_FORK, written
// before the tracepoints were enabled, is before the first sample found in
// the data's first round (scanFirstSample), as the header's time says of
// the whole file (new-user pass 61 F4: the workload's fork dropped, the
// trace starting 79 ms later). Checked on every shared perf.data whose
// whole reading has such a fork.
func TestCutAfterData(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/traces/*.perf.data")
	checked := 0
	for _, f := range files {
		b := readFile(t, f)
		if len(b) < 56 || string(b[:8]) != "PERFILE2" {
			continue
		}
		end := binary.LittleEndian.Uint64(b[40:]) + binary.LittleEndian.Uint64(b[48:])
		if end >= uint64(len(b)) {
			continue
		}
		whole, _, err := drain(b, false)
		if err != nil {
			continue
		}
		cut, _, err := drain(b[:end], false)
		if err != nil {
			t.Errorf("%s cut at %d: %v", f, end, err)
			continue
		}
		count := func(evs []trace.Event) (n int, forks int) {
			for i := range evs {
				if trace.Counted(&evs[i]) {
					n++
					if evs[i].Kind == trace.KindFork {
						forks++
					}
				}
			}
			return
		}
		nw, fw := count(whole)
		nc, fc := count(cut)
		if nc != nw || fc != fw {
			t.Errorf("%s cut after its data section: %d events, %d forks; whole %d, %d", filepath.Base(f), nc, fc, nw, fw)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("%d files checked", checked)
	}
}

// TestJoinedPipeStreams: a pipe-mode stream with another perf.data after
// it (two `perf record -o -` outputs joined by cat: sched-pipe-mode.data,
// 99820 bytes, twice; or a file-mode perf.data after it) reads as the
// stream alone: the same events and losses, with one
// damaged-trailing-bytes warning that says where the second begins and
// how many bytes are not read (new-user pass 69 F2: the second header was
// read as records, "unknown record type 1179796816" three times, a
// damaged record and an unobserved window invented on CPU 0). Read from a
// file or a pipe alike.
func TestJoinedPipeStreams(t *testing.T) {
	a := readFile(t, "../../testdata/traces/sched-pipe-mode.data")
	fileMode := readFile(t, "../../testdata/traces/nice.2cpu.perf.data")
	alone, ra, err := drain(a, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tail := range [][]byte{a, fileMode} {
		for _, pipe := range []bool{false, true} {
			evs, r, err := drain(append(slices.Clone(a), tail...), pipe)
			if err != nil {
				t.Fatalf("pipe %v: %v", pipe, err)
			}
			if len(evs) != len(alone) {
				t.Errorf("pipe %v: %d events, the stream alone %d", pipe, len(evs), len(alone))
			}
			if !slices.Equal(r.Meta().Lost, ra.Meta().Lost) {
				t.Errorf("pipe %v: losses %+v, the stream alone %+v", pipe, r.Meta().Lost, ra.Meta().Lost)
			}
			want := fmt.Sprintf("perf.data: another perf.data begins at offset 99820, where the pipe-mode stream's next record was due (its PERFILE2 header is there: `tail -c +99821` of the input, uncompressed, is that one); its %d bytes are not read, its events are not in the trace", len(tail))
			ws := r.Meta().Warnings.List()
			if len(ws) != len(ra.Meta().Warnings.List())+1 || !slices.ContainsFunc(ws, func(w trace.Warning) bool { return w.Key == "damaged-trailing-bytes" && w.Message == want }) {
				t.Errorf("pipe %v: warnings %+v\nwant the stream's alone %+v and %q", pipe, ws, ra.Meta().Warnings.List(), want)
			}
		}
	}
}

// TestPipeTimeLeap: in a pipe-mode stream (no header sample times to
// check a time by), one sample whose time had a high byte flipped (2^48
// ns, 78 hours, later) is dropped as a damaged time, counted lost in the
// file, and every other event is read: before, taken as its CPU's latest
// record, it made the good events after it "earlier than the CPU's
// previous record", dropped (3583 of them in new-user pass 78 F1), and the
// trace's span millions of seconds. sched-pipe-mode.data's 200th sample (of 278) is
// flipped (perf sched record's layout: the time at bytes 32-39 of the
// record).
func TestPipeTimeLeap(t *testing.T) {
	data := readFile(t, "../../testdata/traces/sched-pipe-mode.data")
	intact, _, err := drain(data, true)
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(data)
	n, flipped := 0, false
	for off := 16; off+8 <= len(bad); {
		size := int(binary.LittleEndian.Uint16(bad[off+6:]))
		if size < 8 {
			t.Fatalf("record at %d of size %d", off, size)
		}
		typ := binary.LittleEndian.Uint32(bad[off:])
		if typ == 9 && size >= 40 {
			if n++; n == 200 {
				bad[off+32+6] ^= 0xff
				flipped = true
				break
			}
		}
		off += size
		if typ == 66 {
			// PERF_RECORD_HEADER_TRACING_DATA: the tracing data follow
			// the record, its u32 size long, padded to 8 bytes.
			off += (int(binary.LittleEndian.Uint32(bad[off-size+8:])) + 7) &^ 7
		}
	}
	if !flipped {
		t.Fatal("no 200th sample")
	}
	for _, pipe := range []bool{true, false} {
		evs, r, err := drain(bad, pipe)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != len(intact)-1 {
			t.Errorf("pipe %v: %d events, the intact stream %d (want all but the damaged one)", pipe, len(evs), len(intact))
		}
		m := r.Meta()
		if m.LostInFile != 1 || !slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == "damaged-time-ahead" }) {
			t.Errorf("pipe %v: lost in file %d, warnings %+v; want 1 and a damaged-time-ahead", pipe, m.LostInFile, m.Warnings.List())
		}
		if last := evs[len(evs)-1].Time; last > intact[len(intact)-1].Time {
			t.Errorf("pipe %v: last event at %d ns, past the intact stream's %d", pipe, last, intact[len(intact)-1].Time)
		}
	}
}
