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
// shares).

// minCfsRqRuntime is the runtime a group runqueue keeps when it empties
// and returns the rest of its runtime to the pool (min_cfs_rq_runtime,
// 1 ms, kernel/sched/fair.c).
const minCfsRqRuntime = 1_000_000

// cfsSlackPeriod is how long after a slack return the slack timer hands
// the pool to throttled runqueues (cfs_bandwidth_slack_period, 5 ms);
// minBandwidthExpiration is the least time before a period refresh that
// makes the slack timer worth starting or running (min_bandwidth_expiration,
// 2 ms; kernel/sched/fair.c).
const (
	cfsSlackPeriod         = 5_000_000
	minBandwidthExpiration = 2_000_000
)

// bandwidth is one group's cfs_bandwidth.
type bandwidth struct {
	quota, period, burst int64
	pool                 int64 // cfs_b->runtime, ns
	timerOn, idle        bool
	slackOn              bool
	next                 int64  // ns, the period timer's next expiry
	throttled            []*erq // cfs_b->throttled_cfs_rq, in throttle order
	stats                GroupStats
}

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
	if t, ok := s.(Timers); ok {
		p.timers = t
	}
	n := (len(p.groups) - 1) * p.ncpu
	p.grqs = make([]erq, n)
	p.ge = make([]eent, n)
	p.bw = make([]bandwidth, len(p.groups))
	for g := 1; g < len(p.groups); g++ {
		for c := 0; c < p.ncpu; c++ {
			k := (g-1)*p.ncpu + c
			p.grqs[k] = erq{curr: noEnt, g: g, cpu: c}
			p.ge[k] = eent{w: p.groups[g].Shares, slice: p.baseSlice, cpu: c}
		}
		gr := p.groups[g]
		if gr.Quota > 0 && p.timers != nil {
			period := gr.Period
			if period <= 0 {
				period = 100_000_000 // default_cfs_period(), 100 ms
			}
			p.bw[g] = bandwidth{quota: gr.Quota, period: period, burst: gr.Burst, pool: gr.Quota,
				stats: GroupStats{Path: gr.Path}}
		}
	}
}

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

// cpuRqs lists cpu's runqueues: the root's, then each group's.
func (p *EEVDF) cpuRqs(cpu int) []*erq {
	out := []*erq{&p.rqs[cpu]}
	for g := 1; g < len(p.groups); g++ {
		out = append(out, p.rqOf(g, cpu))
	}
	return out
}

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

// depth is the number of groups between g and the root.
func (p *EEVDF) depth(g int) int {
	d := 0
	for ; g > 0; g = p.groups[g].Parent {
		d++
	}
	return d
}

