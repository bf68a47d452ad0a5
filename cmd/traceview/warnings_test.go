package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestWarningSummary: the summary counts warning lines per kind, most
// numerous first (ties in warningKinds order, "other" last), and names the
// input when it has a name.
func TestWarningSummary(t *testing.T) {
	w := func(key string) trace.Warning { return trace.Warning{Key: key, Count: 9, Message: key} }
	for _, c := range []struct {
		name, input string
		ws          []trace.Warning
		want        string
	}{
		{"kinds by count", "t.perf.data",
			[]trace.Warning{w("delay-no-wakeup"), w("sched-switch-chain-cpu0"), w("sched-switch-chain-cpu1"),
				w("delay-switch-in-inferred"), w("out-of-order")},
			"t.perf.data: 5 warnings: 3 about missing switches, 1 about missing wakeups, 1 about event order; -v for detail"},
		{"unknown key last", "",
			[]trace.Warning{w("no-such-key"), w(lostWindowKey)},
			"2 warnings: 1 about lost events, 1 other; -v for detail"},
		{"prefix key", "x",
			[]trace.Warning{w("bad-sample"), w("bad-record"), w("runtime-from-switches")},
			"x: 3 warnings: 2 about damaged input, 1 about what the trace records; -v for detail"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := warningSummary(c.input, c.ws, false); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestWarningKindsCoverKeys finds the warning keys the module's code adds
// (Warnings.Add/AddN("key", ...) and trace.Warning{Key: "key", ...}) and
// fails on one that warningKinds does not name: its warnings would be
// summarized as "other". A warning about the answer (answerKey)
// is never summarized: it is printed first and in full.
func TestWarningKindsCoverKeys(t *testing.T) {
	re := regexp.MustCompile(`\.AddN?\("([a-z][a-z0-9-]*)"|Warning\{Key: *"([a-z][a-z0-9-]*)"|^\s*Key: +"([a-z][a-z0-9-]*)", Count:`)
	found := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				key := m[1] + m[2] + m[3]
				found++
				if !answerKey(key) && warningKind(key) < 0 {
					t.Errorf("%s: warning key %q has no kind in warningKinds", path, key)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 70 distinct keys when this test was written, several added twice.
	if found < 70 {
		t.Errorf("found %d warning keys in the code; the pattern no longer finds them", found)
	}
}

// TestWarningsSummaryAndVerbose: on messaging.2cpu, latency prints one
// summary line by default and, with -v, the five detail lines the summary
// counts (the chain breaks of CPUs 0 and 1 and the recovered delays:
// missing switches; the unwoken runs: missing wakeups; the wakings before
// the switch-out: event order); -o json holds all five in full either way.
func TestWarningsSummaryAndVerbose(t *testing.T) {
	in := "../../testdata/traces/messaging.2cpu.perf.data"
	_, errs, code := runCLI(t, "latency", "-i", in)
	want := "warning: " + in + ": 5 warnings: 3 about missing switches, 1 about missing wakeups, 1 about event order; -v for detail\n"
	if code != 0 || errs != want {
		t.Errorf("default: exit %d, stderr:\n%s\nwant:\n%s", code, errs, want)
	}
	for _, flag := range []string{"-v", "--verbose"} {
		_, errs, code = runCLI(t, "latency", flag, "-i", in)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if code != 0 || len(lines) != 5 ||
			!strings.HasPrefix(lines[0], "warning: "+in+": CPU 0: 3 of 719 sched_switch events switched out") ||
			!strings.HasPrefix(lines[1], "warning: "+in+": CPU 1: 164 of 750 sched_switch events switched out") ||
			!strings.HasPrefix(lines[2], "warning: "+in+": 164 scheduling delays had no recorded switch-in") ||
			!strings.HasPrefix(lines[3], "warning: "+in+": 4 times a task ran again after going to sleep with no recorded wakeup") ||
			!strings.HasPrefix(lines[4], "warning: "+in+": 6 scheduling delays began with a sched_waking recorded before") {
			t.Errorf("%s: exit %d, stderr:\n%s", flag, code, errs)
		}
	}
	// -o json: the same counted line on stderr, the warnings in full in
	// the document (README: "a counted warning on stderr (also inside
	// the JSON ...)"; new-user pass 41 F5 found stderr empty).
	out, errs, code := runCLI(t, "latency", "-o", "json", "-i", in)
	if code != 0 || errs != want || strings.Count(out, `"key": "`) != 5 ||
		!strings.Contains(out, `"key": "delay-woken-before-switch-out"`) || !strings.Contains(out, `"key": "sched-switch-chain-cpu1"`) {
		t.Errorf("-o json: exit %d, stderr %q, warnings in %d keys", code, errs, strings.Count(out, `"key": "`))
	}
}

// TestStatsWarnings: stats prints the reader's warnings about damaged
// input in full for its table as with -o json, naming the file as the
// table's do (they said "perf.data: ").
// The input is per-process.data with bit 53 of one sched_switch's time set
// (offset 99446, as perfdata's TestSampleTimeOutlierDropped): 9,007,886 s
// in a 12 ms recording, dropped as outside the header's sample times.
// Beside it come the two answer warnings of a `perf record -p` trace
// (not system-wide, 1 CPU of 2). Before, the table's stderr summarized the
// damage as "1 about damaged input". (pipe-multi.perf.data.gz served here
// until its 64 exec and fork records 3.6 s before the first sample were
// found real: perf was starved, preSample.)
func TestStatsWarnings(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/per-process.data")
	if err != nil {
		t.Fatal(err)
	}
	in := damagedCopy(t, b, "flip.data", func(b []byte) { b[99446] ^= 0x20 })
	for _, args := range [][]string{{"stats", "-i", in}, {"stats", "-o", "json", "-i", in}} {
		_, errs, code := runCLI(t, args...)
		// (The order differs: the table puts the answer warnings first,
		// -o json the reader's.)
		// Then the schedule's own warnings (new-user pass 49 F2): in
		// the summary line whatever -o is (the JSON holds each; new-user
		// pass 111 F3: -o json printed them in full).
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		slices.Sort(lines)
		extra := "warning: " + in + ": 2 more warnings: 2 about missing switches; -v for detail"
		has := func(prefix string) bool {
			n := 0
			for _, l := range lines {
				if strings.HasPrefix(l, prefix) {
					n++
				}
			}
			return n == 1
		}
		if code != 0 || len(lines) < 4 ||
			!has("warning: "+in+": CPU 0: sched_switch at 9007886.809572669 s lies outside the recording's sample times (687.550136366 s to 687.562824612 s, from the header): damaged, dropped") ||
			!has("warning: "+in+": recorded per process (-p)") ||
			!has("warning: "+in+": the trace holds sched_switch events of 1 CPU only") || !has(extra) {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, errs)
		}
	}
}

// TestWriteWarningsDamagedInFull: without -v, every warning of the
// "damaged input" kind is printed in full (a skipped malformed line, a
// damaged timestamp: data the file held and the report lacks), not only
// those whose key says damaged or truncated; the rest are summarized.
// Before, the malformed line was "1 about damaged input" in the summary.
func TestWriteWarningsDamagedInFull(t *testing.T) {
	var m trace.Meta
	m.Warnings.Add("text-malformed-line", "line 5: bad payload (skipped: lenient)")
	m.Warnings.Add("text-time-outlier", "event with a time out of line with its neighbours dropped: line 9, CPU 0, time 9.000003 s (the CPU's next event is at 5.000004 s)")
	m.Warnings.Add("out-of-order", "events out of order")
	m.Warnings.Add("delay-no-wakeup", "no wakeup")
	var b strings.Builder
	writeWarnings(&b, "t.txt", "", m.Warnings.List())
	want := "warning: t.txt: line 5: bad payload (skipped: lenient)\n" +
		"warning: t.txt: event with a time out of line with its neighbours dropped: line 9, CPU 0, time 9.000003 s (the CPU's next event is at 5.000004 s)\n" +
		"warning: t.txt: 2 more warnings: 1 about missing wakeups, 1 about event order; -v for detail\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestWriteWarningsLostAndCut: without -v, a warning that the file is cut
// short is printed in full, a trace's lost windows take one line of the
// events lost in all, and the summary counts the rest as "more warnings".
// Before, a perf.data that lost 76 % of its records (309 windows) said only
// "321 warnings: 312 about lost events", and the cut hid behind "1 about
// damaged input".
func TestWriteWarningsLostAndCut(t *testing.T) {
	m := &trace.Meta{Lost: []trace.LostWindow{
		{CPU: 0, Count: 100, Start: 1e9, End: 2e9},
		{CPU: 1, Count: 23, Start: 3e9, End: 4e9},
		{CPU: 1, Count: 0, Start: 5e9, End: 6e9},
	}}
	m.Warnings.Add("truncated-file", "perf.data: the file ends 10 bytes into its 20-byte data section")
	m.Warnings.Add("out-of-order", "events out of order")
	m.Warnings.Add("delay-no-wakeup", "no wakeup")
	// (verbose is a package variable: the last runCLI's -v set it.)
	defer func(v bool) { verbose = v }(verbose)
	verbose = false
	var b strings.Builder
	writeWarnings(&b, "t.data", "", metaWarnings(m))
	want := "warning: t.data: the file ends 10 bytes into its 20-byte data section\n" +
		"warning: t.data: 123 events lost in 2 windows (records the kernel could not queue: the recorder's buffers were full), and 1 window where a CPU went unobserved (events lost, number unknown; the warnings above or -v say why); -v lists each window\n" +
		"warning: t.data: 2 more warnings: 1 about missing wakeups, 1 about event order; -v for detail\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	// -v: every window on its own line, as before, after the cut (which
	// comes first in either mode: new-user pass 18 F5).
	verbose = true
	b.Reset()
	writeWarnings(&b, "t.data", "", metaWarnings(m))
	if got := b.String(); !strings.HasPrefix(got, "warning: t.data: the file ends 10 bytes into its 20-byte data section\nwarning: t.data: 100 events lost on CPU 0 between 1.000000 s and 2.000000 s\nwarning: t.data: 23 events lost on CPU 1 ") || strings.Count(got, "\n") != 6 {
		t.Errorf("-v: got\n%s", got)
	}
}

// TestWriteWarningsRecordingScope: the warnings that say what every number
// of the report leaves out by how the trace was recorded (a capture of some
// CPUs, perf record --switch-events) come first and in full, before the
// summary of the rest, as the no-match line does; they were one count
// among "N about missing switches" (latency, timehist) or "about what the
// trace records".
func TestWriteWarningsRecordingScope(t *testing.T) {
	var ws []trace.Warning
	var m trace.Meta
	m.Warnings.Add("delay-no-wakeup", "no wakeup")
	m.Warnings.Add(partialCPUsKey, "the trace holds sched_switch events of 1 CPU only (CPU 0) of the machine's 2")
	m.Warnings.Add("out-of-order", "events out of order")
	m.Warnings.Add("switch-records", "perf.data: no sched tracepoints")
	ws = m.Warnings.List()
	var b strings.Builder
	writeWarnings(&b, "t.data", "", ws)
	want := "warning: t.data: the trace holds sched_switch events of 1 CPU only (CPU 0) of the machine's 2\n" +
		"warning: t.data: no sched tracepoints\n" +
		"warning: t.data: 2 warnings: 1 about missing wakeups, 1 about event order; -v for detail\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestNamedMessage: every warning line of one input starts with its name,
// in place of the reader's format name, standard input's as "-" (it was
// "perf.data: ..." then "-: 4 more warnings"), a text trace's "line N: ..."
// and a gzip layer's "gzip: ..." behind it; without a name the message is
// left as the reader wrote it.
func TestNamedMessage(t *testing.T) {
	for _, c := range []struct{ name, msg, want string }{
		{"-", "perf.data: the input ends inside a record", "-: the input ends inside a record"},
		{"x.txt", "line 5255: sched_switch: bad", "x.txt: line 5255: sched_switch: bad"},
		{"x.tv", "traceview format: file ends inside the frame", "x.tv: file ends inside the frame"},
		{"x.gz", "gzip: the compressed stream ends early", "x.gz: gzip: the compressed stream ends early"},
		{"x.data", "x.data: already named", "x.data: already named"},
		{"", "perf.data: the input ends", "perf.data: the input ends"},
	} {
		if got := namedMessage(c.name, "", c.msg); got != c.want {
			t.Errorf("namedMessage(%q, %q) = %q, want %q", c.name, c.msg, got, c.want)
		}
	}
}

// TestConvertedWarningsNameTheSource: a .tv converted from a cut
// perf.data keeps the reader's warnings about that file, whose offsets
// and sizes are the perf.data's: they read "converted from CUT: ...",
// behind the .tv's name (they read "t.tv: the file ends 98776 bytes
// into its ... data section", offsets no .tv has).
func TestConvertedWarningsNameTheSource(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut, tv := filepath.Join(dir, "cut.data"), filepath.Join(dir, "t.tv")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "convert", "-i", cut, "-o", tv); code != 0 || !strings.HasPrefix(errs, "warning: "+cut+": the file ends ") {
		t.Fatalf("convert: exit %d, stderr:\n%s", code, errs)
	}
	_, errs, code := runCLI(t, "latency", "-i", tv)
	if code != 0 || !strings.HasPrefix(errs, "warning: "+tv+": converted from "+cut+": the file ends ") {
		t.Errorf("latency of the .tv: exit %d, stderr:\n%s", code, errs)
	}
}

// TestLostWindowsLineUnobservedOnly: windows with no count only (a file cut
// inside a round, a gap between ring dumps) are not blamed on the kernel's
// full buffers, and no "0 events lost in 0 windows" leads the line.
func TestLostWindowsLineUnobservedOnly(t *testing.T) {
	if got, want := lostWindowsLine([]uint64{0, 0}), "2 windows where a CPU went unobserved (events lost, number unknown; the warnings above or -v say why); -v lists each window"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := lostWindowsLine([]uint64{5, 0}); got != "5 events lost in 1 window (records the kernel could not queue: the recorder's buffers were full), and 1 window where a CPU went unobserved (events lost, number unknown; the warnings above or -v say why); -v lists each window" {
		t.Errorf("with a counted window: %q", got)
	}
}

// TestInFullInputLost: warnings that the input lacks events it once had
// are printed in full, as damage is (an ftrace buffer overwritten, 9189 of
// 9479 events gone, was one count in latency's summary line), and so is a
// non-event line between event lines (a damaged line, not a header); what
// a loss did to the answer (delays overlapping it) and header lines stay
// in the summary.
func TestInFullInputLost(t *testing.T) {
	for key, want := range map[string]bool{
		"text-overwritten": true, lostWindowKey: true, "tracedat-lost": true, "ring-dump-gap": true,
		"text-garbled-line": true, "capture-aborted": true,
		"delay-lossy": false, "runtime-lossy": false, "text-other-line": false, "delay-no-wakeup": false,
	} {
		if got := inFull(key); got != want {
			t.Errorf("inFull(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestWriteWarningsCutBeforeAnswers: a cut file's warning comes before
// the answer warnings that follow from it (a partial-cpus line: the cut
// left one CPU's events), after a no-match line; new-user pass 18 F5 read
// a cut perf.data's first line as a recording of one CPU.
func TestWriteWarningsCutBeforeAnswers(t *testing.T) {
	var m trace.Meta
	m.Warnings.Add(partialCPUsKey, "the trace holds sched_switch events of 1 CPU only")
	m.Warnings.Add("truncated", "perf.data: the input ends inside a record")
	m.Warnings.Add("latency-empty", "nothing matched")
	var b strings.Builder
	writeWarnings(&b, "-", "", m.Warnings.List())
	want := "warning: nothing matched\nwarning: -: the input ends inside a record\nwarning: -: the trace holds sched_switch events of 1 CPU only\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestTerminalSafe: a warning's text reaches the terminal with its control
// characters (but newlines) and non-UTF-8 bytes escaped, and an ordinary
// one (backslashes of names escaped before included) as it is (new-user
// pass 36 F1).
func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		`x.tv: task twin\\xff:3 ran`:  `x.tv: task twin\\xff:3 ran`,
		"a\x1b[2Jb and \xff\xfe":      `a\x1b[2Jb and \xff\xfe`,
		"line one\nline\ttwo":         "line one\nline\\ttwo",
		"plain, unicode é and ü only": "plain, unicode é and ü only",
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
