// Package tpformat reads the ftrace event format descriptions that the
// kernel publishes in /sys/kernel/tracing/events/<system>/<event>/format and
// that perf.data (HEADER_TRACING_DATA) and trace-cmd trace.dat files carry,
// and decodes raw tracepoint payloads with them.
//
// A Format lists the event's fields with their offsets, sizes and signedness
// (the layout differs between kernel versions and architectures, so fields
// are always looked up by name, never by a hard-coded offset) and keeps the
// event's "print fmt". Field accessors read integers of 1, 2, 4 or 8 bytes in
// either byte order, fixed char arrays and __data_loc / __rel_loc strings,
// without allocating. SchedDecoder turns the payload of the scheduler
// tracepoints of include/trace/events/sched.h into trace.Event values; it
// derives the encoding of sched_switch's prev_state (which changed in Linux
// 4.14) from the format's own print fmt and translates it into trace.TaskState.
package tpformat
