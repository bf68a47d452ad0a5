package report

import (
	"io"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

func BenchmarkHTMLReport(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { return WriteHTMLReport(io.Discard, src, HTMLOptions{Name: "bench"}) })
}

func BenchmarkComputeStats(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { _, err := ComputeStats(src, StatsOptions{Buckets: 200}); return err })
}

// BenchmarkReadOnly is the floor: decoding the trace and nothing else.
func BenchmarkReadOnly(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { _, err := trace.ReadAll(&gCount{src}); return err })
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
