package replay

import "math"

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
//
// A wakeup that finds the task runnable is credit of one of two kinds
// (sim.wakeFlags), told apart by how long the task has waited since the
// wakeup that ended its last sleep, against its recorded mean scheduling
// delay (Task.MeanDelay), plus one standard deviation of its recorded
// delays while the replay's delays of the task stay as the recording's
// (sim.creditBound):
//
//   - no longer than that: the recording had this wakeup end a later
//     sleep, after the task's run; it comes this early only because the
//     replay's interleaving drifted from the recording's. The task still
//     blocks where the recording shows, and the credit ends that block at
//     once (a sleep of no length: a switch-out and a wakeup, as a write
//     that comes right after a reader blocks gives).
//   - longer than that: the task waits for a CPU longer than it did in the
//     recording (fewer CPUs, more competition), and the write is data that
//     piles up meanwhile, which its next run reads without blocking: the
//     credit skips the next block.
//
// The recording's wakeups of such a task and its blocks pair one to one
// (msgt.2cpu: 1654 and 1654), so with only the second kind every second
// wakeup in one runnable period cost a sleep, and the replay's drift only
// ever adds such wakeups (one that comes late lengthens a sleep). Measured
// 2026-12-04 (the fifth session): the self-replay of the 20-group
// messaging file of bench/replaymem (issue 29 item 2) switches 0.47x ->
// 0.77x the recording (a held-back one 0.50x -> 0.78x), average delay
// 1.68x -> 1.05x; ../shared/traces 254 -> 259 checks within bounds and
// none lost; issue 29's held-back what-if recipes 80 -> 82 of 92 and none
// lost. Either kind alone did worse: the zero-length sleep for every
// credit (0.98x on the big file) loses the 2 -> 1 CPU what-ifs of
// pipelines (pipeline.2cpu -> 1cpu switches 0.95x -> 1.38x).
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

// meanDelays sets each task's Task.MeanDelay and Task.DelaySD from the
// scheduling delays the extraction measured (ext.waitSum over ext.waitN,
// and ext.waitSq: the population standard deviation).
func (x *extractor) meanDelays() {
	for k := range x.st {
		if s := &x.st[k]; s.waitN > 0 {
			tk := &x.m.Tasks[s.idx]
			tk.MeanDelay = s.waitSum / int64(s.waitN)
			mean := float64(s.waitSum) / float64(s.waitN)
			tk.DelaySD = int64(math.Sqrt(max(0, s.waitSq/float64(s.waitN)-mean*mean)))
		}
	}
}
