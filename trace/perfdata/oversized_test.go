package perfdata

import (
	"bytes"
	"encoding/binary"
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
// nice.2cpu.perf.data's 200th sample record is raised by 4096 (its high
// byte + 16), so that its header frames the records after it inside it.
// Read from a file (mapped), the reader reads on from the record's true
// end: the same events as the intact file, and one damaged-record-size
// warning. Read as a stream (bytes.Reader: not mapped), the 4096 bytes are
// skipped: fewer events, and the warning says they are.
func TestOversizedSample(t *testing.T) {
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "nice.2cpu.perf.data"))
	bad := append([]byte(nil), data...)
	le := binary.LittleEndian
	pos := int(le.Uint64(data[40:48])) // perf_file_header.data.offset
	for n := 0; ; {
		typ, size := le.Uint32(bad[pos:]), int(le.Uint16(bad[pos+6:]))
		if typ == recSample {
			if n++; n == 200 {
				bad[pos+7] += 16
				break
			}
		}
		pos += size
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
	path := filepath.Join(t.TempDir(), "bad.perf.data")
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	mapped, m := read(path)
	if w := warning(m); !strings.Contains(w, "read on from offset") || len(mapped) != len(whole) {
		t.Errorf("mapped: %d events (intact %d), warning %q; want the same events and the record re-framed", len(mapped), len(whole), w)
	}
	stream, m := read(bad)
	lost := 0
	for _, e := range stream {
		if e.Kind == trace.KindLost && e.CPU == -1 {
			lost++
		}
	}
	// (Read on from inside the skipped bytes, the stream's framing stays
	// lost here: a size 0 ends it, said as such, and no later record
	// comes to carry the loss of every CPU.)
	if w := warning(m); !strings.Contains(w, "are skipped") || len(stream) >= len(whole) || lost > 1 {
		t.Errorf("stream: %d events (intact %d), %d losses of every CPU, warning %q; want fewer, at most one, and the bytes skipped said", len(stream), len(whole), lost, w)
	}
}
