package policies

import "testing"

// hloadGroups are a root, /a and /b (shares 1024 each) and /p/c, a child
// of /p (shares 1024 each).
var hloadGroups = []Group{
	{Path: "/", Parent: -1},
	{Path: "/a", Parent: 0, Shares: 1024},
	{Path: "/b", Parent: 0, Shares: 1024},
	{Path: "/p", Parent: 0, Shares: 1024},
	{Path: "/p/c", Parent: 3, Shares: 1024},
}

// TestPELTHLoad: hierarchical loads on 2 CPUs, every task a new nice-0
// hog (load_avg 1024, r = 1, which stays 1 while runnable).
//
// A1 and A2 of /a on CPU 0, B1 of /b on CPU 1; each group's entity is
// queued with calc_group_shares' 1024 (all the group's load on one CPU)
// and, attached to by a task of r = 1, has r = 1 (update_tg_cfs_load).
// cpu_load: CPU 0 = /a's entity 1024 × 1 = 1024 (not 2 × 1024), CPU 1 =
// 1024. task_h_load (update_cfs_rq_h_load, task_h_load, kernel/sched/
// fair.c v6.5): /a's h_load = 1024 (the root's load) × 1024 / (1024 + 1)
// = 1023.0010; A1's = 1024 × 1023.0010 / (2048 + 1) = 511.25 (the +1
// guards of the kernel's divisions; 512 without them); B1's = 1024 ×
// 1023.0010 / (1024 + 1) = 1022.0029. A half-life later nothing changed.
//
// A2 then migrates to CPU 1: /a's runqueue on CPU 0 keeps A1 (load over
// queued weight 1024/1024: /a's r stays 1), /a's entity on CPU 1 gets
// A2's r = 1, and calc_group_shares splits /a's 1024 by queued weight,
// 512 and 512: CPU 0 = 512, CPU 1 = 1024 (/b) + 512 (/a) = 1536; /a's
// h_load on CPU 0 = 512 × 512 / (512 + 1) = 511.0019, A1's task_h_load
// 1024 × 511.0019 / (1024 + 1) = 510.5034. A1 exits: /a's runqueue on CPU 0
// has nothing attached, its entity's r drops to 0, and CPU 0's load with
// it, even before the policy dequeues the entity.
//
// Nested: C1 alone in /p/c on CPU 0 of a fresh pelt: /p's h_load =
// 1024 × 1024 / 1025 = 1023.0010, /p/c's = 1023.0010 × 1024 / (1024 + 1)
// = 1022.0029, C1's = 1024 × 1022.0029 / 1025 = 1021.0058.
func TestPELTHLoad(t *testing.T) {
	var p pelt
	p.init(2)
	p.setGroups(hloadGroups)
	const a1, a2, b1 = 0, 1, 2
	p.enqueue(a1, 1024, 1, 0, 0)
	p.enqueue(a2, 1024, 1, 0, 0)
	p.enqueue(b1, 1024, 2, 1, 0)
	p.groupEnt(1, 0, true, 1024, 0)
	p.groupEnt(2, 1, true, 1024, 0)
	for _, now := range []int64{0, half} {
		if l0, l1 := p.load(0, now), p.load(1, now); !near(l0, 1024) || !near(l1, 1024) {
			t.Errorf("t=%d: cpu_load %.4f and %.4f, want 1024 and 1024", now, l0, l1)
		}
		if got := p.hLoad(a1, 1024, now); !near(got, 511.2509) {
			t.Errorf("t=%d: A1's task_h_load %.4f, want 511.2509", now, got)
		}
		if got := p.hLoad(b1, 1024, now); !near(got, 1022.0029) {
			t.Errorf("t=%d: B1's task_h_load %.4f, want 1022.0029", now, got)
		}
	}
	p.dequeue(a2, false, half)
	p.enqueue(a2, 1024, 1, 1, half)
	p.groupEnt(1, 0, true, 512, half)
	p.groupEnt(1, 1, true, 512, half)
	if l0, l1 := p.load(0, half), p.load(1, half); !near(l0, 512) || !near(l1, 1536) {
		t.Errorf("after A2's migration cpu_load %.4f and %.4f, want 512 and 1536", l0, l1)
	}
	if got := p.hLoad(a1, 1024, half); !near(got, 510.5034) {
		t.Errorf("after A2's migration A1's task_h_load %.4f, want 510.5034", got)
	}
	p.dequeue(a1, false, half)
	if got := p.load(0, half); !near(got, 0) {
		t.Errorf("after A1's exit CPU 0's load %.4f, want 0", got)
	}

	var n pelt
	n.init(2)
	n.setGroups(hloadGroups)
	n.enqueue(0, 1024, 4, 0, 0)
	n.groupEnt(4, 0, true, 1024, 0)
	n.groupEnt(3, 0, true, 1024, 0)
	if got := n.load(0, 0); !near(got, 1024) {
		t.Errorf("nested: cpu_load %.4f, want 1024", got)
	}
	if got := n.hLoad(0, 1024, 0); !near(got, 1021.0058) {
		t.Errorf("nested: C1's task_h_load %.4f, want 1021.0058", got)
	}
}

