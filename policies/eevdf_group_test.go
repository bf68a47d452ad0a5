package policies

import "testing"

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
