package trace

import (
	"errors"
	"io"
	"sync"
)

// ReadBatch fills dst from the start with src's next events and returns how
// many it wrote, at least one, or 0 and src's terminal error (io.EOF at the
// end): through NextBatch when src is a BatchSource, else by Next calls.
func ReadBatch(src Source, dst []Event) (int, error) {
	if bs, ok := src.(BatchSource); ok {
		return bs.NextBatch(dst)
	}
	for i := range dst {
		e, err := src.Next()
		if err != nil {
			if i > 0 {
				return i, nil
			}
			return 0, err
		}
		dst[i] = e
	}
	return len(dst), nil
}

// ReadPointers sets b.Events to src's next events, at least one, or
// returns src's terminal error (io.EOF at the end) with none: through
// NextPointers when src is a PointerSource, else by ReadBatch into b.Store.
func ReadPointers(src Source, b *EventBatch) error {
	if ps, ok := src.(PointerSource); ok {
		return ps.NextPointers(b)
	}
	n, err := ReadBatch(src, b.Store[:cap(b.Events)])
	b.Events = b.Events[:0]
	for i := range b.Store[:n] {
		b.Events = append(b.Events, &b.Store[i])
	}
	return err
}

// prefetchBatch is how many events the reading goroutine hands over at a
// time, and prefetchDepth how many batches may wait (about 5.4 MiB in all,
// with the two in use).
// Each handover that finds the other goroutine parked costs a wakeup
// (futex, then the Go scheduler), 50-100 us on this 2-vCPU VM: with 1024
// events a batch the consumer of `latency` spent 117 ms of a 0.8 s run
// waiting to be scheduled after the batch it waited for was ready (go tool
// trace -pprof=sched); with 4096 the run took 0.62 s instead of 0.82 s
// (bench file of docs/latency.md, idle machine). The reader and the report
// take turns being the slower one (the reader still waited 85-92 ms of a
// run for a free batch with 4 of them): 8 waiting batches gave medians of
// 0.68 s against 0.76 s in 5 alternating runs (load 2-4), for 2.7 MiB more.
// Since the reader became the slower side for good (2026-12-03: it waits
// 0.1-0.2 ms a run for a free batch), 3, 6, 8 and 16 time the same within
// the noise; 6, because the batches' pages are now all written when made
// (NewEventBatch) and count in the peak RSS.
const (
	prefetchBatch = 4096
	prefetchDepth = 6
)

type prefetchedBatch struct {
	b      *EventBatch
	err    error   // set on the last batch (then b is nil): io.EOF or the source's error
	stacks []Stack // entries the source added to Meta.Stacks while reading it
}

// Prefetcher reads a Source on its own goroutine, a few batches ahead of its
// consumer, so that decoding a trace and computing a report run on two CPUs
// at once. Batches are recycled: the steady state allocates nothing.
type Prefetcher struct {
	full chan prefetchedBatch
	// free holds the batches the consumer is done with, last freed on top:
	// a batch the reader takes again is the one the consumer read last,
	// still in a cache, rather than the one it read longest ago (a FIFO's,
	// about 5 MiB of batches back when the reader is the slower one).
	// freeN holds a token per batch in free.
	freeMu sync.Mutex
	free   []*EventBatch
	freeN  chan struct{}
	stop   chan struct{}
	done   chan struct{}
	cur    prefetchedBatch
	evs    []*Event // cur's events; Next has returned evs[:i]
	i      int
	stacks func([]Stack)
	made   int // batches made, by the reader (take)
	limit  int // at most this many batches
}

// Prefetch starts reading src (through ReadPointers, so a BatchSource fills
// the batches in place and a PointerSource hands its events over without a
// copy). stacks, when not nil, receives on the consumer's
// goroutine, before the events of each batch, the entries that src added to
// its stack table (Meta.Stacks) while reading them: a streaming reader fills
// the table as it goes, on the reading goroutine, so the consumer must not
// read Meta.Stacks before the end. Read with Next until it returns an error,
// or call Stop.
func Prefetch(src Source, stacks func([]Stack)) *Prefetcher {
	depth := prefetchDepth
	if h, ok := src.(PrefetchHinter); ok && h.PrefetchDepth() > 0 && h.PrefetchDepth() < depth {
		depth = h.PrefetchDepth()
	}
	p := &Prefetcher{
		full:   make(chan prefetchedBatch, depth),
		freeN:  make(chan struct{}, depth+2),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		stacks: stacks,
		limit:  depth + 2,
	}
	go p.read(src)
	return p
}

// PrefetchHinter is a Source that asks Prefetch for fewer waiting batches
// than prefetchDepth: one read beside other work on every CPU (replay's
// second read of its input, beside the simulation), where a batch more
// buys no time and adds its 1.6 MiB to the peak RSS.
type PrefetchHinter interface {
	PrefetchDepth() int
}

// take returns a batch for the reader: a free one, else a new one while
// fewer than p.limit were made, else the next one the consumer frees; nil
// when the Prefetcher is stopped. Batches are made only when the reader
// finds none free, so a consumer faster than the reader keeps two or three
// (each 1.6 MiB of Store, all its pages written when made: NewEventBatch)
// instead of p.limit.
func (p *Prefetcher) take() *EventBatch {
	select {
	case <-p.freeN:
	default:
		if p.made < p.limit {
			p.made++
			return NewEventBatch(prefetchBatch)
		}
		select {
		case <-p.freeN:
		case <-p.stop:
			return nil
		}
	}
	p.freeMu.Lock()
	buf := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.freeMu.Unlock()
	return buf
}

func (p *Prefetcher) read(src Source) {
	defer close(p.done)
	sent := 0
	for {
		buf := p.take()
		if buf == nil {
			return
		}
		b := prefetchedBatch{b: buf}
		if b.err = ReadPointers(src, buf); b.err != nil {
			b.b = nil
		}
		if m := src.Meta(); p.stacks != nil && m != nil && len(m.Stacks) > sent {
			b.stacks = append([]Stack(nil), m.Stacks[sent:]...)
			sent = len(m.Stacks)
		}
		select {
		case p.full <- b:
		case <-p.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// Next returns a pointer to the next event, valid until the following
// call, or the source's terminal error (io.EOF at the end) once every event
// before it was returned; the reading goroutine has then ended.
func (p *Prefetcher) Next() (*Event, error) {
	for p.i >= len(p.evs) {
		if p.cur.err != nil {
			return nil, p.cur.err
		}
		if p.cur.b != nil {
			p.putFree(p.cur.b)
		}
		p.cur = <-p.full
		p.i = 0
		p.evs = nil
		if p.cur.b != nil {
			p.evs = p.cur.b.Events
		}
		if len(p.cur.stacks) > 0 {
			p.stacks(p.cur.stacks)
		}
	}
	e := p.evs[p.i]
	p.i++
	return e, nil
}

// putFree hands batch back to the reader.
func (p *Prefetcher) putFree(batch *EventBatch) {
	p.freeMu.Lock()
	p.free = append(p.free, batch)
	p.freeMu.Unlock()
	p.freeN <- struct{}{}
}

// Stop ends the reading goroutine early and waits for it, so that the
// source may be closed or its Meta read. Next must not be called after it.
func (p *Prefetcher) Stop() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

// Each applies fn to every event of src in order, reading src on its own
// goroutine (see Prefetch; stacks as there). It returns the first error of
// fn or of src (io.EOF is not an error), after the reading goroutine has
// stopped.
func Each(src Source, fn func(*Event) error, stacks func([]Stack)) error {
	p := Prefetch(src, stacks)
	defer p.Stop()
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}
