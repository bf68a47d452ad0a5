package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestInfoLostInCutFile: info's lost count includes the events its
// warning says a cut .tv file lost, in text and JSON (it said "lost: 0
// events" above "6167 events lost"). stress-fork.2cpu.tv holds 12593
// events in two blocks, 8192 and 4401 (`info` of the whole file); cut at
// 80000 bytes, inside the second block's frame (offset 62523, 32663 bytes),
// none of its 4401 events is whole: 8192 read, 4401 lost in the file, none
// lost by the recorder, and the file may have gone on after the cut.
func TestInfoLostInCutFile(t *testing.T) {
	cut := cutStressFork(t)
	out, errs, code := runCLI(t, "info", "-i", cut)
	out = regexp.MustCompile(` +`).ReplaceAllString(out, " ")
	for _, want := range []string{
		"lost: 4401 events and more: 0 reported lost by the recorder, 4401 in the file's cut or damaged part, and an unknown number after the cut\n",
		// The block's 8192 events: 100 task records of time 0 (the
		// threads running when the recording started) and 8092 others.
		"events by kind (8092 in all, 5678 of them scheduler events)",
		"(and 100 task records of time 0 naming the threads already running when the recording started, not counted)",
		"(17449 of 32663 bytes: 15214 bytes missing; 4401 events lost)",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("info: exit %d (want 1), stderr %q, output lacks %q:\n%s", code, errs, want, out)
		}
	}
	out, _, _ = runCLI(t, "info", "-o", "json", "-i", cut)
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.LostTotal != 4401 || rep.LostRecorder != 0 || rep.LostInFile != 4401 || !rep.LostMore || rep.TotalEvents != 8092 || rep.Synthesized != 100 {
		t.Errorf("info -o json: lost_total %d, lost_recorder %d, lost_in_file %d, lost_more_unknown %v, %d events and %d task records of time 0; want 4401, 0, 4401, true, 8092 and 100",
			rep.LostTotal, rep.LostRecorder, rep.LostInFile, rep.LostMore, rep.TotalEvents, rep.Synthesized)
	}
	// The whole file: nothing lost, the line as before.
	out, _, _ = runCLI(t, "info", "-i", "../../testdata/traces/stress-fork.2cpu.tv")
	if !regexp.MustCompile(`\nlost: +0 events\n`).MatchString(out) {
		t.Errorf("info of the whole file:\n%s", out)
	}
}

// cutStressFork writes stress-fork.2cpu.tv cut at 80000 bytes, inside its
// second events block, to a temporary file and returns its path.
func cutStressFork(t *testing.T) string {
	t.Helper()
	return cutCopy(t, "../../testdata/traces/stress-fork.2cpu.tv", "cut.tv", 80000)
}

