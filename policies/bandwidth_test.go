package policies

import (
	"sort"
	"testing"
)

// timerSim is a fakeSim that runs timers (Timers) when told to.
type timerSim struct {
	*fakeSim
	timers []simTimer
}

type simTimer struct {
	at int64
	fn func()
}

func (s *timerSim) AddTimer(at int64, fn func()) { s.timers = append(s.timers, simTimer{at, fn}) }
func (s *timerSim) Sync(int)                     {}

// runUntil fires the timers due by t in time order, then sets the clock
// to t.
func (s *timerSim) runUntil(t int64) {
	for {
		sort.SliceStable(s.timers, func(i, j int) bool { return s.timers[i].at < s.timers[j].at })
		if len(s.timers) == 0 || s.timers[0].at > t {
			break
		}
		tm := s.timers[0]
		s.timers = s.timers[1:]
		s.now = tm.at
		tm.fn()
	}
	s.now = t
}

// TestBandwidthPool: the pool arithmetic of CFS bandwidth control
// (kernel/sched/fair.c v6.5 and v6.18), group /g with quota 20 ms per
// 100 ms period, on one runqueue:
//   - the runqueue takes slices of 5 ms (sched_cfs_bandwidth_slice) while
//     the pool lasts: 20 ms pool = 4 slices; the 5th request gets nothing
//     and the runqueue is throttled;
//   - the period timer, started at 0 with its first expiry half a period
//     later (startPeriod), refills the pool to min(pool + quota, quota + burst)
//     and pays the throttled runqueue's debt + 1 ns (distribute_cfs_runtime):
//     a 2 ms overrun leaves 20 − 2.000001 ms in the pool;
//   - an emptied runqueue keeps 1 ms (min_cfs_rq_runtime) and returns the
//     rest;
//   - with burst 15 ms, a period that used only 5 ms of the quota leaves
//     15 ms, and the refill gives min(15 + 20, 20 + 15) = 35 ms; without
//     burst 20 ms.
func TestBandwidthPool(t *testing.T) {
	const ms = 1_000_000
	groups := []Group{{Path: "/", Parent: -1}, {Path: "/g", Parent: 0, Shares: 1024, Quota: 20 * ms, Period: 100 * ms}}
	s := &timerSim{fakeSim: newFakeSim(1)}
	var rq rqRuntime
	unthrottled := 0
	c := bandwidthCtl{slice: defaultBandwidthSlice}
	c.rq = func(int) *rqRuntime { return &rq }
	c.unthrottle = func(key int) { unthrottled++; c.unthrottled(1, key, &rq, 0) }
	c.init(s, groups)
	for i := 1; i <= 4; i++ {
		c.account(1, &rq, rq.rr, true, 0) // runs its slice out
		if rq.rr != 5*ms || c.bw[1].pool != int64(20-5*i)*ms {
			t.Fatalf("slice %d: runtime %d, pool %d; want 5 ms and %d ms", i, rq.rr, c.bw[1].pool, 20-5*i)
		}
	}
	s.now = 42 * ms
	c.account(1, &rq, 7*ms, true, 0) // 2 ms past the last slice, pool empty
	if rq.rr != -2*ms || len(s.resced) != 1 || !c.due(1, &rq) {
		t.Fatalf("overrun: runtime %d, resched %v, due %v; want -2 ms, one resched, due", rq.rr, s.resced, c.due(1, &rq))
	}
	if !c.throttle(1, 0, &rq) || !rq.throttled {
		t.Fatalf("throttle refused with an empty pool")
	}
	rq.throttledAt = s.now
	s.runUntil(100 * ms)
	if unthrottled != 1 || rq.throttled || rq.rr != 1 || c.bw[1].pool != 20*ms-2*ms-1 {
		t.Fatalf("after the period: unthrottled %d, throttled %v, runtime %d, pool %d; want 1, false, 1 ns, %d",
			unthrottled, rq.throttled, rq.rr, c.bw[1].pool, 20*ms-2*ms-1)
	}
	if st := c.groupStats(); len(st) != 1 || st[0].NrPeriods != 1 || st[0].NrThrottled != 1 || st[0].ThrottledNS != 8*ms {
		t.Errorf("cpu.stat %+v, want 1 period, 1 throttled, 8 ms throttled (42 ms to 50 ms: the first refill half a period after the timer started at 0)", st)
	}
	c.assign(1, &rq, c.slice)
	rq.rr = 3 * ms // ran 2 ms of the 5 ms slice, then the runqueue empties
	c.returnRuntime(1, &rq)
	if rq.rr != ms || c.bw[1].pool != 20*ms-2*ms-1-5*ms+1+2*ms {
		t.Errorf("slack return: runtime %d, pool %d; want 1 ms kept, %d", rq.rr, c.bw[1].pool, 20*ms-2*ms-1-5*ms+1+2*ms)
	}

	for _, tc := range []struct{ burst, want int64 }{{15 * ms, 35 * ms}, {0, 20 * ms}} {
		groups[1].Burst = tc.burst
		s := &timerSim{fakeSim: newFakeSim(1)}
		var rq rqRuntime
		c := bandwidthCtl{slice: defaultBandwidthSlice, rq: func(int) *rqRuntime { return &rq }, unthrottle: func(int) {}}
		c.init(s, groups)
		c.assign(1, &rq, c.slice) // 5 ms used this period, 15 ms left
		s.runUntil(100 * ms)
		if c.bw[1].pool != tc.want {
			t.Errorf("burst %d: pool after the refill %d, want %d", tc.burst, c.bw[1].pool, tc.want)
		}
	}
}
