package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
	"github.com/traceview/traceview/trace/tvf"
)

// pipeMulti is a real trace of `perf bench sched pipe -l 20` on a loaded
// 2-CPU VM (testdata/traces/pipe-multi.meta.txt), read gzip-compressed as
// shipped. Its perf script text (pipe-multi.script.txt.gz) gives the figures
// below by hand:
//   - 4943 sched_switch in all; 32 of them between 1357.415700 s and
//     1357.416000 s, all on CPU 0 and all between the two sched-pipe tasks
//     (8526 and 8535), each switching in a task woken by the other;
//   - the 50 switch-ins of sched-pipe (26 of 8526, 24 of 8535) each end a
//     delay started by a sched_waking; one of them, 8535's at 1357.409530 s,
//     is on CPU 1, the others on CPU 0;
//   - the sched_stat_runtime events, each taken as the run [time −
//     runtime, time] on its CPU and clipped to that window, sum to 300260
//     ns of sched-pipe on CPU 0 and 300000 ns of sched-messaging 7410 on
//     CPU 1, which ran through the window with no event inside it (awk
//     over pipe-multi.script-ns.txt's runtime= fields); CPU 0's 260 ns
//     over the window's length is the lag between the kernel's run-time
//     clock and the events' timestamps. (The 32 events recorded inside
//     the window sum to 410338 ns: what was counted before the clip.)
const pipeMulti = "../../testdata/traces/pipe-multi.perf.data.gz"

