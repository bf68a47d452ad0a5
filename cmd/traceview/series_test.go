package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// seriesEvents is a 1-CPU schedule of a (10) and b (20), times in µs:
// a runs 1000-2000 and wakes b at 1500; b runs 2000-3000 and wakes a at
// 2200; a runs 3000-4000 and wakes b at 3100; b runs 4000-5000, wakes a
// at 4600; a runs 5000-6000. Delays: b 1500-2000 (500), a 2200-3000
// (800), b 3100-4000 (900), a 4600-5000 (400): 4 delays, 2600 µs.
func seriesEvents() []trace.Event {
	const us = 1000
	sw := func(t int64, prev, next trace.TID) trace.Event {
		e := trace.NewEvent(t*us, 0, trace.KindSwitch)
		e.TID, e.PID, e.Comm, e.Prio, e.PrevState = prev, trace.PID(prev), map[trace.TID]string{0: "swapper", 10: "a", 20: "b"}[prev], 120, trace.StateInterruptible
		e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), map[trace.TID]string{0: "swapper", 10: "a", 20: "b"}[next], 120
		if prev == 0 {
			e.PrevState = trace.StateRunning
		}
		return e
	}
	wk := func(t int64, waker, wakee trace.TID) trace.Event {
		e := trace.NewEvent(t*us, 0, trace.KindWaking)
		e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = wakee, trace.PID(wakee), map[trace.TID]string{10: "a", 20: "b"}[wakee], 120, 0
		e.CurTID, e.CurPID = waker, trace.PID(waker)
		return e
	}
	return []trace.Event{sw(1000, 0, 10), wk(1500, 10, 20), sw(2000, 10, 20), wk(2200, 20, 10), sw(3000, 20, 10),
		wk(3100, 10, 20), sw(4000, 10, 20), wk(4600, 20, 10), sw(5000, 20, 10), sw(6000, 10, 0)}
}

// writeSeriesPart writes evs as one file of a traceview recording with
// tool and returns its path.
func writeSeriesPart(t *testing.T, dir, name, tool string, evs []trace.Event) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeTV(t, path, tvf.Header{Hostname: "box", NrCPUs: 1, Tool: tool, Cmdline: []string{"traceview", "record"}, Clock: "CLOCK_MONOTONIC"},
		evs, func(w *tvf.Writer) {
			w.AddTask(10, 10, "a")
			w.AddTask(20, 20, "b")
		}, nil)
	return path
}

