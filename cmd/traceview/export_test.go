package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// exportPprof runs `traceview export --format pprof ARGS -o out` (out in
// a temporary directory) and returns the profile it wrote, parsed, and
// its path.
func exportPprof(t *testing.T, args ...string) (*profile.Profile, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "p.pb.gz")
	args = append(append([]string{"export", "--format", "pprof"}, args...), "-o", out)
	if _, stderr, code := runCLI(t, args...); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// TestExportPprofOffCPU: the pprof export of a perf sched record -g trace
// (testdata/traces/sched-g.data, with the recording kernel's symbols) has
// the blocked and runqueue sample types by stack. The runqueue total
// equals the delay total (the same delays, by stack instead of by
// reason), and `go tool pprof -sample_index=blocked -top` names where
// sched-pipe slept: anon_pipe_read (Linux 6.18's pipe read) under ksys_read.
func TestExportPprofOffCPU(t *testing.T) {
	const dir = "../../testdata/traces/"
	p, out := exportPprof(t, "-i", dir+"sched-g.data", "--kallsyms", dir+"sched-g.kallsyms.gz")
	if len(p.SampleType) != 5 || p.SampleType[3].Type != "blocked" || p.SampleType[4].Type != "runqueue" {
		t.Fatalf("sample types %v", p.SampleType)
	}
	var delay, blocked, runqueue int64
	for _, s := range p.Sample {
		delay += s.Value[0]
		blocked += s.Value[3]
		runqueue += s.Value[4]
	}
	if delay == 0 || blocked == 0 || runqueue != delay {
		t.Errorf("delay %d ns, blocked %d ns, runqueue %d ns; want runqueue = delay > 0 and some blocked time", delay, blocked, runqueue)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not in PATH")
	}
	top, err := exec.Command(goBin, "tool", "pprof", "-sample_index=blocked", "-top", "-focus", "comm sched-pipe", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	for _, fn := range []string{"anon_pipe_read", "ksys_read", "__schedule"} {
		if !strings.Contains(string(top), " "+fn+"\n") {
			t.Errorf("pprof -top of sched-pipe's blocked time lacks %s:\n%s", fn, top)
		}
	}
	// Without callchains the profile keeps its three sample types.
	if p, _ := exportPprof(t, "-i", dir+"pipe.perf.data"); len(p.SampleType) != 3 {
		t.Errorf("pipe.perf.data: %d sample types; want 3", len(p.SampleType))
	}
	if _, stderr, code := runCLI(t, "export", "--format", "chrome-json", "--kallsyms", dir+"sched-g.kallsyms.gz", "-i", dir+"pipe.perf.data", "-o", out); code != 2 || stderr != "export: --kallsyms is for --format pprof" {
		t.Errorf("--kallsyms with chrome-json: exit %d, %q", code, stderr)
	}
}

// TestExportPerfettoSaysGroupsLost: the native Perfetto trace carries a
// task's last cgroup as a track label only, so traceview's latency of it has
// no Throttled column nor group table; the export of a trace that records
// task groups (quota-siblings.tv: /p7h, /p7q with their settings) says so
// on stderr, and that of one that does not (pipe.perf.data) says nothing.
//
// So does pprof's, whose delays are labelled by how they began: a wait
// spent throttled is not told apart (new-user pass 27 F2).
func TestExportPerfettoSaysGroupsLost(t *testing.T) {
	dir := "../../testdata/traces/"
	for _, format := range []string{"perfetto", "pprof"} {
		for in, want := range map[string]bool{"quota-siblings.tv": true, "pipe.perf.data": false} {
			out := filepath.Join(t.TempDir(), "x.out")
			_, stderr, code := runCLI(t, "export", "--format", format, "-i", dir+in, "-o", out)
			if got := strings.Contains(stderr, "warning: export "+format+": "+dir+in+" records task groups;"); code != 0 || got != want {
				t.Errorf("%s %s: exit %d, stderr %q; want a task-group warning: %v", format, in, code, stderr, want)
			}
		}
	}
}

// TestExportPerfettoLossyWarns: a trace that lost events
// (lossy-messaging: 33969 events in 276 windows) exports with a warning of
// what Perfetto's own UI does not show of them (the windows and their
// counts, which the trace keeps as traceview attributes); one that lost
// none (pipe.perf.data) exports without it.
func TestExportPerfettoLossyWarns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "l.pftrace")
	_, stderr, code := runCLI(t, "export", "--format", "perfetto", "-i", "../../testdata/traces/lossy-messaging.perf.data", "-o", out)
	if code != 0 || !strings.Contains(stderr, "lossy-messaging.perf.data lost events (33969 in 276 windows); Perfetto's UI shows which CPUs lost data") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, _ = runCLI(t, "export", "--format", "perfetto", "-i", "../../testdata/traces/pipe.perf.data", "-o", out+"2")
	if strings.Contains(stderr, "lost events") {
		t.Errorf("warned for a trace without losses:\n%s", stderr)
	}
}

