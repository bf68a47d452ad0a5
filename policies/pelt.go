package policies

import "math"

// PELT load tracking (per-entity load tracking, kernel/sched/pelt.c and
// fair.c, Linux 3.8 through 6.18) reduced to what wake_affine_weight reads:
// each task's load_avg is its weight times its runnable average r, a
// geometric series over 1024 µs periods with y^32 = 1/2 (a runnable period
// 32 periods ago counts half), and a CPU's load (cpu_load(), the root
// cfs_rq's load_avg) is the sum of the load_avg of the tasks attached to
// it, runnable or blocked: a task that sleeps leaves its load on the CPU it
// last ran on, decaying, until it runs again (the "blocked load"); a task
// that migrates takes it along (migrate_task_rq_fair ->
// remove_entity_load_avg, attach_entity_load_avg on the new CPU).
//
// The series is followed in continuous time: r decays towards 1 while the
// task is runnable and towards 0 while it sleeps with time constant
// PELTTau, r(t+Δ) = target + (r(t) − target)·e^(−Δ/τ), so a runqueue's
// sums evolve in closed form and every update is O(1). A new task's load
// starts full, r = 1 (init_entity_runnable_average: "seen as heavy tasks
// until they stabilize"), but its runnable and running averages start at
// the util post_init_entity_util_avg gives it (kernel/sched/fair.c v6.18:
// the cfs_rq's util_avg × the task's weight / (the cfs_rq's load_avg + 1),
// at most half the CPU's spare capacity, or that half when the CPU's
// util_avg is 0; runnable_avg = util_avg): the runnable and load series
// have the same dynamics from different starts, so a freshly forked task
// counts fully in cpu_load() but only by its initial util in the runnable
// sum that group_is_overloaded reads.
//
// Task groups (setGroups): the kernel's cpu_load() is the root cfs_rq's
// load_avg, the sum of the load_avg of the entities queued or blocked on
// it, and a group's entity on a CPU counts se_weight × its runnable
// average whatever the tasks below it weigh (update_tg_cfs_load,
// kernel/sched/fair.c v6.5: load_avg = se_weight(se) × load_sum /
// divider, load_sum the unweighted runnable series). So a task of group g
// adds its w·r to g's runqueue on its CPU (peltGrq), not to the CPU's;
// g's entity there is a PELT entity of its own (r toward 1 while the
// policy has it queued, its weight the one calc_group_shares gave it)
// whose w·r goes to its parent's runqueue, the root's being the CPU's.
// Every change stays O(1): a task's enqueue or dequeue touches its group
// runqueue, a group entity's queueing or reweight its parent's (groupEnt),
// and cpu_load() reads the root sums as before; task_h_load (hLoad) walks
// the task's ancestors. The propagation of a task's load into its group
// entity (propagate_entity_load_avg -> update_tg_cfs_load) is reduced to
// its two cases: a task attached to the group's runqueue (new or
// migrated) adds its runnable average to the group entity's, capped at 1,
// and each ancestor's by what that added; a task detached from it caps
// the group entity's at the runqueue's load over its queued weight
// ("assuming all tasks are equally runnable"), and at 0 when nothing is
// left attached there (the kernel keeps the entity's util, but with the
// runqueue's load gone calc_group_shares drops its weight to MIN_SHARES,
// so its load_avg is about 0).
//
// Approximations: between those events the group entity's series follows
// "queued or not" rather than the sums propagated at each update, so it
// lags the kernel's when the group's tasks run intermittently; its weight
// is the policies' calc_group_shares on queued weights (calcGroupShares);
// a new group task's initial util (initUtil) reads the CPU's root figures,
// not its group runqueue's; a throttled runqueue's clock does not stop.
// Without groups nothing of this runs and the sums are the flat ones.

// PELTTau is the time constant in ns of the continuous PELT series:
// 32 periods of 1024 µs halve a contribution (kernel/sched/pelt.c,
// LOAD_AVG_PERIOD 32), so τ = 32 × 1.024 ms / ln 2 ≈ 47.3 ms.
const PELTTau = 32 * 1_024_000 / math.Ln2

