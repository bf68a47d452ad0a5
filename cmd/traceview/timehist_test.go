package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

// TestReversedRange: a range written high-low is called reversed (timehist
// -C 1-0 said `"1-0" is outside 0-1048576`, --prio 130-120 `is outside
// 0-139`, although both ends are inside).
func TestReversedRange(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"timehist", "-C", "1-0"}, `timehist: --cpu "1-0": "1-0" is a reversed range (did you mean 0-1?)`},
		{[]string{"timehist", "--prio", "130-120"}, `timehist: --prio "130-120": "130-120" is a reversed range (did you mean 120-130?)`},
		{[]string{"map", "--cpus", "0,3-2"}, `map: --cpus "0,3-2": "3-2" is a reversed range (did you mean 2-3?)`},
		{[]string{"timehist", "--prio", "130-150"}, `timehist: --prio "130-150": "130-150" is outside 0-139`},
	} {
		_, stderr, code := runCLI(t, append(c.args, "-i", "../../testdata/traces/pipe.perf.data")...)
		if code != 2 || stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, code, stderr, c.want)
		}
	}
}

// The commands end to end on a shared trace: perf 6.12's own output with
// --exact, usage errors with exit code 2.
func TestTimehistMapCommands(t *testing.T) {
	const base = "../../../shared/traces/pipe"
	if _, err := os.Stat(base + ".perf.data"); err != nil {
		t.Skip("../shared/traces absent")
	}
	for _, c := range []struct {
		args   []string
		golden string
	}{
		{[]string{"timehist", "--exact", "-M", "-n", "--state", "-i", base + ".perf.data"}, base + ".timehist-M.txt"},
		{[]string{"map", "--exact", "-i", base + ".perf.data"}, base + ".map.txt"},
	} {
		root := newRootCmd()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetArgs(c.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		want, _ := os.ReadFile(c.golden)
		if out.String() != string(want) {
			t.Errorf("%v differs from %s", c.args, c.golden)
		}
	}
	for _, args := range [][]string{
		{"timehist", "-s", "-w", "-i", base + ".perf.data"},
		{"timehist", "--prio", "200", "-i", base + ".perf.data"},
		{"timehist", "--time", "5,1", "-i", base + ".perf.data"},
		{"map", "--fuzzy-name", "-i", base + ".perf.data"},
	} {
		root := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(args)
		err := root.Execute()
		if err == nil || exitCode(err) != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v (exit %d), want a one-line usage error", args, err, exitCode(err))
		}
	}
}

// TestFilterMatchingNothing checks that a CPU filter naming a CPU the trace
// does not have (pipe.perf.data was recorded on 2 CPUs) gives one usage
// error line; a --task-name no switch involves gives latency's no-match
// warning first (the trace's span, CPUs and closest names); a real CPU and
// task still print rows.
func TestFilterMatchingNothing(t *testing.T) {
	gNeedTrace(t)
	for _, c := range []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"timehist", "-C", "99", "-i", gTrace}, 2, "timehist: --cpu: CPU 99: the trace has CPUs 0-1"},
		{[]string{"timehist", "-C", "0,2", "-i", gTrace}, 2, "timehist: --cpu: CPU 2: the trace has CPUs 0-1"},
		{[]string{"map", "--cpus", "5", "-i", gTrace}, 2, "map: --cpus: CPU 5: the trace has CPUs 0-1"},
		// No match: latency's warning, first and exit 0, as timehist's
		// (it was an error after every warning in full).
		{[]string{"map", "--task-name", "nosuch", "-i", gTrace}, 0,
			"warning: nothing matched the filters --task-name nosuch: the trace has 5105 scheduler events, 2023 of them sched_switch; it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1\n"},
		// The flag typed, and the closest names, as latency gives them
		// (it named --task-name for --comm).
		{[]string{"map", "--comm", "sched-pip", "-i", gTrace}, 0,
			"warning: nothing matched the filters --comm sched-pip: the trace has 5105 scheduler events, 2023 of them sched_switch; it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1; closest task names: sched-pipe\n"},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != c.code || stderr != c.wantErr || out != "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit %d, %q", c.args, code, stderr, len(out), c.code, c.wantErr)
		}
	}
	// The pipe trace's sched-pipe pair switched on CPU 1 and on CPU 0.
	for _, args := range [][]string{
		{"timehist", "-C", "1", "-i", gTrace},
		{"map", "--task-name", "sched-pipe", "-i", gTrace},
	} {
		out, _, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "sched-pipe") {
			t.Errorf("%v: exit %d, output without sched-pipe: %q", args, code, out)
		}
	}
}

