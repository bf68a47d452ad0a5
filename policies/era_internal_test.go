package policies

import (
	"slices"
	"strings"
	"testing"
)

func mustSpec(t *testing.T, s string) Spec {
	t.Helper()
	specs, err := ParseSpecs(s)
	if err != nil {
		t.Fatal(err)
	}
	return specs[0]
}

func newPolicy(t *testing.T, s string, cpus int) Policy {
	t.Helper()
	p, err := mustSpec(t, s).New(cpus)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Stack).Fair
}

// TestEraPresetValues pins what each preset sets, computed by hand from
// the sources named in era.go.
func TestEraPresetValues(t *testing.T) {
	// 2.6.31 on 4 CPUs: factor 1 + ilog2(4) = 3; 20 ms × 3 = 60 ms, 4 ms
	// × 3 = 12 ms, 5 ms × 3 = 15 ms; nr_latency 5.
	c := newPolicy(t, "cfs:era=2.6.31", 4).(*CFS)
	if c.latency != 60_000_000 || c.minGran != 12_000_000 || c.wakeGran != 15_000_000 || c.nrLatency != 5 {
		t.Errorf("2.6.31: latency %d min_gran %d wakeup_gran %d nr_latency %d, want 60 ms 12 ms 15 ms 5",
			c.latency, c.minGran, c.wakeGran, c.nrLatency)
	}
	// v2.6.31.14 place_entity: the whole sched_latency of credit; its
	// check_preempt_tick: the slice rule only.
	if c.gentle || c.tickLeftmost {
		t.Errorf("2.6.31: GENTLE_FAIR_SLEEPERS %v TICK_LEFTMOST %v, want both off", c.gentle, c.tickLeftmost)
	}
	k := c.era
	if !c.nextBuddy || !k.lbBias || !k.hotBuddy || !k.noNewIdle || !k.noIdleSibling || k.busyIdx != 2 || k.newidleIdx != 2 || k.idleIdx != 1 || k.llcIdleIdx != 0 {
		t.Errorf("2.6.31 knobs: NEXT_BUDDY %v %+v", c.nextBuddy, k)
	}
	// An explicit parameter wins whatever its place in the spec.
	for _, s := range []string{"cfs:NO_LB_BIAS,era=2.6.31,wakeup_granularity=0", "cfs:era=2.6.31,NO_LB_BIAS,wakeup_granularity=0"} {
		c := newPolicy(t, s, 4).(*CFS)
		if c.era.lbBias || c.wakeGran != 0 || c.latency != 60_000_000 {
			t.Errorf("%s: LB_BIAS %v wakeup_gran %d latency %d, want off 0 60 ms", s, c.era.lbBias, c.wakeGran, c.latency)
		}
	}
	// 2.6.23(.17) on 2 CPUs: factor 2: 20 ms × 2 = 40 ms, 2 ms × 2 = 4 ms,
	// 1 ms × 2 = 2 ms; nr_latency 20/2 = 10, so the slice of nr tasks is
	// 40/nr ms down to 4 ms (2.6.23's max(latency/nr, min_granularity));
	// a full latency of sleeper credit (no GENTLE_FAIR_SLEEPERS).
	c = newPolicy(t, "cfs:era=2.6.23", 2).(*CFS)
	if c.latency != 40_000_000 || c.minGran != 4_000_000 || c.wakeGran != 2_000_000 || c.nrLatency != 10 || c.gentle {
		t.Errorf("2.6.23: latency %d min_gran %d wakeup_gran %d nr_latency %d gentle %v", c.latency, c.minGran, c.wakeGran, c.nrLatency, c.gentle)
	}
	if got := c.period(3); got != 40_000_000 {
		t.Errorf("2.6.23 period(3) = %d, want 40 ms (slice 13.3 ms)", got)
	}
	if got := c.period(20); got != 80_000_000 {
		t.Errorf("2.6.23 period(20) = %d, want 20 × 4 ms = 80 ms (slice 4 ms)", got)
	}
	// No era: the v5.10 defaults, 6 ms × 2, 0.75 ms × 2, 1 ms × 2 on 2 CPUs.
	c = newPolicy(t, "cfs", 2).(*CFS)
	if c.latency != 12_000_000 || c.minGran != 1_500_000 || c.wakeGran != 2_000_000 || c.era.history() {
		t.Errorf("cfs: latency %d min_gran %d wakeup_gran %d history %v", c.latency, c.minGran, c.wakeGran, c.era.history())
	}
	// 6.3 EEVDF on 8 CPUs: 0.75 ms × (1 + ilog2(8)) = 3 ms, without the
	// later features; the default (6.15+) 0.70 ms × 4 = 2.8 ms.
	e := newPolicy(t, "eevdf:era=6.3", 8).(*EEVDF)
	if e.baseSlice != 3_000_000 || e.runParity || e.preShort || e.delayDeq || e.delayZero || e.relDL || !e.placeLag || !e.tickPick {
		t.Errorf("eevdf 6.3: %+v", e)
	}
	if e := newPolicy(t, "eevdf", 8).(*EEVDF); e.baseSlice != 2_800_000 || !e.runParity || !e.delayDeq || e.tickPick {
		t.Errorf("eevdf: base slice %d", e.baseSlice)
	}
	if g := newPolicy(t, "goodness24:era=2.4", 2).(*Goodness); !g.lock {
		t.Error("goodness24 2.4: no runqueue lock")
	}
	for s, hz := range map[string]int{"cfs:era=2.6.31": 1000, "cfs:era=2.6.23": 250, "eevdf:era=6.3": 1000, "goodness24:era=2.4": 100} {
		if e, ok := mustSpec(t, s).EraOf(); !ok || e.HZ != hz {
			t.Errorf("%s: HZ %d, want %d", s, e.HZ, hz)
		}
	}
}

