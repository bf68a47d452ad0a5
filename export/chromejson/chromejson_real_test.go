package chromejson

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// TestWriteChromeJSONRealTraces exports every shared trace and checks the
// document's invariants: it decodes; slices on one track never overlap;
// each CPU track's busy time equals ComputeStats' busy time of that CPU;
// every flow has a start and an end 1 ns later.
func TestWriteChromeJSONRealTraces(t *testing.T) {
	for _, path := range testsched.AllTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, testsched.Open(t, path), Options{}); err != nil {
				t.Fatal(err)
			}
			evs := gDecodePerfetto(t, buf.Bytes())
			st, err := report.ComputeStats(testsched.Open(t, path), report.StatsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			type key struct{ pid, tid int64 }
			last := map[key]float64{}
			busy := map[int64]float64{}
			flows := map[int64][]float64{}
			var nx int
			for _, e := range evs {
				switch e.Ph {
				case "X":
					nx++
					k := key{e.Pid, e.Tid}
					// Times are us with ns decimals: allow float rounding.
					if end, ok := last[k]; ok && e.Ts < end-1e-3 {
						t.Fatalf("track %d/%d: slice %q at %.3f us overlaps the previous one ending at %.3f us", e.Pid, e.Tid, e.Name, e.Ts, end)
					}
					last[k] = e.Ts + e.Dur
					if e.Pid == CPUPid {
						busy[e.Tid-CPUPid] += e.Dur
					}
				case "s", "f":
					flows[e.ID] = append(flows[e.ID], e.Ts)
				}
			}
			if nx == 0 {
				t.Fatal("no slices")
			}
			for _, c := range st.CPUs {
				if got, want := busy[int64(c.CPU)], float64(c.Busy)/1e3; got < want-1 || got > want+1 {
					t.Errorf("CPU %d: Perfetto busy %.3f us, stats busy %.3f us", c.CPU, got, want)
				}
			}
			for id, ts := range flows {
				if len(ts) != 2 || ts[1]-ts[0] < 0.0005 || ts[1]-ts[0] > 0.0015 {
					t.Errorf("flow %d: events at %v", id, ts)
				}
			}
		})
	}
}

// BenchmarkWrite writes the export of testsched.BenchTrace.
func BenchmarkWrite(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { return Write(io.Discard, src, Options{}) })
}