// writeTV writes evs to a traceview-format file at path with header h;
// before, when not nil, names tasks (AddTask), after, when not nil, sets
// what the trailer holds (SetCgroups, ...).
func writeTV(t *testing.T, path string, h tvf.Header, evs []trace.Event, before, after func(w *tvf.Writer)) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tvf.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(w)
	}
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if after != nil {
		after(w)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLatencySeriesOneCapture: the files of a record --rotate series are
// read as the one capture they are. seriesEvents cut after the wakeup at
// 2200 µs (files x.001.tv, x.002.tv): the delay 2200-3000 µs of a crosses
// the cut, and read apart it was lost (a seen first being switched in at
// 3000). Read as a series, the table is the whole trace's: 4 delays, 2600
// µs, the same as the uncut file's.
func TestLatencySeriesOneCapture(t *testing.T) {
	dir := t.TempDir()
	evs := seriesEvents()
	whole := writeSeriesPart(t, dir, "whole.tv", "traceview record (tp_btf)", evs)
	p1 := writeSeriesPart(t, dir, "x.001.tv", "traceview record (tp_btf)", evs[:4])
	p2 := writeSeriesPart(t, dir, "x.002.tv", "traceview record (tp_btf)", evs[4:])
	_, w := filterLatencyJSON(t, "-i", whole)
	_, s := filterLatencyJSON(t, p2, p1) // any order: by time
	for _, k := range []string{"count", "sum_delay_ns", "max_delay_ns", "runtime_ns", "switches"} {
		if fmt.Sprint(w[k]) != fmt.Sprint(s[k]) {
			t.Errorf("%s: series %v, the uncut file %v", k, s[k], w[k])
		}
	}
	if w["count"] != 4.0 || w["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("the uncut file: %v delays, %v ns; want 4 and 2600000 (by hand)", w["count"], w["sum_delay_ns"])
	}
	// --by trace keeps each file its own table: the delay across the cut
	// is in neither.
	doc := cliJSON[latencyGroupsJSON](t, "latency", "-o", "json", "--by", "trace", p1, p2)
	n := 0
	for _, g := range doc.Groups {
		n += int(g.Total.Count)
	}
	if n != 3 {
		t.Errorf("--by trace: %d delays in the two tables, want 3 (b 1500-2000, b 3100-4000, a 4600-5000)", n)
	}
	// A third, empty file (a recorder killed with SIGKILL leaves its last
	// file at 0 bytes) is left out with a warning: the series still reads
	// as the whole trace (it failed with "empty input": new-user pass 15
	// F6).
	p3 := filepath.Join(dir, "x.003.tv")
	if err := os.WriteFile(p3, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, e := filterLatencyJSON(t, p1, p2, p3); e["count"] != 4.0 || e["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("with an empty third file: %v delays, %v ns; want 4 and 2600000", e["count"], e["sum_delay_ns"])
	}
	if _, errs, code := runCLI(t, "latency", p1, p2, p3); code != 0 || !strings.Contains(errs, "x.003.tv is empty (0 bytes), left out of the series") {
		t.Errorf("with an empty third file: exit %d, stderr\n%s", code, errs)
	}
}

// TestLatencyRingDumps: two dumps of one flight-recorder ring (record
// --ring) that overlap hold the events of the overlap twice; read as one
// recording they count once: dumps of 1000-3000 µs and 2000-6000 µs give
// the whole trace's 4 delays and 2600 µs (added up apart: 2 + 3). Dumps
// with a gap between them (1000-2200 and 4000-6000 µs, nothing recorded
// from 2200 to 4000) measure no delay across it: b 1500-2000 and a
// 4600-5000, 2 delays, 900 µs, and a warning names the gap.
func TestLatencyRingDumps(t *testing.T) {
	dir := t.TempDir()
	evs := seriesEvents()
	const tool = "traceview record (tp_btf) --ring"
	d1 := writeSeriesPart(t, dir, "r.001.tv", tool, evs[:5]) // 1000-3000
	d2 := writeSeriesPart(t, dir, "r.002.tv", tool, evs[2:]) // 2000-6000
	_, s := filterLatencyJSON(t, d1, d2)
	if s["count"] != 4.0 || s["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("overlapping dumps: %v delays, %v ns; want 4 and 2600000", s["count"], s["sum_delay_ns"])
	}
	// Overlapping by one event (the waking at 2200 µs), the later dump
	// going on at 3000 µs: a's delay 2200-3000 crosses the join and counts
	// (a lost marker at the join made it lossy: 3 delays, 1800 µs, less
	// than the later dump alone).
	o1 := writeSeriesPart(t, dir, "o.001.tv", tool, evs[:4]) // 1000-2200
	o2 := writeSeriesPart(t, dir, "o.002.tv", tool, evs[3:]) // 2200-6000
	if _, s = filterLatencyJSON(t, o1, o2); s["count"] != 4.0 || s["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("dumps overlapping by one event: %v delays, %v ns; want 4 and 2600000", s["count"], s["sum_delay_ns"])
	}
	g1 := writeSeriesPart(t, dir, "g.001.tv", tool, evs[:4]) // 1000-2200
	g2 := writeSeriesPart(t, dir, "g.002.tv", tool, evs[6:]) // 4000-6000
	_, s = filterLatencyJSON(t, g1, g2)
	if s["count"] != 2.0 || s["sum_delay_ns"] != 900_000.0 {
		t.Errorf("dumps with a gap: %v delays, %v ns; want 2 and 900000", s["count"], s["sum_delay_ns"])
	}
	_, errs, _ := runCLI(t, "latency", "-v", g1, g2)
	if want := "nothing was recorded for 1.800 ms before its first event"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
}

// TestTimehistOpenRunNamed: the summary's note on a run still going when
// the trace ended (b switched in at 2 ms, the trace's last event, a's
// wakeup, at 500 ms: 498 ms, over 1 % of the span) is a warning of the
// trace, named with its file and first, as the answer's scope, not an
// unnamed line after them.
func TestTimehistOpenRunNamed(t *testing.T) {
	evs := seriesEvents()
	late := evs[3] // a woken by b
	late.Time = 500_000_000
	path := writeSeriesPart(t, t.TempDir(), "open.tv", "test", []trace.Event{evs[0], evs[1], evs[2], late})
	_, errs, code := runCLI(t, "timehist", "-S", "-i", path)
	want := "warning: " + path + ": 1 task was still running when the trace ended: its last run is not in the summary's run times (a run counts at its switch-out, as perf counts it): b[20] on CPU 0 since 0.002000 s, 498.000 ms\n"
	if code != 0 || !strings.HasPrefix(errs, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant it to start with\n%s", code, errs, want)
	}
}

// ringTwoCPUs is a schedule of a (10) on CPU 0 and b (20) on CPU 1, times
// in µs. CPU 0: a runs 1000-2000, is woken at 2500, runs 3000-4000.
// CPU 1: b runs 1200-3500, is woken at 3600, runs 3900-5000. Whole: a
// runs 2000 µs and b 3400 µs (5400 µs); delays a 2500-3000 (500) and b
// 3600-3900 (300): 2 delays, 800 µs.
func ringTwoCPUs() (cpu0, cpu1 []trace.Event) {
	const us = 1000
	name := map[trace.TID]string{0: "swapper", 10: "a", 20: "b"}
	sw := func(t int64, cpu trace.CPU, prev, next trace.TID) trace.Event {
		e := trace.NewEvent(t*us, cpu, trace.KindSwitch)
		e.TID, e.PID, e.Comm, e.Prio, e.PrevState = prev, trace.PID(prev), name[prev], 120, trace.StateInterruptible
		e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), name[next], 120
		if prev == 0 {
			e.PrevState = trace.StateRunning
		}
		return e
	}
	wk := func(t int64, cpu trace.CPU, wakee trace.TID) trace.Event {
		e := trace.NewEvent(t*us, cpu, trace.KindWaking)
		e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = wakee, trace.PID(wakee), name[wakee], 120, cpu
		return e
	}
	cpu0 = []trace.Event{sw(1000, 0, 0, 10), sw(2000, 0, 10, 0), wk(2500, 0, 10), sw(3000, 0, 0, 10), sw(4000, 0, 10, 0)}
	cpu1 = []trace.Event{sw(1200, 1, 0, 20), sw(3500, 1, 20, 0), wk(3600, 1, 20), sw(3900, 1, 0, 20), sw(5000, 1, 20, 0)}
	return cpu0, cpu1
}

// TestLatencyRingDumpsPerCPU: two ring dumps whose coverage starts at a
// different time on each CPU (ringTwoCPUs). Dump 1 holds CPU 0 up to
// 2500 µs and CPU 1 up to 3500 µs; dump 2 holds CPU 0 from 2000 µs and
// CPU 1 from 3500 µs: both CPUs continuous across the join, nothing lost.
// Read as one recording, the table is the whole schedule's: 5400 µs run,
// 2 delays, 800 µs. (It was less than dump 2's alone: a's switch-in at
// 3000 µs on CPU 0, after dump 1's last event there but before its last
// event, was dropped, and a lost window invented at the join.) Dump 2
// alone: a runs 3000-4000 and b 3900-5000 (2100 µs; the runs that end at
// 2000 and 3500 µs began before it), the same 2 delays; the merged figures
// are at least these.
func TestLatencyRingDumpsPerCPU(t *testing.T) {
	dir := t.TempDir()
	cpu0, cpu1 := ringTwoCPUs()
	byTime := func(evs ...trace.Event) []trace.Event {
		slices.SortStableFunc(evs, func(a, b trace.Event) int { return cmp.Compare(a.Time, b.Time) })
		return evs
	}
	h := tvf.Header{Hostname: "box", NrCPUs: 2, Tool: "traceview record (tp_btf) --ring", Cmdline: []string{"traceview", "record", "--ring", "1s"}, Clock: "CLOCK_MONOTONIC"}
	names := func(w *tvf.Writer) { w.AddTask(10, 10, "a"); w.AddTask(20, 20, "b") }
	d1, d2 := filepath.Join(dir, "fr.001.tv"), filepath.Join(dir, "fr.002.tv")
	writeTV(t, d1, h, byTime(append(slices.Clone(cpu0[:3]), cpu1[:2]...)...), names, nil) // CPU 0 1000-2500, CPU 1 1200-3500
	writeTV(t, d2, h, byTime(append(slices.Clone(cpu0[1:]), cpu1[1:]...)...), names, nil) // CPU 0 2000-4000, CPU 1 3500-5000
	_, one := filterLatencyJSON(t, "-i", d2)
	if one["runtime_ns"] != 2_100_000.0 || one["count"] != 2.0 || one["sum_delay_ns"] != 800_000.0 {
		t.Errorf("dump 2 alone: %v ns run, %v delays, %v ns; want 2100000, 2 and 800000 (by hand)", one["runtime_ns"], one["count"], one["sum_delay_ns"])
	}
	_, m := filterLatencyJSON(t, d1, d2)
	if m["runtime_ns"] != 5_400_000.0 || m["count"] != 2.0 || m["sum_delay_ns"] != 800_000.0 {
		t.Errorf("merged: %v ns run, %v delays, %v ns; want 5400000, 2 and 800000 (by hand)", m["runtime_ns"], m["count"], m["sum_delay_ns"])
	}
	for _, k := range []string{"runtime_ns", "switches", "count"} {
		if m[k].(float64) < one[k].(float64) {
			t.Errorf("%s: merged %v < dump 2's alone %v", k, m[k], one[k])
		}
	}
	_, errs, _ := runCLI(t, "latency", "-v", d1, d2)
	if strings.Contains(errs, "lost") || strings.Contains(errs, "unobserved") {
		t.Errorf("a lost window where both CPUs are continuous:\n%s", errs)
	}
}

// TestLatencySeriesWithOtherTrace: a series given with another trace is
// still read as one capture (new-user pass 64 F3: read file by file, the
// delay across the cut lost): the delays of x.001.tv + x.002.tv +
// pipe.perf.data are the uncut series' 4 (TestLatencySeriesOneCapture)
// plus pipe.perf.data's own.
func TestLatencySeriesWithOtherTrace(t *testing.T) {
	dir := t.TempDir()
	evs := seriesEvents()
	p1 := writeSeriesPart(t, dir, "x.001.tv", "traceview record (tp_btf)", evs[:4])
	p2 := writeSeriesPart(t, dir, "x.002.tv", "traceview record (tp_btf)", evs[4:])
	const other = "../../testdata/traces/pipe.perf.data"
	_, o := filterLatencyJSON(t, "-i", other)
	_, s := filterLatencyJSON(t, p1, p2)
	_, all := filterLatencyJSON(t, p1, other, p2)
	if s["count"] != 4.0 || all["count"] != o["count"].(float64)+4 || all["sum_delay_ns"] != o["sum_delay_ns"].(float64)+2_600_000 {
		t.Errorf("series + other: %v delays, %v ns; want %v + 4, %v + 2600000", all["count"], all["sum_delay_ns"], o["count"], o["sum_delay_ns"])
	}
}

// TestLatencySeriesCompressed: a gzip-compressed series is read as one
// capture, as the plain one (new-user pass 64 F2: each file read apart, the
// delay across the cut lost: 14792.775 ms where the series has 14795.429):
// the uncut series' 4 delays and 2600 µs (TestLatencySeriesOneCapture).
func TestLatencySeriesCompressed(t *testing.T) {
	dir := t.TempDir()
	evs := seriesEvents()
	var gz []string
	for i, part := range [][]trace.Event{evs[:4], evs[4:]} {
		p := writeSeriesPart(t, dir, fmt.Sprintf("x.%03d.tv", i+1), "traceview record (tp_btf)", part)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		gz = append(gz, p+".gz")
		if err := os.WriteFile(p+".gz", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, s := filterLatencyJSON(t, gz[1], gz[0])
	if s["count"] != 4.0 || s["sum_delay_ns"] != 2_600_000.0 {
		t.Errorf("compressed series: %v delays, %v ns; want 4 and 2600000", s["count"], s["sum_delay_ns"])
	}
}
