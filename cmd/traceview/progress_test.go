package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// slowSource yields n events, sleeping between them, and moves a fake file
// offset forward by step bytes per event.
type slowSource struct {
	trace.SliceSource
	mu    sync.Mutex
	left  int
	pos   int64
	step  int64
	pause time.Duration
}

func (s *slowSource) Next() (trace.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == 0 {
		return trace.Event{}, io.EOF
	}
	s.left--
	s.pos += s.step
	s.mu.Unlock()
	time.Sleep(s.pause)
	s.mu.Lock()
	return trace.NewEvent(0, 0, trace.KindComm), nil
}

// Seek reports the fake offset (the progress goroutine asks for the
// current position only).
func (s *slowSource) Seek(off int64, whence int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos, nil
}

// syncBuffer is a bytes.Buffer safe for the bar's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func drain(t *testing.T, src trace.Source) int {
	t.Helper()
	n := 0
	for {
		if _, err := src.Next(); err == io.EOF {
			return n
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// A read slower than the delay draws a bar with the description and the
// byte counts; 10 events of 100 bytes = 1000 B of 1000 B at the end.
func TestProgressShownForSlowReads(t *testing.T) {
	s := &slowSource{left: 10, step: 100, pause: 60 * time.Millisecond}
	var out syncBuffer
	p := withProgress(s, func() (int64, error) { return s.Seek(0, io.SeekCurrent) }, 1000, &out, 50*time.Millisecond, "reading big.data")
	if n := drain(t, p); n != 10 {
		t.Fatalf("%d events through the wrapper, want 10", n)
	}
	p.Close()
	got := out.String()
	t.Logf("bar output: %q", got)
	if !strings.Contains(got, "reading big.data") || !strings.Contains(got, "%") || !strings.Contains(got, "B/s") {
		t.Errorf("no progress bar drawn: %q", got)
	}
}

// A read that ends before the delay prints nothing.
func TestProgressSilentForFastReads(t *testing.T) {
	s := &slowSource{left: 3, step: 10}
	var out syncBuffer
	p := withProgress(s, func() (int64, error) { return s.Seek(0, io.SeekCurrent) }, 30, &out, time.Second, "reading small.data")
	if n := drain(t, p); n != 3 {
		t.Fatalf("%d events, want 3", n)
	}
	p.Close()
	if got := out.String(); got != "" {
		t.Errorf("fast read printed %q", got)
	}
}

// procRchar grows when the process reads a file, with read or pread.
func TestProcRchar(t *testing.T) {
	before, err := procRchar()
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	f, err := os.Open("progress.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1000)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	after, err := procRchar()
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 1000 {
		t.Errorf("rchar grew by %d after a 1000-byte pread", after-before)
	}
}
