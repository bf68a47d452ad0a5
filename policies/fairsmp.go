package policies

import (
	"math"
)

// SMP placement and load balancing shared by the fair-class policies (cfs,
// eevdf), after kernel/sched/fair.c (Linux 5.10 to 6.18; the logic is the
// same in both eras for a single-LLC machine such as the recording VM):
//
//   - fork (select_task_rq_fair with SD_BALANCE_FORK -> sched_balance_find_dst_cpu):
//     the least loaded allowed CPU, an idle one first, the parent's CPU on ties;
//   - wakeup (WF_TTWU): wake_affine_idle chooses between the waker's CPU and
//     prev (an idle waker CPU wins, a sync wakeup onto a CPU running only the
//     waker wins, else an idle prev), WA_WEIGHT compares the runqueue loads,
//     then select_idle_sibling takes the target if idle, else an idle prev
//     sharing its LLC, else any idle CPU of the target's LLC (the llc_size
//     parameter: CPUs per LLC; the recording VM's vCPUs behave as one LLC
//     each: its pipe and messaging wakees stay on the waker's CPU while
//     the other CPU idles);
//   - newly idle balance (sched_balance_newidle): pull one task from the
//     busiest CPU, a cache-cold one (task_hot: last ran more than
//     sysctl_sched_migration_cost = 0.5 ms ago) before a cache-hot one;
//   - periodic balance (sched_balance_domains): every balance_interval
//     (sd_weight ms for the MC domain, times busy_factor 16 on a busy CPU),
//     pull (busiest - local)/2 tasks when the nr_running difference is at
//     least 2 (calculate_imbalance, group_has_spare / migrate_task).
//
// WA_PELT (on by default in eevdf and cfs, off in cfs's 2.6.x eras) adds
// what the kernel reads there since PELT: wake_affine_weight on PELT loads
// with WA_BIAS (wakeAffineWeight), wake_wide (wakeWide), and balancing on
// PELT figures (balancePELT, migratePELT). The eras with the 2.6.31
// cpu_load history (smpKnobs.history) balance on it whatever WA_PELT says,
// as balance checks the history first.
//
// With task groups and H_LOAD (useGroups; on in eevdf, off by default in
// cfs) the PELT loads are hierarchical, as the kernel's: a CPU's load is
// the sum of its root-level entities' load_avg, a group entity counting
// its own, and a task weighs its task_h_load in wake_affine_weight and
// migrate_load (pelt.go). The balancer's other choices (the busiest CPU by
// nr_running, idle pulls by util) are the flat ones, as in the kernel,
// whose nr_running and util are per CPU whatever the groups.
//
// Not modelled: PELT utilization, SIS_UTIL, NUMA and SMT levels, misfit and
// asym packing; without WA_PELT (cfs's 2.6.x eras) the queued weights
// compared are the root runqueue's, group entities included, but a task
// still moves by its own weight.

// MigrationCost is sysctl_sched_migration_cost, 0.5 ms (kernel/sched/fair.c).
const MigrationCost = 500_000

// smpKnobs are the 2.6.31-era sched-domain flags and load-balancing
// features that cfs takes as parameters. The zero value keeps
// the behaviour described above.
//
// cpu_load[idx] is the 2.6.31 per-runqueue load history (update_cpu_load in
// kernel/sched.c): at each balance of a CPU, cpu_load[i] = (cpu_load[i] ×
// (2^i − 1) + load) / 2^i. With LB_BIAS, source_load = min(cpu_load[idx],
// load) and target_load = max(cpu_load[idx], load): a CPU that was busy a
// moment ago still looks loaded and pulls nothing. Without it both are the
// load now, whatever the index (source_load/target_load, kernel/sched.c
// v2.6.31: "if (type == 0 || !sched_feat(LB_BIAS)) return total").
type smpKnobs struct {
	noNewIdle, noAffine, noIdleSibling, wakeBalance bool
	lbBias                                          bool
	newidleIdx, busyIdx                             int
	// hotBuddy is CACHE_HOT_BUDDY in the 2.6.31 balancer: hot tasks and
	// buddies stay (see hot).
	hotBuddy bool
	// idleIdx and llcIdleIdx are the indices of the periodic balance of
	// an idle CPU, over all CPUs and within its LLC (2.6.31: SD_CPU_INIT
	// idle_idx 1, SD_MC_INIT none, i.e. 0).
	idleIdx, llcIdleIdx int
	// nohzLoad is NOHZ_LOAD: cpu_load[] moves only with a CPU's own tick,
	// which a tickless idle CPU does not have, except the idle load
	// balancer's (see tickLoad).
	nohzLoad bool
}

