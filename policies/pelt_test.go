package policies

import (
	"math"
	"testing"
)

// half is 32 PELT periods of 1024 µs: a contribution halves (y^32 = 1/2).
const half = 32 * 1_024_000

func near(got, want float64) bool { return math.Abs(got-want) < 0.01 }

// TestPELTBlockedLoad: a new nice-0 task (r = 1, load_avg 1024) runs on
// CPU 0 and sleeps at t = 0. Its 1024 stays on CPU 0 as blocked load and
// halves every 32.768 ms: 512 at one half-life. Woken on CPU 1 then, it
// takes its 512 along (CPU 0: 0, CPU 1: 512); runnable for another
// half-life its r goes 0.5 -> 1 − 0.5 × 0.5 = 0.75: 768 on CPU 1.
func TestPELTBlockedLoad(t *testing.T) {
	var p pelt
	p.init(2)
	p.enqueue(0, 1024, 0, 0, 0)
	p.dequeue(0, true, 0)
	if got := p.load(0, 0); !near(got, 1024) {
		t.Fatalf("blocked load at sleep %.2f, want 1024", got)
	}
	if got := p.load(0, half); !near(got, 512) {
		t.Fatalf("blocked load after a half-life %.2f, want 512", got)
	}
	p.enqueue(0, 1024, 0, 1, half)
	if got0, got1 := p.load(0, half), p.load(1, half); !near(got0, 0) || !near(got1, 512) {
		t.Fatalf("after the wakeup migration CPU 0 %.2f, CPU 1 %.2f, want 0 and 512", got0, got1)
	}
	if got := p.load(1, 2*half); !near(got, 768) {
		t.Fatalf("runnable for a half-life %.2f, want 768", got)
	}
	if got := p.taskLoad(0, 1024, 2*half); !near(got, 768) {
		t.Fatalf("task load_avg %.2f, want 768", got)
	}
	p.dequeue(0, false, 2*half) // exit: its load leaves the CPU
	if got := p.load(1, 2*half); !near(got, 0) {
		t.Fatalf("after exit %.2f, want 0", got)
	}
}

// TestWakeAffineWeightPELT: 2 CPUs. CPU 0 holds a spinner H0 (load 1024)
// and a generator G that slept one half-life after a run (512 blocked);
// CPU 1 holds a spinner H1 (1024) and the waker W, running, whose load is
// 512 (it slept a half-life, then woke at the half-life). The wakee X last
// ran on CPU 0 and slept 2 half-lives (256 blocked there).
//
// At t = 2 half-lives: CPU 0 = 1024 + 256 (G) + 256 (X) = 1536; W's r went
// 0.5 -> 0.75, so CPU 1 = 1024 + 768 = 1792 and W's load 768.
//   - sync: this = (1792 − 768 + 256) × 100 = 128000, prev = (1536 − 256)
//     × 108 + 1 = 138241: X moves to the waker's CPU 1;
//   - not sync: this = (1792 + 256) × 100 = 204800 > 138240: X stays.
func TestWakeAffineWeightPELT(t *testing.T) {
	s := newFakeSim(2)
	f := &fairSMP{}
	var p pelt
	p.init(2)
	f.init(s, func(int) []*Task { return nil }, func(int) int64 { return 0 }, 2)
	f.pelt = &p
	h0, h1, g, w, x := s.task(0), s.task(0), s.task(0), s.task(0), s.task(0)
	p.enqueue(h0.ID, 1024, 0, 0, 0)
	p.enqueue(h1.ID, 1024, 0, 1, 0)
	for _, k := range []*Task{g, w, x} {
		c := 0
		if k == w {
			c = 1
		}
		p.enqueue(k.ID, 1024, 0, c, 0)
		p.dequeue(k.ID, true, 0)
	}
	p.enqueue(w.ID, 1024, 0, 1, half)
	s.now = 2 * half
	if got := p.load(0, s.now); !near(got, 1536) {
		t.Fatalf("CPU 0 load %.2f, want 1536", got)
	}
	if got := p.load(1, s.now); !near(got, 1792) {
		t.Fatalf("CPU 1 load %.2f, want 1792", got)
	}
	if !f.wakeAffineWeight(x, w, 1, 0, true) {
		t.Errorf("sync wakeup: X stayed on CPU 0, want CPU 1")
	}
	if f.wakeAffineWeight(x, w, 1, 0, false) {
		t.Errorf("plain wakeup: X moved to CPU 1, want it on CPU 0")
	}
}

