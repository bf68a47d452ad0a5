package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/traceview/traceview/ebpf"
)

// TestWatchRecordRunningAtDuration: when --duration ends the capture
// (ctx) while the command runs, the watcher says so (running), even if the
// command ends later while the backlog is written out (a new-user pass:
// `record -d 4s -- stress-ng ... --timeout 6` wrote for 2.3 s more, the
// command ended meanwhile and the note was missing); a command that had
// already ended is not running.
func TestWatchRecordRunningAtDuration(t *testing.T) {
	child := exec.Command("sleep", "1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	childDone := make(chan error, 1)
	res := <-watchRecord(&bytes.Buffer{}, make(chan os.Signal), child, childDone, ctx, cancel, make(chan struct{}), make(chan struct{}), "x.tv")
	if !res.running || res.exited {
		t.Errorf("command running at the duration's end: running %v, exited %v; want true, false", res.running, res.exited)
	}
	childDone <- nil
	res = <-watchRecord(&bytes.Buffer{}, make(chan os.Signal), child, childDone, ctx, cancel, make(chan struct{}), make(chan struct{}), "x.tv")
	if res.running || !res.exited {
		t.Errorf("command ended before the duration's end: running %v, exited %v; want false, true", res.running, res.exited)
	}
}

// TestRecordSummaryDrainTime: a capture that stopped at 4.000 s and took
// until 6.260 s to write out its buffers says both (2.260 s more); one
// that took 0.1 s more says nothing of it.
func TestRecordSummaryDrainTime(t *testing.T) {
	var out bytes.Buffer
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: 6260 * time.Millisecond, Stopped: 4 * time.Second}, nil)
	if want := "[ traceview record: the capture stopped after 4.000 s; writing out what its buffers held took 2.260 s more ]"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", out.String(), want)
	}
	out.Reset()
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: 4100 * time.Millisecond, Stopped: 4 * time.Second}, nil)
	if strings.Contains(out.String(), "stopped after") {
		t.Errorf("summary of a 0.1 s write-out:\n%s\nwant no line about it", out.String())
	}
}

// TestRecordSummaryRecursionMisses: events the kernel did not hand the
// recorder's programs (another BPF program ran on their CPU) are said in
// the summary, beside the losses; none, nothing.
func TestRecordSummaryRecursionMisses(t *testing.T) {
	var out bytes.Buffer
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: time.Second, RecursionMisses: 7}, nil)
	if want := "[ traceview record: 7 scheduler events MISSED: the kernel skipped the recorder's programs while another BPF program ran on their CPU; the file says so ]"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", out.String(), want)
	}
	out.Reset()
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: time.Second}, nil)
	if strings.Contains(out.String(), "MISSED") {
		t.Errorf("summary without misses:\n%s", out.String())
	}
}

// TestRecordSummaryRing: a flight recorder's summary says what the ring
// held and how long the recorder ran, apart: "ring of 6.964 s" was the run
// of a --ring 3s recorder (new-user pass 76 F2). By size, the bytes held.
func TestRecordSummaryRing(t *testing.T) {
	var out bytes.Buffer
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: 6964 * time.Millisecond, Dumps: 1, Bytes: 1 << 20}, &ebpf.RingConfig{Span: 3 * time.Second})
	if want := "[ traceview record: flight recorder of the last 3s, ran 6.964 s: 1 dumps, 10 events, 1048576 bytes (1.00 MiB) written ]"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant the line %q", out.String(), want)
	}
	out.Reset()
	printRecordSummary(&out, "x.tv", ebpf.Summary{Events: 10, Elapsed: time.Second}, &ebpf.RingConfig{Bytes: 8 << 20})
	if want := "flight recorder of the last 8.00 MiB of records, ran 1.000 s"; !strings.Contains(out.String(), want) {
		t.Errorf("summary:\n%s\nwant %q", out.String(), want)
	}
}
