package policies

// CFS bandwidth control (kernel/sched/fair.c, the same in v6.5 and v6.18
// for what is here): each group with a quota has a global pool refilled
// every period, its runqueue on each CPU takes runtime from the pool in
// slices, and a runqueue out of runtime is throttled until the period
// timer or the slack timer hands it more. This file holds the half that
// does not depend on how a policy queues its entities: the pool, the
// per-runqueue runtime, the period and slack timers and cpu.stat's counts.
// What throttling and unthrottling do to the queues (dequeue the group
// entity in v6.5-v6.17, or park tasks in a limbo list in v6.18) is the
// policy's (eevdf_group.go, cfs_group.go).

// minCfsRqRuntime is the runtime a group runqueue keeps when it empties
// and returns the rest of its runtime to the pool (min_cfs_rq_runtime,
// 1 ms, kernel/sched/fair.c v6.5 and v6.18).
const minCfsRqRuntime = 1_000_000

// cfsSlackPeriod is how long after a slack return the slack timer hands
// the pool to throttled runqueues (cfs_bandwidth_slack_period, 5 ms);
// minBandwidthExpiration is the least time before a period refresh that
// makes the slack timer worth starting or running (min_bandwidth_expiration,
// 2 ms; kernel/sched/fair.c v6.5 and v6.18).
const (
	cfsSlackPeriod         = 5_000_000
	minBandwidthExpiration = 2_000_000
)

// defaultCfsPeriod is the period of a group whose period is not set
// (default_cfs_period(), 100 ms, kernel/sched/fair.c v6.5 and v6.18).
const defaultCfsPeriod = 100_000_000

// defaultBandwidthSlice is sysctl_sched_cfs_bandwidth_slice, 5000 µs
// (kernel/sched/fair.c v3.2+, v6.5 and v6.18 alike).
const defaultBandwidthSlice = 5_000_000

// bandwidthSliceParam is the policy parameter that sets the bandwidth
// slice, in eevdf and cfs.
var bandwidthSliceParam = Param{Name: "cfs_bandwidth_slice", Kind: ParamDuration, Default: "5ms",
	Doc:    "runtime a CPU's group runqueue takes from its group's quota pool at a time (sched_cfs_bandwidth_slice_us)",
	Source: "kernel/sched/fair.c sysctl_sched_cfs_bandwidth_slice 5000 us (v3.2+)",
	Min:    1_000, Max: 1_000_000_000}

// rqRuntime is one group runqueue's part of its group's bandwidth: rr is
// runtime_remaining in ns; the runqueue is throttled since throttledAt
// (-1: not yet counting, see EEVDF.throttle).
type rqRuntime struct {
	rr          int64
	throttled   bool
	throttledAt int64
}

// bandwidth is one group's cfs_bandwidth.
type bandwidth struct {
	quota, period, burst int64
	pool                 int64 // cfs_b->runtime, ns
	timerOn, idle        bool
	slackOn              bool
	next                 int64 // ns, the period timer's next expiry
	throttled            []int // cfs_b->throttled_cfs_rq as runqueue keys, in throttle order
	stats                GroupStats
}

// bandwidthCtl is the bandwidth control of every group of one policy. A
// runqueue is named by a key, (g−1)·ncpu + cpu for group g's runqueue on
// cpu; rq returns its runtime state and unthrottle is the policy's
// unthrottle_cfs_rq, called when the pool pays a throttled runqueue's
// debt (it must call unthrottled).
type bandwidthCtl struct {
	sim        Sim
	timers     Timers
	slice      int64
	bw         []bandwidth
	rq         func(key int) *rqRuntime
	unthrottle func(key int)
}

// init sets the pools of groups with a quota; without simulator timers
// no group is limited.
func (c *bandwidthCtl) init(s Sim, groups []Group) {
	c.sim = s
	if t, ok := s.(Timers); ok {
		c.timers = t
	}
	c.bw = make([]bandwidth, len(groups))
	for g := 1; g < len(groups); g++ {
		gr := groups[g]
		if gr.Quota <= 0 || c.timers == nil {
			continue
		}
		period := gr.Period
		if period <= 0 {
			period = defaultCfsPeriod
		}
		c.bw[g] = bandwidth{quota: gr.Quota, period: period, burst: gr.Burst, pool: gr.Quota,
			stats: GroupStats{Path: gr.Path}}
	}
}

