package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/traceview/traceview/trace/tvf"
)

// TestStrayArguments checks that a wrong number of positional arguments is
// a one-line usage error with exit 2 (cobra alone says "unknown command"
// with exit 1), pointing to -i for commands that read their trace from it.
// Errors start with the subcommand's name alone: main adds "traceview: "
// (it printed "traceview: traceview latency: unexpected argument").
func TestStrayArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		// One argument is the trace, as -i (TestTraceArgument); beside -i,
		// or two, a usage error (new-user pass 120 F4).
		{[]string{"info", "-i", "y.data", "x.data"},
			`info: unexpected argument "x.data" beside -i: give the trace once (see 'traceview info --help')`},
		// (latency takes several traces as arguments: fleet_test.go.)
		{[]string{"timehist", "-w", "a", "b"},
			`timehist: 2 arguments: it reads one trace (-i FILE, or the file as its argument); latency reads several, and a record --rotate series as one (see 'traceview timehist --help')`},
		// replay takes the trace as -i or as its one argument.
		{[]string{"replay", "--policy", "eevdf", "a", "b"},
			`replay: one trace at a time (got 2 arguments: a b) (see 'traceview replay --help')`},
		{[]string{"convert"}, `convert: missing the trace to convert: give it as IN or with -i IN (see 'traceview convert --help')`},
		// compare's own check already gives a usage error: kept as is.
		{[]string{"compare", "a"}, `compare: want two traces A and B, got 1 argument(s) (see 'traceview compare --help')`},
		// A bad flag: the same prefix.
		{[]string{"latency", "--bogus"}, `latency: unknown flag: --bogus (see 'traceview latency --help')`},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != 2 || stderr != c.want || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTraceArgument (new-user pass 120 F4): the commands that read one
// trace with -i take it as their one argument too, as latency and replay
// do: stats, timehist, info and map print what -i gives.
func TestTraceArgument(t *testing.T) {
	const in = "../../testdata/traces/pipe.perf.data"
	for _, name := range []string{"stats", "timehist", "info", "map"} {
		want, _, wcode := runCLI(t, name, "-i", in)
		got, errs, code := runCLI(t, name, in)
		if code != 0 || wcode != 0 || got != want {
			t.Errorf("%s FILE: exit %d (-i: %d), stdout differs from -i FILE's: %v\n%s", name, code, wcode, got != want, errs)
		}
	}
}

// TestHelpTeaches checks that every command's --help has a Long text with
// at least one example command line ("traceview NAME" indented under an
// "Example" heading): `formats` had none.
func TestHelpTeaches(t *testing.T) {
	for _, c := range newRootCmd().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out, _, code := runCLI(t, c.Name(), "--help")
		_, after, ok := strings.Cut(out, "Example")
		if code != 0 || c.Long == "" || !ok || !strings.Contains(after, "  traceview "+c.Name()) &&
			!strings.Contains(after, "traceview "+c.Name()+" ") {
			t.Errorf("%s --help (exit %d) lacks a Long text or an example of `traceview %s`", c.Name(), code, c.Name())
		}
	}
}

// TestStatsSeriesBound: an absurd --series is a usage error before reading,
// not an out-of-memory kill.
func TestStatsSeriesBound(t *testing.T) {
	for _, n := range []string{"-1", "100000000"} {
		_, stderr, code := runCLI(t, "stats", "--series", n, "-o", "json", "-i", "nosuch.data")
		if want := "stats: --series must be 0..100000, got " + n; code != 2 || stderr != want {
			t.Errorf("--series %s: exit %d, stderr %q; want exit 2, %q", n, code, stderr, want)
		}
	}
	// In table output --series would be ignored: a usage error says where
	// the series go.
	_, stderr, code := runCLI(t, "stats", "--series", "10", "-i", "nosuch.data")
	if want := "stats: --series 10: the time series go into the JSON output only: add -o json (the table output has no series)"; code != 2 || stderr != want {
		t.Errorf("--series 10 (table): exit %d, stderr %q; want exit 2, %q", code, stderr, want)
	}
	// report's --buckets has the same bound (it hung with 100000000).
	_, stderr, code = runCLI(t, "report", "--buckets", "100000000", "-i", "nosuch.data", "-o", "x.html")
	if want := "report: --top must be positive and --buckets 1..100000, got 10 and 100000000"; code != 2 || stderr != want {
		t.Errorf("report --buckets 100000000: exit %d, stderr %q; want exit 2, %q", code, stderr, want)
	}
}

