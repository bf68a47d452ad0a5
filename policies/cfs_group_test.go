package policies

import "testing"

// cfsGroups returns a cfs policy on one CPU (sysctl factor 1: sched_latency
// 6 ms, min_granularity 0.75 ms, wakeup_granularity 1 ms; kernel/sched/fair.c
// v6.5) with groups /a (shares 1024) and /b (shares sharesB) under the
// root, initialised on sim.
func cfsGroups(sim *fakeSim, sharesB int64) *CFS {
	p := NewCFS(nil, 1)
	p.SetGroups([]Group{{Path: "/", Parent: -1}, {Path: "/a", Parent: 0, Shares: 1024}, {Path: "/b", Parent: 0, Shares: sharesB}})
	p.Init(sim)
	return p
}

// groupTask returns a new nice-0 task of group g, known to p.
func groupTask(sim *fakeSim, p *CFS, g int) *Task {
	t := sim.task(0)
	t.Group = g
	p.TaskNew(t)
	return t
}

// TestCFSGroupSlice: sched_slice over the hierarchy (kernel/sched/fair.c
// v6.5, for_each_sched_entity: slice × w_se / W_cfs_rq on each level).
// A1 and A2 in /a, B in /b, one CPU: period 6 ms (3 tasks or fewer per
// runqueue, under sched_nr_latency 8). /a's runqueue holds 2 × 1024, the
// root /a's and /b's entities: A1's slice is 6 ms × 1024/2048 × 1024/2048
// = 1.5 ms, B's 6 ms × 1 × 1024/2048 = 3 ms. With /b at shares 512 the
// root weighs 1536: A1 6 ms × 1/2 × 1024/1536 = 2 ms, B 6 ms × 512/1536 =
// 2 ms.
func TestCFSGroupSlice(t *testing.T) {
	tests := []struct {
		sharesB      int64
		wantA, wantB int64
	}{
		{1024, 1_500_000, 3_000_000},
		{512, 2_000_000, 2_000_000},
	}
	for _, tc := range tests {
		sim := newFakeSim(1)
		p := cfsGroups(sim, tc.sharesB)
		a1, a2, b := groupTask(sim, p, 1), groupTask(sim, p, 1), groupTask(sim, p, 2)
		for _, x := range []*Task{a1, a2, b} {
			p.Enqueue(0, x, 0)
		}
		if ga, gb := p.ent(p.gid(1, 0)), p.ent(p.gid(2, 0)); ga.w != 1024 || gb.w != tc.sharesB {
			t.Fatalf("shares %d: group entity weights /a %d /b %d, want 1024 and %d (calc_group_shares, all load on one CPU)", tc.sharesB, ga.w, gb.w, tc.sharesB)
		}
		if got := p.slice(p.rqOf(1, 0), a1.Weight, true); got != tc.wantA {
			t.Errorf("shares %d: A1's slice %d ns, want %d", tc.sharesB, got, tc.wantA)
		}
		if got := p.slice(p.rqOf(2, 0), b.Weight, true); got != tc.wantB {
			t.Errorf("shares %d: B's slice %d ns, want %d", tc.sharesB, got, tc.wantB)
		}
	}
}

// TestCFSGroupWakeupPreempt: check_preempt_wakeup across groups (v6.5):
// find_matching_se compares /a's and /b's entities on the root runqueue,
// whatever the tasks' own vruntimes, and the granularity is
// wakeup_gran(/b's entity) = calc_delta_fair(1 ms, its weight): 1 ms at
// 1024, 1 ms × 1024/512 = 2 ms at 512. A1 (in /a) runs with a task
// vruntime 100 ms past B's, which alone would preempt.
func TestCFSGroupWakeupPreempt(t *testing.T) {
	tests := []struct {
		name    string
		sharesB int64
		lead    int64 // /a's entity's vruntime − /b's, ns
		want    bool
	}{
		{"equal weights lead 0.9ms", 1024, 900_000, false},
		{"equal weights lead 1.1ms", 1024, 1_100_000, true},
		{"/b at 512 lead 1.5ms", 512, 1_500_000, false},
		{"/b at 512 lead 2.1ms", 512, 2_100_000, true},
		{"/b behind", 1024, -500_000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := newFakeSim(1)
			p := cfsGroups(sim, tc.sharesB)
			a1, b := groupTask(sim, p, 1), groupTask(sim, p, 2)
			p.Enqueue(0, a1, 0)
			if got := p.PickNext(0, nil); got != a1 {
				t.Fatalf("PickNext = %v, want A1", got)
			}
			p.Enqueue(0, b, EnqueueWakeup)
			ga, gb := p.ent(p.gid(1, 0)), p.ent(p.gid(2, 0))
			ga.v, gb.v = 50_000_000, 50_000_000-tc.lead
			p.e[a1.ID].v, p.e[b.ID].v = 100_000_000, 0
			if got := p.CheckPreemptWakeup(0, a1, b, WakeTTWU); got != tc.want {
				t.Fatalf("preempt = %v, want %v", got, tc.want)
			}
			root, rb := p.rqOf(0, 0), p.rqOf(2, 0)
			if tc.want && (root.next != p.gid(2, 0) || rb.next != b.ID) {
				t.Errorf("next buddies: root %d /b %d, want /b's entity %d and B %d (set_next_buddy on every level)", root.next, rb.next, p.gid(2, 0), b.ID)
			}
			if root.last != noEnt {
				t.Errorf("root last buddy %d, want none: the matching entities are groups (entity_is_task)", root.last)
			}
		})
	}
}

