// Package chromejson writes a schedule as Chrome trace-event JSON (the
// "JSON Object Format" of the Trace Event Format, which ui.perfetto.dev and
// chrome://tracing open): a track per CPU with a slice per task run, a
// track per task with its states (running, runnable after a preemption or a
// wakeup, sleeping, uninterruptible), and a flow arrow from each waker to
// the task it woke. Write reads a trace.Source through the schedule
// reconstruction of trace/schedule, as the latency report does; `traceview
// export --format chrome-json` calls it through the export registry. Times
// are microseconds with nanosecond decimals. (The native Perfetto protobuf
// is trace/perfettopb's.)
package chromejson
