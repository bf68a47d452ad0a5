package policies

import "testing"

func TestBFS2009DeadlineDiff(t *testing.T) {
	// prio_ratios from 100, × 11/10 truncated: nice 0 (index 20) is 655,
	// nice 19 (index 39) 3987, nice −20 100.
	for _, tc := range []struct {
		nice   int
		rr     int64
		hz     int
		jiffie int64
	}{
		{0, 12, 1000, 78}, // 655 × 12 × 1000 / 100000 = 78.6
		{0, 6, 250, 9},    // 655 × 6 × 250 / 100000 = 9.8
		{19, 6, 250, 59},  // 3987 × 6 × 250 / 100000 = 59.8
		{-20, 1, 100, 1},  // 100 × 1 × 100 / 100000 = 0.1: at least 1
	} {
		if got := BFS2009DeadlineDiff(tc.nice, tc.rr, tc.hz); got != tc.jiffie {
			t.Errorf("nice %d rr %d HZ %d: %d jiffies, want %d", tc.nice, tc.rr, tc.hz, got, tc.jiffie)
		}
	}
}

// bfs2009Queue makes X, Y, Z queued in that order on one CPU with
// deadlines 5, 2 and 50 jiffies, at 40 ms (HZ 250: jiffy 10), so X and Y
// have expired.
func bfs2009Queue(old bfs2009) (*BFS, *fakeSim, []*Task) {
	sim := newFakeSim(1)
	b := NewBFS(6)
	b.old = old
	b.Init(sim)
	ts := []*Task{sim.task(0), sim.task(0), sim.task(0)}
	for i, t := range ts {
		b.TaskNew(t)
		b.Enqueue(0, t, EnqueueWakeup)
		b.ts[t.ID].deadline = []int64{5, 2, 50}[i]
	}
	sim.now = 40_000_000
	return b, sim, ts
}

func TestBFS2009ExpiredFIFO(t *testing.T) {
	// EXPIRED_FIFO: the first queued task past its deadline, X (5 < 10),
	// though Y's deadline (2) is earlier; without it the earliest, Y.
	b, _, ts := bfs2009Queue(bfs2009{jiffy: true, fifo: true})
	if got := b.PickNext(0, nil); got != ts[0] {
		t.Errorf("EXPIRED_FIFO picked task %d, want X (0)", got.ID)
	}
	b, _, ts = bfs2009Queue(bfs2009{jiffy: true})
	if got := b.PickNext(0, nil); got != ts[1] {
		t.Errorf("earliest deadline picked task %d, want Y (1)", got.ID)
	}
}

func TestBFS2009PreemptedToTail(t *testing.T) {
	// schedule() returns a runnable prev to the queue's tail: X, first in
	// the queue and expired, was running and is descheduled; the pick now
	// takes Y, the next expired one in queue order, not X again.
	b, sim, ts := bfs2009Queue(bfs2009{jiffy: true, fifo: true})
	sim.curr[0] = ts[0]
	b.ts[ts[0].ID].slice = 1_000_000 // slice left: no refill
	if got := b.PickNext(0, ts[0]); got != ts[1] {
		t.Errorf("picked task %d, want Y (1)", got.ID)
	}
}

func TestBFS2009SyncWakeup(t *testing.T) {
	// SYNC_NO_PREEMPT: a WF_SYNC wakee with the earlier deadline (2 < 50)
	// does not preempt; a plain wakeup does. The replay gives the flag to
	// SelectCPU only: CheckPreemptWakeup sees it from there.
	for _, sync := range []bool{false, true} {
		b, sim, ts := bfs2009Queue(bfs2009{jiffy: true, syncNoPreempt: true})
		sim.curr[0] = ts[2]
		f := WakeTTWU
		if sync {
			f |= WakeSync
		}
		b.SelectCPU(ts[1], 0, nil, f)
		if got := b.CheckPreemptWakeup(0, ts[2], ts[1], WakeTTWU); got == sync {
			t.Errorf("sync %v: preempt %v, want %v", sync, got, !sync)
		}
	}
}

func TestBFS2009Slices(t *testing.T) {
	// RR_SCALE on 2 CPUs: rr_interval 6 × (1 + ilog2 2) = 12 ms, slice
	// 12 ms (MS_TO_US × 1000 ns), deadline jiffies + 19 (655 × 12 × 250 /
	// 100000 = 19.65: 19) at HZ 250. A fork halves the parent's 12 ms; the
	// child keeps the parent's deadline and the 6 ms. A wakeup refills
	// nothing, even with 50 µs left.
	sim := newFakeSim(2)
	b := NewBFS(6)
	b.old = bfs2009{jiffy: true, rrScale: true}
	b.Init(sim)
	p := sim.task(0)
	sim.now = 8_000_000 // jiffy 2
	b.TaskNew(p)
	if ts := b.ts[p.ID]; ts.slice != 12_000_000 || ts.deadline != 2+19 {
		t.Errorf("new task: slice %d deadline %d, want 12000000 and 21", ts.slice, ts.deadline)
	}
	c := sim.task(0)
	c.Parent = p
	sim.now = 100_000_000
	b.TaskNew(c)
	if pt, ct := b.ts[p.ID], b.ts[c.ID]; pt.slice != 6_000_000 || ct.slice != 6_000_000 || ct.deadline != 21 {
		t.Errorf("fork: parent slice %d, child slice %d deadline %d; want 6000000, 6000000, 21", pt.slice, ct.slice, ct.deadline)
	}
	// The child (gcc, forked by make) uses 785 µs of its 6 ms and forks
	// cc1: 5215 µs halved, 2607.5 µs (integer: 2607500 ns) each, and cc1
	// keeps make's deadline, 21: a grandchild runs a quarter of the
	// grandparent's slice, less what the child ran, on that deadline.
	b.ts[c.ID].slice -= 785_000
	g := sim.task(0)
	g.Parent = c
	b.TaskNew(g)
	if ct, gt := b.ts[c.ID], b.ts[g.ID]; ct.slice != 2_607_500 || gt.slice != 2_607_500 || gt.deadline != 21 {
		t.Errorf("fork of the child: child slice %d, grandchild slice %d deadline %d; want 2607500, 2607500, 21", ct.slice, gt.slice, gt.deadline)
	}
	b.ts[c.ID].slice = 50_000
	b.Enqueue(0, c, EnqueueWakeup)
	if ct := b.ts[c.ID]; ct.slice != 50_000 || ct.deadline != 21 {
		t.Errorf("wakeup: slice %d deadline %d, want 50000 and 21 (no refill)", ct.slice, ct.deadline)
	}
}
