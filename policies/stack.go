package policies

// Stack runs the real-time class above a fair-class policy, as the kernel
// stacks rt_sched_class above fair_sched_class (kernel/sched/sched.h,
// for_each_class): an RT task always runs before any fair task, and each
// hook goes to the class of the task concerned.
//
// With RTRuntime > 0 the RT class is throttled as Linux throttles it from
// 2.6.25 (kernel/sched/rt.c, sched_rt_runtime_us / sched_rt_period_us,
// 950 ms per 1 s by default) and, from 6.12, as the fair deadline server
// guarantees fair tasks their share (kernel/sched/deadline.c
// fair_server_init: 50 ms per 1 s; deferred since "sched/deadline:
// Deferrable dl server", v6.12: it runs the fair tasks only once they have
// waited out period − runtime): a CPU's period starts when its fair tasks
// start waiting behind its RT tasks (the fair server starts with the
// first fair task queued), and once its RT tasks used RTRuntime of it,
// the waiting fair tasks run until the period ends; a period in which
// no fair task waits any more ends with it. Real recordings of this VM
// (Linux 6.18, `chrt -f 10 stress-ng --cpu 2` beside the recorder):
// each CPU's RT hog ran 915-950 ms, then a fair task 50 ms. The period
// was aligned to the simulation's start before, which let an RT hog that
// began inside a period run up to 1.95 s unthrottled. Policies of eras
// before throttling (2.4, O(1), SD, BFS) leave RTRuntime 0.
type Stack struct {
	RT   *RT
	Fair Policy
	// RTRuntime and RTPeriod in ns; RTRuntime 0 disables throttling.
	RTRuntime, RTPeriod int64

	sim    Sim
	rtUsed []int64 // per CPU: RT run time in period
	anchor []int64 // per CPU: ns, the start of the period rtUsed counts (-1: none: no fair task waits)
}

// RTThrottleParams are the RT throttling parameters of the policies whose
// kernels throttle RT tasks (cfs, eevdf).
var RTThrottleParams = []Param{
	{Name: "rt_runtime", Kind: ParamDuration, Default: "950ms",
		Doc:    "RT tasks' CPU time per rt period before waiting fair tasks run (0: never throttled); the period is 1 s from when fair tasks start waiting behind them",
		Source: "kernel/sched/rt.c sched_rt_runtime_us 950000 / sched_rt_period_us 1000000 (v2.6.25+); the 6.12+ fair server's 50 ms per 1 s, kernel/sched/deadline.c",
		Min:    0, Max: 1_000_000_000},
}

// throttleFrom sets s's RT throttling from v (RTThrottleParams).
func (s *Stack) throttleFrom(v Values) *Stack {
	s.RTRuntime, s.RTPeriod = v.Duration("rt_runtime", 950_000_000), 1_000_000_000
	return s
}

// throttled reports whether cpu's RT class used its runtime in the
// current period while fair tasks wait there.
func (s *Stack) throttled(cpu int) bool {
	if s.RTRuntime <= 0 || s.RTRuntime >= s.RTPeriod {
		return false
	}
	s.roll(cpu)
	return s.anchor[cpu] >= 0 && s.rtUsed[cpu] >= s.RTRuntime && s.fairWaits(cpu)
}

// fairWaits reports whether fair tasks are queued on cpu.
func (s *Stack) fairWaits(cpu int) bool { return s.sim.NrRunning(cpu) > s.RT.Queued(cpu) }

// roll ends cpu's period once RTPeriod has passed since it began (the
// server's replenishment): the next one starts when fair tasks wait
// again.
func (s *Stack) roll(cpu int) {
	if s.anchor[cpu] >= 0 && s.sim.Now()-s.anchor[cpu] >= s.RTPeriod {
		s.anchor[cpu], s.rtUsed[cpu] = -1, 0
	}
}

// NewStack returns fair with the RT class above it.
func NewStack(fair Policy) *Stack { return &Stack{RT: NewRT(ClassFair, 0), Fair: fair} }

// Name implements Policy: the fair policy's name.
func (s *Stack) Name() string { return s.Fair.Name() }

// Init implements Policy.
func (s *Stack) Init(sim Sim) {
	s.sim = sim
	s.rtUsed, s.anchor = make([]int64, sim.NumCPUs()), make([]int64, sim.NumCPUs())
	for i := range s.anchor {
		s.anchor[i] = -1
	}
	s.RT.Init(sim)
	s.Fair.Init(sim)
}

// TaskNew implements Policy.
func (s *Stack) TaskNew(t *Task) { s.RT.TaskNew(t); s.Fair.TaskNew(t) }

func (s *Stack) of(t *Task) Policy {
	if t.Class.RealTime() {
		return s.RT
	}
	return s.Fair
}

// SelectCPU implements Policy.
func (s *Stack) SelectCPU(t *Task, prev int, waker *Task, flags WakeFlags) int {
	return s.of(t).SelectCPU(t, prev, waker, flags)
}