func eraKnobs(v Values) smpKnobs {
	k := smpKnobs{
		noNewIdle:     !v.Feature("SD_BALANCE_NEWIDLE", true),
		noAffine:      !v.Feature("SD_WAKE_AFFINE", true),
		noIdleSibling: !v.Feature("SD_WAKE_IDLE", true),
		wakeBalance:   v.Feature("SD_BALANCE_WAKE", false),
		lbBias:        v.Feature("LB_BIAS", false),
		newidleIdx:    min(max(v.Int("newidle_idx", 0), 0), 4),
		busyIdx:       min(max(v.Int("busy_idx", 0), 0), 4),
	}
	k.hotBuddy = v.Feature("CACHE_HOT_BUDDY", false)
	k.nohzLoad = v.Feature("NOHZ_LOAD", false)
	// Unset, the idle indices are newidle_idx, as before they existed.
	k.idleIdx = min(max(v.Int("idle_idx", k.newidleIdx), 0), 4)
	k.llcIdleIdx = min(max(v.Int("llc_idle_idx", k.idleIdx), 0), 4)
	return k
}

func (k smpKnobs) history() bool {
	return k.lbBias || k.newidleIdx > 0 || k.busyIdx > 0 || k.idleIdx > 0 || k.llcIdleIdx > 0 || k.hotBuddy
}

type fairSMP struct {
	knobs   smpKnobs
	cpuLoad [][5]int64 // per CPU: cpu_load[0..4] (weights)
	sim     Sim
	// queued returns the fair tasks enqueued on cpu that could be
	// migrated (not running, not delayed); the slice may be reused by the
	// next call, so a caller must not keep it.
	queued func(cpu int) []*Task
	cands  []migCand           // migratePELT's candidates, reused
	load   func(cpu int) int64 // sum of queued weights
	// buddy reports whether t is a buddy of its runqueue (cfs: the next
	// or last buddy); nil when the policy has none.
	buddy func(t *Task) bool
	// levels are, per CPU, the 2.6.31 history path's balancing state of
	// its sched-domain levels: [0] the LLC (MC) domain, [1] all CPUs;
	// nextBal is its rq->next_balance, ns.
	levels   [][2]levelBal
	nextBal  []int64
	lastBal  []int64 // per CPU: last periodic or idle balance, ns (sd->last_balance)
	failed   []uint  // per CPU: sd->nr_balance_failed
	interval int64   // ns, the MC domain's min balance interval (the v6.x path; the 2.6.31 history path keeps levels)
	llc      int     // CPUs per last-level cache (sd_llc span)
	busyFact int64
	// pelt, when set (WA_PELT, usePELT), gives WA_WEIGHT the PELT loads
	// (wakeAffineWeight) instead of the queued weights, and the balancer
	// its PELT figures (balancePELT).
	pelt *pelt
	// groupEnt, with groups (useGroups), reports a group entity's
	// queued state and weight on a CPU.
	groupEnt func(g, cpu int) (queued bool, w int64)
	// flips are the tasks' wakee flips (wakeWide), by task ID.
	flips []wakeFlips
	// With NOHZ_LOAD: ilb is nohz.load_balancer, the idle CPU that kept
	// its tick (-1: none), and loadAt the time of each CPU's last
	// update_cpu_load, ns.
	ilb    int
	loadAt []int64
}

// wakeFlips is a task's wakee_flips and what record_wakee keeps with it.
type wakeFlips struct {
	flips   int
	last    int   // task ID of the last wakee, -1
	decayAt int64 // ns, wakee_flip_decay_ts
}

func (f *fairSMP) flipsOf(id int) *wakeFlips {
	for len(f.flips) <= id {
		f.flips = append(f.flips, wakeFlips{last: -1, decayAt: f.sim.Now()})
	}
	return &f.flips[id]
}

// wakeWide is record_wakee then wake_wide (kernel/sched/fair.c v6.18): the
// waker's wakee_flips count the wakeups of another wakee than its last,
// halved once a second has passed since the last halving; a wakeup is
// "wide" (no wake_affine: the wakee stays on prev unless it is busy and
// another is idle) when the smaller of the two tasks' flips is at least
// the LLC size and the larger at least that many times the smaller: one
// producer feeding many consumers. sd_llc_size is taken as the number of
// simulated CPUs (the recording VM's two vCPUs share one L3, lscpu); on a
// machine of several LLCs that overstates it.
func (f *fairSMP) wakeWide(t, waker *Task) bool {
	now := f.sim.Now()
	w := f.flipsOf(waker.ID)
	if now-w.decayAt > 1_000_000_000 {
		w.flips >>= 1
		w.decayAt = now
	}
	if w.last != t.ID {
		w.last = t.ID
		w.flips++
	}
	master, slave := w.flips, f.flipsOf(t.ID).flips
	if master < slave {
		master, slave = slave, master
	}
	factor := f.sim.NumCPUs()
	return slave >= factor && master >= slave*factor
}

