package tracedat

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// BenchmarkReader decodes the repo's recording in each trace.dat shape from
// memory and reports events/s and allocations (compare with perfdata's
// BenchmarkReader and trace/formats' BenchmarkDecode on the same run).
func BenchmarkReader(b *testing.B) {
	for _, name := range []string{"pipe-multi.v7zstd.dat", "pipe-multi.v7none.dat.gz", "pipe-multi.v6.dat.gz"} {
		b.Run(name, func(b *testing.B) {
			data := load(b, name)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			events := 0
			start := time.Now()
			for b.Loop() {
				r, err := Open(bytes.NewReader(data), Options{})
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
			}
			b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		})
	}
}
