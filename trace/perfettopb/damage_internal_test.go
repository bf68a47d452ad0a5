package perfettopb

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestOutOfOrder: the events outside a longest non-decreasing run of a
// CPU's times are the damaged ones. By hand: in 1 2 3 100 4 5 the run
// 1 2 3 4 5 leaves out 100 (index 3); in 50 1 2 3 it leaves out 50
// (index 0); equal times are in order; sorted times give nil.
func TestOutOfOrder(t *testing.T) {
	for _, c := range []struct {
		times []int64
		bad   []int
	}{
		{[]int64{1, 2, 3, 100, 4, 5}, []int{3}},
		{[]int64{50, 1, 2, 3}, []int{0}},
		{[]int64{1, 2, 2, 0, 3}, []int{3}},
		{[]int64{1, 1, 2, 3}, nil},
		{nil, nil},
	} {
		got := outOfOrder(c.times)
		var idx []int
		for i, b := range got {
			if b {
				idx = append(idx, i)
			}
		}
		if !slices.Equal(idx, c.bad) || c.bad == nil && got != nil {
			t.Errorf("outOfOrder(%v) = %v, want %v", c.times, idx, c.bad)
		}
	}
}

// TestOutlyingEnds: an end event separated from the rest by a gap longer
// than the rest's span is dropped. By hand: times 10 11 12 13 on CPU 0
// and 12, 1000 on CPU 1: the gap 13 -> 1000 (987) exceeds the span 10..13
// (3), so hi is 13 and lo 10; 10 11 12 13 and 14 have no outlier; a
// first event at -1000 before 10..13 is dropped the same way.
func TestOutlyingEnds(t *testing.T) {
	on := func(evs ...[]int64) map[trace.CPU][]at {
		m := map[trace.CPU][]at{}
		for c, ts := range evs {
			for i, x := range ts {
				m[trace.CPU(c)] = append(m[trace.CPU(c)], at{i, x})
			}
		}
		return m
	}
	if lo, hi, ok := outlyingEnds(on([]int64{10, 11, 12, 13}, []int64{12, 1000})); !ok || lo != 10 || hi != 13 {
		t.Errorf("late outlier: %d %d %v, want 10 13 true", lo, hi, ok)
	}
	if _, _, ok := outlyingEnds(on([]int64{10, 11, 12, 13}, []int64{14})); ok {
		t.Error("no outlier: ok")
	}
	if lo, hi, ok := outlyingEnds(on([]int64{-1000, 10, 11, 12, 13})); !ok || lo != 10 || hi != 13 {
		t.Errorf("early outlier: %d %d %v, want 10 13 true", lo, hi, ok)
	}
}
