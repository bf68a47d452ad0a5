package tracedat

import (
	"bytes"
	"testing"

	"github.com/traceview/traceview/trace"
)

// FuzzTraceDat feeds mutated trace.dat files to the reader, seeded with the
// hand-made v6 files of edge_test.go (lost pages included) and their v7
// forms (uncompressed and zlib) of v7_test.go: it must never
// panic, and every event it delivers has a kind. Run it with
// -fuzzminimizetime 0s: Go's minimizer stalls on these inputs (0 execs/s).
func FuzzTraceDat(f *testing.F) {
	f.Add(handmade(f, -2))
	f.Add(handmade(f, 7))
	f.Add(handmade(f, 0))
	f.Add(handmadeV7(f, "zlib"))
	f.Add(handmadeV7(f, ""))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(bytes.NewReader(data), Options{})
		if err != nil {
			return
		}
		for i := 0; i < 1<<16; i++ {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if ev.Kind == trace.KindInvalid {
				t.Fatalf("event %d has no kind", i)
			}
		}
	})
}
