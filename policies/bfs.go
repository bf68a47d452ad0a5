package policies

// BFS, the Brain Fuck Scheduler of Con Kolivas, as of v0.440 (2013, for
// Linux 3.x; patch kernel/sched/bfs.c). One global runqueue shared by all
// CPUs, earliest virtual deadline first:
//
//   - rr_interval = 6 ms (sysctl kernel.rr_interval, in ms);
//   - time slice: timeslice() = MS_TO_US(rr_interval) = rr_interval << 10 µs
//     (6144 µs), a deliberate shift approximation (MS_TO_US(x) = x << 10);
//   - prio_ratios[0] = 128, prio_ratios[i] = prio_ratios[i−1] × 11 / 10
//     (integer), one per nice level, user_prio = nice + 20;
//   - virtual deadline, set when a slice is refilled (time_slice_expired):
//     deadline = niffies + prio_ratios[user_prio] × rr_interval × (MS_TO_NS(1) / 128),
//     MS_TO_NS(1) = 1 << 20 ns (prio_deadline_diff); niffies is a monotonic
//     ns clock (here the simulated time);
//   - a task keeps its deadline and what is left of its slice while it
//     sleeps; a slice with less than RESCHED_US = 100 µs left is refilled
//     with a new deadline (when checked at the tick, task_running_tick, or
//     at a wakeup);
//   - fork (sched_fork): parent and child share the parent's remaining
//     slice in halves, the child inherits the parent's deadline;
//   - pick (earliest_deadline_task): the queued task with the earliest
//     deadline that may run on this CPU, O(n) over the queue;
//   - wakeup (try_preempt / best_mask_cpu): the task's previous CPU if
//     idle, else any idle CPU, else the CPU whose running task has the
//     latest deadline, preempted when the wakee's deadline is earlier.
//
// Simplifications: the cache-locality offset BFS adds to the deadline of a
// task that last ran on another CPU (cache_distance, which is 0 or small on
// a single-package machine) is reduced to a tie-break in favour of the CPU
// the task last ran on; SCHED_ISO and SCHED_IDLEPRIO are not modelled (real
// -time tasks go to the RT class stacked above, as in every policy here).
//
// The BFS of 2009 (era=2.6.31, the BFS of the latt and x264 postings),
// each switch off by default so that plain "bfs" stays v0.440; sources:
// kernel/sched_bfs.c of that BFS as carried, for example, by the 2.6.29
// backport erasmux/hero-2.6.29-flykernel (commit 146e67f6):
//
//   - JIFFY_DEADLINE: deadlines in jiffies, deadline = jiffies +
//     prio_deadline_diff, prio_deadline_diff = prio_ratios[user_prio] ×
//     rr_interval × HZ / (1000 × 100) (at least 1), prio_ratios[0] = 100
//     and × 11/10 per nice level (sched_init); the slice is MS_TO_US(
//     rr_interval) = rr_interval × 1000 µs and is refilled (with a new
//     deadline) only once it is used up (check_deadline in schedule();
//     the tick asks for a reschedule at 0), never at a wakeup; a fork
//     halves the parent's slice if positive and the child keeps the
//     parent's deadline (dup_task_struct copies it; sched_fork sets only
//     the slice);
//   - EXPIRED_FIFO: earliest_deadline_task takes the first queued task (in
//     queue order: enqueue_task adds at the tail, and schedule() returns a
//     preempted task to the tail) whose deadline has passed
//     (time_is_before_jiffies), else the earliest deadline;
//   - SYNC_NO_PREEMPT: try_to_wake_up calls try_preempt for a WF_SYNC
//     wakeup only when an idle CPU suits the task ("sync wakeups ... don't
//     trigger a preemption if there are no idle cpus, instead waiting for
//     current to deschedule");
//   - RR_SCALE: sched_init_smp multiplies rr_interval by 1 +
//     ilog2(num_online_cpus()) (12 ms on a dual core).

// BFS constants (bfs.c v0.440).
const (
	bfsRRInterval = 6       // ms, rr_interval
	bfsReschedUS  = 100_000 // ns, RESCHED_US = 100 µs
	bfsMSToNS1    = 1 << 20 // ns, MS_TO_NS(1)
)

// bfsPrioRatios returns prio_ratios[40]: 128 at nice −20, each next nice
// level 11/10 of the previous (integer arithmetic, bfs.c sched_init).
func bfsPrioRatios() [40]int64 { return prioRatiosFrom(128) }

