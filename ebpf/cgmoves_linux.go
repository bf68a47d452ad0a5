//go:build linux

package ebpf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	cilium "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
)

// moveWatcher holds the cgroup_attach_task program (cgattach.c) and reads
// its ring buffer.
type moveWatcher struct {
	coll *cilium.Collection
	l    link.Link
	rd   *ringbuf.Reader
	rec  ringbuf.Record
}

// openMoveWatcher loads and attaches the program for the attaches into
// hierarchy (the v1 cpu hierarchy's id, /proc/cgroups). Errors are one line:
// a kernel without the tp_btf tracepoint or BTF, or a verifier rejection.
func openMoveWatcher(hierarchy int) (*moveWatcher, error) {
	spec, err := loadCgattach()
	if err != nil {
		return nil, err
	}
	if err := spec.Variables["want_hierarchy"].Set(int32(hierarchy)); err != nil {
		return nil, fmt.Errorf("set want_hierarchy: %w", err)
	}
	coll, err := newCollection(spec, btf.NewCache(), "cgroup-move")
	if err != nil {
		return nil, err
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: coll.Programs["tp_btf_cgroup_attach_task"]})
	if err != nil {
		coll.Close()
		return nil, fmt.Errorf("attach to cgroup_attach_task: %w", err)
	}
	rd, err := ringbuf.NewReader(coll.Maps["moves"])
	if err != nil {
		l.Close()
		coll.Close()
		return nil, fmt.Errorf("open the cgroup-move ring buffer: %w", err)
	}
	return &moveWatcher{coll: coll, l: l, rd: rd}, nil
}

// drain passes every record in the ring buffer now to fn, without waiting
// for more, and returns how many attaches the program could not write
// (the buffer was full) since it was loaded.
func (w *moveWatcher) drain(fn func(cgMove)) (lost uint64) {
	w.rd.SetDeadline(time.Now())
	for {
		if err := w.rd.ReadInto(&w.rec); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, ringbuf.ErrFlushed) {
				lost++ // a closed or broken reader: no move can be trusted complete
			}
			break
		}
		if m, ok := parseCgMove(w.rec.RawSample, binary.LittleEndian); ok {
			fn(m)
		}
	}
	var n uint64
	if v := w.coll.Variables["moves_lost"]; v != nil && v.Get(&n) == nil {
		lost += n
	}
	return lost
}

func (w *moveWatcher) close() {
	w.rd.Close()
	w.l.Close()
	w.coll.Close()
}
