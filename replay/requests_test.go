package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// queueModel is an open-loop generator (task 0, tid 10) and two workers
// of its process (tasks 1 and 2, tids 11 and 12), as a recording under a
// CPU quota leaves them: the generator starts with 20 µs, then sleeps for
// 10 arrivals at 1, 2, ... 10 ms, each a 10 µs burst; its first two wake
// a worker 5 µs in; after the last it waits for worker 1 (pthread_join)
// and exits (5 µs). Each worker runs 3 µs, then blocks twice before 100
// µs requests (woken by the generator), and then drains the backlog
// without blocking: worker 1's last burst is 405 µs (4 requests and its
// exit), worker 2's 205 µs (2 and its exit). Worker 1's exit wakes the
// generator's join. 4 request bursts for 10 arrivals: below
// maxBacklogBlocks, so the workers are rebuilt.
func queueModel() *extractor {
	dep := func(w int) Cause { return Cause{Kind: CauseDependency, Waker: int32(w)} }
	gen := []Burst{{Len: 20_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: 1_000_000}}}
	for k := 1; k <= 10; k++ {
		b := Burst{Len: 10_000, End: EndBlock, Wake: Cause{Kind: CauseExternal, At: int64(k+1) * 1_000_000}}

		if k == 10 {
			b.Wake = dep(1)
		}
		gen = append(gen, b)
	}
	gen = append(gen, Burst{Len: 5_000, End: EndExit})
	worker := func(last int64) []Burst {
		bs := []Burst{{Len: 3_000, End: EndBlock, Wake: dep(0)}, {Len: 100_000, End: EndBlock, Wake: dep(0)},
			{Len: 100_000, End: EndBlock, Wake: dep(0)}, {Len: last, End: EndExit}}
		return bs
	}
	m := &Model{NrCPUs: 1, WorkloadRoot: -1, Tasks: []Task{
		{TID: 10, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitRunnable, Bursts: gen, Repeat: -1, OpenLoop: true},
		{TID: 11, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitRunnable, Bursts: worker(405_000), Repeat: -1, Until: UntilCount},
		{TID: 12, PID: 10, Comm: "srv", Prio: 120, Parent: -1, Init: InitRunnable, Bursts: worker(205_000), Repeat: -1, Until: UntilCount},
	}}
	for k := 1; k <= 2; k++ {
		setActs(m, 0, k, Action{At: 5_000, Kind: ActWake, Target: int32(k), Block: 0})
	}
	setActs(m, 1, 3, Action{At: 405_000, Kind: ActWake, Target: 0, Block: 10})
	return &extractor{m: m, st: make([]ext, 3)}
}

// TestRequestQueues rebuilds queueModel by hand:
//   - 10 arrivals; the workers' time after their first burst is 605 + 405
//     = 1010 µs, 101 µs an arrival (s0). Their exits are what the last
//     bursts hold beyond whole s0: 405 mod 101 = 1 µs, 205 mod 101 = 3
//     µs; the mean request is (1010 - 4) / 10 = 100.6 µs.
//   - The 4 request bursts hold one request each (none is longer than
//     100.6 µs); the 6 left go by the work beyond that: the last bursts'
//     404 and 202 µs, 4 and 2. Worker 1: 3 µs, 100, 100, 4 x 101, exit 1
//     µs (6 requests); worker 2: 3, 100, 100, 2 x 101, exit 3 µs (4).
//   - Request k goes with arrival burst k+1, interleaved by (used + 1/2) /
//     count: workers 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, each at 5 µs (the
//     recorded wakeups' offset); blocks 0..5 of worker 1 and 0..3 of
//     worker 2. The close wakes worker 1's block 6 and worker 2's block 4
//     at the end of arrival burst 10 (10 µs). Worker 1's wakeup of the
//     join is 1 µs into its exit (it was at its last burst's end).
func TestRequestQueues(t *testing.T) {
	x := queueModel()
	if n := x.requestQueues(); n != 10 {
		t.Fatalf("made %d requests, want 10", n)
	}
	m := x.m
	if len(m.Pools) != 1 || m.Pools[0].Producer != 0 || len(m.Pools[0].Members) != 2 || !m.Pools[0].Requests {
		t.Fatalf("pools %+v, want one request queue fed by task 0", m.Pools)
	}
	for i, want := range map[int][]int64{1: {3_000, 100_000, 100_000, 101_000, 101_000, 101_000, 101_000, 1_000}, 2: {3_000, 100_000, 100_000, 101_000, 101_000, 3_000}} {
		tk := &m.Tasks[i]
		if len(tk.Bursts) != len(want) || tk.Pool != 1 {
			t.Fatalf("worker %d: %d bursts, pool %d; want %d, 1", i, len(tk.Bursts), tk.Pool, len(want))
		}
		for j, b := range tk.Bursts {
			pool := j < len(want)-2
			if b.Len != want[j] || tk.PoolBlock[j] != pool {
				t.Errorf("worker %d burst %d: %d ns, pool block %v; want %d ns, %v", i, j, b.Len, tk.PoolBlock[j], want[j], pool)
			}
		}
	}
	if a := actionsOf(m, 1, 7); len(a) != 1 || a[0].Target != 0 || a[0].Block != 10 || a[0].At != 1_000 {
		t.Errorf("worker 1's exit actions %+v, want the join's wakeup at 1 µs", a)
	}
	order := []int{1, 2, 1, 2, 1, 1, 2, 1, 2, 1}
	used := map[int]int{}
	for k, w := range order {
		acts := actionsOf(m, 0, k+1)
		if len(acts) < 1 || acts[0] != (Action{At: 5_000, Kind: ActWake, Target: int32(w), Block: int32(used[w])}) {
			t.Errorf("arrival %d: actions %+v, want worker %d's block %d at 5 µs", k+1, acts, w, used[w])
		}
		used[w]++
	}
	if acts := actionsOf(m, 0, 10); len(acts) != 3 || acts[1] != (Action{At: 10_000, Kind: ActWake, Target: 1, Block: 6}) ||
		acts[2] != (Action{At: 10_000, Kind: ActWake, Target: 2, Block: 4}) {
		t.Errorf("last arrival's actions %+v, want the close of blocks 6 and 4 at 10 µs", acts)
	}
}

