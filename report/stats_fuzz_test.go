package report

import (
	"io"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// FuzzStatsPass: no event stream (testsched.FuzzEvents) makes stats or the
// HTML report panic, or gives a negative delay or busy time. The exports
// have their own targets (export/pprof, export/chromejson).
func FuzzStatsPass(f *testing.F) {
	testsched.Fuzz(f, func(t *testing.T, evs []trace.Event) {
		st, err := ComputeStats(trace.NewSliceSource(evs, nil), StatsOptions{Buckets: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range st.CPUs {
			if c.Busy < 0 || c.Busy > c.Observed || c.RunqueueAvg < 0 {
				t.Fatalf("CPU %d: %+v", c.CPU, c)
			}
		}
		if st.Delays.Sum < 0 {
			t.Fatalf("negative delay sum %d", st.Delays.Sum)
		}
		if err := WriteHTMLReport(io.Discard, trace.NewSliceSource(evs, nil), HTMLOptions{Buckets: 5}); err != nil {
			t.Fatal(err)
		}
	})
}
