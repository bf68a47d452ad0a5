package replay

import (
	"fmt"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestPeriodicSkipsAhead: a periodic task of the workload (task 0, tid
// 10; period 1 ms, recorded wake times 1, 2, 3, 4 and 5 ms) runs 100 µs,
// then four cycles of 300 µs, then exits (10 µs); a task beside it (tid
// 11) runs 3.5 ms once. One CPU, fifo (no preemption).
//   - Skipping ahead (the workload's periodic task): 0-0.1 ms; the 1 ms
//     wakeup waits for tid 11 (0.1-3.6 ms): cycle 1 3.6-3.9 ms; its next
//     time, 1 + 1 = 2 ms, is past, so 2 + 2 x 1 = 4 ms (the first period
//     not yet gone); cycles at 4.0, 5.0 and 6.0 ms (300 µs each); the
//     exit at 7.0-7.01 ms.
//   - Catching up (a background task keeps its recorded times): cycle 1
//     at 3.6 ms goes straight on with cycles 2-4 (their times 2, 3 and 4
//     ms are past): one run 3.6-4.8 ms; the exit at its recorded 5 ms,
//     5.0-5.01 ms.
func TestPeriodicSkipsAhead(t *testing.T) {
	model := func(workload bool) *Model {
		bs := []Burst{{Len: 100_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: 1_000_000}}}
		for k := 2; k <= 5; k++ {
			bs = append(bs, Burst{Len: 300_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: int64(k) * 1_000_000}})
		}
		bs = append(bs, Burst{Len: 10_000, End: EndExit})
		return &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{
			{TID: 10, PID: 10, Comm: "periodic", Prio: 120, Parent: -1, Init: InitRunnable, Bursts: bs, Repeat: -1,
				Periodic: true, Period: 1_000_000, Workload: workload, Until: UntilCount},
			{TID: 11, PID: 11, Comm: "other", Prio: 120, Parent: -1, Init: InitRunnable, Repeat: -1,
				Bursts: []Burst{{Len: 3_500_000, End: EndExit}}},
		}}
	}
	for _, c := range []struct {
		workload bool
		want     string
	}{
		{true, "[[0 100000] [3600000 3900000] [4000000 4300000] [5000000 5300000] [6000000 6300000] [7000000 7010000]]"},
		{false, "[[0 100000] [3600000 4800000] [5000000 5010000]]"},
	} {
		res := simulate(t, model(c.workload), "fifo", Config{HZ: 250})
		if got := fmt.Sprint(runs(res.Events())[trace.TID(10)]); got != c.want {
			t.Errorf("workload %v: runs %s, want %s", c.workload, got, c.want)
		}
	}
}

// TestPeriodOver: a 2 ms absolute timer whose wakeups come 0-50 µs late
// (timer slack) and skip periods: wakeups at 0, 2.05, 4.0, 10.03 (two
// periods skipped) and 12.0 ms. Given a median gap 50 µs off (2.05 ms)
// with a deviation of 80 µs, the span of 12.0 ms over its round(12.0 /
// 2.05) = 6 periods gives 2.0 ms, 50 µs from the median: taken. With a
// deviation of 20 µs the two disagree: the median is kept. A span shorter
// than one period keeps the median.
func TestPeriodOver(t *testing.T) {
	if got := periodOver(0, 12_000_000, 2_050_000, 80_000); got != 2_000_000 {
		t.Errorf("periodOver = %d ns, want 2000000", got)
	}
	if got := periodOver(0, 12_000_000, 2_050_000, 20_000); got != 2_050_000 {
		t.Errorf("off the grid: periodOver = %d ns, want the median 2050000", got)
	}
	if got := periodOver(0, 1_000_000, 2_050_000, 80_000); got != 2_050_000 {
		t.Errorf("short span: periodOver = %d ns, want the median 2050000", got)
	}
	if got := periodOver(0, 12_000_000, 0, 0); got != 0 {
		t.Errorf("no median: periodOver = %d, want 0", got)
	}
}