type peltTask struct {
	r        float64 // runnable average of the load series (load_avg / weight), 0..1, at last
	q        float64 // runnable average of the runnable series (runnable_avg / 1024), 0..1, at last
	fresh    bool    // never enqueued yet: its q and u are set at the first enqueue
	u        float64 // running average (util_avg / 1024), 0..1, at last
	last     int64   // ns
	cpu      int     // attached CPU, -1 none
	runnable bool
	running  bool
	w        float64
	g        int // the group whose runqueue it is attached to (0: the root)
}

// loadSum is a runqueue's load: the load_avg of its entities (tasks and,
// with groups, group entities), runnable and blocked.
type loadSum struct {
	wr float64 // Σ weight of the runnable attached entities
	lr float64 // Σ weight·r of the runnable attached entities, at last
	lb float64 // Σ weight·r of the blocked attached entities, at last
}

// peltGrq is a group's runqueue on one CPU: its load, at last.
type peltGrq struct {
	loadSum
	last int64
}

type peltCPU struct {
	loadSum         // the root runqueue's: cpu_load()
	nr      float64 // number of runnable attached tasks
	rr      float64 // Σ q of the runnable attached tasks (runnable_avg / 1024)
	rb      float64 // Σ q of the blocked attached tasks
	ua      float64 // Σ running average (util_avg / 1024) of the attached tasks but the running one, at last
	curr    int     // the task running there, -1
	last    int64
}

type pelt struct {
	t   []peltTask
	cpu []peltCPU
	// With groups (setGroups): groups[0] the root; grq and ge hold each
	// non-root group's runqueue and entity per CPU, at (g-1)·ncpu + cpu.
	groups []Group
	grq    []peltGrq
	ge     []peltTask
	dc     decayCache
}

func (p *pelt) init(ncpus int) {
	p.cpu = make([]peltCPU, ncpus)
	for i := range p.cpu {
		p.cpu[i].curr = -1
	}
}

func decay(d int64) float64 {
	if d <= 0 {
		return 1
	}
	return math.Exp(-float64(d) / PELTTau)
}

// decayCache remembers decay of the last gap seen in each of 64 slots
// (decaySlot): the same gaps recur (a tick, equal bursts), and half (1.28 M of 2.60 M) of
// the non-zero gaps of a replay of the 2 M-event messaging file are found
// there. A hit returns what decay returned for that gap.
type decayCache struct {
	d [64]int64
	f [64]float64
}

// decaySlot is gap d's slot: the top six bits of a Fibonacci hash, so
// that gaps in whole ms or ticks (whose low bits are all 0) spread out.
func decaySlot(d int64) int { return int(uint64(d) * 0x9E3779B97F4A7C15 >> 58) }

// decay is decay(d), from the cache when d was the last gap in its slot.
func (c *decayCache) decay(d int64) float64 {
	if d <= 0 {
		return 1
	}
	k := decaySlot(d)
	if c.d[k] != d {
		c.d[k], c.f[k] = d, decay(d)
	}
	return c.f[k]
}

// toward is a PELT average a·f moved toward 1 (on) or 0 by the decay f.
func toward(a float64, on bool, f float64) float64 {
	if on {
		return 1 + (a-1)*f
	}
	return a * f
}

func (p *pelt) syncCPU(c int, now int64) *peltCPU {
	pc := &p.cpu[c]
	f := p.dc.decay(now - pc.last)
	pc.lr = pc.wr + (pc.lr-pc.wr)*f
	pc.lb *= f
	pc.rr = pc.nr + (pc.rr-pc.nr)*f
	pc.rb *= f
	pc.ua *= f
	pc.last = now
	return pc
}

