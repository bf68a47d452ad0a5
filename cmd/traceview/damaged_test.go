package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// damagedTraces converts the repository's pipe.perf.data to traceview's
// format and returns two broken copies: one with a byte flipped in the
// middle (inside its single event block: checksum mismatch) and one cut in
// half (the file ends inside that block).
func damagedTraces(t *testing.T) (flipped, cut string) {
	t.Helper()
	dir := t.TempDir()
	tv := filepath.Join(dir, "pipe.tv")
	if _, stderr, code := runCLI(t, "convert", "../../testdata/traces/pipe.perf.data", "-o", tv); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(tv)
	if err != nil {
		t.Fatal(err)
	}
	cut = filepath.Join(dir, "cut.tv")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	flipped = filepath.Join(dir, "flipped.tv")
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return flipped, cut
}

// TestFailureShowsReaderWarnings: a command that fails after reading a
// damaged trace prints the reader's warnings (why nothing was read) before
// its one-line error, and nothing on stdout. Before the fix latency,
// timehist, map and stats printed only "no sched_switch events in 0 events
// read", and timehist printed its header on stdout first.
func TestFailureShowsReaderWarnings(t *testing.T) {
	flipped, cut := damagedTraces(t)
	for _, c := range []struct {
		file, warning string
	}{
		{flipped, "warning: " + flipped + ": event block at offset "},
		{cut, "warning: " + cut + ": file ends inside the frame at offset "},
	} {
		for _, cmd := range [][]string{{"latency"}, {"timehist"}, {"map"}, {"stats"},
			{"export", "--format", "perfetto", "-o", filepath.Join(t.TempDir(), "x.json")},
			{"replay", "--policy", "eevdf"}} {
			args := append(cmd, "-i", c.file)
			out, stderr, code := runCLI(t, args...)
			lines := strings.Split(stderr, "\n")
			last := lines[len(lines)-1]
			// (latency, stats and export say the file is cut or damaged
			// before any sched_switch, not only that none was read.)
			if code != 1 || out != "" || !strings.Contains(last, "no sched_switch") && !strings.Contains(last, "cut short or damaged before any sched_switch") {
				t.Errorf("%v: exit %d, stdout %q, last stderr line %q; want exit 1, no output, the no-sched_switch error", args, code, out, last)
			}
			if !strings.HasPrefix(stderr, c.warning) {
				t.Errorf("%v: stderr does not start with the reader's warning %q:\n%s", args, c.warning, stderr)
			}
		}
	}
}

// TestInfoDamagedExit: info on a damaged or truncated traceview file
// prints what it read with the reader's warnings and exits 1 (it exited 0
// although its --help promised non-zero).
func TestInfoDamagedExit(t *testing.T) {
	flipped, cut := damagedTraces(t)
	for _, f := range []string{flipped, cut} {
		out, stderr, code := runCLI(t, "info", "-i", f)
		want := "info: " + f + ": the trace is damaged or truncated (its warnings say where)"
		if code != 1 || stderr != want {
			t.Errorf("info %s: exit %d, stderr %q; want 1, %q", f, code, stderr, want)
		}
		if !strings.Contains(out, "events by kind (0 in all, 0 of them scheduler events)") || !strings.Contains(out, "warning: "+f+": ") {
			t.Errorf("info %s: output lacks the counts or the warnings:\n%s", f, out)
		}
	}
	// An intact file still exits 0.
	if _, stderr, code := runCLI(t, "info", "-i", "../../testdata/traces/pipe.perf.data"); code != 0 {
		t.Errorf("info on an intact trace: exit %d: %s", code, stderr)
	}
}

