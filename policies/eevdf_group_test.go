package policies

import (
	"sort"
	"testing"
)

// eevdfTwoGroups returns an eevdf policy on one CPU with /a and /b
// (hloadGroups, shares 1024 each), task A1 in /a and B1 in /b queued, and
// the task it picked running.
func eevdfTwoGroups(t *testing.T) (*fakeSim, *EEVDF, *Task, *Task) {
	t.Helper()
	s := newFakeSim(1)
	p := NewEEVDF(nil, 1)
	if !p.SetGroups(hloadGroups[:3]) {
		t.Fatal("SetGroups refused the groups")
	}
	p.Init(s)
	a1, b1 := s.task(0), s.task(0)
	a1.Group, b1.Group = 1, 2
	for _, x := range []*Task{a1, b1} {
		p.TaskNew(x)
		p.Enqueue(0, x, EnqueueInitial)
		x.CPU = 0
	}
	s.nr[0] = 2
	s.curr[0] = p.PickNext(0, nil)
	if s.curr[0] == nil {
		t.Fatal("nothing picked")
	}
	return s, p, a1, b1
}

// TestEEVDFOwnUpdateDefersGroups: a task's own accounting (UpdateCurrOwn,
// task_sched_runtime's update_curr of its own cfs_rq) charges only its
// level. The running task is alone in its group, so 5 ms at its level
// asks for no reschedule (one entity queued there) and leaves its group
// entity at the root untouched; the next full UpdateCurr, with no new run
// time, charges the group entity the 5 ms: at weight 1024 (the group's
// 1024 shares, all of its load on this CPU) its vruntime moves by
// calc_delta_fair(5 ms, 1024) = 5 ms, past its deadline (at most one
// 0.7 ms base slice ahead on one CPU), and with /b's entity queued beside
// it the root reschedules.
func TestEEVDFOwnUpdateDefersGroups(t *testing.T) {
	s, p, _, _ := eevdfTwoGroups(t)
	curr := s.curr[0]
	ge := p.ent(p.gid(curr.Group, 0))
	if ge.w != 1024 {
		t.Fatalf("group entity weight %d, want 1024", ge.w)
	}
	v0 := ge.v
	p.UpdateCurrOwn(0, curr, 5_000_000)
	if len(s.resced) != 0 || ge.v != v0 {
		t.Errorf("after UpdateCurrOwn: %d reschedules, group entity moved %d ns; want 0 and 0", len(s.resced), ge.v-v0)
	}
	if got := p.e[curr.ID].v; got < 5_000_000 {
		t.Errorf("task vruntime %d after 5 ms at its own level, want at least 5 ms", got)
	}
	p.UpdateCurr(0, curr, 0)
	if ge.v-v0 != 5_000_000 {
		t.Errorf("after UpdateCurr the group entity moved %d ns, want 5000000", ge.v-v0)
	}
	if len(s.resced) != 1 {
		t.Errorf("after UpdateCurr: %d reschedules, want 1 (the root's deadline passed)", len(s.resced))
	}
	// Nothing left to charge: another UpdateCurr of 0 moves nothing.
	p.UpdateCurr(0, curr, 0)
	if ge.v-v0 != 5_000_000 {
		t.Errorf("a second UpdateCurr of 0 moved the group entity to +%d ns, want +5000000", ge.v-v0)
	}
}

