package replay

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// ringModel is a synthetic workload for benchmarks: k tasks pass a token
// round a ring (each runs burst ns, wakes the next and sleeps) for hops
// hops, beside two CPU hogs, on 2 CPUs.
func ringModel(k, hops int, burst int64) *Model {
	m := &Model{NrCPUs: 2, WorkloadRoot: -1}
	per := hops / k
	// Task 0 starts runnable with work bursts w0..w(per-1); task i > 0
	// starts asleep: bursts [empty, w0, ...]. The block after burst index j
	// of task i > 0 precedes its w_j; task 0's block after w_j precedes
	// w_(j+1).
	for i := 0; i < k; i++ {
		tk := Task{TID: trace.TID(1000 + i), PID: 1000, Comm: "ring", Prio: 120, Parent: -1, CPU: i % 2, Init: InitRunnable}
		prev := (i + k - 1) % k
		if i > 0 {
			tk.Init = InitSleeping
			tk.Bursts = append(tk.Bursts, Burst{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: int32(prev)}})
		}
		for j := 0; j < per; j++ {
			tk.Bursts = append(tk.Bursts, Burst{Len: burst, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: int32(prev)}})
		}
		tk.Bursts[len(tk.Bursts)-1].End = EndExit
		m.Tasks = append(m.Tasks, tk)
	}
	for i := 0; i < k; i++ {
		next, off := (i+1)%k, 0
		if i > 0 {
			off = 1
		}
		for j := 0; j < per; j++ {
			if next == 0 && j == per-1 {
				break // task 0 has exited
			}
			tk := &m.Tasks[i]
			tk.AddAction(&tk.Bursts[j+off], Action{At: burst, Kind: ActWake, Target: int32(next), Block: int32(j)})
		}
	}
	for h := 0; h < 2; h++ {
		m.Tasks = append(m.Tasks, Task{TID: trace.TID(2000 + h), PID: trace.PID(2000 + h), Comm: "hog", Prio: 120, Parent: -1,
			CPU: h, Init: InitRunnable, Bursts: []Burst{{Len: int64(hops) * burst / 4, End: EndExit}}})
	}
	return m
}

