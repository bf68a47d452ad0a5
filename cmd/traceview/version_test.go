package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionText renders the build info `go version -m` printed for a
// binary built with `go build` in a clone of this repository at commit
// 5b18bf8 with an edited file (debug.ParseBuildInfo reads that text form).
func TestVersionText(t *testing.T) {
	bi, err := debug.ParseBuildInfo(strings.Join([]string{
		"go\tgo1.26.8",
		"path\tgithub.com/traceview/traceview/cmd/traceview",
		"mod\tgithub.com/traceview/traceview\tv0.0.0-20261201194507-5b18bf8a1c2d+dirty\t",
		"build\t-buildmode=exe",
		"build\tvcs=git",
		"build\tvcs.revision=5b18bf8a1c2d9e3f4a5b6c7d8e9f0a1b2c3d4e5f",
		"build\tvcs.time=2026-12-01T19:45:07Z",
		"build\tvcs.modified=true",
	}, "\n") + "\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "traceview v0.0.0-20261201194507-5b18bf8a1c2d+dirty (5b18bf8a1c2d+dirty, 2026-12-01T19:45:07Z)\n" +
		"  module:      github.com/traceview/traceview v0.0.0-20261201194507-5b18bf8a1c2d+dirty\n" +
		"  revision:    5b18bf8a1c2d9e3f4a5b6c7d8e9f0a1b2c3d4e5f (uncommitted changes)\n" +
		"  commit time: 2026-12-01T19:45:07Z\n" +
		"  go:          go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if got := versionText(bi, true); got != want {
		t.Errorf("versionText:\n%s\nwant:\n%s", got, want)
	}
	// No build info (a binary without module support) still names itself.
	if got := versionText(nil, false); !strings.HasPrefix(got, "traceview (devel) (no VCS revision recorded: go run, go test, -buildvcs=false or a git worktree)\n") {
		t.Errorf("without build info: %q", got)
	}
}

// TestVersionCommands: --version and version print the same, exit 0.
func TestVersionCommands(t *testing.T) {
	a, errA, codeA := runCLI(t, "--version")
	b, errB, codeB := runCLI(t, "version")
	if codeA != 0 || codeB != 0 || errA != "" || errB != "" {
		t.Fatalf("exit %d/%d, stderr %q/%q", codeA, codeB, errA, errB)
	}
	if a != b || !strings.HasPrefix(a, "traceview ") || !strings.Contains(a, runtime.Version()) {
		t.Errorf("--version %q, version %q; want the same text naming traceview and %s", a, b, runtime.Version())
	}
	if _, stderr, code := runCLI(t, "version", "x"); code != 2 {
		t.Errorf("version x: exit %d (%s), want 2", code, stderr)
	}
}
