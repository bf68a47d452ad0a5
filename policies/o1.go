package policies

// The O(1) scheduler of Linux 2.6.0 to 2.6.22 (kernel/sched.c, Ingo Molnar;
// constants and formulas as of 2.6.22). Per CPU, an active and an expired
// priority array of 140 FIFO lists with a bitmap; the highest priority
// (lowest prio value) of the active array runs; when the active array is
// empty the arrays are swapped.
//
//   - task_timeslice: SCALE_PRIO(DEF_TIMESLICE × 4, static_prio) for
//     static_prio < 120, else SCALE_PRIO(DEF_TIMESLICE, static_prio), with
//     SCALE_PRIO(x, p) = max(x × (140 − p) / 20, MIN_TIMESLICE),
//     DEF_TIMESLICE = 100 ms, MIN_TIMESLICE = max(5 ms, 1 jiffy): nice −20
//     800 ms, nice 0 100 ms, nice 19 5 ms; kept in jiffies and charged one
//     jiffy per tick (scheduler_tick);
//   - sleep_avg (ns, 0..MAX_SLEEP_AVG = DEF_TIMESLICE × MAX_BONUS = 1 s):
//     grows by the time slept on wakeup (recalc_task_prio; a sleep longer
//     than INTERACTIVE_SLEEP lifts it only to MAX_SLEEP_AVG − DEF_TIMESLICE)
//     and shrinks by run time / CURRENT_BONUS (schedule);
//   - CURRENT_BONUS = sleep_avg in jiffies × MAX_BONUS / MAX_SLEEP_AVG,
//     MAX_BONUS = 40 × PRIO_BONUS_RATIO 25 / 100 = 10; effective_prio =
//     static_prio − (CURRENT_BONUS − 5), clamped to 100..139;
//   - TASK_INTERACTIVE: prio ≤ static_prio − DELTA, DELTA = (nice + 20) ×
//     10 / 40 − 5 + INTERACTIVE_DELTA 2; INTERACTIVE_SLEEP = MAX_SLEEP_AVG ×
//     (MAX_BONUS/2 + DELTA + 1) / MAX_BONUS − 1 jiffy;
//   - slice expiry (scheduler_tick): new prio and slice; to the expired
//     array unless TASK_INTERACTIVE and the expired array is not starving
//     (EXPIRED_STARVING: it waited STARVATION_LIMIT = MAX_SLEEP_AVG × nr_running
//     jiffies, or holds a better static priority than the current task);
//     an interactive task is round-robined every TIMESLICE_GRANULARITY =
//     GRANULARITY (10 ms) × 2^(MAX_BONUS − CURRENT_BONUS − 1) × nr CPUs;
//   - wakeup (try_to_wake_up, activate_task): into the active array,
//     preempting when its prio is better than the current task's
//     (TASK_PREEMPTS_CURR); it stays on its previous CPU unless that CPU is
//     busy and the waker's CPU is less loaded (wake_affine, reduced to
//     runqueue lengths);
//   - fork (sched_fork, wake_up_new_task): parent and child split the
//     parent's slice; child sleep_avg = parent's × CHILD_PENALTY 95 %; a new
//     process (not a thread) is queued just before its parent, which is
//     rescheduled, so the child runs first;
//   - load balancing (load_balance, idle_balance with the 2.6.22 SD_CPU_INIT
//     domain): newly idle and every balance interval (1 ms idle, 64 ms
//     busy), pull half the runqueue length difference from the busiest CPU
//     when it is at least 2 (imbalance_pct 125), expired tasks first and
//     cache-cold ones (not run for cache_hot_time) before cache-hot ones.
//
// Not modelled: the uninterruptible-sleep sleep_avg limit, SMT and NUMA
// domains, the exit-time return of a child's slice to its parent.

// O(1) constants (kernel/sched.c 2.6.22).
const (
	o1DefTimeslice = 100_000_000 // ns, DEF_TIMESLICE
	o1MinTimeslice = 5_000_000   // ns, MIN_TIMESLICE (at least 1 jiffy)
	o1MaxBonus     = 10          // MAX_BONUS
	o1MaxSleepAvg  = o1DefTimeslice * o1MaxBonus
	o1Granularity  = 10_000_000 // ns, GRANULARITY
	o1ChildPenalty = 95         // %, CHILD_PENALTY
)

// prioArray is one O(1) priority array: 140 FIFO lists and a bitmap.
type prioArray struct {
	q    [140][]*Task
	bits [3]uint64
	n    int
}

