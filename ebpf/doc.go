// Package ebpf captures Linux scheduler events with eBPF, for `traceview
// record`.
//
// BPF programs (sched.c, compiled by bpf2go into sched_bpfel.o, which is
// committed so that building needs no clang) hook the scheduler tracepoints
// sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
// sched_migrate_task, sched_process_fork, sched_process_exec and
// sched_process_exit: as BTF-enabled tracepoints (tp_btf, which hand the
// programs the kernel's task_struct pointers) where the kernel has them,
// classic tracepoints otherwise. Each hit becomes a fixed-size 112-byte
// record written with bpf_perf_event_output into its CPU's perf buffer; a
// record that does not fit is counted by perf (PERF_RECORD_LOST, per CPU)
// and reported, never dropped silently. Beyond what
// perf records, every wakeup carries its waker (the task current at
// sched_waking, which runs in the waker's context), the waker's CPU, and
// whether it ran in interrupt context.
//
// Capture (Linux only; elsewhere Open returns ErrNotSupported) loads and
// attaches the programs, drains the perf buffers in passes on a timer,
// decodes the records into trace.Events, restores time order across CPUs
// (each CPU's buffer is in time order; after a pass that emptied them all,
// every record stamped before the pass began has been read) and reports
// losses as trace.KindLost events. Event times are
// bpf_ktime_get_ns (CLOCK_MONOTONIC) nanoseconds.
//
// `go generate ./ebpf/...` rebuilds the BPF object (clang >= 14 and
// libbpf's headers from libbpf-dev needed).
package ebpf
