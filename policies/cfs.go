package policies

import "math"

// CFS, the fair class of Linux 2.6.23 to 6.5, with the semantics of
// kernel/sched/fair.c v5.10 and the feature defaults of
// kernel/sched/features.h v4.x-v6.5:
//
//   - update_curr: vruntime += calc_delta_fair(Δexec); min_vruntime =
//     max(min_vruntime, min(curr.vruntime, leftmost.vruntime));
//   - __sched_period: sched_latency, or nr × min_granularity when
//     nr > sched_nr_latency (8); sched_slice = period × w / W (W the
//     runqueue weight, the entity included);
//   - place_entity: a new task at min_vruntime + vslice (START_DEBIT); a
//     waking task at max(its vruntime, min_vruntime − sched_latency),
//     halved with GENTLE_FAIR_SLEEPERS;
//   - check_preempt_tick: resched when the task ran longer than its
//     slice, or (after min_granularity) leads the leftmost by more than a
//     slice of vruntime (TICK_LEFTMOST; 2.6.31 had only the first rule);
//   - check_preempt_wakeup / wakeup_preempt_entity: the wakee preempts
//     when curr.vruntime − wakee.vruntime > calc_delta_fair(wakeup_granularity,
//     wakee) (WAKEUP_PREEMPTION); NEXT_BUDDY marks the wakee, LAST_BUDDY
//     the preempted task;
//   - pick_next_entity: the leftmost, or the next buddy, then the last
//     buddy, when it is within wakeup_granularity of the leftmost;
//   - migration: vruntime is made relative to min_vruntime on dequeue and
//     absolute again on the new CPU (migrate_task_rq_fair);
//   - placement and balancing (fairsmp.go): with WA_PELT (the default and
//     era=6.2) on PELT loads, as CFS has had them since per-entity load
//     tracking (Linux 3.8; wake_affine_weight, wake_wide and the v5.5 load
//     balance in kernel/sched/fair.c v6.2 read the same figures as v6.18's,
//     which eevdf models); the 2.6.23 and 2.6.31 eras turn it off and use
//     the queued weights, 2.6.31 with its cpu_load history and LB_BIAS;
//   - task groups and CFS bandwidth control (cfs_group.go), after
//     kernel/sched/fair.c v6.5: a scheduling entity and runqueue per group
//     and CPU, all of the above on every level.
//
// sysctl defaults, scaled by 1 + ilog2(min(ncpus, 8)) (sched_init_granularity):
// sched_latency 6 ms, min_granularity 0.75 ms, wakeup_granularity 1 ms.