func (p *pelt) task(id int, w int64, now int64) *peltTask {
	for len(p.t) <= id {
		p.t = append(p.t, peltTask{r: 1, q: 1, fresh: true, cpu: -1, last: -1})
	}
	pt := &p.t[id]
	if pt.last < 0 {
		pt.last, pt.w = now, float64(w)
	}
	f := p.dc.decay(now - pt.last)
	pt.r = toward(pt.r, pt.runnable, f)
	pt.q = toward(pt.q, pt.runnable, f)
	pt.u = toward(pt.u, pt.running, f)
	pt.last = now
	return pt
}

// run records that task id (-1: none, the CPU idles or runs another
// class) runs on cpu from now.
func (p *pelt) run(cpu, id int, now int64) {
	pc := p.syncCPU(cpu, now)
	if pc.curr == id {
		return
	}
	if pc.curr >= 0 && pc.curr < len(p.t) {
		pt := p.task(pc.curr, int64(p.t[pc.curr].w), now)
		pt.running = false
		if pt.cpu == cpu {
			pc.ua += pt.u
		}
	}
	pc.curr = id
	if id >= 0 && id < len(p.t) {
		pt := p.task(id, int64(p.t[id].w), now)
		pt.running = true
		if pt.cpu == cpu {
			pc.ua = max(0, pc.ua-pt.u)
		}
	}
}

// util is the CPU's running average at now, 0..1 (cpu_util_cfs /
// capacity): the cfs_rq's util_avg, the sum of the util_avg of the tasks
// attached to it, running, waiting or blocked, which a task takes along
// when it migrates (attach_entity_load_avg, detach_entity_load_avg,
// remove_entity_load_avg, kernel/sched/fair.c v6.18).
func (p *pelt) util(cpu int, now int64) float64 {
	pc := p.syncCPU(cpu, now)
	u := pc.ua
	if c := pc.curr; c >= 0 && c < len(p.t) && p.t[c].cpu == cpu {
		u += p.task(c, int64(p.t[c].w), now).u
	}
	return u
}

// runnable is the CPU's runnable sum at now, in tasks (runnable_avg / 1024).
func (p *pelt) runnable(cpu int, now int64) float64 {
	pc := p.syncCPU(cpu, now)
	return pc.rr + pc.rb
}

// taskUtil is task id's running average at now, 0..1 (task_util_est / 1024).
func (p *pelt) taskUtil(id int, w int64, now int64) float64 { return p.task(id, w, now).u }

// overloaded is group_is_overloaded (kernel/sched/fair.c v6.18) for a
// one-CPU group with nr tasks: more tasks than CPUs, and its util above
// 100/117 of its capacity or its runnable sum above 117 % of it
// (imbalance_pct 117).
func (p *pelt) overloaded(cpu, nr int, now int64) bool {
	return nr > 1 && (p.util(cpu, now)*117 > 100 || p.runnable(cpu, now)*100 > 117)
}

// initUtil is post_init_entity_util_avg (kernel/sched/fair.c v6.18) for a
// fair task of weight w first enqueued on pc, in 0..1 units: the CPU's
// util × w / (its load + 1 weight unit), at most half its spare capacity;
// that half when its util is 0.
func initUtil(pc *peltCPU, util, w float64) float64 {
	spare := (1 - util) / 2
	if util <= 0 {
		return max(spare, 0)
	}
	return max(0, min(util*w/(pc.lr+pc.lb+1), spare))
}

// enqueue makes task id (weight w, of group g: 0 without groups) runnable
// on cpu at now.
func (p *pelt) enqueue(id int, w int64, g, cpu int, now int64) {
	pt := p.task(id, w, now)
	if pt.runnable {
		return
	}
	moved := pt.cpu != cpu || pt.g != g
	if pt.cpu >= 0 {
		old := p.syncCPU(pt.cpu, now)
		oa := p.acc(old, pt.g, pt.cpu, now)
		oa.lb = max(0, oa.lb-pt.w*pt.r)
		old.rb = max(0, old.rb-pt.q)
		if pt.cpu != cpu {
			old.ua = max(0, old.ua-pt.u)
		}
		if moved {
			p.detached(pt.g, pt.cpu, now)
		}
	}
	pt.w = float64(w)
	pc := p.syncCPU(cpu, now)
	if pt.fresh {
		pt.fresh = false
		pt.q = initUtil(pc, p.util(cpu, now), pt.w)
		pt.u = pt.q
	}
	if pt.cpu != cpu {
		pc.ua += pt.u
	}
	a := p.acc(pc, g, cpu, now)
	a.wr += pt.w
	a.lr += pt.w * pt.r
	pc.nr++
	pc.rr += pt.q
	if g > 0 && moved {
		p.attached(g, cpu, pt.r, now)
	}
	pt.cpu, pt.g, pt.runnable = cpu, g, true
}

