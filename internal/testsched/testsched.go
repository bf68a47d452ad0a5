// Package testsched holds the schedules the tests of the packages that read
// a schedule share (report and the exporters under export/): hand-made
// events small enough to compute by hand (Scenario), the hand-made cases of
// report/testdata/schedule.txtar (Case), events made from fuzz input
// (FuzzEvents, Fuzz), and the real traces of testdata/traces and
// ../shared/traces (RealTraces, AllTraces, Open; BenchTrace and Bench for
// the benchmarks). Only tests import it.
package testsched

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats" // every reader, for Open
)

// Us is nanoseconds per microsecond, the unit of Scenario's times.
const Us = int64(1000)

// Switch returns a sched_switch at t on cpu from prev (prevComm, leaving in
// state st) to next (nextComm), both at priority 120 and their own process.
func Switch(t int64, cpu trace.CPU, prev trace.TID, prevComm string, st trace.TaskState, next trace.TID, nextComm string) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindSwitch)
	e.CurTID, e.CurPID = prev, trace.PID(prev)
	e.TID, e.PID, e.Comm, e.Prio, e.PrevState = prev, trace.PID(prev), prevComm, 120, st
	e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), nextComm, 120
	return e
}

// Waking returns a sched_waking at t on cpu: waker (the CPU's current task)
// wakes wakee (comm) onto CPU target.
func Waking(t int64, cpu trace.CPU, waker trace.TID, wakee trace.TID, comm string, target trace.CPU) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindWaking)
	e.CurTID, e.CurPID = waker, trace.PID(waker)
	e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = wakee, trace.PID(wakee), comm, 120, target
	return e
}

// Migrate returns a sched_migrate_task at t on cpu of tid (comm) from CPU
// from to CPU to.
func Migrate(t int64, cpu trace.CPU, tid trace.TID, comm string, from, to trace.CPU) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindMigrate)
	e.TID, e.PID, e.Comm, e.OrigCPU, e.DestCPU = tid, trace.PID(tid), comm, from, to
	return e
}

// Runtime returns a sched_stat_runtime at t on cpu of tid (comm), the CPU's
// current task, reporting rt ns.
func Runtime(t int64, cpu trace.CPU, tid trace.TID, comm string, rt int64) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindRuntime)
	e.CurTID, e.CurPID = tid, trace.PID(tid)
	e.TID, e.PID, e.Comm, e.Runtime = tid, trace.PID(tid), comm, rt
	return e
}

// Scenario is a 2-CPU schedule small enough to compute by hand (times in
// us; A=10, B=20, C=30, all their own processes):
//
//	   0  CPU0 swapper -> A          CPU1 swapper -> B
//	 100  CPU0 A wakes C (target CPU0)                         C runnable, rq0=1
//	 300  CPU0 A (R+) -> C           C waited 300-100 = 200 us (woken by A); A queued on rq0
//	 400                             CPU1 B (S) -> swapper      B sleeps
//	 450  A migrates CPU0 -> CPU1                               rq0=0 rq1=1
//	 500                             CPU1 swapper -> A          A waited 500-300 = 200 us (preempted)
//	 600  CPU0 C wakes B (target CPU0)                          rq0=1
//	1000  CPU0 C (S) -> B            B waited 1000-600 = 400 us (woken by C)
//	1500  CPU0 B (S) -> swapper
//	2000                             CPU1 A (S) -> swapper
func Scenario() []trace.Event {
	return []trace.Event{
		Switch(0, 0, 0, "swapper/0", 0, 10, "A"),
		Switch(0, 1, 0, "swapper/1", 0, 20, "B"),
		Waking(100*Us, 0, 10, 30, "C", 0),
		Runtime(300*Us, 0, 10, "A", 300*Us),
		Switch(300*Us, 0, 10, "A", trace.StatePreempted, 30, "C"),
		Runtime(400*Us, 1, 20, "B", 400*Us),
		Switch(400*Us, 1, 20, "B", trace.StateInterruptible, 0, "swapper/1"),
		Migrate(450*Us, 0, 10, "A", 0, 1),
		Switch(500*Us, 1, 0, "swapper/1", 0, 10, "A"),
		Waking(600*Us, 0, 30, 20, "B", 0),
		Runtime(1000*Us, 0, 30, "C", 700*Us),
		Switch(1000*Us, 0, 30, "C", trace.StateInterruptible, 20, "B"),
		Runtime(1500*Us, 0, 20, "B", 500*Us),
		Switch(1500*Us, 0, 20, "B", trace.StateInterruptible, 0, "swapper/0"),
		Runtime(2000*Us, 1, 10, "A", 1500*Us),
		Switch(2000*Us, 1, 10, "A", trace.StateInterruptible, 0, "swapper/1"),
	}
}

// Case opens one -- NAME.txt -- of report/testdata/schedule.txtar (the
// hand-made schedule cases) with the ftrace text reader.
func Case(t testing.TB, name string) trace.Source {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(filepath.Dir(filepath.Dir(testtraces.Repo(t))), "report", "testdata", "schedule.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == name+".txt" {
			src, err := trace.OpenReader(strings.NewReader(string(f.Data)), name)
			if err != nil {
				t.Fatal(err)
			}
			return src
		}
	}
	t.Fatalf("no case %s in report/testdata/schedule.txtar", name)
	return nil
}

