package perfdata

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/trace"
)

// decompressor unpacks PERF_RECORD_COMPRESSED(2) records (`perf record
// -z`). perf compresses with one zstd stream for the whole recording,
// flushed at the end of every compressed record (tools/perf/util/zstd.c), so
// each record's payload completes the blocks begun before it but not the
// frame. A zstd decoder runs in its own goroutine over the payloads handed
// to it; after each payload, everything it can decode is collected until it
// asks for more input. Records may straddle two payloads, so undelivered
// bytes carry over.
type decompressor struct {
	in   chan []byte
	out  chan zmsg
	done chan struct{}
	err  error
	buf  []byte
	pos  int
}

type zmsg struct {
	b       []byte
	starved bool
	err     error
}

// chanReader is the decoder's input: payloads from in; before waiting for
// one it reports that it is starved, which tells the feeder that all output
// of the previous payloads has been delivered.
type chanReader struct {
	cur  []byte
	in   chan []byte
	out  chan zmsg
	done chan struct{}
}

func (c *chanReader) Read(p []byte) (int, error) {
	for len(c.cur) == 0 {
		select {
		case c.out <- zmsg{starved: true}:
		case <-c.done:
			return 0, io.EOF
		}
		select {
		case b, ok := <-c.in:
			if !ok {
				return 0, io.EOF
			}
			c.cur = b
		case <-c.done:
			return 0, io.EOF
		}
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

func newDecompressor() *decompressor {
	d := &decompressor{in: make(chan []byte), out: make(chan zmsg), done: make(chan struct{})}
	go func() {
		send := func(m zmsg) bool {
			select {
			case d.out <- m:
				return true
			case <-d.done:
				return false
			}
		}
		dec, err := zstd.NewReader(&chanReader{in: d.in, out: d.out, done: d.done},
			zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<28))
		if err != nil {
			send(zmsg{err: err})
			return
		}
		defer dec.Close()
		buf := make([]byte, 256<<10)
		for {
			n, err := dec.Read(buf)
			if n > 0 && !send(zmsg{b: append([]byte(nil), buf[:n]...)}) {
				return
			}
			if err != nil {
				send(zmsg{err: err})
				return
			}
		}
	}()
	d.collect()
	return d
}

// collect appends decoded data until the decoder asks for input.
func (d *decompressor) collect() {
	for d.err == nil {
		m := <-d.out
		switch {
		case m.starved:
			return
		case m.err != nil:
			d.err = m.err
		default:
			d.buf = append(d.buf, m.b...)
		}
	}
}

// feed decodes one payload.
func (d *decompressor) feed(payload []byte) error {
	if d.err != nil {
		return d.err
	}
	// Keep the undelivered tail, then append the new records.
	tail := copy(d.buf, d.buf[d.pos:])
	d.buf, d.pos = d.buf[:tail], 0
	d.in <- append([]byte(nil), payload...)
	d.collect()
	if d.err == io.EOF || errors.Is(d.err, io.ErrUnexpectedEOF) {
		d.err = fmt.Errorf("zstd stream ended early")
	}
	return d.err
}

func (d *decompressor) close() {
	if d != nil {
		close(d.done)
	}
}

func (d *decompressor) pending() int { return len(d.buf) - d.pos }

// next returns the next complete record held, or false when more compressed
// data is needed.
func (d *decompressor) next(r *Reader) ([]byte, bool, error) {
	rest := d.buf[d.pos:]
	if len(rest) < 8 {
		return nil, false, nil
	}
	size := int(r.order.Uint16(rest[6:]))
	if size < 8 {
		return nil, false, fmt.Errorf("record size %d: %w", size, trace.ErrCorrupt)
	}
	if size > len(rest) {
		return nil, false, nil
	}
	d.pos += size
	return rest[:size], true, nil
}

// compressed unpacks a PERF_RECORD_COMPRESSED ({header; data}) or
// PERF_RECORD_COMPRESSED2 ({header; u64 data_size; data}, 8-byte padded).
func (r *Reader) compressed(typ uint32, rec []byte, off int64) error {
	if r.notCompressed {
		// (new-user pass 33 F6: a flipped type byte, 9 -> 83, made an
		// error that reported none of the 54,363 events before it.)
		r.meta.Warnings.Add("bad-record-type", "perf.data: record at offset %d has the type of a compressed record (%d), but the file was not recorded compressed (no HEADER_COMPRESSED feature): a damaged record, skipped", off, typ)
		return nil
	}
	payload := rec[8:]
	if typ == recCompressed2 {
		n := uint64(0)
		if len(rec) >= 16 {
			n = r.order.Uint64(rec[8:])
		}
		if len(rec) < 16 || n > uint64(len(rec)-16) {
			// The stream cannot be followed past it: the trace ends
			// here, every event before it read.
			r.stopAt("damaged-compressed", fmt.Sprintf("compressed record at offset %d is damaged (data size %d in a %d-byte record)", off, n, len(rec)), off)
			return nil
		}
		payload = rec[16 : 16+n]
	}
	if r.decomp == nil {
		r.decomp = newDecompressor()
	}
	if err := r.decomp.feed(payload); err != nil {
		// perf record -z writes one zstd stream across its records
		// (record__pushfn, tools/perf/builtin-record.c v6.12): past a
		// damaged one nothing decodes, but every event before it does,
		// so the trace ends here with a warning, as a cut file does
		// (it was an error that reported none of the 34,704 events
		// before the damage).
		r.stopAt("damaged-compressed", fmt.Sprintf("compressed record at offset %d is damaged (zstd: %v), and the records after it are in the same compressed stream: the trace is read up to it", off, err), off)
		return nil
	}
	return nil
}

// cutCompressed handles an input that ends inside a compressed record
// (what: the record, for the warning; rec: its bytes there): perf's zstd
// stream decodes block by block, so the blocks complete in the part of
// the record there hold whole records, read before the trace ends (new-
// user pass 79 F3: `head -c` of a `perf sched record -z` file 53479 bytes
// into a 65535-byte compressed record read 14 events, those of the
// records before it). It reports false when rec is not such a record or
// its part does not decode, for the caller to end the trace at it.
func (r *Reader) cutCompressed(typ uint32, rec []byte, what string) bool {
	if typ != recCompressed && typ != recCompressed2 || r.notCompressed || len(rec) <= 8 {
		return false
	}
	payload := rec[8:]
	if typ == recCompressed2 {
		if len(rec) <= 16 {
			return false
		}
		payload = rec[16:min(len(rec), 16+int(min(r.order.Uint64(rec[8:]), 1<<20)))]
	}
	if r.decomp == nil {
		r.decomp = newDecompressor()
	}
	before := r.decomp.pending()
	if r.decomp.feed(payload) != nil {
		return false
	}
	at, n := r.off, int64(len(rec))
	decoded := r.decomp.pending() - before
	r.off += n
	r.stats.Bytes += n
	r.cutInCompressed = func() {
		r.cutInCompressed = nil
		r.off = at
		r.truncated(fmt.Sprintf("%s; its %d bytes there decompressed to %d bytes, whose whole records were read", what, len(payload), decoded), at+n)
	}
	return true
}