// prioRatiosFrom returns prio_ratios[40] starting at first (nice −20), ×
// 11/10 per nice level, truncated (sched_init of every BFS version; the
// 2009 BFS starts at 100, v0.440 at 128).
func prioRatiosFrom(first int64) [40]int64 {
	var r [40]int64
	r[0] = first
	for i := 1; i < 40; i++ {
		r[i] = r[i-1] * 11 / 10
	}
	return r
}

// BFSDeadlineDiff returns prio_deadline_diff in ns for a nice level and
// rr_interval in ms: prio_ratios[nice+20] × rr_interval × (2^20 / 128).
func BFSDeadlineDiff(nice int, rrIntervalMS int64) int64 {
	r := bfsPrioRatios()
	nice = min(max(nice, -20), 19)
	return r[nice+20] * rrIntervalMS * (bfsMSToNS1 / 128)
}

// BFSTimeslice returns timeslice() in ns for rr_interval in ms:
// (rr_interval << 10) µs.
func BFSTimeslice(rrIntervalMS int64) int64 { return (rrIntervalMS << 10) * 1000 }

type bfsTask struct {
	deadline int64 // ns (v0.440) or jiffies (JIFFY_DEADLINE)
	slice    int64 // ns left of the current slice
	queued   bool
	seq      int64 // queue position: when last put at the queue's tail
	sync     bool  // the wakeup SelectCPU last saw was WF_SYNC
}

// bfs2009 are the switches of the 2009 BFS (see the file comment).
type bfs2009 struct {
	jiffy, fifo, syncNoPreempt, rrScale bool
}

// BFS is the bfs policy; see the file comment.
type BFS struct {
	sim   Sim
	rrMS  int64
	q     []*Task // the global runqueue (running tasks included)
	ts    []bfsTask
	qlen  []int // per CPU: queue length seen by the last pick (ScanLength)
	ratio [40]int64
	old   bfs2009
	seq   int64 // last queue position handed out
}

// BFS2009DeadlineDiff returns the 2009 prio_deadline_diff in jiffies for a
// nice level, rr_interval in ms and HZ: prio_ratios[nice+20] × rr_interval
// × HZ / 100000, at least 1.
func BFS2009DeadlineDiff(nice int, rrIntervalMS int64, hz int) int64 {
	r := prioRatiosFrom(100)
	nice = min(max(nice, -20), 19)
	return max(r[nice+20]*rrIntervalMS*int64(hz)/100_000, 1)
}

// NewBFS returns a bfs policy with rr_interval in ms.
func NewBFS(rrIntervalMS int) *BFS {
	if rrIntervalMS <= 0 {
		rrIntervalMS = bfsRRInterval
	}
	return &BFS{rrMS: int64(rrIntervalMS), ratio: bfsPrioRatios()}
}

func init() {
	Register(Info{
		Name:    "bfs",
		Summary: "BFS v0.440: one global runqueue, earliest virtual deadline first, RT class above",
		Source:  "Con Kolivas, BFS v0.440 patch (kernel/sched/bfs.c, 2013)",
		Params: []Param{{Name: "rr_interval", Kind: ParamInt, Default: "6",
			Doc: "round-robin interval in ms: slice = rr_interval<<10 µs, deadline offset scales with it", Source: "bfs.c v0.440 rr_interval; 1..1000 as its sysctl (kernel/sysctl.c of the BFS patch: one..one_thousand)",
			Min: 1, Max: 1000},
			{Name: "JIFFY_DEADLINE", Kind: ParamFeature, Default: "off",
				Doc:    "the 2009 deadlines: jiffies + prio_ratios (from 100) × rr_interval × HZ/100000; slice rr_interval × 1000 µs, refilled only when used up; a forked child keeps the parent's deadline",
				Source: "kernel/sched_bfs.c of the 2009 BFS (prio_deadline_diff, time_slice_expired, check_deadline, sched_fork, sched_init)"},
			{Name: "EXPIRED_FIFO", Kind: ParamFeature, Default: "off",
				Doc:    "the pick takes the first queued task whose deadline has passed, in queue order, before looking for the earliest deadline",
				Source: "kernel/sched_bfs.c of the 2009 BFS (earliest_deadline_task: time_is_before_jiffies, FIFO)"},
			{Name: "SYNC_NO_PREEMPT", Kind: ParamFeature, Default: "off",
				Doc:    "a WF_SYNC wakeup preempts no running task (it waits for one to deschedule) unless a CPU is idle",
				Source: "kernel/sched_bfs.c of the 2009 BFS (try_to_wake_up: if (!sync || suitable_idle_cpus(p)) try_preempt)"},
			{Name: "RR_SCALE", Kind: ParamFeature, Default: "off",
				Doc:    "rr_interval × (1 + ilog2(ncpus))",
				Source: "kernel/sched_bfs.c of the 2009 BFS (sched_init_smp)"}},
		New: func(v Values, ncpus int) (Policy, error) {
			b := NewBFS(v.Int("rr_interval", bfsRRInterval))
			b.old = bfs2009{jiffy: v.Feature("JIFFY_DEADLINE", false), fifo: v.Feature("EXPIRED_FIFO", false),
				syncNoPreempt: v.Feature("SYNC_NO_PREEMPT", false), rrScale: v.Feature("RR_SCALE", false)}
			return NewStack(b), nil
		},
	})
}

