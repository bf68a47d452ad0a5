package trace

import "testing"

func TestLLCSize(t *testing.T) {
	for _, c := range []struct {
		llcs []string
		want int
	}{
		{nil, 0},
		{[]string{"0-1"}, 2},
		{[]string{"0-3", "4-7"}, 4},
		{[]string{"0", "1"}, 1},
		{[]string{"0-3", "4-5"}, 0}, // uneven: no single size
		{[]string{"x"}, 0},
	} {
		if got := (&Meta{LLCs: c.llcs}).LLCSize(); got != c.want {
			t.Errorf("LLCSize(%q) = %d, want %d", c.llcs, got, c.want)
		}
	}
}
