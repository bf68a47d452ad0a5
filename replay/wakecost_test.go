package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// addWakeBursts appends to t n blocking bursts of length ln, each waking
// task 1 once at 1 µs into it, remote or not.
func addWakeBursts(t *Task, n int, ln int64, remote bool) {
	for k := 0; k < n; k++ {
		t.Bursts = append(t.Bursts, Burst{Len: ln, End: EndBlock, Wake: Cause{Kind: CauseTimer, Delay: 1000}})
		t.AddAction(&t.Bursts[len(t.Bursts)-1], Action{At: 1000, Kind: ActWake, Target: 1, Block: int32(k), Remote: remote})
	}
}

// TestMeasureWakeCost: a generator whose bursts with one local wakeup last
// 20 µs (10 of them) and with one remote wakeup 44 µs (12, every third
// 46 µs: median 44) pays 44 − 20 = 24 µs per remote wakeup, over 22
// bursts. Its workers' bursts spread too much (10 µs to 1 ms, MAD/median
// over maxWakeCostSpread) to say anything and are left out; with only
// them, or with one kind of wakeup only, nothing is measurable.
func TestMeasureWakeCost(t *testing.T) {
	var gen Task
	addWakeBursts(&gen, 10, 20_000, false)
	addWakeBursts(&gen, 12, 44_000, true)
	for k := 10; k < 22; k += 3 {
		gen.Bursts[k].Len = 46_000
	}
	var worker Task
	for k := 0; k < 20; k++ {
		ln := int64(10_000)
		if k%2 == 1 {
			ln = 1_000_000
		}
		addWakeBursts(&worker, 1, ln, k < 10)
	}
	if c, n := measureWakeupCost([]Task{gen, worker}); c != 24_000 || n != 22 {
		t.Errorf("generator and workers: %d ns over %d bursts, want 24000 over 22", c, n)
	}
	if c, n := measureWakeupCost([]Task{worker}); c != 0 || n != 0 {
		t.Errorf("workers only: %d ns over %d bursts, want nothing measurable", c, n)
	}
	var local Task
	addWakeBursts(&local, 30, 20_000, false)
	if c, n := measureWakeupCost([]Task{local}); c != 0 || n != 0 {
		t.Errorf("local wakeups only: %d ns over %d bursts, want nothing measurable", c, n)
	}
}

// TestRemoteWakeCharge: task 0 runs 100 µs and wakes task 1 at 10 µs into
// it; the recording put task 1 on the other CPU (a remote wakeup). On one
// CPU the wakeup is local, so the waker saves the remote cost, 20 µs: it
// runs [0, 80 µs), then task 1 runs its 50 µs, [80, 130 µs); WakeCharge
// is −20 µs. Recorded local and replayed on one CPU, nothing changes
// (waker 100 µs).
func TestRemoteWakeCharge(t *testing.T) {
	model := func(remote bool) *Model {
		m := &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{
			{TID: 10, PID: 10, Comm: "waker", Prio: 120, Parent: -1, Init: InitRunnable,
				Bursts: []Burst{{Len: 100_000, End: EndExit}}},
			{TID: 11, PID: 11, Comm: "wakee", Prio: 120, Parent: -1, Init: InitSleeping,
				Bursts: []Burst{{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}}, {Len: 50_000, End: EndExit}}},
		}}
		setActs(m, 0, 0, Action{At: 10_000, Kind: ActWake, Target: 1, Block: 0, Remote: remote})
		return m
	}
	for _, c := range []struct {
		remote       bool
		waker, wakee [2]int64
		charge       int64
	}{
		{true, [2]int64{0, 80_000}, [2]int64{80_000, 130_000}, -20_000},
		{false, [2]int64{0, 100_000}, [2]int64{100_000, 150_000}, 0},
	} {
		res := simulate(t, model(c.remote), "fifo", Config{HZ: 250, RemoteWakeupCost: 20_000})
		r := runs(res.Events())
		if len(r[10]) != 1 || r[10][0] != c.waker || len(r[11]) != 1 || r[11][0] != c.wakee {
			t.Errorf("recorded remote %v: waker ran %v, wakee %v; want %v and %v", c.remote, r[10], r[11], c.waker, c.wakee)
		}
		if res.Stats.WakeCharge != c.charge {
			t.Errorf("recorded remote %v: WakeCharge %d ns, want %d", c.remote, res.Stats.WakeCharge, c.charge)
		}
	}
}

