package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// arrivalModel is an open-loop generator (task 0): 25 bursts of 40 µs,
// each ending in a sleep of 1.05 ms until an absolute wake time W(k).
// Burst k ≥ 1 starts at W(k−1), except burst 10, which waited 2.96 ms for
// the CPU first and woke itself 10, 20 and 30 µs into its run (three
// arrivals passed while it waited). Each burst wakes task 1 20 µs in; task
// 1 wakes the generator's block 20 (an action aimed at it, to check the
// renumbering). It returns the extractor state too.
func arrivalModel() (*extractor, int64) {
	m := &Model{WorkloadRoot: -1}
	var bs []Burst
	var sw []selfWake
	at, w9 := int64(0), int64(0) // start of the next burst
	for k := 0; k < 25; k++ {
		if k == 10 {
			at += 2_960_000
			for j := int64(1); j <= 3; j++ {
				sw = append(sw, selfWake{b: 10, off: j * 10_000, t: at + j*10_000})
			}
		}
		blocked := at + 40_000
		w := blocked + 1_050_000
		if k == 9 {
			w9 = w
		}
		bs = append(bs, Burst{Len: 40_000, End: EndBlock, Slept: 1_050_000,
			Wake: Cause{Kind: CauseExternal, At: w}})
		at = w
	}
	bs = append(bs, Burst{Len: 10_000, End: EndExit})
	m.Tasks = []Task{{TID: 10, PID: 10, Comm: "gen", Parent: -1, Bursts: bs, Repeat: -1},
		{TID: 11, PID: 10, Comm: "other", Parent: -1, Repeat: -1, Bursts: []Burst{{Len: 1000, End: EndExit}}}}
	for k := 0; k < len(bs)-1; k++ {
		setActs(m, 0, k, Action{At: 20_000, Kind: ActWake, Target: 1, Block: int32(k)})
	}
	setActs(m, 1, 0, Action{At: 500, Kind: ActWake, Target: 0, Block: 20})
	x := &extractor{m: m, st: make([]ext, 2)}
	x.st[0].selfWakes = sw
	return x, w9
}

// TestSplitArrivals: burst 10's three self-wakeups make 3 recovered
// arrivals, 26 + 3 = 29 bursts: pieces of 10 µs ending at 10, 20 and 30
// µs, then the last 10 µs with the burst's own sleep. The arrivals are
// drawn over the window from W(9) − 50 µs (the arrival that started the
// burst, its wakeup less the timer slack) to the last self-wakeup, W(9) +
// 2.99 ms: in order, inside it, each before its own self-wakeup (W(9) +
// 2.97, 2.98, 2.99 ms), and the same on a second extraction. The burst's
// wakeup of task 1 (20 µs in) lands in the third piece, 0 µs into it.
// Task 1's wakeup of block 20 now names block 23 (three pieces before it).
func TestSplitArrivals(t *testing.T) {
	x, w9 := arrivalModel()
	if n := x.splitArrivals(); n != 3 {
		t.Fatalf("recovered %d arrivals, want 3", n)
	}
	g := &x.m.Tasks[0]
	if !g.OpenLoop || len(g.Bursts) != 29 {
		t.Fatalf("OpenLoop %v, %d bursts; want true, 29", g.OpenLoop, len(g.Bursts))
	}
	x2, _ := arrivalModel()
	x2.splitArrivals()
	prev := w9 - 50_000
	for j, self := range []int64{w9 + 2_970_000, w9 + 2_980_000, w9 + 2_990_000} {
		p := g.Bursts[10+j]
		if p.Len != 10_000 || p.End != EndBlock || p.Wake.Kind != CauseExternal || !p.Wake.Inferred ||
			p.Wake.At <= prev || p.Wake.At > self {
			t.Errorf("piece %d: len %d, end %v, wake %+v; want 10 µs ending at an inferred arrival in (%d, %d]", j, p.Len, p.End, p.Wake, prev, self)
		}
		if again := x2.m.Tasks[0].Bursts[10+j].Wake.At; again != p.Wake.At {
			t.Errorf("piece %d: arrival at %d, %d on a second extraction", j, p.Wake.At, again)
		}
		prev = p.Wake.At
	}
	if last := g.Bursts[13]; last.Len != 10_000 || last.Slept != 1_050_000 || last.Wake.At != g.Bursts[14].Wake.At-1_090_000 {
		t.Errorf("last piece of burst 10: %+v", last)
	}
	if a := g.ActionsOf(&g.Bursts[12]); len(a) != 1 || a[0].At != 0 || a[0].Block != 10 {
		t.Errorf("third piece's actions %+v, want the wakeup of task 1's block 10 at 0 µs", a)
	}
	if b := actionsOf(x.m, 1, 0)[0].Block; b != 23 {
		t.Errorf("wakeup of the generator's block 20 names block %d, want 23", b)
	}
}

