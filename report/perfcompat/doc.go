// Package perfcompat holds perf's own per-switch views: Timehist streams
// perf sched timehist's rows (wait time, scheduling delay and run time per
// switch, the run-time summary, -w wakeups, -M migrations, --state, -g
// callchains) and Map perf sched map's CPU columns; Latency runs perf sched
// latency's state machine (`traceview latency --perf` and -C; package report
// turns its tasks into rows) and WriteLatency prints perf's own table.
// LatencyTracker, perf's thread objects and its view of each CPU's chain of
// sched_switch events, names the rows of both latency reports: Latency's
// and report's default one, which measures delays on trace/schedule
// instead. Timehist, Map and Latency follow perf 6.12's state machines
// (tools/perf/builtin-sched.c: timehist_sched_change_event,
// map_switch_event, latency_switch_event) rather than the shared schedule
// reconstruction of
// trace/schedule, because byte-identity with perf is their point: with
// Exact they reproduce perf 6.12 byte for byte on every golden of
// ../shared/traces, including its thread table's identity losses
// (tools/perf/util/machine.c); by default they keep each task's identity
// across its exit. Times are int64 ns, printed as perf prints them
// (seconds with microseconds, milliseconds with three decimals).
package perfcompat
