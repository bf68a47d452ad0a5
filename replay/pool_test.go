package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// poolTrace is a producer (tid 10) and two workers (tids 11 and 12) of one
// process (pid 10, "srv") on CPU 0. Every 1 ms the producer is woken by a
// timer from idle, runs 10 µs and wakes worker who(k) at 5 µs; the worker
// runs 100 µs and sleeps. Both workers sleep at first.
func poolTrace(n int, who func(k int) trace.TID) []trace.Event {
	ev := func(t int64, k trace.Kind, tid trace.TID) trace.Event {
		e := trace.NewEvent(t, 0, k)
		e.TID, e.PID, e.Comm, e.Prio = tid, 10, "srv", 120
		return e
	}
	swt := func(t int64, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
		e := ev(t, trace.KindSwitch, prev)
		e.CurTID, e.PrevState, e.NextTID, e.NextPID, e.NextComm, e.NextPrio = prev, st, next, 10, "srv", 120
		if prev == 0 {
			e.PID, e.Comm = 0, "swapper/0"
		}
		if next == 0 {
			e.NextPID, e.NextComm = 0, "swapper/0"
		}
		return e
	}
	wk := func(t int64, tid, cur trace.TID) trace.Event {
		e := ev(t, trace.KindWaking, tid)
		e.CurTID, e.TargetCPU = cur, 0
		return e
	}
	rtv := func(t int64, tid trace.TID, ns int64) trace.Event {
		e := ev(t, trace.KindRuntime, tid)
		e.CurTID, e.Runtime = tid, ns
		return e
	}
	// Each task runs once first and sleeps, so that all three are known.
	evs := []trace.Event{swt(0, 0, 0, 10), rtv(1000, 10, 1000), swt(1000, 10, trace.StateInterruptible, 11),
		rtv(2000, 11, 1000), swt(2000, 11, trace.StateInterruptible, 12), rtv(3000, 12, 1000), swt(3000, 12, trace.StateInterruptible, 0)}
	for k := 1; k <= n; k++ {
		t := int64(k) * 1_000_000
		w := who(k)
		evs = append(evs, wk(t, 10, 0), swt(t, 0, 0, 10), wk(t+5_000, w, 10),
			rtv(t+10_000, 10, 10_000), swt(t+10_000, 10, trace.StateInterruptible, w),
			rtv(t+110_000, w, 100_000), swt(t+110_000, w, trace.StateInterruptible, 0))
	}
	return evs
}

