package trace

import "testing"

// TestCommTracker: a task's first appearance and each rename give one
// KindComm event; the idle task, "<...>" and a fork's child do not; an
// exec updates the name silently.
func TestCommTracker(t *testing.T) {
	var c CommTracker
	var out [2]Event
	sw := NewEvent(10, 1, KindSwitch)
	sw.TID, sw.Comm, sw.NextTID, sw.NextComm = 5, "a", 0, "swapper/1"
	if n := c.Changes(&sw, &out); n != 1 || out[0].Kind != KindComm || out[0].TID != 5 || out[0].Comm != "a" || out[0].Time != 10 || out[0].CPU != 1 {
		t.Fatalf("first switch: %d %v", n, out[0])
	}
	if n := c.Changes(&sw, &out); n != 0 {
		t.Errorf("repeat: %d events", n)
	}
	fork := NewEvent(11, 1, KindFork)
	fork.TID, fork.Comm, fork.ChildTID, fork.ChildComm = 5, "a", 6, "a"
	if n := c.Changes(&fork, &out); n != 0 {
		t.Errorf("fork: %d events", n)
	}
	ex := NewEvent(12, 1, KindExec)
	ex.TID, ex.Comm = 6, "b"
	if n := c.Changes(&ex, &out); n != 0 {
		t.Errorf("exec: %d events", n)
	}
	sw2 := NewEvent(13, 0, KindSwitch)
	sw2.TID, sw2.Comm, sw2.NextTID, sw2.NextComm = 6, "b", 5, "renamed"
	if n := c.Changes(&sw2, &out); n != 1 || out[0].TID != 5 || out[0].Comm != "renamed" {
		t.Errorf("rename: %d %v", n, out[0])
	}
	wk := NewEvent(14, 0, KindWaking)
	wk.TID, wk.Comm = 7, "<...>"
	if n := c.Changes(&wk, &out); n != 0 {
		t.Errorf("placeholder name: %d events", n)
	}
}
