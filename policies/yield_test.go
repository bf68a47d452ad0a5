package policies

import "testing"

// TestEEVDFYield drives yield_task_fair (kernel/sched/fair.c v6.18) on one
// CPU (base slice 0.7 ms × factor 1). Two tasks are queued at v = 0,
// deadline v + calc_delta_fair(0.7 ms, w); A (ID 0) is picked.
//   - A alone, or A not eligible, is left as it is.
//   - An eligible A forfeits: vruntime = deadline, deadline +=
//     calc_delta_fair(slice). Nice 0 (w 1024): 0.7 ms, so v 0 -> 0.7 ms and
//     deadline 0.7 -> 1.4 ms. Nice 5 (w 335): 0.7 ms × 1024 × floor(2^32 /
//     335) >> 32 = 2,139,701 ns, so v 0 -> 2,139,701 and the deadline
//     2,139,701 -> 4,279,402.
func TestEEVDFYield(t *testing.T) {
	for _, c := range []struct {
		name   string
		nice   int
		others int   // tasks queued beside A
		ran    int64 // ns A ran before it yields
		v, dl  int64 // A's vruntime and deadline after the yield
	}{
		{"alone", 0, 0, 0, 0, 700_000},
		{"not eligible", 0, 1, 100_000, 100_000, 700_000}, // V = 50 µs < v 100 µs
		{"nice 0", 0, 1, 0, 700_000, 1_400_000},
		{"nice 5", 5, 1, 0, 2_139_701, 4_279_402},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim := newFakeSim(1)
			p := NewEEVDF(nil, 1)
			p.Init(sim)
			a := sim.task(c.nice)
			p.TaskNew(a)
			p.Enqueue(0, a, 0)
			for range c.others {
				b := sim.task(c.nice)
				p.TaskNew(b)
				p.Enqueue(0, b, 0)
			}
			sim.nr[0] = 1 + c.others
			if got := p.PickNext(0, nil); got != a {
				t.Fatalf("picked %v, want A", got)
			}
			sim.curr[0] = a
			p.UpdateCurr(0, a, c.ran)
			p.Yield(0, a)
			if e := p.e[a.ID]; e.v != c.v || e.deadline != c.dl {
				t.Errorf("after the yield v = %d, deadline = %d; want %d, %d", e.v, e.deadline, c.v, c.dl)
			}
		})
	}
}

// TestCFSYieldSkip: yield_task_fair on CFS (kernel/sched/fair.c v6.5) makes
// the yielder the skip buddy: with B 0.5 ms of vruntime behind it, within
// wakeup_granularity (1 ms × factor 1 on 1 CPU), the pick passes A over
// for B although A is leftmost; without the yield A is picked again.
func TestCFSYieldSkip(t *testing.T) {
	for _, yield := range []bool{false, true} {
		sim := newFakeSim(1)
		p := NewCFS(nil, 1)
		p.Init(sim)
		a, b := sim.task(0), sim.task(0)
		p.TaskNew(a)
		p.TaskNew(b)
		p.Enqueue(0, a, 0)
		p.Enqueue(0, b, 0)
		sim.nr[0] = 2
		p.e[b.ID].v = p.e[a.ID].v + 500_000
		if got := p.PickNext(0, nil); got != a {
			t.Fatalf("first pick %v, want A", got)
		}
		sim.curr[0] = a
		want := a
		if yield {
			p.Yield(0, a)
			want = b
		}
		if got := p.PickNext(0, a); got != want {
			t.Errorf("yield %v: picked %v, want %v", yield, got.ID, want.ID)
		}
	}
}

// TestRTYieldRequeues: yield_task_rt puts the task at the tail of its
// priority level (requeue_task_rt, kernel/sched/rt.c v6.18).
func TestRTYieldRequeues(t *testing.T) {
	sim := newFakeSim(1)
	p := NewRT(ClassFIFO, RRTimeslice)
	p.Init(sim)
	a, b := sim.task(0), sim.task(0)
	for _, x := range []*Task{a, b} {
		x.Class, x.RTPrio = ClassFIFO, 50
		p.TaskNew(x)
		p.Enqueue(0, x, 0)
	}
	if got := p.PickNext(0, nil); got != a {
		t.Fatalf("first pick %v, want A", got.ID)
	}
	p.Yield(0, a)
	if got := p.PickNext(0, a); got != b {
		t.Errorf("after A's yield picked %v, want B", got.ID)
	}
}
