package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repeated -i is a usage error on every command that has -i (pflag kept
// the last and dropped the others silently: latency -i a -i b read only b),
// naming both values; latency points to its arguments, which it merges.
func TestRepeatedInputRefused(t *testing.T) {
	const a, b = "../../testdata/traces/pipe.perf.data", messaging2
	for _, c := range [][]string{
		{"latency"}, {"timehist"}, {"map"}, {"stats"}, {"info"}, {"replay", "--policy", "eevdf"},
		{"export", "--format", "pprof"}, {"report"}, {"convert", "-o", "-"},
	} {
		t.Run(c[0], func(t *testing.T) {
			_, errs, code := runCLI(t, append(c, "-i", a, "-i", b)...)
			want := c[0] + ": -i given 2 times (" + a + ", " + b + "): -i names one trace"
			if code != 2 || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errs, want)
			}
			if c[0] == "latency" && !strings.Contains(errs, "give them as arguments (traceview latency "+a+" "+b+")") {
				t.Errorf("stderr %q: no hint to the arguments", errs)
			}
		})
	}
	// One -i still works.
	if _, errs, code := runCLI(t, "latency", "-i", a); code != 0 {
		t.Errorf("latency -i %s: exit %d, %s", a, code, errs)
	}
}

// TestLatencySameTraceTwice: latency merges its traces, so one given twice
// was counted twice (a.tv a.tv: 8264.183 ms and 23156 switches, twice
// a.tv's). The same file twice, by the same path, a path that cleans to
// it or a link to it, is a usage error naming it (exit 2, one line); a
// different file holding the same events (a.tv's convert copy) is read
// once, with a warning naming it: the table is a.tv's alone, seriesEvents'
// 4 delays and 2600 µs (8 and 5200 µs counted twice). --by trace keeps
// each file its own table (nothing merged: both read), and compare of a
// trace with itself is two sides, not a merge: it runs.
func TestLatencySameTraceTwice(t *testing.T) {
	dir := t.TempDir()
	a := writeSeriesPart(t, dir, "a.tv", "test", seriesEvents())
	if err := os.Symlink(a, filepath.Join(dir, "link.tv")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{a, a}, {a, filepath.Join(dir, "sub", "..", "a.tv")}, {a, filepath.Join(dir, "link.tv")}} {
		_, errs, code := runCLI(t, append([]string{"latency"}, args...)...)
		if code != 2 || !strings.Contains(errs, a) || !strings.Contains(errs, "counted twice") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("latency %v: exit %d, stderr %q; want 2 and one line naming %s", args, code, errs, a)
		}
	}
	c := filepath.Join(dir, "c.tv")
	if _, errs, code := runCLI(t, "convert", a, "-o", c); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	_, s := filterLatencyJSON(t, a, c)
	if s["count"] != 4.0 || s["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("a.tv and its copy: %v delays, %v ns; want 4 and 2600000 (read once)", s["count"], s["sum_delay_ns"])
	}
	_, errs, _ := runCLI(t, "latency", a, c)
	if want := c + " holds the same events as this trace"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
	doc := cliJSON[latencyGroupsJSON](t, "latency", "-o", "json", "--by", "trace", a, c)
	n := 0
	for _, g := range doc.Groups {
		n += int(g.Total.Count)
	}
	if len(doc.Groups) != 2 || n != 8 {
		t.Errorf("--by trace: %d tables, %d delays; want 2 tables of 4", len(doc.Groups), n)
	}
	if _, errs, code := runCLI(t, "compare", a, a); code != 0 {
		t.Errorf("compare a.tv a.tv: exit %d: %s", code, errs)
	}
}