func (a *prioArray) add(t *Task, prio int, head bool) {
	if head {
		a.q[prio] = append([]*Task{t}, a.q[prio]...)
	} else {
		a.q[prio] = append(a.q[prio], t)
	}
	a.bits[prio/64] |= 1 << uint(prio%64)
	a.n++
}

func (a *prioArray) insertBefore(t *Task, prio int, before *Task) {
	l := a.q[prio]
	for i, x := range l {
		if x == before {
			l = append(l, nil)
			copy(l[i+1:], l[i:])
			l[i] = t
			a.q[prio] = l
			a.bits[prio/64] |= 1 << uint(prio%64)
			a.n++
			return
		}
	}
	a.add(t, prio, false)
}

func (a *prioArray) remove(t *Task, prio int) bool {
	l := a.q[prio]
	for i, x := range l {
		if x == t {
			a.q[prio] = append(l[:i], l[i+1:]...)
			if len(a.q[prio]) == 0 {
				a.bits[prio/64] &^= 1 << uint(prio%64)
			}
			a.n--
			return true
		}
	}
	return false
}

// first returns the best (lowest) non-empty prio, -1 when empty
// (sched_find_first_bit).
func (a *prioArray) first() int {
	for w, b := range a.bits {
		if b != 0 {
			for i := 0; i < 64; i++ {
				if b&(1<<uint(i)) != 0 {
					return w*64 + i
				}
			}
		}
	}
	return -1
}

// pcBalancer is the pull-only load balancing of the 2.6-era multi-queue
// schedulers (o1, sd): newly idle, and periodically with one interval on an
// idle CPU and another on a busy one.
type pcBalancer struct {
	sim      Sim
	next     []int64
	idleIv   int64 // ns
	busyIv   int64 // ns; 0 disables periodic balance on a busy CPU
	periodic bool  // balance periodically at all (false: only when idle)
	hot      int64 // ns, cache_hot_time
	// candidates lists the migratable tasks of a CPU, best to move first.
	candidates func(cpu int) []*Task
}

func (b *pcBalancer) init(s Sim, idleIv, busyIv, hot int64, cand func(int) []*Task) {
	b.sim, b.idleIv, b.busyIv, b.hot, b.candidates = s, idleIv, busyIv, hot, cand
	b.next = make([]int64, s.NumCPUs())
	b.periodic = true
}

func (b *pcBalancer) balance(cpu int, kind BalanceKind) {
	now := b.sim.Now()
	if kind != BalanceNewIdle {
		if !b.periodic || now < b.next[cpu] {
			return
		}
		iv := b.idleIv
		if b.sim.Curr(cpu) != nil {
			iv = b.busyIv
		}
		if iv <= 0 {
			return
		}
		b.next[cpu] = now + iv
	}
	local := b.sim.NrRunning(cpu)
	busiest, most := -1, 0
	for c := 0; c < b.sim.NumCPUs(); c++ {
		if nr := b.sim.NrRunning(c); c != cpu && nr > most {
			busiest, most = c, nr
		}
	}
	if busiest < 0 || most < 2 || most-local < 2 && !(local == 0 && b.sim.Curr(cpu) == nil) {
		return
	}
	n := max((most-local)/2, 1)
	for ; n > 0; n-- {
		var pick, hotPick *Task
		for _, t := range b.candidates(busiest) {
			if t.State != TaskRunnable || !t.Affinity.Has(cpu) {
				continue
			}
			if now-t.LastRan >= b.hot {
				pick = t
				break
			}
			if hotPick == nil {
				hotPick = t
			}
		}
		if pick == nil {
			pick = hotPick
		}
		if pick == nil || b.sim.Migrate(pick, cpu) != nil {
			return
		}
	}
}

// arrayCandidates lists the runnable, not running, tasks of a runqueue's
// two arrays in the order load_balance considers them: the expired array
// first (least likely to run soon, most likely cache-cold), each list from
// its tail.
func arrayCandidates(arr *[2]prioArray, active int) []*Task {
	var out []*Task
	for _, a := range []int{1 - active, active} {
		for _, l := range arr[a].q {
			for i := len(l) - 1; i >= 0; i-- {
				if l[i].State == TaskRunnable {
					out = append(out, l[i])
				}
			}
		}
	}
	return out
}

// removeFrom takes t, queued at prio, off the active (which = 1) or
// expired (which = 2) array of a runqueue; which = 0 does nothing.
func removeFrom(arr *[2]prioArray, active int, which int8, t *Task, prio int) {
	switch which {
	case 1:
		arr[active].remove(t, prio)
	case 2:
		arr[1-active].remove(t, prio)
	}
}

