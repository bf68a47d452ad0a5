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

// TestMapCommAfterExec: map --comm hog letters the hogs of
// nice.2cpu.perf.data, each started as sh and exec'd into hog before its
// first switch-in under that name: "A0 => hog:13337", B0 13338, C0 13339
// (new-user pass 63 F1: "-" on every line, the mark of tasks not
// selected). --exact keeps perf's "-" (a task's short name is decided at
// its first switch-in, as sh).
func TestMapCommAfterExec(t *testing.T) {
	const in = "../../testdata/traces/nice.2cpu.perf.data"
	out, errs, code := runCLI(t, "map", "-i", in, "--comm", "hog")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"A0 => hog:13337", "B0 => hog:13338", "C0 => hog:13339"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, firstLines(out, 20))
		}
	}
	if strings.Contains(out, "-  => hog:") {
		t.Errorf("a hog without a letter:\n%s", firstLines(out, 20))
	}
	out, _, _ = runCLI(t, "map", "--exact", "-i", in, "--comm", "hog")
	if !strings.Contains(out, "-  => hog:13337") {
		t.Errorf("--exact: perf's - for hog:13337 gone:\n%s", firstLines(out, 20))
	}
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}