// TestWakeWide: on 2 CPUs (factor 2). A producer P wakes A, B, A, B, A, B:
// a flip at each, 6; a consumer C wakes D twice: 1 flip.
//   - P -> C: P flips to 7 (its last wakee was B); slave = C's 1 < 2: not
//     wide (affine);
//   - C wakes E then D: 3 flips;
//   - P -> C again: no flip (C was its last wakee), master 7, slave 3:
//     3 >= 2 and 7 >= 2 × 3: wide;
//   - C -> P: C flips to 4; master 7, slave 4: 7 < 2 × 4: not wide.
func TestWakeWide(t *testing.T) {
	s := newFakeSim(2)
	f := &fairSMP{}
	f.init(s, func(int) []*Task { return nil }, func(int) int64 { return 0 }, 2)
	pr, a, b, c, d, e := s.task(0), s.task(0), s.task(0), s.task(0), s.task(0), s.task(0)
	for i := 0; i < 3; i++ {
		f.wakeWide(a, pr)
		f.wakeWide(b, pr)
	}
	f.wakeWide(d, c)
	f.wakeWide(d, c)
	if f.wakeWide(c, pr) {
		t.Fatalf("P -> C with C's 1 flip: wide, want affine")
	}
	f.wakeWide(e, c)
	f.wakeWide(d, c)
	if got, gotC := f.flipsOf(pr.ID).flips, f.flipsOf(c.ID).flips; got != 7 || gotC != 3 {
		t.Fatalf("flips P %d, C %d, want 7 and 3", got, gotC)
	}
	if !f.wakeWide(c, pr) {
		t.Errorf("P -> C (7 and 3 flips): affine, want wide")
	}
	if f.wakeWide(pr, c) {
		t.Errorf("C -> P (4 and 7 flips): wide, want affine")
	}
}

// TestMigratePELT: CPU 0 runs H0 (load 1024); CPU 1 runs X (1024) with H2
// (1024, ran longest ago) and W queued; W slept two half-lives before it
// woke (r = 0.25, load 256). CPU 0 balances at that instant: imbalance =
// (1024 + 1024 + 256 − 1024) / 2 = 640; H2's 1024 > 640 is skipped, W's 256
// fits: W moves, the spinner stays.
func TestMigratePELT(t *testing.T) {
	s := &migrateSim{fakeSim: newFakeSim(2)}
	h0, x, h2, w := s.task(0), s.task(0), s.task(0), s.task(0)
	h0.Comm, x.Comm, h2.Comm, w.Comm = "H0", "X", "H2", "W"
	h2.LastRan, w.LastRan = 1, 2
	var p pelt
	p.init(2)
	f := &fairSMP{}
	f.init(s, func(cpu int) []*Task {
		if cpu == 1 {
			return []*Task{w, h2}
		}
		return nil
	}, func(int) int64 { return 0 }, 2)
	f.pelt = &p
	p.enqueue(h0.ID, 1024, 0, 0, 0)
	p.enqueue(x.ID, 1024, 0, 1, 0)
	p.enqueue(h2.ID, 1024, 0, 1, 0)
	p.enqueue(w.ID, 1024, 0, 1, 0)
	p.dequeue(w.ID, true, 0)
	s.now = 2 * half
	p.enqueue(w.ID, 1024, 0, 1, s.now)
	f.migratePELT(0, 1)
	if len(s.moved) != 1 || s.moved[0] != "W" {
		t.Fatalf("moved %v, want [W]", s.moved)
	}
}