// limited reports whether group g has a quota (cfs_rq->runtime_enabled).
func (c *bandwidthCtl) limited(g int) bool { return g > 0 && g < len(c.bw) && c.bw[g].quota > 0 }

// due is check_cfs_rq_runtime's test: group g's runqueue rq has a quota,
// no runtime left and is not throttled yet, so it is to be throttled.
func (c *bandwidthCtl) due(g int, rq *rqRuntime) bool {
	return c.limited(g) && rq.rr <= 0 && !rq.throttled
}

// account is __account_cfs_rq_runtime: delta ns of run time off rq's
// runtime_remaining; when none is left, more from the pool
// (assign_cfs_rq_runtime), or, if rq has a running entity, a resched of
// cpu so that the pick throttles rq.
func (c *bandwidthCtl) account(g int, rq *rqRuntime, delta int64, running bool, cpu int) {
	rq.rr -= delta
	if rq.rr > 0 || rq.throttled {
		return
	}
	if !c.assign(g, rq, c.slice) && running {
		c.sim.Resched(cpu)
	}
}

// assign is __assign_cfs_rq_runtime: take up to target − runtime_remaining
// ns from the pool; reports whether rq has runtime left.
func (c *bandwidthCtl) assign(g int, rq *rqRuntime, target int64) bool {
	b := &c.bw[g]
	c.startPeriod(g)
	if want := target - rq.rr; b.pool > 0 && want > 0 {
		amt := min(b.pool, want)
		b.pool -= amt
		rq.rr += amt
		b.idle = false
	}
	return rq.rr > 0
}

// throttle is the bookkeeping half of throttle_cfs_rq: unless one more ns
// can be had from the pool, rq (key) joins the group's throttled list and
// true is returned; the caller dequeues and sets throttledAt.
func (c *bandwidthCtl) throttle(g, key int, rq *rqRuntime) bool {
	if c.assign(g, rq, 1) {
		return false
	}
	rq.throttled = true
	c.bw[g].throttled = append(c.bw[g].throttled, key)
	return true
}

// unthrottled is the bookkeeping half of unthrottle_cfs_rq: cpu's running
// task is charged up to now (the caller requeues next), rq leaves the
// throttled list and its throttled time is counted.
func (c *bandwidthCtl) unthrottled(g, key int, rq *rqRuntime, cpu int) {
	b := &c.bw[g]
	if c.timers != nil {
		c.timers.Sync(cpu)
	}
	rq.throttled = false
	if rq.throttledAt >= 0 {
		b.stats.ThrottledNS += c.sim.Now() - rq.throttledAt
	}
	for i, k := range b.throttled {
		if k == key {
			b.throttled = append(b.throttled[:i], b.throttled[i+1:]...)
			break
		}
	}
}

// startPeriod is start_cfs_bandwidth: the period timer runs, its expiries
// keeping their phase across idle stops (hrtimer_forward_now). The phase
// is not in a trace: the kernel set it when the group's timer first ran,
// mostly before the trace began, so the first refill after the group's
// first run in the simulation may come anywhere within a period. The first
// activation takes the mean of that uniform wait, half a period (with a
// whole period, the longest, a service's first burst of 69 ms under a 60
// ms quota was throttled 35 ms where the kernel, whose refill came during
// it, throttled nothing; new-user pass 30 F2). Later activations keep it.
func (c *bandwidthCtl) startPeriod(g int) {
	b := &c.bw[g]
	if b.timerOn || c.timers == nil {
		return
	}
	b.timerOn = true
	now := c.sim.Now()
	if b.next <= 0 {
		b.next = now + b.period/2
	} else if b.next <= now {
		b.next += ((now-b.next)/b.period + 1) * b.period
	}
	at := b.next
	c.timers.AddTimer(at, func() { c.periodTimer(g, at) })
}