// enqueueUp queues the group entity of rq and of each runqueue above it
// that is not queued yet, and refreshes the weights of those that are
// (enqueue_task_fair's two loops, with update_cfs_group). Under the v6.17
// group dequeue it stops below a throttled runqueue; a runqueue out of
// quota when it gets work is throttled first (check_enqueue_throttle).
func (p *EEVDF) enqueueUp(rq *erq) {
	for rq.g != 0 {
		if p.bw[rq.g].quota > 0 && !rq.throttled && rq.curr == noEnt && rq.rr <= 0 {
			p.accountRuntime(rq, 0)
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
			if p.bw[rq.g].quota > 0 {
				p.returnRuntime(rq)
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

// shares is calc_group_shares (kernel/sched/fair.c v6.18) for rq's group
// entity: the group's shares × this CPU's load / the group's load over all
// CPUs, clamped to [1, shares]. The kernel's load is max(the queued weight,
// the PELT load average); this model uses the queued weight, so a group
// whose tasks sleep briefly gives up its share on that CPU at once rather
// than over PELT's 32 ms half-life.
func (p *EEVDF) shares(rq *erq) int64 {
	tg := p.groups[rq.g].Shares
	var total int64
	for c := 0; c < p.ncpu; c++ {
		total += p.rqOf(rq.g, c).sumW
	}
	if total <= 0 || rq.sumW >= total {
		return tg
	}
	return min(max(tg*rq.sumW/total, 1), tg)
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
	cr, tr := p.rqOf(curr.Group, cpu), p.rqOf(t.Group, cpu)
	ci, ti = curr.ID, t.ID
	dc, dt := p.depth(curr.Group), p.depth(t.Group)
	for ; dc > dt; dc-- {
		ci, cr = p.gid(cr.g, cpu), p.parentRq(cr)
	}
	for ; dt > dc; dt-- {
		ti, tr = p.gid(tr.g, cpu), p.parentRq(tr)
	}
	for cr != tr {
		ci, cr = p.gid(cr.g, cpu), p.parentRq(cr)
		ti, tr = p.gid(tr.g, cpu), p.parentRq(tr)
	}
	return cr, ci, ti, p.ent(ci).queued && p.ent(ti).queued
}

// accountRuntime is __account_cfs_rq_runtime: delta ns of run time off
// rq's runtime_remaining; when none is left, more from the pool
// (assign_cfs_rq_runtime), or a resched so that the pick throttles rq.
func (p *EEVDF) accountRuntime(rq *erq, delta int64) {
	rq.rr -= delta
	if rq.rr > 0 || rq.throttled {
		return
	}
	if !p.assignRuntime(rq, p.bwSlice) && rq.curr != noEnt {
		p.sim.Resched(rq.cpu)
	}
}

// assignRuntime is __assign_cfs_rq_runtime: take up to target −
// runtime_remaining ns from the pool; reports whether rq has runtime left.
func (p *EEVDF) assignRuntime(rq *erq, target int64) bool {
	b := &p.bw[rq.g]
	p.startPeriod(rq.g)
	if want := target - rq.rr; b.pool > 0 && want > 0 {
		amt := min(b.pool, want)
		b.pool -= amt
		rq.rr += amt
		b.idle = false
	}
	return rq.rr > 0
}

// checkRuntime is check_cfs_rq_runtime on the group runqueue rq as the
// pick descends into it: out of runtime, it is throttled. It reports
// whether rq's group entity left its parent (v6.17's group dequeue), so
// the pick starts over.
func (p *EEVDF) checkRuntime(rq *erq) bool {
	if p.bw[rq.g].quota <= 0 || rq.rr > 0 || rq.throttled {
		return false
	}
	return p.throttle(rq)
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
	if p.assignRuntime(rq, 1) {
		return false
	}
	b := &p.bw[rq.g]
	rq.throttled = true
	b.throttled = append(b.throttled, rq)
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
// runqueue: it leaves rq for rq's limbo list (throttled_limbo_list).
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
	rq.limbo = append(rq.limbo, id)
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
func (p *EEVDF) unthrottle(rq *erq) {
	b := &p.bw[rq.g]
	if p.timers != nil {
		p.timers.Sync(rq.cpu)
	}
	rq.throttled = false
	if rq.throttledAt >= 0 {
		b.stats.ThrottledNS += p.sim.Now() - rq.throttledAt
	}
	for i, r := range b.throttled {
		if r == rq {
			b.throttled = append(b.throttled[:i], b.throttled[i+1:]...)
			break
		}
	}
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

// startPeriod is start_cfs_bandwidth: the period timer runs, its expiries
// keeping their phase across idle stops (hrtimer_forward_now).
func (p *EEVDF) startPeriod(g int) {
	b := &p.bw[g]
	if b.timerOn || p.timers == nil {
		return
	}
	b.timerOn = true
	now := p.sim.Now()
	if b.next <= 0 {
		b.next = now + b.period
	} else if b.next <= now {
		b.next += ((now-b.next)/b.period + 1) * b.period
	}
	at := b.next
	p.timers.AddTimer(at, func() { p.periodTimer(g, at) })
}

// periodTimer is sched_cfs_period_timer / do_sched_cfs_period_timer
// (kernel/sched/fair.c v6.18): count the period, refill the pool to at
// most quota + burst, stop after an idle period, else count a throttled
// period and hand the pool to the throttled runqueues.
func (p *EEVDF) periodTimer(g int, at int64) {
	b := &p.bw[g]
	if !b.timerOn || at != b.next {
		return
	}
	b.stats.NrPeriods++
	throttled := len(b.throttled) > 0
	b.pool = min(b.pool+b.quota, b.quota+b.burst)
	if b.idle && !throttled {
		b.timerOn = false
		return
	}
	if !throttled {
		b.idle = true
	} else {
		b.stats.NrThrottled++
		p.distribute(g)
		b.idle = false
	}
	b.next = at + b.period
	next := b.next
	p.timers.AddTimer(next, func() { p.periodTimer(g, next) })
}

// distribute is distribute_cfs_runtime: each throttled runqueue in turn
// gets what it is short plus 1 ns while the pool lasts, and is unthrottled.
func (p *EEVDF) distribute(g int) {
	b := &p.bw[g]
	for _, rq := range append([]*erq(nil), b.throttled...) {
		if b.pool <= 0 {
			return
		}
		amt := min(b.pool, -rq.rr+1)
		b.pool -= amt
		rq.rr += amt
		if rq.rr > 0 {
			p.unthrottle(rq)
		}
	}
}

// returnRuntime is __return_cfs_rq_runtime: an emptied group runqueue
// keeps minCfsRqRuntime and gives the rest back; if that leaves more than
// a slice in the pool while runqueues are throttled, the slack timer hands
// it out cfsSlackPeriod later (start_cfs_slack_bandwidth,
// do_sched_cfs_slack_timer), unless a refresh is due first.
func (p *EEVDF) returnRuntime(rq *erq) {
	slack := rq.rr - minCfsRqRuntime
	if slack <= 0 {
		return
	}
	b := &p.bw[rq.g]
	b.pool += slack
	rq.rr -= slack
	if b.pool <= p.bwSlice || len(b.throttled) == 0 || b.slackOn || p.timers == nil {
		return
	}
	now := p.sim.Now()
	if b.timerOn && b.next-now < cfsSlackPeriod+minBandwidthExpiration {
		return
	}
	b.slackOn = true
	g := rq.g
	p.timers.AddTimer(now+cfsSlackPeriod, func() {
		b.slackOn = false
		if b.timerOn && b.next-p.sim.Now() < minBandwidthExpiration {
			return
		}
		if b.pool > p.bwSlice {
			p.distribute(g)
		}
	})
}

// GroupStats implements GroupReporter: cpu.stat's counts for each group
// with a quota (throttled time of runqueues still throttled at the end is
// not counted).
func (p *EEVDF) GroupStats() []GroupStats {
	var out []GroupStats
	for g := 1; g < len(p.bw); g++ {
		if p.bw[g].quota > 0 {
			out = append(out, p.bw[g].stats)
		}
	}
	return out
}