// dequeue takes task id off its runqueue at now: it stays attached as
// blocked load when it sleeps (keep), leaves its CPU otherwise (a
// migration, which the next enqueue attaches elsewhere, or an exit).
func (p *pelt) dequeue(id int, keep bool, now int64) {
	if id >= len(p.t) {
		return
	}
	pt := p.task(id, int64(p.t[id].w), now)
	if !pt.runnable || pt.cpu < 0 {
		return
	}
	pc := p.syncCPU(pt.cpu, now)
	a := p.acc(pc, pt.g, pt.cpu, now)
	a.wr = max(0, a.wr-pt.w)
	a.lr = max(0, a.lr-pt.w*pt.r)
	pc.nr = max(0, pc.nr-1)
	pc.rr = max(0, pc.rr-pt.q)
	pt.runnable = false
	if keep {
		a.lb += pt.w * pt.r
		pc.rb += pt.q
		return
	}
	if pc.curr != id {
		pc.ua = max(0, pc.ua-pt.u)
	}
	p.detached(pt.g, pt.cpu, now)
	pt.cpu = -1
}

// setGroups turns on the group hierarchy of the loads (see the file
// comment); groups[0] is the root. Call it before any task is enqueued.
func (p *pelt) setGroups(groups []Group) {
	n := (len(groups) - 1) * len(p.cpu)
	p.groups = groups
	p.grq = make([]peltGrq, n)
	p.ge = make([]peltTask, n)
	for i := range p.ge {
		p.ge[i] = peltTask{cpu: i % len(p.cpu), last: -1}
	}
}

// acc is the load of group g's runqueue on cpu at now, pc being cpu's
// root figures already brought to now (g 0: pc's own).
func (p *pelt) acc(pc *peltCPU, g, cpu int, now int64) *loadSum {
	if g <= 0 {
		return &pc.loadSum
	}
	q := &p.grq[(g-1)*len(p.cpu)+cpu]
	f := p.dc.decay(now - q.last)
	q.lr = q.wr + (q.lr-q.wr)*f
	q.lb *= f
	q.last = now
	return &q.loadSum
}

// groupEntity is group g's entity on cpu, its runnable average brought to
// now.
func (p *pelt) groupEntity(g, cpu int, now int64) *peltTask {
	ge := &p.ge[(g-1)*len(p.cpu)+cpu]
	if ge.last < 0 {
		ge.last = now
	}
	ge.r = toward(ge.r, ge.runnable, p.dc.decay(now-ge.last))
	ge.last = now
	return ge
}

// parentAcc is the load, at now, of the runqueue that group g's entity on
// cpu belongs to.
func (p *pelt) parentAcc(g, cpu int, now int64) *loadSum {
	return p.acc(p.syncCPU(cpu, now), p.groups[g].Parent, cpu, now)
}

// groupEnt records that group g's entity on cpu is queued (or not) with
// weight w from now: its load moves between its parent's runnable and
// blocked sums, scaled to the new weight (reweight_entity keeps the
// entity's load_sum and rescales load_avg, kernel/sched/fair.c v6.5).
func (p *pelt) groupEnt(g, cpu int, queued bool, w int64, now int64) {
	fw := float64(w)
	if ge := &p.ge[(g-1)*len(p.cpu)+cpu]; ge.runnable == queued && ge.w == fw {
		return
	}
	ge := p.groupEntity(g, cpu, now)
	a := p.parentAcc(g, cpu, now)
	if ge.runnable {
		a.wr = max(0, a.wr-ge.w)
		a.lr = max(0, a.lr-ge.w*ge.r)
	} else {
		a.lb = max(0, a.lb-ge.w*ge.r)
	}
	ge.w, ge.runnable = fw, queued
	if queued {
		a.wr += ge.w
		a.lr += ge.w * ge.r
	} else {
		a.lb += ge.w * ge.r
	}
}