// CFSParams lists the cfs parameters and features with their defaults.
var CFSParams = []Param{
	{Name: "latency", Kind: ParamDuration, Default: "", Doc: "sysctl_sched_latency: 6 ms × (1+ilog2(min(ncpus,8)))", Source: "kernel/sched/fair.c v5.10; range 0.1 ms-1 s: min/max_sched_granularity_ns, kernel/sysctl.c v5.10", Min: 100_000, Max: 1_000_000_000},
	{Name: "min_granularity", Kind: ParamDuration, Default: "", Doc: "sysctl_sched_min_granularity: 0.75 ms × factor", Source: "kernel/sched/fair.c v5.10; range 0.1 ms-1 s: min/max_sched_granularity_ns, kernel/sysctl.c v5.10", Min: 100_000, Max: 1_000_000_000},
	{Name: "wakeup_granularity", Kind: ParamDuration, Default: "", Doc: "sysctl_sched_wakeup_granularity: 1 ms × factor", Source: "kernel/sched/fair.c v5.10; range 0-1 s: min/max_wakeup_granularity_ns, kernel/sysctl.c v5.10", Min: 0, Max: 1_000_000_000},
	{Name: "nr_latency", Kind: ParamInt, Default: "8", Doc: "sched_nr_latency: tasks before the period stretches (at least 1)", Source: "kernel/sched/fair.c v5.10", Min: 1, Max: math.MaxInt64},
	{Name: "START_DEBIT", Kind: ParamFeature, Default: "on", Doc: "a new task starts one vslice behind", Source: "kernel/sched/features.h v5.10"},
	{Name: "GENTLE_FAIR_SLEEPERS", Kind: ParamFeature, Default: "on", Doc: "sleeper credit is half of sched_latency", Source: "kernel/sched/features.h v5.10"},
	{Name: "NEXT_BUDDY", Kind: ParamFeature, Default: "off", Doc: "prefer the last woken task", Source: "kernel/sched/features.h v5.10"},
	{Name: "LAST_BUDDY", Kind: ParamFeature, Default: "on", Doc: "prefer the task preempted by a wakeup", Source: "kernel/sched/features.h v5.10"},
	{Name: "WAKEUP_PREEMPTION", Kind: ParamFeature, Default: "on", Doc: "wakeups may preempt the current task", Source: "kernel/sched/features.h v5.10"},
	{Name: "H_LOAD", Kind: ParamFeature, Default: "off",
		Doc:    "not a features.h flag: with task groups, balancing and wake_affine_weight on hierarchical PELT loads, as the kernel has them: a CPU's load is the sum of its root-level entities' load_avg (a group entity counts its calc_group_shares weight × its runnable average), a task's migration load its task_h_load; off: each task counts its own load_avg, as without groups; off by default in cfs for now: on, the task placement of the group traces matches the kernel's (grpw.eq.2cpu, grpq.q25), but the cfs developer-set count drops from 84 to 81 of 140, the request service's switch excess on its CPU (known gap G10) no longer hidden by the wrong placement",
		Source: "kernel/sched/fair.c v6.5 cpu_load, update_cfs_rq_h_load, task_h_load, update_tg_cfs_load, detach_tasks (migrate_load), wake_affine_weight; update_cfs_rq_h_load the same in the context of a Nov 2024 patch to fair.c (v6.13 era)"},
	// 2.6.31-era variants: the sched_features and sched-domain
	// flags of kernel/sched_fair.c, kernel/sched_features.h and
	// include/linux/topology.h v2.6.31. Defaults keep the v5.10 behaviour.
	{Name: "TICK_LEFTMOST", Kind: ParamFeature, Default: "on",
		Doc: "not a features.h flag: check_preempt_tick's second rule (after min_granularity, resched when the task leads the " +
			"leftmost by more than its slice); off: only the slice rule, as in v2.6.31",
		Source: "kernel/sched_fair.c v5.10 check_preempt_tick; absent from kernel/sched_fair.c v2.6.31.14, where check_preempt_tick " +
			"only compares the time run with sched_slice"},
	{Name: "NEW_FAIR_SLEEPERS", Kind: ParamFeature, Default: "on", Doc: "waking tasks get sleeper credit (off: vruntime = max(own, min_vruntime))", Source: "kernel/sched_features.h v2.6.31"},
	{Name: "LB_BIAS", Kind: ParamFeature, Default: "off", Doc: "balance on biased loads: source min(cpu_load[idx], now), target max(cpu_load[idx], now); on in v2.6.31", Source: "kernel/sched_features.h v2.6.31, source_load/target_load in kernel/sched.c"},
	{Name: "newidle_idx", Kind: ParamInt, Default: "0", Doc: "cpu_load[] history index (0-4, decay 2^idx ticks) of newly idle and idle balancing; 0 is the current load", Source: "include/linux/topology.h v2.6.31 SD_*_INIT newidle_idx/idle_idx", Min: 0, Max: 4},
	{Name: "idle_idx", Kind: ParamInt, Default: "", Doc: "cpu_load[] index (0-4) of periodic balancing on an idle CPU over all CPUs (unset: newidle_idx)", Source: "include/linux/topology.h v2.6.31 SD_CPU_INIT idle_idx 1", Min: 0, Max: 4},
	{Name: "llc_idle_idx", Kind: ParamInt, Default: "", Doc: "cpu_load[] index (0-4) of the same balance within the CPU's LLC (unset: idle_idx)", Source: "include/linux/topology.h v2.6.31 SD_MC_INIT (no idle_idx: 0)", Min: 0, Max: 4},
	{Name: "busy_idx", Kind: ParamInt, Default: "0", Doc: "cpu_load[] history index (0-4) of periodic balancing on a busy CPU (2 in v2.6.31)", Source: "include/linux/topology.h v2.6.31 SD_*_INIT busy_idx", Min: 0, Max: 4},
	{Name: "CACHE_HOT_BUDDY", Kind: ParamFeature, Default: "off", Doc: "with the cpu_load history: the balancer leaves a task that ran within 0.5 ms, or a buddy, until cache_nice_tries (1) balances failed (on in v2.6.31 and later kernels; off keeps the model's default balancer)", Source: "kernel/sched_features.h v2.6.31 CACHE_HOT_BUDDY; task_hot and can_migrate_task in kernel/sched.c v2.6.31; SD_*_INIT cache_nice_tries 1 in include/linux/topology.h v2.6.31"},
	{Name: "NOHZ_LOAD", Kind: ParamFeature, Default: "off", Doc: "with the cpu_load history, CONFIG_NO_HZ as 2.6.31 had it: cpu_load[] moves only with a CPU's own tick; an idle CPU stops its tick and keeps the history of its last busy tick, except the idle load balancer (nohz.load_balancer), which keeps ticking and balances every idle CPU's domains at their idle intervals whatever that CPU's own next_balance (on in era=2.6.31; off: the idle CPUs tick, and one that last balanced busy waits for its next_balance)", Source: "kernel/sched.c v2.6.31 (update_cpu_load called from scheduler_tick only; select_nohz_load_balancer; run_rebalance_domains); kernel/time/tick-sched.c v2.6.31 tick_nohz_stop_sched_tick (\"sched tick not stopped!\" for the idle load balancer) (kernels built with CONFIG_NO_HZ, as arch/x86/configs/x86_64_defconfig of the 2.6.30-2.6.31 kernels was)"},
	{Name: "SD_BALANCE_NEWIDLE", Kind: ParamFeature, Default: "on", Doc: "a CPU about to go idle pulls work", Source: "include/linux/sched.h v2.6.31 sched-domain flags"},
	{Name: "SD_WAKE_AFFINE", Kind: ParamFeature, Default: "on", Doc: "a wakee may move to the waker's CPU (wake_affine)", Source: "include/linux/sched.h v2.6.31 sched-domain flags"},
	{Name: "SD_WAKE_IDLE", Kind: ParamFeature, Default: "on", Doc: "a wakee goes to an idle CPU of the domain when its target is busy (wake_idle / select_idle_sibling)", Source: "include/linux/sched.h v2.6.31 sched-domain flags"},
	// The unscaled sysctl values the era presets (era.go) set; latency,
	// min_granularity and wakeup_granularity, when given, win.
	{Name: "unscaled_latency", Kind: ParamDuration, Default: "6ms", Doc: "sysctl_sched_latency before scaling: latency = this × (1+ilog2(min(ncpus,8)))", Source: "kernel/sched/fair.c v5.10 (20 ms in v2.6.23-v2.6.31, kernel/sched_fair.c)", Min: 100_000, Max: 1_000_000_000},
	{Name: "unscaled_min_granularity", Kind: ParamDuration, Default: "750us", Doc: "sysctl_sched_min_granularity before scaling", Source: "kernel/sched/fair.c v5.10 (4 ms in v2.6.23-v2.6.31)", Min: 100_000, Max: 1_000_000_000},
	{Name: "unscaled_wakeup_granularity", Kind: ParamDuration, Default: "1ms", Doc: "sysctl_sched_wakeup_granularity before scaling", Source: "kernel/sched/fair.c v5.10 (10 ms in v2.6.23, 5 ms in v2.6.31)", Min: 0, Max: 1_000_000_000},
	{Name: "SD_BALANCE_WAKE", Kind: ParamFeature, Default: "off", Doc: "place wakeups like forks, on the least loaded CPU", Source: "include/linux/sched.h v2.6.31 sched-domain flags"},
	bandwidthSliceParam,
}

