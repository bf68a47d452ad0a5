// Package policies holds traceview's scheduling policies for replay and the
// interface they implement.
//
// The interface, Policy, is shaped after the kernel's struct sched_class
// (kernel/sched/sched.h, Linux 6.6+): SelectCPU is select_task_rq (on
// wakeup and fork), Enqueue/Dequeue are enqueue_task/dequeue_task, PickNext
// is pick_next_task (with put_prev_task/set_next_task folded in),
// CheckPreemptWakeup is wakeup_preempt (check_preempt_curr before 6.6),
// Tick is task_tick, UpdateCurr is update_curr, and Balance is the
// balance/newidle_balance/rebalance_domains trio. A Policy never sees the
// trace: the simulator in package replay owns time, tasks, CPUs and costs
// and gives policies the small per-CPU view Sim. Policies keep their own
// per-task state in slices indexed by Task.ID (dense, from 0).
//
// Policies are registered by name with their parameters described as data
// (Register, Lookup, ParseSpecs), so `--policy eevdf:base_slice=3ms,NO_RUN_TO_PARITY`
// and `traceview policies` need no code per policy. Each policy file cites
// the kernel file and version (or paper) of every constant and formula it
// uses. Fair-class policies are stacked under the real-time class (RT), as
// in the kernel, with Stack.
//
// Besides as-traced, cfs, eevdf, fifo and rr, the classic schedulers replay
// the designs Linux tried before: bfs (BFS v0.440, one global queue,
// virtual deadlines), sd (the Staircase Deadline scheduler of 2.6.22-ck1),
// o1 (the 2.6.0-2.6.22 O(1) scheduler), goodness24 (Linux 2.4's goodness()
// scan, with an O(n) decision cost through DecisionCoster), and the 2001
// multi-queue proposals mq-hp and mq-lse built on the same goodness().
package policies
