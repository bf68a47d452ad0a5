package tidmap

import "testing"

func TestMap(t *testing.T) {
	var m Map[int32, *int]
	one, two, three := 1, 2, 3
	m.Set(5, &one)
	m.Set(-1, &two)         // negative: sparse
	m.Set(MaxDense, &three) // beyond the dense range: sparse
	m.Set(70000, &two)      // grows the slice past its first size
	cases := []struct {
		k    int32
		want *int
	}{{5, &one}, {-1, &two}, {MaxDense, &three}, {70000, &two}, {6, nil}, {MaxDense + 1, nil}}
	for _, c := range cases {
		if got := m.Get(c.k); got != c.want {
			t.Errorf("Get(%d) = %v, want %v", c.k, got, c.want)
		}
	}
	if len(m.dense) > MaxDense {
		t.Errorf("dense slice of %d entries, more than MaxDense", len(m.dense))
	}
	m.Set(5, nil)
	if m.Get(5) != nil {
		t.Error("Set(5, nil) did not clear 5")
	}
}
