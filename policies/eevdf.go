package policies

import "math/bits"

// EEVDF, the fair class of Linux 6.6 and later (kernel/sched/fair.c,
// v6.6 through v6.18; Stoica and Abdel-Wahab, "Earliest Eligible Virtual
// Deadline First", ODU TR-95-22, 1995). Per-CPU runqueue state:
//
//   - V = avg_vruntime() = v0 + Σ(v_i − v0)·w_i / Σw_i over the queued
//     entities (the running one included), floor division;
//   - entity_eligible: Σ(v_j − v0)·w_j ≥ (v_i − v0)·Σw_j, i.e. V ≥ v_i;
//   - update_curr: v += calc_delta_fair(Δexec); update_deadline: when
//     v ≥ deadline, deadline = v + calc_delta_fair(slice) and resched if
//     more than one entity is queued — only at a tick or another
//     scheduling event (no HRTICK), so a slice rounds up to ticks;
//   - pick_eevdf: the eligible entity with the earliest deadline (ties
//     among the queued ones by vruntime; the running one only with a
//     strictly earlier deadline), the leftmost if none is eligible; with
//     RUN_TO_PARITY the
//     current entity is kept while eligible until its deadline moves
//     (the 6.6 "vlag == deadline" protection; 6.17 narrowed it to the
//     smallest queued slice, identical when all slices are equal);
//   - update_entity_lag on dequeue: vlag = V − v clamped to
//     ±calc_delta_fair(max(2·slice, TICK_NSEC));
//   - place_entity on enqueue: with PLACE_LAG v = V − vlag·(W + w)/W
//     (W the queued weight), deadline = v + vslice, vslice halved for a new
//     task (PLACE_DEADLINE_INITIAL); PLACE_REL_DEADLINE keeps deadline − v
//     across a migration (6.12);
//   - wakeup_preempt_fair: preempt when pick_eevdf would pick the wakee;
//     PREEMPT_SHORT (6.12) first cancels the slice protection of curr
//     for an eligible wakee with a shorter slice and earlier deadline;
//   - DELAY_DEQUEUE (6.12): a non-eligible task that sleeps stays queued
//     (delayed) until picked or woken, burning off its negative lag;
//     DELAY_ZERO clips a positive lag to 0 when it finally leaves.
//
// base_slice: sysctl_sched_base_slice = 0.70 ms × (1 + ilog2(min(ncpus, 8)))
// since commit 2ae891b82695 ("sched: Reduce the default slice to avoid
// tasks getting an extra tick", Linux 6.15); 0.75 ms × the same factor in
// 6.6 to 6.14 (sched_init_granularity / update_sysctl in fair.c,
// SCHED_TUNABLESCALING_LOG). The recording kernel of the shared traces is
// 6.18, hence the 0.70 ms default; eevdf:base_slice=1.5ms gives the 6.6
// value on 2 CPUs.

// Slice limits for a custom slice (sched_attr.sched_runtime), Linux 6.12
// kernel/sched/syscalls.c: clamp to [0.1 ms, 100 ms].
const (
	minCustomSlice = 100_000
	maxCustomSlice = 100_000_000
)

// ScaleFactor returns the kernel's sysctl scaling factor for ncpus CPUs
// under SCHED_TUNABLESCALING_LOG (the default): 1 + ilog2(min(ncpus, 8))
// (kernel/sched/fair.c get_update_sysctl_factor).
func ScaleFactor(ncpus int) int64 {
	if ncpus > 8 {
		ncpus = 8
	}
	if ncpus < 1 {
		ncpus = 1
	}
	return int64(1 + bits.Len(uint(ncpus)) - 1)
}

type eent struct {
	v, deadline, vlag, slice, w int64
	relDeadline                 int64
	cpu                         int
	queued, delayed, protect    bool
	rel                         bool
	limbo                       bool // 6.18 task-based throttling: dequeued onto its cfs_rq's limbo list

	// The timeline links (eevdf_tree.go): tl and tr the children (noEnt:
	// none); minID the (v, id)-smallest entity of the subtree, minV its v.
	tl, tr, minID int
	minV          int64
}

// erq is one cfs_rq: the root runqueue of a CPU (g 0) or a group's
// runqueue on that CPU. Entity ids are task IDs (>= 0) or group entities
// (< 0, see EEVDF.gid).
type erq struct {
	q    []int // queued entity ids (running and delayed included), in queueing order
	curr int   // the picked entity id, noEnt when none
	// root is the timeline of the queued entities (eevdf_tree.go) but
	// aside, the one last charged (noEnt: none), kept while timeline is
	// set; p resolves entity ids.
	root, aside int
	timeline    bool
	p           *EEVDF
	v0          int64
	sumW        int64
	sumWK       int64 // Σ (v - v0)·w
	g           int   // group (0: root)
	cpu         int
	// CFS bandwidth (groups with a quota, see eevdf_group.go): rr is
	// runtime_remaining in ns; throttled since throttledAt; limbo holds
	// the tasks 6.18's task-based throttling took off the queue, the last
	// throttled first (throttled_limbo_list, see EEVDF.enterLimbo).
	rqRuntime
	limbo []int
}

