// Command traceview reads, analyzes, captures and replays Linux scheduler
// traces. See `traceview --help`.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args, printing to stdout and stderr, and
// returns the exit code: 0, 1 for an error, 2 for a bad command line.
func run(args []string, stdout, stderr io.Writer) int {
	stopProfile, err := startProfile()
	if err != nil {
		fmt.Fprintf(stderr, "traceview: %v\n", err)
		return 1
	}
	defer stopProfile()
	root := newRootCmd()
	out := &stickyErrWriter{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	err = execute(root, args)
	if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		// Commands that print with fmt.Fprint* ignore write errors; a full
		// disk or a closed pipe must still fail the command, and the error
		// says which command could not write where ("write /dev/stdout: no
		// space left on device" said neither).
		name := "traceview"
		if c, _, ferr := root.Find(args); ferr == nil && c != nil && c != root {
			name = c.Name()
		}
		err = fmt.Errorf("%s: writing the output (standard output): %w", name, out.err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "traceview: %v\n", err)
		return exitCode(err)
	}
	return 0
}

// stickyErrWriter remembers the first write error, and fails every later
// write with it.
type stickyErrWriter struct {
	w   io.Writer
	err error
}

// isTerminal tells whether w, a command's output (which main wraps in a
// stickyErrWriter), is a terminal.
func isTerminal(w io.Writer) bool {
	if s, ok := w.(*stickyErrWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (s *stickyErrWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}
