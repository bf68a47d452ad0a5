package replay

import "testing"

// arrivalModel is an open-loop generator (task 0): 25 bursts of 40 µs,
// each ending in a sleep of 1.05 ms (1 ms to its arrival plus the 50 µs
// TimerSlack) until an absolute wake time. Burst k ≥ 1 starts at the wake
// time W(k−1) of the sleep before it, except burst 10, which waited
// 2.96 ms for the CPU first. Task 1 wakes the generator's block 20 (an
// action aimed at it, to check the renumbering).
func arrivalModel() *Model {
	m := &Model{WorkloadRoot: -1}
	var bs []Burst
	at := int64(0) // start of the next burst
	for k := 0; k < 25; k++ {
		if k == 10 {
			at += 2_960_000
		}
		blocked := at + 40_000
		w := blocked + 1_050_000
		bs = append(bs, Burst{Len: 40_000, End: EndBlock, Slept: 1_050_000,
			Wake:    Cause{Kind: CauseExternal, At: w},
			Actions: []Action{{At: 20_000, Kind: ActWake, Target: 1, Block: k}}})
		at = w
	}
	bs = append(bs, Burst{Len: 10_000, End: EndExit})
	m.Tasks = []Task{{TID: 10, PID: 10, Comm: "gen", Parent: -1, Bursts: bs, Repeat: -1},
		{TID: 11, PID: 10, Comm: "other", Parent: -1, Repeat: -1, Bursts: []Burst{{Len: 1000, End: EndExit,
			Actions: []Action{{At: 500, Kind: ActWake, Target: 0, Block: 20}}}}}}
	return m
}

// TestSplitArrivals: λ = 24 sleeps / Σ(1.05 ms − 50 µs) = 1 per ms. Each
// busy window runs from the arrival before it (the wakeup less the 50 µs
// slack) to the block: 90 µs, 3.05 ms for burst 10. The carried count:
// bursts 1-9 add 0.09 each (0.81); burst 10 brings it to 3.86, so 3
// arrivals are recovered there (0.86 left); 0.95 at burst 11, 1.04 at
// burst 12 (1 recovered, 0.04 left), then 1.03 at burst 23 (1 more): 5 in
// all, 26 + 5 = 31 bursts. Burst 10 becomes 4 pieces of 10 µs; its window
// starts at W(9) − 50 µs and is 3.05 ms long, so the recovered arrivals
// are at W(9) − 50 µs + 3.05 ms × j/4: W(9) + 712.5 µs, + 1475 µs,
// + 2237.5 µs, all before the times the recording reached those points
// (W(9) + 2.97, 2.98, 2.99 ms), so none is clamped. The burst's wakeup of
// task 1 (20 µs in) lands in the third piece, 0 µs into it. Task 1's
// wakeup of block 20 now names block 24.
func TestSplitArrivals(t *testing.T) {
	m := arrivalModel()
	w9 := m.Tasks[0].Bursts[9].Wake.At
	x := &extractor{m: m}
	if n := x.splitArrivals(); n != 5 {
		t.Fatalf("recovered %d arrivals, want 5", n)
	}
	g := &m.Tasks[0]
	if !g.OpenLoop || len(g.Bursts) != 31 {
		t.Fatalf("OpenLoop %v, %d bursts; want true, 31", g.OpenLoop, len(g.Bursts))
	}
	for j, want := range []int64{w9 + 712_500, w9 + 1_475_000, w9 + 2_237_500} {
		p := g.Bursts[10+j]
		if p.Len != 10_000 || p.End != EndBlock || p.Wake.Kind != CauseExternal || p.Wake.At != want || !p.Wake.Inferred {
			t.Errorf("piece %d: len %d, end %v, wake %+v; want 10 µs ending at an inferred arrival at %d", j, p.Len, p.End, p.Wake, want)
		}
	}
	if last := g.Bursts[13]; last.Len != 10_000 || last.Slept != 1_050_000 || last.Wake.At != m.Tasks[0].Bursts[13].Wake.At {
		t.Errorf("last piece of burst 10: %+v", last)
	}
	if a := g.Bursts[12].Actions; len(a) != 1 || a[0].At != 0 || a[0].Block != 10 {
		t.Errorf("third piece's actions %+v, want the wakeup of task 1's block 10 at 0 µs", a)
	}
	if b := m.Tasks[1].Bursts[0].Actions[0].Block; b != 24 {
		t.Errorf("wakeup of the generator's block 20 names block %d, want 24", b)
	}
}

// TestSplitArrivalsLeavesOthers: a periodic task, a pool member, or a task
// with fewer than MinArrivalSleeps arrival sleeps is not a generator.
func TestSplitArrivalsLeavesOthers(t *testing.T) {
	for name, edit := range map[string]func(*Task){
		"periodic": func(tk *Task) { tk.Periodic = true },
		"pool":     func(tk *Task) { tk.Pool = 1 },
		"few":      func(tk *Task) { tk.Bursts = append(tk.Bursts[:15:15], Burst{Len: 1, End: EndExit}) },
	} {
		m := arrivalModel()
		edit(&m.Tasks[0])
		n0 := len(m.Tasks[0].Bursts)
		if n := (&extractor{m: m}).splitArrivals(); n != 0 || len(m.Tasks[0].Bursts) != n0 || m.Tasks[0].OpenLoop {
			t.Errorf("%s: recovered %d, %d bursts (was %d), OpenLoop %v", name, n, len(m.Tasks[0].Bursts), n0, m.Tasks[0].OpenLoop)
		}
	}
}
