package policies

// Task groups and CFS bandwidth control in the eevdf policy, after
// kernel/sched/fair.c v6.18 (group scheduling entities, calc_group_shares,
// reweight_entity; the bandwidth pool, period and slack timers, throttling
// and unthrottling) and the v6.17 group dequeue it replaced (TASK_THROTTLE
// off), DELAY_DEQUEUE of group entities included (a group entity that
// leaves while not eligible stays queued until picked or requeued). Not
// modelled: a group entity's slice as the minimum slice queued below it
// (cfs_rq_min_slice, 6.12+: it is the base slice here, the same when no
// task sets a custom slice), and the PELT averaging of a group runqueue's
// load in calc_group_shares (the instantaneous queued weight is used, see
// shares). The balancer and wake placement see the groups through
// hierarchical PELT loads (H_LOAD, fairsmp.go and pelt.go): after each
// change of its group entities the policy reports them (peltGroups).

import "slices"

// SetGroups implements GroupScheduler: the group tree, before Init.
func (p *EEVDF) SetGroups(groups []Group) bool {
	p.groups = groups
	return true
}

// initGroups builds the per-CPU group runqueues and entities (Init).
func (p *EEVDF) initGroups(s Sim) {
	if len(p.groups) <= 1 {
		p.groups = nil
		return
	}
	p.grqs, p.ge = groupSlots(p.groups, p.ncpu, func(g, c int) (erq, eent) {
		return erq{curr: noEnt, g: g, cpu: c, root: noEnt, aside: noEnt, p: p}, eent{w: p.groups[g].Shares, slice: p.baseSlice, cpu: c}
	})
	p.bwc.rq = func(key int) *rqRuntime { return &p.grqs[key].rqRuntime }
	p.bwc.unthrottle = func(key int) { p.unthrottle(&p.grqs[key]) }
	p.bwc.init(s, p.groups)
}

// key is rq's bandwidthCtl key (a group runqueue's index in grqs).
func (p *EEVDF) key(rq *erq) int { return (rq.g-1)*p.ncpu + rq.cpu }

// gid is the entity id of group g's entity on cpu (g >= 1): -2 and below,
// -1 being noEnt.
func (p *EEVDF) gid(g, cpu int) int { return -2 - ((g-1)*p.ncpu + cpu) }

// ent returns the entity of id: a task's, or a group's.
func (p *EEVDF) ent(id int) *eent {
	if id >= 0 {
		return &p.e[id]
	}
	return &p.ge[-2-id]
}

// rqOf returns group g's runqueue on cpu (the CPU's root runqueue for g 0).
func (p *EEVDF) rqOf(g, cpu int) *erq {
	if g <= 0 || len(p.groups) == 0 {
		return &p.rqs[cpu]
	}
	return &p.grqs[(g-1)*p.ncpu+cpu]
}

// groupRq is group_cfs_rq: the runqueue the group entity id owns.
func (p *EEVDF) groupRq(id int) *erq { return &p.grqs[-2-id] }

// parentRq is the runqueue rq's group entity is queued on.
func (p *EEVDF) parentRq(rq *erq) *erq { return p.rqOf(p.groups[rq.g].Parent, rq.cpu) }

// throttledUp reports whether rq or a runqueue above it is throttled
// (throttled_hierarchy).
func (p *EEVDF) throttledUp(rq *erq) bool {
	for ; rq.g != 0; rq = p.parentRq(rq) {
		if rq.throttled {
			return true
		}
	}
	return false
}

