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
	f.Add([]byte{})
	f.Add([]byte("PERFILE2"))
	f.Add(file[:50])
	dataOff, dataEnd := dataSection(file)
	f.Add(file[:dataOff-8])
	f.Add(file[:(dataOff+dataEnd)/2])
	f.Add(file[:len(file)-20])
	recs := records(pipe, pipeHeaderSize, len(pipe))
	for _, r := range recs {
		if binary.LittleEndian.Uint32(pipe[r.off:]) == recTracingData {
			f.Add(pipe[:r.off+200])
			// End the stream right after the tracing data: the seed keeps
			// the formats and a few samples, small enough to mutate fast.
			end := r.off + r.size + int(binary.LittleEndian.Uint32(pipe[r.off+8:])+7)&^7
			f.Add(pipe[:min(len(pipe), end+4000)])
		}
	}
	last := recs[len(recs)-1]
	f.Add(pipe[:last.off+last.size/2])
	bad := append([]byte(nil), pipe[:min(len(pipe), recs[len(recs)/2].off+200)]...)
	binary.LittleEndian.PutUint16(bad[recs[len(recs)/3].off+6:], 4)
	f.Add(bad)
	lost := append([]byte(nil), pipe...)
	for _, r := range recs {
		if binary.LittleEndian.Uint32(lost[r.off:]) == recSample && r.size >= 56 {
			binary.LittleEndian.PutUint32(lost[r.off:], recLost)
			binary.LittleEndian.PutUint32(lost[r.off+16:], 77)
			break
		}
	}
	f.Add(lost)
	unknown := append([]byte(nil), pipe...)
	binary.LittleEndian.PutUint32(unknown[recs[len(recs)-2].off:], 250)
	f.Add(unknown)

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