type cent struct {
	v       int64
	w       int64
	prevSum int64 // SumExec when picked (prev_sum_exec_runtime)
	sum     int64 // a group entity's sum_exec_runtime (a task's is Task.SumExec)
	cpu     int
	queued  bool
	// rel says v is relative to a runqueue's min_vruntime (after a
	// migration dequeue or task_fork_fair), to be made absolute on the
	// next enqueue.
	rel bool
}

// crq is one cfs_rq: the root runqueue of a CPU (g 0) or a group's
// runqueue on that CPU (cfs_group.go). Entity ids are task IDs (>= 0) or
// group entities (<= -2, see CFS.gid); noEnt (-1) is none.
type crq struct {
	q    []int // queued entity ids, the running one included
	curr int
	minV int64
	sumW int64
	next int
	last int
	// skip is 1 + the id of the skip buddy, the entity that called
	// sched_yield (0: none; see Yield).
	skip int
	g    int // group (0: root)
	cpu  int
	rqRuntime
}

// CFS is the cfs policy; build it with NewCFS.
type CFS struct {
	sim   Sim
	rqs   []crq
	e     []cent
	tasks []*Task
	smp   fairSMP

	// Task groups (cfs_group.go): groups[0] the root, nil without
	// groups; grqs and ge hold each non-root group's runqueue and entity
	// per CPU at (g-1)·ncpu + cpu; bwc the bandwidth control; cpath the
	// runqueues whose curr the last pick set on each CPU.
	groups  []Group
	ncpu    int
	grqs    []crq
	ge      []cent
	bwc     bandwidthCtl
	cpath   [][]*crq
	scratch []*crq

	latency, minGran, wakeGran int64
	nrLatency                  int
	startDebit, gentle         bool
	nextBuddy, lastBuddy       bool
	wakePreempt                bool
	noSleepers                 bool // NO_NEW_FAIR_SLEEPERS
	tickLeftmost               bool
	peltWake                   bool // WA_PELT
	hLoad                      bool // H_LOAD
	llc                        int
	era                        smpKnobs
}