// Name implements Policy.
func (b *BFS) Name() string { return "bfs" }

// Init implements Policy.
func (b *BFS) Init(s Sim) {
	b.sim = s
	b.qlen = make([]int, s.NumCPUs())
	if b.old.rrScale {
		b.rrMS *= int64(1 + ilog2(s.NumCPUs()))
	}
}

func ilog2(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

// jiffies is the tick count now (JIFFY_DEADLINE).
func (b *BFS) jiffies() int64 { return b.sim.Now() / (1_000_000_000 / int64(max(b.sim.HZ(), 1))) }

// expire is time_slice_expired: a full slice and a new deadline.
func (b *BFS) expire(t *Task) {
	ts := &b.ts[t.ID]
	if b.old.jiffy {
		ts.slice = b.rrMS * 1_000_000
		ts.deadline = b.jiffies() + BFS2009DeadlineDiff(t.Nice, b.rrMS, b.sim.HZ())
		return
	}
	ts.slice = BFSTimeslice(b.rrMS)
	n := min(max(t.Nice, -20), 19)
	ts.deadline = b.sim.Now() + b.ratio[n+20]*b.rrMS*(bfsMSToNS1/128)
}

// TaskNew implements Policy (sched_fork).
func (b *BFS) TaskNew(t *Task) {
	for len(b.ts) <= t.ID {
		b.ts = append(b.ts, bfsTask{})
	}
	if p := t.Parent; p != nil && p.ID < len(b.ts) && b.old.jiffy {
		pt := &b.ts[p.ID]
		if pt.slice > 0 {
			pt.slice /= 2
		}
		b.ts[t.ID] = bfsTask{deadline: pt.deadline, slice: pt.slice}
		if pt.slice > 0 {
			return
		}
	} else if p != nil && p.ID < len(b.ts) {
		pt := &b.ts[p.ID]
		pt.slice /= 2
		b.ts[t.ID] = bfsTask{deadline: pt.deadline, slice: pt.slice}
		if pt.slice >= bfsReschedUS {
			return
		}
	}
	b.expire(t)
}

// Deadline returns t's virtual deadline in ns (for tests and reports).
func (b *BFS) Deadline(t *Task) int64 { return b.ts[t.ID].deadline }

func (b *BFS) idle(cpu int) bool { return b.sim.Curr(cpu) == nil && b.sim.NrRunning(cpu) == 0 }

// SelectCPU implements Policy: prev if idle, else an idle CPU, else the CPU
// running the latest deadline.
func (b *BFS) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	n := b.sim.NumCPUs()
	// The replay gives WF_SYNC to SelectCPU only: kept for the preemption
	// check of the same wakeup (SYNC_NO_PREEMPT).
	b.ts[t.ID].sync = flags&WakeSync != 0
	if !t.Affinity.Has(prev) || prev >= n {
		prev = t.Affinity.First()
	}
	if b.idle(prev) {
		return prev
	}
	for c := 0; c < n; c++ {
		if t.Affinity.Has(c) && b.idle(c) {
			return c
		}
	}
	best, latest := prev, int64(-1<<62)
	for c := 0; c < n; c++ {
		cur := b.sim.Curr(c)
		if !t.Affinity.Has(c) || cur == nil || cur.Class.RealTime() {
			continue
		}
		if d := b.ts[cur.ID].deadline; d > latest {
			best, latest = c, d
		}
	}
	return best
}

// Enqueue implements Policy: onto the global queue; a migration between
// CPUs changes nothing there.
func (b *BFS) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	ts := &b.ts[t.ID]
	if ts.queued {
		return
	}
	if flags&EnqueueWakeup != 0 && ts.slice < bfsReschedUS && !b.old.jiffy {
		b.expire(t)
	}
	b.seq++
	ts.seq = b.seq
	ts.queued = true
	b.q = append(b.q, t)
}

// Dequeue implements Policy.
func (b *BFS) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	if flags == DequeueMigrate {
		return
	}
	b.ts[t.ID].queued = false
	for i, x := range b.q {
		if x == t {
			b.q = append(b.q[:i], b.q[i+1:]...)
			return
		}
	}
}

