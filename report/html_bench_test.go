package report

import (
	"io"
	"os"
	"testing"

	"github.com/traceview/traceview/trace"
)

// gBenchTrace: $TRACEVIEW_BENCH_TRACE, else the 2-million-event recording
// of bench/latency/run.sh, else a shared trace.
func gBenchTrace(b *testing.B) string {
	for _, p := range []string{os.Getenv("TRACEVIEW_BENCH_TRACE"), "../bench/out/latency.perf.data", "../../shared/traces/messaging-t.2cpu.perf.data", "../testdata/traces/pipe.perf.data"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no trace to benchmark on")
	return ""
}

// gBench runs fn on a freshly opened bench trace b.N times.
func gBench(b *testing.B, fn func(src trace.Source) error) {
	path := gBenchTrace(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		src, err := trace.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := fn(src); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}

func BenchmarkHTMLReport(b *testing.B) {
	gBench(b, func(src trace.Source) error { return WriteHTMLReport(io.Discard, src, HTMLOptions{Name: "bench"}) })
}

func BenchmarkComputeStats(b *testing.B) {
	gBench(b, func(src trace.Source) error { _, err := ComputeStats(src, StatsOptions{Buckets: 200}); return err })
}

func BenchmarkWritePprof(b *testing.B) {
	gBench(b, func(src trace.Source) error { return WritePprof(io.Discard, src, ExportOptions{}) })
}

func BenchmarkWriteChromeJSON(b *testing.B) {
	gBench(b, func(src trace.Source) error { return WriteChromeJSON(io.Discard, src, ExportOptions{}) })
}

// BenchmarkReadOnly is the floor: decoding the trace and nothing else.
func BenchmarkReadOnly(b *testing.B) {
	gBench(b, func(src trace.Source) error { _, err := trace.ReadAll(&gCount{src}); return err })
}

// gCount drops events so ReadAll holds nothing.
type gCount struct{ trace.Source }

func (g *gCount) Next() (trace.Event, error) {
	for {
		_, err := g.Source.Next()
		if err != nil {
			return trace.Event{}, err
		}
	}
}