// enqueueUp queues the group entity of rq and of each runqueue above it
// that is not queued yet, and refreshes the weights of those that are
// (enqueue_task_fair's two loops, with update_cfs_group). Under the v6.17
// group dequeue it stops below a throttled runqueue; a runqueue out of
// quota when it gets work is throttled first (check_enqueue_throttle).
func (p *EEVDF) enqueueUp(rq *erq) {
	for rq.g != 0 {
		if p.bwc.limited(rq.g) && !rq.throttled && rq.curr == noEnt && rq.rr <= 0 {
			p.bwc.account(rq.g, &rq.rqRuntime, 0, false, rq.cpu)
			if rq.rr <= 0 {
				p.throttle(rq)
			}
		}
		if rq.throttled && !p.taskThrottle {
			return
		}
		gid := p.gid(rq.g, rq.cpu)
		ge, prq := p.ent(gid), p.parentRq(rq)
		if ge.queued {
			if ge.delayed {
				// requeue_delayed_entity (fair.c v6.12-v6.18)
				ge.delayed = false
				if p.delayZero {
					p.updateLag(prq, ge)
					if ge.vlag > 0 {
						prq.remove(gid, ge)
						ge.vlag = 0
						p.place(prq, ge, p.baseSlice, 0)
						prq.add(gid, ge)
					}
				}
			}
			p.updateShares(rq)
		} else {
			ge.w = p.shares(rq)
			p.place(prq, ge, p.baseSlice, EnqueueWakeup)
			prq.add(gid, ge)
			ge.cpu = rq.cpu
		}
		rq = prq
	}
}

// dequeueUp takes the group entity of rq off its parent when rq is empty,
// and so on up; the levels that keep work get their weights refreshed
// (dequeue_entities with update_cfs_group). A group runqueue that empties
// returns its spare runtime (return_cfs_rq_runtime).
func (p *EEVDF) dequeueUp(rq *erq, sleep bool) {
	for rq.g != 0 {
		gid := p.gid(rq.g, rq.cpu)
		ge, prq := p.ent(gid), p.parentRq(rq)
		if !ge.queued || ge.delayed {
			return
		}
		if len(rq.q) == 0 {
			if p.bwc.limited(rq.g) {
				p.bwc.returnRuntime(rq.g, &rq.rqRuntime)
			}
			if sleep && p.delayDeq && !prq.eligible(ge) {
				// DELAY_DEQUEUE of a group entity: dequeue_entities
				// passes DEQUEUE_SLEEP up, and dequeue_entity delays
				// any entity, task or group, that is not eligible
				// (kernel/sched/fair.c v6.12-v6.18); the levels above
				// stay as they are.
				ge.delayed = true
				if prq.curr == gid {
					prq.curr = noEnt
				}
				return
			}
			p.updateLag(prq, ge)
			prq.remove(gid, ge)
		} else {
			p.updateShares(rq)
		}
		rq = prq
	}
}

// finishGroupDelayed dequeues the delayed group entity gid that pick_eevdf
// chose on rq (pick_next_entity's dequeue_entities with DEQUEUE_DELAYED;
// the levels above get DEQUEUE_SLEEP and may be delayed in turn), its
// positive lag clipped under DELAY_ZERO.
func (p *EEVDF) finishGroupDelayed(rq *erq, gid int) {
	ge := p.ent(gid)
	p.updateLag(rq, ge)
	rq.remove(gid, ge)
	ge.delayed = false
	if p.delayZero && ge.vlag > 0 {
		ge.vlag = 0
	}
	p.dequeueUp(rq, true)
}

// shares is calc_group_shares for rq's group entity (kernel/sched/fair.c
// v6.18; calcGroupShares).
func (p *EEVDF) shares(rq *erq) int64 {
	return calcGroupShares(p.groups[rq.g].Shares, rq.cpu, p.ncpu, func(c int) int64 { return p.rqOf(rq.g, c).sumW })
}

// updateShares is update_cfs_group: reweight rq's queued group entity.
func (p *EEVDF) updateShares(rq *erq) {
	gid := p.gid(rq.g, rq.cpu)
	ge := p.ent(gid)
	if w := p.shares(rq); ge.queued && w != ge.w {
		p.reweight(p.parentRq(rq), gid, ge, w)
	}
}

