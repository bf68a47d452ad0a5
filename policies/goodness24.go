package policies

import "math"

// The Linux 2.4 scheduler (kernel/sched.c, 2.4.x; constants of i386) and
// the two multi-queue variants built on its goodness() (mq.go). One global
// runqueue; schedule() scans all of it and runs the task of highest
// goodness:
//
//   - goodness(p, this_cpu, this_mm) = 0 when p->counter is 0, else
//     counter + PROC_CHANGE_PENALTY (15 on i386, include/asm-i386/smp.h) if
//     p last ran on this_cpu + 1 if p shares the mm of the previous task +
//     20 − nice (real-time tasks: 1000 + rt_priority, here the RT class
//     stacked above);
//   - schedule(): the previous task, if still runnable, is the first
//     candidate; another task must have a strictly higher goodness; list
//     order breaks ties (wake_up_process adds at the head);
//   - the tick takes one from the current task's counter and reschedules it
//     at 0 (update_process_times);
//   - epoch recalculation when every runnable candidate has counter 0: for
//     every task, sleeping ones included, counter = counter/2 +
//     NICE_TO_TICKS(nice), NICE_TO_TICKS(n) = TICK_SCALE(20 − n) + 1 with
//     TICK_SCALE(x) = x>>2 for HZ < 200, x>>1 below 400, x below 800, x<<1
//     below 1600, x<<2 above (a slice of about 50 ms: 11 ticks = 44 ms at
//     HZ 250, 6 ticks = 60 ms at HZ 100);
//   - wakeup (reschedule_idle): the CPU the task last ran on if idle, else
//     any idle CPU, else the CPU where preemption_goodness = goodness(p) −
//     goodness(curr) is largest and positive;
//   - decision cost: the scan touches every queued task, and the
//     recalculation every task: ScanLength reports both, and the simulator
//     charges Config.ScanCost ns per entry (replay --scan-cost).
//
// A fork gives the child half of the parent's counter (do_fork).

// PROC_CHANGE_PENALTY on i386 (include/asm-i386/smp.h, 2.4).
const procChangePenalty = 15

type gmode uint8

const (
	gGlobal gmode = iota // 2.4: one queue
	gHP                  // per-CPU queues, steal only when empty
	gLSE                 // per-CPU queues, global goodness decision
)

type gTask struct {
	counter int // ticks
	last    int // CPU it last ran on (p->processor), -1
	queue   int // queue index, -1 when not queued
}

// Goodness is the 2.4 scheduler and its multi-queue variants; build it with
// NewGoodness24, NewMQHP or NewMQLSE.
type Goodness struct {
	name string
	mode gmode
	sim  Sim
	pcp  int
	q    [][]*Task // runqueues (one in gGlobal mode), head first
	ts   []gTask
	scan []int // per CPU: entries scanned by the last decision
	// rec: per CPU, the tasks the last decision recalculated (part of
	// scan); costs and lock, see goodness_lock.go.
	rec       []int
	lock      bool
	entryCost int64
	lockFree  []int64 // per queue: when its runqueue_lock is free, ns
	owed      []int64 // per CPU: lock time of its wakeups not charged yet, ns
	lockOwner []int   // per queue: the CPU that took its lock last
}

// NewGoodness24 returns the 2.4 global-runqueue scheduler with the given
// PROC_CHANGE_PENALTY.
func NewGoodness24(pcp int) *Goodness { return &Goodness{name: "goodness24", mode: gGlobal, pcp: pcp} }

var goodnessParams = append([]Param{{Name: "proc_change_penalty", Kind: ParamInt, Default: "15",
	Doc: "goodness bonus for the CPU a task last ran on (at least 0: goodness() adds it)", Source: "include/asm-i386/smp.h 2.4 PROC_CHANGE_PENALTY",
	Min: 0, Max: math.MaxInt64}}, goodnessCostParams...)

func init() {
	Register(Info{
		Name:    "goodness24",
		Summary: "Linux 2.4: one global runqueue, goodness() scan, epoch recalculation of counters, RT class above",
		Source:  "kernel/sched.c v2.4.x (i386)",
		Params:  goodnessParams,
		New: func(v Values, _ int) (Policy, error) {
			return NewStack(NewGoodness24(v.Int("proc_change_penalty", procChangePenalty)).costsFrom(v)), nil
		},
	})
}

