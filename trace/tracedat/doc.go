// Package tracedat reads trace-cmd's trace.dat files, versions 6 and 7
// (uncompressed, or v7 with zstd- or zlib-compressed sections), in pure Go,
// and registers the reader as format "trace.dat".
//
// Layout (trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5) man pages, trace-cmd
// 3.1): the 10-byte magic "\x17\x08Dtracing", the version string, the
// file's endianness and user-space long size, the page size; v7 then names
// its compression ("zstd\0version\0", "none\0...") and points at a chain of
// options sections, each holding options (id, size, data) and DONE with the
// offset of the next one, while v6 stores the same information in a fixed
// order. From both the reader takes the ring-buffer page and event header
// descriptions, the tracepoint format texts (decoded with package tpformat,
// the same decoder perf.data uses), the saved command lines, the CPU count,
// uname, trace-cmd version and clock, and the per-CPU trace data of each
// buffer (instance).
//
// Per-CPU data is a copy of the kernel's ring-buffer pages
// (kernel/trace/ring_buffer.c): a page header (u64 time stamp, a long
// "commit" whose low bits give the data length and whose bits 31 and 30 say
// that events were lost before the page and whether their count is stored
// after the data), then events, each a 32-bit header of 5 bits type_len and
// 27 bits time delta: 1..28 a record of type_len*4 bytes, 0 a record whose
// length follows, 29 padding (or a discarded record), 30 a time extension
// (delta += array[0] << 27), 31 an absolute time stamp. Records are
// tracepoint payloads; the sched ones become trace.Events, others are
// counted. Pages with lost events give Meta.Lost windows, KindLost events
// and a warning. The CPUs are merged into one time-ordered stream with a
// min-heap, one page of each CPU in memory at a time (one decompressed
// chunk for compressed files).
//
// Only the top instance is read when a file has several buffers; the
// others are named in a warning (Options.Instance selects another).
package tracedat