// overwrittenText writes, to a temporary file whose path it returns, an
// ftrace text whose header says 2 of 7 written entries are in the buffer
// (both in the file: two sched_switch lines): it lost 7-2 = 5 events its
// ring buffer overwrote (no CPU or time: Meta.LostUnplaced).
func overwrittenText(t *testing.T) string {
	t.Helper()
	const sw = "  a-5 [000] d..2. 100.00000%d: sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
	txt := filepath.Join(t.TempDir(), "ft.txt")
	if err := os.WriteFile(txt, []byte("# entries-in-buffer/entries-written: 2/7   #P:1\n"+fmt.Sprintf(sw, 1)+fmt.Sprintf(sw, 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	return txt
}

// TestConvertKeepsLostCounts: convert carries the source's losses that no
// lost event or window holds. overwrittenText lost 5 events (the
// converted copy's info said "lost: 0 events"). The cut
// stress-fork.2cpu.tv (cutStressFork) lost 4401 events in its cut block
// (Meta.LostInFile); converted, the copy says so too.
func TestConvertKeepsLostCounts(t *testing.T) {
	dir := t.TempDir()
	txt := overwrittenText(t)
	for _, c := range []struct {
		in               string
		recorder, inFile uint64
	}{{txt, 5, 0}, {cutStressFork(t), 0, 4401}} {
		src := infoJSON(t, c.in)
		out := filepath.Join(dir, "copy.tv")
		if _, errs, code := runCLI(t, "convert", c.in, "-o", out); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", c.in, code, errs)
		}
		cp := infoJSON(t, out)
		if src.LostRecorder != c.recorder || src.LostInFile != c.inFile {
			t.Errorf("%s: lost_recorder %d, lost_in_file %d; want %d, %d", c.in, src.LostRecorder, src.LostInFile, c.recorder, c.inFile)
		}
		if cp.LostTotal != src.LostTotal || cp.LostRecorder != src.LostRecorder || cp.LostInFile != src.LostInFile || len(cp.Lost) != len(src.Lost) {
			t.Errorf("%s converted: lost %d (recorder %d, in file %d, %d windows); the source's %d (%d, %d, %d windows)", c.in,
				cp.LostTotal, cp.LostRecorder, cp.LostInFile, len(cp.Lost), src.LostTotal, src.LostRecorder, src.LostInFile, len(src.Lost))
		}
	}
	// A damaged block (damagedTraces: a byte of pipe.tv's one block
	// flipped): the copy reports as many events lost in it as the source,
	// in events, not "times".
	flipped, _ := damagedTraces(t)
	src := infoJSON(t, flipped)
	cp := filepath.Join(dir, "flipped-copy.tv")
	runCLI(t, "convert", flipped, "-o", cp)
	if got := infoJSON(t, cp); src.LostInFile == 0 || got.LostInFile != src.LostInFile || got.LostTotal != src.LostTotal {
		t.Errorf("flipped: lost_in_file %d (lost %d) in the copy, %d (%d) in the source; want equal and not 0", got.LostInFile, got.LostTotal, src.LostInFile, src.LostTotal)
	}
	out, errs, _ := runCLI(t, "info", "-v", "-i", cp)
	errs = out + errs
	if want := fmt.Sprintf("events lost in damaged blocks (%d events in all)", src.LostInFile); !strings.Contains(errs, want) {
		t.Errorf("the copy's warnings lack %q:\n%s", want, errs)
	}
}

// infoJSON is info -o json of path (exit 1 for a damaged file).
func infoJSON(t *testing.T, path string) infoReport {
	t.Helper()
	out, errs, _ := runCLI(t, "info", "-o", "json", "-i", path)
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("info -o json -i %s: %v: %s", path, err, errs)
	}
	return rep
}

// TestInfoLostUnknownPerfData: a perf.data cut inside its data section
// loses records no reader can count: info's lost line says an unknown
// number, not "0 in the file's cut or damaged part" (new-user pass 34
// F2, beside 3.4 MB of records unread). emptyname.perf.data is 289,311
// bytes; cut at 200,000, inside its records.
func TestInfoLostUnknownPerfData(t *testing.T) {
	cut := cutCopy(t, "../../testdata/traces/emptyname.perf.data", "cut.perf.data", 200_000)
	out, _, code := runCLI(t, "info", "-i", cut)
	out = regexp.MustCompile(` +`).ReplaceAllString(out, " ")
	if code != 1 || !strings.Contains(out, "lost: 0 events and more: 0 reported lost by the recorder, an unknown number in the file's cut or damaged part (its reader cannot count them)") ||
		strings.Contains(out, "0 in the file's cut") {
		t.Errorf("info of a cut perf.data: exit %d (want 1):\n%s", code, out)
	}
}

// TestLostSummary: each form of info's lost line, by hand.
func TestLostSummary(t *testing.T) {
	for _, c := range []struct {
		r    infoReport
		want string
	}{
		{infoReport{LostTotal: 5, LostRecorder: 5}, "5 events"},
		{infoReport{LostTotal: 7, LostRecorder: 5, LostInFile: 2}, "7 events: 5 reported lost by the recorder and 2 in the file's damaged or missing blocks"},
		{infoReport{LostTotal: 4401, LostInFile: 4401, LostMore: true}, "4401 events and more: 0 reported lost by the recorder, 4401 in the file's cut or damaged part, and an unknown number after the cut"},
		{infoReport{LostMore: true}, "0 events and more: 0 reported lost by the recorder and an unknown number in the file's cut or damaged part (its reader cannot count them)"},
		{infoReport{LostTotal: 3, LostRecorder: 3, Lost: lostWindows{{Count: 3}, {}}}, "3 events and more: 3 reported lost by the recorder and an unknown number in 1 unobserved CPU window (the warnings below)"},
		// A cut .tv with a block in bytes skipped as damaged (new-user pass 91 F9).
		{infoReport{LostTotal: 8192, LostInFile: 8192, LostMore: true, LostSkipped: true}, "8192 events and more: 0 reported lost by the recorder, 8192 in the file's cut or damaged part, an unknown number after the cut, and an unknown number in event blocks skipped as damaged (the warnings below)"},
	} {
		if got := lostSummary(&c.r); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.r, got, c.want)
		}
	}
}

// TestTimePercentWholeTrace: --time 0%-100% is the whole trace and the
// halves add up to it: the run time a sched_stat_runtime carries from
// before the trace's first event is in the first half, as with no
// --time (new-user pass 34 F7: 0%-100% read 3.1 ms less). On
// nice.2cpu.perf.data: 4003.458 ms with no window and with 0%-100%,
// 2002.282 + 2001.176 = 4003.458 ms for 0%-50% and 50%-100% (before,
// 0%-100% read 4003.408).
func TestTimePercentWholeTrace(t *testing.T) {
	total := func(args ...string) string {
		out, stderr, code := runCLI(t, append([]string{"latency", "-i", "../../testdata/traces/nice.2cpu.perf.data"}, args...)...)
		m := regexp.MustCompile(`TOTAL: +\| +([0-9.]+) ms`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("latency %v: exit %d, %s\n%s", args, code, stderr, out)
		}
		return m[1]
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "4003.458"},
		{[]string{"--time", "0%-100%"}, "4003.458"},
		{[]string{"--time", "0%-50%"}, "2002.282"},
		{[]string{"--time", "50%-100%"}, "2001.176"},
	} {
		if got := total(c.args...); got != c.want {
			t.Errorf("latency %v: runtime total %s ms, want %s", c.args, got, c.want)
		}
	}
}