type o1Task struct {
	prio, static int
	slice        int // jiffies left
	sleepAvg     int64
	sleptAt      int64
	arr          int8 // 0 none, 1 active, 2 expired
	moving       int8 // array kind while migrating
}

type o1RQ struct {
	arr        [2]prioArray
	active     int
	expiredTS  int64 // ns, -1 when the expired array is empty
	bestExpPri int
}

// O1 is the o1 policy; see the file comment.
type O1 struct {
	sim     Sim
	rqs     []o1RQ
	ts      []o1Task
	tick    int64
	hz      int
	starveJ int64 // STARVATION_LIMIT in ns (MAX_SLEEP_AVG)
	bal     pcBalancer
	hotTime int64
	// startSleep is the sleep_avg in ns of a task with no parent in the
	// workload (start_sleep_avg).
	startSleep int64
}

// NewO1 returns an o1 policy; hot is cache_hot_time in ns.
func NewO1(hot int64) *O1 { return &O1{hotTime: hot, starveJ: o1MaxSleepAvg} }

func init() {
	Register(Info{
		Name:    "o1",
		Summary: "Linux 2.6.0-2.6.22 O(1): per-CPU active/expired priority arrays, sleep_avg bonus, RT class above",
		Source:  "kernel/sched.c v2.6.22 (Ingo Molnar)",
		Params: []Param{
			{Name: "starvation_limit", Kind: ParamDuration, Default: "1s", Doc: "STARVATION_LIMIT per runnable task before interactive tasks stop re-entering the active array", Source: "kernel/sched.c v2.6.22 (MAX_SLEEP_AVG)"},
			{Name: "cache_hot_time", Kind: ParamDuration, Default: "2.5ms", Doc: "a task that ran more recently is cache-hot and migrated last", Source: "include/linux/topology.h v2.6.9-2.6.17 SD_CPU_INIT cache_hot_time"},
			{Name: "start_sleep_avg", Kind: ParamDuration, Default: "0", Doc: "sleep_avg of the tasks present when the workload starts (no parent in it), which a trace cannot show: 0 gives them no sleep credit; 900ms (MAX_SLEEP_AVG − DEF_TIMESLICE) is what a task that slept longer than INTERACTIVE_SLEEP gets, as a shell waiting for its user; their children inherit it through the fork penalty", Source: "kernel/sched.c v2.6.21 recalc_task_prio, wake_up_new_task", Min: 0, Max: o1MaxSleepAvg},
		},
		New: func(v Values, _ int) (Policy, error) {
			p := NewO1(v.Duration("cache_hot_time", 2_500_000))
			p.starveJ = v.Duration("starvation_limit", o1MaxSleepAvg)
			p.startSleep = v.Duration("start_sleep_avg", 0)
			return NewStack(p), nil
		},
	})
}

// Name implements Policy.
func (p *O1) Name() string { return "o1" }

// Init implements Policy.
func (p *O1) Init(s Sim) {
	p.sim = s
	p.hz = s.HZ()
	p.tick = 1_000_000_000 / int64(p.hz)
	p.rqs = make([]o1RQ, s.NumCPUs())
	for i := range p.rqs {
		p.rqs[i].expiredTS = -1
		p.rqs[i].bestExpPri = 140
	}
	// SD_CPU_INIT (2.6.22): min_interval 1 ms, busy_factor 64.
	p.bal.init(s, 1_000_000, 64_000_000, p.hotTime, p.candidates)
}

// O1Timeslice returns task_timeslice in ns for a static prio (100..139).
func O1Timeslice(static int) int64 {
	x := int64(o1DefTimeslice)
	if static < 120 {
		x *= 4
	}
	return max(x*int64(140-static)/20, o1MinTimeslice)
}

// sliceJ is task_timeslice in jiffies (at least 1).
func (p *O1) sliceJ(static int) int {
	return max(int(O1Timeslice(static)/p.tick), 1)
}

func (p *O1) bonus(ts *o1Task) int {
	// NS_TO_JIFFIES(sleep_avg) × MAX_BONUS / MAX_SLEEP_AVG (in jiffies).
	return int(ts.sleepAvg / p.tick * o1MaxBonus / (o1MaxSleepAvg / p.tick))
}

func (p *O1) effective(ts *o1Task) int {
	return min(max(ts.static-(p.bonus(ts)-o1MaxBonus/2), 100), 139)
}

