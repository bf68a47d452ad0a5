package formats_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// BenchmarkDecode reads one recording (testdata/traces/pipe-multi, a run
// captured by perf and ftrace at once) in every format from memory, through
// content detection, and reports events/s: issue 7 asks trace.dat to decode
// at least as many events per second as perf.data, and text at least 1e6
// lines/s (see also the textfmt benchmarks).
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"perf.data", "pipe-multi.perf.data.gz"},
		{"trace.dat-v7-zstd", "pipe-multi.v7zstd.dat"},
		{"trace.dat-v7-none", "pipe-multi.v7none.dat.gz"},
		{"trace.dat-v6", "pipe-multi.v6.dat.gz"},
		{"ftrace-text", "pipe-multi.ftrace.txt.gz"},
		{"trace-cmd-report", "pipe-multi.report.txt.gz"},
		{"perf-script", "pipe-multi.script.txt.gz"},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := testtraces.Load(b, filepath.Join(td, c.file))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			events := 0
			start := time.Now()
			for b.Loop() {
				src, err := trace.OpenReader(bytes.NewReader(data), c.file)
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := src.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
				src.Close()
			}
			b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		})
	}
}