// TestSynthSpanAgrees: a synthetic trace's first switches are at time 0;
// info, stats and timehist -s take its span from them alike (new-user
// pass 37 F2: info and timehist read 2213.600 ms, from the first event
// after 0, stats 2217.600 ms). synth massive_intr on 2 CPUs: 0 to
// 2.2176 s.
func TestSynthSpanAgrees(t *testing.T) {
	syn := filepath.Join(t.TempDir(), "syn.tv")
	if _, stderr, code := runCLI(t, "synth", "massive_intr", "--cpus", "2", "-w", syn); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"info", "-i", syn}, "0.000000 s to 2.217600 s (2217.600 ms)"},
		{[]string{"stats", "-i", syn}, "Trace: 2217.600 ms (first to last scheduler event)"},
		{[]string{"timehist", "-s", "-i", syn}, "Total scheduling time (msec): 2217.600"},
	} {
		out, stderr, _ := runCLI(t, c.args...)
		if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(out, " "), c.want) {
			t.Errorf("%v: want %q in:\n%s\n%s", c.args, c.want, out, stderr)
		}
	}
}

// TestInfoDamagedField: a perf.data sample skipped for a damaged field
// (pipe.perf.data with 4 bytes at offset 124321 overwritten: the
// sched_switch at 124256 reads common_pid 857870821) makes info exit 1 and
// is counted lost in the file (new-user pass 40 F3: exit 0, "lost: 0
// events").
func TestInfoDamagedField(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	copy(b[124321:], "\x11\x22\x33\x44")
	f := filepath.Join(t.TempDir(), "f.perf.data")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "info", "-i", f)
	out = regexp.MustCompile(` +`).ReplaceAllString(out, " ")
	if code != 1 || !strings.Contains(out, "lost: 1 events: 0 reported lost by the recorder and 1 in the file's damaged or missing blocks") || !strings.Contains(out+stderr, "a damaged field; skipped") {
		t.Errorf("info: exit %d (want 1):\n%s\n%s", code, out, stderr)
	}
}

// TestStatsIdleWaitingLine: the idle-while-waiting line names its common
// cause first (tasks woken onto an idle CPU wait for it to leave idle;
// new-user pass 41 F2: the line named only a quota and missing
// switch-ins, on a trace with neither) and says when CPUs under its 1 %
// threshold are left out (F3). sched-idle.tv: CPU 1 326.567 ms of
// 3271.228 ms (9.98 %), CPU 0 0.737 ms (0.02 %, left out).
func TestStatsIdleWaitingLine(t *testing.T) {
	out, stderr, code := runCLI(t, "stats", "-i", "../../testdata/traces/sched-idle.tv")
	want := "Idle while tasks waited on its runqueue (tasks woken onto an idle CPU wait for it to leave idle, a task group out of CPU quota waits for its refill, or the trace lacks switch-ins; counted in Runqueue avg): CPU 1 326.567 ms (9.98 %), the other CPUs under 1 % (JSON idle_waiting_ns has them)\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("stats: exit %d, %s\n%s\nwant the line %q", code, stderr, out, want)
	}
}

// TestTextTimeBackwardsIsDamage: ftrace text lines whose time is before
// their CPU's previous event are dropped as damage (moved or repeated
// lines): the warning is printed in full and info exits 1 (new-user pass
// 54 F2: 100 such drops were one of "2 about event order", and info said
// the file was clean). 20 switches 1 ms apart on CPU 0 (5.001 to 5.020 s),
// lines 5-9 (5.005-5.009 s) moved after the last: each is before the
// CPU's previous event (5.020 s): 5 dropped.
func TestTextTimeBackwardsIsDamage(t *testing.T) {
	in := filepath.Join(t.TempDir(), "back.txt")
	var sw []string
	for i := 1; i <= 20; i++ {
		a, b := 1+i%2, 2-i%2
		sw = append(sw, fmt.Sprintf(" t-%d [000] d..2. 5.%06d: sched_switch: prev_comm=t prev_pid=%d prev_prio=120 prev_state=R ==> next_comm=t next_pid=%d next_prio=120\n", a, i*1000, a, b))
	}
	moved := append(append(slices.Clone(sw[:4]), sw[9:]...), sw[4:9]...)
	if err := os.WriteFile(in, []byte("# tracer: nop\n"+strings.Join(moved, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "latency", "-i", in)
	// (Each dropped line named: new-user pass 95 N4.)
	if code != 0 || !strings.Contains(errs, "warning: "+in+": line 17: CPU 0: time 5.005000 s is before that CPU's previous event at 5.020000 s (damaged or repeated lines): event dropped; line 18: ") ||
		!strings.Contains(errs, "; line 21: CPU 0: time 5.009000 s is before that CPU's previous event at 5.020000 s (damaged or repeated lines): event dropped\n") {
		t.Errorf("latency: exit %d, stderr:\n%s", code, errs)
	}
	if _, errs, code := runCLI(t, "info", "-i", in); code != 1 {
		t.Errorf("info: exit %d, want 1: %s", code, errs)
	}
}