// NiceToTicks returns the 2.4 NICE_TO_TICKS(nice) at hz: the counter an
// epoch gives, in ticks.
func NiceToTicks(nice, hz int) int {
	x := 20 - min(max(nice, -20), 19)
	switch {
	case hz < 200:
		x >>= 2
	case hz < 400:
		x >>= 1
	case hz < 800:
	case hz < 1600:
		x <<= 1
	default:
		x <<= 2
	}
	return x + 1
}

// Name implements Policy.
func (g *Goodness) Name() string { return g.name }

// Init implements Policy.
func (g *Goodness) Init(s Sim) {
	g.sim = s
	n := s.NumCPUs()
	if g.mode == gGlobal {
		g.q = make([][]*Task, 1)
	} else {
		g.q = make([][]*Task, n)
	}
	g.scan = make([]int, n)
	g.rec = make([]int, n)
	g.lockFree = make([]int64, len(g.q))
	g.owed = make([]int64, n)
	g.lockOwner = make([]int, len(g.q))
	for i := range g.lockOwner {
		g.lockOwner[i] = -1
	}
}

// TaskNew implements Policy: a forked child takes half of the parent's
// counter (do_fork: p->counter = (current->counter + 1) >> 1).
func (g *Goodness) TaskNew(t *Task) {
	for len(g.ts) <= t.ID {
		g.ts = append(g.ts, gTask{last: -1, queue: -1})
	}
	ts := gTask{counter: NiceToTicks(t.Nice, g.sim.HZ()), last: -1, queue: -1}
	if p := t.Parent; p != nil && p.ID < len(g.ts) {
		pt := &g.ts[p.ID]
		ts.counter = (pt.counter + 1) >> 1
		pt.counter >>= 1
	}
	g.ts[t.ID] = ts
}

// goodness is goodness(p, cpu, mm) with mm the previous task's process.
func (g *Goodness) goodness(t *Task, cpu int, mm *Task) int {
	ts := &g.ts[t.ID]
	if ts.counter == 0 {
		return 0
	}
	w := ts.counter
	if ts.last == cpu {
		w += g.pcp
	}
	if mm != nil && mm.PID == t.PID {
		w++
	}
	return w + 20 - t.Nice
}

func (g *Goodness) queueOf(cpu int) int {
	if g.mode == gGlobal {
		return 0
	}
	return cpu
}

func (g *Goodness) idle(cpu int) bool { return g.sim.Curr(cpu) == nil && g.sim.NrRunning(cpu) == 0 }

// SelectCPU implements Policy (reschedule_idle; mq-hp and mq-lse: the
// task's own queue unless an idle CPU can take it at once); with
// RUNQUEUE_LOCK the wakeup takes the queue's lock (wakeLock).
func (g *Goodness) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	cpu := g.selectCPU(t, prev, waker)
	g.wakeLock(t, waker, g.queueOf(cpu))
	return cpu
}

func (g *Goodness) selectCPU(t *Task, prev int, waker *Task) int {
	n := g.sim.NumCPUs()
	last := g.ts[t.ID].last
	if last < 0 {
		last = prev
	}
	if !t.Affinity.Has(last) || last >= n {
		last = t.Affinity.First()
	}
	if g.idle(last) {
		return last
	}
	for c := 0; c < n; c++ {
		if t.Affinity.Has(c) && g.idle(c) {
			return c
		}
	}
	if g.mode == gHP {
		return last
	}
	best, bestGain := last, 0
	for c := 0; c < n; c++ {
		cur := g.sim.Curr(c)
		if !t.Affinity.Has(c) || cur == nil || cur.Class.RealTime() {
			continue
		}
		if gain := g.goodness(t, c, cur) - g.goodness(cur, c, cur); gain > bestGain {
			best, bestGain = c, gain
		}
	}
	return best
}

// Enqueue implements Policy: at the head of the queue (add_to_runqueue).
func (g *Goodness) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	ts := &g.ts[t.ID]
	qi := g.queueOf(cpu)
	if ts.queue == qi {
		return
	}
	ts.queue = qi
	g.q[qi] = append([]*Task{t}, g.q[qi]...)
}

// Dequeue implements Policy.
func (g *Goodness) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	ts := &g.ts[t.ID]
	if ts.queue < 0 || g.mode == gGlobal && flags == DequeueMigrate {
		return
	}
	q := g.q[ts.queue]
	for i, x := range q {
		if x == t {
			g.q[ts.queue] = append(q[:i], q[i+1:]...)
			break
		}
	}
	ts.queue = -1
}

