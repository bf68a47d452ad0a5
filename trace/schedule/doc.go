// Package schedule reconstructs the schedule of a trace once, for every
// analysis that needs it: the default-mode latency table, stats, the HTML
// report, the pprof and Perfetto exports and the replay model.
//
// A Builder reads a time-ordered trace.Event stream (one event at a time,
// memory bounded by the number of tasks and CPUs) and reports through Hooks:
//
//   - per CPU, Runs: consecutive intervals of the task on the CPU (the idle
//     task included), each Known (its switch-in and switch-out recorded),
//     Recovered (its start inferred from other evidence after a missing
//     switch-in, or before the CPU's first switch: the task's own first
//     event on the CPU, moved back by the run time a sched_stat_runtime
//     reports) or Unknown (the trace
//     cannot say who ran: switches missing, lost events, the time before the
//     CPU's first sched_switch);
//   - per task, state Intervals (running, runnable, sleeping) and Delays
//     (runnable to switch-in) with the cause that started them: a wakeup, a
//     new task's first wakeup, a preemption, or a sched_waking seen before
//     the task's own switch-out (the try_to_wake_up race, below);
//   - lost windows: every delay that overlaps a window of lost events on
//     any CPU, and every run and sched_stat_runtime that overlaps one on
//     its CPU, is marked Lossy and, unless
//     Options.KeepLossy, left out of every sum and counted instead.
//
// Unknown time is never a run of a task and never a delay.
//
// # Rules, and where they come from
//
// Delays follow perf sched latency's work atoms (tools/perf/builtin-sched.c,
// perf 6.12: latency_switch_event, latency_wakeup_event) with traceview's
// documented corrections (docs/latency.md):
//
//   - a sched_switch whose prev_state is runnable ('R', 'R+') starts a delay
//     at the switch-out (CausePreempted);
//   - a sched_waking (or sched_wakeup when the trace has no sched_waking;
//     Options.Wakeups) of a sleeping task, or a sched_wakeup_new, starts a
//     delay at the event (CauseWakeup, CauseWakeupNew);
//   - try_to_wake_up (kernel/sched/core.c, Linux 6.x) emits sched_waking
//     before it waits for the task to leave its CPU (smp_cond_load_acquire on
//     p->on_cpu), so the waking of a task that is going to sleep can precede
//     that task's own sched_switch with a sleeping prev_state. perf ignores
//     the waking (the task was running) and loses the delay. Here a waking of
//     a running task is remembered; when the task's next event is its
//     switch-out in a sleeping state, the delay starts at that switch-out
//     (CauseWokenBeforeSwitchOut): the task cannot run before it is off its
//     CPU. Any other event of the task's own context in between (it ran on:
//     the wakeup found it still on its runqueue, ttwu_runnable) forgets it.
//   - a second waking of a task already waiting after a wakeup proves that it
//     ran and slept again unseen (the kernel emits sched_waking only for a
//     task whose state matches the wakeup, ttwu_state_match): the first delay
//     cannot be measured and is counted (Counters.Rewoken); the delay restarts
//     at the second waking. A waking of a task that waits after a preemption
//     is ignored: it was preempted while going to sleep and the wakeup found
//     it on its runqueue.
//   - a delay ends at the task's switch-in; when the trace lacks it (on many
//     VMs nothing is recorded while a CPU idles) the task's first
//     sched_stat_runtime on the CPU dates it: that event reports the CPU time
//     since exec_start, which set_next_entity -> update_stats_curr_start set
//     when the task was picked (kernel/sched/fair.c), in rq_clock_task time
//     that excludes IRQ and steal time, so the switch-in was at or before
//     event time - runtime. The delay ends there, never before it began nor
//     before the CPU's last recorded switch (Delay.Recovered).
//
// Lost windows: a reader reports lost records on a CPU as a trace.KindLost
// event at the time the loss was noticed; the window starts at the CPU's last
// event before it (trace.LostWindow). A loss whose CPU is unknown covers every
// CPU from the earliest of their last events. A delay involves the CPU whose
// event started it, the CPU whose runqueue it waited on and the CPU it was
// switched in on; a run or a sched_stat_runtime involves its CPU. A window
// reported after a delay ended is not held against it (the stream is read
// once).
package schedule
