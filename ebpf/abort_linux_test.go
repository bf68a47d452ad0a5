package ebpf

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// TestRecordAbortedSays: a capture stopped by a second signal (Abort) skips
// what the perf buffers and the backlog held, so the file ends early; its
// trailer says so (warning capture-aborted), where before a reader saw a
// complete-looking file (info: "lost: 0 events") holding 47.6 ms of a
// 2.5 s capture. A spinner runs for 0.4 s of capture; Abort closes then.
func TestRecordAbortedSays(t *testing.T) {
	requireBPF(t, false)
	c, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	path := filepath.Join(t.TempDir(), "ab.tv")
	abort := make(chan struct{})
	rec, err := NewRecorder(c, RecordConfig{Path: path, Header: RecordHeader(c.Mode()), Abort: abort})
	if err != nil {
		t.Fatal(err)
	}
	// As record does: the first signal ends the context (the backlog is
	// then decoded and written), the second closes Abort.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(400*time.Millisecond, func() { cancel(); close(abort) })
	if _, err := rec.Run(ctx); !errors.Is(err, ErrAborted) {
		t.Fatalf("Run: %v, want ErrAborted", err)
	}
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := trace.ReadAll(src); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, w := range src.Meta().Warnings.List() {
		if w.Key == "capture-aborted" && strings.Contains(w.Message, "the trace ends early") {
			found = true
		}
	}
	if !found {
		t.Errorf("no capture-aborted warning in %+v", src.Meta().Warnings.List())
	}
}