// WABiasPct is the WA_BIAS weight of prev's load in wake_affine_weight:
// 100 + (imbalance_pct − 100)/2 with the MC domain's imbalance_pct 117
// (sd_init, kernel/sched/topology.c v6.18), i.e. 108: the wakee moves to
// the waker's CPU only when that is clearly the lighter one.
const WABiasPct = 100 + (117-100)/2

// wakeAffineWeight is wake_affine_weight (kernel/sched/fair.c v6.18) on
// PELT loads: with a sync wakeup the waker's own load does not count on
// its CPU (it is about to sleep), and this CPU wins if its load plus the
// wakee's, ×100, is below prev's load without the wakee, ×WABiasPct (+1
// for sync, so a tie stacks the wakee on the waker).
func (f *fairSMP) wakeAffineWeight(t, waker *Task, this, prev int, sync bool) bool {
	now := f.sim.Now()
	thisLoad := f.pelt.load(this, now)
	if sync {
		cur := f.pelt.hLoad(waker.ID, waker.Weight, now)
		if cur > thisLoad {
			return true
		}
		thisLoad -= cur
	}
	tl := f.pelt.hLoad(t.ID, t.Weight, now)
	thisEff := (thisLoad + tl) * 100
	prevEff := (f.pelt.load(prev, now) - tl) * WABiasPct
	if sync {
		prevEff++
	}
	return thisEff < prevEff
}

func (f *fairSMP) init(s Sim, queued func(int) []*Task, load func(int) int64, llc int) {
	f.sim, f.queued, f.load = s, queued, load
	f.llc = llc
	if f.llc <= 0 || f.llc > s.NumCPUs() {
		f.llc = s.NumCPUs()
	}
	f.levels = make([][2]levelBal, s.NumCPUs())
	f.nextBal = make([]int64, s.NumCPUs())
	for i := range f.levels {
		for l := range f.levels[i] {
			f.levels[i][l] = levelBal{last: math.MinInt64 / 2, ivMS: minIntervalMS31}
		}
	}
	f.lastBal = make([]int64, s.NumCPUs())
	for i := range f.lastBal {
		f.lastBal[i] = math.MinInt64 / 2
	}
	f.failed = make([]uint, s.NumCPUs())
	f.ilb = -1
	f.loadAt = make([]int64, s.NumCPUs())
	// sd_init: min_interval = sd_weight ms, busy_factor = 16
	// (kernel/sched/topology.c).
	f.interval = int64(s.NumCPUs()) * 1_000_000
	f.busyFact = 16
}

// usePELT turns on the PELT tracking of WA_PELT; call it after init. The
// policy then reports its fair runqueue changes through peltEnqueue,
// peltDequeue and peltRun, which do nothing without it.
func (f *fairSMP) usePELT() {
	f.pelt = &pelt{}
	f.pelt.init(f.sim.NumCPUs())
}

// peltEnqueue is enqueue_entity's update_load_avg and attach: t becomes
// runnable on cpu now.
func (f *fairSMP) peltEnqueue(t *Task, cpu int) {
	if f.pelt != nil {
		g := 0
		if f.pelt.groups != nil {
			g = t.Group
		}
		f.pelt.enqueue(t.ID, t.Weight, g, cpu, f.sim.Now())
	}
}

// peltDequeue is dequeue_entity's: task id stops being runnable now; a
// sleeping task (sleep) leaves its load on its CPU as blocked load, a
// migrating or exiting one takes it along (migrate_task_rq_fair,
// remove_entity_load_avg).
func (f *fairSMP) peltDequeue(id int, sleep bool) {
	if f.pelt != nil {
		f.pelt.dequeue(id, sleep, f.sim.Now())
	}
}

// useGroups makes the PELT loads hierarchical (see pelt.go) for a policy
// that schedules the task groups groups (groups[0] the root, more than one
// group); ent reports whether group g's entity on cpu is queued and its
// weight. The policy then calls peltGroups after each change of its group
// entities. Nothing without WA_PELT.
func (f *fairSMP) useGroups(groups []Group, ent func(g, cpu int) (queued bool, w int64)) {
	if f.pelt == nil || len(groups) <= 1 {
		return
	}
	f.pelt.setGroups(groups)
	f.groupEnt = ent
}

// peltGroups is update_load_avg on cpu's group entities: each one's
// queued state and weight (calc_group_shares) now, as the policy has
// them.
func (f *fairSMP) peltGroups(cpu int) {
	if f.groupEnt == nil {
		return
	}
	now := f.sim.Now()
	for g := 1; g < len(f.pelt.groups); g++ {
		q, w := f.groupEnt(g, cpu)
		f.pelt.groupEnt(g, cpu, q, w, now)
	}
}

