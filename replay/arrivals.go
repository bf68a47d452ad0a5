package replay

import (
	"math/rand/v2"
	"slices"

	"github.com/traceview/traceview/trace"
)

// timerSlack is the default timer slack of a normal task in ns: a
// clock_nanosleep expires up to this long after the time it asked for
// (include/linux/init_task.h INIT_TASK .timer_slack_ns = 50000, Linux
// v6.18; PR_SET_TIMERSLACK in kernel/sys.c changes it). A recorded timer
// wakeup is that much after the arrival time the program computed.
const timerSlack = 50_000

// minArrivalSleeps is how many blocking points ending at absolute
// recorded times a task needs before splitArrivals takes it for an
// open-loop generator.
const minArrivalSleeps = 20

// minArrivalShare is the share of a task's blocking points that must end
// at absolute recorded times for splitArrivals to take it for an
// open-loop generator: its loop sleeps for arrivals, and a few other
// blocks (starting its workers, joining them at the end) do not decide.
const minArrivalShare = 0.9

// splitArrivals recovers the arrivals an open-loop generator handled
// without sleeping. A generator (absolute, not evenly spaced timer
// wakeups, see absoluteTimers) that is still busy, or waiting for a CPU,
// when its next arrival time passes does not sleep for it:
// clock_nanosleep(TIMER_ABSTIME) with a time in the past arms a timer that
// fires at once, and when its interrupt comes before the task reaches
// schedule() the task wakes itself while still running (sched_waking and
// sched_wakeup of the current task, which Extract keeps as ext.selfWakes).
// The recording then shows one burst where the program handled several
// arrivals; a replay that is earlier there than the recording should sleep
// between them, and one that is later should not (sim.passed). Left
// merged, a replay only ever loses sleeps: a self-replay of reqsrv on 2
// CPUs skipped 1108 of 3627 sleeps that the recording had made, on top of
// the 1426 arrivals the recording had already merged.
//
// Each self-wakeup in a burst is such an arrival, at the CPU offset where
// the task reached its sleep: the burst is split there, each piece keeping
// the actions and update points that fall in it. The arrival time itself
// is earlier than the self-wakeup (the task was late); with the arrivals
// of a Poisson process uniform over a window given their number (Kleinrock,
// Queueing Systems vol. 1, 1975, ch. 2), the h of them are drawn so over
// the window from the arrival that started the burst (its wakeup less
// timerSlack) to the last self-wakeup (splitBurst), the j-th never after
// its own self-wakeup. Measured on ../shared/traces, whose program
// states its arrivals (reqsrv prints "requests"): srv.2cpu 5053 arrivals,
// 3627 sleeps and 1426 self-wakeups; srv.1cpu 5053, 2279 and 2776 (one
// more: the last timer before its deadline); a held-back recording
// (srvB.2cpu: reqsrv 1800/s beside one hog) 3629, 2871 and 759.
//
// It returns the number of arrivals recovered. Wake actions aimed at a
// split task (Action.Block) and Task.Repeat are renumbered.
func (x *extractor) splitArrivals() int {
	m := x.m
	total := 0
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		sw := x.st[i].selfWakes
		if tk.Periodic || tk.Pool != 0 || len(sw) == 0 {
			continue
		}
		bs := tk.Bursts
		ext, blocks := 0, 0
		for k := range bs {
			if bs[k].End == EndBlock {
				blocks++
				if isArrival(&bs[k]) {
					ext++
				}
			}
		}
		if ext < minArrivalSleeps || float64(ext) < minArrivalShare*float64(blocks) {
			continue
		}
		out := make([]Burst, 0, len(bs)+len(sw))
		newIdx := make([]int, len(bs))
		for k := range bs {
			var pts []selfWake
			for len(sw) > 0 && sw[0].b < k {
				sw = sw[1:] // a burst index that no longer exists (trailing empty burst)
			}
			for len(sw) > 0 && sw[0].b == k {
				if p := sw[0]; p.off > 0 && p.off < bs[k].Len && (len(pts) == 0 || p.off > pts[len(pts)-1].off) {
					pts = append(pts, p)
				}
				sw = sw[1:]
			}
			if len(pts) == 0 {
				out = append(out, bs[k])
				newIdx[k] = len(out) - 1
				continue
			}
			arr := pts[0].t
			if k > 0 && isArrival(&bs[k-1]) {
				arr = min(bs[k-1].Wake.At-timerSlack, arr)
			}
			out = append(out, splitBurst(tk, bs[k], pts, arr)...)
			newIdx[k] = len(out) - 1
			total += len(pts)
		}
		if len(out) == len(bs) {
			continue
		}
		tk.Bursts = out
		tk.Pack()
		tk.OpenLoop = true
		if tk.Repeat >= 0 {
			tk.Repeat = newIdx[tk.Repeat]
		}
		// A wakeup aimed at block j of this task now ends the block after
		// the last piece of old burst j.
		for a := range m.Tasks {
			for b := range m.Tasks[a].Bursts {
				acts := m.Tasks[a].ActionsOf(&m.Tasks[a].Bursts[b])
				for c := range acts {
					if acts[c].Kind == ActWake && int(acts[c].Target) == i && acts[c].Block >= 0 && int(acts[c].Block) < len(newIdx) {
						acts[c].Block = int32(newIdx[acts[c].Block])
					}
				}
			}
		}
	}
	return total
}

