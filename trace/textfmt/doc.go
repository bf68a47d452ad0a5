// Package textfmt reads scheduler events from the text that Linux tracing
// tools print: the ftrace "trace" and "trace_pipe" files of tracefs (with or
// without the irq-info flags column and the tgid column), the output of
// `trace-cmd report`, and `perf script` (the default layout and the
// `-F comm,pid,tid,cpu,time,event,trace` one). All three print one event per
// line as
//
//	COMM-TID [CPU] FLAGS SECONDS.FRACTION: EVENT: PAYLOAD     (ftrace, trace-cmd report)
//	COMM PID/TID [CPU] SECONDS.FRACTION: sched:EVENT: PAYLOAD (perf script)
//
// and the payload of a sched tracepoint either in the kernel's own print
// format ("prev_comm=... prev_pid=... prev_state=S ==> next_comm=...",
// include/trace/events/sched.h) or in the shorter form of libtraceevent's
// sched plugin ("comm:pid [prio] S ==> comm:pid [prio]",
// plugins/plugin_sched_switch.c), which perf script and trace-cmd report use.
// The plugin writes task states with its own letter table "SDTtZXxW" (bit 0
// = S ... bit 7 = W) and no preemption mark; the kernel's table is
// "SDTtXZPI" plus "+" for preempted. Both are translated into
// trace.TaskState.
//
// Timestamps keep every printed digit: microseconds in the default output of
// all three tools (so times are multiples of 1000 ns), nanoseconds where the
// tool printed nine decimals (perf script --ns, trace-cmd report -t).
//
// The text has no comm records of its own: a KindComm event (from
// trace.CommTracker) precedes the first event that shows a task under a
// new name in its payload, so consumers name tasks as perf.data's COMM
// records would.
//
// Lines that are not sched events (other tracepoints, headers, "cpus=2") are
// skipped and counted in Meta.Warnings; "[LOST n EVENTS]" lines become
// trace.KindLost events and Meta.Lost windows. A sched line whose payload
// cannot be parsed is an error naming the line number, or a counted warning
// when trace.ReadOptions.Lenient is set (NewReaderWith, trace.ReadOptions.Open). Events are delivered in time
// order: lines are re-sorted within a window of Window events (trace_pipe
// interleaves CPUs), and a line older than the window is counted as
// out-of-order and delivered at once.
package textfmt
