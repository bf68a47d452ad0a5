// Package report computes reports from a stream of scheduler events
// (trace.Source). Its first report is the per-task scheduling-latency table
// of `perf sched latency` (ComputeLatency): for every task (or every command
// name, merged) the CPU time it ran, how many scheduling delays were
// measured, and their average, maximum and sum, where a scheduling delay is
// the time from a wakeup (sched_waking, or sched_wakeup when the trace has no
// sched_waking; sched_wakeup_new for new tasks) or from a preemption to the
// task's next switch-in (sched_switch). The algorithm follows perf's "work
// atoms" in tools/perf/builtin-sched.c of Linux 6.12 (latency_switch_event,
// latency_wakeup_event, latency_runtime_event, perf_sched__merge_lat); where
// perf's numbers are provably wrong (a zero delay counted for the first
// switch-in of a task it had not seen, delays silently dropped when the
// trace lacks the switch-in) the default result corrects them and says so in
// its diagnostics, and LatencyOptions.PerfCompat reproduces perf exactly.
//
// The other views read the same stream: Compare sets two latency reports
// side by side as B/A ratios; ComputeStats gives per-CPU utilization,
// runqueue length, migrations and runqlat-style log2 histograms of the
// delays; WriteHTMLReport writes one self-contained page with SVG plots.
// These, the exporters (export/pprof, export/chromejson) and
// ComputeLatency's default mode share one schedule reconstruction
// (package trace/schedule), so their delays, runs and runtimes agree; only
// PerfCompat (and -C, which is perf's own option) runs perf's state machine,
// perfcompat.Latency.
//
// perf sched timehist and perf sched map, perf's own per-switch views,
// perf sched latency's state machine and the byte-exact renderer of its
// table (--perf) are in report/perfcompat.
//
// All times are int64 nanoseconds on the trace clock; renderers convert to
// milliseconds and seconds only when printing. Percentiles use gonum's
// stat.Quantile with the stat.Empirical estimator (the smallest sample whose
// empirical CDF reaches p, no interpolation), so every percentile is one of
// the measured delays.
package report
