// Package synth generates the workloads of the classic scheduler
// experiments as replay models: no recording needed, every dependency
// known (no inferred causes), and the size of each workload a parameter.
//
// Each generator builds a replay.Model whose tasks are sequences of CPU
// bursts and blocking points, with the cause of every wakeup recorded: a
// timer (the task sleeps a fixed time after it blocks) or a dependency (a
// named task wakes it at a point of its own burst). A wakeup that arrives
// before the task blocks is kept and the task does not block, as with a
// condition variable whose predicate already holds. The workloads:
//
//   - pipeline: the x264 frame-threading pipeline of pipeline.c
//     (../shared/workloads): thread i may start frame f once thread i−1
//     has finished frame f+dist−1;
//   - massive_intr: N processes each running RUN ms and sleeping SLEEP ms
//     (massive_intr.c), beside a periodic probe (a cyclictest-like task);
//   - messaging: perf bench sched messaging (hackbench): groups of senders
//     writing to every receiver of their group;
//   - pipe: perf bench sched pipe: two tasks ping-ponging a token;
//   - manytasks: a large population of tasks that run briefly and sleep
//     long, so that a chosen number is runnable at any time (the 2001
//     multi-queue scheduler benchmarks);
//   - latt: a latt-style wakeup-latency probe (a server waking a client
//     every period) under a make -jN-like load of compile jobs.
//
// Generators are registered by name with their parameters as data (List,
// Lookup), so `traceview synth NAME key=value...` needs no code per
// workload. Times are int64 ns.
package synth
