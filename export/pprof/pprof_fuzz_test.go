package pprof

import (
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// FuzzWrite: no event stream (testsched.FuzzEvents; the corpus keeps the
// stream that once dated a recovered run before a CPU's first switch) makes
// Profile fail or panic, or gives a profile that fails CheckValid or has a
// negative value.
func FuzzWrite(f *testing.F) {
	testsched.Fuzz(f, func(t *testing.T, evs []trace.Event) {
		prof, err := Profile(trace.NewSliceSource(evs, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := prof.CheckValid(); err != nil {
			t.Fatal(err)
		}
		for _, s := range prof.Sample {
			for i, v := range s.Value {
				if v < 0 {
					t.Fatalf("sample %v: %s value %d", s.Location, prof.SampleType[i].Type, v)
				}
			}
		}
	})
}
