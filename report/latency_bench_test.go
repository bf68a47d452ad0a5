package report

import (
	"io"
	"os"
	"testing"

	"github.com/traceview/traceview/trace"
)

// benchTrace is the perf.data the latency benchmarks read:
// $TRACEVIEW_BENCH_PERF_DATA (e.g. bench/out/latency.perf.data from
// bench/latency/run.sh), else the largest shipped test trace.
func benchTrace(b *testing.B) string {
	if p := os.Getenv("TRACEVIEW_BENCH_PERF_DATA"); p != "" {
		return p
	}
	return "../testdata/traces/pipe.perf.data"
}

// BenchmarkComputeLatency measures the whole report (reader included) in
// events per second.
func BenchmarkComputeLatency(b *testing.B) {
	path := benchTrace(b)
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		src, err := trace.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := ComputeLatency(src, LatencyOptions{})
		src.Close()
		if err != nil {
			b.Fatal(err)
		}
		events += res.Diag.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkLatencyPass measures ComputeLatency alone on events already in
// memory.
func BenchmarkLatencyPass(b *testing.B) {
	src, err := trace.Open(benchTrace(b))
	if err != nil {
		b.Fatal(err)
	}
	var evs []trace.Event
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, e)
	}
	src.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ComputeLatency(trace.NewSliceSource(evs, &trace.Meta{}), LatencyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
