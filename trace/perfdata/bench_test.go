package perfdata

import (
	"bytes"
	"io"
	"os"
	"testing"
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
		benchRead(b, func() io.Reader { return bytes.NewReader(data) })
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
		benchRead(b, func() io.Reader {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				b.Fatal(err)
			}
			return f
		})
	})
}

func benchRead(b *testing.B, open func() io.Reader) {
	b.ReportAllocs()
	var events int
	for b.Loop() {
		r, err := NewReader(open())
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
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
