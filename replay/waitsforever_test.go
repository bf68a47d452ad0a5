package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
)

// waitModel is two tasks, both runnable at 0, A on CPU 0 and B on CPU 1: A (index 0)
// runs aLen ns and blocks until B wakes it, then runs 1 ms and exits; B
// runs bLen ns and, with bWaits, blocks until A wakes it, then runs 1 ms
// and exits; each wakes the other 0 ns into its second burst. Without
// bWaits, B exits after its first burst and wakes no one.
func waitModel(aLen, bLen int64, bWaits bool) *Model {
	dep := func(w int32) Cause { return Cause{Kind: CauseDependency, Waker: w} }
	m := &Model{NrCPUs: 2, WorkloadRoot: -1}
	m.Tasks = []Task{
		{TID: 100, PID: 100, Comm: "A", Prio: 120, Parent: -1, Repeat: -1, Init: InitRunnable,
			Bursts: []Burst{{Len: aLen, End: EndBlock, Wake: dep(1)}, {Len: 1_000_000, End: EndExit}}},
		{TID: 101, PID: 101, Comm: "B", Prio: 120, Parent: -1, Repeat: -1, Init: InitRunnable, CPU: 1,
			Bursts: []Burst{{Len: bLen, End: EndExit}}},
	}
	if bWaits {
		m.Tasks[1].Bursts = []Burst{{Len: bLen, End: EndBlock, Wake: dep(0)}, {Len: 1_000_000, End: EndExit}}
		setActs(m, 0, 1, Action{At: 0, Kind: ActWake, Target: 1, Block: 0})
		setActs(m, 1, 1, Action{At: 0, Kind: ActWake, Target: 0, Block: 0})
	}
	return m
}

// wakesOtherBlock is waitModel(1 ms, 2 ms, false) with A blocking twice
// (1 ms bursts, each block ended by B) and B's only wakeup, 1.5 ms into
// its burst, aimed at A's second block.
func wakesOtherBlock() *Model {
	m := waitModel(1_000_000, 2_000_000, false)
	a := &m.Tasks[0]
	a.Bursts = []Burst{a.Bursts[0], a.Bursts[0], a.Bursts[1]}
	setActs(m, 1, 0, Action{At: 1_500_000, Kind: ActWake, Target: 0, Block: 1})
	return m
}

// TestWaitsForever: a block nothing left can end is not slept, and one
// that becomes so later is reported as stuck.
//
//   - A cycle: A blocks at 1 ms waiting for B's second burst, B blocks at
//     2 ms waiting for A's. B's sleep would close a cycle of sleepers, so
//     B goes on (1 unblocked): its second burst wakes A at 2 ms, both run
//     1 ms on their CPUs and exit at 3 ms (makespan 3 ms, no task stuck).
//     Before sim.waitsForever both slept for ever (2 unfinished).
//   - An exited waker: B runs 1 ms and exits; A blocks at 2 ms waiting for
//     it: not slept (1 unblocked), A exits at 3 ms.
//   - A waker that exits later (wakesOtherBlock): A blocks at 1 ms while B,
//     which has a wakeup for A's later block, runs; B's wakeup at 1.5 ms
//     is kept for that block. B exits at 2 ms, and nothing left can end
//     A's sleep (sim.releaseOrphans): A resumes at 2 ms (1 unblocked), runs
//     its second burst to 3 ms, finds its second block's wakeup already
//     there, runs its last burst and exits at 4 ms. Before releaseOrphans A
//     stayed asleep (Unfinished 1, the makespan ending at B's exit, 2 ms).
func TestWaitsForever(t *testing.T) {
	for _, c := range []struct {
		name             string
		m                *Model
		unblocked, stuck int
		makespan         int64
	}{
		{"cycle", waitModel(1_000_000, 2_000_000, true), 1, 0, 3_000_000},
		{"exited waker", waitModel(2_000_000, 1_000_000, false), 1, 0, 3_000_000},
		{"waker exits later", wakesOtherBlock(), 1, 0, 4_000_000},
	} {
		specs, _ := policies.ParseSpecs("eevdf")
		pol, _ := specs[0].New(2)
		res, err := Simulate(c.m, pol, Config{HZ: 250})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Stats.Unblocked != c.unblocked || res.Stats.Unfinished != c.stuck || len(res.Stuck) != c.stuck || res.Makespan != c.makespan {
			t.Errorf("%s: unblocked %d, unfinished %d, stuck %v, makespan %d ns; want %d, %d, %d tasks, %d ns",
				c.name, res.Stats.Unblocked, res.Stats.Unfinished, res.Stuck, res.Makespan, c.unblocked, c.stuck, c.stuck, c.makespan)
		}
		if c.stuck > 0 && len(res.Stuck) > 0 && res.Stuck[0] != 0 {
			t.Errorf("%s: stuck %v, want [0] (A)", c.name, res.Stuck)
		}
	}
}