// NewCFS returns a cfs policy for cpus CPUs with parameters v.
func NewCFS(v Values, cpus int) *CFS {
	f := ScaleFactor(cpus)
	return &CFS{
		latency:      v.Duration("latency", v.Duration("unscaled_latency", 6_000_000)*f),
		minGran:      v.Duration("min_granularity", v.Duration("unscaled_min_granularity", 750_000)*f),
		wakeGran:     v.Duration("wakeup_granularity", v.Duration("unscaled_wakeup_granularity", 1_000_000)*f),
		nrLatency:    max(v.Int("nr_latency", 8), 1),
		startDebit:   v.Feature("START_DEBIT", true),
		gentle:       v.Feature("GENTLE_FAIR_SLEEPERS", true),
		nextBuddy:    v.Feature("NEXT_BUDDY", false),
		lastBuddy:    v.Feature("LAST_BUDDY", true),
		wakePreempt:  v.Feature("WAKEUP_PREEMPTION", true),
		noSleepers:   !v.Feature("NEW_FAIR_SLEEPERS", true),
		tickLeftmost: v.Feature("TICK_LEFTMOST", true),
		peltWake:     v.Feature("WA_PELT", true),
		hLoad:        v.Feature("H_LOAD", false),
		era:          eraKnobs(v),
		llc:          llcSize(v),
		bwc:          bandwidthCtl{slice: v.Duration("cfs_bandwidth_slice", defaultBandwidthSlice)},
	}
}

func init() {
	Register(Info{
		Name:    "cfs",
		Summary: "Linux 2.6.23-6.5 Completely Fair Scheduler (v5.10 semantics; task groups and CFS bandwidth as in v6.5), RT class above",
		Source:  "kernel/sched/fair.c and features.h v5.10; group scheduling and bandwidth control: kernel/sched/fair.c v6.5",
		Params:  append(append(append([]Param(nil), CFSParams...), SMPParams...), RTThrottleParams...),
		Groups:  true,
		New:     func(v Values, cpus int) (Policy, error) { return NewStack(NewCFS(v, cpus)).throttleFrom(v), nil },
	})
}

