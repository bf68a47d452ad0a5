package policies

import "math"

// The Staircase Deadline scheduler of Con Kolivas (SD, the successor of
// RSDL, "Rotating Staircase Deadline", March 2007) as shipped in
// 2.6.22-ck1 (kernel/sched.c). No sleep heuristics: every task has a quota
// of run time at each priority level from its static priority (120 + nice)
// down to the lowest (139), and the runqueue itself has a quota per level:
//
//   - task quota: rr_interval (8 ms, sysctl kernel.rr_interval) at each
//     level; when a task has used it, it steps down one level (the
//     staircase) with a fresh quota and goes to the tail of that level;
//   - level quota (minor rotation): when the runqueue has served a level
//     for rr_interval × the number of tasks queued there when it started
//     serving it, every task left at that level steps down one level;
//   - a task that steps past level 139 goes to the expired array at its
//     static priority with a fresh quota; when the active array is empty
//     the arrays swap (major rotation) and every level's quota is renewed;
//   - a waking task resumes at the level and quota it had, unless a major
//     rotation happened while it slept (then it starts afresh at its static
//     priority), and never above the level the runqueue is serving;
//   - a waking task preempts a task of a worse (higher) level; within a
//     level, FIFO;
//   - fork: the child starts at its parent's level with half of the
//     parent's remaining quota;
//   - SMP: per-CPU runqueues with the 2.6.22 placement and pull balancing
//     (see o1.go).
//
// The level is the only priority, so the wait of a task is bounded by the
// quotas of the levels above it: the "deadline" of the name. Tasks enter
// the staircase at their static priority, which is how nice works: nice 19
// gets one level of quota per rotation, nice 0 twenty, nice −20 forty.

type sdTask struct {
	prio, static int
	quota        int64 // ns left at the current level
	rotation     int   // the runqueue's major rotation count when it slept
	arr          int8  // 0 none, 1 active, 2 expired
	moving       int8
}

type sdRQ struct {
	arr        [2]prioArray
	active     int
	rotation   int
	level      int   // prio level being served, 140 when none
	levelQuota int64 // ns left for the level being served
}

// SD is the sd policy; see the file comment.
type SD struct {
	sim Sim
	rr  int64 // ns
	rqs []sdRQ
	ts  []sdTask
	bal pcBalancer
}

// NewSD returns an sd policy with rr_interval in ns.
func NewSD(rr int64) *SD {
	if rr <= 0 {
		rr = 8_000_000
	}
	return &SD{rr: rr}
}

func init() {
	Register(Info{
		Name:    "sd",
		Summary: "Staircase Deadline (2.6.22-ck1): per-level quotas stepping down a staircase, minor and major rotation, RT class above",
		Source:  "Con Kolivas, SD scheduler in 2.6.22-ck1 (kernel/sched.c); RSDL design notes (ck wiki)",
		Params: []Param{{Name: "rr_interval", Kind: ParamDuration, Default: "8ms",
			Doc: "quota of a task at each priority level", Source: "2.6.22-ck1 kernel/sched.c rr_interval",
			Min: 1, Max: math.MaxInt64}},
		New: func(v Values, _ int) (Policy, error) {
			return NewStack(NewSD(v.Duration("rr_interval", 8_000_000))), nil
		},
	})
}

// Name implements Policy.
func (p *SD) Name() string { return "sd" }

// Init implements Policy.
func (p *SD) Init(s Sim) {
	p.sim = s
	p.rqs = make([]sdRQ, s.NumCPUs())
	for i := range p.rqs {
		p.rqs[i].level = 140
	}
	p.bal.init(s, 1_000_000, 64_000_000, 2_500_000, p.candidates)
}

// TaskNew implements Policy.
func (p *SD) TaskNew(t *Task) {
	for len(p.ts) <= t.ID {
		p.ts = append(p.ts, sdTask{})
	}
	static := 120 + min(max(t.Nice, -20), 19)
	ts := sdTask{prio: static, static: static, quota: p.rr, rotation: -1}
	if par := t.Parent; par != nil && par.ID < len(p.ts) && !par.Class.RealTime() {
		pt := &p.ts[par.ID]
		ts.prio = max(pt.prio, static)
		ts.quota = max(pt.quota/2, 1)
		pt.quota = max(pt.quota-ts.quota, 1)
		ts.rotation = -2 // keep the inherited level at its first enqueue
	}
	p.ts[t.ID] = ts
}

func (p *SD) put(cpu int, t *Task, head bool) {
	rq := &p.rqs[cpu]
	ts := &p.ts[t.ID]
	a := rq.active
	if ts.arr == 2 {
		a = 1 - a
	} else {
		ts.arr = 1
	}
	rq.arr[a].add(t, ts.prio, head)
}