// noEnt marks "no entity" in erq.curr (entity ids are task IDs >= 0 and
// group entities <= -2, see EEVDF.gid).
const noEnt = -1

// EEVDF is the eevdf policy; build it with NewEEVDF.
type EEVDF struct {
	sim   Sim
	rqs   []erq
	e     []eent
	tasks []*Task
	smp   fairSMP

	// Task groups (eevdf_group.go): groups[0] the root; grqs and ge hold
	// each non-root group's runqueue and entity per CPU, at
	// (g-1)·ncpu + cpu; bwc the bandwidth control (bandwidth.go); cpath the
	// runqueues whose curr is set on each CPU.
	groups  []Group
	ncpu    int
	grqs    []erq
	ge      []eent
	bwc     bandwidthCtl
	cpath   [][]*erq
	scratch []*erq
	migBuf  []*Task // migratable's result, reused
	// pend holds, per CPU, run time of its current task charged at the
	// task's own level by UpdateCurrOwn and not yet to the group entities
	// above it (ns).
	pend []int64

	baseSlice    int64
	tick         int64
	placeLag     bool
	placeInit    bool
	relDL        bool
	runParity    bool
	preShort     bool
	delayDeq     bool
	delayZero    bool
	wakePreempt  bool
	tickPick     bool
	protResched  bool
	wakeDequeue  bool // WAKEUP_DEQUEUE_DELAYED
	peltWake     bool
	hLoad        bool
	taskThrottle bool
	llc          int
}

