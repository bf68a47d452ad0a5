package report

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestStatsSpanSchedEvents: the span runs from the first to the last
// scheduler tracepoint event. Hand trace: a synthesized comm at 0, a perf
// exec record at 1 µs and an exit record at 20 µs (bookkeeping), and
// scheduler events at 5, 6 and 9 µs: Start 5 µs, End 9 µs, Duration 4 µs
// (it was 1..20 µs, 19 µs). CPU 0 runs A from 5 to 9 µs: busy 4 µs of 4,
// not 15 µs to the exit record.
func TestStatsSpanSchedEvents(t *testing.T) {
	comm := trace.NewEvent(0, -1, trace.KindComm)
	comm.TID, comm.PID, comm.Comm = 10, 10, "A"
	exec := trace.NewEvent(1*gUs, 0, trace.KindExec)
	exec.TID, exec.PID, exec.Comm = 10, 10, "A"
	exit := trace.NewEvent(20*gUs, 1, trace.KindExit)
	exit.TID, exit.PID = 30, 30
	evs := []trace.Event{comm, exec,
		gSwitch(5*gUs, 0, 0, "swapper/0", 0, 10, "A"),
		gWaking(6*gUs, 0, 10, 20, "B", 1),
		gSwitch(9*gUs, 1, 0, "swapper/1", 0, 20, "B"),
		exit}
	st, err := ComputeStats(trace.NewSliceSource(evs, nil), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Start != 5*gUs || st.End != 9*gUs || st.Duration != 4*gUs {
		t.Errorf("span %d..%d ns (%d ns), want 5000..9000 (4000)", st.Start, st.End, st.Duration)
	}
	if len(st.CPUs) == 0 || st.CPUs[0].Busy != 4*gUs || st.CPUs[0].Observed != 4*gUs {
		t.Errorf("CPU 0 %+v, want busy and observed 4000 ns", st.CPUs)
	}
}

// TestStatsSpanPipeMulti: on testdata/traces/pipe-multi.perf.data.gz the
// sched samples run from 1356.592470161 s to 1357.540768991 s (perf
// script's first and last sched_* lines, and perf.data's
// HEADER_SAMPLE_TIME), 948.298830 ms; perf's exec/exit records from
// 1352.986180 s and after the last sample (to 1357.555979 s) made stats
// say 4569.799 ms and the report start at 1352.986 s.
func TestStatsSpanPipeMulti(t *testing.T) {
	gz, err := os.ReadFile("../testdata/traces/pipe-multi.perf.data.gz")
	if err != nil {
		t.Skip(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "pipe-multi.perf.data")
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() trace.Source {
		src, err := trace.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return src
	}
	st, err := ComputeStats(open(), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Start != 1356592470161 || st.End != 1357540768991 || st.Duration != 948298830 {
		t.Errorf("span %d..%d ns (%d ns), want 1356592470161..1357540768991 (948298830)", st.Start, st.End, st.Duration)
	}
	var page bytes.Buffer
	if err := WriteHTMLReport(&page, open(), HTMLOptions{Name: "pipe-multi"}); err != nil {
		t.Fatal(err)
	}
	// Timestamps truncated to µs like the CLI's tables: 1357540768991 ns is
	// 1357.540768 s (rounding would print ...769).
	if want := "1356.592470 s to 1357.540768 s (948.299 ms, first to last scheduler event)"; !strings.Contains(page.String(), want) {
		t.Errorf("report lacks time span %q", want)
	}
	// A window before the trace (--time 1,2): no span of events, never a
	// negative one (new-user pass 56 F1: "1356.592470 s to 2.000000 s
	// (-1354592.470 ms, ...)").
	page.Reset()
	if err := WriteHTMLReport(&page, open(), HTMLOptions{Name: "pipe-multi", Latency: LatencyOptions{Filter: &schedule.Filter{Start: 1e9, End: 2e9}}}); err != nil {
		t.Fatal(err)
	}
	if want := "none: the filters matched nothing"; !strings.Contains(page.String(), want) || strings.Contains(page.String(), "ms, first to last scheduler event") {
		t.Errorf("report of a window outside the trace: want %q and no span", want)
	}
}
