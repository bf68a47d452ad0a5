package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
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

// brokenPipe is standard output whose reader goes away after limit bytes:
// every write after that fails with EPIPE, as a pipe's does once `head -c`
// exits (with SIGPIPE notified).
type brokenPipe struct{ n, limit int }

func (p *brokenPipe) Write(b []byte) (int, error) {
	n := min(len(b), p.limit-p.n)
	p.n += n
	if n < len(b) {
		return n, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	}
	return n, nil
}

// TestRecordStdoutReaderGone (new-user pass 87 F1: `record -o - -- CMD |
// head -c 100000` died of SIGPIPE without a word and left CMD running):
// when standard output's reader goes away (writes fail with EPIPE after
// 64 KiB; --backlog 4K, so that it writes as it goes), record stops COMMAND (a loop of /bin/true that would run
// forever) with SIGTERM, prints its summary (the bytes the pipe took,
// 65536) and says why, exit 1.
func TestRecordStdoutReaderGone(t *testing.T) {
	requireCapture(t)
	root := newRootCmd()
	var errb bytes.Buffer
	root.SetOut(&brokenPipe{limit: 64 << 10})
	root.SetErr(&errb)
	done := make(chan int, 1)
	go func() {
		code := 0
		if err := execute(root, []string{"record", "--backlog", "4K", "-o", "-", "--", "sh", "-c", "while :; do /bin/true; done"}); err != nil {
			code = exitCode(err)
			errb.WriteString(err.Error())
		}
		done <- code
	}()
	select {
	case code := <-done:
		msg := errb.String()
		// The summary gives the bytes the pipe took, not the capture's
		// encoded total as "wrote" (new-user pass 88 F1).
		took := regexp.MustCompile(`standard output took (\d+) bytes`).FindStringSubmatch(msg)
		n := -1
		if took != nil {
			n, _ = strconv.Atoi(took[1])
		}
		if code != 1 || !strings.Contains(msg, "sent SIGTERM to sh") || n != 64<<10 || strings.Contains(msg, " wrote ") ||
			!strings.Contains(msg, "closed it (broken pipe)") {
			t.Errorf("exit %d, stderr:\n%s", code, msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("record still running 20 s after its output broke: %q", errb.String())
	}
}
