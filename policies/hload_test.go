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
