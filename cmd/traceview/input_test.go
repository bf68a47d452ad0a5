package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDefaultInput: without -i, a command reads perf.data if the directory
// has one, else the newest *.tv (what record writes), and says which.
func TestDefaultInput(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	pipe, nice := abs("../../testdata/traces/pipe.perf.data"), abs("../../testdata/traces/nice.2cpu.perf.data")
	dir := t.TempDir()
	t.Chdir(dir)
	if _, stderr, code := runCLI(t, "latency"); code != 1 || stderr != "perf.data: no such file (give a trace with -i FILE; see 'traceview formats')" {
		t.Errorf("empty directory: exit %d, %q", code, stderr)
	}
	for _, c := range [][2]string{{pipe, "old.tv"}, {nice, "new.tv"}} {
		if _, stderr, code := runCLI(t, "convert", c[0], "-o", c[1]); code != 0 {
			t.Fatalf("convert: %s", stderr)
		}
	}
	now := time.Now()
	if err := os.Chtimes("old.tv", now, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "latency")
	if code != 0 || !strings.HasPrefix(stderr, "traceview: reading new.tv (no -i given and no perf.data here: the newest *.tv)\n") || !strings.Contains(out, "  hog:(3) ") {
		t.Errorf("two .tv: exit %d, stderr %q, table of nice.2cpu (hog:(3)) %v", code, stderr, strings.Contains(out, "hog:(3)"))
	}
	data, err := os.ReadFile(pipe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("perf.data", data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runCLI(t, "stats")
	if code != 0 || !strings.HasPrefix(stderr, "traceview: reading perf.data (no -i given)\n") || !strings.Contains(out, "Trace:") {
		t.Errorf("perf.data and .tv: exit %d, stderr %q", code, stderr)
	}
	// -i given: nothing said.
	if _, stderr, _ := runCLI(t, "latency", "-i", "old.tv"); strings.Contains(stderr, "traceview: reading") {
		t.Errorf("-i given, yet %q", stderr)
	}
}

// TestRecordToStdout: record -o - writes the trace to standard output,
// which latency -i - reads from standard input; no file named "-" is left
// and the command's own output goes to stderr (the stream still parses). perf bench sched pipe -l
// 2000 runs two sched-pipe processes that wake each other 2000 times each.
func TestRecordToStdout(t *testing.T) {
	requireCapture(t)
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed (perf bench sched pipe is the workload)")
	}
	t.Chdir(t.TempDir())
	stream, stderr, code := runCLI(t, "record", "-o", "-", "--", "perf", "bench", "sched", "pipe", "-l", "2000")
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	// perf bench's own report ("# Executed 2000 pipe operations ...")
	// went to the process's stderr, not into the stream, which parses.
	if !strings.Contains(stderr, "bytes/event) to standard output ]") {
		t.Errorf("stderr lacks the summary: %q", stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`record -o - left a file named "-"`)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin; r.Close() }()
	go func() { io.Copy(w, bytes.NewReader([]byte(stream))); w.Close() }()
	out, stderr, code := runCLI(t, "latency", "-i", "-", "--comm", "sched-pipe", "-o", "json")
	if code != 0 {
		t.Fatalf("latency -i -: exit %d: %s", code, stderr)
	}
	rows, total := parseLatencyJSON(t, out)
	// Each of the 2000 round trips wakes the other process at least
	// once (a switch-in ends each delay): at least 2000 delays.
	if len(rows) != 1 || rows[0]["comm"] != "sched-pipe:(2)" && rows[0]["comm"] != "sched-pipe" || total["count"].(float64) < 2000 {
		t.Errorf("rows %v, total %v; want sched-pipe with >= 2000 delays", rows, total)
	}
}