func TestEraErrors(t *testing.T) {
	for s, want := range map[string]string{
		"cfs:era=2.6.99": "policy cfs: era=2.6.99: unknown era (eras: 2.6.23, 2.6.31, 6.2)",
		"sd:era=2.6.31":  "policy sd: unknown parameter \"era\"",
	} {
		if _, err := ParseSpecs(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
	// Every preset names only parameters of its policy, with valid values.
	for _, e := range eras {
		in, ok := Lookup(e.Policy)
		if !ok {
			t.Fatalf("era %s of unknown policy %s", e.Name, e.Policy)
		}
		spec := Spec{Info: in, Values: Values{}}
		for k, v := range e.Values {
			item := k + "=" + v
			if p, _ := in.param(k); p.Kind == ParamFeature {
				item = map[string]string{"on": k, "off": "NO_" + k}[v]
			}
			if err := spec.set(item); err != nil {
				t.Errorf("%s:era=%s: %v", e.Policy, e.Name, err)
			}
		}
	}
}

// TestGoodness24RunqueueLock drives two CPUs' decisions at the same
// instant: the queue holds A and B; each scan walks 2 entries at
// entry_cost 250 ns, 500 ns. CPU 0 takes the free lock: 500 ns. CPU 1
// waits for CPU 0's scan (500 ns) and then scans: 1000 ns. Without
// RUNQUEUE_LOCK both pay only their scan, 500 ns.
func TestGoodness24RunqueueLock(t *testing.T) {
	for _, c := range []struct {
		spec string
		want [2]int64
	}{{"goodness24:era=2.4,entry_cost=250ns", [2]int64{500, 1000}}, {"goodness24:entry_cost=250ns", [2]int64{500, 500}}, {"goodness24", [2]int64{0, 0}}} {
		g := newPolicy(t, c.spec, 2).(*Goodness)
		s := newFakeSim(2)
		g.Init(s)
		a := &Task{ID: 0, Comm: "A", Weight: 1024, Affinity: AllCPUs(2), State: TaskRunnable}
		b := &Task{ID: 1, Comm: "B", Weight: 1024, Affinity: AllCPUs(2), State: TaskRunnable, CPU: 1}
		s.tasks = []*Task{a, b}
		for _, x := range s.tasks {
			g.TaskNew(x)
			g.Enqueue(x.CPU, x, EnqueueWakeup)
		}
		var got [2]int64
		for cpu := 0; cpu < 2; cpu++ {
			next := g.PickNext(cpu, nil)
			if next == nil {
				t.Fatalf("%s: CPU %d picked nothing", c.spec, cpu)
			}
			next.State = TaskRunning
			got[cpu] = g.DecisionNS(cpu, nil, next)
		}
		if got != c.want {
			t.Errorf("%s: decision costs %v ns, want %v", c.spec, got, c.want)
		}
	}
}

// TestGoodness24WakeupLock pins the wakeup's share of runqueue_lock
// (era=2.4, entry_cost 250 ns, 2 CPUs). At 0 ns CPU 0 scans A and B: 2 ×
// 250 = 500 ns, the lock held until 500. At 100 ns a timer wakes C, which
// last ran on CPU 1: CPU 1 spins 500 − 100 = 400 ns and holds the lock
// (1 + 2 CPUs) × 250 = 750 ns, to 1250; it owes 1150 ns. At 200 ns CPU 1
// decides: the lock is its own (no spin), its scan walks A, B and C, 750
// ns, so its decision costs 750 + 1150 = 1900 ns. Had C last run on CPU 0,
// which holds the lock for its scan (interrupts off: the wakeup waits
// without spinning), CPU 0 would owe only the 750 ns hold, and CPU 1 would
// spin from 200 ns to the end of that hold, 500 + 750 = 1250 ns: 1050 ns,
// plus its 750 ns scan, 1800 ns.
func TestGoodness24WakeupLock(t *testing.T) {
	for _, c := range []struct {
		last     int
		cpu1Cost int64
		owed0    int64
	}{{1, 1900, 0}, {0, 1800, 750}} {
		g := newPolicy(t, "goodness24:era=2.4,entry_cost=250ns", 2).(*Goodness)
		s := newFakeSim(2)
		g.Init(s)
		a := &Task{ID: 0, Comm: "A", Weight: 1024, Affinity: AllCPUs(2), State: TaskRunnable}
		b := &Task{ID: 1, Comm: "B", Weight: 1024, Affinity: AllCPUs(2), State: TaskRunnable}
		cc := &Task{ID: 2, Comm: "C", Weight: 1024, Affinity: AllCPUs(2), State: TaskSleeping, CPU: c.last}
		s.tasks = []*Task{a, b, cc}
		for _, x := range s.tasks {
			g.TaskNew(x)
		}
		g.Enqueue(0, a, EnqueueWakeup)
		g.Enqueue(0, b, EnqueueWakeup)
		next := g.PickNext(0, nil)
		next.State = TaskRunning
		if got := g.DecisionNS(0, nil, next); got != 500 {
			t.Fatalf("C last on %d: CPU 0 decision %d ns, want 500", c.last, got)
		}
		g.ts[cc.ID].last = c.last
		s.now = 100
		s.curr[0] = next
		cpu := g.SelectCPU(cc, c.last, nil, WakeTTWU)
		cc.State, cc.CPU = TaskRunnable, cpu
		g.Enqueue(cpu, cc, EnqueueWakeup)
		if g.owed[0] != c.owed0 {
			t.Errorf("C last on %d: CPU 0 owes %d ns, want %d", c.last, g.owed[0], c.owed0)
		}
		s.now = 200
		n1 := g.PickNext(1, nil)
		if n1 == nil {
			t.Fatalf("C last on %d: CPU 1 picked nothing", c.last)
		}
		n1.State = TaskRunning
		if got := g.DecisionNS(1, nil, n1); got != c.cpu1Cost {
			t.Errorf("C last on %d: CPU 1 decision %d ns, want %d", c.last, got, c.cpu1Cost)
		}
	}
}

type migrateSim struct {
	*fakeSim
	moved []string
}

// Migrate records the move and carries t's share of the runqueue
// counts, so a balance of the next domain level sees it moved.
func (m *migrateSim) Migrate(t *Task, dst int) error {
	m.moved = append(m.moved, t.Comm)
	m.nr[t.CPU]--
	m.nr[dst]++
	t.CPU = dst
	return nil
}

// twoLLCs is 4 CPUs in two LLCs of 2 at 10 ms: CPU 0 idle, CPUs 1 and 2
// each running An with Bn queued (load 2 × 1024), CPU 3 idle; f balances
// them with knobs.
func twoLLCs(knobs smpKnobs) (*migrateSim, *fairSMP) {
	s := &migrateSim{fakeSim: newFakeSim(4)}
	s.now = 10_000_000
	q := map[int][]*Task{}
	for cpu := 1; cpu <= 2; cpu++ {
		s.curr[cpu] = &Task{Comm: "A" + string(rune('0'+cpu)), State: TaskRunning}
		q[cpu] = []*Task{{Comm: "B" + string(rune('0'+cpu)), State: TaskRunnable, Affinity: AllCPUs(4), CPU: cpu}}
		s.nr[cpu] = 2
	}
	f := &fairSMP{knobs: knobs}
	f.init(s, func(cpu int) []*Task { return q[cpu] }, func(cpu int) int64 { return int64(s.nr[cpu]) * NiceZeroWeight }, 2)
	return s, f
}

// TestIdleBalanceDomains pins the 2.6.31 idle balance over two domains
// on 4 CPUs in two LLCs of 2 (llc_size=2): CPU 0 idle, CPUs 1 (its LLC
// sibling) and 2 (the other LLC) each running one task with one queued
// (load 2048 now, cpu_load[1] 1024), CPU 0's cpu_load[1] 1024 from its
// busy past. CPU 0 balances: update_cpu_load makes its cpu_load[1] =
// (1024 × 1 + 0) / 2 = 512.
//   - llc_idle_idx 0 (SD_MC_INIT), LB_BIAS: in the LLC the loads are the
//     loads now: target 0, source min(2048, 2048) = 2048 ≥ 0 + 1024: CPU 0
//     pulls CPU 1's queued task B1.
//   - llc_idle_idx 1, LB_BIAS: target max(512, 0) = 512, sources min(1024,
//     2048) = 1024; 1024 − 512 < 1024 in both domains: nothing moves.
//   - idle_idx 1 without LB_BIAS: the loads now again (source_load and
//     target_load ignore the history without LB_BIAS): B1 moves.
//
// Where B1 moved, CPU 0 is no longer idle for the all-CPU level that
// follows (rebalance_domains, kernel/sched.c v2.6.31): that level needs
// a source two nice-0 weights above CPU 0's 1024, and CPU 2's 2048 is
// one: nothing more moves.
func TestIdleBalanceDomains(t *testing.T) {
	for _, c := range []struct {
		name  string
		knobs smpKnobs
		want  []string
	}{
		{"llc_idle_idx=0", smpKnobs{lbBias: true, idleIdx: 1, llcIdleIdx: 0}, []string{"B1"}},
		{"llc_idle_idx=1", smpKnobs{lbBias: true, idleIdx: 1, llcIdleIdx: 1}, nil},
		{"NO_LB_BIAS", smpKnobs{idleIdx: 1, llcIdleIdx: 1}, []string{"B1"}},
	} {
		s, f := twoLLCs(c.knobs)
		f.cpuLoad = [][5]int64{{1024, 1024, 1024, 1024, 1024}, {2048, 1024, 1024, 1024, 1024}, {2048, 1024, 1024, 1024, 1024}, {}}
		f.balance(0, BalanceIdle)
		if !slices.Equal(s.moved, c.want) {
			t.Errorf("%s: moved %v, want %v", c.name, s.moved, c.want)
		}
	}
}

// TestCacheHotBuddy: the setting of TestIdleBalanceDomains with the loads
// now (NO_LB_BIAS) and CACHE_HOT_BUDDY, B1 being CPU 1's next buddy. The
// first idle balance of CPU 0 finds CPU 1 busiest in its LLC and in the
// machine (2048 each, CPU 1 first), but B1 is hot (a buddy) and no balance
// has failed yet (0 ≤ cache_nice_tries 1): nothing moves, and each domain
// counts a failure (2). At the next balance, one interval (4 ms) later,
// 2 > 1: B1 moves.
func TestCacheHotBuddy(t *testing.T) {
	s, f := twoLLCs(smpKnobs{hotBuddy: true})
	f.buddy = func(t *Task) bool { return t.Comm == "B1" }
	f.balance(0, BalanceIdle)
	if len(s.moved) != 0 || f.failed[0] != 2 {
		t.Fatalf("first balance moved %v, failures %d; want nothing, 2", s.moved, f.failed[0])
	}
	s.now += f.interval
	f.balance(0, BalanceIdle)
	if !slices.Equal(s.moved, []string{"B1"}) || f.failed[0] != 0 {
		t.Errorf("second balance moved %v, failures %d; want [B1], 0", s.moved, f.failed[0])
	}
}

// TestHistoryErasNoPELT: an era that balances on the 2.6.31 cpu_load
// history (smpKnobs.history) predates PELT (Linux 3.8) and must not take
// the PELT placement: its preset sets NO_WA_PELT. Today that is
// cfs:era=2.6.31 alone.
func TestHistoryErasNoPELT(t *testing.T) {
	n := 0
	for _, e := range eras {
		v, err := Values{"era": e.Name}.expand(e.Policy)
		if err != nil {
			t.Fatal(err)
		}
		if !eraKnobs(v).history() {
			continue
		}
		n++
		if v.Feature("WA_PELT", true) {
			t.Errorf("%s:era=%s balances on the cpu_load history but leaves WA_PELT on", e.Policy, e.Name)
		}
	}
	if n != 1 {
		t.Errorf("%d eras with the cpu_load history, want 1 (cfs 2.6.31)", n)
	}
}

// TestNohzLoad pins NOHZ_LOAD (2.6.31 under CONFIG_NO_HZ) in the setting
// of TestIdleBalanceDomains with idle_idx 1 in both domains and LB_BIAS:
// CPUs 0 and 3 idle, each with cpu_load[1] 1024 from its last busy tick;
// CPUs 1 and 2 at 2048 now, cpu_load[1] 1024. The tick is 4 ms (HZ 250).
//   - At 10 ms CPU 0 balances first: there is no idle load balancer, so it
//     becomes one and keeps its tick from now; no tick has passed, so its
//     cpu_load[1] is still 1024: target max(1024, 0) = 1024, sources
//     min(1024, 2048) = 1024, 1024 − 1024 < 1024: nothing moves. CPU 3
//     balances: not the balancer, its tick is stopped, its history stays.
//   - At 54 ms (11 ticks later) CPU 3 balances: still 1024, nothing moves.
//     CPU 0 updates its history once per tick it has been idle: 1024
//     halves 11 times to 0 ((x × 1 + 0) / 2 in integers: 512, 256, ..., 1,
//     0), so the target is 0 and CPU 1 (the first at 1024 in its LLC)
//     gives B1. CPU 3's cpu_load is untouched: {1024, 1024, 1024, 1024,
//     1024}.
//   - Without NOHZ_LOAD each balance call updates once: CPU 0 is at 512
//     after the first and 256 after the second call, CPU 3 likewise, and
//     1024 − 256 < 1024: nothing moves in the two rounds. CPU 3's history
//     after two updates with load 0: cpu_load[i] × ((2^i − 1) / 2^i)^2 in
//     integers: 0; 1024 → 512 → 256; 768 → 576; 896 → 784; 960 → 900.
func TestNohzLoad(t *testing.T) {
	for _, c := range []struct {
		name  string
		nohz  bool
		want  []string
		load3 [5]int64
	}{
		{"NOHZ_LOAD", true, []string{"B1"}, [5]int64{1024, 1024, 1024, 1024, 1024}},
		{"ticking idle", false, nil, [5]int64{0, 256, 576, 784, 900}},
	} {
		s, f := twoLLCs(smpKnobs{lbBias: true, idleIdx: 1, llcIdleIdx: 1, nohzLoad: c.nohz})
		f.cpuLoad = [][5]int64{{1024, 1024, 1024, 1024, 1024}, {2048, 1024, 1024, 1024, 1024}, {2048, 1024, 1024, 1024, 1024}, {1024, 1024, 1024, 1024, 1024}}
		f.balance(0, BalanceIdle)
		f.balance(3, BalanceIdle)
		if len(s.moved) != 0 {
			t.Fatalf("%s: first round moved %v, want nothing", c.name, s.moved)
		}
		s.now += 11 * 4_000_000
		f.balance(3, BalanceIdle)
		f.balance(0, BalanceIdle)
		if !slices.Equal(s.moved, c.want) || f.cpuLoad[3] != c.load3 {
			t.Errorf("%s: moved %v, CPU 3 cpu_load %v; want %v, %v", c.name, s.moved, f.cpuLoad[3], c.want, c.load3)
		}
	}
}

// TestBalanceInterval31 pins the 2.6.31 balance intervals of the history
// path (rebalance_domains, load_balance, idle_balance, kernel/sched.c
// v2.6.31; min_interval 1 ms, max_interval 4 ms, busy_factor 64 in
// include/linux/topology.h v2.6.31) on 2 CPUs, one domain level, HZ 250
// (a 4 ms tick: msecs_to_jiffies makes 1, 2 and 4 ms one tick each).
//
// Adapting: CPU 0 idle, CPU 1 running one task. Idle balances at 4, 8 and
// 12 ms find nothing to pull (balanced): balance_interval 1 → 2 → 4 → 4
// (max_interval). At 16 ms a second task B waits on CPU 1: B moves and
// the interval falls back to 1.
//
// Busy next_balance: CPU 0 balances busy at 8 ms (balanced): its interval
// was 1 ms × 64 = 64 ms, so next_balance = 72 ms, and balance_interval
// becomes 2. At 12 ms CPU 0 goes idle while B waits on CPU 1: idle_balance
// (no SD_BALANCE_NEWIDLE) pulls nothing and leaves next_balance at 72 (it
// pulled nothing and 72 has not passed), so the idle balance at 12 ms is
// not due: B stays. With NOHZ_LOAD the idle load balancer balances CPU 0's
// domain at its idle interval (2 ms, one tick: 8 + 4 = 12 ≤ 12): B moves.
func TestBalanceInterval31(t *testing.T) {
	newSMP := func(knobs smpKnobs) (*migrateSim, *fairSMP, map[int][]*Task) {
		s := &migrateSim{fakeSim: newFakeSim(2)}
		q := map[int][]*Task{}
		f := &fairSMP{knobs: knobs}
		f.init(s, func(cpu int) []*Task { return q[cpu] }, func(cpu int) int64 { return int64(s.nr[cpu]) * NiceZeroWeight }, 2)
		s.curr[1] = &Task{Comm: "A", State: TaskRunning, CPU: 1}
		s.nr[1] = 1
		return s, f, q
	}
	queueB := func(s *migrateSim, q map[int][]*Task) {
		q[1] = []*Task{{Comm: "B", State: TaskRunnable, Affinity: AllCPUs(2), CPU: 1}}
		s.nr[1] = 2
	}

	s, f, q := newSMP(smpKnobs{busyIdx: 2, noNewIdle: true})
	var ivs []int64
	for _, ms := range []int64{4, 8, 12} {
		s.now = ms * 1_000_000
		f.balance(0, BalanceIdle)
		ivs = append(ivs, f.levels[0][1].ivMS)
	}
	if want := []int64{2, 4, 4}; !slices.Equal(ivs, want) || len(s.moved) != 0 {
		t.Errorf("balanced idle balances: intervals %v ms, moved %v; want %v ms, none", ivs, s.moved, want)
	}
	s.now = 16_000_000
	queueB(s, q)
	f.balance(0, BalanceIdle)
	if !slices.Equal(s.moved, []string{"B"}) || f.levels[0][1].ivMS != 1 {
		t.Errorf("unbalanced at 16 ms: moved %v, interval %d ms; want [B], 1 ms", s.moved, f.levels[0][1].ivMS)
	}

	for _, c := range []struct {
		name string
		nohz bool
		want []string
	}{{"ticking", false, nil}, {"NOHZ_LOAD", true, []string{"B"}}} {
		s, f, q := newSMP(smpKnobs{busyIdx: 2, noNewIdle: true, nohzLoad: c.nohz})
		s.now = 8_000_000
		s.curr[0] = &Task{Comm: "C", State: TaskRunning}
		s.nr[0] = 1
		f.balance(0, BalancePeriodic)
		if f.nextBal[0] != 72_000_000 || f.levels[0][1].ivMS != 2 {
			t.Errorf("%s: busy balance at 8 ms: next_balance %d ns, interval %d ms; want 72000000, 2", c.name, f.nextBal[0], f.levels[0][1].ivMS)
		}
		s.now = 12_000_000
		s.curr[0], s.nr[0] = nil, 0
		queueB(s, q)
		f.balance(0, BalanceNewIdle)
		if f.nextBal[0] != 72_000_000 {
			t.Errorf("%s: idle_balance at 12 ms moved next_balance to %d ns, want 72000000", c.name, f.nextBal[0])
		}
		f.balance(0, BalanceIdle)
		if !slices.Equal(s.moved, c.want) {
			t.Errorf("%s: idle balance at 12 ms moved %v, want %v", c.name, s.moved, c.want)
		}
	}
}

// TestO1ForkBonus pins the O(1) fork penalty of wake_up_new_task (kernel/
// sched.c v2.6.21) at HZ 250 (jiffy 4 ms): a parent with sleep_avg 950 ms
// has CURRENT_BONUS = (950 / 4 = 237 jiffies) × 10 / 250 = 9. The child
// gets 9 × 95 / 100 = 8 (integer) bonus points × 100 ms = 800 ms, the
// parent 9 × 100 / 100 = 9 points = 900 ms. (Scaling the sleep_avg itself,
// 950 × 0.95 = 902.5 ms, would leave the child at bonus 9.)
func TestO1ForkBonus(t *testing.T) {
	s := newFakeSim(1)
	p := NewO1(0)
	p.Init(s)
	par := s.task(0)
	p.TaskNew(par)
	p.ts[par.ID].sleepAvg = 950_000_000
	child := s.task(0)
	child.Parent = par
	p.TaskNew(child)
	if got, want := p.ts[child.ID].sleepAvg, int64(800_000_000); got != want {
		t.Errorf("child sleep_avg %d ns, want %d", got, want)
	}
	if got, want := p.ts[par.ID].sleepAvg, int64(900_000_000); got != want {
		t.Errorf("parent sleep_avg %d ns, want %d", got, want)
	}
	if got, want := p.ts[child.ID].prio, 120-(8-5); got != want {
		t.Errorf("child prio %d, want %d", got, want)
	}
}
