// Package pprof writes a schedule as a pprof profile
// (github.com/google/pprof/profile, gzipped protobuf): where the trace's
// tasks waited for a CPU and behind whom (delay, by [comm; process; thread;
// waker or "preempted"]), their runtime and switches, and, when the trace
// has callchains, off-CPU time by the stack where each task left the CPU
// (blocked and runqueue). Profile builds it from a trace.Source through the
// schedule reconstruction of trace/schedule, so that a thread's delay equals
// its Sum delay in the latency report; Write gzips it. `traceview export
// --format pprof` calls Write through the export registry. Values are
// nanoseconds (switches are counts).
package pprof
