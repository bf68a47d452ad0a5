// Package ebpf captures Linux scheduler events with eBPF, for `traceview
// record`.
//
// BPF programs (sched.c, compiled by bpf2go into sched_bpfel.o, which is
// committed so that building needs no clang) hook the scheduler tracepoints
// sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
// sched_migrate_task, sched_process_fork, sched_process_exec and
// sched_process_exit: as BTF-enabled tracepoints (tp_btf, which hand the
// programs the kernel's task_struct pointers) where the kernel has them,
// classic tracepoints otherwise (sched_wakeup only with
// Options.Wakeups). Each hit becomes a 28-byte record (36 for a switch
// with stacks) written with bpf_perf_event_output into its CPU's perf
// buffer; the names, PIDs, priorities and cgroups of the tasks it names
// are in task records, which a CPU writes only when its earlier records
// have not said them (sched.c's note; the decoder keeps them per CPU). A
// record that does not fit is counted by perf (PERF_RECORD_LOST, per CPU)
// and reported, never dropped silently. Beyond what
// perf records, every wakeup carries its waker (the task current at
// sched_waking, which runs in the waker's context), the waker's CPU, and
// whether it ran in interrupt context.
//
// Capture (Linux only; elsewhere Open returns ErrNotSupported) loads and
// attaches the programs, drains the perf buffers in passes on a timer
// (reading them in place: perfring_linux.go), keeps the raw records in a
// backlog while the capture runs, decodes them into trace.Events, restores
// time order across CPUs (each CPU's buffer is in time order; every batch
// the drain hands on carries a watermark before which every record has
// been read) and reports losses as trace.KindLost events. Event times are
// bpf_ktime_get_ns (CLOCK_MONOTONIC) nanoseconds.
//
// Recorder writes a Capture into traceview's format: one file (or a
// stream), a series rotated by size or trace time, or, as a flight
// recorder (RingConfig), the dumps of a bounded ring of compressed records
// written when a signal, a control-socket request or a scheduling delay
// over a threshold (DelayTrigger) triggers them. Each file carries the
// task groups its tasks ran in (cgsettings.go): their CPU-controller
// settings and cpu.stat counters read as it starts and ends, the
// autogroups of root-group tasks and kernel.sched_autogroup_enabled. Top is the in-kernel
// aggregation of `traceview top`: per-task run time, switches and delays
// (count, sum, max, log2 histogram) in BPF maps, no records to user space.
//
// `go generate ./ebpf/...` rebuilds the BPF object (clang >= 14 and
// libbpf's headers from libbpf-dev needed).
package ebpf