// TestStatsSampleCPUOutOfRange: stats on a perf.data with one sample's CPU
// field flipped to 254 (the machine has 2) shows the 2 CPUs and warns of
// the skipped sample; before the fix it showed a phantom all-zero CPU 254
// row ("3 CPUs with events").
func TestStatsSampleCPUOutOfRange(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	off := int(le.Uint64(b[40:]))
	end := off + int(le.Uint64(b[48:]))
	for n := 0; off+8 <= end; off += int(le.Uint16(b[off+6:])) {
		const recSample, recTracingData = 9, 66
		if typ := le.Uint32(b[off:]); typ == recTracingData {
			off += int(le.Uint32(b[off+8:])+7) &^ 7
		} else if typ == recSample {
			if n++; n == 100 {
				le.PutUint32(b[off+40:], 254) // sample_type IP|TID|TIME|CPU|...: CPU at byte 40
				break
			}
		}
	}
	path := filepath.Join(t.TempDir(), "cpu254.perf.data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "stats", "-i", path)
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, ", 2 CPUs with events,") {
		t.Errorf("stats: want 2 CPUs with events:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "254" {
			t.Errorf("stats: a CPU 254 row: %q", line)
		}
	}
	if !strings.Contains(stderr, "warning: "+path+": record of type 9 at offset "+strconv.Itoa(off)+" on CPU 254, but the recording's machine has 2 CPUs") {
		t.Errorf("stats: no warning of the skipped sample at offset %d:\n%s", off, stderr)
	}
}

// TestCutTVCgroupWarning: a traceview file cut short loses its trailer,
// which holds the cgroup table, so its tasks' cgroup ids have no path; the
// warning said "perf.data: no PERF_RECORD_CGROUP for them" of a .tv file.
// grpq.q25.perf.data converted, less its last 200 bytes: the switches name
// 3 cgroup ids (/, /tv-svc, /tv-batch), none of them with a path but the
// root's (cgroup v2's id 1, trace.RootCgroupID).
func TestCutTVCgroupWarning(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "g.tv")
	if _, errOut, code := runCLI(t, "convert", grpqQ25, "-o", whole); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.tv")
	if err := os.WriteFile(cut, b[:len(b)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "latency", "-v", "-i", cut)
	if code != 0 || !strings.Contains(errOut, "warning: "+cut+": file ends inside the frame") ||
		!strings.Contains(errOut, "warning: "+cut+": 2 cgroup ids of the tasks' switches have no path in the trace (traceview format: the file's cgroup table does not name them; a file cut short has none but the root's)") ||
		strings.Contains(errOut, "PERF_RECORD_CGROUP") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	if _, errOut, _ := runCLI(t, "latency", "-v", "-i", whole); strings.Contains(errOut, "have no path") {
		t.Errorf("the whole file: %s", errOut)
	}
}