// groupBalance sets up two groups of equal weight on 2 CPUs under policy
// pol: A1 and A2 of /a queued on CPU 0 (A1 running), B1 of /b on CPU 1.
func groupBalance(t *testing.T, pol string, v Values) (*migrateSim, Policy) {
	t.Helper()
	s := &migrateSim{fakeSim: newFakeSim(2)}
	var p Policy
	switch pol {
	case "eevdf":
		p = NewEEVDF(v, 2)
	case "cfs":
		p = NewCFS(v, 2)
	}
	if !p.(GroupScheduler).SetGroups(hloadGroups[:3]) {
		t.Fatalf("%s: SetGroups refused the groups", pol)
	}
	p.Init(s)
	a1, a2, b1 := s.task(0), s.task(0), s.task(0)
	a1.Comm, a2.Comm, b1.Comm = "A1", "A2", "B1"
	a1.Group, a2.Group, b1.Group = 1, 1, 2
	for _, x := range []*Task{a1, a2, b1} {
		p.TaskNew(x)
	}
	p.Enqueue(0, a1, EnqueueInitial)
	p.Enqueue(0, a2, EnqueueInitial)
	p.Enqueue(1, b1, EnqueueInitial)
	a2.CPU, b1.CPU = 0, 1
	s.nr[0], s.nr[1] = 2, 1
	s.curr[0], s.curr[1] = p.PickNext(0, nil), p.PickNext(1, nil)
	if s.curr[0] != a1 || s.curr[1] != b1 {
		t.Fatalf("%s: running %v and %v, want A1 and B1", pol, s.curr[0], s.curr[1])
	}
	return s, p
}

// TestGroupBalanceHLoad: /a (A1, A2) on CPU 0 and /b (B1) on CPU 1, equal
// group weights: balanced by group load, as the kernel keeps them (the
// grpw.eq.2cpu recording: B1 alone on one CPU, A1 and A2 sharing the
// other). CPU 1 balances every 40 ms (busy: 2 ms × busy_factor 16 =
// 32 ms) for 400 ms, A2 cold, CPU 0 overloaded (2 tasks, util near 1).
// With the hierarchical loads both CPUs weigh 1024 (/a's and /b's
// entities): migrate_load's imbalance is 0 and nothing moves. With each
// task counted by its own load_avg (H_LOAD off) CPU 0 weighs 2048,
// the imbalance is 512 and A2 (1024) moves once a failed balance halved
// it to 512 (shr_bound by nr_balance_failed): at the second balance.
func TestGroupBalanceHLoad(t *testing.T) {
	tests := []struct {
		name, pol string
		v         Values
		moves     int // the balance at which A2 moves; 0: never
	}{
		{"eevdf (H_LOAD on)", "eevdf", nil, 0},
		{"eevdf NO_H_LOAD", "eevdf", Values{"H_LOAD": "off"}, 2},
		{"cfs H_LOAD", "cfs", Values{"H_LOAD": "on"}, 0},
		{"cfs (H_LOAD off)", "cfs", nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, p := groupBalance(t, tc.pol, tc.v)
			got := 0
			for i := 1; i <= 10 && got == 0; i++ {
				s.now = int64(i) * 40_000_000
				p.Balance(1, BalancePeriodic)
				if len(s.moved) > 0 {
					if s.moved[0] != "A2" {
						t.Fatalf("moved %v, want A2", s.moved)
					}
					got = i
				}
			}
			if got != tc.moves {
				t.Errorf("A2 moved at balance %d, want %d (0: never)", got, tc.moves)
			}
		})
	}
}