// latencyJSON runs latency -o json with args and returns its rows and total.
func filterLatencyJSON(t *testing.T, args ...string) (rows []map[string]any, total map[string]any) {
	t.Helper()
	out, stderr, code := runCLI(t, append([]string{"latency", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("latency %v: exit %d: %s", args, code, stderr)
	}
	return parseLatencyJSON(t, out)
}

// parseLatencyJSON returns the rows and total of latency -o json output.
func parseLatencyJSON(t *testing.T, out string) (rows []map[string]any, total map[string]any) {
	t.Helper()
	var res struct {
		Tasks []map[string]any `json:"tasks"`
		Total map[string]any   `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("latency -o json: %v", err)
	}
	return res.Tasks, res.Total
}

func TestLatencyFilters(t *testing.T) {
	_, all := filterLatencyJSON(t, "-i", pipeMulti)
	for _, c := range []struct {
		name  string
		args  []string
		count float64 // delays (the total's count)
		rows  string  // comm:pid count of each row, -p
		extra func(t *testing.T, total map[string]any)
	}{
		{
			name: "window", args: []string{"--time", "1357.4157,1357.416"}, count: 32,
			rows: "sched-pipe:8535 16,sched-pipe:8526 16,sched-messaging:7410 0",
			extra: func(t *testing.T, total map[string]any) {
				if total["switches"] != 32.0 || total["runtime_ns"] != 600260.0 {
					t.Errorf("switches %v, runtime %v ns; want 32 and 600260", total["switches"], total["runtime_ns"])
				}
			},
		},
		// 10%/9 of the header's sample span 1356.592470161..1357.540768991 s
		// (948298830 ns): 1356.592470161 + 0.8 * span = 1357.351109225 s to
		// + 0.9 * span - 1 ns = 1357.445939107 s: the 43 switch-ins of
		// sched-pipe from 1357.397470 to 1357.421486 s.
		{name: "percent", args: []string{"--time", "10%/9", "--comm", "sched-pipe"}, count: 43,
			extra: func(t *testing.T, _ map[string]any) {
				out, _, _ := runCLI(t, "latency", "-o", "json", "-i", pipeMulti, "--time", "10%/9", "--comm", "sched-pipe")
				var doc struct{ Filter map[string]any }
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(doc.Filter); got != "map[comms:[sched-pipe] end_ns:1.357445939107e+12 start_ns:1.357351109225e+12]" {
					t.Errorf("JSON filter %s, want the window resolved to 1357351109225..1357445939107 ns", got)
				}
			}},
		{name: "absolute of the percent", args: []string{"--time", "1357.351109225,1357.445939107", "--comm", "sched-pipe"}, count: 43},
		// All but the 4 switch-ins before 1357.4157 s (397470, 409530,
		// 415542, 415589 us).
		{name: "open end", args: []string{"--time", "1357.4157,", "--comm", "sched-pipe"}, count: 50 - 4},
		{name: "cpu 1", args: []string{"--cpu", "1", "--comm", "sched-pipe"}, count: 1, rows: "sched-pipe:8535 1"},
		{name: "-C is --cpu", args: []string{"-C", "1", "--comm", "sched-pipe"}, count: 1, rows: "sched-pipe:8535 1"},
		// --comm matches the name at the time of the delay, --pid the
		// task whatever its name: 8526 was sh, exec'd perf, then
		// sched-pipe; perf script shows its switch-ins as sh:8526 2 times,
		// perf:8526 29 and sched-pipe:8526 26, each ending a delay; the
		// row is named by the latest comm.
		{name: "pid", args: []string{"--pid", "8526"}, count: 2 + 29 + 26, rows: "sched-pipe:8526 57"},
		{name: "pid and comm", args: []string{"--pid", "8526", "--comm", "sched-pipe"}, count: 26, rows: "sched-pipe:8526 26"},
		{name: "tid and comm", args: []string{"--tid", "8535,8526", "--comm", "sched-pipe"}, count: 50},
		{name: "unknown comm", args: []string{"--comm", "nosuch"}, count: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, total := filterLatencyJSON(t, append([]string{"-p", "-i", pipeMulti}, c.args...)...)
			if total["count"] != c.count {
				t.Errorf("count %v, want %v", total["count"], c.count)
			}
			if c.count >= all["count"].(float64) {
				t.Errorf("the filter kept %v delays of the trace's %v", c.count, all["count"])
			}
			if c.rows != "" {
				var got []string
				for _, r := range rows {
					got = append(got, r["comm"].(string)+":"+jsonInt(r["pid"])+" "+jsonInt(r["count"]))
				}
				if strings.Join(got, ",") != c.rows {
					t.Errorf("rows %q, want %q", strings.Join(got, ","), c.rows)
				}
			}
			if c.extra != nil {
				c.extra(t, total)
			}
		})
	}
}

func jsonInt(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLatencyCPUPinned: messaging.1cpu's workload was pinned to CPU 0
// (taskset -c 0; messaging.1cpu.meta.txt): its perf script shows 1231
// switch-ins of sched-messaging on [000] and none on [001], so --cpu 1
// shows none of the workload's delays (whole trace: 1235 in 161 tasks).
func TestLatencyCPUPinned(t *testing.T) {
	const path = "../../../shared/traces/messaging.1cpu.perf.data"
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/traces absent")
	}
	count := func(rows []map[string]any) float64 {
		for _, r := range rows {
			if strings.HasPrefix(r["comm"].(string), "sched-messaging") {
				return r["count"].(float64)
			}
		}
		return 0
	}
	rows, _ := filterLatencyJSON(t, "-i", path)
	if n := count(rows); n != 1235 {
		t.Errorf("whole trace: %v sched-messaging delays, want 1235", n)
	}
	rows, total := filterLatencyJSON(t, "-i", path, "--cpu", "1")
	if n := count(rows); n != 0 {
		t.Errorf("--cpu 1: %v sched-messaging delays, want none", n)
	}
	if total["count"].(float64) == 0 {
		t.Error("--cpu 1: no delay at all (CPU 1 ran rcu_preempt and kworkers)")
	}
	rows, _ = filterLatencyJSON(t, "-i", path, "--cpu", "0")
	if n := count(rows); n != 1235 {
		t.Errorf("--cpu 0: %v sched-messaging delays, want all 1235", n)
	}
}

// TestFilterUsageErrors: bad filter values are one line and exit 2, before
// the trace is read when they can be.
func TestFilterUsageErrors(t *testing.T) {
	nice := "../../testdata/traces/nice.2cpu.perf.data"
	out := filepath.Join(t.TempDir(), "x")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"latency", "--time", "2,1", "-i", nice}, `latency: --time "2,1": reversed window: start 2 s is after stop 1 s`},
		{[]string{"latency", "--time", "1.5", "-i", nice}, `latency: --time "1.5": want START,STOP in seconds (either side may be empty, e.g. 100.5,) or a percentage such as 10%/2`},
		{[]string{"latency", "--cpu", "5", "-i", nice}, `latency: --cpu: CPU 5: the trace has CPUs 0-1`},
		{[]string{"latency", "-C", "5", "-i", nice}, `latency: --cpu: CPU 5: the trace has CPUs 0-1`},
		{[]string{"latency", "--perf", "-C", "5", "-i", nice}, `latency: -C: CPU 5: the trace has CPUs 0-1`},
		{[]string{"latency", "-C", "1", "--cpu", "0", "-i", nice}, `latency: -C 1 and --cpu "0": give one of them (-C N is --cpu N)`},
		{[]string{"latency", "--perf", "--time", "1,2", "-i", nice}, `latency: --time: perf's latency table (--perf) has no filters; drop --perf or the filters`},
		{[]string{"latency", "--pid", "1,x", "-i", nice}, `latency: --pid "1,x": "x" is not a number`},
		{[]string{"latency", "--comm", "a,,b", "-i", nice}, `latency: --comm "a,,b": an empty name (want comma-separated command names, e.g. sched-pipe,hackbench; a name of spaces as the tables print it, \x20\x20; a task named "" by --pid or --tid)`},
		{[]string{"latency", "--time", "10%/2", "-i", "../../testdata/traces/pipe-multi.script.txt.gz"}, `latency: --time "10%/2": a percentage window needs the trace's first and last sample times, which this trace's header does not give; use START,STOP in seconds`},
		{[]string{"stats", "--cpu", "1-0", "-i", nice}, `stats: --cpu "1-0": "1-0" is a reversed range (did you mean 0-1?)`},
		{[]string{"timehist", "--time", "x,", "-i", nice}, `timehist: --time "x,": "x" is not a time in seconds (want e.g. 754.330000)`},
		{[]string{"timehist", "-C", "2", "-i", nice}, `timehist: --cpu: CPU 2: the trace has CPUs 0-1`},
		{[]string{"map", "--time", "10%/0", "-i", nice}, `map: --time "10%/0": "10%/0" is outside 0%-100% of the trace`},
		{[]string{"map", "--cpu", "0", "--cpus", "1", "-i", nice}, `map: --cpus and --cpu: give one of them (--cpu is --cpus)`},
		{[]string{"export", "--format", "pprof", "--tid", "-3", "-i", nice, "-o", out}, `export: --tid "-3": "-3" is outside 0-4194304 (negative)`},
		{[]string{"export", "--format", "perfetto", "--cpu", "0", "-i", nice, "-o", out}, `export: --cpu: the native Perfetto trace holds every event (select in Perfetto's UI, or use --format chrome-json)`},
		{[]string{"report", "--cpu", "7", "-i", nice, "-o", out}, `report: --cpu: CPU 7: the trace has CPUs 0-1`},
		// (new-user pass 32 F4: --comm '' filtered nothing, exit 0.)
		{[]string{"latency", "--comm", "", "-i", nice}, `latency: --comm "": an empty name (want comma-separated command names, e.g. sched-pipe,hackbench; a name of spaces as the tables print it, \x20\x20; a task named "" by --pid or --tid)`},
		{[]string{"compare", nice, nice, "--comm", ","}, `compare: --comm ",": an empty name (want comma-separated command names, e.g. sched-pipe,hackbench; a name of spaces as the tables print it, \x20\x20; a task named "" by --pid or --tid)`},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != 2 || stderr != c.want || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused export or report left %s", out)
	}
}

// TestFilterOtherCommands: the same window and task filters on the other
// commands, with the figures of pipeMulti's comment.
func TestFilterOtherCommands(t *testing.T) {
	const window = "1357.4157,1357.416"
	t.Run("stats", func(t *testing.T) {
		out, stderr, code := runCLI(t, "stats", "-o", "json", "--time", window, "--cpu", "0", "-i", pipeMulti)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var st struct {
			Start    int64 `json:"start_ns"`
			Duration int64 `json:"duration_ns"`
			CPUs     []struct {
				CPU      int   `json:"cpu"`
				Switches int64 `json:"switches"`
			} `json:"cpus"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatal(err)
		}
		// The span is the window: 300 us from 1357.415700 s; CPU 0 alone,
		// with its 32 switches there.
		if st.Start != 1357415700000 || st.Duration != 300000 || len(st.CPUs) != 1 || st.CPUs[0].CPU != 0 || st.CPUs[0].Switches != 32 {
			t.Errorf("stats %+v; want start 1357415700000 ns, 300000 ns, CPU 0 only with 32 switches", st)
		}
	})
	t.Run("timehist", func(t *testing.T) {
		out, stderr, code := runCLI(t, "timehist", "--time", window, "--comm", "sched-pipe", "-i", pipeMulti)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[3:]
		// 32 switch-outs of sched-pipe in the window, and 8535's at
		// 1357.416008 s clamped to the window's end as perf does
		// (timehist_sched_change_event: t = ptime->end).
		if len(lines) != 33 || !strings.HasPrefix(strings.TrimSpace(lines[32]), "1357.416000 [0000]  sched-pipe[8535]") {
			t.Errorf("%d rows, last %q; want 33, the last at 1357.416000", len(lines), lines[len(lines)-1])
		}
	})
	t.Run("map", func(t *testing.T) {
		out, stderr, code := runCLI(t, "map", "--time", window, "-i", pipeMulti)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		// One line per switch in the window; the first names its task
		// although its short name was given before the window.
		if len(lines) != 32 || !strings.HasSuffix(lines[0], "1357.415718 secs V5 => sched-pipe:8526") {
			t.Errorf("%d lines, first %q; want 32, the first naming V5", len(lines), lines[0])
		}
	})
	t.Run("export pprof", func(t *testing.T) {
		p, _ := exportPprof(t, "--comm", "sched-pipe", "-i", pipeMulti)
		// The delay samples are sched-pipe's only: its Sum delay in
		// `latency --comm sched-pipe` (124633776 ns); switches 50.
		var delay, switches int64
		for _, s := range p.Sample {
			delay += s.Value[0]
			switches += s.Value[2]
		}
		if delay != 124633776 || switches != 50 {
			t.Errorf("delay %d ns, switches %d; want 124633776 and 50", delay, switches)
		}
	})
	t.Run("compare", func(t *testing.T) {
		out, stderr, code := runCLI(t, "compare", "-o", "json", "--comm", "sched-pipe", "--time", window, pipeMulti, pipeMulti)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var res struct {
			Rows []struct {
				Comm string         `json:"comm"`
				A    map[string]any `json:"a"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 || res.Rows[0].Comm != "sched-pipe" || res.Rows[0].A["delays"] != 32.0 {
			t.Errorf("rows %+v; want sched-pipe alone with 32 delays", res.Rows)
		}
	})
	t.Run("report", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "r.html")
		if _, stderr, code := runCLI(t, "report", "--comm", "sched-pipe", "-i", pipeMulti, "-o", path); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		html, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(html, []byte("sched-pipe")) || bytes.Contains(html, []byte("migration/0")) {
			t.Error("the report of --comm sched-pipe does not show sched-pipe alone")
		}
	})
}

// TestFilterNoMatchFirst: filters that match nothing are said first, with
// the trace's span, CPUs and closest names, by stats (before: an
// unfiltered-looking CPU table over empty histograms, in silence; and for a
// window without switches, "no sched_switch events in 5282 events read
// (record with 'perf sched record')"), by export and report (before: in
// silence) and by compare (before: counted as "1 other" in each trace's
// summary line).
func TestFilterNoMatchFirst(t *testing.T) {
	const span = "it spans 754.328751 s to 754.364705 s, sched_switch on CPUs 0-1"
	pipe := "../../testdata/traces/pipe.perf.data"
	_, stderr, code := runCLI(t, "stats", "--comm", "sched-pip", "-i", pipe)
	// Every command's words: the events and switches (5283 and 2023, as
	// latency counts them) too.
	want := "warning: nothing matched the filters --comm sched-pip: the trace has 5105 scheduler events, 2023 of them sched_switch; " + span + "; closest task names: sched-pipe\n"
	if code != 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("stats --comm: exit %d, stderr:\n%s\nwant it to start with %q", code, stderr, want)
	}
	// A window without switches: no table, the no-match message first, as
	// every command (it was the error, after the trace's warnings), and
	// exit 0 as latency, timehist and map (it was 1).
	stdout, stderr, code := runCLI(t, "stats", "--time", "1,2", "-i", pipe)
	want = "warning: nothing matched the filters --time 1.000000000,2.000000000: the trace has 5105 scheduler events, 2023 of them sched_switch; " + span + "\n"
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "nothing matched") != 1 || strings.Contains(stderr, "traceview: ") {
		t.Errorf("stats --time: exit %d, stdout %q, stderr:\n%s\nwant exit 0, no table, and stderr starting with %q and no error", code, stdout, stderr, want)
	}
	// With the reader's warnings (a .tv cut after its first block of 8192
	// events, 4949 of them sched_switch, as latency counts them): the
	// no-match line before them, in both formats.
	cut := cutCopy(t, "../../testdata/traces/timeout-spin.tv", "cut.tv", 60000)
	for _, format := range []string{"table", "json"} {
		_, stderr, code = runCLI(t, "stats", "-o", format, "--time", "1,2", "-i", cut)
		lines := strings.Split(stderr, "\n")
		want = "warning: nothing matched the filters --time 1.000000000,2.000000000: the trace has 7983 scheduler events, 4949 of them sched_switch; it spans 28464.812848 s to 28465.320485 s, sched_switch on CPUs 0-1"
		// (Then that its cgroup paths went with the trailer.)
		if code != 0 || len(lines) != 4 || lines[0] != want || !strings.Contains(lines[1], "file ends inside the frame") || !strings.Contains(lines[2], "cgroup paths") || lines[3] != "" {
			t.Errorf("stats -o %s --time, cut .tv: exit %d, stderr:\n%s", format, code, stderr)
		}
	}
	// export and report: the file holds nothing selected (before: no word).
	for _, args := range [][]string{{"export", "--format", "pprof"}, {"report"}} {
		path := filepath.Join(t.TempDir(), "out")
		_, stderr, code = runCLI(t, append(args, "--comm", "nosuch", "-i", pipe, "-o", path)...)
		want = "warning: nothing matched the filters --comm nosuch: the trace has 5105 scheduler events, 2023 of them sched_switch; " + span + "\n"
		if code != 0 || !strings.HasPrefix(stderr, want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant it to start with %q", args, code, stderr, want)
		}
		_, stderr, _ = runCLI(t, append(args, "--comm", "sched-pipe", "-i", pipe, "-o", path)...)
		if strings.Contains(stderr, "nothing matched") {
			t.Errorf("%v --comm sched-pipe: stderr:\n%s", args, stderr)
		}
	}
	// compare: one message first for both traces, saying which matched
	// nothing (it gave one per trace, each among that trace's warnings).
	_, stderr, code = runCLI(t, "compare", "--comm", "nosuch", pipe, pipe)
	want = "warning: nothing matched the filters --comm nosuch in either trace: in A, " + pipe + ", the trace has 5105 scheduler events, 2023 of them sched_switch; " + span +
		"; in B, " + pipe + ", the trace has 5105 scheduler events, 2023 of them sched_switch; " + span + "\n"
	if code != 0 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "nothing matched") != 1 || strings.Contains(stderr, "other") {
		t.Errorf("compare: exit %d, stderr:\n%s\nwant it to start with %q", code, stderr, want)
	}
	// sched-pipe is in pipe.perf.data, not in forkstart.perf.data: 2035
	// events, 623 sched_switch (its info), spanning its header's sample
	// times (forkstart.meta.txt: 2915.802387 to 2915.915976).
	fork := "../../testdata/traces/forkstart.perf.data"
	_, stderr, code = runCLI(t, "compare", "--comm", "sched-pipe", pipe, fork)
	want = "warning: nothing matched the filters --comm sched-pipe in B, " + fork + " (they did in A): the trace has 1626 scheduler events, 623 of them sched_switch; it spans 2915.802387 s to 2915.915976 s, sched_switch on CPUs 0-1"
	if code != 0 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "nothing matched") != 1 {
		t.Errorf("compare, B unmatched: exit %d, stderr:\n%s\nwant it to start with %q", code, stderr, want)
	}
}

