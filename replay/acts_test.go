package replay

import (
	"testing"
	"unsafe"
)

// setActs makes acts the actions of burst k of task i of m (a test
// helper: a Burst literal cannot hold them, see Task.SetActions).
func setActs(m *Model, i, k int, acts ...Action) {
	t := &m.Tasks[i]
	t.SetActions(&t.Bursts[k], acts)
}

// actionsOf returns the actions of burst k of task i of m.
func actionsOf(m *Model, i, k int) []Action {
	return m.Tasks[i].ActionsOf(&m.Tasks[i].Bursts[k])
}

func TestBurstSize(t *testing.T) {
	if s := unsafe.Sizeof(Burst{}); s != 56 {
		t.Errorf("Burst is %d bytes, want 56", s)
	}
}
