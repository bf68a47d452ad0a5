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
			Wake:    Cause{Kind: CauseExternal, At: w},
			Actions: []Action{{At: 20_000, Kind: ActWake, Target: 1, Block: int32(k)}}})
		at = w
	}
	bs = append(bs, Burst{Len: 10_000, End: EndExit})
	m.Tasks = []Task{{TID: 10, PID: 10, Comm: "gen", Parent: -1, Bursts: bs, Repeat: -1},
		{TID: 11, PID: 10, Comm: "other", Parent: -1, Repeat: -1, Bursts: []Burst{{Len: 1000, End: EndExit,
			Actions: []Action{{At: 500, Kind: ActWake, Target: 0, Block: 20}}}}}}
	x := &extractor{m: m, st: make([]ext, 2)}
	x.st[0].selfWakes = sw
	return x, w9
}

// TestSplitArrivals: burst 10's three self-wakeups make 3 recovered
// arrivals, 26 + 3 = 29 bursts: pieces of 10 µs ending at 10, 20 and 30
// µs, then the last 10 µs with the burst's own sleep. The arrivals are
// spread from W(9) − 50 µs (the arrival that started the burst, its wakeup
// less the timer slack) to the last self-wakeup, W(9) + 2.99 ms, 3.04 ms
// in all: W(9) − 50 µs + 760 µs·j = W(9) + 710, 1470 and 2230 µs, each
// before its own self-wakeup (W(9) + 2.97, 2.98, 2.99 ms). The burst's
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
	for j, want := range []int64{w9 + 710_000, w9 + 1_470_000, w9 + 2_230_000} {
		p := g.Bursts[10+j]
		if p.Len != 10_000 || p.End != EndBlock || p.Wake.Kind != CauseExternal || p.Wake.At != want || !p.Wake.Inferred {
			t.Errorf("piece %d: len %d, end %v, wake %+v; want 10 µs ending at an inferred arrival at %d", j, p.Len, p.End, p.Wake, want)
		}
	}
	if last := g.Bursts[13]; last.Len != 10_000 || last.Slept != 1_050_000 || last.Wake.At != g.Bursts[14].Wake.At-1_090_000 {
		t.Errorf("last piece of burst 10: %+v", last)
	}
	if a := g.Bursts[12].Actions; len(a) != 1 || a[0].At != 0 || a[0].Block != 10 {
		t.Errorf("third piece's actions %+v, want the wakeup of task 1's block 10 at 0 µs", a)
	}
	if b := x.m.Tasks[1].Bursts[0].Actions[0].Block; b != 23 {
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
	x := &extractor{m: &Model{WorkloadRoot: -1, Start: -1}, byTID: map[trace.TID]int{}, pre: map[trace.TID]preName{}, byPID: map[trace.PID][]int{}}
	for _, e := range evs {
		x.event(e)
	}
	i := x.byTID[5]
	if got := x.st[i].selfWakes; len(got) != 1 || got[0] != (selfWake{b: 0, off: 300_000, t: 1_300_000}) {
		t.Errorf("self-wakeups %+v, want one at burst 0, 300 µs, 1.3 ms", got)
	}
}