// TestCFSGroupTickAtGroupLevel: entity_tick runs check_preempt_tick on
// each level (task_tick_fair, v6.5). A1 alone in /a, B alone in /b: A1's
// own runqueue holds one entity, but on the root /a's entity has a slice
// of 6 ms × 1024/2048 = 3 ms; after 2.9 ms it leads /b's entity by 2.9 ms
// of vruntime, less than 3 ms: no resched; after 3.1 ms it has used its
// slice: resched.
func TestCFSGroupTickAtGroupLevel(t *testing.T) {
	sim := newFakeSim(1)
	p := cfsGroups(sim, 1024)
	a1, b := groupTask(sim, p, 1), groupTask(sim, p, 2)
	p.Enqueue(0, a1, 0)
	if got := p.PickNext(0, nil); got != a1 {
		t.Fatalf("PickNext = %v, want A1", got)
	}
	p.Enqueue(0, b, EnqueueWakeup) // /b's entity at max(0, min_vruntime 0 − 3 ms) = 0
	run := func(d int64) {
		a1.SumExec += d
		p.UpdateCurr(0, a1, d)
	}
	run(2_900_000)
	if p.Tick(0, a1) {
		t.Errorf("tick after 2.9 ms: resched, want none (slice 3 ms, lead 2.9 ms)")
	}
	if got := p.ent(p.gid(1, 0)).v; got != 2_900_000 {
		t.Errorf("/a's entity vruntime %d, want 2900000 (charged at weight 1024)", got)
	}
	run(200_000)
	if !p.Tick(0, a1) {
		t.Errorf("tick after 3.1 ms: no resched, want one (/a's entity used its 3 ms slice)")
	}
}

// TestCFSGroupSleepBuddy: a task that sleeps while its group keeps work
// makes the group's entity the next buddy above (dequeue_task_fair,
// v6.5); when the group empties, its entity leaves the root.
func TestCFSGroupSleepBuddy(t *testing.T) {
	sim := newFakeSim(1)
	p := cfsGroups(sim, 1024)
	a1, a2, b := groupTask(sim, p, 1), groupTask(sim, p, 1), groupTask(sim, p, 2)
	for _, x := range []*Task{a1, a2, b} {
		p.Enqueue(0, x, 0)
	}
	p.PickNext(0, nil)
	root := p.rqOf(0, 0)
	p.Dequeue(0, a1, DequeueSleep)
	if root.next != p.gid(1, 0) {
		t.Errorf("after A1's sleep: root next buddy %d, want /a's entity %d", root.next, p.gid(1, 0))
	}
	p.Dequeue(0, a2, DequeueSleep)
	if ga := p.ent(p.gid(1, 0)); ga.queued || len(root.q) != 1 || root.next != noEnt || root.sumW != 1024 {
		t.Errorf("after A2's sleep: /a queued %v, root holds %d entities of weight %d, next %d; want false, 1, 1024, none", ga.queued, len(root.q), root.sumW, root.next)
	}
}

// TestGroupPoliciesSetGroups: Info.Groups, which the model line reads,
// says exactly which policies accept a group tree.
func TestGroupPoliciesSetGroups(t *testing.T) {
	tree := []Group{{Path: "/", Parent: -1}, {Path: "/a", Parent: 0, Shares: 1024}}
	for _, in := range List() {
		pol, err := in.New(nil, 1)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		gs, ok := pol.(GroupScheduler)
		if got := ok && gs.SetGroups(tree); got != in.Groups {
			t.Errorf("%s: SetGroups %v, Info.Groups %v", in.Name, got, in.Groups)
		}
	}
	if got := GroupPolicies(); len(got) != 2 || got[0] != "cfs" || got[1] != "eevdf" {
		t.Errorf("GroupPolicies() = %v, want [cfs eevdf]", got)
	}
}
