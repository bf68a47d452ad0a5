package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// TestSameMachineSameTime: two recordings of one machine over the same
// time (a perf record and a traceview record run together) are refused, as
// merged every task would count twice. All files are seriesEvents (tasks
// 10 and 20, 4 delays, 2600 µs, 1 to 6 ms) on host "box", kernel 6.18:
// a.tv as written, b.tv shifted 1.3 µs (another clock) without its last
// switch (so not a copy of a.tv, which is read once). a.tv + b.tv share
// both task ids: exit 2, naming both files. c.tv has the same schedule
// 0.7 µs later with tasks 30 and 40 (another machine of one image): merged, 8 delays,
// with a same-host-name warning. d.tv is b.tv on host "other": merged
// without one. --by trace shows a.tv and b.tv side by side.
func TestSameMachineSameTime(t *testing.T) {
	dir := t.TempDir()
	write := func(name, host string, evs []trace.Event, tids ...trace.TID) string {
		path := filepath.Join(dir, name)
		writeTV(t, path, tvf.Header{Hostname: host, OSRelease: "6.18", NrCPUs: 1, Tool: "traceview record (tp_btf)",
			Cmdline: []string{"traceview", "record", "-o", name}, Clock: "CLOCK_MONOTONIC"},
			evs, func(w *tvf.Writer) {
				w.AddTask(tids[0], trace.PID(tids[0]), "a")
				w.AddTask(tids[1], trace.PID(tids[1]), "b")
			}, nil)
		return path
	}
	evs := seriesEvents()
	a := write("a.tv", "box", evs, 10, 20)
	var shifted, other []trace.Event
	renum := map[trace.TID]trace.TID{0: 0, 10: 30, 20: 40}
	for _, e := range evs {
		s := e
		s.Time += 1300
		shifted = append(shifted, s)
		o := e
		o.Time += 700
		o.TID, o.NextTID, o.CurTID = renum[o.TID], renum[o.NextTID], renum[o.CurTID]
		o.PID, o.NextPID, o.CurPID = trace.PID(o.TID), trace.PID(o.NextTID), trace.PID(o.CurTID)
		other = append(other, o)
	}
	b := write("b.tv", "box", shifted[:len(shifted)-1], 10, 20)
	c := write("c.tv", "box", other, 30, 40)
	d := write("d.tv", "other", shifted[:len(shifted)-1], 10, 20)
	// e.tv: b.tv without a host name (as a perf.data cut before its
	// feature sections): one machine still, by time and task ids.
	e := write("e.tv", "", shifted[:len(shifted)-1], 10, 20)
	if _, stderr, code := runCLI(t, "latency", a, e); code != 2 || !strings.Contains(stderr, "e.tv record one machine (box, 6.18) over the same time") {
		t.Errorf("latency a.tv e.tv: exit %d, stderr %q; want 2 and one machine recorded twice", code, stderr)
	}

	_, stderr, code := runCLI(t, "latency", a, b)
	if code != 2 || !strings.Contains(stderr, "a.tv and ") || !strings.Contains(stderr, "b.tv record one machine (box, 6.18) over the same time") ||
		!strings.Contains(stderr, "100% of the smaller one's task ids") {
		t.Errorf("latency a.tv b.tv: exit %d, stderr %q; want 2 and one machine recorded twice", code, stderr)
	}
	if _, stderr, code := runCLI(t, "latency", "--by", "trace", a, b); code != 0 {
		t.Errorf("--by trace: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "latency", "-o", "json", a, c)
	if code != 0 || !strings.Contains(out, `"same-host-name"`) {
		t.Errorf("latency a.tv c.tv: exit %d, stderr %q; want 0 and a same-host-name warning", code, stderr)
	}
	if _, tot := parseLatencyJSON(t, out); tot["count"] != 8.0 {
		t.Errorf("a.tv + c.tv: %v delays, want 8 (4 each)", tot["count"])
	}
	out, stderr, code = runCLI(t, "latency", "-o", "json", a, d)
	if code != 0 || strings.Contains(out, `"same-host-name"`) {
		t.Errorf("latency a.tv d.tv: exit %d, stderr %q; want 0 and no warning", code, stderr)
	}
}
