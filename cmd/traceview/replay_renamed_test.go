package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/trace"
)

// TestRenamedSelectionNote: a name selector picks tid 7 (named "w\tTAB"
// between "python3" and "renamed0") and tid 8 (always "w\tTAB"); the note
// names tid 7 with its three names and counts both tasks. "hog" matches
// tid 9, never renamed: no note. --autogroup off has no selector.
func TestRenamedSelectionNote(t *testing.T) {
	m := &replay.Model{Tasks: []replay.Task{
		{TID: 7, Comm: "renamed0", Earlier: []string{"python3", "w\tTAB"}},
		{TID: 8, Comm: "w\tTAB"},
		{TID: 9, Comm: "hog"},
	}}
	var o replayOptions
	o.nice = []string{`w\tTAB=-10`, "hog=5"}
	o.groups.autogroup = []string{"off"}
	var b bytes.Buffer
	renamedSelectionNotes(&b, m, o)
	got := b.String()
	want := "note: --nice w\\tTAB=-10 selects 2 tasks, 1 of them renamed in the trace: tid 7 (python3, w\\tTAB, renamed0); a what-if applies"
	if !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("got %q, want one line starting %q", got, want)
	}
}

// TestUntilAdvice: a sensitivity note's --until advice names the tasks its
// other run changed: by name when the name selects exactly them, else by
// tid (new-user pass 56 F2: pipeline=deadline also selected the main
// thread, renamed from traceview, and gave other figures than the note's).
// Model: tids 10-11 "pipeline" (the note's), 12 "traceview" then
// "pipeline"; 20 "hog".
func TestUntilAdvice(t *testing.T) {
	m := &replay.Model{Tasks: []replay.Task{
		{TID: 10, Comm: "pipeline"}, {TID: 11, Comm: "pipeline"},
		{TID: 12, Comm: "pipeline", Earlier: []string{"traceview"}}, {TID: 20, Comm: "hog"},
	}}
	for _, c := range []struct {
		k    predict.KindSensitivity
		want string
	}{
		{predict.KindSensitivity{Tasks: []string{"pipeline"}, TIDs: []trace.TID{10, 11}},
			" --until tid:10=deadline --until tid:11=deadline (or each =count) says which; pipeline selects other tasks too"},
		{predict.KindSensitivity{Tasks: []string{"pipeline"}, TIDs: []trace.TID{10, 11, 12}}, " --until pipeline=deadline or pipeline=count says which"},
		{predict.KindSensitivity{Tasks: []string{"hog"}, TIDs: []trace.TID{20}}, " --until hog=deadline or hog=count says which"},
	} {
		if got := untilAdvice(m, &c.k, "deadline", "count"); got != c.want {
			t.Errorf("%v: %q, want %q", c.k.TIDs, got, c.want)
		}
	}
}

// TestRenamedAtStartNoNote (new-user pass 124 F5): ticker-hogs.2cpu.tv's
// hogs name themselves "hog" (prctl) 9 and 14 µs into their 397 and 411 ms
// of run time, so their earlier name, the program's, ran for a negligible
// part: --nice hog=5 gives no renamed note (it did, for both). The ticker,
// renamed as early, likewise. A task renamed later in its run still gets
// it (TestRenamedNote).
func TestRenamedAtStartNoNote(t *testing.T) {
	_, errs, code := runCLI(t, "replay", "--policy", "eevdf", "--no-self-replay", "--nice", "hog=5", "--nice", "ticker=5", "../../testdata/traces/ticker-hogs.2cpu.tv")
	if code != 0 || strings.Contains(errs, "renamed in the trace") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}