// TestBalancePELTIdle: CPU 0 ran a task T for two half-lives and has just
// gone idle; CPU 1 ran H for those two half-lives and now runs X, with H
// and G waiting. A CPU's util is the sum of the util of the tasks attached
// to it, and each fork starts with post_init_entity_util_avg's util: the
// CPU's util × 1024 / (its load + 1), at most half its spare capacity.
// Forked onto CPU 1 at 0: X (util 0) 0.5; H: 0.5 × 1024/1025 = 0.4995,
// capped at (1 − 0.5)/2 = 0.25; G: (1 − 0.75)/2 = 0.125 (0.75 × 1024/2049
// = 0.375 is more); T onto the empty CPU 0: 0.5. After two half-lives
// (decay 0.25): T 1 − 0.5·0.25 = 0.875, still attached to CPU 0 while it
// sleeps, spare capacity 0.125; H 1 − 0.75·0.25 = 0.8125; G, which never
// ran, 0.125·0.25 = 0.03125; the runnable sum 3 − (0.5 + 0.75 + 0.875)·0.25
// = 2.46875 > 1.17: overloaded. G last ran 5 ms ago, H has just been
// preempted (hot).
//   - newly idle balance: H is hot and 0.8125 > 0.125 does not fit anyway;
//     G (0.03125) fits and is cold: G moves;
//   - without G, H stays both while hot and once cold (0.8125 > 0.125), and
//     a newly idle failure is not counted in nr_balance_failed.
func TestBalancePELTIdle(t *testing.T) {
	for _, withG := range []bool{true, false} {
		s := &migrateSim{fakeSim: newFakeSim(2)}
		tt, x, h, g := s.task(0), s.task(0), s.task(0), s.task(0)
		tt.Comm, x.Comm, h.Comm, g.Comm = "T", "X", "H", "G"
		var p pelt
		p.init(2)
		f := &fairSMP{}
		q := []*Task{h}
		if withG {
			q = append(q, g)
		}
		f.init(s, func(cpu int) []*Task {
			if cpu == 1 {
				return q
			}
			return nil
		}, func(int) int64 { return 0 }, 2)
		f.pelt = &p
		for _, k := range []*Task{x, h, g} {
			p.enqueue(k.ID, 1024, 0, 1, 0)
		}
		p.enqueue(tt.ID, 1024, 0, 0, 0)
		p.run(0, tt.ID, 0)
		p.run(1, h.ID, 0)
		s.now = 2 * half
		p.dequeue(tt.ID, true, s.now)
		p.run(0, -1, s.now)
		p.run(1, x.ID, s.now)
		h.LastRan, g.LastRan = s.now, s.now-5_000_000
		if got := p.taskUtil(h.ID, 1024, s.now); !near(got, 0.8125) {
			t.Fatalf("H's running average %.4f, want 0.8125", got)
		}
		if got := p.util(0, s.now); !near(got, 0.875) {
			t.Fatalf("CPU 0's util %.4f, want 0.875 (T's, attached while it sleeps)", got)
		}
		if got := p.runnable(1, s.now); !near(got, 2.46875) {
			t.Fatalf("CPU 1's runnable sum %.5f, want 2.46875", got)
		}
		if !p.overloaded(1, 3, s.now) {
			t.Fatalf("CPU 1 not overloaded")
		}
		f.balancePELT(0, 1, 0, 3, BalanceNewIdle)
		if withG && (len(s.moved) != 1 || s.moved[0] != "G") {
			t.Errorf("with G: moved %v, want [G]", s.moved)
		}
		if !withG {
			h.LastRan = s.now - 5_000_000
			f.balancePELT(0, 1, 0, 2, BalanceNewIdle)
			if len(s.moved) != 0 || f.failed[0] != 0 {
				t.Errorf("without G: moved %v (failed %d), want nothing and 0", s.moved, f.failed[0])
			}
		}
	}
}