// EEVDFParams lists the eevdf parameters and features with their defaults.
var EEVDFParams = []Param{
	{Name: "base_slice", Kind: ParamDuration, Default: "",
		Doc:    "base slice (sysctl_sched_base_slice); default 0.70 ms × (1+ilog2(min(ncpus,8))), 1.4 ms on 2 CPUs; 0.1-100 ms, the range the kernel allows a task's slice",
		Source: "kernel/sched/fair.c v6.15+ (commit 2ae891b82695); 0.75 ms × factor in v6.6-v6.14; range: kernel/sched/syscalls.c v6.12 sched_attr slice clamp",
		Min:    minCustomSlice, Max: maxCustomSlice},
	{Name: "unscaled_base_slice", Kind: ParamDuration, Default: "700us",
		Doc:    "sysctl_sched_base_slice before scaling: base_slice = this × (1+ilog2(min(ncpus,8))) unless base_slice is set",
		Source: "kernel/sched/fair.c v6.15+ (0.70 ms, commit 2ae891b82695); 0.75 ms in v6.6-v6.14 and the 6.3-rc postings",
		Min:    minCustomSlice, Max: maxCustomSlice},
	{Name: "PLACE_LAG", Kind: ParamFeature, Default: "on", Doc: "keep a task's lag across sleep and migration", Source: "kernel/sched/features.h v6.6"},
	{Name: "PLACE_DEADLINE_INITIAL", Kind: ParamFeature, Default: "on", Doc: "a new task starts half-way through its slice", Source: "kernel/sched/features.h v6.6"},
	{Name: "PLACE_REL_DEADLINE", Kind: ParamFeature, Default: "on", Doc: "keep deadline-vruntime across a migration", Source: "kernel/sched/features.h v6.12"},
	{Name: "RUN_TO_PARITY", Kind: ParamFeature, Default: "on", Doc: "keep the current task while eligible until its slice ends", Source: "kernel/sched/features.h v6.6"},
	{Name: "PREEMPT_SHORT", Kind: ParamFeature, Default: "on", Doc: "a shorter-slice wakee cancels RUN_TO_PARITY", Source: "kernel/sched/features.h v6.12"},
	{Name: "DELAY_DEQUEUE", Kind: ParamFeature, Default: "on", Doc: "non-eligible sleepers stay queued to burn off negative lag", Source: "kernel/sched/features.h v6.12"},
	{Name: "DELAY_ZERO", Kind: ParamFeature, Default: "on", Doc: "clip positive lag to 0 when a delayed task leaves or wakes", Source: "kernel/sched/features.h v6.12"},
	{Name: "WAKEUP_PREEMPTION", Kind: ParamFeature, Default: "on", Doc: "wakeups may preempt the current task", Source: "kernel/sched/features.h v6.6"},
	{Name: "H_LOAD", Kind: ParamFeature, Default: "on",
		Doc:    "not a features.h flag: with task groups, balancing and wake_affine_weight on hierarchical PELT loads, as the kernel has them: a CPU's load is the sum of its root-level entities' load_avg (a group entity counts its calc_group_shares weight × its runnable average), a task's migration load its task_h_load; off: each task counts its own load_avg, as without groups",
		Source: "kernel/sched/fair.c v6.5 cpu_load, update_cfs_rq_h_load, task_h_load, update_tg_cfs_load, detach_tasks (migrate_load), wake_affine_weight; update_cfs_rq_h_load the same in the context of a Nov 2024 patch to fair.c (v6.13 era)"},
	{Name: "PROTECT_RESCHED", Kind: ParamFeature, Default: "on",
		Doc: "not a features.h flag: update_curr reschedules whenever the current task's slice protection is over and " +
			"another task is queued (at a wakeup onto its CPU, the tick, its own accounting), so the next pick may take " +
			"another task although the current one's deadline has not moved; off: only when its deadline moves (before 6.17)",
		Source: "kernel/sched/fair.c v6.17+ update_curr (resched || !protect_slice(curr)), from \"sched/fair: Limit run to " +
			"parity to the min slice of enqueued entities\" (Vincent Guittot, 2025)"},
	{Name: "WAKEUP_DEQUEUE_DELAYED", Kind: ParamFeature, Default: "on",
		Doc: "not a features.h flag: the wakeup preemption check picks as a pick does, so a delayed entity it finds is " +
			"dequeued then (its lag clipped by DELAY_ZERO) and the pick repeated; off: a delayed entity found there keeps " +
			"the current task running (6.12 to the fix)",
		Source: "upstream commit ac8e69e69363 \"sched/fair: Fix wakeup_preempt_fair() vs delayed dequeue\" (Vincent Guittot, " +
			"2026; Fixes: f12e148892ed, v6.12), in 7.0.y stable; the recording kernel of the shared traces (6.18.44) " +
			"does it: measured with BPF probes on sched_wakeup and sched_switch (docs/replay.md, G12)"},
	{Name: "TICK_PICK", Kind: ParamFeature, Default: "off",
		Doc: "not a features.h flag: the tick preemption of the 6.3-rc EEVDF series, check_preempt_tick rescheduling at every tick " +
			"(more than one task queued) when pick_eevdf would not pick the current task, and the end of a request moving the " +
			"deadline without a resched; off: the merged code (v6.6+), which reschedules only when the request is used up (update_deadline)",
		Source: "the series posted 2023-03-28: [PATCH 11/17] sched: Commit to EEVDF (check_preempt_tick: resched_curr when " +
			"pick_eevdf(cfs_rq) != curr; before it, the same under sched_feat(EEVDF)); the 2023-03-06 posting (00/10) is " +
			"taken to tick the same way, not checked; replaced by the fix in " +
			"Peter Zijlstra, LKML 2023-04-20, <20230420150537.GC4253@hirez.programming.kicks-ass.net> (\"Re: schbench v1.0\"), " +
			"merged with the 2023-05-31 posting"},
	{Name: "TASK_THROTTLE", Kind: ParamFeature, Default: "on",
		Doc: "not a features.h flag: CFS bandwidth throttles tasks one by one as they next leave the CPU (6.18 task-based " +
			"throttling: the throttled group stays queued, each task picked from it goes to a limbo list); off: throttling " +
			"dequeues the group's entity on that CPU at once (v6.17 and earlier)",
		Source: "kernel/sched/fair.c v6.18, \"sched/fair: Task based throttle time accounting\" and \"Defer throttling when tasks " +
			"exit to user-space\" (Valentin Schneider, Aaron Lu, 2025); throttle_cfs_rq/dequeue of the group se in v6.6-v6.17"},
	bandwidthSliceParam,
}

// DefaultBaseSlice returns the default base slice in ns for ncpus CPUs on
// Linux 6.15+: 0.70 ms × ScaleFactor(ncpus).
func DefaultBaseSlice(ncpus int) int64 { return 700_000 * ScaleFactor(ncpus) }

// NewEEVDF returns an eevdf policy for cpus CPUs with parameters v.
func NewEEVDF(v Values, cpus int) *EEVDF {
	return &EEVDF{
		baseSlice:    v.Duration("base_slice", v.Duration("unscaled_base_slice", 700_000)*ScaleFactor(cpus)),
		placeLag:     v.Feature("PLACE_LAG", true),
		placeInit:    v.Feature("PLACE_DEADLINE_INITIAL", true),
		relDL:        v.Feature("PLACE_REL_DEADLINE", true),
		runParity:    v.Feature("RUN_TO_PARITY", true),
		preShort:     v.Feature("PREEMPT_SHORT", true),
		delayDeq:     v.Feature("DELAY_DEQUEUE", true),
		delayZero:    v.Feature("DELAY_ZERO", true),
		wakePreempt:  v.Feature("WAKEUP_PREEMPTION", true),
		tickPick:     v.Feature("TICK_PICK", false),
		protResched:  v.Feature("PROTECT_RESCHED", true),
		wakeDequeue:  v.Feature("WAKEUP_DEQUEUE_DELAYED", true),
		peltWake:     v.Feature("WA_PELT", true),
		hLoad:        v.Feature("H_LOAD", true),
		taskThrottle: v.Feature("TASK_THROTTLE", true),
		bwc:          bandwidthCtl{slice: v.Duration("cfs_bandwidth_slice", defaultBandwidthSlice)},
		llc:          llcSize(v),
	}
}

