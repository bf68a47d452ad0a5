package replay

import (
	"math/rand/v2"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// randomTrace is an inconsistent event stream: switches of tasks that never
// ran, wakeups of running tasks, forks of live TIDs, exits followed by reuse,
// runtime of sleeping tasks, unknown CPUs and prios.
func randomTrace(seed uint64, n int) []trace.Event {
	r := rand.New(rand.NewPCG(seed, 1))
	var evs []trace.Event
	t := int64(1_000_000)
	tid := func() trace.TID { return trace.TID(r.IntN(12)) }
	for i := 0; i < n; i++ {
		t += int64(r.IntN(200_000))
		cpu := trace.CPU(r.IntN(3))
		var e trace.Event
		switch r.IntN(7) {
		case 0, 1, 2:
			e = trace.NewEvent(t, cpu, trace.KindSwitch)
			e.TID, e.NextTID = tid(), tid()
			e.Prio, e.NextPrio = int32(r.IntN(140)), int32(90+r.IntN(50))
			e.PrevState = []trace.TaskState{0, trace.StatePreempted, trace.StateInterruptible, trace.StateUninterruptible, trace.StateDead}[r.IntN(5)]
		case 3:
			e = trace.NewEvent(t, cpu, trace.KindWaking)
			e.TID, e.CurTID, e.TargetCPU = tid(), tid(), trace.CPU(r.IntN(4)-1)
		case 4:
			e = trace.NewEvent(t, cpu, trace.KindFork)
			e.TID, e.ChildTID = tid(), tid()
		case 5:
			e = trace.NewEvent(t, cpu, trace.KindRuntime)
			e.TID, e.Runtime = tid(), int64(r.IntN(300_000))
		case 6:
			e = trace.NewEvent(t, cpu, trace.KindExit)
			e.TID = tid()
		}
		e.Comm = "t"
		evs = append(evs, e)
	}
	return evs
}

// TestRobustRandomTraces: extraction and simulation of inconsistent traces
// neither panic nor hang, under every fair and RT policy, and as-traced
// still reproduces the input.
func TestRobustRandomTraces(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		evs := randomTrace(seed, 600)
		m, err := Extract(trace.NewSliceSource(evs, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"as-traced", "eevdf", "cfs", "fifo", "rr", "eevdf:llc_size=0,NO_DELAY_DEQUEUE"} {
			specs, err := policies.ParseSpecs(p)
			if err != nil {
				t.Fatal(err)
			}
			pol, _ := specs[0].New(3)
			res, err := Simulate(m, pol, Config{CPUs: 3, HZ: 1000})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p, err)
			}
			if p == "as-traced" && len(res.Events()) != m.Recorded.Len() {
				t.Errorf("seed %d: as-traced gave %d events of %d", seed, len(res.Events()), m.Recorded.Len())
			}
			prev := int64(-1)
			for _, e := range res.Events() {
				if e.Time < prev {
					t.Fatalf("seed %d %s: events out of order at %v", seed, p, e)
				}
				prev = e.Time
			}
		}
	}
}

// switchesAt is a trace of sched_switch events on CPU 0 at times (ns),
// alternating task 10 and idle.
func switchesAt(times ...int64) []trace.Event {
	var evs []trace.Event
	for k, t := range times {
		e := trace.NewEvent(t, 0, trace.KindSwitch)
		e.TID, e.NextTID, e.Comm, e.NextComm, e.Prio, e.NextPrio = 10, 0, "t", "swapper", 120, 120
		if k%2 == 0 {
			e.TID, e.NextTID, e.Comm, e.NextComm = 0, 10, "swapper", "t"
		} else {
			e.PrevState = trace.StateInterruptible
		}
		evs = append(evs, e)
	}
	return evs
}

