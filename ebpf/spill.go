package ebpf

import (
	"fmt"
	"io"
	"os"
)

// backlog holds batches, oldest first, until the capture has time to
// decode them: in an unnamed file (O_TMPFILE in a directory) or in memory.
// Batches are stored encoded as
//
//	0  len(recs)   u32
//	4  losses      u32
//	8  watermark   i64
//	16 losses × (CPU i32, At u32, N u64, Noticed i64)
//	   recs
//
// A backlog is not safe for concurrent use.
type backlog struct {
	f     *os.File // nil: in memory
	mem   [][]byte // in memory: the encoded batches
	lens  []int    // in a file: the lengths of the batches from r on
	w, r  int64    // in a file: write and read offsets
	bytes int64    // encoded bytes held
	enc   []byte
}

const (
	batchHeaderSize = 16
	lossSize        = 24
)

// newBacklog returns a backlog in an unnamed file of dir (mode 0600,
// removed by the kernel when closed), or in memory when dir is "".
func newBacklog(dir string) (*backlog, error) {
	if dir == "" {
		return &backlog{}, nil
	}
	f, err := openTmpFile(dir)
	if err != nil {
		return nil, fmt.Errorf("backlog file in %s: %w", dir, err)
	}
	return &backlog{f: f}, nil
}

// size returns the encoded bytes held.
func (q *backlog) size() int64 { return q.bytes }

// empty reports whether no batch is held.
func (q *backlog) empty() bool { return len(q.mem) == 0 && len(q.lens) == 0 }

// push stores a copy of b.
func (q *backlog) push(b *batch) error {
	e := q.enc[:0]
	if q.f == nil {
		e = make([]byte, 0, batchHeaderSize+lossSize*len(b.losses)+len(b.recs))
	}
	e = encodeBatch(e, b)
	q.bytes += int64(len(e))
	if q.f == nil {
		q.mem = append(q.mem, e)
		return nil
	}
	q.enc = e
	if _, err := q.f.WriteAt(e, q.w); err != nil {
		return fmt.Errorf("backlog: %w", err)
	}
	q.w += int64(len(e))
	q.lens = append(q.lens, len(e))
	return nil
}

// pop fills b with the oldest batch (reusing its slices) and removes it;
// it returns io.EOF when the backlog is empty.
func (q *backlog) pop(b *batch) error {
	var e []byte
	switch {
	case q.f == nil && len(q.mem) > 0:
		e = q.mem[0]
		q.mem[0] = nil
		q.mem = q.mem[1:]
	case q.f != nil && len(q.lens) > 0:
		n := q.lens[0]
		q.lens = q.lens[1:]
		if cap(q.enc) < n {
			q.enc = make([]byte, n)
		}
		e = q.enc[:n]
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
	default:
		return io.EOF
	}
	q.bytes -= int64(len(e))
	return decodeBatch(e, b)
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