// TestCFSWakeAffinePELT: cfs on 2 CPUs, every task nice 0, driven through
// its Enqueue, Dequeue and PickNext. At t = 0 a spinner H runs on CPU 0;
// the wakee X (new, r = 1) runs there and sleeps, and the waker W and a
// task S do the same on CPU 1. At two half-lives W and S wake on CPU 1
// (r = 0.25 each) and W, running there with S queued, wakes X (prev
// CPU 0) synchronously. Both CPUs are busy, CPU 1 has two tasks: the
// choice is WA_WEIGHT's.
//   - PELT (cfs, cfs:era=6.2): CPU 0 = 1024 (H) + 1024 × 0.25 (X blocked)
//     = 1280, CPU 1 = 256 + 256 = 512, W and X 256 each; this = (512 −
//     256 + 256) × 100 = 51200 < prev = (1280 − 256) × 108 + 1 = 110593:
//     X moves to the waker's CPU 1, the lighter by PELT;
//   - queued weights (NO_WA_PELT, cfs:era=2.6.31 and 2.6.23): this =
//     2048 + 1024 = 3072 is not below prev's 1024: X stays on CPU 0, and
//     the 2.6.x eras keep no PELT state at all.
func TestCFSWakeAffinePELT(t *testing.T) {
	for _, c := range []struct {
		name string
		v    Values
		want int
		pelt bool
	}{
		{"cfs", nil, 1, true},
		{"era=6.2", Values{"era": "6.2"}, 1, true},
		{"NO_WA_PELT", Values{"WA_PELT": "off"}, 0, false},
		{"era=2.6.31", Values{"era": "2.6.31"}, 0, false},
		{"era=2.6.23", Values{"era": "2.6.23"}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := c.v.expand("cfs")
			if err != nil {
				t.Fatal(err)
			}
			s := newFakeSim(2)
			p := NewCFS(v, 2)
			p.Init(s)
			h, x, w, k := s.task(0), s.task(0), s.task(0), s.task(0)
			for _, tk := range []*Task{h, x, w, k} {
				p.TaskNew(tk)
			}
			p.Enqueue(0, h, EnqueueInitial)
			p.PickNext(0, nil)
			for _, sl := range []struct {
				tk  *Task
				cpu int
			}{{x, 0}, {w, 1}, {k, 1}} {
				p.Enqueue(sl.cpu, sl.tk, EnqueueInitial)
				p.Dequeue(sl.cpu, sl.tk, DequeueSleep)
			}
			s.now = 2 * half
			p.Enqueue(1, w, EnqueueWakeup)
			p.Enqueue(1, k, EnqueueWakeup)
			p.PickNext(1, nil)
			s.curr[0], s.curr[1], s.nr[0], s.nr[1] = h, w, 1, 2
			x.CPU, w.CPU, w.State = 0, 1, TaskRunning
			if (p.smp.pelt != nil) != c.pelt {
				t.Fatalf("PELT tracking %v, want %v", p.smp.pelt != nil, c.pelt)
			}
			if c.pelt {
				if got0, got1 := p.smp.pelt.load(0, s.now), p.smp.pelt.load(1, s.now); !near(got0, 1280) || !near(got1, 512) {
					t.Fatalf("PELT loads CPU 0 %.2f, CPU 1 %.2f, want 1280 and 512", got0, got1)
				}
			}
			if got := p.SelectCPU(x, 0, w, WakeTTWU|WakeSync); got != c.want {
				t.Errorf("sync wakee on CPU %d, want %d", got, c.want)
			}
		})
	}
}

