package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/traceview/traceview/trace"
)

// TestYieldSim replays two nice-0 tasks of 12 ms on one CPU at 250 Hz (no
// costs), A yielding after every 0.1 ms of CPU time, under eevdf (base
// slice 0.7 ms on 1 CPU; weight 1024, so vruntime advances as run time).
// By hand, in ms: A runs [0, 0.1), yields: V = (0.1+0)/2 = 0.05 < its
// vruntime 0.1, not eligible, so nothing forfeited, and B (eligible,
// deadline 0.7) is picked: a switch with prev_state R. B keeps the CPU to
// the tick at 4 (slices end only at the tick here): v_B 3.9, deadline
// passed, resched; A (v 0.1 ≤ V 2.0) is picked, R+. Each of A's yields
// now forfeits: v_A = deadline_A, deadline_A += 0.7, so A gains 0.7 of
// vruntime per 0.1 of run, and is picked again while v_A ≤ V = (v_A +
// 3.9)/2, i.e. v_A ≤ 3.9: v_A after each yield is 0.7, 1.4, 2.1, 2.8,
// 3.5, 4.2: the sixth yield, at 4.6, hands B the CPU. B runs to the tick
// at 8 (v_B 7.3); A yields five times (4.9 ... 7.7 > 7.3) and gives way
// at 8.5; B to 12 (v_B 10.8); A five (8.4 ... 11.2 > 10.8), gives way at
// 12.5; B has 12 - (3.9+3.4+3.5) = 1.2 left and exits at 13.7; A, alone
// (yield_task_fair returns at once, and there is no switch), runs its
// 12 - 1.7 = 10.3 left and exits at 24. All 119 yield points are reached.
func TestYieldSim(t *testing.T) {
	m := hogModel(12_000_000, 120, 120)
	a := &m.Tasks[0]
	for at := int64(100_000); at < 12_000_000; at += 100_000 {
		a.AddAction(&a.Bursts[0], Action{At: at, Kind: ActYield, Target: -1})
	}
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	type sw struct {
		t          int64
		prev, next trace.TID
		state      trace.TaskState
	}
	var got []sw
	for _, e := range res.Events() {
		if e.Kind == trace.KindSwitch && e.TID > 0 {
			got = append(got, sw{e.Time, e.TID, e.NextTID, e.PrevState})
		}
	}
	const A, B = 100, 101
	want := []sw{
		{100_000, A, B, trace.StateRunning},
		{4_000_000, B, A, trace.StatePreempted},
		{4_600_000, A, B, trace.StateRunning},
		{8_000_000, B, A, trace.StatePreempted},
		{8_500_000, A, B, trace.StateRunning},
		{12_000_000, B, A, trace.StatePreempted},
		{12_500_000, A, B, trace.StateRunning},
		{13_700_000, B, A, trace.StateDead},
		{24_000_000, A, 0, trace.StateDead},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(sw{})); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
	if res.Stats.Yields != 119 {
		t.Errorf("Stats.Yields = %d, want 119", res.Stats.Yields)
	}
}
