package main

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/synth"
)

// TestSimWatch: a watched simulation runs as an unwatched one until Ctrl-C;
// after it, the simulation stops and its label says how far it got.
func TestSimWatch(t *testing.T) {
	m := synth.Pipeline(2, 400, 1_000_000, 1, 2) // 400 frames of 1 ms, two threads
	m.Start, m.End = 0, 800_000_000
	run := func(cfg replay.Config) *replay.Result {
		res, err := replay.Simulate(m, policies.NewStack(policies.NewEEVDF(nil, m.NrCPUs)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	whole := run(replay.DefaultConfig())
	w := &simWatch{}
	cfg, done := w.watch(m, replay.DefaultConfig(), "test")
	watched := run(cfg)
	done()
	if watched.Interrupted || watched.Stats != whole.Stats || watched.End != whole.End {
		t.Errorf("watched run: interrupted %v, stats %+v, end %d; want %+v, %d", watched.Interrupted, watched.Stats, watched.End, whole.Stats, whole.End)
	}
	if !predict.SameConfig(m, cfg, replay.DefaultConfig()) {
		t.Error("a watched configuration does not compare equal to the unwatched one: the self-replay would not be reused")
	}
	w.stop.Store(true) // Ctrl-C
	cfg, done = w.watch(m, replay.DefaultConfig(), "test")
	cut := run(cfg)
	done()
	if !cut.Interrupted || cut.Stats.Events != 0 {
		t.Fatalf("run after Ctrl-C: interrupted %v, %d events; want an interrupted run of none", cut.Interrupted, cut.Stats.Events)
	}
	want := "interrupted (Ctrl-C): the eevdf prediction stops at 0.000 ms of simulated time (the recorded trace spans " + msf(m.End-m.Start) + " ms; a what-if may run longer or shorter)"
	if got := interrupted("eevdf", cut, m); !strings.HasPrefix(got, want) {
		t.Errorf("label %q, want it to start %q", got, want)
	}
	// Its CSV rows say it and leave the predicted makespan empty (new-user
	// pass 115 F4: nothing told them from a whole run's).
	row := report.LatencyResult{Rows: []report.LatencyRow{{Comm: "a", TID: 5, NrTasks: 1, Runtime: 1}}}
	rows := replayCSVRows("eevdf", cut, &row, &row, 800_000_000, false)
	if len(rows) != 1 || len(rows[0]) != len(replayCSVHeader) || rows[0][4] != "" || rows[0][len(rows[0])-1] != "true" {
		t.Errorf("the cut run's CSV rows %q: want one, makespan_pred_ns empty, interrupted true", rows)
	}
	// Its table's line gives no makespan ratio of the part it simulated
	// to the whole observed (new-user pass 111 F2: "ratio 0.000").
	var b strings.Builder
	writeReplayTable(&b, "eevdf", "", cut, &report.LatencyResult{}, &report.LatencyResult{}, 800_000_000, 0, 20, false, "")
	if line := strings.Split(strings.TrimPrefix(b.String(), "\n"), "\n")[0]; !strings.Contains(line, ": interrupted: 800.000 ms observed, 0.000 ms simulated before Ctrl-C (no makespan predicted);") || strings.Contains(line, "(ratio") {
		t.Errorf("the cut run's line: %q", line)
	}
}
