package ebpf

import (
	"fmt"
	"io"
	"math"
	"os"
)

// backlog holds batches, oldest first, until the capture has time to
// decode them: the first ones in memory, as they are (it takes them over:
// no copy), up to memMax bytes; while that is full, the next ones in an
// unnamed file (O_TMPFILE in a directory), until the file has been read
// back to its end. The file stores batches encoded by encodeBatch:
//
//	0  len(recs)   u32
//	4  losses      u32
//	8  watermark   i64
//	16 losses × (CPU i32, At u32, N u64, Noticed i64)
//	   recs
//
// A backlog is not safe for concurrent use.
type backlog struct {
	memMax int64
	mem    []*batch // the batches in memory, oldest first, all older than the file's
	memB   int64    // bytes of recs in mem
	f      *os.File // nil: memory only
	lens   []int    // in the file: the lengths of the batches from r on
	w, r   int64    // in the file: write and read offsets
	bytes  int64    // bytes held (recs in memory, encoded batches in the file)
	enc    []byte
}

const (
	batchHeaderSize = 16
	lossSize        = 24
)

// newBacklog returns a backlog that keeps up to memMax bytes of batches in
// memory and the rest in an unnamed file of dir (mode 0600, removed by the
// kernel when closed); with dir "", all of it in memory.
func newBacklog(dir string, memMax int64) (*backlog, error) {
	q := &backlog{memMax: memMax}
	if dir == "" {
		q.memMax = math.MaxInt64
		return q, nil
	}
	f, err := openTmpFile(dir)
	if err != nil {
		return nil, fmt.Errorf("backlog file in %s: %w", dir, err)
	}
	q.f = f
	return q, nil
}

// size returns the bytes held.
func (q *backlog) size() int64 { return q.bytes }

// empty reports whether no batch is held.
func (q *backlog) empty() bool { return len(q.mem) == 0 && len(q.lens) == 0 }

// push stores b: kept reports that the backlog took b itself over (the
// caller must not use it again), else it stored a copy.
func (q *backlog) push(b *batch) (kept bool, err error) {
	if len(q.lens) == 0 && q.memB+int64(len(b.recs)) <= q.memMax {
		// Memory is counted by what the batch holds on to: a batch of a
		// quiet drain pass is mostly empty, and is copied to its size
		// (an idle minute of 1 MiB batches with a few records each kept
		// 95 MB alive for 1 MB of records).
		m := b
		if len(b.recs) < cap(b.recs)/2 {
			m = &batch{recs: append([]byte(nil), b.recs...), losses: append([]lossReport(nil), b.losses...), watermark: b.watermark}
		}
		q.mem = append(q.mem, m)
		q.memB += int64(cap(m.recs))
		q.bytes += int64(len(m.recs))
		return m == b, nil
	}
	e := encodeBatch(q.enc[:0], b)
	q.enc = e
	if _, err := q.f.WriteAt(e, q.w); err != nil {
		return false, fmt.Errorf("backlog: %w", err)
	}
	q.bytes += int64(len(e))
	q.w += int64(len(e))
	q.lens = append(q.lens, len(e))
	return false, nil
}

// pop fills b with the oldest batch (taking over its slices, or reusing
// b's) and removes it; it returns io.EOF when the backlog is empty.
func (q *backlog) pop(b *batch) error {
	switch {
	case len(q.mem) > 0:
		m := q.mem[0]
		q.mem[0] = nil
		q.mem = q.mem[1:]
		q.memB -= int64(cap(m.recs))
		q.bytes -= int64(len(m.recs))
		*b, *m = *m, *b
		return nil
	case len(q.lens) > 0:
		n := q.lens[0]
		q.lens = q.lens[1:]
		if cap(q.enc) < n {
			q.enc = make([]byte, n)
		}
		e := q.enc[:n]
		if _, err := q.f.ReadAt(e, q.r); err != nil {
			return fmt.Errorf("backlog: %w", err)
		}
		q.r += int64(n)
		if q.r == q.w {
			// Caught up: start the file over, so a long capture that
			// keeps up uses no disk.
			q.r, q.w, q.lens = 0, 0, q.lens[:0]
			if err := q.f.Truncate(0); err != nil {
				return fmt.Errorf("backlog: %w", err)
			}
		}
		q.bytes -= int64(n)
		return decodeBatch(e, b)
	}
	return io.EOF
}

// close frees the backlog (its file disappears with it).
func (q *backlog) close() error {
	q.mem, q.lens = nil, nil
	if q.f != nil {
		return q.f.Close()
	}
	return nil
}

// namedTmpFile creates a file in dir (mode 0600) and removes its name at
// once.
func namedTmpFile(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".traceview-backlog-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
