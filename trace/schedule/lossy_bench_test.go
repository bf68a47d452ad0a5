package schedule_test

import (
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// lossyPingPong is n rounds of task 2 on CPU 0 waking task 3 onto CPU 1,
// 3 running and sleeping, every round with a 10 µs loss on CPU 1 known
// ahead (a KindLost with Runtime, as perf.data's LOST records read ahead
// give it) 50 µs after 3's sleep: every delay is measured against every
// window known so far unless the search is bounded.
func lossyPingPong(n int) []trace.Event {
	var evs []trace.Event
	t := int64(1000)
	evs = append(evs, sw(t, 0, 0, trace.TaskState(0), 2), sw(t, 1, 0, trace.TaskState(0), 3))
	for i := 0; i < n; i++ {
		t += 100_000
		evs = append(evs, sw(t, 1, 3, trace.TaskState(1), 0)) // 3 sleeps
		l := lost(t+50_000, 1, 5)
		l.Runtime = 10_000
		evs = append(evs, l)
		evs = append(evs, waking(t+70_000, 0, 2, 3, 1), sw(t+71_000, 1, 0, trace.TaskState(0), 3))
	}
	return evs
}

// BenchmarkLossyAhead: latency of a lossy recording scaled with the number
// of lost windows known ahead times the number of delays (lossy and
// noteQueue scanned every window at every delay and wakeup: a perf sched
// record -m 1 file of new-user pass 62, 13717 windows, 744,000 events, took
// 4.0 s; 0.46 s with both searches bounded by the longest window). Per
// operation: 20,000 rounds; measured 2026-12-07, 545 ms/op before, 8.2
// ms/op after (-benchtime 3x, load 1-2).
func BenchmarkLossyAhead(b *testing.B) {
	evs := lossyPingPong(20_000)
	for b.Loop() {
		var n int
		bl := schedule.New(schedule.Options{}, schedule.Hooks{Delay: func(d *schedule.Delay) { n++ }})
		for i := range evs {
			bl.Observe(&evs[i])
		}
		bl.Finish()
		if n == 0 {
			b.Fatal("no delay")
		}
	}
}