// TestCutTraceDatRuntime: a trace.dat cut inside CPU 1's data (the v7
// pipe-multi file at 200000 bytes: CPU 0 whole, CPU 1 up to a chunk)
// leaves CPU 1 unobserved from its last event to the trace's last, so the
// cut file's run time is at most the whole file's (the task CPU 1 last
// switched in was charged to the end: a cut of 230 bytes of the shared
// messaging trace.dat gave 397.7 ms against the whole file's 390.0 ms).
func TestCutTraceDatRuntime(t *testing.T) {
	const whole = "../../testdata/traces/pipe-multi.v7zstd.dat"
	cut := cutCopy(t, whole, "cut.dat", 200000)
	type lost struct {
		CPU   int    `json:"cpu"`
		Count uint64 `json:"count"`
	}
	total := func(path string) (int64, []lost) {
		out, errs, code := runCLI(t, "latency", "-o", "json", "-i", path)
		var doc struct {
			Total struct {
				Runtime int64 `json:"runtime_ns"`
			} `json:"total"`
			Lost []lost `json:"lost"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("%s: exit %d, stderr:\n%s", path, code, errs)
		}
		return doc.Total.Runtime, doc.Lost
	}
	w, _ := total(whole)
	c, l := total(cut)
	if c <= 0 || c > w || len(l) != 1 || l[0] != (lost{1, 0}) {
		t.Errorf("run time %d ns cut, %d ns whole, lost windows %+v; want at most the whole file's, and CPU 1 unobserved (count 0)", c, w, l)
	}
}

// TestTVCutBeforeFirstSwitch: a .tv cut inside its first event block (at
// 5000 bytes of timeout-spin.tv, whose first block ends past 50000) has
// no event to read: the error says the file is cut or damaged before any
// sched_switch, after the reader's warning, not "record with 'perf sched
// record'" (the recorder was not at fault).
func TestTVCutBeforeFirstSwitch(t *testing.T) {
	cut := cutCopy(t, "../../testdata/traces/timeout-spin.tv", "cut.tv", 5000)
	_, errs, code := runCLI(t, "latency", "-i", cut)
	want := "latency: " + cut + ": the file is cut short or damaged before any sched_switch event could be read (0 events read; the warning above says where)"
	if code != 1 || !strings.HasSuffix(errs, want) || !strings.Contains(errs, "file ends inside the frame") || strings.Contains(errs, "perf sched record") {
		t.Errorf("exit %d, stderr:\n%s\nwant it to end with %q", code, errs, want)
	}
}

// TestTimeAheadDropsSaid: per-process.data with bit 21 of one
// sched_switch's time flipped (offset 99442, in the time of the record at
// 99416: bit 21 was set, so the time went back 2.1 ms, below the CPU's
// previous record's): that event is dropped. That is data the file held and
// the trace lacks: said in full, first, and counted lost in the file, so
// info says so and fails (new-user pass 20 F3: 61 events dropped behind
// "1 about event order", info "lost: 0 events", exit 0).
func TestTimeAheadDropsSaid(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/per-process.data")
	if err != nil {
		t.Fatal(err)
	}
	in := damagedCopy(t, b, "ahead.data", func(b []byte) { b[99442] ^= 0x20 })
	_, stderr, _ := runCLI(t, "latency", "-i", in)
	if first, _, _ := strings.Cut(stderr, "\n"); first != "warning: "+in+": CPU 0: event at 687.552734525 s is earlier than the CPU's previous record (687.554828242 s): damaged or repeated data, dropped" {
		t.Errorf("first warning %q", first)
	}
	out, stderr, code := runCLI(t, "info", "-i", in)
	if code == 0 || !strings.Contains(out, "1 in the file's damaged or missing blocks") || !strings.Contains(stderr, "damaged or truncated") {
		t.Errorf("info: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestTimeAheadDropsOnlyIt: per-process.data with bit 19 of the time of
// the sched_switch at offset 99544 flipped (byte 99570, mask 0x08: the bit
// was clear, so 687.554839423 s became 687.555363711 s, 0.52 ms ahead of
// the CPU's next sample at 687.554845524 s). The reader dropped the 92
// good samples after it, until the CPU's times passed it (new-user pass
// 20 F3, left in part); the scan ahead now finds the one stamped later
// than both its neighbours and drops it alone: one warning naming it,
// info "lost: 1 events" and 1428 of the file's 1429 sched_switch samples
// read.
func TestTimeAheadDropsOnlyIt(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/per-process.data")
	if err != nil {
		t.Fatal(err)
	}
	in := damagedCopy(t, b, "ahead.data", func(b []byte) { b[99570] ^= 0x08 })
	_, stderr, _ := runCLI(t, "latency", "-i", in)
	if first, _, _ := strings.Cut(stderr, "\n"); first != "warning: "+in+": CPU 0: sample at offset 99544 is stamped 687.555363711 s, later than the CPU's next sample (687.554845524 s) and its previous: a damaged time, dropped" {
		t.Errorf("first warning %q", first)
	}
	out, stderr, code := runCLI(t, "info", "-i", in)
	if code == 0 || !strings.Contains(out, "lost:               1 events") || !regexp.MustCompile(`(?m)^  sched_switch +1428$`).MatchString(out) || !strings.Contains(stderr, "damaged or truncated") {
		t.Errorf("info: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestDamagedRuntimeDropped: fork-cpu1.perf.data with the top byte of one
// sched_stat_runtime's runtime field damaged (byte 91275, the last of the
// u64 at 91268 in the RAW payload of the sample for pid 26949 at
// 59410.417293780 s, runtime 994719 ns): bit 62 set makes it 4.6e18 ns,
// bit 63 a negative run time. Either is dropped and said in full, as a
// damaged time is (new-user pass 25 F4: 6.5e12 ms of run time in a 3 s
// trace, no warning): the total run time is the whole file's 220499677 ns
// less that event's 994719 ns, 219504958 ns, and info counts 1 event lost
// in the file and fails.
func TestDamagedRuntimeDropped(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/fork-cpu1.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mask byte
		says string
	}{
		{0x40, "reports 4611686018.428 s of run time, more than the 0.162 s since the trace's first event plus 1 s"},
		{0x80, "reports a negative run time (-9223372036853.781 ms)"},
	} {
		in := damagedCopy(t, b, "rt.data", func(b []byte) { b[91275] ^= c.mask })
		out, stderr, code := runCLI(t, "latency", "-o", "json", "-i", in)
		var doc struct {
			Total struct {
				Runtime int64 `json:"runtime_ns"`
			} `json:"total"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Total.Runtime != 219504958 {
			t.Errorf("mask %#x: exit %d, total run time %d ns, want 219504958; stderr:\n%s", c.mask, code, doc.Total.Runtime, stderr)
		}
		want := "warning: " + in + ": CPU 1: sched_stat_runtime at 59410.417293780 s for pid 26949 " + c.says + ": a damaged value, dropped"
		_, stderr, _ = runCLI(t, "latency", "-i", in)
		if first, _, _ := strings.Cut(stderr, "\n"); first != want {
			t.Errorf("first warning %q\nwant %q", first, want)
		}
		out, stderr, code = runCLI(t, "info", "-i", in)
		if code == 0 || !strings.Contains(out, "lost:               1 events") || !strings.Contains(stderr, "damaged or truncated") {
			t.Errorf("info: exit %d\n%s\n%s", code, out, stderr)
		}
	}
}

// TestViewCutHeadsUp: timehist and map print the reader's warnings after
// their rows (they stream them); an input known cut short at open (a
// file-mode perf.data whose data section runs past its end) gets one line
// before the rows that says so (new-user pass 78 F3: the first word of
// the cut on line 625 of 628). An intact file gets none.
func TestViewCutHeadsUp(t *testing.T) {
	cut := cutCopy(t, "../../testdata/traces/nice.2cpu.perf.data", "cut.data", 150000)
	for _, view := range []string{"timehist", "map"} {
		_, errOut, code := runCLI(t, view, "-i", cut)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", view, code, errOut)
		}
		first, _, _ := strings.Cut(errOut, "\n")
		if !strings.Contains(first, "the input is cut short or damaged: "+view+"'s rows stop or skip where it is") {
			t.Errorf("%s: first stderr line %q", view, first)
		}
		_, errOut, _ = runCLI(t, view, "-i", "../../testdata/traces/nice.2cpu.perf.data")
		if strings.Contains(errOut, "the input is cut short or damaged") {
			t.Errorf("%s of the intact file: %s", view, errOut)
		}
	}
}

// TestReadFailedNamesPositionalInput (new-user pass 120 F2): a perf.data
// cut before its first sched_switch, given as latency's argument (not
// -i), fails; the reader's warnings before the error name that file, not
// "perf.data" (the -i flag's default).
func TestReadFailedNamesPositionalInput(t *testing.T) {
	data, err := os.ReadFile("../../testdata/traces/pipe.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.perf.data")
	if err := os.WriteFile(cut, data[:6000], 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "latency", cut)
	first := strings.SplitN(stderr, "\n", 2)[0]
	if code == 0 || !strings.HasPrefix(first, "warning: "+cut+": ") || strings.Contains(stderr, "warning: perf.data:") {
		t.Errorf("exit %d, stderr:\n%s\nwant its warnings to name %s", code, stderr, cut)
	}
}