// llcSize reads llc_size: 0 means all CPUs share one LLC.
func llcSize(v Values) int {
	n := v.Int("llc_size", 1)
	if n <= 0 {
		return 1 << 30
	}
	return n
}

func init() {
	Register(Info{
		Name:    "eevdf",
		Summary: "Linux 6.6+ fair class: earliest eligible virtual deadline first, RT class above",
		Source:  "kernel/sched/fair.c v6.6-v6.18; Stoica & Abdel-Wahab TR-95-22 (1995)",
		Params:  append(append(append([]Param(nil), EEVDFParams...), SMPParams...), RTThrottleParams...),
		Groups:  true,
		Slices:  true,
		New:     func(v Values, cpus int) (Policy, error) { return NewStack(NewEEVDF(v, cpus)).throttleFrom(v), nil },
	})
}

// Name implements Policy.
func (p *EEVDF) Name() string { return "eevdf" }

// Init implements Policy.
func (p *EEVDF) Init(s Sim) {
	p.sim = s
	p.ncpu = s.NumCPUs()
	p.rqs = make([]erq, p.ncpu)
	for i := range p.rqs {
		p.rqs[i] = erq{curr: noEnt, cpu: i, root: noEnt, aside: noEnt, p: p}
	}
	p.cpath = make([][]*erq, p.ncpu)
	p.pend = make([]int64, p.ncpu)
	p.initGroups(s)
	p.tick = 1_000_000_000 / int64(s.HZ())
	p.smp.init(s, p.migratable, p.load, p.llc)
	if p.peltWake {
		p.smp.usePELT()
	}
	if len(p.groups) > 1 && p.hLoad {
		p.smp.useGroups(p.groups, func(g, c int) (bool, int64) {
			ge := p.ent(p.gid(g, c))
			return ge.queued, ge.w
		})
	}
}

// migratable lists the tasks the balancer may move off cpu: queued, not
// running, not delayed, on cpu's root runqueue and then each group's in
// group order. The slice is reused by the next call.
func (p *EEVDF) migratable(cpu int) []*Task {
	out := p.migBuf[:0]
	for g := 0; g == 0 || g < len(p.groups); g++ {
		rq := p.rqOf(g, cpu)
		if p.throttledUp(rq) {
			continue // throttled_lb_pair (v6.17-) / not on the queue (v6.18)
		}
		for _, id := range rq.q {
			if id >= 0 && id != rq.curr && !p.e[id].delayed {
				out = append(out, p.tasks[id])
			}
		}
	}
	p.migBuf = out
	return out
}

func (p *EEVDF) load(cpu int) int64 { return p.rqs[cpu].sumW }

// TaskNew implements Policy.
func (p *EEVDF) TaskNew(t *Task) {
	for len(p.e) <= t.ID {
		p.e = append(p.e, eent{cpu: -1})
		p.tasks = append(p.tasks, nil)
	}
	p.tasks[t.ID] = t
	p.e[t.ID] = eent{w: t.Weight, slice: p.slice(t), cpu: -1}
}

func (p *EEVDF) slice(t *Task) int64 {
	if t.Slice > 0 {
		return min(max(t.Slice, minCustomSlice), maxCustomSlice)
	}
	return p.baseSlice
}

// avg returns avg_vruntime(): floor of the weighted mean.
func (rq *erq) avg() int64 {
	if rq.sumW == 0 {
		return rq.v0
	}
	a := rq.sumWK
	if a < 0 {
		a -= rq.sumW - 1
	}
	return rq.v0 + a/rq.sumW
}

func (rq *erq) eligible(e *eent) bool { return rq.eligibleV(e.v) }

// eligibleV is entity_eligible for an entity of vruntime v
// (vruntime_eligible, kernel/sched/fair.c v6.8+): Σ(v_j − v0)·w_j ≥
// (v − v0)·Σw_j, i.e. V ≥ v.
func (rq *erq) eligibleV(v int64) bool { return rq.sumWK >= (v-rq.v0)*rq.sumW }

func (rq *erq) add(id int, e *eent) {
	if len(rq.q) == 0 {
		rq.v0 = e.v // rebase the zero point (keeps products small)
		rq.sumWK = 0
	}
	rq.q = append(rq.q, id)
	rq.sumW += e.w
	rq.sumWK += (e.v - rq.v0) * e.w
	e.queued = true
	switch {
	case rq.timeline:
		rq.p.tadd(rq, id, e)
	case len(rq.q) >= timelineOn:
		rq.p.buildTimeline(rq)
	}
}

