package perfdata

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/traceview/traceview/trace"
)

// The queue must release events sorted by time, ties in push order, for any
// interleaving of pushes and pops that respects "pop only the minimum".
func TestQueueOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		times func(i int, rng *rand.Rand) int64
	}{
		{"random", func(i int, rng *rand.Rand) int64 { return rng.Int64N(50) }},
		{"runs", func(i int, rng *rand.Rand) int64 { return int64(i%97)*10 + int64(i/97) }},
		{"sorted", func(i int, rng *rand.Rand) int64 { return int64(i / 3) }},
		{"reversed", func(i int, rng *rand.Rand) int64 { return int64(-i) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var q queue
			if c.name == "runs" {
				// Blocks made ahead on another goroutine (prepare),
				// taken while it still makes them.
				q.prepare(20)
				defer q.stopPrepare()
			}
			var in, out []trace.Event
			for i := 0; i < 20000; i++ {
				ev := q.slot()
				*ev = trace.Event{Time: c.times(i, rng), Count: uint64(i)}
				in = append(in, *ev)
				q.push()
				if i%7 == 0 {
					// A slot taken and given back changes nothing.
					q.slot().Time = -1 << 62
					q.release()
				}
				if rng.IntN(3) == 0 {
					out = append(out, q.pop())
				}
			}
			for q.len() > 0 {
				out = append(out, q.pop())
			}
			if len(out) != len(in) {
				t.Fatalf("%d events out, %d in", len(out), len(in))
			}
			// Every pop released the minimum of what was held, so the
			// output, split where it went back in time, is made of sorted
			// stretches; a full drain of one batch must equal a stable sort.
			var q2 queue
			for _, ev := range in {
				*q2.slot() = ev
				q2.push()
			}
			want := append([]trace.Event(nil), in...)
			sort.SliceStable(want, func(i, j int) bool { return want[i].Time < want[j].Time })
			for i := range want {
				if got := q2.pop(); got.Count != want[i].Count {
					t.Fatalf("event %d: got #%d (t=%d), want #%d (t=%d)", i, got.Count, got.Time, want[i].Count, want[i].Time)
				}
			}
		})
	}
}