// BenchmarkSimulateEEVDF measures simulated (emitted) events per second for
// eevdf on 2 CPUs (target: at least 2 million per second on one core).
func BenchmarkSimulateEEVDF(b *testing.B) {
	m := ringModel(8, 100_000, 20_000)
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := Simulate(m, policies.NewStack(policies.NewEEVDF(nil, 2)), DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		events += res.Stats.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkSimulateEEVDFGroups is BenchmarkSimulateEEVDF with the ring's
// tasks in four cgroups under /pod (nested groups, hierarchical picks and
// reweighting on every enqueue and dequeue) and a quota on one of them
// (target: above 2 M simulated events/s, as without groups).
func BenchmarkSimulateEEVDFGroups(b *testing.B) {
	benchGroups(b, func() policies.Policy { return policies.NewStack(policies.NewEEVDF(nil, 2)) })
}

// BenchmarkSimulateCFSGroups is BenchmarkSimulateEEVDFGroups under cfs.
func BenchmarkSimulateCFSGroups(b *testing.B) {
	benchGroups(b, func() policies.Policy { return policies.NewStack(policies.NewCFS(nil, 2)) })
}

func benchGroups(b *testing.B, pol func() policies.Policy) {
	m := ringModel(8, 100_000, 20_000)
	for i := range m.Tasks {
		m.Tasks[i].Cgroup = fmt.Sprintf("/pod/c%d", i%4)
	}
	cfg := DefaultConfig()
	cfg.CgroupChanges = []CgroupChange{{Path: "/pod/c0", Quota: 50_000_000, Period: 100_000_000}}
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := Simulate(m, pol(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += res.Stats.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkReplay1M replays a trace of about one million events (itself a
// simulated ring workload) under as-traced, cfs and eevdf: extraction plus
// three simulations per iteration (target: under 5 s).
func BenchmarkReplay1M(b *testing.B) {
	gen, err := Simulate(ringModel(8, 300_000, 20_000), policies.NewStack(policies.NewEEVDF(nil, 2)), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	input := gen.Events()
	b.ReportMetric(float64(len(input)), "input-events")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Extract(trace.NewSliceSource(input, gen.Meta))
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range []string{"as-traced", "cfs", "eevdf"} {
			specs, _ := policies.ParseSpecs(p)
			pol, _ := specs[0].New(2)
			if _, err := Simulate(m, pol, DefaultConfig()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func TestRingModelRuns(t *testing.T) {
	// The benchmark workload completes: every hop happens (8 tasks × 100
	// hops of 20 us = 16 ms of ring work) and nothing waits forever.
	m := ringModel(8, 800, 20_000)
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	if res.Stats.Unfinished != 0 {
		t.Errorf("%d tasks never woken", res.Stats.Unfinished)
	}
	var ringRun int64
	for tid, iv := range runs(res.Events()) {
		if tid >= 1000 && tid < 1008 {
			ringRun += ranBefore(iv, 1<<62)
		}
	}
	if ringRun != 800*20_000 {
		t.Errorf("ring ran %d ns, want %d", ringRun, 800*20_000)
	}
}

// benchTrace is the trace BenchmarkExtractSimulate reads: the file named
// by TRACEVIEW_BENCH_TRACE (issue 29's 234 MB messaging recording, say),
// else a shared recording of perf bench sched messaging.
func benchTrace() string {
	if f := os.Getenv("TRACEVIEW_BENCH_TRACE"); f != "" {
		return f
	}
	return "../../shared/traces/messaging.2cpu.perf.data"
}

// BenchmarkExtractSimulate is what replay --policy eevdf does with a
// trace file, timed from reading it to the prediction's events: Extract
// and one eevdf simulation on the trace's CPUs. It reports input events
// per second, and the live heap in bytes per input event after Extract
// (the model and its recorded schedule) and after the simulation (plus its
// emitted events). Run with -benchmem; targets (issue 29) live in
// bench/replaymem.
func BenchmarkExtractSimulate(b *testing.B) {
	f := benchTrace()
	if _, err := os.Stat(f); err != nil {
		b.Skipf("%s: %v", f, err)
	}
	b.ReportAllocs()
	var n int
	var model, total uint64
	for i := 0; i < b.N; i++ {
		m := extractFile(b, f)
		n = m.Recorded.Len()
		model = liveHeap(b)
		res, err := Simulate(m, policies.NewStack(policies.NewEEVDF(nil, m.NrCPUs)), DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		total = liveHeap(b)
		runtime.KeepAlive(res)
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(model)/float64(n), "model-B/event")
	b.ReportMetric(float64(total)/float64(n), "live-B/event")
}

// liveHeap returns the bytes of live heap objects after a collection (the
// benchmark's timer stopped meanwhile).
func liveHeap(b *testing.B) uint64 {
	b.StopTimer()
	defer b.StartTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if p := os.Getenv("TRACEVIEW_BENCH_HEAPPROFILE"); p != "" {
		f, err := os.Create(fmt.Sprintf("%s.%d", p, ms.NumGC))
		if err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	return ms.HeapAlloc
}

// BenchmarkExtract is replay's load path alone: reading a trace file and
// extracting its model as the replay command does (ExtractOptions.
// DropRecorded: the observed schedule is read again, not kept). It reports
// input events per second and the model's live heap per input event.
func BenchmarkExtract(b *testing.B) {
	f := benchTrace()
	if _, err := os.Stat(f); err != nil {
		b.Skipf("%s: %v", f, err)
	}
	b.ReportAllocs()
	var n int
	var model uint64
	for i := 0; i < b.N; i++ {
		m := extractFile(b, f, ExtractOptions{DropRecorded: true})
		n = m.Recorded.Len()
		model = liveHeap(b)
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(model)/float64(n), "model-B/event")
}
