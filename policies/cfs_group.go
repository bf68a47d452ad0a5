package policies

// Task groups and CFS bandwidth control in the cfs policy, after
// kernel/sched/fair.c v6.5 (the last CFS before EEVDF; CONFIG_FAIR_GROUP_SCHED
// and CONFIG_CFS_BANDWIDTH):
//
//   - a group has a scheduling entity and a runqueue (cfs_rq) on each CPU;
//     the entity is queued on its parent's runqueue while its own runqueue
//     holds entities, and weighs calc_group_shares of the group's shares
//     (calcGroupShares, on queued weights rather than PELT averages);
//   - every level keeps its own vruntime and min_vruntime: update_curr
//     charges the running entity of each level by its own weight;
//     a group entity is dequeued with DEQUEUE_SLEEP and enqueued with
//     ENQUEUE_WAKEUP (dequeue_task_fair and enqueue_task_fair set them for
//     the levels above the task), so its vruntime stays absolute and it is
//     placed as a sleeper, at max(its vruntime, min_vruntime −
//     sched_latency/2); reweight_entity changes only its weight;
//   - pick_next_task_fair descends with pick_next_entity (leftmost and
//     buddies) on each level; check_cfs_rq_runtime throttles a runqueue
//     out of quota on the way;
//   - sched_slice scales the slice by the entity's share of each runqueue
//     up to the root, entity_tick runs check_preempt_tick on every level
//     with more than one entity, after update_cfs_group;
//   - check_preempt_wakeup compares the entities of the running task and
//     the wakee where their ancestries meet (find_matching_se), the
//     wakeup granularity in the wakee-side entity's virtual time; the
//     buddies are set on every level (set_next_buddy, set_last_buddy),
//     the last buddy only when the two tasks share a runqueue
//     (entity_is_task) and, like NEXT_BUDDY, only with sched_nr_latency
//     or more tasks on it (scale); a task going to sleep makes its group
//     entity the next buddy when the group keeps other work
//     (dequeue_task_fair);
//   - bandwidth control (bandwidth.go): throttle_cfs_rq dequeues the
//     group's entity on that CPU at once, and each ancestor it leaves
//     empty; unthrottle_cfs_rq enqueues them again with ENQUEUE_WAKEUP.
//
// All of this reads the same in kernel/sched/fair.c v5.10, whose flat
// semantics cfs.go follows, except three v6.5 changes the model leaves out
// to keep one sched_slice: ALT_PERIOD (the period from the CPU's
// h_nr_running) and BASE_SLICE (a slice of at least min_granularity), on
// in kernel/sched/features.h v6.5 and absent from v5.10's, and
// check_preempt_tick's cap of ideal_runtime at sched_latency (v6.5, not
// v5.10); they matter once a CPU runs more than sched_nr_latency (8)
// tasks in all, or a task's slice over the hierarchy falls below
// min_granularity. Not modelled either: idle groups (cpu.idle), the skip
// buddy, PELT in calc_group_shares. The hierarchical balance loads of
// eevdf (H_LOAD, fairsmp.go) are wired here too, but off by default (see
// the H_LOAD parameter).

// SetGroups implements GroupScheduler: the group tree, before Init.
func (p *CFS) SetGroups(groups []Group) bool {
	p.groups = groups
	return true
}

// initGroups builds the per-CPU group runqueues and entities (Init).
func (p *CFS) initGroups(s Sim) {
	p.cpath = make([][]*crq, p.ncpu)
	if len(p.groups) <= 1 {
		p.groups = nil
		return
	}
	p.grqs, p.ge = groupSlots(p.groups, p.ncpu, func(g, c int) (crq, cent) {
		return crq{curr: noEnt, next: noEnt, last: noEnt, g: g, cpu: c}, cent{w: p.groups[g].Shares, cpu: c}
	})
	p.bwc.rq = func(key int) *rqRuntime { return &p.grqs[key].rqRuntime }
	p.bwc.unthrottle = func(key int) { p.unthrottle(&p.grqs[key]) }
	p.bwc.init(s, p.groups)
}