func (p *SD) take(cpu int, t *Task) {
	rq := &p.rqs[cpu]
	ts := &p.ts[t.ID]
	removeFrom(&rq.arr, rq.active, ts.arr, t, ts.prio)
	ts.moving, ts.arr = ts.arr, 0
}

// stepDown moves t one level down the staircase with a fresh quota; past
// level 139 it expires (ts.arr = 2 at its static priority).
func (p *SD) stepDown(ts *sdTask) {
	ts.quota = p.rr
	ts.prio++
	if ts.prio > 139 {
		ts.prio = ts.static
		ts.arr = 2
	}
}

// SelectCPU implements Policy.
func (p *SD) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	return sameOrAffine(p.sim, t, prev, waker, flags)
}

// Enqueue implements Policy.
func (p *SD) Enqueue(cpu int, t *Task, flags EnqueueFlags) {
	rq := &p.rqs[cpu]
	ts := &p.ts[t.ID]
	switch {
	case flags&EnqueueMigrated != 0 && flags&EnqueueWakeup == 0:
		ts.arr = ts.moving
		p.put(cpu, t, false)
		return
	case ts.rotation == -2:
		// a forked child keeps the level it inherited
	case ts.rotation != rq.rotation || flags&EnqueueMigrated != 0:
		ts.prio, ts.quota = ts.static, p.rr
	}
	ts.rotation = rq.rotation
	if ts.prio < rq.level && rq.level < 140 {
		ts.prio = rq.level
	}
	ts.arr = 1
	p.put(cpu, t, false)
}

// Dequeue implements Policy.
func (p *SD) Dequeue(cpu int, t *Task, flags DequeueFlags) {
	p.take(cpu, t)
	p.ts[t.ID].rotation = p.rqs[cpu].rotation
}

// PickNext implements Policy.
func (p *SD) PickNext(cpu int, prev *Task) *Task {
	rq := &p.rqs[cpu]
	if rq.arr[rq.active].n == 0 {
		if rq.arr[1-rq.active].n == 0 {
			rq.level = 140
			return nil
		}
		// Major rotation.
		rq.active = 1 - rq.active
		rq.rotation++
		rq.level = 140
		for _, l := range rq.arr[rq.active].q {
			for _, t := range l {
				p.ts[t.ID].arr = 1
				p.ts[t.ID].rotation = rq.rotation
			}
		}
	}
	a := &rq.arr[rq.active]
	best := a.first()
	if best != rq.level {
		rq.level = best
		rq.levelQuota = p.rr * int64(len(a.q[best]))
	}
	return a.q[best][0]
}

// CheckPreemptWakeup implements Policy: a better level preempts.
func (p *SD) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	return p.ts[t.ID].prio < p.ts[curr.ID].prio
}

// UpdateCurr implements Policy: charge the task's and the level's quota.
func (p *SD) UpdateCurr(cpu int, curr *Task, delta int64) {
	ts := &p.ts[curr.ID]
	ts.quota -= delta
	if rq := &p.rqs[cpu]; ts.arr == 1 && ts.prio == rq.level {
		rq.levelQuota -= delta
	}
}

// Tick implements Policy: a used-up task quota steps the task down; a
// used-up level quota steps the whole level down (minor rotation).
func (p *SD) Tick(cpu int, curr *Task) bool {
	rq := &p.rqs[cpu]
	ts := &p.ts[curr.ID]
	if ts.arr != 1 {
		return false
	}
	resched := false
	if ts.quota <= 0 {
		p.take(cpu, curr)
		ts.arr = 0
		p.stepDown(ts)
		p.put(cpu, curr, false)
		resched = true
	}
	if lvl := rq.level; lvl < 140 && rq.levelQuota <= 0 {
		a := &rq.arr[rq.active]
		moved := append([]*Task(nil), a.q[lvl]...)
		for _, t := range moved {
			mt := &p.ts[t.ID]
			a.remove(t, lvl)
			mt.arr = 0
			q := mt.quota
			p.stepDown(mt)
			if mt.arr == 0 {
				mt.quota = q // keeps what it had left of its own quota
			}
			p.put(cpu, t, false)
		}
		rq.level = 140
		resched = resched || len(moved) > 0
	}
	return resched
}

func (p *SD) candidates(cpu int) []*Task {
	return arrayCandidates(&p.rqs[cpu].arr, p.rqs[cpu].active)
}

// Balance implements Policy.
func (p *SD) Balance(cpu int, kind BalanceKind) { p.bal.balance(cpu, kind) }

// TaskDead implements Policy.
func (p *SD) TaskDead(t *Task) {}