func (rq *erq) remove(id int, e *eent) {
	// An entity is queued once. The search starts at the end: the one
	// leaving is most often the last queued (two thirds of the 0.93 M
	// removals of an eevdf replay of bench/replaymem's file, from queues
	// of 82 on average).
	for i := len(rq.q) - 1; i >= 0; i-- {
		if rq.q[i] == id {
			rq.q = append(rq.q[:i], rq.q[i+1:]...)
			break
		}
	}
	rq.sumW -= e.w
	rq.sumWK -= (e.v - rq.v0) * e.w
	e.queued = false
	if rq.timeline {
		rq.p.tremove(rq, id, e)
		if len(rq.q) <= timelineOff {
			rq.timeline, rq.root, rq.aside = false, noEnt, noEnt
		}
	}
	if rq.curr == id {
		rq.curr = noEnt
	}
	if len(rq.q) == 0 {
		rq.sumW, rq.sumWK = 0, 0
	}
}

// updateLag is update_entity_lag.
func (p *EEVDF) updateLag(rq *erq, e *eent) {
	lag := rq.avg() - e.v
	limit := CalcDelta(max(2*e.slice, p.tick), e.w)
	e.vlag = min(max(lag, -limit), limit)
}

// place is place_entity; slice is the entity's slice request in ns.
func (p *EEVDF) place(rq *erq, e *eent, slice int64, flags EnqueueFlags) {
	V := rq.avg()
	e.slice = slice
	vslice := CalcDelta(e.slice, e.w)
	var lag int64
	if p.placeLag && len(rq.q) > 0 && e.vlag != 0 {
		lag = e.vlag
		load := rq.sumW
		if load == 0 {
			load = 1
		}
		lag = lag * (load + e.w) / load
	}
	e.v = V - lag
	if p.relDL && e.rel {
		e.deadline = e.v + e.relDeadline
		e.rel = false
		return
	}
	if p.placeInit && flags&EnqueueInitial != 0 {
		vslice /= 2
	}
	e.deadline = e.v + vslice
}

// SelectCPU implements Policy; a delayed task is woken where it is queued
// (ttwu_runnable).
func (p *EEVDF) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	if e := &p.e[t.ID]; e.delayed && t.Affinity.Has(e.cpu) {
		return e.cpu
	}
	return p.smp.selectCPU(t, prev, waker, flags)
}

// Enqueue implements Policy: enqueue_task_fair, the task on its group's
// runqueue of cpu, then each group entity above it that is not queued yet
// (with ENQUEUE_WAKEUP, as enqueue_task_fair sets for the levels above the
// task's, kernel/sched/fair.c v6.18), stopping below a throttled runqueue.
func (p *EEVDF) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	e := &p.e[t.ID]
	if e.delayed {
		old := p.rqOf(t.Group, e.cpu)
		if e.cpu == cpu {
			// requeue_delayed_entity
			e.delayed = false
			if p.delayZero {
				p.updateLag(old, e)
				if e.vlag > 0 {
					old.remove(t.ID, e)
					e.vlag = 0
					p.place(old, e, p.slice(t), 0)
					old.add(t.ID, e)
				}
			}
			return
		}
		p.finishDelayed(old, t.ID, e)
		if old.g != 0 {
			p.smp.peltGroups(old.cpu)
		}
	}
	if e.limbo {
		p.leaveLimbo(t.ID, e)
	}
	rq := p.rqOf(t.Group, cpu)
	p.place(rq, e, p.slice(t), flags)
	rq.add(t.ID, e)
	e.cpu = cpu
	p.smp.peltEnqueue(t, cpu)
	p.enqueueUp(rq)
	if rq.g != 0 {
		p.smp.peltGroups(cpu)
	}
}

// DelayedOn implements DelayedQueue: the CPU whose runqueue holds t while
// its dequeue is delayed.
func (p *EEVDF) DelayedOn(t *Task) (int, bool) {
	if t.ID < 0 || t.ID >= len(p.e) || !p.e[t.ID].delayed {
		return -1, false
	}
	return p.e[t.ID].cpu, true
}

// RequeuesDelayed implements DelayedQueue: t's entity is delayed on cpu,
// or, t's entity not being queued, the first queued group entity above it
// on cpu is delayed (under the v6.17 group dequeue a throttled runqueue
// ends the walk, as enqueueUp stops there).
func (p *EEVDF) RequeuesDelayed(cpu int, t *Task) bool {
	if t.ID < 0 || t.ID >= len(p.e) {
		return false
	}
	if e := &p.e[t.ID]; e.queued {
		return e.delayed && e.cpu == cpu
	}
	if len(p.groups) == 0 {
		return false
	}
	for rq := p.rqOf(t.Group, cpu); rq.g != 0; rq = p.parentRq(rq) {
		if rq.throttled && !p.taskThrottle {
			return false
		}
		if ge := p.ent(p.gid(rq.g, rq.cpu)); ge.queued {
			return ge.delayed
		}
	}
	return false
}

