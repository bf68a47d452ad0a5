package policies

// Stack runs the real-time class above a fair-class policy, as the kernel
// stacks rt_sched_class above fair_sched_class (kernel/sched/sched.h,
// for_each_class): an RT task always runs before any fair task, and each
// hook goes to the class of the task concerned.
type Stack struct {
	RT   *RT
	Fair Policy
}

// NewStack returns fair with the RT class above it.
func NewStack(fair Policy) *Stack { return &Stack{RT: NewRT(ClassFair, 0), Fair: fair} }

// Name implements Policy: the fair policy's name.
func (s *Stack) Name() string { return s.Fair.Name() }

// Init implements Policy.
func (s *Stack) Init(sim Sim) { s.RT.Init(sim); s.Fair.Init(sim) }

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

// PickNext implements Policy: the RT class first.
func (s *Stack) PickNext(cpu int, prev *Task) *Task {
	if s.RT.Queued(cpu) > 0 {
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
		return t.Class.RealTime()
	}
	return s.of(t).CheckPreemptWakeup(cpu, curr, t, flags)
}

// UpdateCurr implements Policy.
func (s *Stack) UpdateCurr(cpu int, curr *Task, delta int64) {
	s.of(curr).UpdateCurr(cpu, curr, delta)
}

// Tick implements Policy.
func (s *Stack) Tick(cpu int, curr *Task) bool { return s.of(curr).Tick(cpu, curr) }

// Balance implements Policy.
func (s *Stack) Balance(cpu int, kind BalanceKind) {
	s.RT.Balance(cpu, kind)
	if s.RT.Queued(cpu) == 0 {
		s.Fair.Balance(cpu, kind)
	}
}

// TaskDead implements Policy.
func (s *Stack) TaskDead(t *Task) { s.RT.TaskDead(t); s.Fair.TaskDead(t) }

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
