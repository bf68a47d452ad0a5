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

// BFS constants (bfs.c v0.440).
const (
	bfsRRInterval = 6       // ms, rr_interval
	bfsReschedUS  = 100_000 // ns, RESCHED_US = 100 µs
	bfsMSToNS1    = 1 << 20 // ns, MS_TO_NS(1)
)

// bfsPrioRatios returns prio_ratios[40]: 128 at nice −20, each next nice
// level 11/10 of the previous (integer arithmetic, bfs.c sched_init).
func bfsPrioRatios() [40]int64 {
	var r [40]int64
	r[0] = 128
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
	deadline int64
	slice    int64 // ns left of the current slice
	queued   bool
}

// BFS is the bfs policy; see the file comment.
type BFS struct {
	sim   Sim
	rrMS  int64
	q     []*Task // the global runqueue (running tasks included)
	ts    []bfsTask
	qlen  []int // per CPU: queue length seen by the last pick (ScanLength)
	ratio [40]int64
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
			Min: 1, Max: 1000}},
		New: func(v Values, _ int) (Policy, error) {
			return NewStack(NewBFS(v.Int("rr_interval", bfsRRInterval))), nil
		},
	})
}

// Name implements Policy.
func (b *BFS) Name() string { return "bfs" }

// Init implements Policy.
func (b *BFS) Init(s Sim) { b.sim = s; b.qlen = make([]int, s.NumCPUs()) }

// expire is time_slice_expired: a full slice and a new deadline.
func (b *BFS) expire(t *Task) {
	ts := &b.ts[t.ID]
	ts.slice = BFSTimeslice(b.rrMS)
	n := min(max(t.Nice, -20), 19)
	ts.deadline = b.sim.Now() + b.ratio[n+20]*b.rrMS*(bfsMSToNS1/128)
}

// TaskNew implements Policy (sched_fork).
func (b *BFS) TaskNew(t *Task) {
	for len(b.ts) <= t.ID {
		b.ts = append(b.ts, bfsTask{})
	}
	if p := t.Parent; p != nil && p.ID < len(b.ts) {
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
	if flags&EnqueueWakeup != 0 && ts.slice < bfsReschedUS {
		b.expire(t)
	}
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

// PickNext implements Policy: the earliest deadline, pulled from wherever
// it was queued.
func (b *BFS) PickNext(cpu int, prev *Task) *Task {
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
	return b.ts[t.ID].deadline < b.ts[curr.ID].deadline
}

// UpdateCurr implements Policy: charge the slice; refill it with a new
// deadline and ask for a reschedule when less than RESCHED_US is left.
func (b *BFS) UpdateCurr(cpu int, curr *Task, delta int64) {
	ts := &b.ts[curr.ID]
	ts.slice -= delta
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