// periodTimer is sched_cfs_period_timer / do_sched_cfs_period_timer
// (kernel/sched/fair.c v6.5 and v6.18): count the period, refill the pool
// to at most quota + burst, stop after an idle period, else count a
// throttled period and hand the pool to the throttled runqueues.
func (c *bandwidthCtl) periodTimer(g int, at int64) {
	b := &c.bw[g]
	if !b.timerOn || at != b.next {
		return
	}
	if b.quota <= 0 {
		b.timerOn = false // the limit was lifted (setLimit)
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
		c.distribute(g)
		b.idle = false
	}
	b.next = at + b.period
	next := b.next
	c.timers.AddTimer(next, func() { c.periodTimer(g, next) })
}

// distribute is distribute_cfs_runtime: each throttled runqueue in turn
// gets what it is short plus 1 ns while the pool lasts, and is unthrottled.
func (c *bandwidthCtl) distribute(g int) {
	b := &c.bw[g]
	for _, key := range append([]int(nil), b.throttled...) {
		if b.pool <= 0 {
			return
		}
		rq := c.rq(key)
		amt := min(b.pool, -rq.rr+1)
		b.pool -= amt
		rq.rr += amt
		if rq.rr > 0 {
			c.unthrottle(key)
		}
	}
}

// returnRuntime is __return_cfs_rq_runtime: an emptied group runqueue
// keeps minCfsRqRuntime and gives the rest back; if that leaves more than
// a slice in the pool while runqueues are throttled, the slack timer hands
// it out cfsSlackPeriod later (start_cfs_slack_bandwidth,
// do_sched_cfs_slack_timer), unless a refresh is due first.
func (c *bandwidthCtl) returnRuntime(g int, rq *rqRuntime) {
	slack := rq.rr - minCfsRqRuntime
	if slack <= 0 {
		return
	}
	b := &c.bw[g]
	b.pool += slack
	rq.rr -= slack
	if b.pool <= c.slice || len(b.throttled) == 0 || b.slackOn || c.timers == nil {
		return
	}
	now := c.sim.Now()
	if b.timerOn && b.next-now < cfsSlackPeriod+minBandwidthExpiration {
		return
	}
	b.slackOn = true
	c.timers.AddTimer(now+cfsSlackPeriod, func() {
		b.slackOn = false
		if b.timerOn && b.next-c.sim.Now() < minBandwidthExpiration {
			return
		}
		if b.pool > c.slice {
			c.distribute(g)
		}
	})
}

// groupStats is GroupReporter's answer: cpu.stat's counts for each group
// that had a quota (throttled time of runqueues still throttled at the end
// is not counted).
func (c *bandwidthCtl) groupStats() []GroupStats {
	var out []GroupStats
	for g := 1; g < len(c.bw); g++ {
		if c.bw[g].stats.Path != "" {
			out = append(out, c.bw[g].stats)
		}
	}
	return out
}

// setLimit is tg_set_cfs_bandwidth (kernel/sched/core.c v6.18) for group
// g now: its quota, period and burst become gr's; the pool is refilled
// (__refill_cfs_bandwidth_runtime: one quota more, at most quota + burst)
// and the period timer started when it is limited (start_cfs_bandwidth,
// which leaves a running timer as it is); each of its runqueues (keys, one
// per CPU) gets runtime_remaining 0 and, if throttled, is unthrottled.
// A quota <= 0 lifts the limit. Without simulator timers no group is
// limited (init).
func (c *bandwidthCtl) setLimit(g int, gr Group, keys []int) {
	if c.timers == nil || g <= 0 || g >= len(c.bw) {
		return
	}
	b := &c.bw[g]
	if gr.Quota > 0 {
		b.quota, b.period, b.burst = gr.Quota, gr.Period, gr.Burst
		if b.period <= 0 {
			b.period = defaultCfsPeriod
		}
		b.stats.Path = gr.Path
		b.pool = min(b.pool+b.quota, b.quota+b.burst)
		c.startPeriod(g)
	} else {
		b.quota = 0
	}
	for _, key := range keys {
		rq := c.rq(key)
		rq.rr = 0
		if rq.throttled {
			c.unthrottle(key)
		}
	}
}