// TestRequestQueuesLeavesOthers: workers that blocked for half of the
// arrivals or more (here 10 blocks for 10 arrivals), whose request bursts
// wake a task outside the queue, or that did not exit are left as
// recorded.
func TestRequestQueuesLeavesOthers(t *testing.T) {
	for name, edit := range map[string]func(m *Model){
		"served one by one": func(m *Model) {
			for i := 1; i <= 2; i++ {
				bs := m.Tasks[i].Bursts
				extra := []Burst{bs[1], bs[1], bs[1]}
				m.Tasks[i].Bursts = append(append(bs[:2:2], extra...), bs[2:]...)
			}
		},
		"wakes the generator": func(m *Model) {
			setActs(m, 2, 1, Action{At: 50_000, Kind: ActWake, Target: 0, Block: 10})
		},
		"did not exit": func(m *Model) { m.Tasks[2].Bursts[3].End = EndTrace },
	} {
		x := queueModel()
		edit(x.m)
		n1 := len(x.m.Tasks[1].Bursts)
		if n := x.requestQueues(); n != 0 || len(x.m.Pools) != 0 || len(x.m.Tasks[1].Bursts) != n1 {
			t.Errorf("%s: made %d requests, pools %+v, worker 1 has %d bursts (was %d)", name, n, x.m.Pools, len(x.m.Tasks[1].Bursts), n1)
		}
	}
}

// TestRequestQueuesStrayTimer: a request burst that wakes the generator's
// block 5 (an arrival sleep the trace showed in the worker's context) is
// left as recorded, unless that block also ends at its recorded time
// (Cause.ByAt, timerLikeWakeups): then the workers are rebuilt, one
// request for each of the 9 bursts after an arrival sleep (block 5, a
// dependency, is none), and the generator's block 5 keeps its deadline.
func TestRequestQueuesStrayTimer(t *testing.T) {
	for _, byAt := range []bool{false, true} {
		x := queueModel()
		x.m.Tasks[0].Bursts[5].Wake = Cause{Kind: CauseDependency, Waker: 2, Inferred: true, At: 6_000_000, ByAt: byAt}
		setActs(x.m, 2, 1, Action{At: 100_000, Kind: ActWake, Target: 0, Block: 5})
		want := 0
		if byAt {
			want = 9
		}
		if n := x.requestQueues(); n != want {
			t.Errorf("ByAt %v: made %d requests, want %d", byAt, n, want)
		}
		if w := x.m.Tasks[0].Bursts[5].Wake; w.ByAt != byAt || w.At != 6_000_000 {
			t.Errorf("ByAt %v: generator's block 5 %+v, want its deadline kept", byAt, w)
		}
	}
}

// TestRequestQueuesServeEach replays queueModel on one CPU under fifo,
// as recorded and rebuilt. As recorded, only the 2 arrivals that found a
// worker asleep wake one: worker 1's and worker 2's blocks after their
// first request wait for wakeups the generator never sends (the
// generator's join of worker 1 is not slept, as worker 1 waits for the
// generator: sim.waitsForever); when the generator exits nothing can end
// them (sim.releaseOrphans), and each worker runs the rest of its work at
// once, not slept at its next block either: worker 1 100 + 405 µs, worker
// 2 100 + 205 µs. 4 runs of 100 µs or more (the two first requests and
// these two), 1016 µs: all of the work, in 2 runs where there were 8
// requests. Rebuilt, each arrival (1 ms apart) finds a worker waiting and
// each request is a run of its own: 10 runs of 100-101 µs, 1010 µs with
// the exits' 4 µs and the first bursts' 6 µs: 1016 µs, all of the
// recorded work.
func TestRequestQueuesServeEach(t *testing.T) {
	for _, c := range []struct {
		rebuild          bool
		long, unfinished int
		total            int64
	}{{false, 4, 0, 1_016_000}, {true, 10, 0, 1_016_000}} {
		x := queueModel()
		if c.rebuild {
			x.requestQueues()
		}
		res := simulate(t, x.m, "fifo", Config{HZ: 250})
		r := runs(res.Events())
		long, total := 0, int64(0)
		for _, tid := range []trace.TID{11, 12} {
			for _, run := range r[tid] {
				total += run[1] - run[0]
				if run[1]-run[0] >= 100_000 {
					long++
				}
			}
		}
		if long != c.long || total != c.total || res.Stats.Unfinished != c.unfinished {
			t.Errorf("rebuilt %v: %d runs of 100 µs or more, %d ns of worker run time, %d unfinished; want %d, %d, %d",
				c.rebuild, long, total, res.Stats.Unfinished, c.long, c.total, c.unfinished)
		}
	}
}