// best scans queue qi for cpu: the previous task first, then strictly
// better ones in list order. It returns the task, its goodness and the
// entries scanned.
func (g *Goodness) best(qi, cpu int, prev *Task) (*Task, int, int) {
	var next *Task
	c := -1
	if prev != nil && prev.State == TaskRunnable && !prev.Class.RealTime() && g.ts[prev.ID].queue == qi {
		next, c = prev, g.goodness(prev, cpu, prev)
	}
	scanned := 0
	for _, t := range g.q[qi] {
		scanned++
		if t == prev || t.State != TaskRunnable || !t.Affinity.Has(cpu) {
			continue
		}
		if w := g.goodness(t, cpu, prev); w > c {
			next, c = t, w
		}
	}
	return next, c, scanned
}

// recalc is the epoch recalculation over the tasks of queue qi (every task
// in 2.4 and mq-lse, the tasks last on that CPU in mq-hp); it returns how
// many tasks it touched.
func (g *Goodness) recalc(qi int) int {
	hz := g.sim.HZ()
	n := 0
	for _, t := range g.sim.Tasks() {
		if t == nil || t.State == TaskDead || t.Class.RealTime() {
			continue
		}
		ts := &g.ts[t.ID]
		if g.mode == gHP && ts.last != qi && !(ts.last < 0 && t.CPU == qi) {
			continue
		}
		ts.counter = ts.counter/2 + NiceToTicks(t.Nice, hz)
		n++
	}
	return n
}

// PickNext implements Policy.
func (g *Goodness) PickNext(cpu int, prev *Task) *Task {
	qi := g.queueOf(cpu)
	scanned := 0
	g.rec[cpu] = 0
	var next *Task
	for round := 0; round < 2; round++ {
		var c, s int
		next, c, s = g.best(qi, cpu, prev)
		scanned += s
		if g.mode != gGlobal {
			// Remote queues: mq-lse compares every queue's best with the
			// local one (goodness without the last-CPU bonus, as the
			// task last ran elsewhere); mq-hp looks only when the local
			// queue has nothing runnable.
			if g.mode == gLSE || next == nil {
				for o := range g.q {
					if o == qi {
						continue
					}
					rt, rc, rs := g.best(o, cpu, nil)
					if g.mode == gLSE {
						rs = 1 // a cached per-queue maximum is read
					}
					scanned += rs
					if rt != nil && rc > c {
						next, c = rt, rc
					}
				}
			}
		}
		if next == nil || c > 0 {
			break
		}
		n := g.recalc(qi)
		scanned += n
		g.rec[cpu] += n
	}
	g.scan[cpu] = scanned
	if next == nil {
		return nil
	}
	if next.CPU != cpu && g.sim.Migrate(next, cpu) != nil {
		return nil
	}
	g.ts[next.ID].last = cpu
	return next
}

// CheckPreemptWakeup implements Policy: preemption_goodness > 0.
func (g *Goodness) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	return g.goodness(t, cpu, curr)-g.goodness(curr, cpu, curr) > 0
}

// UpdateCurr implements Policy; the counter is charged per tick.
func (g *Goodness) UpdateCurr(cpu int, curr *Task, delta int64) {}

// Tick implements Policy: --counter, reschedule at 0.
func (g *Goodness) Tick(cpu int, curr *Task) bool {
	ts := &g.ts[curr.ID]
	if ts.counter > 0 {
		ts.counter--
	}
	return ts.counter == 0
}

// Balance implements Policy: an idle CPU takes the best waiting task
// (2.4: a CPU kicked by reschedule_idle; mq-hp and mq-lse: stealing from
// another queue when its own is empty).
func (g *Goodness) Balance(cpu int, kind BalanceKind) {
	if kind == BalancePeriodic || !g.idle(cpu) {
		return
	}
	var best *Task
	bc := 0
	for qi := range g.q {
		if t, c, _ := g.best(qi, cpu, nil); t != nil && (best == nil || c > bc) {
			best, bc = t, c
		}
	}
	if best != nil && best.CPU != cpu {
		_ = g.sim.Migrate(best, cpu)
	}
}

// TaskDead implements Policy.
func (g *Goodness) TaskDead(t *Task) {}

// ScanLength implements DecisionCoster: the entries the last decision on
// cpu touched (queued tasks scanned, plus every task recalculated).
func (g *Goodness) ScanLength(cpu int) int { return g.scan[cpu] }

// Counter returns t's counter in ticks, for tests.
func (g *Goodness) Counter(t *Task) int { return g.ts[t.ID].counter }