// TestEEVDFProtectResched: one CPU, A running (v 0, deadline 1.4 ms
// virtual, nice 0) and B queued. 0.1 ms of A's run is charged:
//   - A just picked (protected, RUN_TO_PARITY): its deadline has not moved,
//     no resched;
//   - A past its protection (protect off: its deadline moved once and it
//     was picked again without a new pick): 6.17+ update_curr reschedules
//     (resched || !protect_slice(curr));
//   - the same with NO_PROTECT_RESCHED (before 6.17): no resched until the
//     deadline moves.
func TestEEVDFProtectResched(t *testing.T) {
	for _, c := range []struct {
		vals    Values
		protect bool
		want    int
	}{{nil, true, 0}, {nil, false, 1}, {Values{"PROTECT_RESCHED": "off"}, false, 0}} {
		sim := newFakeSim(1)
		p := NewEEVDF(c.vals, 1)
		p.Init(sim)
		a, b := sim.task(0), sim.task(0)
		p.TaskNew(a)
		p.TaskNew(b)
		rq := &p.rqs[0]
		p.e[0] = eent{v: 0, w: 1024, deadline: 1_400_000, slice: 1_400_000, protect: c.protect}
		p.e[1] = eent{v: 0, w: 1024, deadline: 1_400_000, slice: 1_400_000}
		for i := range 2 {
			rq.add(i, &p.e[i])
		}
		rq.curr = 0
		p.UpdateCurr(0, a, 100_000)
		if got := len(sim.resced); got != c.want {
			t.Errorf("%v protect=%v: %d reschedules, want %d", c.vals, c.protect, got, c.want)
		}
	}
}

// TestPELTUtilFollowsMigration: a CPU's util is the sum of its attached
// tasks' util, so a task that migrates takes its util along at once
// (detach_entity_load_avg / attach_entity_load_avg, kernel/sched/fair.c
// v6.18). A is forked onto the empty CPU 1 (util 0.5, half the spare
// capacity) and runs there for two half-lives: 1 − 0.5·0.25 = 0.875, all
// of CPU 1's util. B, forked onto CPU 1 while A ran, waits there: its start
// is min(0.5 × 1024/1025, (1 − 0.5)/2) = 0.25, 0.0625 two half-lives
// later. A is then dequeued as a migration and enqueued on CPU 0: CPU 1
// keeps only B's 0.0625 and CPU 0 has A's 0.875 (a CPU's own running
// average, the model before, left CPU 1 at 0.75 and CPU 0 at 0).
func TestPELTUtilFollowsMigration(t *testing.T) {
	var p pelt
	p.init(2)
	p.enqueue(0, 1024, 0, 1, 0)
	p.run(1, 0, 0)
	p.enqueue(1, 1024, 0, 1, 0)
	now := int64(2 * half)
	if got := p.util(1, now); !near(got, 0.875+0.0625) {
		t.Fatalf("CPU 1's util %.4f before the move, want 0.9375", got)
	}
	p.dequeue(0, false, now)
	p.run(1, 1, now)
	p.enqueue(0, 1024, 0, 0, now)
	p.run(0, 0, now)
	if got := p.util(1, now); !near(got, 0.0625) {
		t.Errorf("CPU 1's util %.4f after A left, want 0.0625 (B's)", got)
	}
	if got := p.util(0, now); !near(got, 0.875) {
		t.Errorf("CPU 0's util %.4f after A came, want 0.875 (A's)", got)
	}
}

