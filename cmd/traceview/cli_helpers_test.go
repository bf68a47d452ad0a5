package main

import (
	"bytes"
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