// Name implements Policy.
func (p *CFS) Name() string { return "cfs" }

// Init implements Policy.
func (p *CFS) Init(s Sim) {
	p.sim = s
	p.ncpu = s.NumCPUs()
	p.rqs = make([]crq, p.ncpu)
	for i := range p.rqs {
		p.rqs[i] = crq{curr: noEnt, next: noEnt, last: noEnt, cpu: i}
	}
	p.initGroups(s)
	p.smp.init(s, p.migratable, func(c int) int64 { return p.rqs[c].sumW }, p.llc)
	p.smp.knobs = p.era
	if p.peltWake {
		p.smp.usePELT()
	}
	if p.groups != nil && p.hLoad {
		p.smp.useGroups(p.groups, func(g, c int) (bool, int64) {
			ge := p.ent(p.gid(g, c))
			return ge.queued, ge.w
		})
	}
	p.smp.buddy = func(t *Task) bool {
		rq := p.rqOf(t.Group, p.e[t.ID].cpu)
		return rq.next == t.ID || rq.last == t.ID
	}
}

func (p *CFS) migratable(cpu int) []*Task {
	if p.groups != nil {
		return p.migratableGroups(cpu)
	}
	var out []*Task
	for _, id := range p.rqs[cpu].q {
		if id != p.rqs[cpu].curr {
			out = append(out, p.tasks[id])
		}
	}
	return out
}

// TaskNew implements Policy.
func (p *CFS) TaskNew(t *Task) {
	for len(p.e) <= t.ID {
		p.e = append(p.e, cent{cpu: -1})
		p.tasks = append(p.tasks, nil)
	}
	p.tasks[t.ID] = t
	p.e[t.ID] = cent{w: t.Weight, cpu: -1}
	if t.Parent != nil && t.Parent.ID < len(p.e) && p.e[t.Parent.ID].cpu >= 0 {
		p.forkPlace(t)
	}
}

// forkPlace is task_fork_fair (kernel/sched/fair.c v5.10): the child
// starts at its parent's vruntime, place_entity(initial) on the parent's
// runqueue puts it at least one vslice (START_DEBIT) past that queue's
// min_vruntime, and the result is made relative to that min_vruntime;
// the first enqueue (wake_up_new_task, enqueue_entity's renormalisation)
// adds the min_vruntime of the CPU the child lands on. 2.6.31's
// task_new_fair places the child on the target runqueue directly (after
// set_task_cpu moved the vruntime by the difference of the two
// min_vruntimes), which gives the same value.
func (p *CFS) forkPlace(t *Task) {
	par := &p.e[t.Parent.ID]
	rq := p.rqOf(t.Parent.Group, par.cpu)
	e := &p.e[t.ID]
	v := rq.minV
	if p.startDebit {
		v += CalcDelta(p.slice(rq, e.w, false), e.w)
	}
	pv := par.v
	if par.rel { // the parent is between runqueues (not queued)
		pv += rq.minV
	}
	e.v = max(pv, v) - rq.minV
	e.rel = true
}

// period is __sched_period(nr).
func (p *CFS) period(nr int) int64 {
	if nr > p.nrLatency {
		return int64(nr) * p.minGran
	}
	return p.latency
}

// slice is sched_slice for an entity of weight w on rq; queued says
// whether it is already counted in the runqueue. Below the root it is
// scaled by each group entity's share of the runqueue above it
// (for_each_sched_entity in sched_slice, kernel/sched/fair.c v6.5).
func (p *CFS) slice(rq *crq, w int64, queued bool) int64 {
	nr, W := len(rq.q), rq.sumW
	if !queued {
		nr++
		W += w
	}
	if W == 0 {
		return p.period(nr)
	}
	s := p.period(nr) * w / W
	for ; rq.g != 0; rq = p.parentRq(rq) {
		s = p.groupSlice(rq, s)
	}
	return s
}

