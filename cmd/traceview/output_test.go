package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/trace/tvf"
)

// TestFailedOutputKeepsForeignPaths: a command whose output fails must not
// remove a path it did not create. Before the fix, `convert X -o /dev/full`
// printed "no space left on device" and then deleted /dev/full (export and
// report did the same on a trace without sched_switch events), and a
// symlink given as output was removed too. Each writing command (convert,
// export, report, replay -w, synth -w) is run into a /dev/full twin (char
// device 1:7, every write fails with ENOSPC) and into a symlink to it; both
// must still exist afterwards and the exit code must be 1.
func TestFailedOutputKeepsForeignPaths(t *testing.T) {
	in := "../../testdata/traces/pipe.perf.data"
	dir := t.TempDir()
	full := devFullTwin(t, dir)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(full, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{full, link} {
		for _, args := range [][]string{
			{"convert", in, "-o", out},
			{"export", "--format", "perfetto", "-i", in, "-o", out},
			{"export", "--format", "pprof", "-i", in, "-o", out},
			{"report", "-i", in, "-o", out},
			{"replay", "--policy", "eevdf", "-i", in, "-w", out},
			{"synth", "pipe", "loops=3", "-w", out},
		} {
			_, stderr, code := runCLI(t, args...)
			if code != 1 {
				t.Errorf("%v: exit %d (%s), want 1", args, code, stderr)
			}
			if st, err := os.Lstat(full); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("%v removed or replaced the device %s: %v", args, full, err)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%v removed or replaced the symlink %s: %v", args, link, err)
			}
		}
	}
}

// TestFailedOutputRemovesOwnFile: a file this run created is removed when
// the command fails, but a regular file that existed before is kept.
// Export of a trace without sched_switch events fails after creating its
// output.
func TestFailedOutputRemovesOwnFile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.tv")
	writeTV(t, empty, tvf.Header{Tool: "test", NrCPUs: 1}, nil, nil, nil) // a trace with no event
	created := filepath.Join(dir, "new.json")
	if _, _, code := runCLI(t, "export", "--format", "perfetto", "-i", empty, "-o", created); code != 1 {
		t.Fatalf("export of an empty trace: exit %d, want 1", code)
	}
	if _, err := os.Lstat(created); !os.IsNotExist(err) {
		t.Errorf("export left the file it created: %v", err)
	}
	kept := filepath.Join(dir, "old.json")
	if err := os.WriteFile(kept, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLI(t, "export", "--format", "perfetto", "-i", empty, "-o", kept); code != 1 {
		t.Fatalf("export of an empty trace: exit %d, want 1", code)
	}
	if _, err := os.Lstat(kept); err != nil {
		t.Errorf("export removed a file that existed before it: %v", err)
	}
}

// devFullTwin makes dir/full, a twin of /dev/full (char device 1:7: every
// write fails with ENOSPC), or skips the test where that is impossible (not
// root, or a nodev mount).
func devFullTwin(t *testing.T, dir string) string {
	t.Helper()
	full := filepath.Join(dir, "full")
	if err := unix.Mknod(full, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 7))); err != nil {
		t.Skipf("cannot make a /dev/full twin (needs root): %v", err)
	}
	f, err := os.OpenFile(full, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("cannot open the /dev/full twin (a nodev mount?): %v", err)
	}
	f.Close()
	return full
}

// TestIsTerminal: the output main gives commands is wrapped in a
// stickyErrWriter, which hid the terminal from the checks of top (clear
// the screen only on a terminal), export and record (no binary trace to a
// terminal): through the wrapper a pseudo-terminal is a terminal, a file
// and a buffer are not.
func TestIsTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pty number: %v", err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pty: %v", err)
	}
	defer pts.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		name string
		w    io.Writer
		want bool
	}{
		{"pty", &stickyErrWriter{w: pts}, true},
		{"bare pty", pts, true},
		{"file", &stickyErrWriter{w: file}, false},
		{"buffer", &stickyErrWriter{w: &bytes.Buffer{}}, false},
	} {
		if got := isTerminal(c.w); got != c.want {
			t.Errorf("%s: isTerminal %v, want %v", c.name, got, c.want)
		}
	}
}

// TestWriteErrorNamesCommand: output that cannot be written (`latency -o
// json > /dev/full`) fails the command with an error that names it (it
// said "traceview: write /dev/stdout: no space left on device"), in both
// the table and the JSON path.
func TestWriteErrorNamesCommand(t *testing.T) {
	for _, args := range [][]string{{"latency", "-i", "../../testdata/traces/pipe.perf.data"}, {"latency", "-o", "json", "-i", "../../testdata/traces/pipe.perf.data"}} {
		var stderr strings.Builder
		code := run(args, fullWriter{}, &stderr)
		if want := "traceview: latency: writing the output (standard output): no space left on device\n"; code != 1 || !strings.HasSuffix(stderr.String(), want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant it to end with %q", args, code, stderr.String(), want)
		}
	}
}
