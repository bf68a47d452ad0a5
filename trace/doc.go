// Package trace holds traceview's event model and the registry of trace
// readers.
//
// Every trace source (perf.data, trace-cmd trace.dat, ftrace and perf script
// text, traceview's own capture format, and a replay's prediction) yields the
// same time-ordered stream of Event values through the Source interface;
// every report reads only that stream. Times are int64 nanoseconds on the
// trace's own clock. Task names live in a task table (Tasks), not in the
// identity of a task: a TID reused after exit becomes a new Task, and exec
// or prctl renames are kept as a comm history.
//
// Readers live in sub-packages and register themselves with Register from
// init; Open detects the format of a file by its content. Import
// github.com/traceview/traceview/trace/formats to register them all.
package trace
