package perfcompat

import (
	"io"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// timehistBenchView times run over the trace; events/s counts the events the view
// received (kinds it asked the reader to skip are not delivered).
func timehistBenchView(b *testing.B, run func(src trace.Source) error) {
	path := testsched.BenchTrace(b)
	b.ReportAllocs()
	events := 0
	for i := 0; i < b.N; i++ {
		src, err := trace.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		c := &timehistCounting{Source: src}
		if err := run(c); err != nil {
			b.Fatal(err)
		}
		src.Close()
		events += c.n
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

type timehistCounting struct {
	trace.Source
	n int
}

// SkipKinds passes the view's request on to the reader.
func (c *timehistCounting) SkipKinds(kinds ...trace.Kind) { trace.SkipKinds(c.Source, kinds...) }

func (c *timehistCounting) Next() (trace.Event, error) {
	c.n++
	return c.Source.Next()
}

// BenchmarkTimehist times the whole timehist view (read, account, print
// every row to io.Discard).
func BenchmarkTimehist(b *testing.B) {
	timehistBenchView(b, func(src trace.Source) error { return Timehist(io.Discard, src, TimehistOptions{}) })
}

// BenchmarkMap times the map view.
func BenchmarkMap(b *testing.B) {
	timehistBenchView(b, func(src trace.Source) error { return Map(io.Discard, src, MapOptions{}) })
}

// BenchmarkTimehistRead is the reader alone, the floor for both views.
func BenchmarkTimehistRead(b *testing.B) {
	timehistBenchView(b, func(src trace.Source) error {
		for {
			if _, err := src.Next(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	})
}
