package tpformat

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/traceview/traceview/trace"
)

// FuzzFormat parses arbitrary format text and, when it is a sched
// tracepoint, decodes an arbitrary payload with it: no panic, whatever the
// offsets, sizes, data_loc descriptors and print fmt say.
func FuzzFormat(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.format")
	for _, p := range files {
		text, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text, make([]byte, 64))
	}
	f.Fuzz(func(t *testing.T, text, raw []byte) {
		fm, err := Parse(text)
		if err != nil {
			return
		}
		NewStateDecoder(fm.PrintFmt).Decode(binary.LittleEndian.Uint64(append(raw, make([]byte, 8)...)))
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			for i := range fm.Fields {
				fd := &fm.Fields[i]
				fd.Int(raw, order)
				fd.Bytes(raw, order)
			}
			d, err := NewSchedDecoder(fm, order, nil)
			if err != nil {
				continue
			}
			ev := trace.NewEvent(0, 0, 0)
			_ = d.Decode(raw, &ev)
		}
	})
}
