package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestNoMatchOneMessage: every command that filters gives the same
// no-match message, as its first stderr line: latency's, with the trace's
// events and switches, span, CPUs and closest names. Before, map failed
// with it after every warning in full, stats said "no scheduling delay or
// migration matched" without the switch count, export and report said
// "none of the trace's ... switches a selected task" without CPUs or
// names, and the views named an untypable name without its --pid.
func TestNoMatchOneMessage(t *testing.T) {
	const pipe = "../../testdata/traces/pipe.perf.data"
	const hostile = "../../testdata/traces/hostile-names.tv"
	// pipe.perf.data: 5105 scheduler events (info: 2023 sched_switch, 1018
	// sched_waking, 2 sched_wakeup_new, 6 sched_migrate_task, 2056
	// sched_stat_runtime), 2023 sched_switch on CPUs 0-1, its scheduler
	// events from 754.328751 s to 754.364705 s (as perf script prints
	// them).
	const pipeNone = "warning: nothing matched the filters --pid 99999: the trace has 5105 scheduler events, 2023 of them sched_switch; it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1"
	// hostile-names.tv: "a,b\nc" was pid 7221 (hostile-names.py); "a,b"
	// is --comm's two names a and b, each within the names below
	// ("\xff\xfebad" of pid 7224 holds "b"); the names compared and
	// ordered as the tables print them, escaped.
	const hostileNone = "warning: nothing matched the filters --comm a,b: the trace has 1597 scheduler events, 1014 of them sched_switch; it spans 19351.962291 s to 19352.700727 s, sched_switch on CPUs 0-1; closest task names: '\\xff\\xfebad', 'a\\,b\\nc', basename"
	// fork-cpu1.perf.data (perf record -C 1): 834 scheduler events (info:
	// 317 sched_switch, 155 sched_waking, 20 sched_wakeup_new, 36
	// sched_migrate_task, 306 sched_stat_runtime). Before, timehist and
	// map said 1112 events and latency and stats 1088: the first two read
	// forks, execs and exits from perf's task records, of every CPU, as
	// perf's own timehist does (new-user pass 11 F11). The no-match line
	// comes first, above the partial-cpus one.
	const cpu1 = "../../testdata/traces/fork-cpu1.perf.data"
	const cpu1None = "warning: nothing matched the filters --pid 99999: the trace has 834 scheduler events, 317 of them sched_switch; it spans 59410.255479 s to 59410.667895 s, sched_switch on CPU 1"
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"latency", []string{"latency", "-i", pipe, "--pid", "99999"}, pipeNone},
		{"timehist", []string{"timehist", "-i", pipe, "--pid", "99999"}, pipeNone},
		{"map", []string{"map", "-i", pipe, "--pid", "99999"}, pipeNone},
		{"stats", []string{"stats", "-i", pipe, "--pid", "99999"}, pipeNone},
		{"export", []string{"export", "--format", "chrome-json", "-i", pipe, "--pid", "99999", "-o", out}, pipeNone},
		{"report", []string{"report", "-i", pipe, "--pid", "99999", "-o", out}, pipeNone},
		{"latency -C 1", []string{"latency", "-i", cpu1, "--pid", "99999"}, cpu1None},
		{"timehist -C 1", []string{"timehist", "-i", cpu1, "--pid", "99999"}, cpu1None},
		{"map -C 1", []string{"map", "-i", cpu1, "--pid", "99999"}, cpu1None},
		{"stats -C 1", []string{"stats", "-i", cpu1, "--pid", "99999"}, cpu1None},
		{"latency hostile", []string{"latency", "-i", hostile, "--comm", "a,b"}, hostileNone},
		{"timehist hostile", []string{"timehist", "-i", hostile, "--comm", "a,b"}, hostileNone},
		{"map hostile", []string{"map", "-i", hostile, "--comm", "a,b"}, hostileNone},
		{"stats hostile", []string{"stats", "-i", hostile, "--comm", "a,b"}, hostileNone},
		{"export hostile", []string{"export", "--format", "pprof", "-i", hostile, "--comm", "a,b", "-o", out}, hostileNone},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, c.args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != 0 || first != c.want {
				t.Errorf("exit %d, first stderr line\n%q\nwant\n%q", code, first, c.want)
			}
		})
	}
	// A task the filters select that had no delay nor migration is not
	// "nothing matched": pid 14566 (sched-pipe) ran, but not in the last
	// 5 us of the trace.
	_, stderr, _ := runCLI(t, "stats", "-i", pipe, "--pid", "14566", "--time", "754.3647,755")
	if want := "warning: no scheduling delay or migration of the tasks selected matched the filters --time 754.364700000,755.000000000 --pid 14566: the trace has 5105 scheduler events, 2023 of them sched_switch;"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stats of a selected task without delays: stderr\n%s\nwant it to start with %q", stderr, want)
	}
}