// peltRun is set_next_entity's: task id (-1: none) runs on cpu from now.
func (f *fairSMP) peltRun(cpu, id int) {
	if f.pelt != nil {
		f.pelt.run(cpu, id, f.sim.Now())
	}
}

func (f *fairSMP) idle(cpu int) bool { return f.sim.Curr(cpu) == nil && f.sim.NrRunning(cpu) == 0 }

func (f *fairSMP) selectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	n := f.sim.NumCPUs()
	if !t.Affinity.Has(prev) || prev >= n {
		prev = t.Affinity.First()
	}
	if flags&WakeFork != 0 || f.knobs.wakeBalance && flags&WakeTTWU != 0 {
		best, bestNr := -1, 0
		try := func(c int) {
			if c < 0 || c >= n || !t.Affinity.Has(c) {
				return
			}
			nr := f.sim.NrRunning(c)
			if best < 0 || nr < bestNr {
				best, bestNr = c, nr
			}
		}
		try(prev)
		for c := 0; c < n; c++ {
			try(c)
		}
		return best
	}
	target := prev
	shares := func(a, b int) bool { return a/f.llc == b/f.llc }
	wide := false
	if f.pelt != nil && waker != nil {
		wide = f.wakeWide(t, waker)
	}
	if waker != nil && !wide && !f.knobs.noAffine && waker.State == TaskRunning && t.Affinity.Has(waker.CPU) && waker.CPU != prev {
		this := waker.CPU
		switch {
		case f.idle(this) && shares(this, prev):
			if !f.idle(prev) {
				target = this
			}
		case flags&WakeSync != 0 && f.sim.NrRunning(this) == 1:
			target = this
		case f.idle(prev):
			target = prev
		case f.pelt != nil:
			if f.wakeAffineWeight(t, waker, this, prev, flags&WakeSync != 0) {
				target = this
			}
		default:
			// WA_WEIGHT: the lighter runqueue, counting the wakee.
			if f.load(this)+t.Weight < f.load(prev) {
				target = this
			}
		}
	}
	// select_idle_sibling: only CPUs sharing the target's LLC are searched.
	if f.knobs.noIdleSibling || f.idle(target) {
		return target
	}
	if target != prev && shares(prev, target) && f.idle(prev) {
		return prev
	}
	for c := target / f.llc * f.llc; c < min(n, (target/f.llc+1)*f.llc); c++ {
		if t.Affinity.Has(c) && f.idle(c) {
			return c
		}
	}
	return target
}

// balance pulls tasks to cpu; see the file comment.
func (f *fairSMP) balance(cpu int, kind BalanceKind) {
	now := f.sim.Now()
	if f.knobs.history() {
		f.biasedBalance(cpu, kind)
		return
	}
	if kind == BalanceNewIdle && f.knobs.noNewIdle {
		return
	}
	switch kind {
	case BalancePeriodic, BalanceIdle:
		// sched_balance_domains (kernel/sched/fair.c v6.18): due when
		// the interval for the CPU's state now (busy: × busy_factor)
		// has passed since the last balance, so a CPU that goes idle
		// balances at the idle interval even if it last balanced busy.
		iv := f.interval
		if kind == BalancePeriodic && f.sim.Curr(cpu) != nil {
			iv *= f.busyFact
		}
		if now < f.lastBal[cpu]+iv {
			return
		}
		f.lastBal[cpu] = now
	}
	busiest, most := -1, 0
	for c := 0; c < f.sim.NumCPUs(); c++ {
		if c == cpu {
			continue
		}
		if nr := f.sim.NrRunning(c); nr > most {
			busiest, most = c, nr
		}
	}
	local := f.sim.NrRunning(cpu)
	if busiest < 0 || most < 2 {
		if f.pelt != nil {
			f.failed[cpu] = 0 // out_balanced
		}
		return
	}
	if f.pelt != nil {
		f.balancePELT(cpu, busiest, local, most, kind)
		return
	}
	if most-local < 2 && !(kind == BalanceNewIdle && local == 0) {
		if kind != BalanceNewIdle && local > 0 {
			f.migrateLoad(cpu, busiest)
		}
		return
	}
	n := 1
	if kind != BalanceNewIdle {
		n = (most - local) / 2
	}
	for ; n > 0; n-- {
		var pick *Task
		for _, t := range f.queued(busiest) {
			if !t.Affinity.Has(cpu) || t.State != TaskRunnable {
				continue
			}
			if pick == nil {
				pick = t
				continue
			}
			hot, pickHot := now-t.LastRan < MigrationCost, now-pick.LastRan < MigrationCost
			if pickHot && !hot || hot == pickHot && t.LastRan < pick.LastRan {
				pick = t
			}
		}
		if pick == nil || f.sim.Migrate(pick, cpu) != nil {
			return
		}
	}
}