// forkCycle is three tasks on 2 CPUs: A (index 0, CPU 0) runs 1 ms and
// blocks until B wakes it, then forks C and runs 1 ms more; B (index 1,
// CPU 1) runs 2 ms and blocks until C wakes it, then wakes A and runs 1
// ms; C (index 2), forked by A, runs 1 ms, waking B as it starts. Each
// then exits. B's sleep waits for a task only A can start while A waits
// for B.
func forkCycle() *Model {
	dep := func(w int32) Cause { return Cause{Kind: CauseDependency, Waker: w} }
	m := &Model{NrCPUs: 2, WorkloadRoot: -1}
	m.Tasks = []Task{
		{TID: 100, PID: 100, Comm: "A", Prio: 120, Parent: -1, Repeat: -1, Init: InitRunnable,
			Bursts: []Burst{{Len: 1_000_000, End: EndBlock, Wake: dep(1)}, {Len: 1_000_000, End: EndExit}}},
		{TID: 101, PID: 101, Comm: "B", Prio: 120, Parent: -1, Repeat: -1, Init: InitRunnable, CPU: 1,
			Bursts: []Burst{{Len: 2_000_000, End: EndBlock, Wake: dep(2)}, {Len: 1_000_000, End: EndExit}}},
		{TID: 102, PID: 100, Comm: "C", Prio: 120, Parent: 0, Repeat: -1, Init: InitForked,
			Bursts: []Burst{{Len: 1_000_000, End: EndExit}}},
	}
	setActs(m, 0, 1, Action{At: 0, Kind: ActFork, Target: 2})
	setActs(m, 1, 1, Action{At: 0, Kind: ActWake, Target: 0, Block: 0})
	setActs(m, 2, 0, Action{At: 0, Kind: ActWake, Target: 1, Block: 0})
	return m
}

// TestWaitsForeverForkedWaker: in forkCycle, B's only waker, C, has not
// started, and only A's fork starts it; A sleeps in a block only B ends.
// So B's sleep at 2 ms would wait for ever (sim.waitsForever follows a
// task not started yet to its parent): B goes on (1 unblocked), wakes A at
// 2 ms and exits at 3 ms; A forks C at 2 ms and exits at 3 ms; C, queued
// behind them, runs 3-4 ms (its wakeup of B finds B gone). Makespan 4 ms,
// nothing stuck, all 5 ms of work done. Before, B and A slept for ever and
// C never ran (2 unfinished, 3 ms of work).
func TestWaitsForeverForkedWaker(t *testing.T) {
	specs, _ := policies.ParseSpecs("eevdf")
	pol, _ := specs[0].New(2)
	res, err := Simulate(forkCycle(), pol, Config{HZ: 250})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Unblocked != 1 || res.Stats.Unfinished != 0 || res.Makespan != 4_000_000 {
		t.Errorf("unblocked %d, unfinished %d, stuck %v, makespan %d ns; want 1, 0, none, 4000000 ns",
			res.Stats.Unblocked, res.Stats.Unfinished, res.Stuck, res.Makespan)
	}
}