// leftmost is the queued entity of rq with the smallest vruntime, skip
// left out (ties by id); noEnt when there is none.
func (p *CFS) leftmost(rq *crq, skip int) int {
	best, found := noEnt, false
	var bv int64
	for _, id := range rq.q {
		if id == skip {
			continue
		}
		if v := p.ent(id).v; !found || v < bv || v == bv && id < best {
			best, bv, found = id, v, true
		}
	}
	return best
}

func (p *CFS) updateMin(rq *crq) {
	v := rq.minV
	have := false
	if rq.curr != noEnt && p.ent(rq.curr).queued {
		v, have = p.ent(rq.curr).v, true
	}
	if l := p.leftmost(rq, rq.curr); l != noEnt {
		if lv := p.ent(l).v; !have || lv < v {
			v = lv
		}
		have = true
	}
	if have && v > rq.minV {
		rq.minV = v
	}
}

// SelectCPU implements Policy.
func (p *CFS) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	return p.smp.selectCPU(t, prev, waker, flags)
}

// Enqueue implements Policy: enqueue_entity on the task's group runqueue
// of cpu, then the group entities above it (enqueueUp).
func (p *CFS) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	rq := p.rqOf(t.Group, cpu)
	e := &p.e[t.ID]
	forked := e.rel && flags&EnqueueInitial != 0
	switch {
	case e.rel:
		e.v += rq.minV // relative to absolute on this runqueue
		e.rel = false
	case flags&EnqueueMigrated != 0 && e.cpu >= 0 && e.cpu != cpu:
		// A sleeping task woken onto another CPU: migrate_task_rq_fair
		// (v5.10) subtracts the old runqueue's min_vruntime, enqueue_entity
		// adds the new one's (2.6.31: set_task_cpu does both).
		e.v += rq.minV - p.rqOf(t.Group, e.cpu).minV
	case flags&(EnqueueMigrated|EnqueueInitial) != 0:
		e.v += rq.minV // never queued before: its vruntime is 0 relative
	}
	switch {
	case forked:
		// placed by task_fork_fair
	case flags&EnqueueInitial != 0:
		v := rq.minV
		if p.startDebit {
			v += CalcDelta(p.slice(rq, e.w, false), e.w)
		}
		e.v = max(e.v, v)
	case flags&EnqueueWakeup != 0:
		p.placeWakeup(rq, e)
	}
	e.cpu = cpu
	p.addEnt(rq, t.ID, e)
	p.smp.peltEnqueue(t, cpu)
	if rq.g != 0 {
		p.enqueueUp(rq)
		p.smp.peltGroups(cpu)
	}
}

// placeWakeup is place_entity(initial = 0): a waking entity at
// max(its vruntime, min_vruntime − sched_latency), the credit halved
// with GENTLE_FAIR_SLEEPERS.
func (p *CFS) placeWakeup(rq *crq, e *cent) {
	thresh := p.latency
	if p.gentle {
		thresh /= 2
	}
	if p.noSleepers {
		thresh = 0
	}
	e.v = max(e.v, rq.minV-thresh)
}

// addEnt queues entity id on rq (account_entity_enqueue).
func (p *CFS) addEnt(rq *crq, id int, e *cent) {
	rq.q = append(rq.q, id)
	rq.sumW += e.w
	e.queued = true
	p.updateMin(rq)
}

// removeEnt takes entity id off rq, its buddies and curr mark with it.
func (p *CFS) removeEnt(rq *crq, id int, e *cent) {
	for i, x := range rq.q {
		if x == id {
			rq.q = append(rq.q[:i], rq.q[i+1:]...)
			break
		}
	}
	rq.sumW -= e.w
	e.queued = false
	if rq.next == id {
		rq.next = noEnt
	}
	if rq.last == id {
		rq.last = noEnt
	}
	if rq.skip == id+1 {
		rq.skip = 0
	}
	if rq.curr == id {
		rq.curr = noEnt
	}
	p.updateMin(rq)
}