// TestTimehistNoRowWarns: filters that leave no row (a pid absent from the
// trace, a --time window before it) keep perf's header-only output and exit
// 0, but say so on stderr, naming the filters given, in latency's shape:
// the trace's events, its scheduler events' span (pipe.perf.data: 754.328751
// s to 754.364705 s, as 'latency --pid 99999' says) and CPUs. With -s the
// summary has no task (it said nothing).
func TestTimehistNoRowWarns(t *testing.T) {
	gNeedTrace(t)
	const span = ": the trace has 5105 scheduler events, 2023 of them sched_switch; it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1\n"
	const warn = "warning: nothing matched the filters --pid 99999" + span
	for _, c := range []struct {
		args []string
		warn string // "": none
		out  string
	}{
		{[]string{"timehist", "-p", "99999", "-i", gTrace}, warn, "wait time"},
		{[]string{"timehist", "-S", "--time", "1,2", "-i", gTrace}, "warning: nothing matched the filters --time 1.000000000,2.000000000" + span, "wait time"},
		{[]string{"timehist", "-s", "-t", "1", "-i", gTrace}, "warning: nothing matched the filters --tid 1" + span, "<no still running tasks>"},
		{[]string{"timehist", "-s", "--prio", "3", "-i", gTrace}, "warning: nothing matched the filters --prio 3" + span, "<no still running tasks>"},
		// The closest names, as latency gives them (timehist gave none).
		{[]string{"timehist", "--comm", "sched-pip", "-i", gTrace}, "warning: nothing matched the filters --comm sched-pip" + strings.TrimSuffix(span, "\n") + "; closest task names: sched-pipe\n", "wait time"},
		{[]string{"timehist", "-p", "14566", "-i", gTrace}, "", "wait time"}, // a sched-pipe thread
		{[]string{"timehist", "-s", "-p", "14566", "-i", gTrace}, "", "sched-pipe"},
		{[]string{"timehist", "--time", "754.33,", "-i", gTrace}, "", "wait time"},
	} {
		out, stderr, code := runCLI(t, c.args...)
		warned := strings.Contains(stderr, "matched the filters")
		if code != 0 || warned != (c.warn != "") || (c.warn != "" && !strings.Contains(stderr, c.warn)) || !strings.Contains(out, c.out) {
			t.Errorf("%v: exit %d, stderr %q; want exit 0, warning %q, output with %q", c.args, code, stderr, c.warn, c.out)
		}
	}
	// -s holds its summary back: on a terminal the warning comes first.
	root := newRootCmd()
	var both bytes.Buffer
	root.SetOut(&both)
	root.SetErr(&both)
	const warnS = "warning: nothing matched the filters --tid 1" + span
	if err := execute(root, []string{"timehist", "-s", "-t", "1", "-i", gTrace}); err != nil || !strings.HasPrefix(both.String(), warnS) {
		t.Errorf("-s: error %v, output:\n%s\nwant it to start with %q", err, both.String(), warnS)
	}
	// -S with no row holds its summary back too (the warning came after
	// the header and the summary).
	root = newRootCmd()
	both.Reset()
	root.SetOut(&both)
	root.SetErr(&both)
	if err := execute(root, []string{"timehist", "-S", "-p", "99999", "-i", gTrace}); err != nil || !strings.HasPrefix(both.String(), warn) || !strings.Contains(both.String(), "Runtime summary") {
		t.Errorf("-S: error %v, output:\n%s\nwant it to start with %q, then the summary", err, both.String(), warn)
	}
	// On a terminal (stdout and stderr one stream) the warning comes
	// first, not after the header (it was printed after it).
	root = newRootCmd()
	both.Reset()
	root.SetOut(&both)
	root.SetErr(&both)
	if err := execute(root, []string{"timehist", "-p", "99999", "-i", gTrace}); err != nil || !strings.HasPrefix(both.String(), warn) {
		t.Errorf("error %v, output:\n%s\nwant it to start with %q", err, both.String(), warn)
	}
}