// gid is the entity id of group g's entity on cpu (g >= 1): -2 and below.
func (p *CFS) gid(g, cpu int) int { return -2 - ((g-1)*p.ncpu + cpu) }

// key is rq's bandwidthCtl key (a group runqueue's index in grqs).
func (p *CFS) key(rq *crq) int { return (rq.g-1)*p.ncpu + rq.cpu }

// ent returns the entity of id: a task's, or a group's.
func (p *CFS) ent(id int) *cent {
	if id >= 0 {
		return &p.e[id]
	}
	return &p.ge[-2-id]
}

// rqOf returns group g's runqueue on cpu (the CPU's root runqueue for g 0
// or without groups).
func (p *CFS) rqOf(g, cpu int) *crq {
	if g <= 0 || p.groups == nil {
		return &p.rqs[cpu]
	}
	return &p.grqs[(g-1)*p.ncpu+cpu]
}

// groupRq is group_cfs_rq: the runqueue the group entity id owns.
func (p *CFS) groupRq(id int) *crq { return &p.grqs[-2-id] }

// parentRq is the runqueue rq's group entity is queued on.
func (p *CFS) parentRq(rq *crq) *crq { return p.rqOf(p.groups[rq.g].Parent, rq.cpu) }

// throttledUp is throttled_hierarchy: rq or a runqueue above it is
// throttled.
func (p *CFS) throttledUp(rq *crq) bool {
	for ; rq.g != 0; rq = p.parentRq(rq) {
		if rq.throttled {
			return true
		}
	}
	return false
}

// migratableGroups lists the tasks queued on cpu that the balancer may
// move: not running, not below a throttled runqueue (throttled_lb_pair).
func (p *CFS) migratableGroups(cpu int) []*Task {
	var out []*Task
	for g := 0; g < len(p.groups); g++ {
		rq := p.rqOf(g, cpu)
		if p.throttledUp(rq) {
			continue
		}
		for _, id := range rq.q {
			if id >= 0 && id != rq.curr {
				out = append(out, p.tasks[id])
			}
		}
	}
	return out
}

// groupSlice scales a slice s of an entity below group runqueue rq by
// rq's group entity's share of the runqueue above (one step of
// sched_slice's for_each_sched_entity, the entity counted even when not
// queued).
func (p *CFS) groupSlice(rq *crq, s int64) int64 {
	ge, prq := p.ent(p.gid(rq.g, rq.cpu)), p.parentRq(rq)
	W := prq.sumW
	if !ge.queued {
		W += ge.w
	}
	if W <= 0 {
		return s
	}
	return s * ge.w / W
}

// shares is calc_group_shares for rq's group entity (calcGroupShares).
func (p *CFS) shares(rq *crq) int64 {
	return calcGroupShares(p.groups[rq.g].Shares, rq.cpu, p.ncpu, func(c int) int64 { return p.rqOf(rq.g, c).sumW })
}

// updateShares is update_cfs_group on rq's group entity: reweight_entity
// (v6.5) sets its weight, its vruntime untouched; nothing while rq is
// throttled.
func (p *CFS) updateShares(rq *crq) {
	if p.throttledUp(rq) {
		return
	}
	ge := p.ent(p.gid(rq.g, rq.cpu))
	w := p.shares(rq)
	if ge.queued {
		p.parentRq(rq).sumW += w - ge.w
	}
	ge.w = w
}