// Dequeue implements Policy: dequeue_entity of the task, then of each
// group entity whose runqueue it left empty (dequeueUp).
func (p *CFS) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	rq := p.rqOf(t.Group, cpu)
	e := &p.e[t.ID]
	if !e.queued {
		return
	}
	p.removeEnt(rq, t.ID, e)
	p.smp.peltDequeue(t.ID, flags&DequeueSleep != 0)
	if flags&DequeueSleep == 0 {
		e.v -= rq.minV // absolute to relative for the move
		e.rel = true
	}
	if rq.g != 0 {
		p.dequeueUp(rq, flags&DequeueSleep != 0)
		p.smp.peltGroups(cpu)
	}
}

// preemptEntity is wakeup_preempt_entity(curr, se): -1, 0 or 1, the
// granularity in se's virtual time (wakeup_gran).
func (p *CFS) preemptEntity(curr, se int) int {
	vdiff := p.ent(curr).v - p.ent(se).v
	if vdiff <= 0 {
		return -1
	}
	if vdiff > CalcDelta(p.wakeGran, p.ent(se).w) {
		return 1
	}
	return 0
}

// pickEntity is pick_next_entity on one runqueue: the leftmost, or the
// last buddy, or the next buddy, when within wakeup_granularity of the
// leftmost; both buddies are cleared.
//
// The skip buddy (a task that yielded) is passed over for the entity
// after it in vruntime order, the running one included, when that one is
// within wakeup_granularity of it (pick_next_entity, kernel/sched/fair.c
// v6.5: "Avoid running the skip buddy, if running something else can be
// done without getting too unfair"); it is cleared with the others.
func (p *CFS) pickEntity(rq *crq) int {
	left := p.leftmost(rq, noEnt)
	se := left
	if rq.skip != 0 && rq.skip-1 == se {
		if second := p.leftmost(rq, se); second != noEnt && p.preemptEntity(second, left) < 1 {
			se = second
		}
	}
	rq.skip = 0
	if rq.last != noEnt && p.ent(rq.last).queued && p.preemptEntity(rq.last, left) < 1 {
		se = rq.last
	}
	if rq.next != noEnt && p.ent(rq.next).queued && p.preemptEntity(rq.next, left) < 1 {
		se = rq.next
	}
	rq.next, rq.last = noEnt, noEnt
	return se
}

// setCurr is set_next_entity: an entity newly picked on rq starts a new
// slice (prev_sum_exec_runtime).
func (p *CFS) setCurr(rq *crq, id int) {
	if id != rq.curr {
		e := p.ent(id)
		if id >= 0 {
			e.prevSum = p.tasks[id].SumExec
		} else {
			e.prevSum = e.sum
		}
	}
	rq.curr = id
	p.updateMin(rq)
}

// PickNext implements Policy (pick_next_entity with buddies; with groups,
// on each level from the root down, pickGroups).
func (p *CFS) PickNext(cpu int, prev *Task) *Task {
	if p.groups != nil {
		t := p.pickGroups(cpu, prev)
		p.smp.peltGroups(cpu)
		return t
	}
	rq := &p.rqs[cpu]
	if len(rq.q) == 0 {
		rq.curr = noEnt
		p.smp.peltRun(cpu, -1)
		return nil
	}
	se := p.pickEntity(rq)
	p.setCurr(rq, se)
	p.smp.peltRun(cpu, se)
	return p.tasks[se]
}

// CheckPreemptWakeup implements Policy (check_preempt_wakeup; with
// groups, checkPreemptGroups).
func (p *CFS) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	if curr.Class == ClassIdle && t.Class != ClassIdle {
		return true
	}
	if p.groups != nil {
		return p.checkPreemptGroups(cpu, curr, t, flags)
	}
	rq := &p.rqs[cpu]
	if p.nextBuddy && flags&WakeFork == 0 {
		rq.next = t.ID
	}
	// Batch and idle tasks do not preempt (check_preempt_wakeup's
	// p->policy != SCHED_NORMAL, kernel/sched/fair.c v5.x-v6.5).
	if !p.wakePreempt || t.Class == ClassIdle || t.Batch {
		return false
	}
	if p.preemptEntity(curr.ID, t.ID) == 1 {
		rq.next = t.ID
		if p.lastBuddy {
			rq.last = curr.ID
		}
		return true
	}
	return false
}

