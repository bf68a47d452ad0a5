// Package replay separates a captured workload from the schedule it got, and
// re-schedules it under a modelled policy.
//
// Extract turns any time-ordered trace.Source into a Model: per task, a
// sequence of CPU bursts (CPU time between blocking points; a preemption
// splits a burst in the trace but not in the model) and the blocking points
// between them, each with what ended it: a wakeup by task W once W had
// consumed x ns of its own current burst (a dependency), a timer d ns after
// the task blocked, or an external event at an absolute time. Forks are
// points in the parent's bursts; exits end the child's sequence. With
// perf.data the waker is the task current on the CPU that emitted
// sched_waking (idle context means a timer), so such causes are counted as
// inferred; traceview's own captures record the waker.
//
// Simulate plays a Model on N simulated CPUs under a policies.Policy: a
// deterministic discrete-event loop (same model, policy and Config give the
// same output) with the scheduler tick (HZ), context-switch, migration and
// idle-exit costs, a per-decision cost, per-task affinity, nice and class.
// It emits the predicted schedule as trace events (sched_switch,
// sched_waking, sched_wakeup_new, sched_migrate_task, sched_process_fork,
// sched_process_exit, sched_stat_runtime), so every report of the project
// works on a prediction as on a capture.
package replay
