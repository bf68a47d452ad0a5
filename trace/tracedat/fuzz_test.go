package tracedat

import (
	"bytes"
	"testing"

	"github.com/traceview/traceview/trace"
)

// FuzzTraceDat feeds mutated trace.dat files to the reader, seeded with the
// hand-made v6 files of edge_test.go (lost pages included) and their v7
// forms (uncompressed and zlib) of v7_test.go: it must never
// panic, and every event it delivers has a kind, read strictly and
// with Lenient. Run it with
// -fuzzminimizetime 0s: Go's minimizer stalls on these inputs (0 execs/s).
func FuzzTraceDat(f *testing.F) {
	f.Add(handmade(f, -2))
	f.Add(handmade(f, 7))
	f.Add(handmade(f, 0))
	f.Add(handmadeV7(f, "zlib"))
	f.Add(handmadeV7(f, ""))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Both ways: failing at a broken page, and skipping it
		// (lenient, which reads on at the next page).
		for _, lenient := range []bool{false, true} {
			r, err := Open(bytes.NewReader(data), Options{Lenient: lenient})
			if err != nil {
				return
			}
			for i := 0; i < 1<<16; i++ {
				ev, err := r.Next()
				if err != nil {
					break
				}
				if ev.Kind == trace.KindInvalid {
					t.Fatalf("lenient %v: event %d has no kind", lenient, i)
				}
			}
		}
	})
}