// updateLoad is update_cpu_load (2.6.31) for cpu, at a balance call.
func (f *fairSMP) updateLoad(cpu int) {
	if f.cpuLoad == nil {
		f.cpuLoad = make([][5]int64, f.sim.NumCPUs())
	}
	cur := f.load(cpu)
	for i := range f.cpuLoad[cpu] {
		scale := int64(1) << uint(i)
		f.cpuLoad[cpu][i] = (f.cpuLoad[cpu][i]*(scale-1) + cur) / scale
	}
}

// tickLoad brings cpu's cpu_load[] up to date before a balance of kind.
// Without NOHZ_LOAD every balance call updates it once (updateLoad), as
// a CPU that ticks while idle would. With NOHZ_LOAD it follows 2.6.31
// under CONFIG_NO_HZ: update_cpu_load runs only from scheduler_tick
// (kernel/sched.c v2.6.31), once per tick and without catching up missed
// ones, and an idle CPU stops its tick (tick_nohz_stop_sched_tick,
// kernel/time/tick-sched.c v2.6.31) unless select_nohz_load_balancer(1)
// makes it the idle load balancer, nohz.load_balancer ("sched tick not
// stopped!"), which keeps ticking until it is busy again. So a busy CPU's
// history moves at its periodic balance (one per tick), a newly idle
// balance moves nothing, the idle load balancer's history decays by one
// update per tick it has been idle, and any other idle CPU keeps the
// history of its last busy tick: with LB_BIAS it looks loaded. The idle
// load balancer is the first idle CPU balanced while there is none (the
// busy CPU's tick kicks cpumask_first(nohz.cpu_mask), trigger_load_balance
// v2.6.31); it stays one while idle.
func (f *fairSMP) tickLoad(cpu int, kind BalanceKind) {
	if !f.knobs.nohzLoad {
		f.updateLoad(cpu)
		return
	}
	now := f.sim.Now()
	if f.sim.Curr(cpu) != nil {
		if kind == BalancePeriodic {
			f.updateLoad(cpu)
			f.loadAt[cpu] = now
		}
		return
	}
	if kind != BalanceIdle {
		return
	}
	if f.ilb < 0 || f.sim.Curr(f.ilb) != nil {
		f.ilb = cpu
		f.loadAt[cpu] = now // its tick runs from here; the next one updates
	}
	if f.ilb != cpu {
		return
	}
	tick := f.tickNS()
	for n := (now - f.loadAt[cpu]) / tick; n > 0; n-- {
		f.updateLoad(cpu)
		f.loadAt[cpu] += tick
		if f.cpuLoad[cpu] == [5]int64{} && f.load(cpu) == 0 {
			f.loadAt[cpu] += (n - 1) * tick
			break
		}
	}
}

// tickNS is the tick period, ns.
func (f *fairSMP) tickNS() int64 {
	hz := f.sim.HZ()
	if hz <= 0 {
		hz = 250
	}
	return 1_000_000_000 / int64(hz)
}

// The balance intervals of the 2.6.31 MC and CPU domains
// (include/linux/topology.h v2.6.31, SD_MC_INIT and SD_CPU_INIT:
// min_interval 1, max_interval 4, busy_factor 64, balance_interval 1),
// in ms.
const (
	minIntervalMS31 = 1
	maxIntervalMS31 = 4
	busyFactor31    = 64
)

// levelBal is one sched-domain level's sd->last_balance (ns) and
// sd->balance_interval (ms) on one CPU.
type levelBal struct {
	last int64
	ivMS int64
}

// balOutcome is what one load_balance of a domain found.
type balOutcome int

const (
	balBalanced balOutcome = iota // out_balanced: no source exceeds this CPU by the need
	balFailed                     // unbalanced, but no task could move (all cache-hot)
	balMoved                      // a task moved
)

