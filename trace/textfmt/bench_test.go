package textfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// benchText reads one shared text trace b.N times from memory and reports
// lines/s and events/s (issue 7 target: at least 1e6 lines/s).
func benchText(b *testing.B, file string) {
	path := filepath.Join(testtraces.Shared(b), file)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	events := 0
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data), "bench")
		for {
			_, err := r.Next()
			if err != nil {
				break
			}
			events++
		}
	}
	sec := time.Since(start).Seconds()
	b.ReportMetric(float64(lines*b.N)/sec, "lines/s")
	b.ReportMetric(float64(events)/sec, "events/s")
}

func BenchmarkPerfScript(b *testing.B)     { benchText(b, "massive_intr.2cpu.script.txt") }
func BenchmarkFtraceText(b *testing.B)     { benchText(b, "pipe-ftrace.ftrace.txt") }
func BenchmarkTraceCmdReport(b *testing.B) { benchText(b, "messaging-tracecmd.report.txt") }

var _ = trace.KindSwitch
