package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/traceview/traceview/trace"
)

// progressDelay is how long reading may take before a progress bar
// appears: short reads print nothing.
const progressDelay = time.Second

// openInputProgress opens path like openInput and, when stderr is a
// terminal and the input is a regular file, shows a byte progress bar on
// stderr once reading has taken longer than progressDelay. The bar follows
// the bytes read (see readPosition, polled every 100 ms) and is cleared
// when the stream ends or is closed.
func openInputProgress(path string) (trace.Source, error) {
	if path == "" {
		path = defaultTrace
	}
	if path == "-" || !term.IsTerminal(int(os.Stderr.Fd())) {
		return openInput(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return openInput(path) // same error text as every other command
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return openInput(path)
	}
	src, err := readOptions.OpenReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	return watchCPUs(withProgress(src, readPosition(f), st.Size(), os.Stderr, progressDelay, "reading "+path)), nil
}

// readPosition returns how far reading f has got. Readers may read with
// ReadAt (perf.data does), which leaves the file offset alone, so on Linux
// the count is the process's bytes read since now (rchar of /proc/self/io,
// which counts read and pread alike); elsewhere it is f's offset.
func readPosition(f *os.File) func() (int64, error) {
	if start, err := procRchar(); err == nil {
		return func() (int64, error) {
			n, err := procRchar()
			return n - start, err
		}
	}
	return func() (int64, error) { return f.Seek(0, io.SeekCurrent) }
}

// procRchar reads the rchar line of /proc/self/io (Documentation/
// filesystems/proc.rst: bytes the task caused to be read by read(2),
// pread(2) and similar).
func procRchar() (int64, error) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/self/io: no rchar line")
}

// withProgress wraps src with a progress bar: after delay it draws a bar of
// size bytes on w, set from pos every 100 ms, until the stream ends or is
// closed. The wrapper is a trace.Tap, so the reader's batches and kind
// skipping still work through it.
func withProgress(src trace.Source, pos func() (int64, error), size int64, w io.Writer, delay time.Duration, desc string) *trace.Tap {
	done, finished := startBar(pos, size, w, delay, desc)
	return &trace.Tap{Source: src, End: func(error) {
		close(done)
		<-finished
	}}
}

// startBar starts a goroutine that, after delay, draws a byte progress bar
// of size bytes on w, set from pos every 100 ms, until done is closed;
// finished is closed once the bar is gone. opts come after the bar's own
// options (progressbar.OptionShowBytes(false) for a bar of other units).
func startBar(pos func() (int64, error), size int64, w io.Writer, delay time.Duration, desc string, opts ...progressbar.Option) (done, finished chan struct{}) {
	done, finished = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-time.After(delay):
		}
		bar := progressbar.NewOptions64(size, append([]progressbar.Option{
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100 * time.Millisecond),
			progressbar.OptionClearOnFinish(),
		}, opts...)...,
		)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := pos(); err == nil {
				bar.Set64(min(max(n, 0), size))
			}
			select {
			case <-done:
				bar.Finish()
				return
			case <-tick.C:
			}
		}
	}()
	return done, finished
}

// filesProgress shows one byte progress bar on stderr, when it is a
// terminal, for reading the regular files of paths in parallel (the
// process's bytes read against their total size, see readPosition); stop
// removes it.
func filesProgress(paths []string, desc string) (stop func()) {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return func() {}
	}
	start, err := procRchar()
	if err != nil {
		return func() {}
	}
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			size += st.Size()
		}
	}
	pos := func() (int64, error) {
		n, err := procRchar()
		return n - start, err
	}
	done, finished := startBar(pos, size, os.Stderr, progressDelay, desc)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}
