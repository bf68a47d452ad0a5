package replay

import "github.com/traceview/traceview/trace"

// pingPongWindow: a task preempted by the task it woke at most this many ns
// before, that gets its CPU back when that task blocks there within this
// many ns (a quick reply, not independent work), is taken to have waited
// for it (see pingPong).
const pingPongWindow = 100_000

// pingPong handles the switch back to task i after the task it woke
// preempted it: when that task just blocked on the same CPU and handed the
// CPU straight back, i evidently waited for it (sched-pipe's writer waits
// for the reader's reply, which it finds ready and so never blocks). The
// preemption becomes an inferred blocking point of i, ended by the wakee
// at the end of the burst it just finished; otherwise a faster schedule
// would let i run ahead of the data it consumes.
func (x *extractor) pingPong(i int, ev *trace.Event) {
	s := &x.st[i]
	w := s.pp - 1
	s.pp = 0
	ws := &x.st[w]
	prev, _ := x.byTID.get(ev.TID) // 0 when none, as a map's zero value
	if ev.TID <= 0 || prev != w || !ws.sleeping || ev.PrevState.Runnable() || s.running ||
		ev.Time-s.ppAt > pingPongWindow {
		return
	}
	wb := &ws.bursts
	if wb.len() < 2 || wb.last(1).End != EndBlock {
		return
	}
	x.endBurst(i, EndBlock)
	ib := &s.bursts
	ib.last(1).Wake = Cause{Kind: CauseDependency, Waker: int32(w), Inferred: true, At: ev.Time}
	ib.last(1).Slept = ev.Time - s.ppAt
	b := wb.last(1)
	ws.addAction(b, Action{At: b.Len, Kind: ActWake, Target: int32(i), Block: int32(ib.len() - 2)})
	x.m.Stats.PingPongs++
}
