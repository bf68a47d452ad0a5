package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs the CLI in-process with args and returns stdout, stderr (with
// the returned error's one line appended, as main prints it) and the exit
// code main would use.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	code := 0
	if err := execute(root, args); err != nil {
		code = exitCode(err)
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

// reportHTML runs `traceview report` on in and returns the HTML page.
func reportHTML(t *testing.T, in string) []byte {
	t.Helper()
	html := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "report", "-i", in, "-o", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cliRun is a CLI run in the background (startCLI).
type cliRun struct {
	out, err syncBuffer // progress_test.go
	code     int
	done     chan struct{}
}

// startCLI runs the CLI in-process with args in a goroutine; wait for its
// stderr to say something with waitStderr, and for its end with wait.
func startCLI(t *testing.T, args ...string) *cliRun {
	t.Helper()
	r := &cliRun{done: make(chan struct{})}
	root := newRootCmd()
	root.SetOut(&r.out)
	root.SetErr(&r.err)
	go func() {
		defer close(r.done)
		if err := execute(root, args); err != nil {
			r.code = exitCode(err)
			r.err.Write([]byte(err.Error()))
		}
	}()
	return r
}

// waitStderr waits until stderr holds n lines containing sub, or the run
// ended, or the deadline passed (then the test fails); it says whether n
// were seen.
func (r *cliRun) waitStderr(t *testing.T, sub string, n int, deadline time.Duration) {
	t.Helper()
	end := time.Now().Add(deadline)
	for time.Now().Before(end) {
		if strings.Count(r.err.String(), sub) >= n {
			return
		}
		select {
		case <-r.done:
			t.Fatalf("ended before %d lines with %q on stderr (exit %d): %s", n, sub, r.code, r.err.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no %d lines with %q on stderr in %v: %s", n, sub, deadline, r.err.String())
}

// wait waits for the run's end and returns stdout, stderr and exit code.
func (r *cliRun) wait() (string, string, int) {
	<-r.done
	return r.out.String(), r.err.String(), r.code
}

// cutCopy writes the first n bytes of the file src to a file called name
// in a temporary directory (a trace cut short, as `head -c n`) and
// returns its path.
func cutCopy(t *testing.T, src, name string, n int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if n > len(b) {
		t.Fatalf("%s has %d bytes, fewer than the %d to keep", src, len(b), n)
	}
	cut := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(cut, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	return cut
}

// exportPerfettoCLI writes src as a native Perfetto trace with export
// --format perfetto into the test's temporary directory and returns its
// path.
func exportPerfettoCLI(t *testing.T, src string) string {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "r.pftrace")
	if _, errs, code := runCLI(t, "export", "--format", "perfetto", "-i", src, "-o", pf); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	return pf
}