// TestPeriodicOverrunSkips: a task woken at 11, 21, 31, 41, 51 and 61 ms
// (a 10 ms period) after bursts of 1, 3, 2, 4, 1, 3 ms, first runnable at
// 1 ms, is periodic (TestAbsoluteTimers). Replayed beside a real-time hog
// that holds the CPU from 1 to 25 ms, it first runs at 25 ms: its 1 ms
// burst ends at 26, past the 11 ms wake time, so it goes straight on (no
// sleep) with the 3 ms burst, to 29 (21 ms passed: on), the 2 ms one to
// 31 (31 ms reached: on) and the 4 ms one to 35 ms; then it sleeps until
// 41 ms as recorded and runs 1 ms, and 3 ms from 51 ms. Three skipped
// sleeps: one run [25, 35 ms), then [41, 42 ms) and [51, 54 ms).
func TestPeriodicOverrunSkips(t *testing.T) {
	bursts := []int64{1e6, 3e6, 2e6, 4e6, 1e6, 3e6}
	m, err := Extract(trace.NewSliceSource(timerTrace(bursts, func(k int, _ int64) int64 { return int64(k)*10_000_000 + 11_000_000 }), nil))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Tasks[0].Periodic {
		t.Fatal("task woken every 10 ms is not periodic")
	}
	m.Tasks = append(m.Tasks, Task{TID: 6, PID: 6, Comm: "rt", Prio: 49, Parent: -1, Init: InitRunnable,
		Bursts: []Burst{{Len: 24_000_000, End: EndExit}}})
	res := simulate(t, m, "fifo", Config{HZ: 250})
	if res.Stats.SkippedSleeps != 3 {
		t.Errorf("%d skipped sleeps, want 3", res.Stats.SkippedSleeps)
	}
	r := runs(res.Events())
	want := [][2]int64{{25_000_000, 35_000_000}, {41_000_000, 42_000_000}, {51_000_000, 54_000_000}}
	if len(r[5]) < 3 || r[5][0] != want[0] || r[5][1] != want[1] || r[5][2] != want[2] {
		t.Errorf("periodic task ran %v, want %v first", r[5], want)
	}
}

// TestMeasureWokenAndIdleCost: a worker's blocking bursts that send no
// wakeup, woken by another task: 10 woken from its own CPU last 200 µs,
// 10 woken from another 250 µs (every fourth 260 µs: median 250), so a
// remote wakeup costs the wakee 50 µs, over 20 bursts. A generator's
// bursts started after another task last 19 µs (10), from idle 26 µs
// (10): 7 µs, over 20. Bursts not woken by a task (a timer's) say nothing
// about the wakee side, and one kind only says nothing at all.
func TestMeasureWokenAndIdleCost(t *testing.T) {
	var worker, gen Task
	for k := 0; k < 20; k++ {
		ln := int64(200_000)
		if k >= 10 {
			ln = 250_000
			if k%4 == 0 {
				ln = 260_000
			}
		}
		worker.Bursts = append(worker.Bursts, Burst{Len: ln, End: EndBlock, WokenBy: true, WokenRemote: k >= 10})
		gl := int64(19_000)
		if k >= 10 {
			gl = 26_000
		}
		gen.Bursts = append(gen.Bursts, Burst{Len: gl, End: EndBlock, FromIdle: k >= 10})
	}
	if c, n := measureWakeeCost([]Task{worker, gen}); c != 50_000 || n != 20 {
		t.Errorf("woken cost %d ns over %d bursts, want 50000 over 20", c, n)
	}
	if c, n := measureIdleStartCost([]Task{gen}); c != 7_000 || n != 20 {
		t.Errorf("idle-start cost %d ns over %d bursts, want 7000 over 20", c, n)
	}
	if c, n := measureWakeeCost([]Task{gen}); c != 0 || n != 0 {
		t.Errorf("timer-woken bursts only: %d ns over %d, want nothing measurable", c, n)
	}
	if c, n := measureIdleStartCost([]Task{{Bursts: gen.Bursts[:10]}}); c != 0 || n != 0 {
		t.Errorf("no idle starts: %d ns over %d, want nothing measurable", c, n)
	}
}

// TestWokenAndIdleCharge, on one CPU with fifo: task 0 runs 100 µs and
// wakes task 1 at 10 µs into it. Recorded remote-woken (WokenRemote), task
// 1's 50 µs burst is now woken locally and gives back 20 µs
// (RemoteWakeeCost): it runs [100, 130 µs), WokenCharge −20 µs. Recorded
// local, nothing changes ([100, 150 µs)). Task 2 sleeps until 1 ms, when
// the CPU is idle: its 40 µs burst, recorded as started after another
// task (FromIdle false), pays the 10 µs idle-start cost, [1000, 1050 µs),
// IdleCharge +10 µs; recorded from idle it runs [1000, 1040 µs).
func TestWokenAndIdleCharge(t *testing.T) {
	model := func(remote, idle bool) *Model {
		m := &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{
			{TID: 10, PID: 10, Comm: "waker", Prio: 120, Parent: -1, Init: InitRunnable,
				Bursts: []Burst{{Len: 100_000, End: EndExit, FromIdle: true}}},
			{TID: 11, PID: 11, Comm: "wakee", Prio: 120, Parent: -1, Init: InitSleeping,
				Bursts: []Burst{{End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: 0}}, {Len: 50_000, End: EndExit, WokenBy: true, WokenRemote: remote}}},
			{TID: 12, PID: 12, Comm: "late", Prio: 120, Parent: -1, Init: InitSleeping,
				Bursts: []Burst{{End: EndBlock, Wake: Cause{Kind: CauseExternal, At: 1_000_000}}, {Len: 40_000, End: EndExit, FromIdle: idle}}},
		}}
		setActs(m, 0, 0, Action{At: 10_000, Kind: ActWake, Target: 1, Block: 0})
		return m
	}
	for _, c := range []struct {
		remote, idle  bool
		wakee, late   [2]int64
		woken, idleCh int64
	}{
		{true, false, [2]int64{100_000, 130_000}, [2]int64{1_000_000, 1_050_000}, -20_000, 10_000},
		{false, true, [2]int64{100_000, 150_000}, [2]int64{1_000_000, 1_040_000}, 0, 0},
	} {
		res := simulate(t, model(c.remote, c.idle), "fifo", Config{HZ: 250, RemoteWakeeCost: 20_000, IdleStartCost: 10_000})
		r := runs(res.Events())
		if len(r[11]) != 1 || r[11][0] != c.wakee || len(r[12]) != 1 || r[12][0] != c.late {
			t.Errorf("remote %v idle %v: wakee ran %v, late task %v; want %v and %v", c.remote, c.idle, r[11], r[12], c.wakee, c.late)
		}
		if res.Stats.WokenCharge != c.woken || res.Stats.IdleCharge != c.idleCh {
			t.Errorf("remote %v idle %v: WokenCharge %d, IdleCharge %d; want %d, %d", c.remote, c.idle, res.Stats.WokenCharge, res.Stats.IdleCharge, c.woken, c.idleCh)
		}
	}
}