// TestEEVDFRequeuesDelayedGroup: the running task X runs 2 ms (its group
// entity's vruntime 2 ms against the other's 0: avg_vruntime 1 ms, not
// eligible) and sleeps. Alone in its group, X's own entity has lag 0 and
// leaves; its group entity, not eligible, stays queued at the root with
// its dequeue delayed. Waking X then reaches that entity first:
// RequeuesDelayed. The other task Y, queued and not delayed, does not
// requeue a delayed entity. After the wakeup requeues it, X's group entity
// is queued and no longer delayed, and RequeuesDelayed is false.
func TestEEVDFRequeuesDelayedGroup(t *testing.T) {
	s, p, a1, b1 := eevdfTwoGroups(t)
	x, y := s.curr[0], b1
	if x == b1 {
		y = a1
	}
	gx := p.ent(p.gid(x.Group, 0))
	p.UpdateCurr(0, x, 2_000_000)
	x.State = TaskSleeping
	p.Dequeue(0, x, DequeueSleep)
	s.nr[0] = 1
	if p.e[x.ID].queued || !gx.queued || !gx.delayed {
		t.Fatalf("after the sleep: task queued %v, group entity queued %v delayed %v; want false, true, true",
			p.e[x.ID].queued, gx.queued, gx.delayed)
	}
	if !p.RequeuesDelayed(0, x) {
		t.Error("RequeuesDelayed(X) = false, want true (its group entity is delayed)")
	}
	if p.RequeuesDelayed(0, y) {
		t.Error("RequeuesDelayed(Y) = true, want false (Y is queued, not delayed)")
	}
	x.State = TaskRunnable
	p.Enqueue(0, x, EnqueueWakeup)
	if !gx.queued || gx.delayed || p.RequeuesDelayed(0, x) {
		t.Errorf("after the wakeup: group entity queued %v delayed %v, RequeuesDelayed %v; want true, false, false",
			gx.queued, gx.delayed, p.RequeuesDelayed(0, x))
	}
}

// bwSim drives an eevdf policy with CFS bandwidth by hand for always
// runnable tasks: the tick (HZ 250, every 4 ms) charges each CPU's running
// task (update_curr) and calls Tick; policy timers (the period and slack
// timers) fire at their times, Sync charging the running task first as
// the simulator does; every Resched runs PickNext at once.
type bwSim struct {
	*fakeSim
	p      *EEVDF
	timers []simTimer
	last   []int64 // ns, when each CPU's running task was last charged
}

func (s *bwSim) AddTimer(at int64, fn func()) { s.timers = append(s.timers, simTimer{at, fn}) }
func (s *bwSim) Sync(cpu int)                 { s.charge(cpu) }

// charge is update_curr of cpu's running task up to now.
func (s *bwSim) charge(cpu int) {
	if c := s.curr[cpu]; c != nil && s.now > s.last[cpu] {
		d := s.now - s.last[cpu]
		c.SumExec += d
		s.p.UpdateCurr(cpu, c, d)
	}
	s.last[cpu] = s.now
}

// run advances the clock to end, tick by tick and timer by timer.
func (s *bwSim) run(end int64) {
	const tick = 4_000_000
	nextTick := (s.now/tick + 1) * tick
	for {
		sort.SliceStable(s.timers, func(i, j int) bool { return s.timers[i].at < s.timers[j].at })
		at := nextTick
		if len(s.timers) > 0 && s.timers[0].at < at {
			at = s.timers[0].at
		}
		if at > end {
			return
		}
		s.now = at
		if at == nextTick {
			for cpu := range s.curr {
				s.charge(cpu)
				if s.curr[cpu] != nil {
					s.p.Tick(cpu, s.curr[cpu])
				}
			}
			nextTick += tick
		} else {
			tm := s.timers[0]
			s.timers = s.timers[1:]
			tm.fn()
		}
		for len(s.resced) > 0 {
			cpu := s.resced[0]
			s.resced = s.resced[1:]
			s.charge(cpu)
			s.curr[cpu] = s.p.PickNext(cpu, s.curr[cpu])
		}
	}
}