// earliest returns the queued, not running, task with the earliest
// deadline that may run on cpu; ties go to a task that last ran on cpu,
// then to the lower ID.
func (b *BFS) earliest(cpu int) *Task {
	if b.old.fifo || b.old.jiffy {
		return b.earliest2009(cpu)
	}
	var best *Task
	for _, t := range b.q {
		if t.State != TaskRunnable || !t.Affinity.Has(cpu) {
			continue
		}
		if best == nil {
			best = t
			continue
		}
		d, bd := b.ts[t.ID].deadline, b.ts[best.ID].deadline
		if d < bd || d == bd && (t.CPU == cpu && best.CPU != cpu || (t.CPU == cpu) == (best.CPU == cpu) && t.ID < best.ID) {
			best = t
		}
	}
	return best
}

// earliest2009 is earliest_deadline_task of the 2009 BFS: in queue order,
// with EXPIRED_FIFO the first task whose deadline has passed, else the
// earliest deadline (the first in queue order among equal ones).
func (b *BFS) earliest2009(cpu int) *Task {
	now := b.sim.Now()
	if b.old.jiffy {
		now = b.jiffies()
	}
	var best, first *Task
	for _, t := range b.q {
		if t.State != TaskRunnable || !t.Affinity.Has(cpu) {
			continue
		}
		ts := &b.ts[t.ID]
		if b.old.fifo && ts.deadline < now && (first == nil || ts.seq < b.ts[first.ID].seq) {
			first = t
		}
		if best == nil || ts.deadline < b.ts[best.ID].deadline ||
			ts.deadline == b.ts[best.ID].deadline && ts.seq < b.ts[best.ID].seq {
			best = t
		}
	}
	if first != nil {
		return first
	}
	return best
}

// PickNext implements Policy: the earliest deadline, pulled from wherever
// it was queued.
func (b *BFS) PickNext(cpu int, prev *Task) *Task {
	if prev != nil && prev.ID < len(b.ts) {
		// schedule(): check_deadline(prev), then return_task puts a
		// runnable prev at the queue's tail.
		if b.old.jiffy && b.ts[prev.ID].slice <= 0 {
			b.expire(prev)
		}
		if (b.old.jiffy || b.old.fifo) && prev.State == TaskRunnable && b.ts[prev.ID].queued {
			b.seq++
			b.ts[prev.ID].seq = b.seq
		}
	}
	b.qlen[cpu] = len(b.q)
	t := b.earliest(cpu)
	if t == nil {
		return nil
	}
	if t.CPU != cpu && b.sim.Migrate(t, cpu) != nil {
		return nil
	}
	return t
}

// CheckPreemptWakeup implements Policy: an earlier deadline preempts.
func (b *BFS) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	sync := flags&WakeSync != 0 || b.ts[t.ID].sync
	b.ts[t.ID].sync = false
	if b.old.syncNoPreempt && sync {
		// Reached only for a busy CPU: SelectCPU takes an idle one first.
		return false
	}
	return b.ts[t.ID].deadline < b.ts[curr.ID].deadline
}

// UpdateCurr implements Policy: charge the slice; refill it with a new
// deadline and ask for a reschedule when less than RESCHED_US is left.
func (b *BFS) UpdateCurr(cpu int, curr *Task, delta int64) {
	ts := &b.ts[curr.ID]
	ts.slice -= delta
	if b.old.jiffy {
		// The tick asks for a reschedule once the slice is used up;
		// schedule() refills it (PickNext).
		if ts.slice <= 0 {
			b.sim.Resched(cpu)
		}
		return
	}
	if ts.slice < bfsReschedUS {
		b.expire(curr)
		b.sim.Resched(cpu)
	}
}

// Tick implements Policy; UpdateCurr did the accounting.
func (b *BFS) Tick(cpu int, curr *Task) bool { return false }

// Balance implements Policy: with one global queue there is nothing to
// balance, but an idle CPU takes the earliest waiting task at once.
func (b *BFS) Balance(cpu int, kind BalanceKind) {
	if kind == BalancePeriodic || b.sim.Curr(cpu) != nil || b.sim.NrRunning(cpu) > 0 {
		return
	}
	if t := b.earliest(cpu); t != nil {
		_ = b.sim.Migrate(t, cpu)
	}
}

// TaskDead implements Policy.
func (b *BFS) TaskDead(t *Task) {}

// ScanLength implements DecisionCoster: the pick scans the whole queue.
func (b *BFS) ScanLength(cpu int) int { return b.qlen[cpu] }
