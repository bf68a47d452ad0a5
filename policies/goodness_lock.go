package policies

// The cost of a 2.4 scheduling decision as time, and the global
// runqueue_lock as a resource two CPUs compete for (kernel/sched.c
// v2.4.x):
//
//   - schedule() holds spin_lock_irq(&runqueue_lock) while goodness()
//     walks the runqueue; entry_cost ns per entry walked is time the lock
//     is held. With RUNQUEUE_LOCK a CPU deciding while another CPU holds
//     the lock spins until it is free (the spin is CPU time lost as well),
//     so decisions on the two CPUs serialise;
//   - a wakeup takes the same lock (try_to_wake_up: spin_lock_irqsave(
//     &runqueue_lock) around add_to_runqueue and reschedule_idle), so with
//     RUNQUEUE_LOCK it waits for a decision that holds it, and holds it for
//     (1 + ncpus) × entry_cost itself: the woken task's line and the
//     current task of each CPU that reschedule_idle weighs (it delays a
//     decision that comes meanwhile the same way). The CPU that wakes pays
//     both: the waker's CPU, or for a timer or interrupt wakeup (waker
//     unknown) the CPU the task last ran on; when that CPU holds the lock
//     itself (its interrupts are off for the scan) the wakeup waits
//     without spinning and pays only the hold. The simulator has no hook to
//     charge a wakeup, so the time is owed and charged with that CPU's
//     next decision (the same CPU time, a little later);
//   - the epoch recalculation drops runqueue_lock and walks every task
//     under read_lock(&tasklist_lock), entry_cost ns per task: CPU time,
//     but no wait for the other CPU (readers share the lock);
//   - mq-hp and mq-lse have one lock per CPU queue (the patches' per-queue
//     runqueue locks), so a decision waits only for a decision on the same
//     queue.
//
// The simulator charges DecisionNS after PickNext on top of its own
// Config costs (CostModel); with entry_cost 0 and RUNQUEUE_LOCK off (the
// defaults) it is 0 and the policies behave as before.
var goodnessCostParams = []Param{
	{Name: "entry_cost", Kind: ParamDuration, Default: "0",
		Doc:    "CPU time per runqueue entry goodness() examines and per task the recalculation updates (0: decisions are free; replay --scan-cost charges the same without the lock)",
		Source: "no published per-entry figure: stated by the caller (bench/experiments states and derives its value)",
		Min:    0, Max: 1_000_000},
	{Name: "RUNQUEUE_LOCK", Kind: ParamFeature, Default: "off",
		Doc:    "decisions hold the runqueue lock (2.4: one global lock) for their scan, and wakeups for (1 + ncpus) entries: a CPU deciding or waking while another holds it spins",
		Source: "kernel/sched.c v2.4.x schedule(): spin_lock_irq(&runqueue_lock) around the goodness() loop; try_to_wake_up: spin_lock_irqsave(&runqueue_lock) around add_to_runqueue and reschedule_idle"},
}

// costsFrom sets g's decision costs from v (goodnessCostParams).
func (g *Goodness) costsFrom(v Values) *Goodness {
	g.entryCost = v.Duration("entry_cost", 0)
	g.lock = v.Feature("RUNQUEUE_LOCK", false)
	return g
}

// DecisionNS implements CostModel: entry_cost × the entries the last
// decision on cpu scanned, plus, with RUNQUEUE_LOCK, the time it waited
// for its queue's lock. The lock is held from the end of the wait for
// the scan's share (the recalculation runs outside it).
func (g *Goodness) DecisionNS(cpu int, prev, next *Task) int64 {
	if g.entryCost == 0 && !g.lock {
		return 0
	}
	scan := g.entryCost * int64(g.scan[cpu]-g.rec[cpu])
	recalc := g.entryCost * int64(g.rec[cpu])
	if !g.lock {
		return scan + recalc
	}
	qi := g.queueOf(cpu)
	now := g.sim.Now()
	wait := max(g.lockFree[qi]-now, 0)
	if g.lockOwner[qi] == cpu {
		wait = 0 // its own wakeups' holds: owed below
	}
	g.lockFree[qi] = max(g.lockFree[qi], now) + scan
	g.lockOwner[qi] = cpu
	owed := g.owed[cpu]
	g.owed[cpu] = 0
	return wait + scan + recalc + owed
}

// wakeLock is the wakeup's share of the runqueue lock (see the file
// comment): t is placed on queue qi, woken by waker (nil: a timer or an
// interrupt). It adds the wait and the hold to what the waking CPU owes.
func (g *Goodness) wakeLock(t, waker *Task, qi int) {
	if !g.lock {
		return
	}
	cpu := g.ts[t.ID].last
	if waker != nil && waker.State == TaskRunning {
		cpu = waker.CPU
	}
	if cpu < 0 || cpu >= len(g.owed) {
		cpu = t.CPU
	}
	now := g.sim.Now()
	wait := max(g.lockFree[qi]-now, 0)
	if g.lockOwner[qi] == cpu {
		wait = 0
	}
	hold := g.entryCost * int64(1+g.sim.NumCPUs())
	g.lockFree[qi] = max(g.lockFree[qi], now) + hold
	g.lockOwner[qi] = cpu
	g.owed[cpu] += wait + hold
}

var _ CostModel = (*Goodness)(nil)
