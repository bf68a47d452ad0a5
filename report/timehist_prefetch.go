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
func timehistPrefetch(src trace.Source, fn func(e *trace.Event) error) error {
	type batch struct {
		evs []trace.Event
		err error
	}
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
			select {
			case full <- batch{buf, err}:
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
