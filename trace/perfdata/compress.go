package perfdata

import (
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/trace"
)

// decompressor holds the records unpacked from PERF_RECORD_COMPRESSED(2)
// (`perf record -z`, zstd). A record may straddle two compressed records,
// so undelivered bytes carry over.
type decompressor struct {
	dec *zstd.Decoder
	buf []byte
	pos int
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
// perf compresses each batch as a zstd stream that it flushes at the end of
// every record, which DecodeAll on the concatenation of pending payloads
// decodes.
func (r *Reader) compressed(typ uint32, rec []byte, off int64) error {
	payload := rec[8:]
	if typ == recCompressed2 {
		if len(rec) < 16 {
			return fmt.Errorf("compressed record at offset %d: %w", off, trace.ErrCorrupt)
		}
		n := r.order.Uint64(rec[8:])
		if n > uint64(len(rec)-16) {
			return fmt.Errorf("compressed record at offset %d: data size %d: %w", off, n, trace.ErrCorrupt)
		}
		payload = rec[16 : 16+n]
	}
	if r.decomp == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<28))
		if err != nil {
			return err
		}
		r.decomp = &decompressor{dec: dec}
	}
	d := r.decomp
	// Keep the undelivered tail, then append the new records.
	tail := copy(d.buf, d.buf[d.pos:])
	d.buf, d.pos = d.buf[:tail], 0
	out, err := d.dec.DecodeAll(payload, d.buf)
	if err != nil {
		return fmt.Errorf("compressed record at offset %d: zstd: %v: %w", off, err, trace.ErrCorrupt)
	}
	d.buf = out
	return nil
}
