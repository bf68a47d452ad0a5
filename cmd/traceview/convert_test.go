package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/traceview/traceview/trace"
)

func readAllEvents(t *testing.T, path string) ([]trace.Event, *trace.Meta) {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	return evs, src.Meta()
}

// TestConvertRoundTrip converts every perf.data of the shared traces to
// traceview's format and checks that reading the result gives the same
// events, field for field, the same metadata, a file at most a quarter of
// the perf.data's size, and the same `traceview latency` output (merged and
// per task) as reading the perf.data itself.
func TestConvertRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/traces/*.perf.data")
	if len(files) == 0 {
		t.Skip("../shared/traces not found next to the repository")
	}
	dir := t.TempDir()
	for _, in := range files {
		name := strings.TrimSuffix(filepath.Base(in), ".perf.data")
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name+".tv")
			stdout, stderr, code := runCLI(t, "convert", in, "-o", out)
			if code != 0 {
				t.Fatalf("convert: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "converted ") || !strings.Contains(stdout, " bytes/event") {
				t.Errorf("convert printed %q", stdout)
			}
			want, wm := readAllEvents(t, in)
			got, gm := readAllEvents(t, out)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("events differ (-perf.data +converted):\n%s", diff)
			}
			if gm.Format != "traceview" || gm.Hostname != wm.Hostname || gm.OSRelease != wm.OSRelease || gm.NrCPUs != wm.NrCPUs || !cmp.Equal(gm.Cmdline, wm.Cmdline) {
				t.Errorf("meta: got %q %q %q %d %q, want %q %q %d %q", gm.Format, gm.Hostname, gm.OSRelease, gm.NrCPUs, gm.Cmdline, wm.Hostname, wm.OSRelease, wm.NrCPUs, wm.Cmdline)
			}
			if diff := cmp.Diff(wm.Lost, gm.Lost, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("loss windows differ:\n%s", diff)
			}
			if diff := cmp.Diff(wm.Warnings.List(), gm.Warnings.List(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings differ:\n%s", diff)
			}
			pst, _ := os.Stat(in)
			tst, _ := os.Stat(out)
			t.Logf("%d events: perf.data %d bytes (%.1f B/event), traceview %d bytes (%.1f B/event), %.1fx smaller",
				len(want), pst.Size(), float64(pst.Size())/float64(len(want)), tst.Size(), float64(tst.Size())/float64(len(want)), float64(pst.Size())/float64(tst.Size()))
			if tst.Size()*4 > pst.Size() {
				t.Errorf("converted file %d bytes is more than a quarter of the perf.data's %d", tst.Size(), pst.Size())
			}
			for _, extra := range [][]string{nil, {"-p"}} {
				a, _, ca := runCLI(t, append([]string{"latency", "-i", in}, extra...)...)
				b, _, cb := runCLI(t, append([]string{"latency", "-i", out}, extra...)...)
				if ca != 0 || cb != 0 || a == "" {
					t.Fatalf("latency %v: exit codes %d and %d, output %q", extra, ca, cb, a)
				}
				if a != b {
					t.Errorf("latency %v differs:\n--- perf.data\n%s\n--- converted\n%s", extra, a, b)
				}
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	_, stderr, code := runCLI(t, "convert", "nonexistent.data")
	if code != 2 || !strings.Contains(stderr, "missing -o") {
		t.Errorf("no -o: exit %d, %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "convert", "nonexistent.data", "-o", filepath.Join(t.TempDir(), "x.tv"))
	if code != 1 || !strings.Contains(stderr, "nonexistent.data") || strings.Count(stderr, "\n") > 1 {
		t.Errorf("missing input: exit %d, %q", code, stderr)
	}
}

// TestConvertInputFlag: convert takes its trace with -i, as every other
// command does, besides IN. 'convert -i allcg.perf.data -o allcg.tv' failed
// with "unknown shorthand flag: 'i' in -i". Both give the same file (pipe:
// 3 warnings about missing switches kept alike); both at once, or neither,
// is a usage error (no default input: in a directory of .tv files convert
// would read the newest one).
func TestConvertInputFlag(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tv"), filepath.Join(dir, "b.tv")
	in := "../../testdata/traces/pipe.perf.data"
	if _, stderr, code := runCLI(t, "convert", "-i", in, "-o", a); code != 0 {
		t.Fatalf("convert -i: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "convert", in, "-o", b); code != 0 {
		t.Fatalf("convert IN: exit %d: %s", code, stderr)
	}
	la, _, _ := runCLI(t, "latency", "-p", "-i", a)
	lb, _, _ := runCLI(t, "latency", "-p", "-i", b)
	if la != lb || !strings.Contains(la, "TOTAL:") {
		t.Errorf("convert -i and convert IN differ:\n%s\n%s", la, lb)
	}
	if _, stderr, code := runCLI(t, "convert", in, "-i", in, "-o", a); code != 2 || !strings.Contains(stderr, "the trace twice") {
		t.Errorf("IN and -i: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "convert", "-o", a); code != 2 || !strings.Contains(stderr, "missing the trace to convert") {
		t.Errorf("no input: exit %d, %q", code, stderr)
	}
}

// TestConvertKeepsCallchains: converting a `perf sched record -g` trace
// keeps every switch's callchain: the .tv holds the same stack table (197
// distinct callchains over 876 switches) and the same stack ids.
func TestConvertKeepsCallchains(t *testing.T) {
	const in = "../../testdata/traces/sched-g.data"
	out := filepath.Join(t.TempDir(), "g.tv")
	if _, stderr, code := runCLI(t, "convert", in, "-o", out); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	read := func(path string) ([]trace.Event, []trace.Stack) {
		src, err := trace.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		evs, err := trace.ReadAll(src)
		if err != nil {
			t.Fatal(err)
		}
		return evs, src.Meta().Stacks
	}
	a, sa := read(in)
	b, sb := read(out)
	if len(sa) != 197 || !cmp.Equal(sa, sb) {
		t.Errorf("stack tables: %d in perf.data, %d in .tv, equal %v; want 197, equal", len(sa), len(sb), cmp.Equal(sa, sb))
	}
	var ia, ib []trace.StackID
	for _, e := range a {
		if e.Kind == trace.KindSwitch {
			ia = append(ia, e.Stack)
		}
	}
	for _, e := range b {
		if e.Kind == trace.KindSwitch {
			ib = append(ib, e.Stack)
		}
	}
	if len(ia) != 876 || !cmp.Equal(ia, ib) {
		t.Errorf("%d switches in perf.data, %d in .tv, stack ids equal %v", len(ia), len(ib), cmp.Equal(ia, ib))
	}
}

// TestSizeChange: convert's size comparison. pool.tv (27671 bytes)
// converted again is 27717 bytes: 46 bytes larger, +0.17 %, which read
// "1.0x smaller"; perf.data 2306000 bytes to 160000: 14.4x smaller.
func TestSizeChange(t *testing.T) {
	for _, c := range []struct {
		in, out int64
		want    string
	}{
		{27671, 27717, "about the same size (+0.2 %)"},
		{2306000, 160000, "14.4x smaller"},
		{1000, 1300, "1.3x larger"},
		{0, 0, "about the same size (+0.0 %)"},
	} {
		if got := sizeChange(c.in, c.out); got != c.want {
			t.Errorf("sizeChange(%d, %d) = %q, want %q", c.in, c.out, got, c.want)
		}
	}
}

// TestConvertKeepsLostCount: a .tv with a damaged block (its events lost)
// converted to another .tv keeps the count: info on the copy gives the
// source's lost total (it said "lost: 0 events", the copy being whole).
func TestConvertKeepsLostCount(t *testing.T) {
	flipped, _ := damagedTraces(t)
	total := func(path string) uint64 {
		out, errs, _ := runCLI(t, "info", "-o", "json", "-i", path)
		var doc struct {
			LostTotal uint64 `json:"lost_total"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("info %s: %v; stderr:\n%s", path, err, errs)
		}
		return doc.LostTotal
	}
	copyPath := filepath.Join(t.TempDir(), "copy.tv")
	if _, errs, code := runCLI(t, "convert", flipped, "-o", copyPath); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	if src, cp := total(flipped), total(copyPath); src == 0 || cp != src {
		t.Errorf("lost: %d in the damaged source, %d in its copy; want the same, not 0", src, cp)
	}
}

// TestConvertPartialCPUsOnce: a converted perf record -C trace carries its
// source's partial-cpus warning; reading the copy gives it once (it said
// "(2 times)": the copy's own check added it again).
func TestConvertPartialCPUsOnce(t *testing.T) {
	copyPath := filepath.Join(t.TempDir(), "c1.tv")
	if _, errs, code := runCLI(t, "convert", "../../testdata/traces/fork-cpu1.perf.data", "-o", copyPath); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	_, errs, code := runCLI(t, "latency", "-v", "-i", copyPath)
	n := strings.Count(errs, "the trace holds sched_switch events of 1 CPU only (CPU 1)")
	if code != 0 || n != 1 || strings.Contains(errs, "record all CPUs) (2 times)") {
		t.Errorf("exit %d, %d partial-cpus lines, stderr:\n%s", code, n, errs)
	}
}