// enqueueUp queues the group entity of rq and of each runqueue above it
// that is not queued yet, placed as waking (ENQUEUE_WAKEUP), and
// refreshes the weights of those that are (enqueue_task_fair's two loops
// with update_cfs_group); it stops at a throttled runqueue. A runqueue
// that gets its first entity while out of quota is throttled first
// (check_enqueue_throttle).
func (p *CFS) enqueueUp(rq *crq) {
	added := true
	for rq.g != 0 {
		if added && len(rq.q) == 1 && p.bwc.limited(rq.g) && !rq.throttled && rq.curr == noEnt {
			p.bwc.account(rq.g, &rq.rqRuntime, 0, false, rq.cpu)
			if rq.rr <= 0 {
				p.throttle(rq)
			}
		}
		if rq.throttled {
			return
		}
		gid := p.gid(rq.g, rq.cpu)
		ge, prq := p.ent(gid), p.parentRq(rq)
		added = !ge.queued
		if added {
			ge.w = p.shares(rq)
			p.placeWakeup(prq, ge)
			p.addEnt(prq, gid, ge)
		} else {
			p.updateShares(rq)
		}
		rq = prq
	}
}

// dequeueUp takes the group entity of rq off its parent when rq is empty,
// and so on up; the levels that keep work get their weights refreshed
// (dequeue_task_fair with update_cfs_group). A group runqueue that
// empties returns its spare runtime (return_cfs_rq_runtime). When sleep
// (a task went to sleep) and the first level that keeps work is not
// throttled, its group entity becomes the next buddy on every level above
// ("bias pick_next to pick a task from this cfs_rq", dequeue_task_fair).
func (p *CFS) dequeueUp(rq *crq, sleep bool) {
	for rq.g != 0 {
		gid := p.gid(rq.g, rq.cpu)
		ge, prq := p.ent(gid), p.parentRq(rq)
		if !ge.queued {
			return // throttled: its entity is off the queue already
		}
		if len(rq.q) == 0 {
			if p.bwc.limited(rq.g) {
				p.bwc.returnRuntime(rq.g, &rq.rqRuntime)
			}
			p.removeEnt(prq, gid, ge)
		} else {
			if sleep && !p.throttledUp(rq) {
				p.setBuddy(gid, prq, false)
			}
			sleep = false
			p.updateShares(rq)
		}
		rq = prq
	}
}

// setBuddy is set_next_buddy (last false) or set_last_buddy (last true)
// from entity id queued on rq up to the root; it stops at an entity that
// is not queued.
func (p *CFS) setBuddy(id int, rq *crq, last bool) {
	for {
		if !p.ent(id).queued {
			return
		}
		if last {
			rq.last = id
		} else {
			rq.next = id
		}
		if rq.g == 0 {
			return
		}
		id, rq = p.gid(rq.g, rq.cpu), p.parentRq(rq)
	}
}

// pickGroups is pick_next_task_fair with groups: pick_next_entity on
// each level from the CPU's root runqueue down to a task, throttling a
// group runqueue found out of quota (check_cfs_rq_runtime) and starting
// over when that took its entity off the queue.
func (p *CFS) pickGroups(cpu int, prev *Task) *Task {
	if prev != nil {
		p.putPrevBandwidth(cpu, prev)
	}
again:
	rq := &p.rqs[cpu]
	path := p.scratch[:0]
	for len(rq.q) > 0 {
		id := p.pickEntity(rq)
		path = append(path, rq)
		if id >= 0 {
			p.setCurr(rq, id)
			// put_prev_entity on the levels the pick left
			p.cpath[cpu] = replacePath(p.cpath[cpu], path)
			p.scratch = path
			p.smp.peltRun(cpu, id)
			return p.tasks[id]
		}
		grq := p.groupRq(id)
		if p.bwc.due(grq.g, &grq.rqRuntime) && p.throttle(grq) {
			goto again // check_cfs_rq_runtime took grq's entity off rq
		}
		p.setCurr(rq, id)
		rq = grq
	}
	p.cpath[cpu] = replacePath(p.cpath[cpu], nil)
	p.rqs[cpu].curr = noEnt
	p.smp.peltRun(cpu, -1)
	return nil
}

// clearCurr implements pickedRq.
func (rq *crq) clearCurr() { rq.curr = noEnt }

