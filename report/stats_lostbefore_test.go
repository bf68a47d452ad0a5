package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestLostBefore: the part of [100, 200) that lost windows of CPU 1 (or of
// every CPU) cover, each instant once: [90, 120) gives 20 (clipped at 100),
// [110, 130) 10 more (its first 10 already counted), every CPU's [150, 160)
// 10, CPU 0's [160, 190) none, [195, 250) 5 (clipped at 200): 45 ns.
func TestLostBefore(t *testing.T) {
	lost := []trace.LostWindow{
		{CPU: 1, Start: 110, End: 130},
		{CPU: 1, Start: 90, End: 120},
		{CPU: -1, Start: 150, End: 160},
		{CPU: 0, Start: 160, End: 190},
		{CPU: 1, Start: 195, End: 250},
	}
	if got := lostBefore(lost, 1, 100, 200); got != 45 {
		t.Errorf("lostBefore = %d ns, want 45", got)
	}
}