// reweight is reweight_entity (kernel/sched/fair.c v6.12+): a queued
// entity keeps its lag w·(V − v) and its relative deadline in real time,
// so vlag and deadline − v scale by old/new weight, and it is placed again.
func (p *EEVDF) reweight(rq *erq, id int, e *eent, w int64) {
	if !e.queued {
		e.w = w
		return
	}
	wasCurr := rq.curr == id
	p.updateLag(rq, e)
	rel := e.deadline - e.v
	rq.remove(id, e)
	e.vlag = e.vlag * e.w / w
	rel = rel * e.w / w
	e.w = w
	p.place(rq, e, e.slice, 0)
	e.deadline = e.v + rel
	rq.add(id, e)
	if wasCurr {
		rq.curr = id
	}
}

// matching is find_matching_se: the runqueue where curr's and t's
// ancestries meet on cpu, and their entities there; ok is false when
// either is not queued there (a throttled group).
func (p *EEVDF) matching(cpu int, curr, t *Task) (rq *erq, ci, ti int, ok bool) {
	m, cg, tg := meetGroups(p.groups, curr.Group, t.Group)
	ci, ti = curr.ID, t.ID
	if cg != 0 {
		ci = p.gid(cg, cpu)
	}
	if tg != 0 {
		ti = p.gid(tg, cpu)
	}
	return p.rqOf(m, cpu), ci, ti, p.ent(ci).queued && p.ent(ti).queued
}

// checkRuntime is check_cfs_rq_runtime on the group runqueue rq as the
// pick descends into it: out of runtime, it is throttled. It reports
// whether rq's group entity left its parent (v6.17's group dequeue), so
// the pick starts over.
func (p *EEVDF) checkRuntime(rq *erq) bool {
	return p.bwc.due(rq.g, &rq.rqRuntime) && p.throttle(rq)
}

// putPrevBandwidth is put_prev_entity's check_cfs_rq_runtime on each
// group runqueue above the task leaving cpu.
func (p *EEVDF) putPrevBandwidth(cpu int, prev *Task) {
	if prev.ID >= len(p.e) || !p.e[prev.ID].queued {
		return
	}
	for rq := p.rqOf(prev.Group, cpu); rq.g != 0; rq = p.parentRq(rq) {
		if p.checkRuntime(rq) {
			return
		}
	}
}

// throttle is throttle_cfs_rq: unless one more ns can be had from the pool,
// rq joins the group's throttled list; under v6.17's group dequeue its
// group entity (and any ancestor left empty) leaves the queue at once, and
// true is returned. Under 6.18's task-based throttling it stays queued and
// its tasks go to limbo as they are picked (PickNext); its throttled time
// starts with the first of them.
func (p *EEVDF) throttle(rq *erq) bool {
	if !p.bwc.throttle(rq.g, p.key(rq), &rq.rqRuntime) {
		return false
	}
	if p.taskThrottle {
		rq.throttledAt = -1
		return false
	}
	rq.throttledAt = p.sim.Now()
	gid := p.gid(rq.g, rq.cpu)
	if ge, prq := p.ent(gid), p.parentRq(rq); ge.queued {
		p.updateLag(prq, ge)
		prq.remove(gid, ge)
		p.dequeueUp(prq, false) // DEQUEUE_SPECIAL: never delayed
	}
	return true
}

// enterLimbo is 6.18's throttle work on a picked task below a throttled
// runqueue (throttle_cfs_rq_work, kernel/sched/fair.c v6.18): it leaves rq
// with its lag (dequeue_task_fair with DEQUEUE_SLEEP, never delayed, runs
// update_entity_lag) for the head of rq's limbo list,
// "list_add(&p->throttle_node, &cfs_rq->throttled_limbo_list)". The list
// is last in, first out: tg_unthrottle_up walks it from the head (see
// unthrottle), so the task throttled last comes back first.
func (p *EEVDF) enterLimbo(rq *erq, id int, e *eent) {
	for r := rq; r.g != 0; r = p.parentRq(r) {
		if r.throttled && r.throttledAt < 0 {
			r.throttledAt = p.sim.Now()
		}
	}
	p.updateLag(rq, e)
	rq.remove(id, e)
	p.smp.peltDequeue(id, false)
	e.limbo = true
	rq.limbo = slices.Insert(rq.limbo, 0, id)
	p.dequeueUp(rq, false)
}

