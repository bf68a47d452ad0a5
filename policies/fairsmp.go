package policies

// SMP placement and load balancing shared by the fair-class policies (cfs,
// eevdf), after kernel/sched/fair.c (Linux 5.10 to 6.18; the logic is the
// same in both eras for a single-LLC machine such as the recording VM):
//
//   - fork (select_task_rq_fair with SD_BALANCE_FORK -> sched_balance_find_dst_cpu):
//     the least loaded allowed CPU, an idle one first, the parent's CPU on ties;
//   - wakeup (WF_TTWU): wake_affine_idle chooses between the waker's CPU and
//     prev (an idle waker CPU wins, a sync wakeup onto a CPU running only the
//     waker wins, else an idle prev), WA_WEIGHT compares the runqueue loads,
//     then select_idle_sibling takes the target if idle, else an idle prev,
//     else any idle CPU of the LLC (all simulated CPUs share one LLC);
//   - newly idle balance (sched_balance_newidle): pull one task from the
//     busiest CPU, a cache-cold one (task_hot: last ran more than
//     sysctl_sched_migration_cost = 0.5 ms ago) before a cache-hot one;
//   - periodic balance (sched_balance_domains): every balance_interval
//     (sd_weight ms for the MC domain, times busy_factor 16 on a busy CPU),
//     pull (busiest - local)/2 tasks when the nr_running difference is at
//     least 2 (calculate_imbalance, group_has_spare / migrate_task).
//
// Not modelled: PELT load and utilization (loads are weights of queued
// tasks), SIS_UTIL, wake_wide, NUMA and SMT levels, misfit and asym packing.

// MigrationCost is sysctl_sched_migration_cost, 0.5 ms (kernel/sched/fair.c).
const MigrationCost = 500_000

type fairSMP struct {
	sim Sim
	// queued returns the fair tasks enqueued on cpu that could be
	// migrated (not running, not delayed).
	queued   func(cpu int) []*Task
	load     func(cpu int) int64 // sum of queued weights
	nextBal  []int64             // per CPU: next periodic balance time, ns
	interval int64               // ns, the MC domain's min balance interval
	busyFact int64
}

func (f *fairSMP) init(s Sim, queued func(int) []*Task, load func(int) int64) {
	f.sim, f.queued, f.load = s, queued, load
	f.nextBal = make([]int64, s.NumCPUs())
	// sd_init: min_interval = sd_weight ms, busy_factor = 16
	// (kernel/sched/topology.c).
	f.interval = int64(s.NumCPUs()) * 1_000_000
	f.busyFact = 16
}

func (f *fairSMP) idle(cpu int) bool { return f.sim.Curr(cpu) == nil && f.sim.NrRunning(cpu) == 0 }

func (f *fairSMP) selectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	n := f.sim.NumCPUs()
	if !t.Affinity.Has(prev) || prev >= n {
		prev = t.Affinity.First()
	}
	if flags&WakeFork != 0 {
		best, bestNr := -1, 0
		try := func(c int) {
			if c < 0 || c >= n || !t.Affinity.Has(c) {
				return
			}
			nr := f.sim.NrRunning(c)
			if best < 0 || nr < bestNr {
				best, bestNr = c, nr
			}
		}
		try(prev)
		for c := 0; c < n; c++ {
			try(c)
		}
		return best
	}
	target := prev
	if waker != nil && waker.State == TaskRunning && t.Affinity.Has(waker.CPU) && waker.CPU != prev {
		this := waker.CPU
		switch {
		case f.idle(this):
			if !f.idle(prev) {
				target = this
			}
		case flags&WakeSync != 0 && f.sim.NrRunning(this) == 1:
			target = this
		case f.idle(prev):
			target = prev
		default:
			// WA_WEIGHT: the lighter runqueue, counting the wakee.
			if f.load(this)+t.Weight < f.load(prev) {
				target = this
			}
		}
	}
	// select_idle_sibling
	if f.idle(target) {
		return target
	}
	if target != prev && f.idle(prev) {
		return prev
	}
	for c := 0; c < n; c++ {
		if t.Affinity.Has(c) && f.idle(c) {
			return c
		}
	}
	return target
}

// balance pulls tasks to cpu; see the file comment.
func (f *fairSMP) balance(cpu int, kind BalanceKind) {
	now := f.sim.Now()
	switch kind {
	case BalancePeriodic, BalanceIdle:
		if now < f.nextBal[cpu] {
			return
		}
		iv := f.interval
		if kind == BalancePeriodic && f.sim.Curr(cpu) != nil {
			iv *= f.busyFact
		}
		f.nextBal[cpu] = now + iv
	}
	busiest, most := -1, 0
	for c := 0; c < f.sim.NumCPUs(); c++ {
		if c == cpu {
			continue
		}
		if nr := f.sim.NrRunning(c); nr > most {
			busiest, most = c, nr
		}
	}
	local := f.sim.NrRunning(cpu)
	if busiest < 0 || most < 2 || most-local < 2 && !(kind == BalanceNewIdle && local == 0) {
		return
	}
	n := 1
	if kind != BalanceNewIdle {
		n = (most - local) / 2
	}
	for ; n > 0; n-- {
		var pick *Task
		for _, t := range f.queued(busiest) {
			if !t.Affinity.Has(cpu) || t.State != TaskRunnable {
				continue
			}
			if pick == nil {
				pick = t
				continue
			}
			hot, pickHot := now-t.LastRan < MigrationCost, now-pick.LastRan < MigrationCost
			if pickHot && !hot || hot == pickHot && t.LastRan < pick.LastRan {
				pick = t
			}
		}
		if pick == nil || f.sim.Migrate(pick, cpu) != nil {
			return
		}
	}
}
