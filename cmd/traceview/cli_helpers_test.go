package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