// fullWriter fails every write like /dev/full.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestWriteErrorFails: a command whose output cannot be written exits 1
// with one error line, also for commands that print with fmt.Fprintf and
// ignore its error (policies, info and replay exited 0 on /dev/full).
func TestWriteErrorFails(t *testing.T) {
	for _, args := range [][]string{{"policies"}, {"info", "-i", gTrace}, {"formats"}} {
		var stderr bytes.Buffer
		code := run(args, fullWriter{}, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		if code != 1 || !strings.HasPrefix(last, "traceview: ") || !strings.HasSuffix(last, "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and a no-space error", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"policies"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "eevdf") {
		t.Errorf("policies: exit %d, stderr %q", code, stderr.String())
	}
}

// TestStatsNoSwitch: a trace without sched_switch events is an error like
// in latency (stats printed an all-zero table with exit 0).
func TestStatsNoSwitch(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.tv")
	writeTV(t, empty, tvf.Header{Tool: "test", NrCPUs: 1}, nil, nil, nil) // a trace with no event
	out, stderr, code := runCLI(t, "stats", "-i", empty)
	if want := "stats: " + empty + ": no sched_switch events in 0 events read (record with 'perf sched record')"; code != 1 || stderr != want || out != "" {
		t.Errorf("stats on an empty trace: exit %d, stderr %q, out %q; want exit 1, %q", code, stderr, out, want)
	}
	out, stderr, code = runCLI(t, "replay", "--policy", "eevdf", "-i", empty)
	if want := "replay: " + empty + ": no task to replay: the trace has no sched_switch events (record with 'perf sched record')"; code != 1 || stderr != want || out != "" {
		t.Errorf("replay of an empty trace: exit %d, stderr %q, out %q; want exit 1, %q", code, stderr, out, want)
	}
	// export and report wrote empty files with exit 0; now the error, and
	// no file left behind.
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"export", "--format", "pprof"}, "export pprof"},
		{[]string{"export", "--format", "perfetto"}, "export perfetto"},
		{[]string{"report"}, "report"},
	} {
		args := c.args
		dst := filepath.Join(t.TempDir(), "out")
		_, stderr, code := runCLI(t, append(args, "-i", empty, "-o", dst)...)
		want := c.prefix + ": " + empty + ": no sched_switch events in 0 events read (record with 'perf sched record')"
		if _, err := os.Stat(dst); code != 1 || stderr != want || err == nil {
			t.Errorf("%v of an empty trace: exit %d, stderr %q, output kept %v; want exit 1, %q", args, code, stderr, err == nil, want)
		}
	}
}

// TestEmptyFtraceText: an ftrace buffer with nothing in it (the header that
// /sys/kernel/tracing/trace prints alone) is an ftrace text without sched
// events, not an "unknown trace format".
func TestEmptyFtraceText(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "trace.txt")
	hdr := "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n#\n" +
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n#              | |         |   |||||     |         |\n"
	if err := os.WriteFile(empty, []byte(hdr), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "latency", "-i", empty)
	if want := "latency: " + empty + ": no sched_switch events in 0 events read (record with 'perf sched record')"; code != 1 || stderr != want || out != "" {
		t.Errorf("latency on an empty ftrace text: exit %d, stderr %q, out %q; want exit 1, %q", code, stderr, out, want)
	}
}

