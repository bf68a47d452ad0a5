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
// sum that group_is_overloaded reads. Task groups are not modelled: with every workload task in
// one group (an autogroup), task_h_load and cpu_load scale by the same
// group factor and the comparison is the flat one.

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
}

type peltCPU struct {
	wr   float64 // Σ weight of the runnable attached tasks
	lr   float64 // Σ weight·r of the runnable attached tasks, at last
	lb   float64 // Σ weight·r of the blocked attached tasks, at last
	nr   float64 // number of runnable attached tasks
	rr   float64 // Σ q of the runnable attached tasks (runnable_avg / 1024)
	rb   float64 // Σ q of the blocked attached tasks
	ua   float64 // Σ running average (util_avg / 1024) of the attached tasks but the running one, at last
	curr int     // the task running there, -1
	last int64
}

type pelt struct {
	t   []peltTask
	cpu []peltCPU
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

// toward is a PELT average a·f moved toward 1 (on) or 0 by the decay f.
func toward(a float64, on bool, f float64) float64 {
	if on {
		return 1 + (a-1)*f
	}
	return a * f
}

func (p *pelt) syncCPU(c int, now int64) *peltCPU {
	pc := &p.cpu[c]
	f := decay(now - pc.last)
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
	f := decay(now - pt.last)
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

// enqueue makes task id (weight w) runnable on cpu at now.
func (p *pelt) enqueue(id int, w int64, cpu int, now int64) {
	pt := p.task(id, w, now)
	if pt.runnable {
		return
	}
	if pt.cpu >= 0 {
		old := p.syncCPU(pt.cpu, now)
		old.lb = max(0, old.lb-pt.w*pt.r)
		old.rb = max(0, old.rb-pt.q)
		if pt.cpu != cpu {
			old.ua = max(0, old.ua-pt.u)
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
	pc.wr += pt.w
	pc.lr += pt.w * pt.r
	pc.nr++
	pc.rr += pt.q
	pt.cpu, pt.runnable = cpu, true
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
	pc.wr = max(0, pc.wr-pt.w)
	pc.lr = max(0, pc.lr-pt.w*pt.r)
	pc.nr = max(0, pc.nr-1)
	pc.rr = max(0, pc.rr-pt.q)
	pt.runnable = false
	if keep {
		pc.lb += pt.w * pt.r
		pc.rb += pt.q
		return
	}
	if pc.curr != id {
		pc.ua = max(0, pc.ua-pt.u)
	}
	pt.cpu = -1
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