// isArrival reports whether the block after b ends at an absolute
// recorded time (CauseExternal), as an open-loop generator's sleeps do.
func isArrival(b *Burst) bool { return b.End == EndBlock && b.Wake.Kind == CauseExternal }

// splitBurst cuts b, a burst of tk, at the self-wakeups pts (sorted, 0 < off < b.Len):
// len(pts) recovered arrivals, each a block whose absolute wake time is
// drawn from arr to the last self-wakeup and clamped to its own, then the
// last piece with b's own end. The times are the order statistics of
// len(pts) uniform draws over that window, which is what a Poisson
// process's arrivals are given their number (Kleinrock, Queueing Systems
// vol. 1, 1975, ch. 2), from a generator seeded by the window so that a
// trace always gives the same model. Their expected places, evenly
// spaced, were used before: a grid never brings two arrivals closer than
// the window's average gap, and a service replayed from a recording that
// had hit its CPU quota (its generator handled 75 ms of arrivals in one
// go after each unthrottle) then never had a request arrive while its
// workers were busy: without the quota its workers' scheduling delay came
// out 0.3x the kernel's (held-back grpq.q25 -> none: 130 waits of 0.3-1 ms
// where the kernel had 582).
func splitBurst(tk *Task, b Burst, pts []selfWake, arr int64) []Burst {
	h := len(pts)
	last := pts[h-1].t
	draws := make([]int64, h)
	if last > arr {
		rng := rand.New(rand.NewPCG(uint64(arr), uint64(last)^uint64(h)))
		for j := range draws {
			draws[j] = arr + 1 + rng.Int64N(last-arr)
		}
		slices.Sort(draws)
	} else {
		for j := range draws {
			draws[j] = last
		}
	}
	pieces := make([]Burst, h+1)
	lo := int64(0)
	for j := 0; j <= h; j++ {
		p := &pieces[j]
		hi := b.Len
		if j < h {
			hi = pts[j].off
			p.End, p.Wake = EndBlock, Cause{Kind: CauseExternal, At: min(draws[j], pts[j].t), Inferred: true}
		} else {
			p.End, p.Wake, p.Slept = b.End, b.Wake, b.Slept
		}
		if j == 0 {
			p.FromIdle, p.WokenBy, p.WokenRemote = b.FromIdle, b.WokenBy, b.WokenRemote
		}
		p.Len = hi - lo
		for _, a := range tk.ActionsOf(&b) {
			if a.At >= lo && (a.At < hi || j == h) {
				a.At -= lo
				tk.AddAction(p, a)
			}
		}
		for _, u := range tk.UpdatesOf(&b) {
			if u > lo && u < hi {
				tk.AddUpdates(p, u-lo)
			}
		}
		lo = hi
	}
	return pieces
}

// servesArrivals is the pass after splitArrivals that undoes a deadline
// inferred for a thread of an open-loop service: a task of the same
// process as an open-loop generator (Task.OpenLoop) works on the requests
// that generator issues, so what it does is set by the arrivals, not by a
// wall-clock deadline, even when a backlog (a CPU quota that throttles the
// service, too few CPUs) kept it running without a sleep long enough to
// look like a spinner. It is replayed after its recorded work (count-bound
// when it blocked three times or more, as inferUntil counts).
func servesArrivals(m *Model) {
	gen := map[trace.PID]bool{}
	for i := range m.Tasks {
		if m.Tasks[i].OpenLoop {
			gen[m.Tasks[i].PID] = true
		}
	}
	if len(gen) == 0 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.OpenLoop || !gen[tk.PID] || tk.Until != UntilDeadline || !tk.UntilInferred {
			continue
		}
		undoDeadline(m, tk)
	}
}

