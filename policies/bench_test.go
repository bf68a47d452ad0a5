package policies

import (
	"fmt"
	"testing"
)

// BenchmarkEEVDFPick measures pick_eevdf at many runnable tasks: n nice-0
// tasks queued on one CPU (flat, or all in one task group below the root,
// as an autogroup session puts a whole messaging run), and each operation
// is a PickNext followed by charging the picked task 3 ms (more than its
// 0.7 ms slice, so its deadline moves and the next pick may take another
// task: a context switch per operation, as in a busy messaging replay).
// Run with -benchmem: the pick allocates nothing.
func BenchmarkEEVDFPick(b *testing.B) {
	for _, grouped := range []bool{false, true} {
		for _, n := range []int{4, 64, 512, 4096} {
			name := fmt.Sprintf("flat/n=%d", n)
			if grouped {
				name = fmt.Sprintf("group/n=%d", n)
			}
			b.Run(name, func(b *testing.B) { benchEEVDFPick(b, n, grouped) })
		}
	}
}

func benchEEVDFPick(b *testing.B, n int, grouped bool) {
	sim := newFakeSim(1)
	p := NewEEVDF(nil, 1)
	if grouped {
		p.SetGroups([]Group{{Path: "/", Parent: -1}, {Path: "/autogroup-1", Parent: 0, Shares: 1024}})
	}
	p.Init(sim)
	for i := 0; i < n; i++ {
		t := sim.task(i % 5) // mixed weights: nice 0..4
		if grouped {
			t.Group = 1
		}
		p.TaskNew(t)
		p.Enqueue(0, t, EnqueueInitial)
		sim.nr[0]++
	}
	var prev *Task
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := p.PickNext(0, prev)
		sim.curr[0] = t
		sim.now += 3_000_000
		p.UpdateCurr(0, t, 3_000_000)
		sim.resced = sim.resced[:0]
		prev = t
	}
}