func o1Delta(static int) int { return (static-100)*o1MaxBonus/40 - o1MaxBonus/2 + 2 }

func (p *O1) interactive(ts *o1Task) bool { return ts.prio <= ts.static-o1Delta(ts.static) }

// TaskNew implements Policy (sched_fork and wake_up_new_task, kernel/sched.c
// v2.6.21): parent and child share the parent's time slice; the child's
// sleep_avg is the parent's CURRENT_BONUS × CHILD_PENALTY / 100, in whole
// bonus points of MAX_SLEEP_AVG / MAX_BONUS (integer arithmetic: bonus 9
// gives the child 8), and the parent's is rounded down to its whole bonus
// points (× PARENT_PENALTY 100 / 100).
func (p *O1) TaskNew(t *Task) {
	for len(p.ts) <= t.ID {
		p.ts = append(p.ts, o1Task{})
	}
	static := 120 + min(max(t.Nice, -20), 19)
	ts := o1Task{static: static, slice: p.sliceJ(static), sleptAt: p.sim.Now()}
	if par := t.Parent; par != nil && par.ID < len(p.ts) && !par.Class.RealTime() {
		pt := &p.ts[par.ID]
		ts.slice = (pt.slice + 1) / 2
		pt.slice /= 2
		ts.sleepAvg = int64(p.bonus(pt)*o1ChildPenalty/100) * (o1MaxSleepAvg / o1MaxBonus)
		pt.sleepAvg = int64(p.bonus(pt)) * (o1MaxSleepAvg / o1MaxBonus)
		if pt.slice == 0 {
			pt.slice = 1
		}
	} else {
		ts.sleepAvg = p.startSleep
	}
	ts.prio = p.effective(&ts)
	p.ts[t.ID] = ts
}

func (p *O1) starving(cpu int) bool {
	rq := &p.rqs[cpu]
	if rq.expiredTS >= 0 && p.sim.Now()-rq.expiredTS >= p.starveJ*int64(p.sim.NrRunning(cpu))+p.tick {
		return true
	}
	if c := p.sim.Curr(cpu); c != nil && !c.Class.RealTime() && p.ts[c.ID].static > rq.bestExpPri {
		return true
	}
	return false
}

func (p *O1) put(cpu int, t *Task, expired, head bool) {
	rq := &p.rqs[cpu]
	ts := &p.ts[t.ID]
	a := rq.active
	ts.arr = 1
	if expired {
		a = 1 - a
		ts.arr = 2
		if rq.expiredTS < 0 {
			rq.expiredTS = p.sim.Now()
		}
		rq.bestExpPri = min(rq.bestExpPri, ts.static)
	}
	rq.arr[a].add(t, ts.prio, head)
}

func (p *O1) take(cpu int, t *Task) {
	rq := &p.rqs[cpu]
	ts := &p.ts[t.ID]
	removeFrom(&rq.arr, rq.active, ts.arr, t, ts.prio)
	ts.arr = 0
}

// SelectCPU implements Policy (try_to_wake_up; wake_up_new_task keeps the
// parent's CPU).
func (p *O1) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	return sameOrAffine(p.sim, t, prev, waker, flags)
}

// sameOrAffine is the 2.6-era placement: a new task on its parent's CPU; a
// woken task on its previous CPU unless that CPU is busy and the waker's
// CPU has a shorter runqueue (the waker not counted for a sync wakeup).
func sameOrAffine(s Sim, t *Task, prev int, waker *Task, flags WakeFlags) int {
	if !t.Affinity.Has(prev) || prev >= s.NumCPUs() {
		prev = t.Affinity.First()
	}
	if flags&WakeFork != 0 || waker == nil || waker.State != TaskRunning || waker.CPU == prev || !t.Affinity.Has(waker.CPU) {
		return prev
	}
	if s.Curr(prev) == nil && s.NrRunning(prev) == 0 {
		return prev
	}
	this := s.NrRunning(waker.CPU)
	if flags&WakeSync != 0 {
		this--
	}
	if this < s.NrRunning(prev) {
		return waker.CPU
	}
	return prev
}

