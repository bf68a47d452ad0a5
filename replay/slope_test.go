package replay

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// measureSlopeMaps is measureSlope as it was written before it grouped the
// bursts by sorting (a map of slices per task; the weighted median of the
// slopes, unchanged, is shared): the reference that
// TestMeasureSlopeSameAsMaps holds the faster one to.
func measureSlopeMaps(tasks []Task, spread float64, class func(t *Task, b *Burst) (group, x int, ok bool)) (cost int64, samples int) {
	type key struct{ g, x int }
	var sl []slope
	tight := func(g []int64) bool {
		med, dev := mad(g)
		return med > 0 && float64(dev) <= spread*float64(med)
	}
	for i := range tasks {
		groups := map[key][]int64{}
		xs := map[int][]int{}
		for k := range tasks[i].Bursts {
			b := &tasks[i].Bursts[k]
			if b.End != EndBlock || b.Len <= 0 {
				continue
			}
			g, x, ok := class(&tasks[i], b)
			if !ok {
				continue
			}
			if _, seen := groups[key{g, x}]; !seen {
				xs[g] = append(xs[g], x)
			}
			groups[key{g, x}] = append(groups[key{g, x}], b.Len)
		}
		gs := make([]int, 0, len(xs))
		for g := range xs {
			gs = append(gs, g)
		}
		sort.Ints(gs)
		for _, g := range gs {
			lo, hi := -1, -1
			for _, x := range xs[g] {
				if v := groups[key{g, x}]; len(v) >= minWakeCostSamples && tight(v) {
					if lo < 0 || x < lo {
						lo = x
					}
					if x > hi {
						hi = x
					}
				}
			}
			if lo < 0 || lo == hi {
				continue
			}
			gl, gh := groups[key{g, lo}], groups[key{g, hi}]
			v := (median(gh) - median(gl)) / int64(hi-lo)
			if v < -maxRemoteWakeCost || v > maxRemoteWakeCost {
				continue
			}
			sl = append(sl, slope{v, min(len(gl), len(gh)) * (hi - lo)})
			samples += len(gl) + len(gh)
		}
	}
	if len(sl) == 0 {
		return 0, 0
	}
	return max(weightedMedian(sl), 0), samples
}

// TestMeasureSlopeSameAsMaps: on random tasks (bursts in up to 4 groups
// with x of 0-3 costly events, each costing the task its own 0-60 µs over
// a 20-50 µs base, with 0-40 % noise so that some groups are too loose to
// compare, and some bursts that do not end by blocking or are empty),
// measureSlope gives what the map-based measureSlopeMaps gave, for each
// spread bound; and the cases are not all alike: some seeds measure a
// cost and some measure none.
func TestMeasureSlopeSameAsMaps(t *testing.T) {
	// Burst.Slept carries the burst's group and Burst.Wake.At its x.
	class := func(_ *Task, b *Burst) (int, int, bool) { return int(b.Slept), int(b.Wake.At), b.Slept >= 0 }
	measured, none := 0, 0
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		tasks := make([]Task, 1+r.IntN(6))
		for i := range tasks {
			base, cost, noise := 20_000+r.Int64N(30_000), r.Int64N(60_000), r.Float64()*0.4
			for range r.IntN(120) {
				g, x := int64(r.IntN(4))-1, int64(r.IntN(4)) // group -1: left out by class
				ln := base + x*cost + int64(float64(base)*noise*(r.Float64()-0.5))
				b := Burst{Len: ln, End: EndBlock, Slept: g, Wake: Cause{At: x}}
				switch r.IntN(20) {
				case 0:
					b.End = EndExit
				case 1:
					b.Len = 0
				}
				tasks[i].Bursts = append(tasks[i].Bursts, b)
			}
		}
		for _, spread := range []float64{maxRelativeSpread, maxWakeCostSpread} {
			gotC, gotN := measureSlope(tasks, spread, class)
			wantC, wantN := measureSlopeMaps(tasks, spread, class)
			if gotC != wantC || gotN != wantN {
				t.Errorf("seed %d, spread %.2f: %d ns over %d bursts, want %d over %d", seed, spread, gotC, gotN, wantC, wantN)
			}
			if wantN > 0 {
				measured++
			} else {
				none++
			}
		}
	}
	if measured < 50 || none < 50 {
		t.Errorf("%d cases measured a cost and %d none: want at least 50 of each", measured, none)
	}
}
