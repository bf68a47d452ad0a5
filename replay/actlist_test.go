package replay

import (
	"math/rand"
	"slices"
	"testing"
)

// TestActListAsAddAction: an actList holds what Task.AddAction would for
// the same appends (a mix of bursts, runs longer than a chunk among them),
// and packs to the same arrays.
func TestActListAsAddAction(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const nb = 40
	var l actList
	var ref Task
	lb, rb := make([]Burst, nb), make([]Burst, nb)
	for k := 0; k < 4000; k++ {
		j := r.Intn(nb)
		if r.Intn(4) > 0 {
			j = nb - 1 - r.Intn(3) // mostly the last few, as Extract's
		}
		if k >= 2000 && k < 2400 {
			j = 7 // one burst of more than actChunk actions
		}
		a := Action{At: int64(k), Kind: ActWake, Target: int32(j), Block: int32(k % 13)}
		l.add(&lb[j], a)
		ref.AddAction(&rb[j], a)
	}
	for j := range lb {
		if !slices.Equal(l.of(&lb[j]), ref.ActionsOf(&rb[j])) {
			t.Fatalf("burst %d: actList holds %d actions, AddAction %d", j, len(l.of(&lb[j])), len(ref.ActionsOf(&rb[j])))
		}
	}
	ref.Bursts = rb
	ref.Pack()
	acts := l.pack(lb)
	if !slices.Equal(acts, ref.acts) || !slices.Equal(lb, ref.Bursts) {
		t.Fatal("packed actList differs from Task.Pack")
	}
}
