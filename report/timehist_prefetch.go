package report

import (
	"io"

	"github.com/traceview/traceview/trace"
)

// timehistPrefetchBatch is how many events the reading goroutine hands over
// at a time: large enough to make the channel cost negligible per event,
// small enough (about 170 KiB) to stay in cache.
const timehistPrefetchBatch = 1024

// timehistPrefetch reads src on its own goroutine and hands events over in
// order, in batches, so that decoding the trace and the view's accounting
// and printing run on two CPUs (perf sched runs on one). Call each with the
// function to apply to every event; it returns the first error of src
// (io.EOF is not an error) or of fn, and only after the reading goroutine
// has stopped, so src may be closed or its Meta read afterwards.
//
// stacks, when not nil, receives before each batch the entries that the
// source added to its stack table (Meta.Stacks) while reading it: a
// streaming reader (perf.data) fills the table as it goes, on the reading
// goroutine, so fn must not read Meta.Stacks itself.
func timehistPrefetch(src trace.Source, fn func(e *trace.Event) error, stacks func([]trace.Stack)) error {
	type batch struct {
		evs    []trace.Event
		err    error
		stacks []trace.Stack // new stack table entries
	}
	sent := 0
	full := make(chan batch, 4)
	free := make(chan []trace.Event, 6)
	stop := make(chan struct{})
	done := make(chan struct{})
	for i := 0; i < 6; i++ {
		free <- make([]trace.Event, 0, timehistPrefetchBatch)
	}
	go func() {
		defer close(done)
		defer close(full)
		for {
			var buf []trace.Event
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			var err error
			for len(buf) < cap(buf) {
				var e trace.Event
				if e, err = src.Next(); err != nil {
					break
				}
				buf = append(buf, e)
			}
			var newStacks []trace.Stack
			if m := src.Meta(); stacks != nil && m != nil && len(m.Stacks) > sent {
				newStacks = append(newStacks, m.Stacks[sent:]...)
				sent = len(m.Stacks)
			}
			select {
			case full <- batch{buf, err, newStacks}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var ferr error
	for b := range full {
		if len(b.stacks) > 0 {
			stacks(b.stacks)
		}
		for i := range b.evs {
			if ferr = fn(&b.evs[i]); ferr != nil {
				break
			}
		}
		if ferr == nil && b.err != nil && b.err != io.EOF {
			ferr = b.err
		}
		if ferr != nil {
			break
		}
		free <- b.evs[:0]
	}
	close(stop)
	<-done
	return ferr
}