// TestIsolatedTimes: an event more than maxGap (1 h) from the events
// around it is skipped as damage, in the middle (the events after it
// kept), at the end and at the start; a real pause of 2 h with events
// after it is kept. The trace's span (Model.End - Start) says which.
func TestIsolatedTimes(t *testing.T) {
	const s = int64(1e9)
	far := int64(1) << 53 // 9,007,199 s: a time with bit 53 set
	for _, c := range []struct {
		name       string
		times      []int64
		skipped    int
		start, end int64
		warning    string
	}{
		{"middle", []int64{1 * s, 2 * s, far + 3*s, 3 * s, 4 * s}, 1, 1 * s, 4 * s,
			"replay: sched_switch at 9007202254740992 ns (task 0): a time 9007200.255 s after the previous event, with the next one earlier, is outside what the trace can hold: damaged, skipped"},
		{"last", []int64{1 * s, 2 * s, 3 * s, far}, 1, 1 * s, 3 * s,
			"replay: sched_switch at 9007199254740992 ns (task 10): a time 9007196.255 s after the previous event, ending the trace, is outside what the trace can hold: damaged, skipped"},
		{"first far before", []int64{1 * s, far, far + 1*s, far + 2*s}, 1, far, far + 2*s,
			"replay: sched_switch at 1000000000 ns (task 0): a time 9007198.255 s before the next event, starting the trace, is outside what the trace can hold: damaged, skipped"},
		{"pause of 2 h", []int64{1 * s, 2 * s, 7202 * s, 7203 * s}, 0, 1 * s, 7203 * s, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Extract(trace.NewSliceSource(switchesAt(c.times...), nil))
			if err != nil {
				t.Fatal(err)
			}
			if m.Stats.Skipped != c.skipped || m.Start != c.start || m.End != c.end {
				t.Errorf("skipped %d, span %d..%d; want %d, %d..%d", m.Stats.Skipped, m.Start, m.End, c.skipped, c.start, c.end)
			}
			ws := m.Meta.Warnings.List()
			if c.warning != "" && (len(ws) != 1 || ws[0].Message != c.warning) || c.warning == "" && len(ws) != 0 {
				t.Errorf("warnings %v, want %q", ws, c.warning)
			}
		})
	}
}

// TestUnknownCPUSwitch is the regression test for FuzzReplay's crasher
// dedf4c20b5bae3bd: a wakeup with no target CPU, then a sched_switch with
// no CPU (-1, which the text readers give) into the woken task, indexed
// per-CPU state with -1 (index out of range in extractor.switchEv). The
// switch-in is taken; no delay is measured from it.
func TestUnknownCPUSwitch(t *testing.T) {
	evs := switchesAt(1e9, 2e9) // task 10 runs on CPU 0 from 1 s, sleeps at 2 s
	w := trace.NewEvent(3e9, 0, trace.KindWaking)
	w.TID, w.TargetCPU, w.Comm, w.Prio = 10, -1, "t", 120
	in := trace.NewEvent(4e9, -1, trace.KindSwitch)
	in.TID, in.NextTID, in.Comm, in.NextComm, in.Prio, in.NextPrio = 0, 10, "swapper", "t", 120, 120
	m, err := Extract(trace.NewSliceSource(append(evs, w, in), nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 1 || m.Stats.Skipped != 0 || m.IdleExit != 0 || m.WakePreempt != 0 {
		t.Errorf("%d tasks, %d skipped, idle exit %d, wakeup preemption %d; want 1 task, none skipped, no delays measured",
			len(m.Tasks), m.Stats.Skipped, m.IdleExit, m.WakePreempt)
	}
	if bs := m.Tasks[0].Bursts; len(bs) != 2 || bs[0].End != EndBlock || bs[0].Slept != 1e9 || bs[0].Len != 1e9 {
		t.Errorf("bursts %+v, want a 1 s burst ending in a 1 s sleep, then the run from 4 s", bs)
	}
}

// TestHugeFirstRuntime: a sched_stat_runtime of 2^62 ns as the trace's
// first event is skipped as damage (it may report up to trace.MaxPreTraceRun of
// run before the trace), and one of 0.9 s is taken.
func TestHugeFirstRuntime(t *testing.T) {
	for _, c := range []struct {
		runtime int64
		skipped int
	}{{1 << 62, 1}, {9e8, 0}} {
		rt := trace.NewEvent(5e9, 0, trace.KindRuntime)
		rt.TID, rt.CurTID, rt.Runtime, rt.Comm = 10, 10, c.runtime, "t"
		out := trace.NewEvent(5e9+1, 0, trace.KindSwitch)
		out.TID, out.NextTID, out.Comm, out.NextComm, out.Prio, out.NextPrio, out.PrevState = 10, 0, "t", "swapper", 120, 120, trace.StateInterruptible
		m, err := Extract(trace.NewSliceSource([]trace.Event{rt, out}, nil))
		if err != nil {
			t.Fatal(err)
		}
		if m.Stats.Skipped != c.skipped {
			t.Errorf("run time %d ns first: %d skipped, want %d", c.runtime, m.Stats.Skipped, c.skipped)
		}
	}
}
