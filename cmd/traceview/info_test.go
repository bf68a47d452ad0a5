package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfdata"
	"github.com/traceview/traceview/trace/tvf"
)

// The expected values come from perf 6.12.95 on the same files:
// `perf report --header-only` (host, kernel, perf version, CPUs) and
// `perf report --stats` (samples per event; sched-compressed.meta.txt).
func TestInfoText(t *testing.T) {
	out, errs, code := runCLI(t, "info", "-i", "../../testdata/traces/sched-compressed.data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Column widths follow the longest key: compare with spaces squeezed.
	squeeze := regexp.MustCompile(` +`)
	out = squeeze.ReplaceAllString(out, " ")
	for _, want := range []string{
		"format: perf.data (file mode, little-endian)\n",
		"host: vm\n",
		"kernel: 6.18.44-fc-v782 x86_64\n",
		"recorder: perf 6.12.95\n",
		"CPUs: 2 online, 2 available\n",
		"lost: 0 events\n",
		" sched:sched_switch 419\n",
		" sched:sched_waking 222\n",
		" sched:sched_stat_runtime 473\n",
		" sched_switch 419\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// An ftrace latency-format capture (trace/textfmt's test pair) names its
// kernel in its header, with no architecture: the kernel line has no
// trailing space, and the CPU count comes from its "#P:2".
func TestInfoLatencyFormatHeader(t *testing.T) {
	out, errs, code := runCLI(t, "info", "-i", "../../trace/textfmt/testdata/latpair-lat.txt.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out = regexp.MustCompile(`: +`).ReplaceAllString(out, ": ")
	for _, want := range []string{"\nkernel: 6.18.44-fc-v1272\n", "\nCPUs: 2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A recording with perf's cache description shows its last-level caches.
func TestInfoLLCs(t *testing.T) {
	out, errs, code := runCLI(t, "info", "-i", "../../testdata/traces/nice.2cpu.perf.data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := regexp.MustCompile(`(?m)^last-level caches: +CPUs 0-1 \(replay --topology trace\)$`); !want.MatchString(out) {
		t.Errorf("output lacks the last-level caches line:\n%s", out)
	}
}

// The pipe-mode stream's samples per event equal the lines perf script
// printed for each event.
func TestInfoJSONPipe(t *testing.T) {
	path := "../../testdata/traces/sched-pipe-mode.data"
	out, errs, code := runCLI(t, "info", "-i", path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(strings.TrimSuffix(path, ".data") + ".script.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]uint64{}
	ev := regexp.MustCompile(`\]\s+\d+\.\d+:\s+(\S+):`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := ev.FindStringSubmatch(sc.Text()); m != nil {
			want[m[1]]++
		}
	}
	for name, n := range want {
		if rep.Samples[name] != n {
			t.Errorf("%s: %d samples, perf script shows %d", name, rep.Samples[name], n)
		}
	}
	if rep.Mode != "pipe" || rep.Tool != "perf 6.12.95" || rep.Events["sched_switch"] != want["sched:sched_switch"] {
		t.Errorf("mode %q tool %q switches %d", rep.Mode, rep.Tool, rep.Events["sched_switch"])
	}
}

func TestInfoBadInput(t *testing.T) {
	// No sched tracepoints: the facts, a warning, exit 0.
	out, _, code := runCLI(t, "info", "-i", "../../testdata/traces/nosched-cpu-clock.data")
	if code != 0 || !regexp.MustCompile(`\n +cpu-clock +17\n`).MatchString(out) || !strings.Contains(out, "warning: ../../testdata/traces/nosched-cpu-clock.data: no sched tracepoints recorded") || strings.Contains(out, "perf.data:") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// Truncated mid-record: what was read, with a truncation warning, then
	// the error and exit 1, as its --help says (it exited 0).
	b, err := os.ReadFile("../../testdata/traces/sched-pipe-mode.data")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.data")
	if err := os.WriteFile(cut, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "info", "-i", cut)
	if want := "info: " + cut + ": the trace is damaged or truncated (its warnings say where)"; code != 1 || errs != want || !strings.Contains(out, "warning: "+cut+": the input ends inside a record (record of type 9 at offset 99684: 36 of 128 bytes)") || !strings.Contains(out, "events by kind") {
		t.Errorf("exit %d, error %q, output:\n%s", code, errs, out)
	}
	if _, _, code := runCLI(t, "info", "-o", "xml", "-i", cut); code != 2 {
		t.Errorf("bad -o: exit %d, want 2", code)
	}
}

// A gzip-compressed perf.data is described like the plain file (the
// decompressor passes the reader's trace.Describer on): its mode and byte
// order, and samples per recorded event summing to the 18654 that perf
// record printed when it wrote the file (pipe-multi.meta.txt).
func TestInfoCompressedDescribed(t *testing.T) {
	out, errs, code := runCLI(t, "info", "-o", "json", "-i", "../../testdata/traces/pipe-multi.perf.data.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, n := range rep.Samples {
		sum += n
	}
	if rep.Mode != "file" || rep.ByteOrder != "little-endian" || len(rep.EventNames) != 7 || sum != 18654 {
		t.Errorf("mode %q, byte order %q, %d recorded events, %d samples; want file, little-endian, 7, 18654",
			rep.Mode, rep.ByteOrder, len(rep.EventNames), sum)
	}
}

// writeGroupTrace writes a small traceview file with the autogroup sysctl
// on, settings of two groups (one changed during the trace), an autogroup,
// a settings record that contradicts itself and two cpu.stat readings.
func writeGroupTrace(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := tvf.NewWriter(f, tvf.Header{Tool: "test", NrCPUs: 2, Autogroup: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		e := trace.NewEvent(int64(1e9+i*1e8), 0, trace.KindSwitch)
		e.TID, e.PID, e.Comm, e.NextTID, e.NextPID, e.NextComm = 10, 10, "hog", 0, 0, "swapper/0"
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	w.SetCgroupSettings([]trace.CgroupSettings{
		{Path: "/tv-a", Weight: 50, Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000},
		{Path: "/tv-b", Weight: 300, QuotaNS: -1, PeriodNS: 100_000_000, BurstNS: 5_000_000},
		{Path: "/autogroup-24", Weight: 100},
		{Path: "/bad", QuotaNS: 20_000_000}, // a quota without a period
		{Path: "/tv-a", Time: 1_250_000_000, Weight: 50, Shares: 512, QuotaNS: 50_000_000, PeriodNS: 100_000_000},
	})
	w.SetCgroupStats([]trace.CgroupStat{
		{Path: "/tv-a", Time: 990_000_000, NrPeriods: 3, NrThrottled: 1, ThrottledNS: 80_000_000},
		{Path: "/tv-a", Time: 1_310_000_000, NrPeriods: 6, NrThrottled: 3, ThrottledNS: 230_500_000},
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInfoCgroupSettings: info shows the autogroup sysctl, the task
// groups' settings (with when a change was read), their cpu.stat
// difference over the trace and a counted warning for the settings that
// contradict themselves; -o json has them all; convert keeps them.
func TestInfoCgroupSettings(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.tv")
	writeGroupTrace(t, in)
	out, errs, code := runCLI(t, "info", "-i", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	squeeze := regexp.MustCompile(` +`)
	text := squeeze.ReplaceAllString(out, " ")
	for _, want := range []string{
		"autogroup: on (kernel.sched_autogroup_enabled)\n",
		"\ntask groups (cpu controller):\n group read weight shares quota/period burst nice\n",
		" /tv-a start 50 512 20ms/100ms - -\n",
		" /tv-b start 300 - max/100ms 5ms -\n",
		" /autogroup-24 start 100 - - - 0\n",
		" /tv-a 1.250000 s 50 512 50ms/100ms - -\n",
		// throttled time sums the CPUs' (a quota.tv capture of 2101 ms
		// said 2930.1ms with nothing to say it can exceed the span).
		"\ncfs bandwidth over the trace (kernel cpu.stat: last minus first reading where they bracket the trace, else the one reading of a group made during it; throttled time sums each CPU's, so it can exceed the trace's span):\n",
		" group periods throttled throttled time bursts\n /tv-a 3 2 150.5ms 0\n",
		"warning: " + in + ": cgroup settings /bad: quota 20000000 ns without a period: left out",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(text, "/bad ") {
		t.Errorf("the contradictory settings are shown:\n%s", out)
	}

	// convert keeps the settings; -o json has them.
	conv := filepath.Join(dir, "c.tv")
	if _, errs, code := runCLI(t, "convert", in, "-o", conv); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	for _, file := range []string{in, conv} {
		out, errs, code = runCLI(t, "info", "-i", file, "-o", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", file, code, errs)
		}
		var rep struct {
			Autogroup      int8                   `json:"autogroup"`
			CgroupSettings []trace.CgroupSettings `json:"cgroup_settings"`
			CgroupStats    []trace.CgroupStat     `json:"cgroup_stats"`
			Throttling     []trace.CgroupStat     `json:"cgroup_throttling"`
			Warnings       []trace.Warning        `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		if rep.Autogroup != 1 || len(rep.CgroupSettings) != 4 || len(rep.CgroupStats) != 2 {
			t.Errorf("%s: autogroup %d, %d settings, %d readings; want 1, 4, 2", file, rep.Autogroup, len(rep.CgroupSettings), len(rep.CgroupStats))
		}
		want := trace.CgroupStat{Path: "/tv-a", Time: 1_310_000_000, NrPeriods: 3, NrThrottled: 2, ThrottledNS: 150_500_000}
		if len(rep.Throttling) != 1 || rep.Throttling[0] != want {
			t.Errorf("%s: throttling %+v, want [%+v]", file, rep.Throttling, want)
		}
		if n := countWarning(rep.Warnings, "bad-cgroup-settings"); n != 1 {
			t.Errorf("%s: %d bad-cgroup-settings warnings, want 1: %v", file, n, rep.Warnings)
		}
	}
}

func countWarning(ws []trace.Warning, key string) int {
	for _, w := range ws {
		if w.Key == key {
			return w.Count
		}
	}
	return 0
}

// TestTruncatedPerfData: nice.2cpu.perf.data cut inside its data section
// (`head -c 100000`; perf cannot read it) gives info and latency the
// records before the cut with a warning of the 140896 bytes missing,
// instead of stopping at "data section ... past the end of the file":
// info prints the 885 events it read (and exits 1, as for any truncated
// file), latency the rows of the 2 hog tasks that ran before the cut. The
// tracepoint formats (a feature section, gone with the end) come from the
// recording kernel's tracefs copy. The cut falls in a round that holds CPU
// 0's buffer only: CPU 1, last seen at 687.429452 s, is unobserved from
// there to the end (perfdata's TestCutRound): a window of unknown loss,
// on the lost line, named in its warning, and not counted as an event.
func TestTruncatedPerfData(t *testing.T) {
	old := perfdata.LocalTracefs
	perfdata.LocalTracefs = []string{"../../testdata/traces/killed-record.tracefs"}
	defer func() { perfdata.LocalTracefs = old }()
	cut := cutCopy(t, "../../testdata/traces/nice.2cpu.perf.data", "cut.data", 100000)
	const warn = "warning: perf.data: the file ends 98776 bytes into its 239672-byte data section at offset 1224: 140896 bytes of records are missing"
	out, errs, code := runCLI(t, "info", "-i", cut)
	if code != 1 || !strings.Contains(out, strings.Replace(warn, "perf.data", cut, 1)) || !strings.Contains(out, "events by kind (739 in all, 731 of them scheduler events)") || regexp.MustCompile(`\n +lost +1\n`).MatchString(out) ||
		!strings.Contains(out, "and an unknown number in 1 unobserved CPU window (the warnings below)") || !strings.Contains(out, "warning: "+cut+": CPU 1 unobserved between 687.429452 s") || !regexp.MustCompile(`\n +sched_switch +153\n`).MatchString(out) {
		t.Errorf("info: exit %d, error %q, output:\n%s", code, errs, out)
	}
	out, errs, code = runCLI(t, "latency", "-i", cut, "-o", "json")
	if code != 0 {
		t.Fatalf("latency: exit %d, stderr:\n%s", code, errs)
	}
	var doc report.LatencyJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// The JSON's warnings name the file as the text's do (they said
	// "perf.data: the file ends ..." of cut.data): latency's, info's and
	// compare's.
	named := strings.Replace(warn, "perf.data", cut, 1)
	found := false
	for _, w := range doc.Warnings {
		found = found || (w.Key == "truncated-file" && w.Count == 1 && strings.Contains("warning: "+w.Message, named))
	}
	if !found {
		t.Errorf("latency -o json: warnings %+v lack %q", doc.Warnings, named)
	}
	js, _, _ := runCLI(t, "info", "-i", cut, "-o", "json")
	var rep infoReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	found = false
	for _, w := range rep.Warnings {
		found = found || (w.Key == "truncated-file" && strings.Contains("warning: "+w.Message, named))
	}
	if !found || strings.Contains(js, "perf.data: ") {
		t.Errorf("info -o json: warnings %+v lack %q, or say \"perf.data: \"", rep.Warnings, named)
	}
	js, _, _ = runCLI(t, "compare", "-o", "json", cut, "../../testdata/traces/nice.2cpu.perf.data")
	if !strings.Contains(js, strings.TrimPrefix(named, "warning: ")) || strings.Contains(js, "perf.data: ") {
		t.Errorf("compare -o json: no %q, or \"perf.data: \":\n%s", named, js)
	}
	// The hogs' 137 delays are all lossy, none counted: CPU 1 is
	// unobserved from 687.429452 s (the reader says so where the window
	// starts), and a hog waiting on CPU 0 may have been pulled to CPU 1
	// and run there meanwhile (they do move in the whole file). Before,
	// 135 were counted (2 queued on CPU 1 itself lossy), and before that
	// 137.
	var hog *report.LatencyJSONRow
	for i := range doc.Tasks {
		if doc.Tasks[i].Comm == "hog" {
			hog = &doc.Tasks[i]
		}
	}
	if hog == nil || hog.NrTasks != 2 || hog.Count != 0 || hog.Switches != 138 || hog.LossyDelays == nil || *hog.LossyDelays != 137 {
		t.Errorf("latency: rows %+v, want hog, 2 tasks, 0 delays counted, 137 lossy, 138 switches", doc.Tasks)
	}
	// The table says the file is cut, in full and first, without -v:
	// before, one summary line said only "2 about damaged input".
	_, errs, code = runCLI(t, "latency", "-i", cut)
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	// Each names the file given (they said "perf.data: the file ends ...").
	// The 148 delays left out, more than the 2 kept, are the answer to
	// "why is Count 0": in full too (new-user pass 23 F5: 1463 of 1465
	// behind "7 more warnings").
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], strings.Replace(warn, "perf.data", cut, 1)) ||
		!strings.HasPrefix(lines[1], "warning: "+cut+": the input ends inside a record (record of type ") ||
		!strings.Contains(lines[1], "the trace holds CPU 0 but not CPU 1 (seen before)") ||
		lines[2] != "warning: "+cut+": 148 scheduling delays overlapped lost events on some CPU, or followed a sleep that met them, and are not in the table (--keep-lossy measures them as if nothing were lost; JSON lossy_delays per row): more than the table keeps (2)" ||
		lines[3] != "warning: "+cut+": CPU 1 unobserved between 687.429452 s and 688.496691 s (events lost there, number unknown)" ||
		lines[4] != "warning: "+cut+": 3 more warnings: 1 about missing switches, 1 about missing wakeups, 1 about event formats; -v for detail" {
		t.Errorf("latency: exit %d, stderr:\n%s\nwant the two truncation warnings, the delays left out and CPU 1's unobserved window in full, then a summary of 3 more", code, errs)
	}
}

// TestInfoLostWindowsLine: info states a trace's lost windows in one line
// of the events lost in all (before: one line per window, 309 lines after
// the counts for a perf.data that lost 76 % of its records); -v lists each.
func TestInfoLostWindowsLine(t *testing.T) {
	rep := &infoReport{Format: "perf.data", Events: map[string]uint64{}, FirstEvent: -1, LostTotal: 130,
		Lost: []trace.LostWindow{{CPU: 0, Count: 100, Start: 1e9, End: 2e9}, {CPU: 1, Count: 30, Start: 3e9, End: 4e9}}}
	// (verbose is a package variable: the last runCLI's -v set it.)
	defer func(v bool) { verbose = v }(verbose)
	verbose = false
	var b strings.Builder
	printInfo(&b, rep)
	const line = "warning: 130 events lost in 2 windows (records the kernel could not queue: the recorder's buffers were full); -v lists each window\n"
	if got := b.String(); !strings.HasSuffix(got, "\n\n"+line) || strings.Contains(got, "events lost on CPU") {
		t.Errorf("info:\n%s\nwant it to end with %q", got, line)
	}
	verbose = true
	b.Reset()
	printInfo(&b, rep)
	if got := b.String(); !strings.HasSuffix(got, "warning: 100 events lost on CPU 0 between 1.000000 s and 2.000000 s\nwarning: 30 events lost on CPU 1 between 3.000000 s and 4.000000 s\n") {
		t.Errorf("info -v:\n%s", got)
	}
}

// TestInfoPartialCPUs: info says when the capture covered only some of the
// machine's CPUs, in text and JSON (recorded_cpus), and says nothing of it
// on a system-wide capture. sched-compressed.data was recorded with perf
// record -C 0 on a 2-CPU machine (its COMM/FORK/EXIT records on CPU 1 do
// not count as CPU 1's events); cpu1.tv with traceview record --cpu 1
// -d 300ms (the header's recorded_cpus), whose sched_migrate_task events
// emitted on CPU 0 (tasks moved off CPU 1) make CPU 0 a CPU with events.
func TestInfoPartialCPUs(t *testing.T) {
	for _, tc := range []struct {
		file     string
		cpus     []int // cpus_with_events
		recorded []int
		partial  bool
	}{
		{"sched-compressed.data", []int{0}, []int{0}, true},
		{"cpu1.tv", []int{0, 1}, []int{1}, true},
		{"pipe.perf.data", []int{0, 1}, nil, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := "../../testdata/traces/" + tc.file
			out, errs, code := runCLI(t, "info", "-i", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			out = regexp.MustCompile(` +`).ReplaceAllString(out, " ")
			line := "CPUs recorded: 1 of the machine's 2 (CPU 0): the capture covered only these"
			if len(tc.recorded) > 0 {
				line = fmt.Sprintf("CPUs recorded: 1 of the machine's 2 (CPU %d): the capture covered only these", tc.recorded[0])
			}
			if got := strings.Contains(out, line); got != tc.partial {
				t.Errorf("text has %q: %v, want %v:\n%s", line, got, tc.partial, out)
			}
			if !tc.partial && strings.Contains(out, "CPUs recorded") || strings.Contains(out, "CPUs with events") {
				t.Errorf("a CPUs-recorded line on a system-wide capture, or a CPUs-with-events line beside the recorded ones:\n%s", out)
			}
			js, errs, code := runCLI(t, "info", "-i", path, "-o", "json")
			if code != 0 {
				t.Fatalf("json: exit %d: %s", code, errs)
			}
			var rep struct {
				CPUs     []int `json:"cpus_with_events"`
				Recorded []int `json:"recorded_cpus"`
				Partial  bool  `json:"partial_cpus"`
			}
			if err := json.Unmarshal([]byte(js), &rep); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.CPUs, tc.cpus) || !slices.Equal(rep.Recorded, tc.recorded) || rep.Partial != tc.partial {
				t.Errorf("json cpus_with_events %v recorded_cpus %v partial_cpus %v, want %v %v %v", rep.CPUs, rep.Recorded, rep.Partial, tc.cpus, tc.recorded, tc.partial)
			}
		})
	}
}

// A .tv cut short has no trailer, so the reader takes the trace's span
// from the events it read: info must show that span as the events read,
// not as samples from the header (it printed "samples (header)" with the
// events' times). timeout-spin.tv is a traceview record file: its header
// has no times, its trailer has its events'. Its first 60000 bytes hold
// the first event block whole (8192 events); those events' first and last
// nonzero times, from reading the complete file with tvf.Reader, are
// 28464812848027 and 28465320485366 ns (507.637 ms apart).
func TestInfoCutTVSpan(t *testing.T) {
	const full = "../../testdata/traces/timeout-spin.tv"
	cut := cutCopy(t, full, "cut.tv", 60000)
	out, _, code := runCLI(t, "info", "-i", cut)
	if code != 1 || strings.Contains(out, "samples (header)") || strings.Contains(out, "(trailer)") ||
		!regexp.MustCompile(`\nevents \(read\): +28464\.812848 s to 28465\.320485 s \(507\.637 ms\)\n`).MatchString(out) {
		t.Errorf("cut: exit %d, output:\n%s", code, out)
	}
	js, _, _ := runCLI(t, "info", "-i", cut, "-o", "json")
	var rep infoReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.FirstSample != 0 || rep.LastSample != 0 || rep.SampleSpanFrom != "" || rep.FirstEvent != 28464812848027 || rep.LastEvent != 28465320485366 {
		t.Errorf("cut, json: samples %d to %d (%q), events %d to %d", rep.FirstSample, rep.LastSample, rep.SampleSpanFrom, rep.FirstEvent, rep.LastEvent)
	}
	// The complete file: the span its trailer states, said to be the
	// trailer's (the events' too: 1141.601 ms, as the events read).
	out, _, code = runCLI(t, "info", "-i", full)
	if code != 0 || strings.Contains(out, "samples (header)") ||
		!regexp.MustCompile(`\nevents \(trailer\): +28464\.812848 s to 28465\.954449 s \(1141\.601 ms\)\n`).MatchString(out) {
		t.Errorf("complete: exit %d, output:\n%s", code, out)
	}
	// A perf.data states its sample times in its header
	// (HEADER_SAMPLE_TIME): forkstart.meta.txt, `perf report
	// --header-only`, says "time of first sample : 2915.802387" and
	// "time of last sample : 2915.915976".
	out, _, _ = runCLI(t, "info", "-i", "../../testdata/traces/forkstart.perf.data")
	if !regexp.MustCompile(`\nsamples \(header\): +2915\.802387 s to 2915\.915976 s \(113\.589 ms\)\n`).MatchString(out) {
		t.Errorf("perf.data: no header span:\n%s", out)
	}
}

// TestInfoCPUsWithoutAvailable: a trace.dat says how many CPUs traced, not
// how many the machine had: info prints "CPUs: 2" (it said "2 online, 0
// available").
func TestInfoCPUsWithoutAvailable(t *testing.T) {
	out, errs, code := runCLI(t, "info", "-i", "../../testdata/traces/pipe-multi.v7zstd.dat")
	if code != 0 || !regexp.MustCompile(`(?m)^CPUs: +2$`).MatchString(out) || strings.Contains(out, "available") {
		t.Errorf("exit %d, stderr %s, output:\n%s", code, errs, out)
	}
}

// TestInfoJSONLostKeys: info -o json gives its lost windows latency's keys
// with units (it gave Go's field names: CPU, Count, Start, End).
func TestInfoJSONLostKeys(t *testing.T) {
	b, err := json.Marshal(&infoReport{Lost: []trace.LostWindow{{CPU: 1, Count: 3, Start: 10, End: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"lost":[{"cpu":1,"count":3,"start_ns":10,"end_ns":20}]`; !strings.Contains(string(b), want) {
		t.Errorf("%s\nwant %s", b, want)
	}
}

// TestInfoCommandLineQuoted: info prints the recorded command line one
// shell word per argument, so it can be pasted back (it printed `bash -c
// for i in $(seq 3); do true; done`, its quotes lost).
func TestInfoCommandLineQuoted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.tv")
	writeTV(t, path, tvf.Header{Tool: "test", NrCPUs: 1, Cmdline: []string{"traceview", "record", "--", "bash", "-c", "for i in $(seq 3); do true; done"}}, nil, nil, nil)
	out, _, _ := runCLI(t, "info", "-i", path)
	if want := "traceview record -- bash -c 'for i in $(seq 3); do true; done'\n"; !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant the command line %q", out, want)
	}
}

// TestInfoPolicies: info counts tasks by the policy their sched_switches
// recorded last (an eBPF capture's; a perf.data has none, and then there
// is no policies line). Task 1 is seen under SCHED_OTHER and then
// SCHED_IDLE (the last wins), task 2 SCHED_BATCH as next, task 3 with no
// policy: "1 batch, 1 idle".
func TestInfoPolicies(t *testing.T) {
	sw := func(ms int64, prev, next trace.TID, p, np trace.SchedPolicy) trace.Event {
		e := trace.NewEvent(1_000_000_000+ms*1_000_000, 0, trace.KindSwitch)
		e.TID, e.NextTID, e.Policy, e.NextPolicy = prev, next, p, np
		return e
	}
	evs := []trace.Event{
		sw(1, 1, 2, trace.PolicyNormal, trace.PolicyBatch),
		sw(2, 2, 1, trace.PolicyUnknown, trace.PolicyIdle),
		sw(3, 1, 3, trace.PolicyIdle, trace.PolicyUnknown),
	}
	rep, err := collectInfo(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := policySummary(rep.Policies), "1 batch, 1 idle (tasks, by the policy the capture recorded last)"; got != want {
		t.Errorf("policies %q, want %q", got, want)
	}
	for i := range evs {
		evs[i].Policy, evs[i].NextPolicy = trace.PolicyUnknown, trace.PolicyUnknown
	}
	if rep, _ = collectInfo(trace.NewSliceSource(evs, nil)); rep.Policies != nil {
		t.Errorf("no recorded policy: Policies %v, want none", rep.Policies)
	}
}

// TestRecordCPUMigrationsNoChain: the migrations a record --cpu 1 capture
// keeps from CPU 0 (cpu1.tv: 28 sched_migrate_task, some emitted on CPU 0,
// which records no sched_switch) say nothing of what ran on CPU 0: latency
// warns of no broken switch chain there ("CPU 0: 6 of 0 sched_switch
// events ..." before) and counts no unrecorded switch-in from them (3
// before; the CPU 1 chain of this file is whole).
func TestRecordCPUMigrationsNoChain(t *testing.T) {
	out, stderr, code := runCLI(t, "latency", "-v", "-o", "json", "-i", "../../testdata/traces/cpu1.tv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "CPU 0: ") && strings.Contains(stderr, "sched_switch events switched out") {
		t.Errorf("a switch-chain warning for CPU 0, which the capture left out:\n%s", stderr)
	}
	var rep struct {
		Tasks []struct {
			Unrecorded int64 `json:"unrecorded_switches"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, r := range rep.Tasks {
		n += r.Unrecorded
	}
	if n != 0 {
		t.Errorf("%d unrecorded switch-ins, want 0", n)
	}
}

// TestInfoPerfettoProcessTree: info on a Perfetto export says what its
// records of time 0 are: its process tree, which lists every thread of the
// trace (forked ones too), not only those running when the recording
// started (noticed after pass 57: renamed-threads.tv holds 142 such
// records; its export's tree, 307 read as "already running").
func TestInfoPerfettoProcessTree(t *testing.T) {
	const src = "../../testdata/traces/renamed-threads.tv"
	pf := exportPerfettoCLI(t, src)
	type rep struct {
		Synth uint64 `json:"synthesized_task_records"`
	}
	a, b := cliJSON[rep](t, "info", "-o", "json", "-i", src), cliJSON[rep](t, "info", "-o", "json", "-i", pf)
	if a.Synth != 142 || b.Synth <= a.Synth {
		t.Fatalf("synthesized task records: source %d (want 142), export %d (want more: forked threads too)", a.Synth, b.Synth)
	}
	out, _, _ := runCLI(t, "info", "-i", pf)
	want := fmt.Sprintf("(and %d task records of time 0 naming the threads of the trace's process tree (which may list threads forked later too), not counted)", b.Synth)
	if !strings.Contains(out, want) {
		t.Errorf("info on the export lacks %q:\n%s", want, out)
	}
	if out, _, _ := runCLI(t, "info", "-i", src); !strings.Contains(out, "(and 142 task records of time 0 naming the threads already running when the recording started, not counted)") {
		t.Errorf("info on the source:\n%s", out)
	}
}

// TestInfoAppendedPerfData: a perf.data with another appended (cat
// nice.2cpu.perf.data pipe.perf.data) is read as the first, and info says
// the rest was not read: its lost line, the warning in full, exit 1 (new-
// user pass 60 F1: "lost: 0 events", exit 0, 71 % of the file unread).
// trace/perfdata's TestTrailingBytes has the warning's figures.
func TestInfoAppendedPerfData(t *testing.T) {
	var b []byte
	for _, f := range []string{"nice.2cpu.perf.data", "pipe.perf.data"} {
		d, err := os.ReadFile("../../testdata/traces/" + f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, d...)
	}
	in := filepath.Join(t.TempDir(), "cat.perf.data")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "info", "-i", in)
	if code != 1 || !strings.Contains(out, "lost:               0 events and more: 0 reported lost by the recorder and an unknown number in the bytes after the trace, not read (the warnings below)") ||
		!strings.Contains(out+errs, "621609 bytes follow the file's last section (it ends at offset 255921 of 877530): another perf.data") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	_, errs, code = runCLI(t, "latency", "-i", in)
	if code != 0 || !strings.Contains(errs, "warning: "+in+": 621609 bytes follow the file's last section") {
		t.Errorf("latency: exit %d: %s", code, errs)
	}
}

// TestCutZstdFirstBlock: a zstd file cut inside its first block (nothing
// decompresses) is said to be cut short, not an empty recording, and named
// once (new-user pass 64 F7: "c.zst: c.zst (zstd): empty input (0 bytes: a
// recording killed before it wrote anything ...)" of a 60000-byte file).
func TestCutZstdFirstBlock(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	z := enc.EncodeAll(b, nil)
	in := filepath.Join(t.TempDir(), "c.zst")
	if err := os.WriteFile(in, z[:len(z)/4], 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "info", "-i", in)
	want := in + " (zstd): the compressed stream is cut short inside its first block"
	if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "empty input") || strings.Count(errs, in) != 1 {
		t.Errorf("exit %d, stderr %q; want %q, once", code, errs, want)
	}
}
