package perfdata

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// flipSampleCPU returns a copy of the perf.data b with the CPU field of its
// n-th sched sample (sample_type IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER:
// CPU at byte 40) set to cpu, and that sample's offset.
func flipSampleCPU(t *testing.T, b []byte, n int, cpu uint32) ([]byte, int) {
	t.Helper()
	c := append([]byte(nil), b...)
	off := nthSample(t, c, n)
	binary.LittleEndian.PutUint32(c[off+40:], cpu)
	return c, off
}

// nthSample returns the offset of the n-th sched sample (from 0) of the
// perf.data b.
func nthSample(t *testing.T, b []byte, n int) int {
	t.Helper()
	dataOff, dataEnd := dataSection(b)
	for _, r := range records(b, dataOff, dataEnd) {
		if binary.LittleEndian.Uint32(b[r.off:]) != recSample || r.size < 48 {
			continue
		}
		if n--; n < 0 {
			return r.off
		}
	}
	t.Fatal("not enough samples")
	return 0
}

// TestSampleCPUOutOfRange: a sample whose CPU field is at or above the
// header's CPU count (a flipped byte: CPU 254 of a 2-CPU recording) or
// negative, -1 included (0xffffffff: a sample with a CPU field has a real
// CPU in it; new-user pass 31 F3 lost a switch without a word), is
// counted and skipped, not delivered as an event on a CPU the machine does
// not have (stats showed a phantom all-zero "CPU 254" row: "3 CPUs with
// events"). Every other event is still read, by the serial reader and
// with decoding goroutines (which leave such a sample to the reader).
func TestSampleCPUOutOfRange(t *testing.T) {
	b := readFile(t, "../../testdata/traces/pipe.perf.data")
	full, fr, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := max(fr.Meta().NrCPUs, fr.Meta().NrCPUsAvail); n != 2 {
		t.Fatalf("pipe.perf.data: header nrcpus %d, want 2", n)
	}
	oldChunk, oldMin := predecodeChunk, predecodeMin
	predecodeChunk, predecodeMin = 4096, 0
	t.Cleanup(func() { predecodeChunk, predecodeMin = oldChunk, oldMin })
	for _, cpu := range []uint32{254, 2, 0xfffffffe, 0xffffffff} {
		c, off := flipSampleCPU(t, b, 100, cpu)
		evs, r, err := drain(c, false)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "flip.perf.data")
		if err := os.WriteFile(path, c, 0o644); err != nil {
			t.Fatal(err)
		}
		if par, perr, pw, _, _ := readWith(t, path, 3); perr != nil || len(par) != len(evs) || !slices.ContainsFunc(pw, func(w trace.Warning) bool { return w.Key == "cpu-out-of-range" }) {
			t.Errorf("CPU %d with 3 decoders: %d events (serial %d), error %v, warnings %v", int32(cpu), len(par), len(evs), perr, pw)
		}
		if len(evs) != len(full)-1 {
			t.Errorf("CPU %d: %d events, want %d (one sample skipped)", int32(cpu), len(evs), len(full)-1)
		}
		for _, ev := range evs {
			if ev.CPU >= 2 || ev.CPU < -1 {
				t.Errorf("CPU %d: event %v delivered on CPU %d", int32(cpu), ev.Kind, ev.CPU)
				break
			}
		}
		var found bool
		for _, w := range r.Meta().Warnings.List() {
			if w.Key == "cpu-out-of-range" {
				found = true
				if w.Count != 1 || !strings.Contains(w.Message, "offset "+strconv.Itoa(off)) {
					t.Errorf("CPU %d: warning %+v, want count 1 at offset %d", int32(cpu), w, off)
				}
			}
		}
		if !found {
			t.Errorf("CPU %d: no cpu-out-of-range warning", int32(cpu))
		}
	}
}

// TestDamagedFeatureTable: pipe.perf.data with a bit flipped in its
// header's feature bitmap (byte 100: 0x5a there sets features the table
// has no entry for, so their {offset, size} are read from what follows
// it) is damaged, not cut: the warning says the feature table is damaged,
// and every record is still read (new-user pass 32 F5: "the file ends
// inside its feature sections" of a whole file).
func TestDamagedFeatureTable(t *testing.T) {
	b := readFile(t, "../../testdata/traces/pipe.perf.data")
	full, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	c := append([]byte(nil), b...)
	c[100] = 0x5a
	evs, r, err := drain(c, false)
	if err != nil {
		t.Fatal(err)
	}
	var damaged, cut bool
	for _, w := range r.Meta().Warnings.List() {
		damaged = damaged || w.Key == "bad-feature-table" && strings.Contains(w.Message, "the feature table is damaged")
		cut = cut || strings.Contains(w.Message, "the file ends")
	}
	if !damaged || cut || len(evs) != len(full) {
		t.Errorf("damaged %v, cut %v, %d events of %d; warnings %v", damaged, cut, len(evs), len(full), r.Meta().Warnings.List())
	}
}

// TestDamagedRecordType: a sample whose type byte is flipped to 83
// (PERF_RECORD_COMPRESSED2) in a file recorded without compression is a
// damaged record: skipped with a warning, every other event read (new-user
// pass 33 F6: an error, none of the 54,363 events before it reported).
func TestDamagedRecordType(t *testing.T) {
	b := readFile(t, "../../testdata/traces/pipe.perf.data")
	full, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[nthSample(t, c, 100):], 83)
	evs, r, err := drain(c, false)
	if err != nil {
		t.Fatal(err)
	}
	found := slices.ContainsFunc(r.Meta().Warnings.List(), func(w trace.Warning) bool {
		return w.Key == "bad-record-type" && strings.Contains(w.Message, "not recorded compressed")
	})
	if !found || len(evs) != len(full)-1 {
		t.Errorf("%d events of %d (want one fewer), warnings %v", len(evs), len(full), r.Meta().Warnings.List())
	}
}