// TestIdleWarmupExtract: on CPU 0, idle until 1 ms, task 5 runs 30 µs
// from idle (age 0 µs: FromIdle), task 6 starts right after it (age 30 µs,
// under idleWarmup: FromIdle) and runs 200 µs, task 7 starts at 1.23 ms
// (age 230 µs: not FromIdle). Each then sleeps.
func TestIdleWarmupExtract(t *testing.T) {
	evs := []trace.Event{
		sw(1_000_000, 0, 0, 5), rt(1_030_000, 5, 30_000),
		sw(1_030_000, 5, trace.StateInterruptible, 6), rt(1_230_000, 6, 200_000),
		sw(1_230_000, 6, trace.StateInterruptible, 7), rt(1_300_000, 7, 70_000),
		sw(1_300_000, 7, trace.StateInterruptible, 0),
	}
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[trace.TID]bool{5: true, 6: true, 7: false}
	seen := 0
	for _, tk := range m.Tasks {
		w, ok := want[tk.TID]
		if !ok {
			continue
		}
		seen++
		if len(tk.Bursts) == 0 || tk.Bursts[0].FromIdle != w {
			t.Errorf("task %d: first burst %+v, want FromIdle %v", tk.TID, tk.Bursts, w)
		}
	}
	if seen != 3 {
		t.Errorf("%d of tasks 5, 6, 7 in the model", seen)
	}
}

// TestPoolQueuedWokenCharge: one CPU, fifo. The producer (task 0) runs
// 30 µs and exits; at 10 µs it sends a request into the pool of worker
// task 1 (asleep on it), at 20 µs a second one (queued: the worker is
// runnable, not waiting), at 25 µs the wakeup of the worker's own last
// block. Both requests' 50 µs bursts were woken from the other CPU in the
// recording (WokenRemote); here every wakeup is local, so each gives back
// RemoteWakeeCost = 20 µs: the woken one at its wakeup, the queued one when
// the worker takes it without sleeping at 60 µs (written from CPU 0, taken
// on CPU 0). The worker runs [30, 60), [60, 90) and its 1 µs exit burst:
// last event at 91 µs, WokenCharge −40 µs (before the queued request was
// settled too: 111 µs and −20 µs).
func TestPoolQueuedWokenCharge(t *testing.T) {
	dep := Cause{Kind: CauseDependency, Waker: 0}
	m := &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{
		{TID: 10, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitRunnable, Repeat: -1,
			Bursts: []Burst{{Len: 30_000, End: EndExit}}},
		{TID: 11, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitSleeping, Repeat: -1, Pool: 1,
			PoolBlock: []bool{true, true, false, false},
			Bursts: []Burst{{End: EndBlock, Wake: dep},
				{Len: 50_000, End: EndBlock, Wake: dep, WokenBy: true, WokenRemote: true},
				{Len: 50_000, End: EndBlock, Wake: dep, WokenBy: true, WokenRemote: true},
				{Len: 1_000, End: EndExit}}},
	}, Pools: []WorkerPool{{Producer: 0, Members: []int{1}}}}
	setActs(m, 0, 0,
		Action{At: 10_000, Kind: ActWake, Target: 1, Block: 0},
		Action{At: 20_000, Kind: ActWake, Target: 1, Block: 1},
		Action{At: 25_000, Kind: ActWake, Target: 1, Block: 2})
	res := simulate(t, m, "fifo", Config{HZ: 250, RemoteWakeeCost: 20_000})
	if res.End != 91_000 || res.Stats.WokenCharge != -40_000 || res.Stats.Unfinished != 0 {
		t.Errorf("last event %d ns, WokenCharge %d ns, %d unfinished; want 91000, -40000, 0 (runs %v)",
			res.End, res.Stats.WokenCharge, res.Stats.Unfinished, runs(res.Events())[11])
	}
}
