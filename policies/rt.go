package policies

// The real-time classes SCHED_FIFO and SCHED_RR (kernel/sched/rt.c, Linux
// 2.6.25 through 6.18): per-CPU queues of 99 priority levels, the highest
// priority runs, FIFO order within a level; SCHED_RR rotates a level every
// sched_rr_timeslice. A waking RT task preempts a lower-priority current
// task (wakeup_preempt_rt) and is placed on a CPU running something of lower
// priority when its previous CPU is busy with higher priority
// (select_task_rq_rt / find_lowest_rq).
//
// RT throttling (sched_rt_runtime_us = 950 ms per 1 s) and the 6.12+ fair
// deadline server are the Stack's (RT below a fair policy), not this
// class's: the "fifo" and "rr" policies alone have no fair task to serve.
// Not modelled: the push/pull IPIs are reduced to a pull when a CPU goes
// newly idle.

// RRTimeslice is sched_rr_timeslice: RR_TIMESLICE = 100 ms
// (include/linux/sched/rt.h, "RR_TIMESLICE (100 * HZ / 1000)").
const RRTimeslice = 100_000_000

// RT is the real-time class. Used alone (as the "fifo" and "rr" policies)
// it treats every task as real-time: fair tasks become SCHED_FIFO (or
// SCHED_RR) at priority 1. Stacked under Stack it handles only tasks whose
// Class is FIFO or RR.
type RT struct {
	name  string
	all   Class // ClassFIFO or ClassRR: treat every task as this class; ClassFair: only RT tasks
	slice int64 // RR time slice, ns
	sim   Sim
	q     [][]*Task // per CPU: queued RT tasks (the running one included), FIFO order per priority
	used  []int64   // per task: RR slice consumed, ns
	inQ   []bool    // per task: queued
}

// NewRT returns the RT class. all = ClassFIFO or ClassRR makes every task
// real-time (the "fifo" and "rr" policies); ClassFair stacks it above a
// fair policy (see Stack).
func NewRT(all Class, rrSlice int64) *RT {
	name := "rt"
	switch all {
	case ClassFIFO:
		name = "fifo"
	case ClassRR:
		name = "rr"
	}
	if rrSlice <= 0 {
		rrSlice = RRTimeslice
	}
	return &RT{name: name, all: all, slice: rrSlice}
}

// Name implements Policy.
func (r *RT) Name() string { return r.name }

// Init implements Policy.
func (r *RT) Init(s Sim) {
	r.sim = s
	r.q = make([][]*Task, s.NumCPUs())
}

func (r *RT) prio(t *Task) int {
	if t.Class.RealTime() {
		return t.RTPrio
	}
	if r.all != ClassFair {
		return 1
	}
	return 0
}

func (r *RT) class(t *Task) Class {
	if t.Class.RealTime() {
		return t.Class
	}
	return r.all
}

// TaskNew implements Policy.
func (r *RT) TaskNew(t *Task) {
	for len(r.used) <= t.ID {
		r.used = append(r.used, 0)
		r.inQ = append(r.inQ, false)
	}
}

// Has reports whether t belongs to this class.
func (r *RT) Has(t *Task) bool { return t.Class.RealTime() || r.all != ClassFair }

// Queued returns how many RT tasks are queued on cpu (running included).
func (r *RT) Queued(cpu int) int { return len(r.q[cpu]) }

// SelectCPU implements Policy: keep prev unless it runs a task of higher or
// equal RT priority; then take the CPU whose current task has the lowest
// priority, preferring idle CPUs and then prev, the lowest CPU number on
// ties (find_lowest_rq, cpupri).
func (r *RT) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	if !t.Affinity.Has(prev) {
		prev = t.Affinity.First()
	}
	if c := r.sim.Curr(prev); c == nil || !r.Has(c) || r.prio(c) < r.prio(t) {
		if len(r.q[prev]) == 0 || r.prio(r.q[prev][0]) < r.prio(t) {
			return prev
		}
	}
	best, bestRank := prev, 1<<30
	for cpu := 0; cpu < r.sim.NumCPUs(); cpu++ {
		if !t.Affinity.Has(cpu) {
			continue
		}
		rank := 0 // idle
		if c := r.sim.Curr(cpu); c != nil {
			rank = 1 // running a fair task
			if r.Has(c) {
				rank = 2 + r.prio(c)
			}
		}
		rank += 2 * len(r.q[cpu]) * 128
		if rank < bestRank {
			best, bestRank = cpu, rank
		}
	}
	return best
}

// Enqueue implements Policy: at the tail of its priority level.
func (r *RT) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	q := r.q[cpu]
	i := len(q)
	for i > 0 && r.prio(q[i-1]) < r.prio(t) {
		i--
	}
	q = append(q, nil)
	copy(q[i+1:], q[i:])
	q[i] = t
	r.q[cpu] = q
	r.inQ[t.ID] = true
}

// Dequeue implements Policy.
func (r *RT) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	q := r.q[cpu]
	for i, x := range q {
		if x == t {
			r.q[cpu] = append(q[:i], q[i+1:]...)
			break
		}
	}
	r.inQ[t.ID] = false
	if flags&DequeueSleep != 0 {
		r.used[t.ID] = 0
	}
}

// PickNext implements Policy: the head of the highest non-empty level.
func (r *RT) PickNext(cpu int, prev *Task) *Task {
	if len(r.q[cpu]) == 0 {
		return nil
	}
	return r.q[cpu][0]
}

// CheckPreemptWakeup implements Policy: a strictly higher priority preempts
// (wakeup_preempt_rt).
func (r *RT) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	return curr == nil || !r.Has(curr) || r.prio(t) > r.prio(curr)
}

// UpdateCurr implements Policy: RR slice accounting.
func (r *RT) UpdateCurr(cpu int, curr *Task, delta int64) { r.used[curr.ID] += delta }

// Tick implements Policy: an RR task that used its slice goes to the tail of
// its level (task_tick_rt); resched when another task of its level waits.
func (r *RT) Tick(cpu int, curr *Task) bool {
	if r.class(curr) != ClassRR || r.used[curr.ID] < r.slice {
		return false
	}
	r.used[curr.ID] = 0
	q := r.q[cpu]
	if len(q) < 2 || q[0] != curr || r.prio(q[1]) != r.prio(curr) {
		return false
	}
	r.Dequeue(cpu, curr, 0)
	r.Enqueue(cpu, curr, 0)
	return true
}

// Yield implements Yielder: yield_task_rt requeues the task at the tail
// of its priority level (requeue_task_rt(rq, rq->curr, 0),
// kernel/sched/rt.c v6.18), FIFO and RR alike; an RR task keeps the
// slice it has used.
func (r *RT) Yield(cpu int, curr *Task) {
	if !r.inQ[curr.ID] {
		return
	}
	r.Dequeue(cpu, curr, 0)
	r.Enqueue(cpu, curr, 0)
}

// Balance implements Policy: a newly idle CPU pulls the highest-priority
// queued, not running, RT task it may run (pull_rt_task).
func (r *RT) Balance(cpu int, kind BalanceKind) {
	if kind != BalanceNewIdle || len(r.q[cpu]) > 0 {
		return
	}
	var best *Task
	for src := range r.q {
		if src == cpu {
			continue
		}
		for _, t := range r.q[src] {
			if t.State == TaskRunnable && t.Affinity.Has(cpu) && (best == nil || r.prio(t) > r.prio(best)) {
				best = t
				break
			}
		}
	}
	if best != nil {
		_ = r.sim.Migrate(best, cpu)
	}
}

// TaskDead implements Policy.
func (r *RT) TaskDead(t *Task) {}
