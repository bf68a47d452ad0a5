package ebpf

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// TestWindowEpochMax is the regression test for live top's "Max delay
// below Avg delay": the kernel's running max (DelayMax, 9 ms) ended in an
// earlier window, so the old rule (keep it only if it ended after since)
// gave the second window a max of 0 beside an average of 1.5 ms. With
// epochs the window's count, sum and max are those of its epoch (2, 3 ms,
// 2 ms); an epoch the task had no delay in gives no delays.
func TestWindowEpochMax(t *testing.T) {
	before := map[trace.TID]TaskStat{7: {TID: 7, Comm: "hog", Switches: 10, Delays: 10, DelaySum: 20e6, DelayMax: 9e6, MaxAt: 100,
		Windows: [2]EpochDelays{{Epoch: 1, Delays: 10, Sum: 20e6, DelayMax: 9e6, MaxAt: 100}}}}
	after := map[trace.TID]TaskStat{7: {TID: 7, Comm: "hog", Switches: 12, Delays: 12, DelaySum: 23e6, DelayMax: 9e6, MaxAt: 100,
		Windows: [2]EpochDelays{{Epoch: 2, Delays: 2, Sum: 3e6, DelayMax: 2e6, MaxAt: 300}, {Epoch: 1, Delays: 10, Sum: 20e6, DelayMax: 9e6, MaxAt: 100}}}}
	for _, c := range []struct {
		name  string
		epoch uint64
		want  [4]int64 // delays, sum, max, max at
	}{
		{"epoch", 2, [4]int64{2, 3e6, 2e6, 300}},
		{"no epochs", 0, [4]int64{2, 3e6, 0, 0}}, // the old rule: max 0 beside avg 1.5 ms
		{"idle epoch", 3, [4]int64{0, 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Window(before, after, 200, c.epoch)
			if len(w) != 1 {
				t.Fatalf("%d tasks, want 1 (it switched)", len(w))
			}
			got := [4]int64{w[0].Delays, w[0].DelaySum, w[0].DelayMax, w[0].MaxAt}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("delays, sum, max, max at (-want +got):\n%s", diff)
			}
			if w[0].Switches != 2 {
				t.Errorf("switches %d, want 2", w[0].Switches)
			}
		})
	}
}