// biasedBalance is balance with the 2.6.31 load history (the balancing
// CPU's cpu_load[] is updated first; a CPU's history moves only when it
// balances, so an idle CPU keeps the history of its last busy moments):
// loads are cpu_load[idx] (biased with LB_BIAS), and one task moves when
// the source exceeds the target by a nice-0 weight (newly idle or idle)
// or two (periodic, busy).
//
// The levels are walked bottom up, the LLC (MC) domain and then all CPUs,
// as rebalance_domains (kernel/sched.c v2.6.31) does, once the CPU's
// rq->next_balance has come (trigger_load_balance raises the balancing
// softirq only then): each level balances when its own interval has
// passed since its last balance, the interval being its balance_interval
// in ms, × busy_factor on a busy CPU, in whole ticks (msecs_to_jiffies, at
// least one). load_balance adapts it: an unbalanced domain (a task moved,
// or none could) resets it to min_interval, a balanced one doubles it up
// to max_interval (out_balanced); a CPU that pulled is no longer idle for
// the levels above. next_balance becomes the earliest level's last
// balance + the interval it was checked with, so a CPU that balanced busy
// waits up to busy_factor × its interval even if it goes idle meanwhile:
// idle_balance, run whenever a CPU is about to go idle, pulls only in
// domains with SD_BALANCE_NEWIDLE (at newidle_idx) and brings next_balance
// forward to the idle intervals only if it pulled or next_balance has
// already passed. With NOHZ_LOAD (CONFIG_NO_HZ) an idle CPU's domains are
// balanced by the idle load balancer whatever its own next_balance
// (run_rebalance_domains, kernel/sched.c v2.6.31).
func (f *fairSMP) biasedBalance(cpu int, kind BalanceKind) {
	f.tickLoad(cpu, kind)
	now := f.sim.Now()
	n := f.sim.NumCPUs()
	lo, hi := cpu/f.llc*f.llc, min(n, (cpu/f.llc+1)*f.llc)
	spans := [2][2]int{{lo, hi}, {0, n}}
	first := 0
	if hi-lo >= n {
		first = 1 // one level: the LLC spans every CPU
	}
	if kind == BalanceNewIdle {
		pulled := false
		next := int64(math.MaxInt64)
		for l := first; l < 2 && !pulled; l++ {
			if !f.knobs.noNewIdle {
				pulled = f.pullBiased(cpu, kind, spans[l][0], spans[l][1], f.knobs.newidleIdx, NiceZeroWeight) == balMoved
			}
			st := &f.levels[cpu][l]
			next = min(next, st.last+f.intervalNS(st.ivMS))
		}
		if pulled || now > f.nextBal[cpu] {
			f.nextBal[cpu] = next
		}
		return
	}
	if now < f.nextBal[cpu] && !(kind == BalanceIdle && f.knobs.nohzLoad) {
		return
	}
	busy := kind == BalancePeriodic && f.sim.Curr(cpu) != nil
	next := int64(math.MaxInt64)
	for l := first; l < 2; l++ {
		st := &f.levels[cpu][l]
		ms := st.ivMS
		if busy {
			ms *= busyFactor31
		}
		iv := f.intervalNS(ms)
		if now >= st.last+iv {
			idx, need := f.knobs.idleIdx, int64(NiceZeroWeight)
			if l == 0 {
				idx = f.knobs.llcIdleIdx
			}
			if busy {
				idx, need = f.knobs.busyIdx, 2*NiceZeroWeight
			}
			out := f.pullBiased(cpu, kind, spans[l][0], spans[l][1], idx, need)
			st.last = now
			if out == balBalanced {
				st.ivMS = min(st.ivMS*2, maxIntervalMS31)
			} else {
				st.ivMS = minIntervalMS31
			}
			if out == balMoved {
				busy = true
			}
		}
		next = min(next, st.last+iv)
	}
	f.nextBal[cpu] = next
}

// intervalNS is msecs_to_jiffies(ms) ticks, at least one, in ns.
func (f *fairSMP) intervalNS(ms int64) int64 {
	tick := f.tickNS()
	return max((ms*1_000_000+tick-1)/tick, 1) * tick
}

// cacheNiceTries is sd->cache_nice_tries of the 2.6.31 MC and CPU
// domains (include/linux/topology.h v2.6.31 SD_MC_INIT, SD_CPU_INIT: 1):
// a cache-hot task is not migrated until that many balances failed.
const cacheNiceTries = 1

// hot is task_hot (kernel/sched.c v2.6.31) with CACHE_HOT_BUDDY: t ran
// less than sysctl_sched_migration_cost ago, or it is a buddy of its
// runqueue (the next or last buddy), which the pick will prefer.
func (f *fairSMP) hot(t *Task, now int64) bool {
	return now-t.LastRan < MigrationCost || f.buddy != nil && f.buddy(t)
}