// TestInferPools: woken in turn (11, 12, 11, ...), each worker is woken by
// the producer when it has slept longest of the two (the other ran 1 ms
// later): 90 of 90 wakeups in sleep order, a worker pool of 11 and 12
// fed by 10. Woken 11, 11, 12, ... (two of three to 11), the first wakeup
// of each triple goes to 11 while 12 slept longer: 60 of 90 (0.67, under
// minPoolFIFO), threads with queues of their own, no pool.
func TestInferPools(t *testing.T) {
	turn, err := Extract(trace.NewSliceSource(poolTrace(90, func(k int) trace.TID { return trace.TID(11 + k%2) }), nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Pools) != 1 || turn.Stats.PoolMembers != 2 {
		t.Fatalf("workers woken in turn: pools %+v, want one of two members", turn.Pools)
	}
	p := turn.Pools[0]
	if turn.Tasks[p.Producer].TID != 10 || turn.Tasks[p.Members[0]].TID != 11 || turn.Tasks[p.Members[1]].TID != 12 {
		t.Errorf("pool %+v: want producer tid 10, members 11 and 12", p)
	}
	skew, err := Extract(trace.NewSliceSource(poolTrace(90, func(k int) trace.TID {
		if k%3 == 2 {
			return 12
		}
		return 11
	}), nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(skew.Pools) != 0 {
		t.Errorf("workers woken out of sleep order: pools %+v, want none", skew.Pools)
	}
}

// TestPoolSpreadsRequests: a producer (task 0) issues four requests,
// waking a worker at the end of 10 µs bursts at 0, 100, 200 and 300 µs
// (absolute times), and at 400 µs closes the queue (wakes both workers'
// last blocks) and exits. The recording gave requests 0-2 to W0 (task 1)
// and request 3 to W1 (task 2); each takes 200 µs. Two CPUs, fifo, no
// latencies.
//   - As recorded: W0 serves 10-210, then requests 1 and 2 queued for it
//     back to back, 210-410 and 410-610; W1 serves request 3, 310-510;
//     the producer's close waits behind W1 on its CPU (fifo does not
//     preempt), 510-520; W1 exits 520-521 and W0 at 610-611: last event
//     611 µs.
//   - With the pool: request 0 goes to W0 (first waiter), 10-210; request
//     1 at 110 µs to W1, the waiter left, 110-310; request 2 at 210 µs
//     finds no waiter (W0 is just back and takes it at once, 210-410);
//     request 3 at 310 µs is taken by W1, back at 310: 310-510; the close
//     runs 510-520 after W1, W1 exits 520-521 and W0, done at 410, exits
//     at 520 (its last wakeup) -521: last event 521 µs, and W1 served two
//     requests.
func TestPoolSpreadsRequests(t *testing.T) {
	model := func(pool bool) *Model {
		var pb []Burst
		var pacts [][]Action // pb[k]'s actions
		for k := 0; k < 4; k++ {
			tgt, blk := 1, k
			if k == 3 {
				tgt, blk = 2, 0
			}
			pb = append(pb, Burst{Len: 10_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: int64(k+1) * 100_000}})
			pacts = append(pacts, []Action{{At: 10_000, Kind: ActWake, Target: int32(tgt), Block: int32(blk)}})
		}
		pb = append(pb, Burst{Len: 10_000, End: EndExit})
		pacts = append(pacts, []Action{{At: 10_000, Kind: ActWake, Target: 1, Block: 3}, {At: 10_000, Kind: ActWake, Target: 2, Block: 1}})
		dep := Cause{Kind: CauseDependency, Waker: 0}
		w0 := []Burst{{End: EndBlock, Wake: dep}}
		for k := 0; k < 3; k++ {
			w0 = append(w0, Burst{Len: 200_000, End: EndBlock, Wake: dep})
		}
		w0 = append(w0, Burst{Len: 1_000, End: EndExit})
		w1 := []Burst{{End: EndBlock, Wake: dep}, {Len: 200_000, End: EndBlock, Wake: dep}, {Len: 1_000, End: EndExit}}
		m := &Model{NrCPUs: 2, WorkloadRoot: -1, Tasks: []Task{
			{TID: 10, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitRunnable, Bursts: pb},
			{TID: 11, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitSleeping, Bursts: w0},
			{TID: 12, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitSleeping, Bursts: w1},
		}}
		for k, acts := range pacts {
			setActs(m, 0, k, acts...)
		}
		if pool {
			m.Pools = []WorkerPool{{Producer: 0, Members: []int{1, 2}}}
			m.Tasks[1].Pool, m.Tasks[1].PoolBlock = 1, []bool{true, true, true, false, false}
			m.Tasks[2].Pool, m.Tasks[2].PoolBlock = 1, []bool{true, false, false}
		}
		return m
	}
	for _, c := range []struct {
		pool bool
		w1   int   // requests (200 µs runs) served by W1
		end  int64 // ns, last event
	}{{false, 1, 611_000}, {true, 2, 521_000}} {
		res := simulate(t, model(c.pool), "fifo", Config{HZ: 250})
		r := runs(res.Events())
		n := 0
		for _, x := range r[12] {
			if x[1]-x[0] >= 200_000 {
				n++
			}
		}
		if n != c.w1 || res.End != c.end || res.Stats.Unfinished != 0 {
			t.Errorf("pool %v: W1 served %d requests, last event at %d ns, %d unfinished; want %d, %d ns, 0 (runs %v / %v / %v)",
				c.pool, n, res.End, res.Stats.Unfinished, c.w1, c.end, r[10], r[11], r[12])
		}
	}
}

// TestPoolProducerMajority: a generator (task 0) that is itself woken 25
// times, every time by worker 1 (pthread_join at the workers' exit, say),
// ahead of its workers in task order, does not name the producer: workers
// 1 and 2, each woken 25 times by task 0 and in sleep order 20 of 20 times,
// vote for task 0, so they are a pool fed by task 0. (Before, the first
// thread that passed minPoolShare named the producer: task 1, and no pool
// was found.)
func TestPoolProducerMajority(t *testing.T) {
	task := func(tid trace.TID, waker int) Task {
		tk := Task{TID: tid, PID: 10, Comm: "srv", Parent: -1, Repeat: -1}
		for k := 0; k < 25; k++ {
			tk.Bursts = append(tk.Bursts, Burst{Len: 1000, End: EndBlock, Wake: Cause{Kind: CauseDependency, Waker: int32(waker)}})
		}
		tk.Bursts = append(tk.Bursts, Burst{Len: 1000, End: EndExit})
		return tk
	}
	m := &Model{WorkloadRoot: -1, Tasks: []Task{task(10, 1), task(11, 0), task(12, 0)}}
	x := &extractor{m: m, st: make([]ext, 3)}
	for i := 1; i <= 2; i++ {
		x.st[i].fifoN, x.st[i].fifoHit = 20, 20
	}
	x.inferPools()
	if len(m.Pools) != 1 || m.Pools[0].Producer != 0 || len(m.Pools[0].Members) != 2 || m.Pools[0].Members[0] != 1 || m.Pools[0].Members[1] != 2 {
		t.Fatalf("pools %+v, want one fed by task 0 with members 1 and 2", m.Pools)
	}
}