// Yield implements Yielder: yield_task_fair (kernel/sched/fair.c v6.5,
// the last CFS): with the task alone on its CPU (rq->nr_running == 1)
// nothing; else its buddies are cleared (clear_buddies), update_curr has
// charged it (the simulator's progress before the call; SCHED_BATCH skips
// that in the kernel, which this model does not tell apart), and it
// becomes the skip buddy (set_skip_buddy), which pickEntity passes over.
// set_skip_buddy marks each level up the hierarchy; here the task's own
// runqueue is marked, which is all of it without task groups (with them
// pickGroups does not look at skip: a yield there is a plain reschedule).
func (p *CFS) Yield(cpu int, curr *Task) {
	e := &p.e[curr.ID]
	if !e.queued || p.sim.NrRunning(cpu) <= 1 {
		return
	}
	rq := p.rqOf(curr.Group, e.cpu)
	if rq.next == curr.ID {
		rq.next = noEnt
	}
	if rq.last == curr.ID {
		rq.last = noEnt
	}
	rq.skip = curr.ID + 1
}

// UpdateCurr implements Policy (update_curr on each level from the task
// up, with the group runqueues' bandwidth accounting).
func (p *CFS) UpdateCurr(cpu int, curr *Task, delta int64) {
	e := &p.e[curr.ID]
	if !e.queued {
		return
	}
	rq := p.rqOf(curr.Group, cpu)
	for {
		e.v += CalcDelta(delta, e.w)
		p.updateMin(rq)
		if rq.g == 0 {
			return
		}
		if p.bwc.limited(rq.g) {
			p.bwc.account(rq.g, &rq.rqRuntime, delta, rq.curr != noEnt, rq.cpu)
		}
		e = p.ent(p.gid(rq.g, rq.cpu))
		rq = p.parentRq(rq)
		if !e.queued {
			return
		}
		e.sum += delta
	}
}

// Tick implements Policy: entity_tick on each level from the task up,
// check_preempt_tick where more than one entity is queued and, for a
// group entity, update_cfs_group first.
func (p *CFS) Tick(cpu int, curr *Task) bool {
	e := &p.e[curr.ID]
	if !e.queued {
		return false
	}
	id, rq := curr.ID, p.rqOf(curr.Group, cpu)
	if rq.g != 0 {
		defer p.smp.peltGroups(cpu)
	}
	resched := false
	for {
		if id < 0 {
			p.updateShares(p.groupRq(id))
		}
		if len(rq.q) > 1 && p.tickPreempt(rq, id) {
			resched = true
		}
		if rq.g == 0 {
			return resched
		}
		id = p.gid(rq.g, rq.cpu)
		rq = p.parentRq(rq)
		if !p.ent(id).queued {
			return resched
		}
	}
}

// tickPreempt is check_preempt_tick for entity id running on rq: resched
// when it ran longer than its slice, or (after min_granularity, with
// TICK_LEFTMOST) leads the leftmost by more than a slice of vruntime.
func (p *CFS) tickPreempt(rq *crq, id int) bool {
	e := p.ent(id)
	ideal := p.slice(rq, e.w, true)
	sum := e.sum
	if id >= 0 {
		sum = p.tasks[id].SumExec
	}
	ran := sum - e.prevSum
	if ran > ideal {
		return true
	}
	if !p.tickLeftmost || ran < p.minGran {
		return false
	}
	l := p.leftmost(rq, id)
	return l != noEnt && e.v-p.ent(l).v > ideal
}

// Balance implements Policy.
func (p *CFS) Balance(cpu int, kind BalanceKind) { p.smp.balance(cpu, kind) }

// TaskDead implements Policy.
func (p *CFS) TaskDead(t *Task) {}
