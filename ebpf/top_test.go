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
	before := map[trace.TID]TaskStat{7: {TID: 7, Comm: "hog", Runtime: 50e6, Switches: 10, Delays: 10, DelaySum: 20e6, DelayMax: 9e6, MaxAt: 100,
		Windows: [2]EpochDelays{{Epoch: 1, Switches: 10, Delays: 10, Sum: 20e6, DelayMax: 9e6, MaxAt: 100}}}}
	after := map[trace.TID]TaskStat{7: {TID: 7, Comm: "hog", Runtime: 60e6, Switches: 12, Delays: 12, DelaySum: 23e6, DelayMax: 9e6, MaxAt: 100,
		Windows: [2]EpochDelays{{Epoch: 2, Switches: 2, Delays: 2, Sum: 3e6, DelayMax: 2e6, MaxAt: 300}, {Epoch: 1, Switches: 10, Delays: 10, Sum: 20e6, DelayMax: 9e6, MaxAt: 100}}}}
	for _, c := range []struct {
		name  string
		epoch uint64
		want  [5]int64 // switches, delays, sum, max, max at
	}{
		{"epoch", 2, [5]int64{2, 2, 3e6, 2e6, 300}},
		{"no epochs", 0, [5]int64{2, 2, 3e6, 0, 0}}, // the old rule: max 0 beside avg 1.5 ms
		{"idle epoch", 3, [5]int64{0, 0, 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := Window(before, after, 200, c.epoch)
			if len(w) != 1 {
				t.Fatalf("%d tasks, want 1 (it switched)", len(w))
			}
			got := [5]int64{w[0].Switches, w[0].Delays, w[0].DelaySum, w[0].DelayMax, w[0].MaxAt}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("switches, delays, sum, max, max at (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowEpochSwitches is the regression test for live top's "more
// delays than switches" (asm: 80 switches, 86 delays in one window on a
// loaded 2-CPU VM): the delays were the epoch's, the switches the
// snapshots' difference, and top waited for a CPU between starting a window and its
// snapshot while asm was switched in 6 times. Here the snapshots differ by
// 80 switches (1000 -> 1080) while the epoch (2) counted 86 switches in
// and 86 delays, 86 ms in all: the window reports the epoch's 86 and 86,
// each delay ending one of the switches.
func TestWindowEpochSwitches(t *testing.T) {
	before := map[trace.TID]TaskStat{9: {TID: 9, Comm: "asm", Runtime: 1e9, Switches: 1000, Delays: 994, DelaySum: 900e6,
		Windows: [2]EpochDelays{{Epoch: 1, Switches: 900, Delays: 894, Sum: 800e6}}}}
	after := map[trace.TID]TaskStat{9: {TID: 9, Comm: "asm", Runtime: 2e9, Switches: 1080, Delays: 1080, DelaySum: 986e6,
		Windows: [2]EpochDelays{{Epoch: 2, Switches: 86, Delays: 86, Sum: 86e6, DelayMax: 3e6, MaxAt: 500}, {Epoch: 1, Switches: 900, Delays: 894, Sum: 800e6}}}}
	w := Window(before, after, 200, 2)
	if len(w) != 1 {
		t.Fatalf("%d tasks, want 1", len(w))
	}
	if w[0].Switches != 86 || w[0].Delays != 86 || w[0].DelaySum != 86e6 {
		t.Errorf("switches %d, delays %d, sum %d ns; want 86, 86, 86000000 (the epoch's)", w[0].Switches, w[0].Delays, w[0].DelaySum)
	}
	if w[0].Runtime != 1e9 {
		t.Errorf("runtime %d ns, want 1000000000 (the snapshots' difference)", w[0].Runtime)
	}
}
