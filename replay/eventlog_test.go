package replay

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// TestEventLogRoundTrip: every event an EventLog is given comes back equal
// field for field, in order: hand-made events with every field away from
// its expected value, and the events of recorded traces (perf.data with
// and without callchains, trace-cmd, a stdin-mode pipe file, a traceview
// record capture with policies and cgroups).
func TestEventLogRoundTrip(t *testing.T) {
	odd := trace.NewEvent(5, 3, trace.KindSwitch)
	odd.CurGone, odd.CurTID, odd.CurPID = trace.GoneTID|trace.GonePID, 7, 8
	odd.TID, odd.PID, odd.Comm, odd.Prio = 9, 10, "a b", 0
	odd.PrevState, odd.NextTID, odd.NextPID, odd.NextComm, odd.NextPrio = trace.StateDead, 11, 12, "", 139
	odd.TargetCPU, odd.WakerTID, odd.WakerCPU, odd.FromIRQ = 1, 13, 0, trace.No
	odd.OrigCPU, odd.DestCPU, odd.ChildTID, odd.ChildPID, odd.ChildComm = 2, 3, 14, 15, "child"
	odd.Runtime, odd.Count, odd.Cgroup, odd.Stack = math.MinInt64, math.MaxUint64, math.MaxUint64-1, 1<<31
	odd.Policy, odd.NextPolicy = trace.PolicyFIFO, trace.PolicyBatch
	thread := trace.NewEvent(4, 0, trace.KindWaking) // earlier than odd: a negative time step
	thread.CurTID, thread.CurPID, thread.TID, thread.PID, thread.Comm = 20, 19, 21, 19, "a b"
	// The log follows the task each CPU switched in: a run time of another
	// task on CPU 3 after a switch to 30, a CPU beyond the ones it follows.
	sw, rt, far := trace.NewEvent(6, 3, trace.KindSwitch), trace.NewEvent(7, 3, trace.KindRuntime), trace.NewEvent(8, 9000, trace.KindSwitch)
	sw.TID, sw.NextTID, rt.TID, rt.CurTID, far.NextTID = 9, 30, 31, 30, 5
	cases := []struct {
		name string
		evs  []trace.Event
	}{
		{"hand-made", []trace.Event{trace.NewEvent(0, -1, trace.KindLost), odd, thread, {}, odd, sw, rt, rt, far, far, sw}},
	}
	for _, f := range []string{nice2cpu, "../testdata/traces/sched-g.data", "../testdata/traces/pipe-multi.v7zstd.dat",
		"../testdata/traces/sched-pipe-mode.data", "../../shared/traces/messaging.2cpu.perf.data", "../testdata/traces/quota-siblings.tv"} {
		cases = append(cases, struct {
			name string
			evs  []trace.Event
		}{f, readTrace(t, f)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l EventLog
			for _, ev := range c.evs {
				l.Append(ev)
			}
			if l.Len() != len(c.evs) {
				t.Fatalf("Len %d, want %d", l.Len(), len(c.evs))
			}
			got, err := trace.ReadAll(l.Source(nil))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.evs, got); d != "" {
				t.Errorf("events differ (-appended +read):\n%s", d)
			}
			switches := 0
			for _, ev := range c.evs {
				if ev.Kind == trace.KindSwitch {
					switches++
				}
			}
			if l.Count(trace.KindSwitch) != switches {
				t.Errorf("Count(switch) = %d, want %d", l.Count(trace.KindSwitch), switches)
			}
			if len(c.evs) > 10000 {
				size := 0
				for _, ch := range l.chunks {
					size += len(ch)
				}
				t.Logf("%d events in %d bytes (%.1f bytes an event)", len(c.evs), size, float64(size)/float64(len(c.evs)))
			}
		})
	}
}

// BenchmarkEventLog appends a recorded trace's events to an EventLog and
// reads them back (ns/op per pass over the trace; bytes an event).
func BenchmarkEventLog(b *testing.B) {
	if _, err := os.Stat(benchTrace()); err != nil {
		b.Skip(err)
	}
	evs := readTrace(b, benchTrace())
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var l EventLog
			for _, ev := range evs {
				l.Append(ev)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
	var l EventLog
	for _, ev := range evs {
		l.Append(ev)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			s := l.Source(nil)
			for {
				if _, err := s.Next(); err != nil {
					break
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
}

// readTrace returns every event of the trace file at path.
func readTrace(tb testing.TB, path string) []trace.Event {
	tb.Helper()
	src, err := trace.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	evs, err := trace.ReadAll(src)
	if err != nil {
		tb.Fatal(err)
	}
	return evs
}

// TestEventLogDrain: Drain serves the events Source does, releases every
// chunk once read, and leaves the counts; the model can then not be
// replayed as-traced (ErrRecordedReleased), and other policies still can.
func TestEventLogDrain(t *testing.T) {
	m := extractFile(t, "../../shared/traces/messaging.2cpu.perf.data")
	want, err := trace.ReadAll(m.RecordedSource())
	if err != nil {
		t.Fatal(err)
	}
	n, sw := m.Recorded.Len(), m.Recorded.Count(trace.KindSwitch)
	src := m.DrainRecorded()
	if !m.Recorded.Released() || m.Recorded.chunks != nil {
		t.Fatal("the log still holds its chunks after Drain")
	}
	var got []trace.Event
	for ev, err := src.Next(); err == nil; ev, err = src.Next() {
		got = append(got, ev)
		if ls := src.(*logSource); ls.c.chunk > 0 && ls.chunks != nil && ls.chunks[ls.c.chunk-1] != nil {
			t.Fatalf("event %d: chunk %d was read and is still held", len(got), ls.c.chunk-1)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("drained events differ (-Source +Drain):\n%s", d)
	}
	if m.Recorded.Len() != n || m.Recorded.Count(trace.KindSwitch) != sw {
		t.Errorf("counts after Drain: %d events, %d switches; want %d, %d", m.Recorded.Len(), m.Recorded.Count(trace.KindSwitch), n, sw)
	}
	if evs, _ := trace.ReadAll(m.RecordedSource()); len(evs) != 0 {
		t.Errorf("Source after Drain read %d events, want none", len(evs))
	}
	if _, err := Simulate(m, policies.AsTraced{}, DefaultConfig()); !errors.Is(err, ErrRecordedReleased) {
		t.Errorf("as-traced after Drain: %v, want ErrRecordedReleased", err)
	}
	if _, err := Simulate(m, policies.NewStack(policies.NewEEVDF(nil, m.NrCPUs)), DefaultConfig()); err != nil {
		t.Errorf("eevdf after Drain: %v", err)
	}
}
