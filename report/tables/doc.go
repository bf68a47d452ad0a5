// Package tables turns one trace into the fleet tables of docs/parquet.md
// and writes them as Parquet files, one per table, for SQL engines (DuckDB,
// ClickHouse, BigQuery, Trino, Spark) to union across many traces.
//
// The tables take Perfetto trace processor's names where it has one:
// sched_slice (per-CPU runs), thread_state (per-task state intervals),
// thread and process; traceview adds trace (one row of metadata),
// task_latency (the latency table per task) and delay_hist (log2 buckets of
// each task's scheduling delays, which merge across traces by summing
// counts). Every row carries trace_id, so the files of many traces union.
//
// Every row comes from the one schedule reconstruction (package
// trace/schedule) and the latency report (report.ComputeLatency) in a
// single pass over the trace: sched_slice and thread_state are the
// reconstruction's runs and intervals as they are built, task_latency is
// the `latency -p --percentiles` table. Write writes into a temporary
// directory beside the target and renames it into place, so a failure
// leaves nothing half-written.
package tables
