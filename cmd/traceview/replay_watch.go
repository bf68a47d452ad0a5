package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
)

// simWatch shows the progress of replay's simulations on stderr (a bar of
// simulated time, when stderr is a terminal, as latency shows its reading)
// and stops the one running at Ctrl-C: replay then prints the prediction so
// far, labelled as such, and fails; a second Ctrl-C ends the process at
// once. Before the first simulation (while the trace is read) Ctrl-C ends
// the process as usual: there is nothing to show yet.
type simWatch struct {
	stop atomic.Bool // Ctrl-C came
	sigs chan os.Signal
	bar  io.Writer // stderr when it is a terminal, else nil
}

// newSimWatch starts catching Ctrl-C; close stops it.
func newSimWatch() *simWatch {
	w := &simWatch{sigs: make(chan os.Signal, 1)}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		w.bar = os.Stderr
	}
	signal.Notify(w.sigs, os.Interrupt)
	go func() {
		if _, ok := <-w.sigs; ok {
			w.stop.Store(true)
			signal.Stop(w.sigs) // a second Ctrl-C ends the process at once
		}
	}()
	return w
}

func (w *simWatch) close() {
	signal.Stop(w.sigs)
	close(w.sigs)
}

// watch returns cfg with a Progress that feeds a bar named desc (from
// progressDelay on, in ms of m's span) and stops the simulation at Ctrl-C;
// done removes the bar.
func (w *simWatch) watch(m *replay.Model, cfg replay.Config, desc string) (_ replay.Config, done func()) {
	var at atomic.Int64
	cfg.Progress = func(ns, _ int64) bool {
		at.Store(ns)
		return !w.stop.Load()
	}
	if w.bar == nil {
		return cfg, func() {}
	}
	pos := func() (int64, error) { return at.Load() / 1e6, nil }
	stop, finished := startBar(pos, max((m.End-m.Start)/1e6, 1), w.bar, progressDelay, desc,
		progressbar.OptionShowBytes(false), progressbar.OptionSetItsString("ms"))
	return cfg, func() {
		close(stop)
		<-finished
	}
}

// interrupted is the line that labels a prediction Ctrl-C cut short.
func interrupted(policy string, res *replay.Result, m *replay.Model) string {
	return fmt.Sprintf("interrupted (Ctrl-C): the %s prediction stops at %s; its rows count the simulation up to there only",
		policy, reached(res, m))
}

// reached says how far an interrupted simulation got, in its own time
// from the trace's start; the trace's span beside it is no total (a
// what-if may run longer: new-user pass 115 F3 read "8909.036 ms of the
// trace's 4900.382 ms").
func reached(res *replay.Result, m *replay.Model) string {
	return fmt.Sprintf("%s ms of simulated time (the recorded trace spans %s ms; a what-if may run longer or shorter)", msf(max(res.End-m.Start, 0)), msf(m.End-m.Start))
}

// of returns watch as predict.Watch takes it, for simulations of m.
func (w *simWatch) of(m *replay.Model) predict.Watch {
	return func(cfg replay.Config, desc string) (replay.Config, func()) { return w.watch(m, cfg, desc) }
}