// TestSplitArrivalsLeavesOthers: a periodic task, a pool member, a task
// with fewer than minArrivalSleeps arrival sleeps, or one that never woke
// itself is not split.
func TestSplitArrivalsLeavesOthers(t *testing.T) {
	for name, edit := range map[string]func(*extractor){
		"periodic": func(x *extractor) { x.m.Tasks[0].Periodic = true },
		"pool":     func(x *extractor) { x.m.Tasks[0].Pool = 1 },
		"few": func(x *extractor) {
			x.m.Tasks[0].Bursts = append(x.m.Tasks[0].Bursts[:15:15], Burst{Len: 1, End: EndExit})
		},
		"no self-wakeups": func(x *extractor) { x.st[0].selfWakes = nil },
	} {
		x, _ := arrivalModel()
		edit(x)
		n0 := len(x.m.Tasks[0].Bursts)
		if n := x.splitArrivals(); n != 0 || len(x.m.Tasks[0].Bursts) != n0 || x.m.Tasks[0].OpenLoop {
			t.Errorf("%s: recovered %d, %d bursts (was %d), OpenLoop %v", name, n, len(x.m.Tasks[0].Bursts), n0, x.m.Tasks[0].OpenLoop)
		}
	}
}

// TestSelfWakeExtract: in a recorded stream, a task woken by a timer while
// it runs on its CPU (sched_waking with itself current there) is a
// self-wakeup at its CPU offset into the burst. The task (tid 5) is
// switched in at 1 ms, its timer fires at 1.3 ms (300 µs in) while it
// runs; it sleeps at 1.5 ms. A wakeup of it from another CPU's current
// task while it runs is not one.
func TestSelfWakeExtract(t *testing.T) {
	self := trace.NewEvent(1_300_000, 0, trace.KindWaking)
	self.TID, self.CurTID, self.TargetCPU, self.Prio = 5, 5, 0, 120
	other := trace.NewEvent(1_400_000, 1, trace.KindWaking)
	other.TID, other.CurTID, other.TargetCPU, other.Prio = 5, 0, 0, 120
	evs := []trace.Event{sw(1_000_000, 0, 0, 5), self, other, rt(1_500_000, 5, 500_000), sw(1_500_000, 5, trace.StateInterruptible, 0)}
	x := &extractor{m: &Model{WorkloadRoot: -1, Start: -1}, pre: map[trace.TID]preName{}, byPID: map[trace.PID][]int{}}
	for k := range evs {
		x.event(&evs[k])
	}
	i, _ := x.byTID.get(5)
	if got := x.st[i].selfWakes; len(got) != 1 || got[0] != (selfWake{b: 0, off: 300_000, t: 1_300_000}) {
		t.Errorf("self-wakeups %+v, want one at burst 0, 300 µs, 1.3 ms", got)
	}
}

// TestSplitBurstPoissonGaps: 1000 arrivals recovered over a 1 s window are
// drawn as a Poisson process's given their number: uniform order
// statistics, whose gaps are nearly exponential with mean 1 ms. A third of
// the mean or less: 1 − e^(−1/3) = 28.3 % of the gaps (standard error 1.4
// points at 1000), where evenly spaced arrivals had none; 3 mean gaps or
// more: e^(−3) = 5.0 % (0.7).
func TestSplitBurstPoissonGaps(t *testing.T) {
	const h = 1000
	pts := make([]selfWake, h)
	for j := range pts {
		pts[j] = selfWake{b: 0, off: int64(j+1) * 10, t: 2_000_000_000}
	}
	pieces := splitBurst(&Task{}, Burst{Len: 20_000, End: EndExit}, pts, 1_000_000_000)
	short, long := 0, 0
	prev := int64(1_000_000_000)
	for j := 0; j < h; j++ {
		at := pieces[j].Wake.At
		if at < prev || at > 2_000_000_000 {
			t.Fatalf("arrival %d at %d: before the one before it (%d) or after the window", j, at, prev)
		}
		switch gap := at - prev; {
		case gap <= 1_000_000/3:
			short++
		case gap >= 3_000_000:
			long++
		}
		prev = at
	}
	if f := float64(short) / h; f < 0.24 || f > 0.33 {
		t.Errorf("%.1f %% of the gaps at most a third of the mean, want 28.3 %% ± 4", 100*f)
	}
	if f := float64(long) / h; f < 0.03 || f > 0.07 {
		t.Errorf("%.1f %% of the gaps at least 3 means, want 5.0 %% ± 2", 100*f)
	}
}