func (p *EEVDF) finishDelayed(rq *erq, id int, e *eent) {
	p.updateLag(rq, e)
	rq.remove(id, e)
	p.smp.peltDequeue(id, true)
	e.delayed = false
	if p.delayZero && e.vlag > 0 {
		e.vlag = 0
	}
	p.dequeueUp(rq, true)
}

// Dequeue implements Policy: dequeue_task_fair, then each group entity
// whose runqueue it left empty.
func (p *EEVDF) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	e := &p.e[t.ID]
	if e.limbo && flags&DequeueMigrate == 0 {
		p.leaveLimbo(t.ID, e)
		return
	}
	if !e.queued {
		return
	}
	rq := p.rqOf(t.Group, e.cpu)
	if flags&DequeueSleep != 0 && p.delayDeq && !rq.eligible(e) {
		e.delayed = true
		if rq.curr == t.ID {
			rq.curr = noEnt
		}
		return
	}
	p.updateLag(rq, e)
	if flags&DequeueMigrate != 0 && p.relDL {
		e.relDeadline, e.rel = e.deadline-e.v, true
	}
	rq.remove(t.ID, e)
	p.smp.peltDequeue(t.ID, flags&DequeueSleep != 0)
	p.dequeueUp(rq, flags&DequeueSleep != 0)
	if rq.g != 0 {
		p.smp.peltGroups(rq.cpu)
	}
}

// PickNext implements Policy: pick_task_fair, pick_eevdf on each level
// from the CPU's root runqueue down to a task; a runqueue found out of
// quota is throttled on the way (check_cfs_rq_runtime), and under 6.18's
// task-based throttling a task picked below a throttled runqueue goes to
// its limbo list instead of running.
func (p *EEVDF) PickNext(cpu int, prev *Task) *Task {
	if len(p.groups) > 1 {
		defer p.smp.peltGroups(cpu)
		if prev != nil {
			p.putPrevBandwidth(cpu, prev)
		}
	}
again:
	rq := &p.rqs[cpu]
	path := p.scratch[:0]
	throttled := false
	for len(rq.q) > 0 {
		id := p.pick(rq, rq.curr)
		path = append(path, rq)
		if id < 0 {
			if p.ent(id).delayed {
				p.finishGroupDelayed(rq, id)
				goto again
			}
			grq := p.groupRq(id)
			if p.checkRuntime(grq) {
				goto again // throttled: the group entity left rq (v6.17-)
			}
			throttled = throttled || grq.throttled
			p.setCurr(rq, id)
			rq = grq
			continue
		}
		e := &p.e[id]
		if e.delayed {
			p.finishDelayed(rq, id, e)
			goto again
		}
		if throttled && p.taskThrottle {
			p.enterLimbo(rq, id, e)
			goto again
		}
		p.setCurr(rq, id)
		p.setPath(cpu, path)
		p.scratch = path
		p.smp.peltRun(cpu, id)
		return p.tasks[id]
	}
	p.setPath(cpu, nil)
	p.smp.peltRun(cpu, -1)
	return nil
}

// setCurr is set_next_entity on one level: RUN_TO_PARITY protects a newly
// picked entity's slice.
func (p *EEVDF) setCurr(rq *erq, id int) {
	if id != rq.curr {
		p.ent(id).protect = true
	}
	rq.curr = id
}

// setPath records the runqueues whose curr the pick set on cpu, and clears
// curr on those of the previous pick that it left (put_prev_entity).
func (p *EEVDF) setPath(cpu int, path []*erq) {
	p.cpath[cpu] = replacePath(p.cpath[cpu], path)
	if len(path) == 0 {
		p.rqs[cpu].curr = noEnt
	}
}

// clearCurr implements pickedRq.
func (rq *erq) clearCurr() { rq.curr = noEnt }

// CheckPreemptWakeup implements Policy (wakeup_preempt_fair): curr's and
// t's entities are compared on the runqueue they share
// (find_matching_se, kernel/sched/fair.c v6.18).
func (p *EEVDF) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	if !p.wakePreempt {
		return false
	}
	if curr.Class == ClassIdle && t.Class != ClassIdle {
		return true
	}
	// BATCH and IDLE tasks do not preempt others (the !normal_policy
	// check of wakeup_preempt_fair, kernel/sched/fair.c v6.12-v6.18, after
	// the idle-entity checks above).
	if t.Class == ClassIdle || t.Batch {
		return false
	}
	cid, tid := curr.ID, t.ID
	rq := p.rqOf(curr.Group, cpu)
	if curr.Group != t.Group {
		var ok bool
		if rq, cid, tid, ok = p.matching(cpu, curr, t); !ok {
			return false
		}
	}
	pe, ce := p.ent(tid), p.ent(cid)
	if p.preShort && pe.slice < ce.slice && rq.eligible(pe) && (pe.deadline < ce.deadline || !rq.eligible(ce)) {
		ce.protect = false
	}
	return p.wakePick(rq, cid) == tid
}