// TestTimehistCallchains: on a perf sched record -g trace, timehist prints
// each switch-out's callchain after its row as perf sched timehist does:
// with the recording kernel's symbols (--kallsyms), the callchain column of
// all 879 rows (866 of them with a callchain; idle's have none) equals
// perf's, e.g. "exit_to_user_mode_loop <- do_syscall_64 <-
// entry_SYSCALL_64_after_hwframe <- [unknown] <- [unknown]" (perf could not
// name the user frames either), with --exact; without it, perf's first 5
// (--max-stack) frames. --call-graph=false prints none.
func TestTimehistCallchains(t *testing.T) {
	const dir = "../../testdata/traces/"
	out, stderr, code := runCLI(t, "timehist", "--exact", "-i", dir+"sched-g.data", "--kallsyms", dir+"sched-g.kallsyms.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	perf := strings.Split(strings.TrimSuffix(string(testtraces.Load(t, dir+"sched-g.timehist.txt.gz")), "\n"), "\n")
	ours := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// The default mode prints at most --max-stack (5) frames: perf's,
	// cut there (8 of perf's rows have 6, __schedule entered from
	// __cond_resched without a schedule frame).
	def, stderr, code := runCLI(t, "timehist", "-i", dir+"sched-g.data", "--kallsyms", dir+"sched-g.kallsyms.gz")
	if code != 0 {
		t.Fatalf("default mode: exit %d: %s", code, stderr)
	}
	// (The chain: from the two spaces before its first frame; the
	// default mode's columns before it may be wider, "-" for a delay it
	// does not measure.)
	chainOf := func(l string) string {
		i := strings.Index(l, " <- ")
		if i < 0 {
			return ""
		}
		return l[strings.LastIndex(l[:i], "  ")+2:]
	}
	cut, six := 0, 0
	for i, l := range strings.Split(strings.TrimSuffix(def, "\n"), "\n") {
		if i < 3 || i >= len(perf) || chainOf(perf[i]) == "" {
			continue
		}
		frames := strings.Split(chainOf(perf[i]), " <- ")
		if len(frames) > 5 {
			frames, six = frames[:5], six+1
		}
		if got := chainOf(l); got != strings.Join(frames, " <- ") {
			t.Errorf("default mode row %d: %q, want perf's first 5 frames %q", i, got, strings.Join(frames, " <- "))
		}
		cut++
	}
	if six != 8 || cut < 866 {
		t.Errorf("default mode: %d rows compared, %d of perf's with 6 frames; want 866 or more and 8", cut, six)
	}
	if len(ours) != len(perf) || len(perf) != 879 {
		t.Fatalf("%d rows, perf %d; want 879", len(ours), len(perf))
	}
	// The columns up to the run time are 105 bytes wide; the callchain
	// follows.
	chain := func(l string) string {
		if len(l) < 105 {
			return ""
		}
		return l[105:]
	}
	same, withChain := 0, 0
	for i := range perf {
		if chain(ours[i]) == chain(perf[i]) {
			same++
		} else if i >= 3 {
			t.Errorf("row %d:\n ours %q\n perf %q", i, chain(ours[i]), chain(perf[i]))
		}
		if strings.Contains(ours[i], " <- ") {
			withChain++
		}
	}
	if same != 879 || withChain != 866 {
		t.Errorf("%d rows with perf's callchain column, %d with a callchain; want 879 and 866", same, withChain)
	}
	if !strings.HasSuffix(ours[3], "0.000    exit_to_user_mode_loop <- do_syscall_64 <- entry_SYSCALL_64_after_hwframe <- [unknown] <- [unknown]") {
		t.Errorf("first row %q", ours[3])
	}
	out, _, code = runCLI(t, "timehist", "-i", dir+"sched-g.data", "--call-graph=false")
	if code != 0 || strings.Contains(out, " <- ") {
		t.Errorf("--call-graph=false: exit %d, callchains printed %v", code, strings.Contains(out, " <- "))
	}
	if _, stderr, code := runCLI(t, "timehist", "-i", dir+"sched-g.data", "--kallsyms", dir+"nosuch"); code != 2 || !strings.HasPrefix(stderr, "timehist: --kallsyms: open ../../testdata/traces/nosuch: no such file") {
		t.Errorf("missing --kallsyms: exit %d, %q", code, stderr)
	}
}

// TestTimehistUnrecordedCPUDelay: grpw.eq.1cpu.perf.data's rcu_preempt
// was woken at 18111.379879 to CPU 1, which recorded its first event at
// 18111.379967, and migrated to CPU 0, where it ran at 18111.379884: it may
// have run on CPU 1 meanwhile, so its row prints "-" for the 0.004 ms perf
// prints (--exact keeps perf's number), and for its wait time, which ends
// with that delay (perf's 0.000: no switch-out of it seen before), and
// stderr says so with latency's key, as latency leaves that one delay out.
func TestTimehistUnrecordedCPUDelay(t *testing.T) {
	const in = "../../testdata/traces/grpw.eq.1cpu.perf.data"
	row := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "18111.379888 ") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		return ""
	}
	out, stderr, code := runCLI(t, "timehist", "-v", "-i", in)
	if got, want := row(out), "18111.379888 [0000] rcu_preempt[15] - - 0.004"; code != 0 || got != want ||
		!strings.Contains(stderr, "warning: "+in+": scheduling delay and wait time not measured, shown as -: the task was queued meanwhile on a CPU that had recorded no event yet") {
		t.Errorf("exit %d, row %q, want %q; stderr:\n%s", code, got, want, stderr)
	}
	out, _, _ = runCLI(t, "timehist", "--exact", "-i", in)
	if got, want := row(out), "18111.379888 [0000] rcu_preempt[15] 0.000 0.004 0.004"; got != want {
		t.Errorf("--exact: row %q, want perf's %q", got, want)
	}
}