// setGroupR sets the runnable average of group g's entity on cpu to r
// (within 0..1) at now, and its load in its parent's sums with it; it
// returns the change.
func (p *pelt) setGroupR(g, cpu int, r float64, now int64) float64 {
	ge := p.groupEntity(g, cpu, now)
	d := min(max(r, 0), 1) - ge.r
	if d == 0 {
		return 0
	}
	a := p.parentAcc(g, cpu, now)
	if ge.runnable {
		a.lr = max(0, a.lr+ge.w*d)
	} else {
		a.lb = max(0, a.lb+ge.w*d)
	}
	ge.r += d
	return d
}

// attached is update_tg_cfs_load for a task of runnable average r newly
// attached to group g's runqueue on cpu: the group entity's runnable
// average grows by r, at most to 1, and each ancestor's by what that
// added.
func (p *pelt) attached(g, cpu int, r float64, now int64) {
	for ; g > 0 && r > 0; g = p.groups[g].Parent {
		r = p.setGroupR(g, cpu, p.groupEntity(g, cpu, now).r+r, now)
	}
}

// detached is update_tg_cfs_load for a task detached from group g's
// runqueue on cpu: on each level up, the group entity's runnable average
// is capped at its runqueue's load over its queued weight, and set to 0
// when nothing is attached there any more.
func (p *pelt) detached(g, cpu int, now int64) {
	for ; g > 0; g = p.groups[g].Parent {
		a := p.acc(p.syncCPU(cpu, now), g, cpu, now)
		est := p.groupEntity(g, cpu, now).r
		switch l := a.lr + a.lb; {
		case l <= 0:
			est = 0
		case a.wr > 0:
			est = min(est, l/a.wr)
		}
		if p.setGroupR(g, cpu, est, now) == 0 {
			return
		}
	}
}

// hLoad is task_h_load (kernel/sched/fair.c v6.5, update_cfs_rq_h_load
// and task_h_load): task id's load_avg × its group runqueue's h_load /
// (that runqueue's load_avg + 1), where the root's h_load is its
// load_avg and a group runqueue's is its parent's × its group entity's
// load_avg / (the parent's load_avg + 1). A task of the root group, or
// any task without groups, counts its own load_avg, as taskLoad.
func (p *pelt) hLoad(id int, w int64, now int64) float64 {
	pt := p.task(id, w, now)
	if p.groups == nil || pt.g <= 0 || pt.cpu < 0 {
		return pt.w * pt.r
	}
	c := pt.cpu
	pc := p.syncCPU(c, now)
	var buf [8]int
	chain := buf[:0]
	for g := pt.g; g > 0; g = p.groups[g].Parent {
		chain = append(chain, g)
	}
	h := pc.lr + pc.lb
	for i := len(chain) - 1; i >= 0; i-- {
		g := chain[i]
		pa := p.acc(pc, p.groups[g].Parent, c, now)
		ge := p.groupEntity(g, c, now)
		h = h * ge.w * ge.r / (pa.lr + pa.lb + 1)
	}
	a := p.acc(pc, pt.g, c, now)
	return pt.w * pt.r * h / (a.lr + a.lb + 1)
}

// load is cpu_load(): the CPU's runnable and blocked load at now, in
// weight units.
func (p *pelt) load(cpu int, now int64) float64 {
	pc := p.syncCPU(cpu, now)
	return pc.lr + pc.lb
}

// taskLoad is task id's load_avg at now (its weight for a task not seen).
func (p *pelt) taskLoad(id int, w int64, now int64) float64 {
	pt := p.task(id, w, now)
	return pt.w * pt.r
}
