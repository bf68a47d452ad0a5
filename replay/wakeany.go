package replay

// inferWakeAny is the inference pass for tasks that wait on something
// several tasks feed: it sets Task.WakeAny on each task outside a worker
// pool whose dependency blocks were ended by more than one waker, and
// counts them in ModelStats.WakeAnyTasks.
//
// A recording says which task ended each block, not what the task waited
// for. A reader of a socket or pipe that several tasks write to (perf
// bench sched messaging: each receiver reads one socket every sender of
// its group writes to, tools/perf/bench/sched-messaging.c) is woken by
// whichever writer comes first; in a replay, whose interleaving differs,
// holding each block for the writer the recording named leaves the reader
// asleep while other writers' wakeups, recorded for its later blocks,
// wait as tokens. For such a task sim.wakeFlags ends the block it sleeps
// in with any of its wakeups and counts a wakeup that finds it awake as
// credit, which its next dependency block consumes without sleeping (as
// data already in the socket is read without sleeping). A task with one
// waker is unchanged: that waker's wakeups arrive in their recorded order.
// The cost: a task that waited for one particular waker each time (a
// writer blocked on one full socket of several) may be woken early by
// another's wakeup.
//
// Measured on ../shared/traces (go run ./bench/fidelity/run): 3 more
// checks within bounds and none fewer (messaging.1cpu and pipeline.1cpu
// self-replay switches, messaging.2cpu -> 1cpu switches).
func inferWakeAny(m *Model) {
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Pool > 0 {
			continue
		}
		w := -1
		for _, b := range tk.Bursts {
			if b.Wake.Kind != CauseDependency {
				continue
			}
			if w >= 0 && int(b.Wake.Waker) != w {
				tk.WakeAny = true
				m.Stats.WakeAnyTasks++
				break
			}
			w = int(b.Wake.Waker)
		}
	}
}
