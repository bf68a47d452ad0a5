package main

import (
	"errors"
	"testing"
)

// TestNamedError: a reader's error names the file in place of its format,
// once, and keeps its chain.
func TestNamedError(t *testing.T) {
	for _, c := range []struct{ name, file, err, want string }{
		{"inside", "x.data", "after 32 events: perf.data: no sched tracepoints", "x.data: after 32 events: no sched tracepoints"},
		{"leading", "x.data", "perf.data: file header at offset 0: truncated", "x.data: file header at offset 0: truncated"},
		{"named already", "x.data", "x.data: perf.data: attr section", "x.data: attr section"},
		{"trace.dat", "t.dat", "trace.dat: bad page", "t.dat: bad page"},
		{"no format", "x.data", "empty input", "x.data: empty input"},
		{"stdin", "-", "perf.data: bad", "perf.data: bad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := errors.New(c.err)
			got := namedError(c.file, base)
			if got.Error() != c.want || !errors.Is(got, base) {
				t.Errorf("namedError(%q, %q) = %q (wraps: %v), want %q", c.file, c.err, got, errors.Is(got, base), c.want)
			}
		})
	}
}

// TestInfoCompareNameTheFile: info's and compare's failures name the file
// given, not "perf.data" (info printed "warning: perf.data: no sched
// tracepoints ..."; compare said "trace A: after 32 events: perf.data: ...").
func TestInfoCompareNameTheFile(t *testing.T) {
	const nosched = "../../testdata/traces/nosched-cpu-clock.data"
	const pipe = "../../testdata/traces/pipe.perf.data"
	// nosched-cpu-clock.data: 32 events (17 cpu-clock samples and the
	// records around them) and no sched tracepoint.
	const reason = ": after 32 events: no sched tracepoints recorded (record with 'perf sched record'); events in the file: cpu-clock, dummy:u"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"compare A", []string{"compare", nosched, pipe}, "compare: " + nosched + reason},
		{"compare B", []string{"compare", pipe, nosched}, "compare: " + nosched + reason},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runCLI(t, c.args...)
			if code != 1 || !hasLastLine(errs, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant last line %q", code, errs, c.want)
			}
		})
	}
	// A file cut inside its header: the open error names it once.
	cut := cutCopy(t, pipe, "h50.data", 50)
	for _, args := range [][]string{{"info", "-i", cut}, {"compare", cut, pipe}} {
		want := args[0] + ": " + cut + ": file header at offset 0: truncated: corrupt trace"
		if _, errs, code := runCLI(t, args...); code != 1 || errs != want {
			t.Errorf("%v: exit %d, stderr %q, want %q", args, code, errs, want)
		}
	}
}

// hasLastLine reports whether s's last line is line.
func hasLastLine(s, line string) bool {
	return len(s) >= len(line) && s[len(s)-len(line):] == line && (len(s) == len(line) || s[len(s)-len(line)-1] == '\n')
}