// TestEEVDFThrottledHogsShareQuota: three equal never-sleeping nice-0 hogs
// in one group /g with cpu.max 5 ms per 50 ms, on 2 CPUs under 6.18's
// task-based throttling, run for 1 s (bwSim: ticks every 4 ms, in phase on
// both CPUs, CPU 0 charged first; bandwidth slices of 5 ms). A and B are
// queued on CPU 0, C on CPU 1, and nothing balances them. Worked by hand:
//   - 0-50 ms: A's enqueue takes the whole 5 ms pool as CPU 0's slice; C's
//     finds it empty, so CPU 1 is throttled at once and C goes to limbo
//     at its first pick. A runs 0-4 ms (at the tick it is past its
//     deadline), B 4-8 ms; CPU 0 is then 3 ms in debt and throttled.
//     A 4, B 4, C 0.
//   - 50 ms: the refill (5 ms) pays CPU 1 its 1 ns and CPU 0 its 3 ms; both
//     run to the 52 ms tick, where CPU 0 takes the 2 ms left and both are
//     throttled: CPU 0 2 ms, C 2 ms.
//   - from 100 ms on, two periods repeat: at 100, 200, ..., 900 ms (9
//     periods) the refill pays both runqueues' debts (2 ms in all) and
//     both run to the next tick, 4 ms, CPU 0 taking the 3 ms left: CPU 0
//     4 ms, C 4 ms, leaving CPU 0 1 ms and CPU 1 4 ms in debt; at 150,
//     250, ..., 950 ms (9 periods) the refill pays CPU 0 (throttled first)
//     its 1 ms and leaves CPU 1 1 ns short, still throttled: CPU 0 runs
//     to the tick, 2 ms, C nothing.
//   - In all C runs 2 + 9·4 = 38 ms and CPU 0 8 + 2 + 9·4 + 9·2 = 64 ms:
//     the group 102 ms, its 20 quotas and the 2 ms CPU 0 still owes at
//     the end. A and B have equal weight and EEVDF keeps the lag of each
//     across throttling, so they share CPU 0's 64 ms: 32 ms each, give or
//     take one period's run (4 ms).
//
// Each throttle sends to limbo first the task the pick prefers, the one
// owed time, then the one that ran, alone then with lag 0. The kernel
// re-enqueues the limbo list last in, first out, so the lag-0 task comes
// back first onto the empty runqueue, where place_entity drops lag, and
// the owed one keeps its credit. First in, first out, the owed task lost
// its credit every period, tied the other at V and lost the tie on id:
// B ran 4 ms in 1 s and A 60 ms.
func TestEEVDFThrottledHogsShareQuota(t *testing.T) {
	const ms = 1_000_000
	groups := []Group{{Path: "/", Parent: -1}, {Path: "/g", Parent: 0, Shares: 1024, Quota: 5 * ms, Period: 50 * ms}}
	s := &bwSim{fakeSim: newFakeSim(2), last: make([]int64, 2)}
	p := NewEEVDF(nil, 2)
	s.p = p
	if !p.SetGroups(groups) {
		t.Fatal("SetGroups refused the groups")
	}
	p.Init(s)
	var hogs []*Task
	for i, cpu := range []int{0, 0, 1} {
		h := s.task(0)
		h.Group, h.CPU, h.Comm = 1, cpu, string(rune('A'+i))
		p.TaskNew(h)
		p.Enqueue(cpu, h, EnqueueInitial)
		s.nr[cpu]++
		hogs = append(hogs, h)
	}
	for cpu := range s.curr {
		s.curr[cpu] = p.PickNext(cpu, nil)
	}
	s.run(1000 * ms)
	for i, want := range []int64{32 * ms, 32 * ms, 38 * ms} {
		if h := hogs[i]; h.SumExec < want-4*ms || h.SumExec > want+4*ms {
			t.Errorf("hog %s ran %.3f ms in 1 s, want %.3f ms ± 4 ms (A %.3f, B %.3f, C %.3f)", h.Comm,
				float64(h.SumExec)/ms, float64(want)/ms,
				float64(hogs[0].SumExec)/ms, float64(hogs[1].SumExec)/ms, float64(hogs[2].SumExec)/ms)
		}
	}
}