// pullBiased moves one task to cpu from the busiest CPU of lo..hi-1 when
// its load exceeds cpu's by need, loads taken at cpu_load[idx] (biased
// with LB_BIAS); it reports what it found (balOutcome). With CACHE_HOT_BUDDY a
// hot task (hot) moves only after cacheNiceTries failed idle or periodic
// balances of cpu (can_migrate_task, kernel/sched.c v2.6.31; a newly
// idle balance does not count as a failure). The failures are counted
// once per CPU for both domains, where the kernel keeps nr_balance_failed
// per domain: a balance that fails in both counts twice.
func (f *fairSMP) pullBiased(cpu int, kind BalanceKind, lo, hi, idx int, need int64) balOutcome {
	now := f.sim.Now()
	hist := func(c int) int64 {
		// source_load/target_load in kernel/sched.c v2.6.31: the load now
		// unless type (the index) > 0 and LB_BIAS; the history only
		// biases, it never stands alone.
		if idx == 0 || f.cpuLoad == nil || !f.knobs.lbBias {
			return f.load(c)
		}
		return f.cpuLoad[c][idx]
	}
	local := hist(cpu)
	if f.knobs.lbBias {
		local = max(local, f.load(cpu))
	}
	busiest, most := -1, int64(0)
	for c := lo; c < hi; c++ {
		if c == cpu || f.sim.NrRunning(c) < 2 {
			continue
		}
		src := hist(c)
		if f.knobs.lbBias {
			src = min(src, f.load(c))
		}
		if src > most {
			busiest, most = c, src
		}
	}
	if busiest < 0 || most-local < need {
		return balBalanced
	}
	var pick *Task
	for _, t := range f.queued(busiest) {
		if !t.Affinity.Has(cpu) || t.State != TaskRunnable {
			continue
		}
		if f.knobs.hotBuddy && f.failed[cpu] <= cacheNiceTries && f.hot(t, now) {
			continue
		}
		if pick == nil || now-t.LastRan >= MigrationCost && now-pick.LastRan < MigrationCost {
			pick = t
		}
	}
	if pick == nil || f.sim.Migrate(pick, cpu) != nil {
		if f.knobs.hotBuddy && kind != BalanceNewIdle {
			f.failed[cpu]++
		}
		return balFailed
	}
	if f.knobs.hotBuddy {
		f.failed[cpu] = 0
	}
	return balMoved
}

// migrateLoad is the overloaded case of sched_balance_find_src_group /
// detach_tasks (migrate_load): both CPUs busy, one with more load. The
// imbalance is half the load difference; a task moves only if its weight,
// halved once per failed attempt (shr_bound(load, nr_balance_failed)),
// fits in it, so equal-weight tasks ping-pong every other balance, as the
// kernel's three nice-0 hogs on two CPUs do.
func (f *fairSMP) migrateLoad(cpu, busiest int) {
	imb := (f.load(busiest) - f.load(cpu)) / 2
	if imb <= 0 {
		return
	}
	var pick *Task
	for _, t := range f.queued(busiest) {
		if t.Affinity.Has(cpu) && t.State == TaskRunnable && (pick == nil || t.LastRan < pick.LastRan) {
			pick = t
		}
	}
	if pick == nil {
		return
	}
	if pick.Weight>>min(f.failed[cpu], 62) > imb {
		f.failed[cpu]++
		return
	}
	if f.sim.Migrate(pick, cpu) == nil {
		f.failed[cpu] = 0
	}
}

// CacheNiceTries is the MC domain's cache_nice_tries (sd_init,
// kernel/sched/topology.c v6.18, SD_SHARE_LLC): a cache-hot task (ran
// within MigrationCost) moves only after more failed balances than this.
const CacheNiceTries = 1

// balancePELT is sched_balance_rq's choice for two one-CPU groups
// (kernel/sched/fair.c v6.18, update_sd_lb_stats, calculate_imbalance,
// detach_tasks) on PELT figures, most tasks on busiest and local on cpu:
//   - cpu busy (fully busy or overloaded): only from an overloaded
//     busiest (pelt.overloaded), by load (migratePELT);
//   - cpu idle (has spare): from an overloaded busiest the tasks whose
//     running average fits cpu's spare capacity (migrate_util), else any
//     one waiting task (migrate_task, sibling_imbalance of one-CPU
//     groups);
//
// in both, a cache-hot task only after CacheNiceTries failed balances
// (can_migrate_task, task_hot). A failed periodic or idle balance counts
// in nr_balance_failed, a newly idle one does not.
func (f *fairSMP) balancePELT(cpu, busiest, local, most int, kind BalanceKind) {
	now := f.sim.Now()
	over := f.pelt.overloaded(busiest, most, now)
	if local > 0 {
		switch {
		case !over:
			f.failed[cpu] = 0 // out_balanced
		case kind != BalanceNewIdle:
			f.migratePELT(cpu, busiest)
		}
		return
	}
	spare := max(0, 1-f.pelt.util(cpu, now))
	var pick *Task
	for _, t := range f.queued(busiest) {
		if !t.Affinity.Has(cpu) || t.State != TaskRunnable || f.hotPELT(t, cpu, now) {
			continue
		}
		if over && f.shrFailed(cpu, f.pelt.taskUtil(t.ID, t.Weight, now)) > spare {
			continue
		}
		if pick == nil || t.LastRan < pick.LastRan {
			pick = t
		}
	}
	if pick != nil && f.sim.Migrate(pick, cpu) == nil {
		f.failed[cpu] = 0
		return
	}
	if kind != BalanceNewIdle {
		f.failed[cpu]++
	}
}

