package policies

import "math"

// AsTraced is the identity policy: the simulator re-emits the schedule the
// model recorded from the input trace (every switch, wakeup, migration and
// runtime at its observed time), so its latency table must equal the
// observed one. It checks model extraction, the simulator's event output
// and the reports together. Its scheduling hooks are never called.
type AsTraced struct{}

// Recorded implements Recorded.
func (AsTraced) Recorded() bool { return true }

// Name implements Policy.
func (AsTraced) Name() string { return "as-traced" }

// Init implements Policy.
func (AsTraced) Init(Sim) {}

// TaskNew implements Policy.
func (AsTraced) TaskNew(*Task) {}

const asTracedMisuse = "policies: as-traced makes no decisions; the simulator must replay the recorded schedule"

// SelectCPU implements Policy; the simulator never calls it for AsTraced.
func (AsTraced) SelectCPU(*Task, int, *Task, WakeFlags) int { panic(asTracedMisuse) }

// Enqueue implements Policy; never called.
func (AsTraced) Enqueue(int, *Task, EnqueueFlags) { panic(asTracedMisuse) }

// Dequeue implements Policy; never called.
func (AsTraced) Dequeue(int, *Task, DequeueFlags) { panic(asTracedMisuse) }

// PickNext implements Policy; never called.
func (AsTraced) PickNext(int, *Task) *Task { panic(asTracedMisuse) }

// CheckPreemptWakeup implements Policy; never called.
func (AsTraced) CheckPreemptWakeup(int, *Task, *Task, WakeFlags) bool { panic(asTracedMisuse) }

// UpdateCurr implements Policy; never called.
func (AsTraced) UpdateCurr(int, *Task, int64) { panic(asTracedMisuse) }

// Tick implements Policy; never called.
func (AsTraced) Tick(int, *Task) bool { panic(asTracedMisuse) }

// Balance implements Policy; never called.
func (AsTraced) Balance(int, BalanceKind) { panic(asTracedMisuse) }

// TaskDead implements Policy.
func (AsTraced) TaskDead(*Task) {}

func init() {
	Register(Info{
		Name:    "as-traced",
		Summary: "the recorded schedule itself (identity check of model, simulator output and reports)",
		Source:  "the input trace",
		New:     func(Values, int) (Policy, error) { return AsTraced{}, nil },
	})
	rtParams := []Param{{Name: "rr_timeslice", Kind: ParamDuration, Default: "100ms",
		Doc: "SCHED_RR time slice", Source: "include/linux/sched/rt.h RR_TIMESLICE (Linux 3.9-6.18)",
		// The kernel's sched_rr_timeslice_ms sysctl resets to the default
		// on <= 0 (kernel/sched/rt.c sched_rr_handler); here 0 is refused
		// so the policy header never shows a value that is not used.
		Min: 1, Max: math.MaxInt64}}
	Register(Info{
		Name:     "fifo",
		OneClass: true,
		Summary:  "every task SCHED_FIFO (traced RT priority, fair tasks at 1): run until block or higher priority",
		Source:   "kernel/sched/rt.c (Linux 6.6)",
		Params:   rtParams,
		New: func(v Values, _ int) (Policy, error) {
			return NewRT(ClassFIFO, v.Duration("rr_timeslice", RRTimeslice)), nil
		},
	})
	Register(Info{
		Name:     "rr",
		OneClass: true,
		Summary:  "every task SCHED_RR (traced RT priority, fair tasks at 1): FIFO with a round-robin time slice",
		Source:   "kernel/sched/rt.c (Linux 6.6)",
		Params:   rtParams,
		New: func(v Values, _ int) (Policy, error) {
			return NewRT(ClassRR, v.Duration("rr_timeslice", RRTimeslice)), nil
		},
	})
}