// undoDeadline makes tk, inferred deadline-bound, end after its recorded
// work again: count-bound when it blocked three times or more, as
// inferUntil counts, else work-bound; the model's counts follow.
func undoDeadline(m *Model, tk *Task) {
	blocks := 0
	for _, b := range tk.Bursts {
		if b.End == EndBlock {
			blocks++
		}
	}
	tk.Until, tk.Deadline, tk.Spinner, tk.SpinBurst, tk.Repeat = UntilWork, 0, false, 0, -1
	if tk.Workload {
		m.Stats.DeadlineBound--
		m.Stats.DeadlineInferred--
		m.Stats.WorkBound++
	}
	if blocks >= 3 {
		tk.Until = UntilCount
		if tk.Workload {
			m.Stats.WorkBound--
			m.Stats.CountBound++
		}
	}
}

// drainsProducer is the pass after servesArrivals that undoes a deadline
// inferred for the consumers of a paced producer (pacedProducer: a thread
// that sleeps a relative time between items): a thread of the producer's
// process that the producer woke (a queue's consumer, woken for an item)
// and that exits later after the producer's last item than its siblings'
// exits may spread (deadlineSpread of its life) drained a backlog of
// items: it ran out of work, not out of time. A consumer that stops at a
// flag the producer sets on its last timer (a benchmark's main thread
// timing its workers) exits right after that timer and keeps its
// deadline. New-user pass 116 F2's shape, made busy: pool.c with 1
// producer and 3 workers, 300 items of 6 ms one every 2 ms, recorded on 2
// CPUs; each worker waited once for its first item, ran 566-626 ms
// without a block and exited 335 ms after the last item, together, so
// they looked like siblings spinning to a deadline and --cpus 1 predicted
// a makespan of 942 ms where the 1-CPU recording took 1815 ms.
func (x *extractor) drainsProducer() {
	m := x.m
	for p := range m.Tasks {
		if !x.pacedProducer(p) {
			continue
		}
		gen := &m.Tasks[p]
		var lastItem int64 = -1
		for k := range gen.Bursts {
			if b := &gen.Bursts[k]; isPacedArrival(b) {
				lastItem = max(lastItem, b.Wake.At)
			}
		}
		if lastItem < 0 {
			continue
		}
		for i := range m.Tasks {
			tk := &m.Tasks[i]
			if i == p || tk.PID != gen.PID || tk.Until != UntilDeadline || !tk.UntilInferred ||
				float64(tk.Last-lastItem) <= deadlineSpread*float64(tk.Last-tk.Start) {
				continue
			}
			fed := false
			for k := range tk.Bursts {
				if w := tk.Bursts[k].Wake; tk.Bursts[k].End == EndBlock && w.Kind == CauseDependency && int(w.Waker) == p {
					fed = true
					break
				}
			}
			if fed {
				undoDeadline(m, tk)
			}
		}
	}
}

// pacedProducer reports whether task p paces itself with relative sleeps:
// at least minArrivalSleeps of its blocks, and minArrivalShare of them,
// end at a timer (CauseTimer: nanosleep, usleep), as an open-loop
// generator's end at absolute times (splitArrivals); an item follows each
// (drainsProducer). Periodic tasks and pool members are not producers.
func (x *extractor) pacedProducer(p int) bool {
	tk := &x.m.Tasks[p]
	if tk.Periodic || tk.Pool != 0 || tk.PID <= 0 {
		return false
	}
	timers, blocks := 0, 0
	for k := range tk.Bursts {
		if b := &tk.Bursts[k]; b.End == EndBlock {
			blocks++
			if isPacedArrival(b) {
				timers++
			}
		}
	}
	return timers >= minArrivalSleeps && float64(timers) >= minArrivalShare*float64(blocks)
}

// isPacedArrival reports whether the block after b ends at a timer
// (CauseTimer): a paced producer's next item follows it.
func isPacedArrival(b *Burst) bool { return b.End == EndBlock && b.Wake.Kind == CauseTimer }