// TestExportPerfettoKeepsLosses: a Perfetto export reads back with the
// losses of its source, as a converted copy does (TestConvertKeepsLostCounts),
// and info exits 1 on it as on the source when the source is cut or
// damaged. Before, each read back "lost: 0 events" (the lossy one: 276
// windows of one instant each, their 33969 events on each CPU's first)
// and info exited 0.
//   - The cut stress-fork.2cpu.tv (cutStressFork: 4401 events in its cut
//     block, the file may have gone on): the same lost line, exit 1, and
//     the source's truncated warning, naming it.
//   - lossy-messaging.perf.data: 33969 events lost in 276 windows, the
//     same windows read back, exit 0.
//   - overwrittenText: 5 events lost with no CPU or time.
func TestExportPerfettoKeepsLosses(t *testing.T) {
	dir := t.TempDir()
	txt := overwrittenText(t)
	cut := cutStressFork(t)
	for _, c := range []struct {
		in                      string
		total, recorder, inFile uint64
		windows, code           int
		line                    string // info's lost line
	}{
		{cut, 4401, 0, 4401, 0, 1, "lost: 4401 events and more: 0 reported lost by the recorder, 4401 in the file's cut or damaged part, and an unknown number after the cut\n"},
		{"../../testdata/traces/lossy-messaging.perf.data", 33969, 33969, 0, 276, 0, "lost: 33969 events\n"},
		{txt, 5, 5, 0, 0, 0, "lost: 5 events\n"},
	} {
		out := filepath.Join(dir, filepath.Base(c.in)+".pftrace")
		if _, errs, code := runCLI(t, "export", "--format", "perfetto", "-i", c.in, "-o", out); code != 0 {
			t.Fatalf("export %s: exit %d: %s", c.in, code, errs)
		}
		src, got := infoJSON(t, c.in), infoJSON(t, out)
		for _, r := range []infoReport{src, got} {
			if r.LostTotal != c.total || r.LostRecorder != c.recorder || r.LostInFile != c.inFile || len(r.Lost) != c.windows {
				t.Errorf("%s: lost %d (recorder %d, in file %d, %d windows); want %d (%d, %d, %d windows)", r.File,
					r.LostTotal, r.LostRecorder, r.LostInFile, len(r.Lost), c.total, c.recorder, c.inFile, c.windows)
			}
		}
		if !slices.Equal(got.Lost, src.Lost) {
			t.Errorf("%s: windows read back differ from the source's", c.in)
		}
		for _, f := range []string{c.in, out} {
			text, errs, code := runCLI(t, "info", "-i", f)
			if text = regexp.MustCompile(` +`).ReplaceAllString(text, " "); code != c.code || !strings.Contains(text, c.line) {
				t.Errorf("info %s: exit %d (want %d), lost line not %q:\n%s%s", f, code, c.code, c.line, text, errs)
			}
		}
	}
	text, errs, _ := runCLI(t, "info", "-i", filepath.Join(dir, "cut.tv.pftrace"))
	if want := "warning: " + filepath.Join(dir, "cut.tv.pftrace") + ": exported from " + cut + ": file ends inside the frame at offset 62523 (17449 of 32663 bytes: 15214 bytes missing; 4401 events lost)"; !strings.Contains(text, want) {
		t.Errorf("the export's warnings lack %q:\n%s%s", want, text, errs)
	}
}
