// Package perfdata reads perf.data files, as written by `perf record` and
// `perf sched record`, in pure Go, and serves their scheduler tracepoints as
// a time-ordered stream of trace.Event.
//
// Both layouts are read: file mode (magic PERFILE2, a header pointing at the
// attribute, data and feature sections; tools/perf/Documentation/
// perf.data-file-format.txt) and pipe mode (`perf record -o -`: a 16-byte
// header, then attributes, tracing data and features arriving in the stream
// as PERF_RECORD_HEADER_ATTR, _HEADER_TRACING_DATA and _HEADER_FEATURE
// records), in either byte order. Samples are decoded by their attribute's
// sample_type (include/uapi/linux/perf_event.h); tracepoint payloads through
// the format descriptions carried in the file (package tpformat), so traces of
// other kernels and architectures decode too.
//
// perf writes each CPU's ring buffer in turn, so records are only roughly in
// time order. The reader restores one global order the way perf's
// util/ordered-events.c does: events wait in a min-heap and, when a
// PERF_RECORD_FINISHED_ROUND marks the end of a pass over the buffers,
// everything at or below the largest time seen before the previous round
// mark is released. The heap is bounded (MaxPending); only the pending window
// of events is ever held in memory.
package perfdata