// wakePick is the pick of wakeup_preempt_fair: pick_next_entity, which
// dequeues a delayed entity it finds (dequeue_entities with
// DEQUEUE_DELAYED, DELAY_ZERO clipping its lag) and picks again while
// entities are queued (upstream commit ac8e69e69363, see
// WAKEUP_DEQUEUE_DELAYED). Without the feature it is pick.
func (p *EEVDF) wakePick(rq *erq, curr int) int {
	for {
		id := p.pick(rq, curr)
		if !p.wakeDequeue || id == curr || id == noEnt || !p.ent(id).delayed {
			return id
		}
		if id < 0 {
			p.finishGroupDelayed(rq, id)
		} else {
			p.finishDelayed(rq, id, &p.e[id])
		}
		if len(rq.q) == 0 {
			return noEnt
		}
	}
}

// UpdateCurr implements Policy (update_curr + update_deadline on each
// level from the task up, and the group runqueues' bandwidth accounting).
// The group entities above the task are charged delta plus what
// UpdateCurrOwn left for them on the task's CPU; a level whose charge is 0
// is skipped, as update_curr returns early when delta_exec <= 0.
func (p *EEVDF) UpdateCurr(cpu int, curr *Task, delta int64) {
	e := &p.e[curr.ID]
	if !e.queued {
		if cpu >= 0 && cpu < len(p.pend) {
			p.pend[cpu] = 0
		}
		return
	}
	rq := p.rqOf(curr.Group, e.cpu)
	up := delta
	if e.cpu < len(p.pend) {
		up += p.pend[e.cpu]
		p.pend[e.cpu] = 0
	}
	d, id := delta, curr.ID
	for {
		if d > 0 {
			p.charge(rq, id, e, curr, d)
			if rq.g != 0 && p.bwc.limited(rq.g) {
				p.bwc.account(rq.g, &rq.rqRuntime, d, rq.curr != noEnt, rq.cpu)
			}
		}
		if rq.g == 0 {
			return
		}
		id = p.gid(rq.g, rq.cpu)
		e = p.ent(id)
		rq = p.parentRq(rq)
		if !e.queued {
			return
		}
		curr, d = nil, up
	}
}

// UpdateCurrOwn implements OwnUpdater: the task's own level is charged
// (its entity, and the bandwidth of the group runqueue it is on), the
// levels above later (pend). Without task groups it is UpdateCurr.
func (p *EEVDF) UpdateCurrOwn(cpu int, curr *Task, delta int64) {
	e := &p.e[curr.ID]
	if len(p.groups) == 0 || !e.queued || curr.Group <= 0 || delta <= 0 {
		p.UpdateCurr(cpu, curr, delta)
		return
	}
	rq := p.rqOf(curr.Group, e.cpu)
	p.charge(rq, curr.ID, e, curr, delta)
	if p.bwc.limited(rq.g) {
		p.bwc.account(rq.g, &rq.rqRuntime, delta, rq.curr != noEnt, rq.cpu)
	}
	p.pend[e.cpu] += delta
}

// charge is update_curr and update_deadline of entity id (e) on rq; t is
// the task for a task entity, nil for a group entity. The entity is set
// aside from rq's timeline first, as its key changes.
func (p *EEVDF) charge(rq *erq, id int, e *eent, t *Task, delta int64) {
	if rq.timeline {
		p.holdOut(rq, id, e)
	}
	dv := CalcDelta(delta, e.w)
	e.v += dv
	rq.sumWK += dv * e.w
	if e.v < e.deadline {
		// 6.17+: once its slice protection is over, any update_curr with
		// another task queued reschedules (PROTECT_RESCHED).
		if p.protResched && !(p.runParity && e.protect) && len(rq.q) > 1 && !p.tickPick {
			p.sim.Resched(rq.cpu)
		}
		return
	}
	if t != nil {
		e.slice = p.slice(t)
	}
	e.deadline = e.v + CalcDelta(e.slice, e.w)
	e.protect = false
	if len(rq.q) > 1 && !p.tickPick {
		p.sim.Resched(rq.cpu)
	}
}

// Tick implements Policy: update_curr (already charged) did the work,
// except under TICK_PICK (the 6.3-rc series' check_preempt_tick): with
// more than one task queued, the tick preempts the current task whenever
// pick_eevdf would choose another. With groups, entity_tick also
// refreshes each level's group entity weight (update_cfs_group).
func (p *EEVDF) Tick(cpu int, curr *Task) bool {
	e := &p.e[curr.ID]
	if !e.queued || e.delayed {
		return false
	}
	rq := p.rqOf(curr.Group, e.cpu)
	if rq.g != 0 {
		for r := rq; r.g != 0; r = p.parentRq(r) {
			p.updateShares(r)
		}
		p.smp.peltGroups(rq.cpu)
	}
	if !p.tickPick {
		return false
	}
	return len(rq.q) > 1 && p.pick(rq, curr.ID) != curr.ID
}