// leaveLimbo takes task id off its runqueue's limbo list.
func (p *EEVDF) leaveLimbo(id int, e *eent) {
	rq := p.rqOf(p.tasks[id].Group, e.cpu)
	for i, x := range rq.limbo {
		if x == id {
			rq.limbo = append(rq.limbo[:i], rq.limbo[i+1:]...)
			break
		}
	}
	e.limbo = false
}

// unthrottle is unthrottle_cfs_rq: rq leaves the throttled list; its
// group entity is queued again (v6.17) or its subtree's limbo tasks are
// (tg_unthrottle_up, 6.18); an idle CPU is rescheduled.
//
// tg_unthrottle_up (kernel/sched/fair.c v6.18) re-enqueues a runqueue's
// limbo tasks from the head of the list ("list_for_each_entry_safe(p, tmp,
// &cfs_rq->throttled_limbo_list, throttle_node)", then
// "enqueue_task_fair(rq_of(cfs_rq), p, ENQUEUE_WAKEUP)"), the reverse of
// the order they were throttled in. The order matters: place_entity
// applies a task's lag only with entities queued ("if (sched_feat(PLACE_LAG)
// && cfs_rq->nr_queued && se->vlag)"), so the first task back onto the
// emptied runqueue loses its lag. Last in, first out, that is the task
// throttled last, alone on its runqueue then, whose lag is 0; the others,
// owed time as the pick chose them before it, keep theirs. Re-enqueued
// first in, first out, the task owed the most lost its credit every
// period and could be starved.
func (p *EEVDF) unthrottle(rq *erq) {
	p.bwc.unthrottled(rq.g, p.key(rq), &rq.rqRuntime, rq.cpu)
	if p.taskThrottle {
		for g := 1; g < len(p.groups); g++ {
			r := p.rqOf(g, rq.cpu)
			if len(r.limbo) == 0 || (r != rq && !p.below(r, rq)) || p.throttledUp(r) {
				continue
			}
			for _, id := range r.limbo {
				e := &p.e[id]
				e.limbo = false
				p.place(r, e, p.slice(p.tasks[id]), EnqueueWakeup)
				r.add(id, e)
				p.smp.peltEnqueue(p.tasks[id], rq.cpu)
			}
			r.limbo = r.limbo[:0]
			p.enqueueUp(r)
		}
	} else if len(rq.q) > 0 {
		p.enqueueUp(rq)
	}
	p.smp.peltGroups(rq.cpu)
	if p.sim.Curr(rq.cpu) == nil && len(p.rqs[rq.cpu].q) > 0 {
		p.sim.Resched(rq.cpu)
	}
}

// below reports whether runqueue r is under runqueue top on the same CPU.
func (p *EEVDF) below(r, top *erq) bool {
	for r.g != 0 {
		r = p.parentRq(r)
		if r == top {
			return true
		}
	}
	return false
}

// UpdateGroup implements GroupUpdater (updateGroup).
func (p *EEVDF) UpdateGroup(g int, gr Group) {
	if len(p.groups) <= 1 {
		return
	}
	updateGroup(p.groups, &p.bwc, p.ncpu, g, gr, func(cpu int) {
		p.updateShares(p.rqOf(g, cpu))
		p.smp.peltGroups(cpu)
	}, func(cpu int) int { return p.key(p.rqOf(g, cpu)) })
}

// GroupStats implements GroupReporter: cpu.stat's counts for each group
// with a quota.
func (p *EEVDF) GroupStats() []GroupStats { return p.bwc.groupStats() }
