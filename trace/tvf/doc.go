// Package tvf reads and writes traceview's own trace format ("traceview",
// files conventionally named *.tv), the format `traceview record` captures
// into and `traceview convert` converts other traces into.
//
// A file is a short magic and version, then a sequence of self-checking
// frames: a header (JSON: host, kernel release, CPU count, clock, the
// capture's command line), task-table frames (TID, PID, comm), blocks of
// events, and a tail (the final task table and a trailer with per-CPU loss
// counts), followed by a footer that points at the tail so a reader of a
// seekable file learns the losses before the first event. Each block holds up
// to BlockEvents events stored column by column (times delta-encoded, PIDs as
// the difference from their TID, comms through a per-block string table, and
// only the fields that differ from trace.NewEvent's defaults), compressed with
// zstd (github.com/klauspost/compress) and checksummed with CRC-32C, so a
// damaged block loses only its own events and is reported as a counted
// warning. Every field of trace.Event round-trips exactly.
//
// Writing streams (NewWriter, Write, Close) and so does reading (NewReader,
// which implements trace.Source). The byte layout is specified in
// docs/format.md.
package tvf
