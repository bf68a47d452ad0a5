package replay

import (
	"os"
	"testing"

	"github.com/traceview/traceview/policies"
)

// BenchmarkSimulateTrace times the simulation alone on a recorded
// workload: the trace BenchmarkExtractSimulate reads (TRACEVIEW_BENCH_TRACE,
// else a shared messaging recording) is extracted once, untimed, and each
// iteration is one eevdf simulation of it on the trace's CPUs. It reports
// simulated events per second and, where the OS tells it (unix), the
// process CPU time per simulation in ms (cpu-ms/op: the figure to read on
// a shared machine, where wall time measures the load). Run with
// -benchmem.
func BenchmarkSimulateTrace(b *testing.B) {
	f := benchTrace()
	if _, err := os.Stat(f); err != nil {
		b.Skipf("%s: %v", f, err)
	}
	m := extractFile(b, f)
	b.ReportAllocs()
	c0 := processCPU()
	b.ResetTimer()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := Simulate(m, policies.NewStack(policies.NewEEVDF(nil, m.NrCPUs)), DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		events += res.Stats.Events
	}
	b.StopTimer()
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	if c := processCPU(); c > 0 {
		b.ReportMetric(float64(c-c0)/1e6/float64(b.N), "cpu-ms/op")
	}
}
