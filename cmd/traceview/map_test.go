package main

import (
	"strings"
	"testing"
)

// TestMapColorFlags: perf's --color-pids and --color-cpus are accepted (a
// perf user's command line failed with "unknown flag"); written to a file or
// pipe, as here, the map is the plain one, as perf colors only a terminal;
// a tid that is no number is a usage error.
func TestMapColorFlags(t *testing.T) {
	in := "../../testdata/traces/nice.2cpu.perf.data"
	plain, stderr, code := runCLI(t, "map", "--exact", "-i", in)
	if code != 0 {
		t.Fatalf("map: exit %d: %s", code, stderr)
	}
	colored, stderr, code := runCLI(t, "map", "--exact", "--color-pids", "13337,13338", "--color-cpus", "1", "-i", in)
	if code != 0 || colored != plain || strings.Contains(colored, "\x1b[") {
		t.Errorf("--color-pids/--color-cpus off a terminal: exit %d (%s), output equal to the plain map: %v", code, stderr, colored == plain)
	}
	if _, stderr, code := runCLI(t, "map", "--color-pids", "hog", "-i", in); code != 2 || !strings.Contains(stderr, "--color-pids") {
		t.Errorf("--color-pids hog: exit %d, %q; want 2", code, stderr)
	}
}

// TestMapExactFilters: perf sched map has no --time, --pid or --tid ("unknown
// option `time'"), so --exact refuses them (exit 2); --cpus and --task-name
// (--cpu and --comm here), which perf has, are taken.
func TestMapExactFilters(t *testing.T) {
	in := "../../testdata/traces/nice.2cpu.perf.data"
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--time", "687.5,688.0"}, 2},
		{[]string{"--pid", "13337"}, 2},
		{[]string{"--comm", "hog"}, 0},
		{[]string{"--cpus", "1"}, 0},
	} {
		_, stderr, code := runCLI(t, append([]string{"map", "--exact", "-i", in}, c.args...)...)
		if code != c.code || code == 2 && !strings.Contains(stderr, "--exact reproduces perf's map") {
			t.Errorf("map --exact %v: exit %d, %q; want %d", c.args, code, stderr, c.code)
		}
	}
}