// TestNoMatchThreadPID: --pid 5663 names a thread of process 5662
// (forkstart.perf.data: timehist shows test[5663/5662]), which --pid
// (processes, as perf's) does not select: every command's no-match message
// says --tid selects it. A pid that is no thread gets no such clause.
func TestNoMatchThreadPID(t *testing.T) {
	const trace = "../../testdata/traces/forkstart.perf.data"
	const want = "; 5663 is a thread of process 5662, not a process: --tid 5663 selects it\n"
	for _, args := range [][]string{{"latency"}, {"stats"}, {"timehist"}, {"map"}, {"export", "--format", "pprof", "-o", filepath.Join(t.TempDir(), "x.pb.gz")}} {
		_, stderr, code := runCLI(t, append(args, "-i", trace, "--pid", "5663")...)
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("%s --pid 5663: exit %d, stderr:\n%s\nwant a line ending %q", args[0], code, stderr, want)
		}
		_, stderr, _ = runCLI(t, append(args, "-i", trace, "--pid", "99999")...)
		if strings.Contains(stderr, "is a thread of process") {
			t.Errorf("%s --pid 99999: %s", args[0], stderr)
		}
	}
}

// TestDamagedNotCut: a perf.data whose first record header says 0 bytes
// (a bit flip; the file goes on for 3 MB) ends its records there, before any
// sched_switch: the error says a damaged record, where it said "the input
// ends early, cut inside a record (truncated)" of a file that was not cut.
// pipe.perf.data's data section offset is the u64 at byte 40 of the file
// header; a record header is u32 type, u16 misc, u16 size.
func TestDamagedNotCut(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	off := binary.LittleEndian.Uint64(b[40:])
	binary.LittleEndian.PutUint16(b[off+6:], 0)
	path := filepath.Join(t.TempDir(), "d.perf.data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "latency", "-i", path)
	if code != 1 || !strings.Contains(stderr, "the records end at a damaged record after") || strings.Contains(stderr, "(truncated)") {
		t.Errorf("exit %d, stderr %q; want 1 and a damaged record, not a cut", code, stderr)
	}
}

// TestNoMatchThreadName: "t18\tTAB" was the name of one thread, 12524, of
// process 12516 (renamed-threads.meta.txt): a --comm that matches nothing
// suggests --tid 12524 for it, not --pid 12516, which selects all 8 of the
// process's threads; and the name typed as the tables print it, escaped,
// selects the thread (new-user pass 18 F1: it matched nothing).
func TestNoMatchThreadName(t *testing.T) {
	const in = "../../testdata/traces/renamed-threads.tv"
	// (timehist and map name every name a task had; latency each task's
	// last.) Typed as printed, with a typo.
	_, stderr, _ := runCLI(t, "timehist", "-i", in, "--comm", `t18\tTAX`)
	if !strings.Contains(stderr, `closest task names: 't18\tTAB'`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	out, _, code := runCLI(t, "latency", "-i", in, "-p", "--comm", `t18\tTAB`)
	if code != 0 || !strings.Contains(out, `t18\tTAB:12524`) {
		t.Errorf("--comm as printed: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "latency", "-i", in, "-p", "--comm", `t18\x1b[2Jx`)
	if code != 0 || !strings.Contains(out, `t18\x1b[2Jx:`) {
		t.Errorf("--comm with an escape as printed: exit %d\n%s", code, out)
	}
	// map too, by --comm and --task-name (new-user pass 50 F1: only the
	// raw bytes matched there).
	for _, flag := range []string{"--comm", "--task-name"} {
		out, stderr, code = runCLI(t, "map", "-i", in, flag, `t18\tTAB`)
		if code != 0 || !strings.Contains(out, `=> t18\tTAB:12524`) || strings.Contains(stderr, "nothing matched") {
			t.Errorf("map %s as printed: exit %d\n%s\nstderr:\n%s", flag, code, out, stderr)
		}
	}
}

// TestTimeWindowOutsideTrace: a --time window that starts before the
// trace's first scheduler event is said first by every command that
// filters, with what the report covers (new-user pass 109 F1: the window
// was cut to the trace without a word, and the JSON carried no trace of
// it). pipe.perf.data's scheduler events run from 754.328751694 s to
// 754.364705932 s (perf script --ns): 754.3 is 28.751694 ms before the
// first; the report covers 754.328751694 to 754.35, 21.248306 ms of the
// 50 ms asked. A share of the trace (0%-50%) lies inside by construction.
func TestTimeWindowOutsideTrace(t *testing.T) {
	const pipe = "../../testdata/traces/pipe.perf.data"
	const want = "warning: " + pipe + ": --time 754.300000000,754.350000000 starts 28.752 ms before the trace's first scheduler event: the report covers 754.328751 s to 754.350000 s, 21.248 ms of the 50.000 ms asked"
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"latency"}, {"timehist"}, {"map"}, {"stats"},
		{"export", "--format", "chrome-json", "-o", out}, {"report", "-o", out},
	} {
		_, stderr, code := runCLI(t, append(args, "-i", pipe, "--time", "754.3,754.35")...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 0 || first != want {
			t.Errorf("%s: exit %d, first stderr line\n%q\nwant\n%q", args[0], code, first, want)
		}
		_, stderr, _ = runCLI(t, append(args, "-i", pipe, "--time", "0%-50%")...)
		if strings.Contains(stderr, "before the trace's first") {
			t.Errorf("%s --time 0%%-50%%: %s", args[0], stderr)
		}
	}
	stdout, _, _ := runCLI(t, "latency", "-i", pipe, "--time", "754.33,755", "-o", "json")
	var doc struct {
		Warnings []struct{ Key, Message string }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	// 755 - 754.364705932 = 635.294068 ms after; 754.33 to the last:
	// 34.705932 ms of the 670 asked.
	const wantJSON = "--time 754.330000000,755.000000000 ends 635.294 ms after the trace's last scheduler event: the report covers 754.330000 s to 754.364705 s, 34.706 ms of the 670.000 ms asked"
	// First, as the text prints it (the trace's own warnings after it:
	// new-user pass 113 F4 found it last).
	if len(doc.Warnings) < 2 || doc.Warnings[0].Key != "time-outside-trace" || doc.Warnings[0].Message != wantJSON {
		t.Errorf("latency -o json warnings %+v: want %q first, then the trace's", doc.Warnings, wantJSON)
	}
}

// TestAnswerFirst: the warnings about the answer (answerKey) go first, in
// their order, then the others in theirs.
func TestAnswerFirst(t *testing.T) {
	ws := []trace.Warning{{Key: "a"}, {Key: "latency-empty"}, {Key: "b"}, {Key: "time-outside-trace"}, {Key: "c"}}
	var got []string
	for _, w := range answerFirst(ws) {
		got = append(got, w.Key)
	}
	if want := []string{"latency-empty", "time-outside-trace", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestReportAndReplaySayScheduleWarnings: report (HTML) and replay say the
// warnings of their latency table (missing switches and wakeups, dropped
// delays) on stderr as latency does: one summary line, each as latency
// words it with -v (new-user pass 111 F1: only the HTML page and replay's
// -o json held them). pipe.perf.data (latency -v): CPU 1's 3 switches out
// of a task not switched in, 4 delays without a recorded switch-in, 1
// task first seen switched in.
func TestReportAndReplaySayScheduleWarnings(t *testing.T) {
	const pipe = "../../testdata/traces/pipe.perf.data"
	const want = "warning: " + pipe + ": 3 warnings: 3 about missing switches; -v for detail"
	_, latV, _ := runCLI(t, "latency", "-v", "-i", pipe)
	lines := strings.Split(strings.TrimSpace(latV), "\n")
	if len(lines) != 3 {
		t.Fatalf("latency -v: %d lines, want 3:\n%s", len(lines), latV)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	for _, args := range [][]string{
		{"latency"}, {"report", "-o", out}, {"replay", "--policy", "cfs"},
	} {
		_, stderr, code := runCLI(t, append(args, "-i", pipe)...)
		if code != 0 || !strings.Contains(stderr, want+"\n") {
			t.Errorf("%s: exit %d, stderr\n%s\nwant the line %q", args[0], code, stderr, want)
		}
		_, verbose, _ := runCLI(t, append(args, "-v", "-i", pipe)...)
		for _, l := range lines {
			if !strings.Contains(verbose, l+"\n") {
				t.Errorf("%s -v: stderr\n%s\nlacks latency -v's line\n%s", args[0], verbose, l)
			}
		}
	}
	// export --format parquet: its latency tables lack the same (new-user
	// pass 111: it said nothing).
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "export", "--format", "parquet", "-o", filepath.Join(dir, "a"), "-i", pipe)
	if code != 0 || !strings.Contains(stderr, want+"\n") {
		t.Errorf("export parquet: exit %d, stderr\n%s\nwant the line %q", code, stderr, want)
	}
	_, verbose, _ := runCLI(t, "export", "--format", "parquet", "-o", filepath.Join(dir, "b"), "-v", "-i", pipe)
	for _, l := range lines {
		if !strings.Contains(verbose, l+"\n") {
			t.Errorf("export parquet -v: stderr\n%s\nlacks latency -v's line\n%s", verbose, l)
		}
	}
}

// TestCSVCgroupsNoteKey: latency -o csv's note on the task groups it
// leaves out names the JSON key that holds them for the same options:
// "cgroups" of the plain report, "groups[].cgroup" with --by cgroup
// (new-user pass 111 F5: it said "cgroups" there too, a key that
// --by's JSON does not have). nested-quota.tv has 3 task groups, a line
// each in both JSON shapes.
func TestCSVCgroupsNoteKey(t *testing.T) {
	const tv = "../../testdata/traces/nested-quota.tv"
	for _, c := range []struct {
		by      []string
		key     string
		entries func(doc map[string]any) int
	}{
		{nil, "cgroups", func(doc map[string]any) int { l, _ := doc["cgroups"].([]any); return len(l) }},
		{[]string{"--by", "cgroup"}, "groups[].cgroup", func(doc map[string]any) int {
			n := 0
			l, _ := doc["groups"].([]any)
			for _, g := range l {
				if m, _ := g.(map[string]any); m != nil && m["cgroup"] != nil {
					n++
				}
			}
			return n
		}},
	} {
		_, stderr, _ := runCLI(t, append([]string{"latency", "-o", "csv", "-i", tv}, c.by...)...)
		if want := "are under the table and in -o json's " + c.key + "\n"; !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr\n%s\nwant %q", c.by, stderr, want)
		}
		stdout, _, _ := runCLI(t, append([]string{"latency", "-o", "json", "-i", tv}, c.by...)...)
		var doc map[string]any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if n := c.entries(doc); n != 3 {
			t.Errorf("%v: %d group lines under %s, want 3", c.by, n, c.key)
		}
	}
}

// TestStatsJSONWarningsSummary: stats says its warnings on stderr in one
// summary line whatever -o is (the JSON holds each in "warnings"), as
// latency does; -o json printed each in full (new-user pass 111 F3).
// pipe.perf.data: stats' 2 warnings, each CPU's switches out of a task
// not switched in.
func TestStatsJSONWarningsSummary(t *testing.T) {
	const pipe = "../../testdata/traces/pipe.perf.data"
	const want = "warning: " + pipe + ": 2 warnings: 2 about missing switches; -v for detail\n"
	for _, o := range []string{"table", "json", "csv"} {
		stdout, stderr, code := runCLI(t, "stats", "-i", pipe, "-o", o)
		if o == "csv" {
			// (new-user pass 111 F4: what the CSV leaves out.)
			const note = "note: stats -o csv holds the per-CPU table only; the trace's summary line and the scheduling-delay histograms are in the table output and in -o json\n"
			if !strings.Contains(stderr, note) {
				t.Errorf("-o csv: stderr\n%s\nlacks\n%s", stderr, note)
			}
			stderr = strings.Replace(stderr, note, "", 1)
		}
		if code != 0 || stderr != want {
			t.Errorf("-o %s: exit %d, stderr\n%s\nwant\n%s", o, code, stderr, want)
		}
		if o == "json" {
			var doc struct{ Warnings []struct{ Key string } }
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Warnings) != 2 {
				t.Errorf("-o json: %d warnings (%v), want 2", len(doc.Warnings), err)
			}
		}
	}
}

// TestExportSaysScheduleWarnings: the exports that rebuild the schedule
// (pprof, chrome-json) say what it lacks as stats does (report.
// ScheduleWarnings): pipe.perf.data's 3 switches out of a task not
// switched in (all on CPU 1, said per CPU as latency does) and 4 delays
// without a recorded switch-in, one summary line, each with -v (new-user
// pass 111 F1: said by neither).
func TestExportSaysScheduleWarnings(t *testing.T) {
	const pipe = "../../testdata/traces/pipe.perf.data"
	const want = "warning: " + pipe + ": 2 warnings: 2 about missing switches; -v for detail\n"
	out := filepath.Join(t.TempDir(), "out")
	for _, f := range []string{"pprof", "chrome-json"} {
		_, stderr, code := runCLI(t, "export", "--format", f, "-i", pipe, "-o", out)
		if code != 0 || stderr != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant\n%s", f, code, stderr, want)
		}
		_, verbose, _ := runCLI(t, "export", "-v", "--format", f, "-i", pipe, "-o", out)
		for _, l := range []string{
			"warning: " + pipe + ": 4 scheduling delays had no recorded switch-in",
			"warning: " + pipe + ": CPU 1: 3 sched_switch events switched out a task that the CPU's previous sched_switch had not switched in",
		} {
			if !strings.Contains(verbose, l) {
				t.Errorf("%s -v: stderr\n%s\nlacks %q", f, verbose, l)
			}
		}
	}
}

// TestNoThrottleFoundHint: a group of a perf.data with no quota recorded
// says how to give its quota, and one with no throttle inferred says none
// was found, where it read "throttled 0 periods" as if it had never been
// throttled (new-user pass 114 F6); with the quota given, its line
// counts periods again. grpq.q25
// holds /tv-batch (no quota) and /tv-svc (25 ms per 100 ms; 32 periods
// inferred without it given).
func TestNoThrottleFoundHint(t *testing.T) {
	const grpq = "../../testdata/traces/grpq.q25.perf.data"
	out, _, code := runCLI(t, "latency", "--by", "cgroup", "-i", grpq)
	// Both groups' quotas are unknown: each line says how to give it,
	// the throttled one's too (new-user pass 115 F5).
	const hint = "quota unknown (throttles inferred only where its runnable tasks were left for an idle CPU, unseen on busy CPUs: give a quota with --recorded-cgroup %s:max=QUOTA/PERIOD)"
	if code != 0 || !strings.Contains(out, "no throttle found (0 periods); quota unknown") || !strings.Contains(out, "throttled 32 periods") ||
		!strings.Contains(out, fmt.Sprintf(hint, "/tv-batch")) || !strings.Contains(out, fmt.Sprintf(hint, "/tv-svc")) {
		t.Errorf("exit %d:\n%s\nwant /tv-batch's 'no throttle found', /tv-svc's 32 periods and each its hint", code, out)
	}
	out, stderr, code := runCLI(t, "latency", "--by", "cgroup", "-i", grpq, "--recorded-cgroup", "/tv-batch:max=max")
	if code != 0 || !strings.Contains(out, "cgroup: /tv-batch\n") || strings.Contains(out, "no throttle found") {
		t.Logf("stderr: %s", stderr)
		t.Errorf("with /tv-batch's settings given:\n%s\nwant no hint", out)
	}
}

// TestExportNoMatchFirst (new-user pass 118 F3): export pprof of a trace
// that records task groups, with a filter that matches nothing, says so
// on its first line; the format's task-group caveat comes after.
func TestExportNoMatchFirst(t *testing.T) {
	const in = "../../testdata/traces/quota-svc.tv"
	_, stderr, code := runCLI(t, "export", "--format", "pprof", "-i", in, "--comm", "nosuch", "-o", filepath.Join(t.TempDir(), "p.pb.gz"))
	lines := strings.Split(stderr, "\n")
	if code != 0 || !strings.HasPrefix(lines[0], "warning: nothing matched the filters --comm nosuch") || !strings.Contains(stderr, "records task groups") {
		t.Errorf("exit %d, stderr:\n%s\nwant the no-match line first, the task-group caveat after", code, stderr)
	}
}