// Yield implements Yielder: yield_task_fair (kernel/sched/fair.c v6.18).
// With the task alone on its CPU's runqueue (rq->nr_running == 1) it does
// nothing; else buddies are cleared (this model keeps none under EEVDF),
// update_curr has charged the run (the simulator's progress before the
// call) and, when the entity is eligible, it forfeits the rest of its
// slice: vruntime = deadline, deadline += calc_delta_fair(slice) (commit
// 79104becf42b "sched/fair: Forfeit vruntime on yield", v6.17; v6.6-v6.16
// only moved the deadline, an ineligible entity's included). The change
// is made on the task's own level, where yield_task_fair makes it
// (cfs_rq = task_cfs_rq(curr)).
func (p *EEVDF) Yield(cpu int, curr *Task) {
	e := &p.e[curr.ID]
	if !e.queued || p.sim.NrRunning(cpu) <= 1 {
		return
	}
	rq := p.rqOf(curr.Group, e.cpu)
	if !rq.eligible(e) {
		return
	}
	if rq.timeline {
		p.holdOut(rq, curr.ID, e)
	}
	dv := e.deadline - e.v
	e.v = e.deadline
	rq.sumWK += dv * e.w
	e.deadline += CalcDelta(e.slice, e.w)
	e.protect = false
}

// Balance implements Policy.
func (p *EEVDF) Balance(cpu int, kind BalanceKind) { p.smp.balance(cpu, kind) }

// TaskDead implements Policy.
func (p *EEVDF) TaskDead(t *Task) {}

// pickShort is the start of pick_eevdf: the only queued entity, or curr
// kept by RUN_TO_PARITY (done); else curr is returned as noEnt when it
// cannot run on (not queued, delayed or not eligible).
func (p *EEVDF) pickShort(rq *erq, curr int) (id int, done bool) {
	if len(rq.q) == 1 {
		return rq.q[0], true
	}
	if curr == noEnt {
		return noEnt, false
	}
	if c := p.ent(curr); !c.queued || c.delayed || !rq.eligible(c) {
		return noEnt, false
	}
	return curr, p.runParity && p.ent(curr).protect
}

// pick is pick_eevdf on one runqueue; curr is its running entity or noEnt.
// The queued entities (curr is not in the kernel's tree) are searched for
// the eligible one earliest by deadline, then vruntime, then id: on the
// timeline (eevdf_tree.go) when the runqueue has one, else by a scan. curr
// replaces it only with a strictly earlier deadline (__pick_eevdf's found:
// "if (!best || (curr && entity_before(curr, best))) best = curr",
// entity_before comparing deadlines, kernel/sched/fair.c v6.18), so a woken
// task whose deadline ties curr's runs first. With none eligible, the
// entity of smallest vruntime (ties: smallest id) is returned.
func (p *EEVDF) pick(rq *erq, curr int) int {
	curr, done := p.pickShort(rq, curr)
	if done {
		return curr
	}
	if rq.timeline {
		return p.pickTimeline(rq, curr)
	}
	return p.pickScan(rq, curr)
}

// pickScan is pick after pickShort, by a scan of every queued entity.
func (p *EEVDF) pickScan(rq *erq, curr int) int {
	best, left := noEnt, noEnt
	var be, le *eent
	for _, id := range rq.q {
		e := p.ent(id)
		if le == nil || e.v < le.v || e.v == le.v && id < left {
			left, le = id, e
		}
		if id == curr || !rq.eligible(e) {
			continue
		}
		if be == nil || before(id, e, best, be) {
			best, be = id, e
		}
	}
	if curr != noEnt && (be == nil || p.ent(curr).deadline < be.deadline) {
		return curr
	}
	if be == nil {
		return left
	}
	return best
}

// pickTimeline is pick after pickShort, on rq's timeline.
func (p *EEVDF) pickTimeline(rq *erq, curr int) int {
	best := p.firstEligible(rq, rq.root, curr)
	if a := rq.aside; a != noEnt && a != curr {
		if ea := p.ent(a); rq.eligible(ea) && (best == noEnt || before(a, ea, best, p.ent(best))) {
			best = a
		}
	}
	if curr != noEnt && (best == noEnt || p.ent(curr).deadline < p.ent(best).deadline) {
		return curr
	}
	if best != noEnt {
		return best
	}
	left := rq.aside
	if rq.root != noEnt {
		r := p.ent(rq.root)
		if left == noEnt {
			left = r.minID
		} else if lv := p.ent(left).v; r.minV < lv || r.minV == lv && r.minID < left {
			left = r.minID
		}
	}
	return left
}
