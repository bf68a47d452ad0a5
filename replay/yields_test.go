package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/traceview/traceview/trace"
)

const us = int64(1000)

// yieldTrace is task 1 and task 2 on CPU 0 (times in µs): 2 is preempted
// at 0 (the trace's first event); then 1 and 2 yield to each other ten
// times, running 5 µs each ([10k, 10k+5) and [10k+5, 10k+10)). From 100:
// 1 runs [100,200) and leaves runnable (R) with nothing since its
// switch-in that could have preempted it; 2 runs [200,300) and sleeps; 1
// runs from 300, wakes 2 at 350 (a wakeup aimed at CPU 0) and leaves
// runnable at 400; 2 runs [400,600) and sleeps (after more than
// pingPongWindow: task 1 did not wait for it); 1 runs [600,700) and
// sleeps. first holds the sched_stat_runtime events of task 1's run
// [100,200); with any, every other run has its own at its switch-out.
func yieldTrace(first ...trace.Event) []trace.Event {
	w := trace.NewEvent(350*us, 0, trace.KindWaking)
	w.TID, w.CurTID, w.TargetCPU = 2, 1, 0
	acct := func(t int64, tid trace.TID, ran int64) []trace.Event {
		if len(first) == 0 {
			return nil
		}
		return []trace.Event{rt(t, tid, ran)}
	}
	evs := []trace.Event{sw(0, 2, trace.StatePreempted, 1)} // 2 is runnable from the start
	for k := int64(0); k < 10; k++ {
		evs = append(evs, acct(10*k*us+5*us, 1, 5*us)...)
		evs = append(evs, sw(10*k*us+5*us, 1, trace.StateRunning, 2))
		evs = append(evs, acct(10*k*us+10*us, 2, 5*us)...)
		evs = append(evs, sw(10*k*us+10*us, 2, trace.StateRunning, 1))
	}
	evs = append(evs, first...)
	evs = append(evs, sw(200*us, 1, trace.StateRunning, 2))
	evs = append(evs, acct(300*us, 2, 100*us)...)
	evs = append(evs, sw(300*us, 2, trace.StateInterruptible, 1), w)
	evs = append(evs, acct(400*us, 1, 100*us)...)
	evs = append(evs, sw(400*us, 1, trace.StateRunning, 2))
	evs = append(evs, acct(600*us, 2, 200*us)...)
	evs = append(evs, sw(600*us, 2, trace.StateInterruptible, 1))
	evs = append(evs, acct(700*us, 1, 100*us)...)
	evs = append(evs, sw(700*us, 1, trace.StateInterruptible, 0))
	return evs
}

// yieldsAt returns task 1's ten exchange yields (5 µs of CPU apart) and
// then a yield at each of at (ns).
func yieldsAt(at ...int64) []Action {
	var acts []Action
	for k := int64(1); k <= 10; k++ {
		acts = append(acts, Action{At: 5 * k * us, Kind: ActYield, Target: -1})
	}
	for _, a := range at {
		acts = append(acts, Action{At: a, Kind: ActYield, Target: -1})
	}
	return acts
}

func TestExtractYields(t *testing.T) {
	for _, c := range []struct {
		name   string
		first  []trace.Event
		len    int64
		want   []Action
		yields int
	}{
		// Run time from switch times: 50 µs in the exchanges, then
		// 100+100+100. The R switch at 200 is a yield 150 µs into the
		// burst; the one at 400 follows the wakeup at 350 aimed at CPU 0,
		// a preemption: only the wakeup of 2 (50+100+50 = 200 µs in) is
		// there. Task 2's ten exchange yields count too: 21.
		{"switch times", nil, 350 * us, append(yieldsAt(150*us),
			Action{At: 200 * us, Kind: ActWake, Target: 0, Block: 0}), 21},
		// yield_task_fair's update_curr at 199 µs (99 µs of the run) and
		// none at the switch: a yield 50+99 µs in; the burst is
		// 50+99+100+100 µs and the wakeup 149+50 µs in.
		{"one update_curr", []trace.Event{rt(199*us, 1, 99*us)}, 349 * us, append(yieldsAt(149*us),
			Action{At: 199 * us, Kind: ActWake, Target: 0, Block: 0}), 21},
		// update_curr at 195 µs and again at 199 µs, 1 µs before the
		// switch-out: a slice that ended at an update_curr and the
		// schedule() after it (yieldAccountWindow), not a yield.
		{"two update_curr", []trace.Event{rt(195*us, 1, 95*us), rt(199*us, 1, 4*us)}, 349 * us, append(yieldsAt(),
			Action{At: 199 * us, Kind: ActWake, Target: 0, Block: 0}), 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Extract(trace.NewSliceSource(yieldTrace(c.first...), nil))
			if err != nil {
				t.Fatal(err)
			}
			tk := &m.Tasks[1]
			if tk.TID != 1 || m.Tasks[0].TID != 2 {
				t.Fatalf("tasks are tid %d, %d; want 2, 1", m.Tasks[0].TID, tk.TID)
			}
			b := &tk.Bursts[0]
			if b.Len != c.len || b.End != EndBlock {
				t.Errorf("burst 0: %d ns, end %v; want %d ns, a block", b.Len, b.End, c.len)
			}
			if d := cmp.Diff(c.want, tk.ActionsOf(b)); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if m.Stats.Yields != c.yields {
				t.Errorf("Stats.Yields = %d, want %d", m.Stats.Yields, c.yields)
			}
		})
	}
}

// TestExtractYieldNeedsRunnableNext: the same trace, but task 2 first
// seen at its switch-in at 5 µs: nothing shows it was runnable before (its
// wakeup, if any, is not in the trace and may be what preempted task 1),
// so task 1's R switch-out at 5 stays a preemption: its yields are the
// other nine exchanges (10..50 µs of CPU) and 150 µs, 10 of its 12
// runnable switch-outs; with task 2's ten, 20.
func TestExtractYieldNeedsRunnableNext(t *testing.T) {
	evs := yieldTrace()
	evs[0] = sw(0, 0, 0, 1)
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	tk := &m.Tasks[0]
	if tk.TID != 1 {
		t.Fatalf("task 0 is tid %d, want 1", tk.TID)
	}
	want := append(yieldsAt(150 * us)[1:], Action{At: 200 * us, Kind: ActWake, Target: 1, Block: 0})
	if d := cmp.Diff(want, tk.ActionsOf(&tk.Bursts[0])); d != "" {
		t.Errorf("actions (-want +got):\n%s", d)
	}
	if m.Stats.Yields != 20 {
		t.Errorf("Stats.Yields = %d, want 20", m.Stats.Yields)
	}
}