// TestCommRenameHint: in nice.2cpu.perf.data three tasks ran as sh, exec'd
// nice and then hog; --comm matches the name at each event, so --comm nice
// keeps a few events of each (rows named hog, their latest name, with 5
// delays in all against 308 under hog) and stderr says so, with the
// switch-ins under the other names and the fix; --comm nice,hog keeps them
// (all but 4 switch-ins as sh) and gives no hint, nor do --comm hog (the
// most of each task) and sched-pipe in pipe.perf.data (one switch-in each
// as perf and sh); in messaging.2cpu.perf.data --comm sh keeps the shell's
// first switch-in and gets the hint.
func TestCommRenameHint(t *testing.T) {
	const nice = "../../testdata/traces/nice.2cpu.perf.data"
	total := func(stdout string) int64 {
		t.Helper()
		var doc struct {
			Total struct {
				Count int64 `json:"count"`
			} `json:"total"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return doc.Total.Count
	}
	stdout, stderr, code := runCLI(t, "latency", "-i", nice, "-p", "--comm", "nice", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "hint: --comm nice matched 3 tasks that also ran under other names (hog: 306 switch-ins, sh: 4 switch-ins): --comm keeps only the events under the names it gives; --comm nice,hog,sh keeps them whole (or --pid/--tid)"
	if !strings.Contains(stderr, want+"\n") {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if n := total(stdout); n != 5 {
		t.Errorf("--comm nice: %d delays, want 5", n)
	}
	stdout, stderr, code = runCLI(t, "latency", "-i", nice, "-p", "--comm", "nice,hog", "-o", "json")
	if want := "hint: --comm nice,hog left out 4 switch-ins of the 3 tasks it matched, under the other names they had (sh: 4 switch-ins): --comm nice,hog,sh keeps them whole (or --pid/--tid)"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--comm nice,hog: exit %d, stderr %s\nwant %s", code, stderr, want)
	}
	if n := total(stdout); n < 308 {
		t.Errorf("--comm nice,hog: %d delays, want the 308 under hog and more", n)
	}
	// Tasks that ran under other names only briefly (the hogs' 5 switch-ins
	// as nice and 4 as sh before they exec'd) get the short form: what was
	// left out (it said nothing: a thread renamed by prctl lost its first
	// delay silently).
	for _, c := range [][]string{
		{nice, "hog", "hint: --comm hog left out 9 switch-ins of the 3 tasks it matched, under the other names they had (nice: 5 switch-ins, sh: 4 switch-ins): --comm hog,nice,sh keeps them whole (or --pid/--tid)"},
		{"../../testdata/traces/pipe.perf.data", "sched-pipe", "hint: --comm sched-pipe left out 2 switch-ins of the 1 task it matched, under the other names they had (perf: 1 switch-in, sh: 1 switch-in): --comm sched-pipe,perf,sh keeps them whole (or --pid/--tid)"},
	} {
		if _, stderr, code := runCLI(t, "latency", "-i", c[0], "--comm", c[1]); code != 0 || !strings.Contains(stderr, c[2]+"\n") {
			t.Errorf("%s --comm %s: exit %d, stderr %s\nwant %s", c[0], c[1], code, stderr, c[2])
		}
	}
	// The rows are named after what --comm kept: the three sh -> nice -> hog
	// tasks' rows hold their events as nice (5 delays, 4.667 ms), and were
	// labelled hog, a name the filter excluded.
	rows, _ := filterLatencyJSON(t, "-i", nice, "-p", "--comm", "nice")
	var names []string
	for _, r := range rows {
		names = append(names, fmt.Sprint(r["comm"], ":", r["pid"]))
	}
	slices.Sort(names)
	if want := []string{"nice:13337", "nice:13338", "nice:13339"}; !slices.Equal(names, want) {
		t.Errorf("--comm nice -p: rows %v, want %v", names, want)
	}
	// The counts are of the --time window: from 687.3 to 687.45 s the three
	// tasks --comm nice matches were switched in twice as hog and 4 times as
	// sh (perf script --time 687.3,687.45: "==> hog:" twice; "==> sh:" 5
	// times, one of them sh:13335, the parent shell, not a nice task). It
	// said 306 and 4, the whole trace's, suggesting names that added
	// nothing to a window where the task never ran under them.
	_, stderr, _ = runCLI(t, "latency", "-i", nice, "--comm", "nice", "--time", "687.3,687.45")
	if want := "(hog: 2 switch-ins, sh: 4 switch-ins)"; !strings.Contains(stderr, want) {
		t.Errorf("--comm nice --time 687.3,687.45: stderr lacks %q:\n%s", want, stderr)
	}
	// The shell that perf bench forked ran 49 times as sched-messaging; the
	// one perf forked ran once as perf-exec before it exec'd sh.
	_, stderr, _ = runCLI(t, "latency", "-i", "../../testdata/traces/messaging.2cpu.perf.data", "--comm", "sh")
	if want := "hint: --comm sh matched 2 tasks that also ran under other names (perf-exec: 1 switch-in, sched-messaging: 49 switch-ins)"; !strings.Contains(stderr, want) {
		t.Errorf("--comm sh: stderr lacks %q:\n%s", want, stderr)
	}
}

// TestCommEscape: a thread may name itself "x;y,z" (prctl PR_SET_NAME),
// which --comm split at its comma into two names that match nothing, and
// the no-match hint suggested that same untypable name twice. `\,` now
// puts a comma inside a name, the hint names each task once as --comm
// takes it, and a name no one can type (a newline in it) comes with the
// --pid that selects it.
func TestCommEscape(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a,b", []string{"a", "b"}},
		{`x;y\,z`, []string{"x;y,z"}},
		{`a\\,b`, []string{`a\`, "b"}},
		{`a\b`, []string{`a\b`}},
		{`x\,`, []string{"x,"}},
	} {
		if got := splitCommList(c.in); !slices.Equal(got, c.want) {
			t.Errorf("splitCommList(%q) = %q, want %q", c.in, got, c.want)
		}
	}

	path := filepath.Join(t.TempDir(), "names.tv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tvf.NewWriter(f, tvf.Header{Tool: "test", NrCPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	at := int64(1e9)
	for i := range 3 {
		for _, task := range []struct {
			tid  trace.TID
			comm string
		}{{7223, "x;y,z"}, {7221, "a,b\nc"}} {
			in := trace.NewEvent(at, 0, trace.KindSwitch)
			in.TID, in.PID, in.Comm, in.NextTID, in.NextPID, in.NextComm = 0, 0, "swapper/0", task.tid, trace.PID(task.tid), task.comm
			out := trace.NewEvent(at+int64(1e6*(i+1)), 0, trace.KindSwitch)
			out.TID, out.PID, out.Comm, out.NextTID, out.NextPID, out.NextComm = task.tid, trace.PID(task.tid), task.comm, 0, 0, "swapper/0"
			for _, e := range []trace.Event{in, out} {
				if err := w.Write(e); err != nil {
					t.Fatal(err)
				}
			}
			at += int64(1e7)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	stdout, stderr, code := runCLI(t, "latency", "-i", path, "--comm", `x;y\,z`)
	if code != 0 || !strings.Contains(stdout, "x;y,z:7223") || strings.Contains(stdout, "7221") {
		t.Errorf(`--comm 'x;y\,z': exit %d, stdout:\n%s\nstderr:\n%s`, code, stdout, stderr)
	}
	_, stderr, _ = runCLI(t, "latency", "-i", path, "--comm", "x;y,z")
	if !strings.Contains(stderr, `nothing matched the filters --comm x;y,z:`) || !strings.Contains(stderr, `closest task names: 'x;y\,z'`) || strings.Count(stderr, `x;y\,z`) != 1 {
		t.Errorf("--comm 'x;y,z': stderr:\n%s\nwant the hint x;y\\,z once", stderr)
	}
	_, stderr, _ = runCLI(t, "latency", "-i", path, "--comm", "a,b")
	if !strings.Contains(stderr, `closest task names: 'a\,b\nc'`) {
		t.Errorf("--comm a,b: stderr:\n%s\nwant the name with a newline escaped as --comm takes it", stderr)
	}
	stdout, _, _ = runCLI(t, "latency", "-i", path, "--pid", "7221")
	if !strings.Contains(stdout, ":7221") {
		t.Errorf("--pid 7221: stdout:\n%s", stdout)
	}
	stdout, _, _ = runCLI(t, "latency", "--help")
	if !strings.Contains(stdout, `a comma inside a name is \,`) {
		t.Errorf("latency --help does not document the escape:\n%s", stdout)
	}
}

// TestLatencyFilterTaskCount: a merged row counts the tasks of its
// command that the filters keep something of, not every task of the trace
// with that name. In pipe-multi's window 1357.4157-1357.416 s (see
// pipeMulti) sched-messaging is the one task 7410, running through it on
// CPU 1, of the trace's many sched-messaging tasks; sched-pipe the two
// tasks 8526 and 8535.
func TestLatencyFilterTaskCount(t *testing.T) {
	rows, _ := filterLatencyJSON(t, "-i", pipeMulti, "--time", "1357.4157,1357.416")
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s:%s", r["comm"], jsonInt(r["nr_tasks"])))
	}
	if want := "sched-pipe:2 sched-messaging:1"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
	all, _ := filterLatencyJSON(t, "-i", pipeMulti, "--comm", "sched-messaging")
	if len(all) != 1 || jsonInt(all[0]["nr_tasks"]) == "1" {
		t.Errorf("the whole trace: rows %v; want one sched-messaging row of more than 1 task", all)
	}
}

// TestCgroupFlagCommas: a comma is legal in a cgroup's name; --cgroup
// takes it escaped as \, (as --comm does), and a part that is no path
// from the root is named in the error (new-user pass 15 F9: '/odd,grp x'
// was refused with "want cgroup v2 paths from the hierarchy's root").
func TestCgroupFlagCommas(t *testing.T) {
	f := &schedule.Filter{}
	if err := parseCgroups("latency", `/odd\,grp x,/b/`, nil, f); err != nil || !slices.Equal(f.CgroupNames, []string{"/odd,grp x", "/b"}) {
		t.Errorf(`--cgroup '/odd\,grp x,/b/': %v, %q; want ["/odd,grp x" "/b"]`, err, f.CgroupNames)
	}
	err := parseCgroups("latency", "/odd,grp x", nil, &schedule.Filter{})
	if err == nil || !strings.Contains(err.Error(), `"grp x" is not a path from the hierarchy's root`) || !strings.Contains(err.Error(), `a comma inside a name is \,`) {
		t.Errorf("--cgroup '/odd,grp x': %v", err)
	}
}
