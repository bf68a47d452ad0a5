package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs main when the test binary is started as the command
// (TRACEVIEW_TEST_MAIN=1): tests that need a process of their own, to
// signal it, start it so.
func TestMain(m *testing.M) {
	if os.Getenv("TRACEVIEW_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestCtrlCWhileReading: Ctrl-C while timehist reads its input ends the
// reading there, and the command still writes a whole JSON document of
// what it read, says first that it was interrupted and where (the
// warning, in the JSON too), and fails (exit 1) saying so (new-user pass
// 111 F7: the process died mid-write, its JSON cut inside a row, and
// nothing said it). The input comes from a pipe: its first half, then
// Ctrl-C while the reader waits for more, then the rest, which is not read.
func TestCtrlCWhileReading(t *testing.T) {
	pipeData, err := os.ReadFile("../../testdata/traces/fork-cpu1.pipe.data")
	if err != nil {
		t.Fatal(err)
	}
	data := pipeData
	part := len(data) / 2
	run := func(args ...string) (code int, stdout []byte, lines []string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "TRACEVIEW_TEST_MAIN=1")
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		in.Write(data[:part])
		time.Sleep(500 * time.Millisecond) // the reader waits for the rest
		cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(200 * time.Millisecond)
		in.Write(data[part:])
		in.Close()
		cmd.Wait()
		return cmd.ProcessState.ExitCode(), out.Bytes(), strings.Split(strings.TrimSpace(stderr.String()), "\n")
	}
	const stopped = "warning: -: interrupted (Ctrl-C): reading stopped "
	has := func(lines []string, prefix string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	// replay predicts nothing from part of a trace, and says so; info
	// prints what it read (new-user pass 112 F3: both died without a word).
	for _, c := range []struct {
		args []string
		last string
	}{
		{[]string{"replay", "--policy", "cfs", "-i", "-"}, "traceview: replay: interrupted (Ctrl-C) while reading (the warning above says where): nothing done with the part read"},
		{[]string{"info", "-i", "-"}, "traceview: info: interrupted (Ctrl-C): the output covers only what was read before it (the warning above says where)"},
	} {
		// (info prints its warnings on stdout, after its tables.)
		code, out, lines := run(c.args...)
		if code != 1 || !has(append(lines, strings.Split(string(out), "\n")...), stopped) || lines[len(lines)-1] != c.last {
			t.Errorf("%s: exit %d, stderr:\n%s\nstdout:\n%s", c.args[0], code, strings.Join(lines, "\n"), out)
		}
		// info's sample counts say they may exceed the events by kind
		// (new-user pass 113 F3).
		if c.args[0] == "info" && !strings.Contains(string(out), "recorded events (samples parsed before Ctrl-C; those still held for time order then are not in the events by kind below):") {
			t.Errorf("info: stdout lacks the interrupted sample counts' header:\n%s", out)
		}
	}
	code, stdout, lines := run("timehist", "-i", "-", "-o", "json")
	if code != 1 || !strings.HasPrefix(lines[0], stopped) ||
		lines[len(lines)-1] != "traceview: timehist: interrupted (Ctrl-C): the output covers only what was read before it (the warning above says where)" {
		t.Fatalf("exit %d, stderr:\n%s", code, strings.Join(lines, "\n"))
	}
	var doc struct {
		Rows     []json.RawMessage `json:"rows"`
		Warnings []struct{ Key string }
	}
	if err := json.Unmarshal(stdout, &doc); err != nil {
		t.Fatalf("stdout is not a JSON document: %v\n%.300s", err, stdout)
	}
	found := false
	for _, w := range doc.Warnings {
		found = found || w.Key == interruptedKey
	}
	if !found {
		t.Errorf("the JSON's warnings lack %q: %+v", interruptedKey, doc.Warnings)
	}
	// A file-mode perf.data from a pipe is copied whole before it is
	// read: Ctrl-C stops the copy, and the error says so with the bytes
	// received (new-user pass 114 F4: it waited for the whole input,
	// then said "before its first event (0 events read)").
	fileMode, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	// Every command says it, its name once (pass 115 F2: replay sent
	// to a warning that was not there; F6: "info: ... info: -:").
	data, part = fileMode, len(fileMode)/2
	for _, args := range [][]string{{"latency", "-o", "json"}, {"replay", "--policy", "cfs"}, {"info"}} {
		code, _, lines := run(append(args, "-i", "-")...)
		if last := lines[len(lines)-1]; code != 1 || !strings.HasPrefix(last, "traceview: "+args[0]+": interrupted (Ctrl-C): -: perf.data: the reading stopped while a file-mode perf.data was copied from a pipe, ") {
			t.Errorf("%s, file-mode perf.data on stdin, Ctrl-C: exit %d, stderr:\n%s", args[0], code, strings.Join(lines, "\n"))
		}
	}
	data = pipeData
	// Ctrl-C before the first sched_switch (the stream's first 2 KB: its
	// header and attributes): the error says so, not "no sched_switch
	// events ... (record with 'perf sched record')" (new-user pass 113 F9).
	part = 2048
	for _, args := range [][]string{{"export", "--format", "chrome-json", "-o", filepath.Join(t.TempDir(), "x.json")}, {"latency", "-o", "json"}} {
		code, _, lines := run(append(args, "-i", "-")...)
		want := ": -: interrupted (Ctrl-C) before any sched_switch event was read (0 events read): nothing to report"
		if last := lines[len(lines)-1]; code != 1 || !strings.HasPrefix(last, "traceview: "+args[0]) || !strings.HasSuffix(last, want) {
			t.Errorf("%s, Ctrl-C at once: exit %d, stderr:\n%s\nwant the last line to end %q", args[0], code, strings.Join(lines, "\n"), want)
		}
	}
}

// TestCtrlCAfterReading (new-user pass 120 F1): a Ctrl-C that comes after
// the last event was read cuts no read (readInterrupted false), and
// endReadInterrupt reports it, so that replay stops before its second
// reading (the observed table's), which would stop at its first event;
// without one it reports none. The signal goes to this process, caught.
func TestCtrlCAfterReading(t *testing.T) {
	for _, send := range []bool{true, false} {
		stop := catchReadInterrupt()
		if send {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			for i := 0; i < 200 && !readStop.signalled(); i++ {
				time.Sleep(5 * time.Millisecond) // (the catcher takes it)
			}
		}
		got, cut := endReadInterrupt(), readInterrupted()
		stop()
		if got != send || cut {
			t.Errorf("Ctrl-C sent %v: endReadInterrupt %v, readInterrupted %v; want %v, false", send, got, cut, send)
		}
	}
}
