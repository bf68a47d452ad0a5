package replay

import (
	"fmt"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestWakeAny: reader R (10) blocks twice; the recording says writer A
// (11) ended the first block and writer B (12) the second. In the replay
// (fifo, 3 CPUs, each task starts at 0 on a CPU of its own) B writes first: B's wakeup comes
// 1 ms into its 1.2 ms burst, A's 3 ms into its 3.2 ms one. R runs 0.1 ms,
// blocks at 0.1 ms, then:
//
//	R a wake-any task: B's wakeup at 1 ms ends the block R sleeps in; R
//	  runs 0.5 ms (1-1.5 ms) and blocks again; A's at 3 ms ends that one;
//	  R runs its last 0.2 ms (3-3.2 ms): runs [0 0.1] [1 1.5] [3 3.2].
//	R held to the recorded waker of each block: B's wakeup at 1 ms is
//	  kept for the second block; A's at 3 ms ends the first; R runs 0.5 ms
//	  and goes on at once with the kept one: runs [0 0.1] [3 3.7].
func TestWakeAny(t *testing.T) {
	model := func() *Model {
		m := readerWriters([]Burst{
			{Len: 100_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 1}},
			{Len: 500_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 2}},
			{Len: 200_000, End: EndExit}})
		setActs(m, 1, 0, Action{At: 3_000_000, Kind: ActWake, Target: 0, Block: 0})
		setActs(m, 2, 0, Action{At: 1_000_000, Kind: ActWake, Target: 0, Block: 1})
		return m
	}
	m := model()
	inferWakeAny(m)
	if !m.Tasks[0].WakeAny || m.Tasks[1].WakeAny || m.Stats.WakeAnyTasks != 1 {
		t.Fatalf("WakeAny = %v %v %v (%d tasks), want the reader only", m.Tasks[0].WakeAny, m.Tasks[1].WakeAny, m.Tasks[2].WakeAny, m.Stats.WakeAnyTasks)
	}
	for _, c := range []struct {
		any  bool
		want string
	}{
		{true, "[[0 100000] [1000000 1500000] [3000000 3200000]]"},
		{false, "[[0 100000] [3000000 3700000]]"},
	} {
		m := model()
		m.Tasks[0].WakeAny = c.any
		res := simulate(t, m, "fifo", Config{HZ: 250})
		if got := fmt.Sprint(runs(res.Events())[trace.TID(10)]); got != c.want {
			t.Errorf("wake-any %v: runs %s, want %s", c.any, got, c.want)
		}
	}
}

// TestWakeAnyEarlyWakeup: a wakeup that finds a wake-any task runnable
// skips its next block only when the task has waited longer than its
// recorded mean scheduling delay (Task.MeanDelay); sooner, the block is
// slept and ended at once. Reader R (10) blocks three times, the recording
// naming writer A (11), B (12), A as their wakers; fifo, 3 CPUs, each task
// on its own. R runs 0.1 ms and blocks at 0.1 ms; B's wakeup at 1 ms
// (recorded for R's second block) ends it and R runs its 0.5 ms burst
// from 1 ms; A's at 1.2 ms (recorded for the first) finds R running, 0.2
// ms after R was woken:
//
//	MeanDelay 0 (R never waited in the recording): R waited longer, the
//	  wakeup is credit and R reads on past its second block at 1.5 ms
//	  (0.2 ms more) and blocks at 1.7 ms until A's second wakeup at 3 ms:
//	  runs [0 0.1] [1 1.7] [3 3.1], 3 switch-ins.
//	MeanDelay 1 ms: the wakeup came early; R blocks at 1.5 ms as recorded
//	  and the wakeup ends that block at once: runs [0 0.1] [1 1.5]
//	  [1.5 1.7] [3 3.1], 4 switch-ins, the recording's count.
//	MeanDelay 0.1 ms, DelaySD 0.15 ms: R's replayed delay so far is 0 (B's
//	  wakeup at 1 ms found CPU 0 idle), within sameCompetition of 0.1 ms,
//	  so the bound is 0.1 + 0.15 = 0.25 ms and 0.2 ms is early: as above.
//	  With DelaySD 0 the bound is 0.1 ms and the wakeup is credit.
func TestWakeAnyEarlyWakeup(t *testing.T) {
	model := func(meanDelay, sd int64) *Model {
		m := readerWriters([]Burst{
			{Len: 100_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 1}},
			{Len: 500_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 2}},
			{Len: 200_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 1}},
			{Len: 100_000, End: EndExit}})
		m.Tasks[0].MeanDelay, m.Tasks[0].DelaySD = meanDelay, sd
		setActs(m, 1, 0, Action{At: 1_200_000, Kind: ActWake, Target: 0, Block: 0}, Action{At: 3_000_000, Kind: ActWake, Target: 0, Block: 2})
		setActs(m, 2, 0, Action{At: 1_000_000, Kind: ActWake, Target: 0, Block: 1})
		inferWakeAny(m)
		return m
	}
	const credit, early = "[[0 100000] [1000000 1700000] [3000000 3100000]]", "[[0 100000] [1000000 1500000] [1500000 1700000] [3000000 3100000]]"
	for _, c := range []struct {
		meanDelay, sd int64
		want          string
	}{
		{0, 0, credit},
		{1_000_000, 0, early},
		{100_000, 150_000, early},
		{100_000, 0, credit},
	} {
		m := model(c.meanDelay, c.sd)
		if !m.Tasks[0].WakeAny {
			t.Fatalf("the reader is not wake-any")
		}
		res := simulate(t, m, "fifo", Config{HZ: 250})
		if got := fmt.Sprint(runs(res.Events())[trace.TID(10)]); got != c.want {
			t.Errorf("MeanDelay %d ns, DelaySD %d ns: runs %s, want %s", c.meanDelay, c.sd, got, c.want)
		}
	}
}

// readerWriters is a model on 3 CPUs: reader 10 on CPU 0 with the bursts
// given, writers 11 (CPU 1, one 3.2 ms burst) and 12 (CPU 2, one 1.2 ms
// burst), all runnable at 0; the writers' wakeups are set by the caller.
func readerWriters(reader []Burst) *Model {
	task := func(tid trace.TID, comm string, cpu int, bs []Burst) Task {
		return Task{TID: tid, PID: trace.PID(tid), Comm: comm, CPU: cpu, Prio: 120, Parent: -1, Init: InitRunnable, Repeat: -1, Bursts: bs}
	}
	return &Model{NrCPUs: 3, WorkloadRoot: -1, Tasks: []Task{
		task(10, "reader", 0, reader),
		task(11, "writer", 1, []Burst{{Len: 3_200_000, End: EndExit}}),
		task(12, "writer", 2, []Burst{{Len: 1_200_000, End: EndExit}}),
	}}
}