// FuzzEvents makes events of every kind from fuzz input, 4 bytes an event,
// on 3 CPUs and 6 tasks, in time order.
func FuzzEvents(data []byte) []trace.Event {
	var evs []trace.Event
	var t int64
	kinds := []trace.Kind{trace.KindSwitch, trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew,
		trace.KindMigrate, trace.KindFork, trace.KindExec, trace.KindExit, trace.KindComm, trace.KindRuntime, trace.KindLost}
	for i := 0; i+4 <= len(data); i += 4 {
		b := data[i : i+4]
		t += int64(b[3]>>2) * 1000
		cpu := trace.CPU(b[2] % 3)
		e := trace.NewEvent(t, cpu, kinds[int(b[0])%len(kinds)])
		tid := trace.TID(b[1] % 6)
		other := trace.TID(b[2] / 3 % 6)
		e.CurTID, e.TID, e.PID, e.Comm = tid, tid, trace.PID(tid), string(rune('a'+tid))
		switch e.Kind {
		case trace.KindSwitch:
			e.NextTID, e.NextPID, e.NextComm = other, trace.PID(other), string(rune('a'+other))
			e.PrevState = []trace.TaskState{0, trace.StatePreempted, trace.StateInterruptible, trace.StateUninterruptible, trace.StateDead, trace.StateIdle}[b[3]%6]
		case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
			e.CurTID = other
			e.TargetCPU = trace.CPU(b[3] % 3)
		case trace.KindMigrate:
			e.OrigCPU, e.DestCPU = cpu, trace.CPU(b[3]%3)
		case trace.KindFork:
			e.ChildTID, e.ChildPID = other, trace.PID(other)
		case trace.KindRuntime:
			e.Runtime = int64(b[3]) * 500
		case trace.KindLost:
			e.Count = uint64(b[3])
		}
		evs = append(evs, e)
	}
	return evs
}

// sharedDir is ../shared/traces beside the repository (it may not exist).
func sharedDir(t testing.TB) string {
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(testtraces.Repo(t)))), "shared", "traces")
}

// RealTraces lists the perf.data files of the repository's testdata/traces
// and of ../shared/traces (the shared oracle set, next to the repository),
// or skips the test when there is none.
func RealTraces(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{testtraces.Repo(t), sharedDir(t)} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.perf.data"))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skip("no *.perf.data in testdata/traces or ../shared/traces")
	}
	return out
}

// AllTraces is RealTraces plus every other trace file of ../shared/traces
// that a reader takes (trace.dat, ftrace text).
func AllTraces(t testing.TB) []string {
	t.Helper()
	out := RealTraces(t)
	for _, pat := range []string{"*.trace.dat", "*.ftrace.txt"} {
		m, _ := filepath.Glob(filepath.Join(sharedDir(t), pat))
		out = append(out, m...)
	}
	return out
}

// Open opens the trace at path (any format), closed when the test ends.
func Open(t testing.TB, path string) trace.Source {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// Events reads src to its end, failing the test on a read error.
func Events(t testing.TB, src trace.Source) []trace.Event {
	t.Helper()
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// BenchTrace returns the trace the benchmarks read: $TRACEVIEW_BENCH_TRACE,
// else the 2-million-event recording of bench/latency/run.sh, else a shared
// trace, else the repository's pipe.perf.data; it skips the benchmark when
// there is none.
func BenchTrace(b *testing.B) string {
	repo := testtraces.Repo(b)
	root := filepath.Dir(filepath.Dir(repo))
	for _, p := range []string{os.Getenv("TRACEVIEW_BENCH_TRACE"), filepath.Join(root, "bench", "out", "latency.perf.data"),
		filepath.Join(sharedDir(b), "messaging-t.2cpu.perf.data"), filepath.Join(repo, "pipe.perf.data")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("no trace to benchmark on")
	return ""
}

// Bench runs fn on a freshly opened BenchTrace b.N times, reporting
// allocations.
func Bench(b *testing.B, fn func(src trace.Source) error) {
	path := BenchTrace(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		src, err := trace.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := fn(src); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}

// Fuzz runs check on the events (FuzzEvents) of every input of fuzz target
// f, seeded with a short stream of every kind and a longer repeated one.
func Fuzz(f *testing.F, check func(t *testing.T, evs []trace.Event)) {
	f.Add([]byte{0, 1, 2, 3, 2, 3, 0, 4, 1, 3, 4, 8, 0, 2, 9, 1, 10, 1, 0, 40})
	f.Add(bytes.Repeat([]byte{0, 1, 5, 4, 2, 2, 3, 8, 1, 2, 6, 1, 5, 2, 0, 4}, 8))
	f.Fuzz(func(t *testing.T, data []byte) { check(t, FuzzEvents(data)) })
}