// TestMissingTraceHint: convert and compare take their traces as
// arguments, so a missing file does not suggest "-i FILE" (convert said
// "give a trace with -i FILE"); latency, which reads -i, still does.
func TestMissingTraceHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "/nonexistent/x", "-o", "/nonexistent/y"},
			"convert: /nonexistent/x: no such file (see 'traceview formats' for the traces traceview reads)"},
		{[]string{"compare", "/nonexistent/x", "../../testdata/traces/pipe.perf.data"},
			"compare: /nonexistent/x: no such file (see 'traceview formats' for the traces traceview reads)"},
		{[]string{"latency", "-i", "/nonexistent/x"},
			"/nonexistent/x: no such file (give a trace with -i FILE; see 'traceview formats')"},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != 1 || stderr != c.want || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 1, %q", c.args, code, stderr, c.want)
		}
	}
}

// TestUnknownCommand: an unknown subcommand is a bad command line, exit 2
// as the README says (cobra's own error exited 1), in one line with a
// suggestion; no subcommand still prints the help with exit 0.
func TestUnknownCommand(t *testing.T) {
	out, stderr, code := runCLI(t, "latncy", "-i", "x")
	want := `unknown command "latncy" (did you mean latency? see 'traceview --help')`
	if code != 2 || stderr != want || out != "" {
		t.Errorf("latncy: exit %d, stderr %q, out %q; want exit 2, %q", code, stderr, out, want)
	}
	if _, stderr, code := runCLI(t, "frobnicate"); code != 2 || stderr != `unknown command "frobnicate" (see 'traceview --help')` {
		t.Errorf("frobnicate: exit %d, stderr %q", code, stderr)
	}
	if out, _, code := runCLI(t); code != 0 || !strings.Contains(out, "Available Commands:") {
		t.Errorf("no command: exit %d, out %q", code, out)
	}
	// cobra's own commands, added while executing, are still known.
	if out, stderr, code := runCLI(t, "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, stderr %q", code, stderr)
	}
}

// --lenient reaches the reader through the read options of Open: an
// ftrace text whose first sched_switch line has a bad prev_prio fails
// without it (exit 1, the line number in the error) and is read with a
// counted warning with it (info lists the warning and the second line's
// one sched_switch), and a later run without the flag is strict again (the
// options belong to one command line).
func TestLenientFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.txt")
	in := " a-1 [000] 5.000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=x prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n" +
		" a-1 [000] 5.000002: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "info", "-i", path); code != 1 || !strings.Contains(stderr, "line 1") {
		t.Errorf("without --lenient: exit %d, stderr %q; want exit 1 naming line 1", code, stderr)
	}
	out, stderr, code := runCLI(t, "--lenient", "info", "-i", path)
	if code != 0 || !strings.Contains(out, "warning: "+path+": line 1: sched_switch:") || !strings.Contains(out, "(skipped: lenient)") ||
		!strings.Contains(out, "  sched_switch  1\n") {
		t.Errorf("with --lenient: exit %d, stdout %q, stderr %q; want exit 0 and the line-1 warning", code, out, stderr)
	}
	if _, _, code := runCLI(t, "info", "-i", path); code != 1 {
		t.Errorf("a run without --lenient after one with it: exit %d, want 1", code)
	}
}

// TestInputPattern: a glob given to -i (quoted, or matching nothing) is
// not a file: the error says -i takes one trace and which commands read
// several, where it said only "no such file".
func TestInputPattern(t *testing.T) {
	_, stderr, code := runCLI(t, "replay", "--policy", "eevdf", "-i", "nosuch/r.*.tv")
	want := "nosuch/r.*.tv: no such file: -i takes one trace, not a pattern (latency and compare read several: traceview latency 'nosuch/r.*.tv')"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestNumberFlagError: a number flag given something else says what it
// wants, not Go's strconv message, with exit 2.
func TestNumberFlagError(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stats", "--series", "500ms", messaging2}, `stats: invalid argument "500ms" for "--series" flag: want a whole number (see 'traceview stats --help')`},
		{[]string{"replay", "--policy", "eevdf", "--cpus", "x", messaging2}, `replay: invalid argument "x" for "--cpus" flag: want a whole number (see 'traceview replay --help')`},
		{[]string{"stats", "--series", "99999999999999999999999", messaging2}, `for "--series" flag: the number is out of range`},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "strconv") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}