// Enqueue implements Policy (activate_task, wake_up_new_task, pull_task).
func (p *O1) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	ts := &p.ts[t.ID]
	switch {
	case flags&EnqueueWakeup != 0:
		p.recalc(t, ts)
		p.put(cpu, t, false, false)
	case flags&EnqueueInitial != 0:
		ts.prio = p.effective(ts)
		par := t.Parent
		if par != nil && par.PID != t.PID && par.State == TaskRunning && par.CPU == cpu && !par.Class.RealTime() &&
			p.ts[par.ID].arr == 1 {
			// A new process goes just before its parent, at its prio.
			ts.prio = p.ts[par.ID].prio
			ts.arr = 1
			p.rqs[cpu].arr[p.rqs[cpu].active].insertBefore(t, ts.prio, par)
			return
		}
		p.put(cpu, t, false, false)
	case flags&EnqueueMigrated != 0:
		p.put(cpu, t, ts.moving == 2, false)
	default:
		p.put(cpu, t, false, false)
	}
}

// recalc is recalc_task_prio at wakeup.
func (p *O1) recalc(t *Task, ts *o1Task) {
	slept := min(p.sim.Now()-ts.sleptAt, int64(o1MaxSleepAvg))
	if slept > 0 {
		isleep := o1MaxSleepAvg*int64(o1MaxBonus/2+o1Delta(ts.static)+1)/o1MaxBonus - p.tick
		if slept > isleep {
			ts.sleepAvg = max(ts.sleepAvg, o1MaxSleepAvg-o1DefTimeslice)
		} else {
			ts.sleepAvg = min(ts.sleepAvg+slept, o1MaxSleepAvg)
		}
	}
	ts.prio = p.effective(ts)
}

// Dequeue implements Policy.
func (p *O1) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	ts := &p.ts[t.ID]
	ts.moving = ts.arr
	p.take(cpu, t)
	if flags&DequeueSleep != 0 {
		ts.sleptAt = p.sim.Now()
	}
}

// PickNext implements Policy: swap the arrays when the active one is
// empty, then the head of the best list.
func (p *O1) PickNext(cpu int, prev *Task) *Task {
	rq := &p.rqs[cpu]
	if rq.arr[rq.active].n == 0 {
		if rq.arr[1-rq.active].n == 0 {
			return nil
		}
		rq.active = 1 - rq.active
		for _, l := range rq.arr[rq.active].q {
			for _, t := range l {
				p.ts[t.ID].arr = 1
			}
		}
		rq.expiredTS = -1
		rq.bestExpPri = 140
	}
	a := &rq.arr[rq.active]
	return a.q[a.first()][0]
}

// CheckPreemptWakeup implements Policy (TASK_PREEMPTS_CURR; a new process
// placed before its running parent runs first).
func (p *O1) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	if flags&WakeFork != 0 && t.Parent == curr && t.PID != curr.PID {
		return true
	}
	return p.ts[t.ID].prio < p.ts[curr.ID].prio
}

// UpdateCurr implements Policy: sleep_avg loses run time / CURRENT_BONUS.
func (p *O1) UpdateCurr(cpu int, curr *Task, delta int64) {
	ts := &p.ts[curr.ID]
	ts.sleepAvg = max(ts.sleepAvg-delta/int64(max(p.bonus(ts), 1)), 0)
}

// Tick implements Policy (scheduler_tick for SCHED_NORMAL).
func (p *O1) Tick(cpu int, curr *Task) bool {
	ts := &p.ts[curr.ID]
	if ts.arr == 0 {
		return false
	}
	ts.slice--
	if ts.slice <= 0 {
		p.take(cpu, curr)
		ts.prio = p.effective(ts)
		ts.slice = p.sliceJ(ts.static)
		p.put(cpu, curr, !p.interactive(ts) || p.starving(cpu), false)
		return true
	}
	full := p.sliceJ(ts.static)
	gran := max(int(o1Granularity/p.tick), 1) << uint(max(o1MaxBonus-p.bonus(ts), 1)-1) * p.sim.NumCPUs()
	if p.interactive(ts) && (full-ts.slice)%gran == 0 && ts.slice >= gran && ts.arr == 1 {
		p.take(cpu, curr)
		p.put(cpu, curr, false, false)
		return true
	}
	return false
}

func (p *O1) candidates(cpu int) []*Task {
	return arrayCandidates(&p.rqs[cpu].arr, p.rqs[cpu].active)
}

// Balance implements Policy.
func (p *O1) Balance(cpu int, kind BalanceKind) { p.bal.balance(cpu, kind) }

// TaskDead implements Policy.
func (p *O1) TaskDead(t *Task) {}

// Prio returns the O(1) dynamic prio of t (100..139), for tests.
func (p *O1) Prio(t *Task) int { return p.ts[t.ID].prio }
