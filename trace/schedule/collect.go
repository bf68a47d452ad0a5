package schedule

import "github.com/traceview/traceview/trace"

// Schedule is a whole trace's reconstruction kept in memory, for consumers
// that need random access (the replay model). Memory grows with the trace:
// stream through a Builder's Hooks for large traces.
type Schedule struct {
	// Tasks lists every identity in order of first appearance (the idle
	// task, TID 0, included when seen).
	Tasks []*Task
	// Runs holds each CPU's intervals in time order (Known, Recovered and
	// Unknown), by CPU number.
	Runs map[trace.CPU][]Run
	// States holds each task's state intervals (running, runnable,
	// sleeping) in time order.
	States map[*Task][]Interval
	// Delays lists every delay in the order they ended (Excluded ones
	// included, marked).
	Delays []Delay
	// Lost lists the lost windows, in the order reported.
	Lost []trace.LostWindow
	// Start and End bound the trace (Builder.Span), ns.
	Start, End int64
	// HaveRuntime: the trace carries sched_stat_runtime.
	HaveRuntime bool
	Counters    Counters
}

// Build reads src to its end (it does not close it) and returns its
// schedule. The error is the source's first non-EOF error.
func Build(src trace.Source, opts Options) (*Schedule, error) {
	s := &Schedule{Runs: map[trace.CPU][]Run{}, States: map[*Task][]Interval{}}
	b := New(opts, Hooks{
		Run:   func(r *Run) { s.Runs[r.CPU] = append(s.Runs[r.CPU], *r) },
		State: func(iv *Interval) { s.States[iv.Task] = append(s.States[iv.Task], *iv) },
		Delay: func(d *Delay) { s.Delays = append(s.Delays, *d) },
	})
	if err := b.Run(src); err != nil {
		return nil, err
	}
	b.Finish()
	s.Tasks = b.Tasks()
	s.Lost = b.Lost()
	s.Start, s.End = b.Span()
	s.HaveRuntime = b.HaveRuntime()
	s.Counters = b.C
	return s, nil
}