// shrFailed is shr_bound(x, nr_balance_failed) of detach_tasks: x halved
// once per failed balance of cpu, so a task too big for the imbalance
// fits after enough failures.
func (f *fairSMP) shrFailed(cpu int, x float64) float64 {
	return x / float64(uint64(1)<<min(f.failed[cpu], 62))
}

// hotPELT is task_hot under can_migrate_task: t ran on its CPU within
// MigrationCost and cpu has not failed to balance more than
// CacheNiceTries times.
func (f *fairSMP) hotPELT(t *Task, cpu int, now int64) bool {
	return now-t.LastRan < MigrationCost && f.failed[cpu] <= CacheNiceTries
}

// migratePELT is migrateLoad on PELT loads (detach_tasks, kernel/sched/
// fair.c v6.18, migrate_load): the imbalance is half the difference of the
// two CPUs' load_avg; the waiting tasks of busiest are tried from the one
// that ran longest ago, and the first whose load_avg, halved once per
// failed balance (shr_bound by nr_balance_failed), fits the imbalance
// moves. A task far heavier than the imbalance (a spinner beside light
// sleepers) stays where it is.
func (f *fairSMP) migratePELT(cpu, busiest int) {
	now := f.sim.Now()
	imb := (f.pelt.load(busiest, now) - f.pelt.load(cpu, now)) / 2
	if imb <= 0 {
		f.failed[cpu] = 0 // out_balanced
		return
	}
	// The candidates from the one that ran longest ago, ties in queue
	// order: the order of a stable sort by LastRan, which is that of
	// (LastRan, queue index), taken from a heap one at a time (the first
	// that fits ends the search; sorting them all was 3 % of an eevdf
	// replay of bench/replaymem's file).
	cands := f.cands[:0]
	for i, t := range f.queued(busiest) {
		if t.Affinity.Has(cpu) && t.State == TaskRunnable && !f.hotPELT(t, cpu, now) {
			cands = append(cands, migCand{last: t.LastRan, idx: i, t: t})
		}
	}
	f.cands = cands
	for i := len(cands)/2 - 1; i >= 0; i-- {
		migDown(cands, i)
	}
	for h := cands; len(h) > 0; {
		c := h[0]
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		migDown(h, 0)
		t := c.t
		if f.shrFailed(cpu, f.pelt.hLoad(t.ID, t.Weight, now)) > imb {
			continue
		}
		if f.sim.Migrate(t, cpu) == nil {
			f.failed[cpu] = 0
		}
		return
	}
	f.failed[cpu]++
}

// migCand is a task migratePELT may move: its LastRan and its index in
// the queued list, the key of their order.
type migCand struct {
	last int64
	idx  int
	t    *Task
}

// before orders migratePELT's candidates: the one that ran longest ago,
// then the earlier queued (the key is unique).
func (a *migCand) before(b *migCand) bool {
	return a.last < b.last || a.last == b.last && a.idx < b.idx
}

// migDown moves candidate i of the min-heap h down to its place.
func migDown(h []migCand, i int) {
	for {
		m := 2*i + 1
		if m >= len(h) {
			return
		}
		if r := m + 1; r < len(h) && h[r].before(&h[m]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// SMPParams are the topology and placement parameters shared by the fair
// policies.
var SMPParams = []Param{
	{Name: "llc_size", Kind: ParamInt, Default: "1",
		Doc:    "CPUs per last-level cache (sd_llc): select_idle_sibling searches only there; 0 = all CPUs",
		Source: "kernel/sched/fair.c select_idle_sibling (v5.10-v6.18); 1 matches the shared traces' VM",
		Min:    0, Max: math.MaxInt64},
	{Name: "WA_PELT", Kind: ParamFeature, Default: "on",
		Doc: "not a features.h flag: wakeups and balancing on PELT loads as the kernel has them since per-entity load tracking " +
			"(wake_affine_weight on the runnable and blocked load_avg of each CPU, the waker's own load left out of a sync wakeup, " +
			"WA_BIAS 108 %; wake_wide; balancing only from an overloaded CPU, idle pulls by util fit, cache-hot tasks stay); " +
			"off: the queued weights now; cfs's 2.6.x eras set it off (an era with the cpu_load history balances on that first)",
		Source: "kernel/sched/fair.c v6.2 and v6.18 wake_affine_weight, wake_wide, cpu_load, task_h_load, update_sd_lb_stats, " +
			"calculate_imbalance, detach_tasks (the load balance of v5.5+, commit 0b0695f2b34a); kernel/sched/pelt.c (y^32 = 1/2); " +
			"kernel/sched/topology.c sd_init (imbalance_pct 117)"},
}
