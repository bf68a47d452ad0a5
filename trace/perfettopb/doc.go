// Package perfettopb writes and reads native Perfetto traces: the protobuf
// "Trace" message of Perfetto's protos/perfetto/trace/perfetto_trace.proto
// (a stream of TracePacket), hand-encoded with
// google.golang.org/protobuf/encoding/protowire, since Perfetto publishes no
// Go bindings.
//
// Write turns any trace.Source into a trace that Perfetto's UI and trace
// processor read as a kernel scheduler trace: a clock_snapshot, a
// system_info with the kernel release (trace processor decodes sched_switch
// prev_state by kernel version), a process_tree, per-CPU ftrace_events
// bundles with sched_switch, sched_waking (in the waker CPU's bundle, pid =
// the waker), sched_wakeup, sched_wakeup_new, sched_migrate_task, fork,
// exit, task_rename and sched_stat_runtime (as a generic ftrace event, which
// Perfetto has no typed message for). A loss is a bundle of its CPU with
// lost_events set where it was noticed, an ftrace_stats packet counts each
// CPU's losses, a TraceStats says the source was cut short, and a
// TraceAttributes packet keeps what no message has a place for (the
// source's loss windows, the events its damaged or cut file lost, its
// warnings), so that the trace reads back saying what the source said
// (loss.go). Options.Compact writes sched_switch and sched_waking in the
// compact_sched encoding Perfetto's traced uses by default.
//
// NewReader reads such traces back, ours or Perfetto's own (traced's
// ftrace data source, full or compact_sched bundles), into trace.Event
// values; it registers itself as the format "perfetto" and is detected by
// content. Field numbers are in fields.go, each with the .proto file it
// comes from (perfetto at commit ec5d16b1, August 2026).
package perfettopb
