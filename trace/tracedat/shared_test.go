package tracedat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/textfmt"
)

// readAll opens path with this package and drains it.
func readAll(t testing.TB, path string) ([]trace.Event, *trace.Meta) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Open(f, Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: after %d events: %v", path, len(evs), err)
	}
	return evs, r.Meta()
}

// readText reads a trace-cmd report text with package textfmt.
func readText(t testing.TB, path string) []trace.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(textfmt.NewReader(bytes.NewReader(data), textfmt.FormatTraceCmd))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return evs
}

// withoutComm drops the saved-cmdline comm events delivered first.
func withoutComm(evs []trace.Event) []trace.Event {
	out := evs[:0:0]
	for _, e := range evs {
		if e.Kind != trace.KindComm {
			out = append(out, e)
		}
	}
	return out
}

// pluginView is what trace-cmd report's sched plugin prints of an event:
// times rounded to the microsecond (trace-cmd prints (ns+500)/1000) and
// the preemption bit of prev_state dropped (the plugin prints "R" for both).
func pluginView(e trace.Event) trace.Event {
	e.Time = (e.Time + 500) / 1000 * 1000
	e.PrevState &^= trace.StatePreempted
	e.FromIRQ = trace.Unknown
	e.CurPID, e.PID, e.NextPID, e.ChildPID = -1, -1, -1, -1
	return e
}

// compareWithReport checks every decoded event against the same line of
// trace-cmd's own report of the file.
func compareWithReport(t *testing.T, dat, report string) {
	evs, meta := readAll(t, dat)
	want := withoutComm(readText(t, report))
	got := withoutComm(evs)
	if len(got) != len(want) {
		t.Errorf("%d events, trace-cmd report has %d", len(got), len(want))
	}
	bad := 0
	for i := 0; i < min(len(got), len(want)); i++ {
		g, w := pluginView(got[i]), pluginView(want[i])
		if g != w {
			if bad++; bad <= 5 {
				t.Errorf("event %d:\n got %v (cur %d)\nwant %v (cur %d)", i, g, g.CurTID, w, w.CurTID)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d events differ", bad)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Time < evs[i-1].Time {
			t.Fatalf("event %d at %d ns before event %d at %d ns", i, evs[i].Time, i-1, evs[i-1].Time)
		}
	}
	if meta.NrCPUs != 2 {
		t.Errorf("NrCPUs %d, want 2", meta.NrCPUs)
	}
}

// TestSharedAgainstReport decodes the shared messaging-tracecmd.trace.dat
// (v7, zstd) and compares it line by line with trace-cmd report's output of
// the same file (2484 events).
func TestSharedAgainstReport(t *testing.T) {
	dir := testtraces.Shared(t)
	compareWithReport(t, filepath.Join(dir, "messaging-tracecmd.trace.dat"), filepath.Join(dir, "messaging-tracecmd.report.txt"))
	_, meta := readAll(t, filepath.Join(dir, "messaging-tracecmd.trace.dat"))
	// From messaging-tracecmd.meta.txt: trace-cmd 3.1.6, kernel
	// 6.18.44-fc-v782, 2 CPUs; "local" is trace-cmd's default clock.
	if !strings.HasPrefix(meta.Tool, "trace-cmd 3.1.6") || meta.OSRelease != "6.18.44-fc-v782" || meta.Clock != "local" {
		t.Errorf("meta: tool %q, release %q, clock %q", meta.Tool, meta.OSRelease, meta.Clock)
	}
	if w := meta.Warnings.List(); len(w) != 0 {
		t.Errorf("warnings: %+v", w)
	}
}
