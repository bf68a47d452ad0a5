package perfdata

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/traceview/traceview/trace"
)

// BenchmarkReader decodes whole perf.data files from memory and reports
// events per second and allocations per event. It runs on a shared trace
// and, when TRACEVIEW_BIG_PERFDATA names one (bench/ records a 2M-event
// `perf sched record -- perf bench sched messaging -g 20 -l 3000`), on a
// big file read from disk.
func BenchmarkReader(b *testing.B) {
	b.Run("massive_intr.2cpu", func(b *testing.B) {
		data, err := os.ReadFile(sharedTraces + "/massive_intr.2cpu.perf.data")
		if err != nil {
			b.Skip(err)
		}
		benchRead(b, 0, func() io.Reader { return bytes.NewReader(data) })
	})
	b.Run("big", func(b *testing.B) {
		path := os.Getenv("TRACEVIEW_BIG_PERFDATA")
		if path == "" {
			b.Skip("TRACEVIEW_BIG_PERFDATA not set")
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		// Serial, and with decoding goroutines (parallel.go).
		for _, n := range []int{-1, 1, 2} {
			b.Run(fmt.Sprintf("decoders=%d", n), func(b *testing.B) {
				benchRead(b, n, func() io.Reader {
					if _, err := f.Seek(0, io.SeekStart); err != nil {
						b.Fatal(err)
					}
					return f
				})
			})
		}
	})
}

// benchRead reads whole files with Reader.Decoders = decoders.
func benchRead(b *testing.B, decoders int, open func() io.Reader) {
	b.ReportAllocs()
	var events int
	for b.Loop() {
		r, err := NewReader(open())
		if err != nil {
			b.Fatal(err)
		}
		r.Decoders = decoders
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
		r.Close()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkPrefetch reads the big file (TRACEVIEW_BIG_PERFDATA) the way the
// reports do: through trace.Prefetch, the reader on its own goroutine, a
// consumer reading each event's time and kind. With a consumer this light
// the time per event is the reader's: the pipeline's critical path.
func BenchmarkPrefetch(b *testing.B) {
	path := os.Getenv("TRACEVIEW_BIG_PERFDATA")
	if path == "" {
		b.Skip("TRACEVIEW_BIG_PERFDATA not set")
	}
	b.ReportAllocs()
	var events int
	var sum int64
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		r.SkipKinds(trace.KindExit)
		if err := trace.Each(r, func(e *trace.Event) error {
			events++
			sum += e.Time + int64(e.Kind)
			return nil
		}, nil); err != nil {
			b.Fatal(err)
		}
		r.Close()
		f.Close()
	}
	if sum == 0 {
		b.Fatal("no events")
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(events), "ns/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
