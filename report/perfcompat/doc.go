// Package perfcompat holds perf's own per-switch views: Timehist streams
// perf sched timehist's rows (wait time, scheduling delay and run time per
// switch, the run-time summary, -w wakeups, -M migrations, --state, -g
// callchains) and Map perf sched map's CPU columns; WriteLatency prints perf
// sched latency's own table (`traceview latency --perf`) from the rows
// package report computes with its PerfCompat option (perf's latency state
// machine itself is still in report/latency.go). Timehist and Map follow perf 6.12's
// state machines (tools/perf/builtin-sched.c: timehist_sched_change_event,
// map_switch_event) rather than the shared schedule reconstruction of
// trace/schedule, because byte-identity with perf is their point: with
// Exact they reproduce perf 6.12 byte for byte on every golden of
// ../shared/traces, including its thread table's identity losses
// (tools/perf/util/machine.c); by default they keep each task's identity
// across its exit. Times are int64 ns, printed as perf prints them
// (seconds with microseconds, milliseconds with three decimals).
package perfcompat
