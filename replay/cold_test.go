package replay

import "testing"

// TestColdSwitch pins Config.ColdSwitch on a ping-pong on one CPU: a runs
// 1 ms and wakes b; b runs 1 ms and wakes a; a runs 1 ms, wakes b and
// exits; b runs 1 ms and exits. With ColdSwitch 100 µs and CacheTasks 4,
// the first runs of a and b on the CPU refill everything (100 µs each);
// each later run comes k = 1 switch after the task's previous switch-in
// (the other task's), 100 µs × 1/4 = 25 µs. a runs 0.1-1.1 ms, b
// 1.2-2.2, a 2.225-3.225, b 3.25-4.25: the run ends at 4.25 ms, at 4 ms
// without ColdSwitch.
func TestColdSwitch(t *testing.T) {
	m := &Model{NrCPUs: 1, WorkloadRoot: -1}
	m.Tasks = []Task{
		{TID: 1, PID: 1, Comm: "a", Prio: 120, Parent: -1, Init: InitRunnable, CPU: 0,
			Bursts: []Burst{
				{Len: 1_000_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 1}},
				{Len: 1_000_000, End: EndExit}}},
		{TID: 2, PID: 2, Comm: "b", Prio: 120, Parent: -1, Init: InitSleeping, CPU: 0,
			Bursts: []Burst{
				{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}},
				{Len: 1_000_000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}},
				{Len: 1_000_000, End: EndExit}}},
	}
	// a's last burst ends b's second block.
	setActs(m, 0, 0, Action{At: 1_000_000, Kind: ActWake, Target: 1, Block: 0})
	setActs(m, 1, 1, Action{At: 1_000_000, Kind: ActWake, Target: 0, Block: 0})
	setActs(m, 0, 1, Action{At: 1_000_000, Kind: ActWake, Target: 1, Block: 1})
	for _, c := range []struct {
		cold, tasks int64
		end         int64
	}{{0, 0, 4_000_000}, {100_000, 4, 4_250_000}} {
		res := simulate(t, m, "cfs", Config{HZ: 250, ColdSwitch: c.cold, CacheTasks: c.tasks})
		if res.End != c.end {
			t.Errorf("ColdSwitch %d, CacheTasks %d: run ends at %d ns, want %d", c.cold, c.tasks, res.End, c.end)
		}
	}
	if err := (&Config{CacheTasks: -1}).Check(); err == nil {
		t.Error("CacheTasks -1 accepted")
	}
	if err := (&Config{ColdSwitch: MaxCost + 1}).Check(); err == nil {
		t.Error("ColdSwitch above MaxCost accepted")
	}
}
