package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/traceview/traceview/trace"
)

// readInterrupt lets Ctrl-C end the reading of a command that reads traces
// and reports on them (interruptible): the first Ctrl-C ends each input
// where its reading got (trace.Tap.Stop, in watchCPUs), the command writes
// its output of what it read, whole (a JSON document closed, CSV rows
// whole), the input's warnings say where it stopped, and the command fails
// (exit 1) saying so; a second Ctrl-C ends the process at once. Before, the
// process died mid-write: timehist -o json left 108 MB cut inside a row,
// and nothing said the run was interrupted (new-user pass 111 F7). replay
// has its own (simWatch), record and top theirs.
type readInterrupt struct {
	stop atomic.Bool
	// cut: a read was ended by it (stopAtInterrupt); a Ctrl-C after the
	// reading ended cut nothing (new-user pass 113 F2: "the output covers
	// only what was read" of a whole output).
	cut  atomic.Bool
	sigs chan os.Signal
	// done is closed once the catcher is finished: it took a Ctrl-C (stop
	// set) or sigs was closed; closeSigs closes sigs once.
	done      chan struct{}
	closeSigs func()
}

// readStop is the running command's readInterrupt (execute sets it for the
// interruptible commands); nil otherwise.
var readStop *readInterrupt

// interruptible are the commands whose reading Ctrl-C ends early.
// replay's reading phase only (endReadInterrupt), info what it read.
var interruptible = map[string]bool{"latency": true, "timehist": true, "stats": true, "map": true, "export": true, "report": true, "compare": true,
	"info": true, "replay": true}

// catchReadInterrupt starts catching Ctrl-C into readStop; the function it
// returns stops that.
func catchReadInterrupt() (stop func()) {
	r := &readInterrupt{sigs: make(chan os.Signal, 1), done: make(chan struct{})}
	r.closeSigs = sync.OnceFunc(func() { close(r.sigs) })
	signal.Notify(r.sigs, os.Interrupt)
	go func() {
		defer close(r.done)
		if _, ok := <-r.sigs; ok {
			r.stop.Store(true)
			signal.Stop(r.sigs) // a second Ctrl-C ends the process at once
		}
	}()
	readStop = r
	// A reader that copies its input before reading it (a file-mode
	// perf.data from a pipe) stops the copy too.
	readOptions.Stop = func() bool {
		if !r.stop.Load() {
			return false
		}
		r.cut.Store(true)
		return true
	}
	return func() {
		signal.Stop(r.sigs)
		r.closeSigs()
		readStop = nil
		readOptions.Stop = nil
	}
}

// endReadInterrupt stops catching Ctrl-C for the reading (replay, once
// its input is read: its simulations catch their own) and reports whether
// one came, whether or not it cut a read: a Ctrl-C after the last event was
// read and before this call cut nothing, and left the stop set for the
// readers that come after (new-user pass 120 F1: replay's second reading,
// for the observed table, stopped at its first event, and a whole
// prediction was scored against an empty observed side). readInterrupted
// still says whether one cut the reading.
func endReadInterrupt() (signalled bool) {
	r := readStop
	if r == nil {
		return false
	}
	signal.Stop(r.sigs)
	r.closeSigs()
	<-r.done // (the catcher took a Ctrl-C, or sigs closed: stop is final)
	return r.stop.Load()
}

// errReadInterrupted is the error of a command that stops at once when
// Ctrl-C ended its reading (replay: nothing predicted).
var errReadInterrupted = errors.New("nothing done with the part read")

// readInterrupted reports whether Ctrl-C ended the running command's reading.
func readInterrupted() bool { return readStop != nil && readStop.cut.Load() }

// signalled reports whether Ctrl-C came (r may be nil).
func (r *readInterrupt) signalled() bool { return r != nil && r.stop.Load() }

// interruptedKey is the key of the warning an input stopped by Ctrl-C
// gets (printed first, in full: answerKey).
const interruptedKey = "interrupted"

// stopAtInterrupt returns a trace.Tap.Stop for an input whose warnings are
// meta's and whose last event read *last gives (ns, 0 none): once Ctrl-C
// came it adds the warning that says where the reading stopped.
func stopAtInterrupt(meta func() *trace.Meta, last *int64) func() bool {
	said := false
	return func() bool {
		if !readStop.signalled() {
			return false
		}
		readStop.cut.Store(true)
		if m := meta(); !said && m != nil {
			said = true
			where := "before its first event"
			if *last > 0 {
				where = "after its events up to " + trace.FormatSeconds(*last, 6) + " s"
			}
			m.Warnings.Add(interruptedKey, "interrupted (Ctrl-C): reading stopped %s; the output covers the trace to there only (the rest was not read)", where)
		}
		return true
	}
}

// interruptedError is execute's error for a command whose reading Ctrl-C
// ended: err, the command's own (nil when it wrote its output), with that
// said.
func interruptedError(name string, err error) error {
	var done interruptedErr
	switch {
	case errors.As(err, &done):
		return err // said already
	case errors.Is(err, trace.ErrStopped):
		// A reader's copy of its input stopped (perfdata's spill). The
		// command's name once (new-user pass 115 F6: "info:
		// interrupted (Ctrl-C): info: -: ...").
		return interruptedErr{fmt.Errorf("%s: interrupted (Ctrl-C): %s", name, strings.TrimPrefix(err.Error(), name+": "))}
	case errors.Is(err, errReadInterrupted):
		return interruptedErr{fmt.Errorf("%s: interrupted (Ctrl-C) while reading (the warning above says where): %w", name, err)}
	case err != nil:
		return interruptedErr{fmt.Errorf("%w (reading interrupted by Ctrl-C)", err)}
	}
	return interruptedErr{fmt.Errorf("%s: interrupted (Ctrl-C): the output covers only what was read before it (the warning above says where)", name)}
}

// interruptedErr is an error interruptedError made.
type interruptedErr struct{ error }

func (e interruptedErr) Unwrap() error { return e.error }
