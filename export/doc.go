// Package export is the registry of the formats `traceview export --format`
// writes: each Format says what it writes, which options and filters it
// takes and how to write it, so that the command is a table lookup and a
// new format is one Register call. The writers themselves live with their
// data: the pprof profile and the Chrome trace-event JSON in report/, the
// native Perfetto protobuf in trace/perfettopb, the Parquet tables in
// report/tables.
package export
