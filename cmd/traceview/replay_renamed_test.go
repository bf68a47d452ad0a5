package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceview/traceview/replay"
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
