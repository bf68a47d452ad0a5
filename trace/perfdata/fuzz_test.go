package perfdata

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"testing"
)

// FuzzPerfData feeds arbitrary bytes to the reader, seekable (file mode
// path) and as a stream; it must never panic nor loop. The seed corpus holds
// the repo's traces, their truncations at the header, the attrs, the
// features, mid-record and inside the tracing data, a corrupt record size, a
// LOST record and an unknown record type; crashers found by fuzzing live in
// testdata/fuzz/FuzzPerfData.
func FuzzPerfData(f *testing.F) {
	pipe, err := os.ReadFile(pipeTrace)
	if err != nil {
		f.Fatal(err)
	}
	file, err := os.ReadFile(noSchedTrace)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(file)
	sw := newPipeBuilder() // switch records (issue 16 item 9)
	sw.comm(10, "a")
	sw.switchOut(1_000_000_000, 0, 10, true)
	sw.switchOut(1_002_000_000, 10, 0, false)
	sw.cmdline("perf", "record", "-p", "10")
	f.Add(sw.b.Bytes())
	f.Add([]byte{})
	f.Add([]byte("PERFILE2"))
	f.Add(file[:50])
	dataOff, dataEnd := dataSection(file)
	f.Add(file[:dataOff-8])
	f.Add(file[:(dataOff+dataEnd)/2])
	f.Add(file[:len(file)-20])
	// Pipe-mode seeds are kept small (the tracing data and a few kB of
	// records after it): the fuzzer minimizes every new input, which is slow
	// on large ones.
	recs := records(pipe, pipeHeaderSize, len(pipe))
	var small []byte
	for _, r := range recs {
		if binary.LittleEndian.Uint32(pipe[r.off:]) == recTracingData {
			f.Add(pipe[:r.off+200])
			end := r.off + r.size + int(binary.LittleEndian.Uint32(pipe[r.off+8:])+7)&^7
			small = pipe[:min(len(pipe), end+3000)]
		}
	}
	f.Add(small)
	srecs := records(small, pipeHeaderSize, len(small))
	last := srecs[len(srecs)-2]
	f.Add(small[:last.off+last.size/2])
	bad := append([]byte(nil), small[:last.off]...)
	binary.LittleEndian.PutUint16(bad[srecs[len(srecs)-4].off+6:], 4)
	f.Add(bad)
	lost := append([]byte(nil), small[:last.off]...)
	unknown := append([]byte(nil), small[:last.off]...)
	for _, r := range srecs[:len(srecs)-2] {
		if binary.LittleEndian.Uint32(lost[r.off:]) == recSample && r.size >= 56 {
			binary.LittleEndian.PutUint32(lost[r.off:], recLost)
			binary.LittleEndian.PutUint32(lost[r.off+16:], 77)
			binary.LittleEndian.PutUint32(unknown[r.off:], 250)
			break
		}
	}
	f.Add(lost)
	f.Add(unknown)

	comp, err := os.ReadFile(compressedTrace)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(comp[:min(len(comp), 16<<10)])

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, stream := range []bool{false, true} {
			var in io.Reader = bytes.NewReader(data)
			if stream {
				// File-mode input from a stream is copied to a temporary
				// file first: exercise the stream path for pipe mode only.
				if len(data) < 16 || binary.LittleEndian.Uint64(data[8:]) != pipeHeaderSize {
					continue
				}
				in = io.MultiReader(in)
			}
			r, err := NewReader(in)
			if err != nil {
				continue
			}
			for i := 0; i < 1<<20; i++ {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			r.Meta()
			r.Close()
		}
	})
}
