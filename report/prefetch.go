package report

import (
	"github.com/traceview/traceview/trace"
)

// prefetchBatch is how many events the prefetching goroutine decodes
// before handing them over; prefetchDepth batches are in flight.
const (
	prefetchBatch = 4096
	prefetchDepth = 4
)

type eventBatch struct {
	evs []trace.Event
	err error // set on the last batch: io.EOF or the source's error
}

// prefetcher reads a Source on its own goroutine, so that decoding the
// trace and computing a report run on two CPUs at once. Batches are
// recycled, so steady state allocates nothing.
type prefetcher struct {
	full  chan eventBatch
	empty chan []trace.Event
	cur   eventBatch
	i     int
}

// newPrefetcher starts reading src; the caller must call Next until it
// returns an error (the goroutine ends after delivering it).
func newPrefetcher(src trace.Source) *prefetcher {
	p := &prefetcher{full: make(chan eventBatch, prefetchDepth), empty: make(chan []trace.Event, prefetchDepth+1)}
	for i := 0; i < prefetchDepth+1; i++ {
		p.empty <- make([]trace.Event, 0, prefetchBatch)
	}
	go func() {
		for {
			buf := (<-p.empty)[:0]
			var err error
			if bs, ok := src.(trace.BatchSource); ok {
				var n int
				n, err = bs.NextBatch(buf[:prefetchBatch])
				buf = buf[:n]
			} else {
				for len(buf) < prefetchBatch {
					var e trace.Event
					if e, err = src.Next(); err != nil {
						break
					}
					buf = append(buf, e)
				}
			}
			p.full <- eventBatch{evs: buf, err: err}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// Next returns a pointer to the next event, valid until the following
// call, or the source's terminal error (io.EOF at the end).
func (p *prefetcher) Next() (*trace.Event, error) {
	for p.i >= len(p.cur.evs) {
		if p.cur.err != nil {
			return nil, p.cur.err
		}
		if p.cur.evs != nil {
			p.empty <- p.cur.evs
		}
		p.cur = <-p.full
		p.i = 0
	}
	e := &p.cur.evs[p.i]
	p.i++
	return e, nil
}
