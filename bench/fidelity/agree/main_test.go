package main

import "testing"

// TestMedianOf: the lower middle of an even count, the middle of an odd
// one, whatever the order given.
func TestMedianOf(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want int64
	}{
		{[]int64{7}, 7},
		{[]int64{30, 10, 20}, 20},
		{[]int64{40, 10, 30, 20}, 20}, // sorted 10 20 30 40: the lower middle
		{[]int64{5, 5, 1}, 5},
	} {
		in := append([]int64(nil), c.in...)
		if got := medianOf(c.in); got != c.want {
			t.Errorf("medianOf(%v) = %d, want %d", in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("medianOf reordered its argument: %v, was %v", c.in, in)
			}
		}
	}
}