// Enqueue implements Policy.
func (s *Stack) Enqueue(cpu int, t *Task, flags EnqueueFlags) { s.of(t).Enqueue(cpu, t, flags) }

// Dequeue implements Policy.
func (s *Stack) Dequeue(cpu int, t *Task, flags DequeueFlags) { s.of(t).Dequeue(cpu, t, flags) }

// PickNext implements Policy: the RT class first, unless throttled.
func (s *Stack) PickNext(cpu int, prev *Task) *Task {
	if s.RT.Queued(cpu) > 0 && !s.throttled(cpu) {
		if prev != nil && !prev.Class.RealTime() {
			prev = nil
		}
		return s.RT.PickNext(cpu, prev)
	}
	if prev != nil && prev.Class.RealTime() {
		prev = nil
	}
	return s.Fair.PickNext(cpu, prev)
}

// CheckPreemptWakeup implements Policy: a class above preempts; within a
// class the class decides.
func (s *Stack) CheckPreemptWakeup(cpu int, curr, t *Task, flags WakeFlags) bool {
	switch {
	case curr == nil:
		return true
	case t.Class.RealTime() != curr.Class.RealTime():
		return t.Class.RealTime() && !s.throttled(cpu)
	}
	return s.of(t).CheckPreemptWakeup(cpu, curr, t, flags)
}

// UpdateCurr implements Policy; an RT task that used up its class's
// runtime while fair tasks wait is rescheduled (sched_rt_runtime_exceeded).
func (s *Stack) UpdateCurr(cpu int, curr *Task, delta int64) {
	if curr.Class.RealTime() && s.RTRuntime > 0 {
		s.roll(cpu)
		switch {
		case s.fairWaits(cpu):
			if s.anchor[cpu] < 0 {
				s.anchor[cpu] = s.sim.Now() - delta // they waited through this run
			}
			s.rtUsed[cpu] += delta
			if s.throttled(cpu) {
				s.sim.Resched(cpu)
			}
		default:
			// No fair task to serve: the server stops (dl_server_stop
			// when the fair class empties), and the period with it.
			s.anchor[cpu], s.rtUsed[cpu] = -1, 0
		}
	}
	s.of(curr).UpdateCurr(cpu, curr, delta)
}

// Tick implements Policy; when a new period lifts the throttling, a fair
// task running beside waiting RT tasks is rescheduled.
func (s *Stack) Tick(cpu int, curr *Task) bool {
	if !curr.Class.RealTime() && s.RT.Queued(cpu) > 0 && s.RTRuntime > 0 && !s.throttled(cpu) {
		return true
	}
	return s.of(curr).Tick(cpu, curr)
}

// Balance implements Policy.
func (s *Stack) Balance(cpu int, kind BalanceKind) {
	s.RT.Balance(cpu, kind)
	if s.RT.Queued(cpu) == 0 {
		s.Fair.Balance(cpu, kind)
	}
}

// Yield implements Yielder through curr's class: yield_task_rt for an RT
// task, the fair class's yield when it has one (do_sched_yield calls
// current->sched_class->yield_task, kernel/sched/syscalls.c v6.18).
func (s *Stack) Yield(cpu int, curr *Task) {
	if y, ok := s.of(curr).(Yielder); ok {
		y.Yield(cpu, curr)
	}
}

// TaskDead implements Policy.
func (s *Stack) TaskDead(t *Task) { s.RT.TaskDead(t); s.Fair.TaskDead(t) }

// DelayedOn implements DelayedQueue through the fair class, when it delays
// dequeues.
func (s *Stack) DelayedOn(t *Task) (int, bool) {
	if d, ok := s.Fair.(DelayedQueue); ok {
		return d.DelayedOn(t)
	}
	return -1, false
}

// UpdateCurrOwn implements OwnUpdater for a fair task when the fair
// class does, else it is UpdateCurr.
func (s *Stack) UpdateCurrOwn(cpu int, curr *Task, delta int64) {
	if o, ok := s.Fair.(OwnUpdater); ok && !curr.Class.RealTime() {
		o.UpdateCurrOwn(cpu, curr, delta)
		return
	}
	s.UpdateCurr(cpu, curr, delta)
}

// RequeuesDelayed implements DelayedQueue through the fair class.
func (s *Stack) RequeuesDelayed(cpu int, t *Task) bool {
	if d, ok := s.Fair.(DelayedQueue); ok {
		return d.RequeuesDelayed(cpu, t)
	}
	return false
}

// ScanLength implements DecisionCoster when the fair policy does.
func (s *Stack) ScanLength(cpu int) int {
	if dc, ok := s.Fair.(DecisionCoster); ok {
		return dc.ScanLength(cpu)
	}
	return 0
}

// DecisionNS implements CostModel when the fair policy does.
func (s *Stack) DecisionNS(cpu int, prev, next *Task) int64 {
	if cm, ok := s.Fair.(CostModel); ok {
		return cm.DecisionNS(cpu, prev, next)
	}
	return 0
}
