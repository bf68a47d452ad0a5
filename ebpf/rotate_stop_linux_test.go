package ebpf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// TestRecordRotateTinySizeStops: a series rotated by a size below a
// file's own task table (1 KiB, which record refuses: MinRotateBytes)
// still ends when its context does, and every file but the last holds a
// first block of the capture's own events, firstBlockEvents of them
// after the names of the tasks alive that open it. Before, the names ended each
// file's first block at its first event, each rotation kicked the CPUs
// into the next file's events, and the drain after the stop never ended
// (new-user pass 111 F6: files of 1-2 events, -d 1s and SIGTERM ignored).
func TestRecordRotateTinySizeStops(t *testing.T) {
	requireBPF(t, false)
	c, err := Open(Options{Backlog: -1}) // (written as it goes, as record --rotate has it)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Switches for several files: a shell sleeping 1 ms at a time.
	gen := exec.Command("sh", "-c", "while :; do sleep 0.001; done")
	if err := gen.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { gen.Process.Kill(); gen.Wait() }()
	dir := t.TempDir()
	rec, err := NewRecorder(c, RecordConfig{Path: filepath.Join(dir, "r.tv"), Header: RecordHeader(c.Mode()), RotateBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := rec.Run(ctx); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the capture did not stop 14 s after its context ended")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "r.*.tv"))
	if len(files) == 0 {
		t.Fatal("no file written")
	}
	for i, f := range files {
		if i == len(files)-1 {
			break
		}
		src, err := trace.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The capture's events, less the names of the tasks alive that
		// open the file (addProcTasks: task records of time 0).
		n := 0
		for _, e := range evs {
			if e.Time != 0 {
				n++
			}
		}
		if n < firstBlockEvents {
			st, _ := os.Stat(f)
			t.Errorf("%s: %d events of the capture (%d bytes), want at least %d (its first block)", filepath.Base(f), n, st.Size(), firstBlockEvents)
		}
	}
	if len(files) < 2 {
		t.Errorf("%d file: want a series (the shell's switches fill several first blocks)", len(files))
	}
	t.Logf("%d files", len(files))
}