// TestTimehistDataRows: timehist -o csv and -o json give the rows of the
// text view as data: one per row, the same time, CPU, task and tid, and
// wait time, sch delay and run time in ns that the text prints in ms
// (three decimals, perf's rounding: within 1 µs). The text's rows are
// checked against perf 6.12's own (timehist_golden_test.go), so these are
// too. nice.2cpu.perf.data, with -w and -M rows.
func TestTimehistDataRows(t *testing.T) {
	const in = "../../testdata/traces/nice.2cpu.perf.data"
	text, errs, code := runCLI(t, "timehist", "-w", "-M", "-i", in)
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")[3:]
	out, errs, code := runCLI(t, "timehist", "-w", "-M", "-o", "csv", "-i", in)
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(perfcompat.TimehistColumns, ",") || len(recs)-1 != len(lines) {
		t.Fatalf("csv: header %q and %d rows, want %d rows as the text's", recs[0], len(recs)-1, len(lines))
	}
	ns := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	switches := 0
	for i, rec := range recs[1:] {
		f := strings.Fields(lines[i])
		// "687.429322 [0000]  migration/0[18]  0.000  0.010  0.024"
		if sec, _ := strconv.ParseFloat(f[0], 64); math.Abs(sec-float64(ns(rec[1]))/1e9) > 1e-6 || f[1] != fmt.Sprintf("[%04s]", rec[2]) {
			t.Fatalf("row %d: time/CPU %s %s, text %q", i, rec[1], rec[2], lines[i])
		}
		if rec[0] != "switch" {
			if !strings.Contains(lines[i], rec[13]+"[") {
				t.Errorf("row %d: target %q not in text %q", i, rec[13], lines[i])
			}
			continue
		}
		switches++
		if !strings.HasPrefix(f[2], rec[3]) || (rec[4] != "0" && !strings.Contains(f[2], "["+rec[4])) {
			t.Errorf("row %d: task %s[%s], text %q", i, rec[3], rec[4], lines[i])
		}
		for k, col := range []int{7, 8, 9} {
			want, _ := strconv.ParseFloat(f[3+k], 64)
			if got := float64(ns(rec[col])) / 1e6; math.Abs(got-want) > 0.001 {
				t.Errorf("row %d: %s %d ns, text %q", i, perfcompat.TimehistColumns[col], ns(rec[col]), lines[i])
			}
		}
	}
	if switches == 0 || switches == len(lines) {
		t.Errorf("%d switch rows of %d: want both kinds", switches, len(lines))
	}
	// JSON: the same rows, and the trace's warnings.
	out, errs, code = runCLI(t, "timehist", "-w", "-M", "-o", "json", "-i", in)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var doc struct {
		Rows     []perfcompat.TimehistRow `json:"rows"`
		Warnings []trace.Warning          `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(doc.Rows) != len(lines) || doc.Warnings == nil {
		t.Fatalf("json: %d rows (want %d), warnings %v", len(doc.Rows), len(lines), doc.Warnings)
	}
	if r := doc.Rows[len(doc.Rows)-1]; strings.Join(r.Record(), ",") != strings.Join(recs[len(recs)-1], ",") {
		t.Errorf("json's last row %v, csv's %v", r.Record(), recs[len(recs)-1])
	}
	// The warnings the view adds at its end are in the JSON too: pipe's CPU
	// 1 switched out tasks its previous sched_switch had not switched in
	// (the stderr summary's "2 about missing switches"); the JSON was
	// written before they were added.
	out, errs, code = runCLI(t, "timehist", "-o", "json", "-i", "../../testdata/traces/pipe.perf.data")
	doc.Warnings = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("pipe: exit %d, %v: %s", code, err, errs)
	}
	chain := false
	for _, w := range doc.Warnings {
		chain = chain || w.Key == "sched-switch-chain-cpu1"
	}
	if !chain {
		t.Errorf("pipe: JSON warnings %v lack sched-switch-chain-cpu1", doc.Warnings)
	}
	// The summary is text only.
	if _, errs, code := runCLI(t, "timehist", "-s", "-o", "json", "-i", in); code != 2 || !strings.Contains(errs, "latency -o json") {
		t.Errorf("-s -o json: exit %d: %s", code, errs)
	}
	// A file cut short: perf's "lost 0 events on cpu N" lines (the CPUs
	// unobserved from the cut on) were written as text into the JSON; they
	// are rows of kind "lost".
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir() + "/cut.perf.data"
	if err := os.WriteFile(cut, b[:len(b)*3/5], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = runCLI(t, "timehist", "-o", "json", "-i", cut)
	if code != 0 {
		t.Fatalf("cut: exit %d: %s", code, errs)
	}
	doc.Rows = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("cut: %v\n%s", err, out)
	}
	lost := 0
	for _, r := range doc.Rows {
		if r.Kind == "lost" {
			lost++
		}
	}
	if lost == 0 || len(doc.Rows) == lost || len(doc.Warnings) == 0 {
		t.Errorf("cut: %d rows, %d lost, %d warnings", len(doc.Rows), lost, len(doc.Warnings))
	}
}

// TestTimehistExactFilters: with --exact, the filters perf's timehist lacks
// are refused (exit 2), as latency --perf refuses perf's latency's: perf
// 6.12 says "unknown option `comm'" and "Invalid time string" (10%/2);
// --time START,STOP, --pid and --cpu, which perf has, are taken.
func TestTimehistExactFilters(t *testing.T) {
	in := "../../testdata/traces/nice.2cpu.perf.data"
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--comm", "hog"}, 2},
		{[]string{"--time", "10%/2"}, 2},
		{[]string{"--time", "687.5,688.0"}, 0},
		{[]string{"--pid", "13337"}, 0},
	} {
		_, stderr, code := runCLI(t, append([]string{"timehist", "--exact", "-i", in}, c.args...)...)
		if code != c.code || code == 2 && !strings.Contains(stderr, "--exact reproduces perf's timehist") {
			t.Errorf("timehist --exact %v: exit %d, %q; want %d", c.args, code, stderr, c.code)
		}
	}
}

// TestTimehistSummaryOldName: nice.2cpu's hogs ran as "nice" before they
// exec'd hog: `timehist -s --comm nice` summarizes them (under their last
// name, hog) where it said "nothing matched the filters" while the rows
// view matched their switches as nice (new-user pass 32 F3).
func TestTimehistSummaryOldName(t *testing.T) {
	out, stderr, code := runCLI(t, "timehist", "-i", "../../testdata/traces/nice.2cpu.perf.data", "-s", "--comm", "nice")
	if code != 0 || strings.Contains(stderr, "nothing matched") || !strings.Contains(out, "hog[13337]") {
		t.Errorf("timehist -s --comm nice: exit %d\n%s\nstderr:\n%s", code, out, stderr)
	}
	rows, _, _ := runCLI(t, "timehist", "-i", "../../testdata/traces/nice.2cpu.perf.data", "--comm", "nice")
	if !strings.Contains(rows, "nice[13337]") {
		t.Errorf("timehist --comm nice: no row of nice[13337]:\n%s", rows)
	}
}

// TestRunningKallsymsMissed: the --kallsyms warning is for kernel frames
// left unnamed: a trace whose frames carry their names (a traceview
// capture) never looks one up and gets none (new-user pass 40 F1: the
// warning said "from kernel X, not the running one" of the running kernel
// with every frame named); a lookup for another kernel's trace misses and
// says which kernel.
func TestRunningKallsymsMissed(t *testing.T) {
	r := &runningKallsyms{meta: &trace.Meta{OSRelease: "0.0.0-not-this-one"}}
	if r.missed {
		t.Fatal("missed before any lookup")
	}
	if _, ok := r.Lookup(0xffffffff81000010); ok || !r.missed || !strings.Contains(r.unnamedWhy(), `"0.0.0-not-this-one", not the running one`) {
		t.Errorf("lookup for another kernel: ok %v, missed %v, why %q", ok, r.missed, r.unnamedWhy())
	}
}