// checkPreemptGroups is check_preempt_wakeup (kernel/sched/fair.c v6.5)
// with groups: nothing for a wakee below a throttled runqueue; NEXT_BUDDY
// with sched_nr_latency tasks on curr's runqueue (scale); then
// wakeup_preempt_entity on the entities where the two ancestries meet
// (find_matching_se); on preemption the wakee becomes the next buddy and,
// when both tasks share a runqueue and scale holds, curr the last.
func (p *CFS) checkPreemptGroups(cpu int, curr, t *Task, flags WakeFlags) bool {
	trq := p.rqOf(t.Group, cpu)
	if p.throttledUp(trq) {
		return false
	}
	scale := len(p.rqOf(curr.Group, cpu).q) >= p.nrLatency
	marked := false
	if p.nextBuddy && scale && flags&WakeFork == 0 {
		p.setBuddy(t.ID, trq, false)
		marked = true
	}
	if !p.wakePreempt || t.Class == ClassIdle || t.Batch {
		return false
	}
	m, cg, tg := meetGroups(p.groups, curr.Group, t.Group)
	ci, ti := curr.ID, t.ID
	if cg != 0 {
		ci = p.gid(cg, cpu)
	}
	if tg != 0 {
		ti = p.gid(tg, cpu)
	}
	if !p.ent(ci).queued || !p.ent(ti).queued || p.preemptEntity(ci, ti) != 1 {
		return false
	}
	if !marked {
		p.setBuddy(t.ID, trq, false)
	}
	if p.lastBuddy && scale && ci >= 0 {
		p.setBuddy(curr.ID, p.rqOf(m, cpu), true)
	}
	return true
}

// putPrevBandwidth is put_prev_entity's check_cfs_rq_runtime on each
// group runqueue above the task leaving cpu, up to the first it throttles
// (whose entity leaves with every ancestor it empties).
func (p *CFS) putPrevBandwidth(cpu int, prev *Task) {
	if prev.ID >= len(p.e) || !p.e[prev.ID].queued {
		return
	}
	rq := p.rqOf(prev.Group, cpu)
	for rq.g != 0 && !(p.bwc.due(rq.g, &rq.rqRuntime) && p.throttle(rq)) {
		rq = p.parentRq(rq)
	}
}

// throttle is throttle_cfs_rq (kernel/sched/fair.c v6.5): unless one more
// ns can be had from the pool, rq joins the throttled list and its group
// entity leaves the parent at once (DEQUEUE_SLEEP), with each ancestor it
// leaves empty; true then.
func (p *CFS) throttle(rq *crq) bool {
	if !p.bwc.throttle(rq.g, p.key(rq), &rq.rqRuntime) {
		return false
	}
	rq.throttledAt = p.sim.Now()
	gid := p.gid(rq.g, rq.cpu)
	if ge, prq := p.ent(gid), p.parentRq(rq); ge.queued {
		p.removeEnt(prq, gid, ge)
		p.dequeueUp(prq, false)
	}
	return true
}

// unthrottle is unthrottle_cfs_rq (v6.5): rq leaves the throttled list,
// its group entity and any ancestor left empty are queued again
// (ENQUEUE_WAKEUP), and an idle CPU with work is rescheduled.
func (p *CFS) unthrottle(rq *crq) {
	p.bwc.unthrottled(rq.g, p.key(rq), &rq.rqRuntime, rq.cpu)
	if len(rq.q) > 0 {
		p.enqueueUp(rq)
	}
	p.smp.peltGroups(rq.cpu)
	if p.sim.Curr(rq.cpu) == nil && len(p.rqs[rq.cpu].q) > 0 {
		p.sim.Resched(rq.cpu)
	}
}

// UpdateGroup implements GroupUpdater (updateGroup).
func (p *CFS) UpdateGroup(g int, gr Group) {
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
func (p *CFS) GroupStats() []GroupStats { return p.bwc.groupStats() }