// TestBalancedClearsFailures: sched_balance_rq clears the domain's
// nr_balance_failed whenever it finds the CPUs balanced (out_balanced,
// kernel/sched/fair.c v6.18), so failures count only while one imbalance
// lasts, and cache-hot or heavy tasks (shr_bound by the count) move only
// then. CPU 0 has failed twice before each case:
//   - CPU 1 runs one task: nothing to pull, balanced;
//   - CPU 1 runs H1 with W queued, both forked onto it at 0: H1's util and
//     runnable averages start at 0.5 (half the spare capacity of an idle
//     CPU), W's at min(0.5 × 1024/1025, (1 − 0.5)/2) = 0.25: util 0.75 <
//     100/117 and runnable sum 0.75 < 1.17, not overloaded: balanced;
//   - CPU 1 overloaded but with less load than CPU 0 (migrate_load's
//     imbalance ≤ 0): balanced.
func TestBalancedClearsFailures(t *testing.T) {
	s := &migrateSim{fakeSim: newFakeSim(2)}
	h0, h1, w := s.task(0), s.task(0), s.task(0)
	var p pelt
	p.init(2)
	f := &fairSMP{}
	f.init(s, func(cpu int) []*Task {
		if cpu == 1 {
			return []*Task{w}
		}
		return nil
	}, func(int) int64 { return 0 }, 2)
	f.pelt = &p
	p.enqueue(h0.ID, 1024, 0, 0, 0)
	p.run(0, h0.ID, 0)

	f.failed[0], s.nr[0], s.nr[1] = 2, 1, 1
	f.balance(0, BalancePeriodic)
	if f.failed[0] != 0 {
		t.Errorf("one task on CPU 1: %d failures left, want 0", f.failed[0])
	}

	p.enqueue(h1.ID, 1024, 0, 1, 0)
	p.enqueue(w.ID, 1024, 0, 1, 0)
	p.run(1, h1.ID, 0)
	if u := p.util(1, 0); !near(u, 0.75) || p.overloaded(1, 2, 0) {
		t.Fatalf("CPU 1: util %.3f (want 0.75), overloaded %v (want false)", u, p.overloaded(1, 2, 0))
	}
	f.failed[0], f.lastBal[0], s.nr[1] = 2, -1e9, 2
	f.balance(0, BalancePeriodic)
	if f.failed[0] != 0 || len(s.moved) != 0 {
		t.Errorf("CPU 1 not overloaded: %d failures left, moved %v; want 0 and nothing", f.failed[0], s.moved)
	}

	// CPU 0's load (1024 + 2 × 1024 queued) above CPU 1's (2 × 1024).
	x, y := s.task(0), s.task(0)
	p.enqueue(x.ID, 1024, 0, 0, 0)
	p.enqueue(y.ID, 1024, 0, 0, 0)
	f.failed[0] = 2
	f.migratePELT(0, 1)
	if f.failed[0] != 0 || len(s.moved) != 0 {
		t.Errorf("CPU 1 lighter: %d failures left, moved %v; want 0 and nothing", f.failed[0], s.moved)
	}
}

// TestDecayCache: the cache returns decay's value for every gap, from a
// slot or computed. PELT halves every 32 periods of 1024 µs (half, y^32 =
// 1/2): decay(half) = 0.5 and decay(2·half) = 0.25 (to rounding). Gaps in
// whole ms all have their low six bits 0 (1 ms = 15625·64 ns) but land in
// different slots; a gap that shares half's slot replaces it there.
func TestDecayCache(t *testing.T) {
	const ms = 1_000_000
	if a, b, c := decaySlot(ms), decaySlot(2*ms), decaySlot(4*ms); a == b || b == c || a == c {
		t.Errorf("slots of 1, 2, 4 ms: %d, %d, %d, want three different", a, b, c)
	}
	other := int64(half + 1)
	for decaySlot(other) != decaySlot(half) {
		other++
	}
	var c decayCache
	for _, tc := range []struct {
		d    int64
		want float64
	}{{0, 1}, {-5, 1}, {half, 0.5}, {half, 0.5}, {2 * half, 0.25}, {other, decay(other)}, {half, 0.5}} {
		got := c.decay(tc.d)
		if math.Abs(got-tc.want) > 1e-12 || got != decay(tc.d) {
			t.Errorf("decay(%d) = %v, want %v (uncached %v)", tc.d, got, tc.want, decay(tc.d))
		}
	}
	if k := decaySlot(half); c.d[k] != half || c.f[k] != decay(half) {
		t.Errorf("slot %d holds gap %d (%v), want %d", k, c.d[k], c.f[k], half)
	}
}
