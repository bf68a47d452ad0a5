package chromejson

import (
	"io"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

func BenchmarkWrite(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { return Write(io.Discard, src, Options{}) })
}
