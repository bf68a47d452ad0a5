package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedTraces converts the repository's pipe.perf.data to traceview's
// format and returns two broken copies: one with a byte flipped in the
// middle (inside its single event block: checksum mismatch) and one cut in
// half (the file ends inside that block).
func damagedTraces(t *testing.T) (flipped, cut string) {
	t.Helper()
	dir := t.TempDir()
	tv := filepath.Join(dir, "pipe.tv")
	if _, stderr, code := runCLI(t, "convert", "../../testdata/traces/pipe.perf.data", "-o", tv); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(tv)
	if err != nil {
		t.Fatal(err)
	}
	cut = filepath.Join(dir, "cut.tv")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	flipped = filepath.Join(dir, "flipped.tv")
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return flipped, cut
}

// TestFailureShowsReaderWarnings: a command that fails after reading a
// damaged trace prints the reader's warnings (why nothing was read) before
// its one-line error, and nothing on stdout. Before the fix latency,
// timehist, map and stats printed only "no sched_switch events in 0 events
// read", and timehist printed its header on stdout first.
func TestFailureShowsReaderWarnings(t *testing.T) {
	flipped, cut := damagedTraces(t)
	for _, c := range []struct {
		file, warning string
	}{
		{flipped, "warning: traceview format: event block at offset "},
		{cut, "warning: traceview format: file ends inside the frame at offset "},
	} {
		for _, cmd := range [][]string{{"latency"}, {"timehist"}, {"map"}, {"stats"},
			{"export", "--format", "perfetto", "-o", filepath.Join(t.TempDir(), "x.json")},
			{"replay", "--policy", "eevdf"}} {
			args := append(cmd, "-i", c.file)
			out, stderr, code := runCLI(t, args...)
			lines := strings.Split(stderr, "\n")
			last := lines[len(lines)-1]
			if code != 1 || out != "" || !strings.Contains(last, "no sched_switch") {
				t.Errorf("%v: exit %d, stdout %q, last stderr line %q; want exit 1, no output, the no-sched_switch error", args, code, out, last)
			}
			if !strings.HasPrefix(stderr, c.warning) {
				t.Errorf("%v: stderr does not start with the reader's warning %q:\n%s", args, c.warning, stderr)
			}
		}
	}
}

// TestInfoDamagedExit: info on a damaged or truncated traceview file
// prints what it read with the reader's warnings and exits 1 (it exited 0
// although its --help promised non-zero).
func TestInfoDamagedExit(t *testing.T) {
	flipped, cut := damagedTraces(t)
	for _, f := range []string{flipped, cut} {
		out, stderr, code := runCLI(t, "info", "-i", f)
		want := "info: " + f + ": the trace is damaged or truncated (its warnings say where)"
		if code != 1 || stderr != want {
			t.Errorf("info %s: exit %d, stderr %q; want 1, %q", f, code, stderr, want)
		}
		if !strings.Contains(out, "events by kind (0 in all)") || !strings.Contains(out, "warning: traceview format: ") {
			t.Errorf("info %s: output lacks the counts or the warnings:\n%s", f, out)
		}
	}
	// An intact file still exits 0.
	if _, stderr, code := runCLI(t, "info", "-i", "../../testdata/traces/pipe.perf.data"); code != 0 {
		t.Errorf("info on an intact trace: exit %d: %s", code, stderr)
	}
}
