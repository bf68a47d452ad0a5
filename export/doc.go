// Package export is the registry of the formats `traceview export --format`
// writes: each Format says what it writes, which options and filters it
// takes and how to write it, so that the command is a table lookup and a
// new format is one Register call. The pprof profile (export/pprof) and the
// Chrome trace-event JSON (export/chromejson) are written here; the native
// Perfetto protobuf lives with its reader in trace/perfettopb, and the
// Parquet tables, which hold the latency report's rows, in report/tables.
package export
