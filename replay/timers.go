package replay

// tickHZs are the CONFIG_HZ values Linux offers (kernel/Kconfig.hz).
var tickHZs = []int{100, 250, 300, 1000}

// tickWindow is the span in ns around the densest 10 µs of the tick
// phase within which a sched_stat_runtime is taken as the tick's
// (task_tick_fair -> update_curr): from tickWindow/4 before to 3/4 after.
// Measured on this project's VM: the tick events of ../shared/traces
// spread over about 60 µs after the period's start (srv.2cpu: 1440-1500 µs
// into each 4 ms period on both CPUs; messaging.wk 708-721 µs).
const tickWindow = 100_000

// inferTick finds the tick rate and phase from the times ts of the
// mid-run sched_stat_runtime events, task[k] being the task of ts[k]: for
// each CONFIG_HZ value the 10 µs bins of t mod period, the densest 50 µs
// window, and its excess over an even spread (the score). Each task
// votes with a total weight of min(n, tickVoters)/tickVoters over its n
// events, so that a task that accounts its own run time at fixed points
// of each of its runs (clock_gettime(CLOCK_THREAD_CPUTIME_ID) in a
// periodic loop: hundreds of events on the period's grid, which a 1000 Hz
// grid folds together) weighs no more than any other task that runs
// across ticks. The lowest HZ scoring at least 80 % of the best wins, if
// the best window holds at least 20 events and its votes 5 % more than an
// even spread would; else 0 (unknown).
func inferTick(ts []int64, task []int) (hz int, phase int64) {
	const bin = 10_000
	w := 5 // the densest 50 µs decides the HZ
	n := map[int]int{}
	for _, i := range task {
		n[i]++
	}
	weight := func(k int) float64 {
		return 1 / float64(max(n[task[k]], tickVoters))
	}
	total := 0.0
	for k := range ts {
		total += weight(k)
	}
	// A 250 Hz tick also lies on the 1 ms grid, which then scores almost
	// as well: take the lowest HZ within 80 % of the best score.
	type sc struct {
		score float64
		phase int64
	}
	scores := make([]sc, len(tickHZs))
	for h, hzv := range tickHZs {
		p := int64(1e9) / int64(hzv)
		nb := int(p / bin)
		cnt := make([]int, nb)
		vote := make([]float64, nb)
		for k, t := range ts {
			b := int((t%p+p)%p/bin) % nb
			cnt[b]++
			vote[b] += weight(k)
		}
		sum, events := 0.0, 0
		for k := 0; k < w; k++ {
			sum += vote[k]
			events += cnt[k]
		}
		top, topEvents, at := sum, events, 0
		for k := 1; k < nb; k++ {
			sum += vote[(k+w-1)%nb] - vote[k-1]
			events += cnt[(k+w-1)%nb] - cnt[k-1]
			if sum > top {
				top, topEvents, at = sum, events, k
			}
		}
		score := top/total - float64(w)/float64(nb)
		if topEvents < 20 {
			score = 0
		}
		// The phase: the bin of the window with the most votes.
		pk := at
		for k := at; k < at+w; k++ {
			if vote[k%nb] > vote[pk%nb] {
				pk = k
			}
		}
		scores[h] = sc{score, int64(pk%nb) * bin}
	}
	best := 0.0
	for _, c := range scores {
		best = max(best, c.score)
	}
	if best < 0.05 {
		return 0, 0
	}
	for h, c := range scores {
		if c.score >= 0.8*best {
			return tickHZs[h], c.phase
		}
	}
	return 0, 0
}

// tickVoters is the number of events from which a task's vote in
// inferTick stops growing: a task with fewer counts in proportion (a
// short-lived task with 3 events weighs 0.3 of one that ran across ten
// ticks or more). Ten is a judgement, not a fit: enough that a task's
// vote rests on several of its runs.
const tickVoters = 10

// atTick reports whether time t (ns) falls in the window of a tick of the
// inferred rate and phase (tickWindow: a quarter before, three quarters
// after); false when the tick is not known.
func (m *Model) atTick(t int64) bool {
	if m.HZ <= 0 {
		return false
	}
	p := int64(1e9) / int64(m.HZ)
	return ((t-m.TickPhase+tickWindow/4)%p+p)%p < tickWindow
}

// updatePoints infers the tick and keeps the candidate update points that
// are not the tick's as the bursts' update points (Task.AddUpdates).
func (x *extractor) updatePoints() {
	m := x.m
	ts := make([]int64, 0, x.cands.n)
	task := make([]int, 0, x.cands.n)
	for _, cs := range x.cands.chunks {
		for _, c := range cs {
			ts, task = append(ts, c.t), append(task, c.i)
		}
	}
	m.HZ, m.TickPhase = inferTick(ts, task)
	m.Stats.EnqueueUpdates = x.nEnqueue
	var p int64
	if m.HZ > 0 {
		p = int64(1e9) / int64(m.HZ)
	}
	for _, cs := range x.cands.chunks {
		for _, c := range cs {
			if p > 0 && m.atTick(c.t) {
				m.Stats.TickUpdates++
				continue
			}
			tk := &m.Tasks[c.i]
			b := &tk.Bursts[c.b]
			if ups := tk.UpdatesOf(b); c.off <= 0 || c.off >= b.Len || len(ups) > 0 && ups[len(ups)-1] >= c.off {
				continue
			}
			tk.AddUpdates(b, c.off)
			m.Stats.UpdatePoints++
		}
	}
	for i := range m.Tasks {
		if len(m.Tasks[i].updSpans) > 0 {
			m.Tasks[i].packUpdates() // AddUpdates copied a burst's points at each
		}
	}
}

// minTimerSamples is how many timer wakeups a task needs before Extract
// decides from their spread whether they are relative sleeps or absolute.
const minTimerSamples = 4

// maxRelativeSpread is the largest spread of a task's sleep lengths
// (median absolute deviation over the median) that still reads as one
// requested length: a nanosleep(d) loop sleeps d plus the timer slack
// (50 µs by default, kernel/sys.c PR_SET_TIMERSLACK) and the wakeup
// latency. Measured on ../shared/traces: massive_intr's 2 ms and 1 ms
// sleeps spread 0.2-3 %; reqsrv's Poisson arrivals (an absolute
// clock_nanosleep per request) about 50 %, as an exponential's MAD/median
// (≈ 0.7) predicts.
const maxRelativeSpread = 0.25

// absoluteTimers decides, per task, whether its timer wakeups are relative
// sleeps (nanosleep(d): the sleep length is the invariant, and a late task
// wakes late) or absolute (clock_nanosleep(TIMER_ABSTIME), a periodic
// timer, requests arriving at times of their own: the wake time is the
// invariant, whatever the schedule). A relative sleep makes the sleep
// lengths steadier than the intervals between wakeups (those also hold the
// CPU bursts and their delays) and concentrated on the requested length;
// an absolute one makes the intervals at least as steady as the sleeps
// (the sleep absorbs the burst before it). Spread is the median absolute
// deviation, so a few overruns (a periodic loop that missed a period) do
// not decide. Tasks that fail either test get CauseExternal at the
// recorded wake time; the others keep CauseTimer.
func (x *extractor) absoluteTimers() {
	for i := range x.m.Tasks {
		bs := x.m.Tasks[i].Bursts
		var idx []int
		for k := range bs {
			if bs[k].End == EndBlock && bs[k].Wake.Kind == CauseTimer {
				idx = append(idx, k)
			}
		}
		if len(idx) < minTimerSamples {
			continue
		}
		sleeps := make([]int64, len(idx))
		gaps := make([]int64, 0, len(idx)-1)
		for n, k := range idx {
			sleeps[n] = bs[k].Wake.Delay
			if n > 0 {
				gaps = append(gaps, bs[k].Wake.At-bs[idx[n-1]].Wake.At)
			}
		}
		ms, dev := mad(sleeps)
		gm, gdev := mad(gaps)
		if dev <= gdev && float64(dev) <= maxRelativeSpread*float64(ms) {
			continue
		}
		x.m.Tasks[i].Periodic = float64(gdev) <= maxRelativeSpread*float64(gm)
		if x.m.Tasks[i].Periodic {
			x.m.Tasks[i].Period = periodOver(bs[idx[0]].Wake.At, bs[idx[len(idx)-1]].Wake.At, gm, gdev)
		}
		for _, k := range idx {
			bs[k].Wake = Cause{Kind: CauseExternal, At: bs[k].Wake.At, Inferred: bs[k].Wake.Inferred}
			x.m.Stats.AbsoluteTimers++
		}
		// Its timers: those it slept for and those that expired while it
		// ran (self-wakeups, which splitArrivals turns into arrivals).
		timers := len(idx)
		if i < len(x.st) {
			timers += len(x.st[i].selfWakes)
		}
		x.timerLikeWakeups(i, timers)
	}
}

// maxStrayWakeShare is the largest share of an absolute-timer task's timer
// wakeups (those it slept for and those that expired while it ran) that
// another task may appear to have caused and still be taken for timers
// (timerLikeWakeups). Measured on a held-back grpq.none
// recording: reqsrv's generator, which only ever sleeps in an absolute
// clock_nanosleep, has 2445 timer wakeups, 8 preemptions by a worker it had
// just woken that pingPong took for waits on that worker, and 1 wakeup perf
// shows in a worker's context (0.37 % together; srv.2cpu: 9 of 5045); a
// task another wakes for real (a pipe, a futex) is woken at each exchange,
// at a rate set by the waker's work. 1 % leaves a margin of 2.7 over that
// measurement.
const maxStrayWakeShare = 0.01

// timerLikeWakeups gives the inferred dependencies of absolute-timer task
// i (its wakeups perf.data shows in another task's context, which names no
// waker, and the preemptions pingPong took for waits) on a task that caused
// at most maxStrayWakeShare of i's timers timers a deadline: the recorded
// time (Cause.ByAt), whichever of the two comes first. Left to the waker
// alone, such a wakeup holds the task until the waker's work reaches that
// point: in a what-if that queues the waker's work behind a quota
// (grpq.none -> q25) the generator of an open-loop service then stopped
// issuing requests for 200 ms. The dependency stays, for the schedules that
// keep the recorded order: there the waker ends the block where it did, on
// its CPU (a self-replay of srv.2cpu with the 9 taken for timers alone put
// the generator on the hog's CPU: hog switches 0.87x -> 0.56x).
func (x *extractor) timerLikeWakeups(i, timers int) {
	bs := x.m.Tasks[i].Bursts
	n := map[int32]int{}
	for k := range bs {
		if c := bs[k].Wake; bs[k].End == EndBlock && c.Kind == CauseDependency && c.Inferred && c.At > 0 {
			n[c.Waker]++
		}
	}
	for k := range bs {
		c := &bs[k].Wake
		if bs[k].End == EndBlock && c.Kind == CauseDependency && c.Inferred && c.At > 0 &&
			float64(n[c.Waker]) <= maxStrayWakeShare*float64(timers) {
			c.ByAt = true
			x.m.Stats.AbsoluteTimers++
		}
	}
}

// periodOver refines a periodic task's period from the median gap gm
// between its wakeups: the span from its first to its last wakeup (first,
// last, ns) over the whole number of periods nearest to span/gm. An
// absolute timer's wakeups sit on its grid (skipped periods included), so
// the span holds a whole number of periods within two wakeups' jitter,
// where the median of single gaps carries the jitter's skew: on a held-back
// recording of ../shared/workloads' periodic 2000 µs (2026-12-04), the
// median gap was 2000635 ns and the span gave 1999.99x µs; 635 ns a period
// moved the replay's wakeups 0.8 ms against the tick over 1250 periods.
// A timer that is not on a grid (a relative one that drifts) gives a span
// estimate away from the gaps: it is kept only within dev, the gaps'
// median absolute deviation, of gm.
func periodOver(first, last, gm, dev int64) int64 {
	span := last - first
	if gm <= 0 || span < gm {
		return gm
	}
	p := span / ((span + gm/2) / gm)
	if p-gm > dev || gm-p > dev {
		return gm
	}
	return p
}

// relativeUnknownWakes makes the blocks of unknown cause (CauseExternal
// inferred: a switch-in with no recorded wakeup, a run with no recorded
// switch-in after a sleep) of a task that sleeps on relative timers
// (CauseTimer blocks, no absolute ones: absoluteTimers kept them) relative
// too: a timer of the length slept in the trace. At its recorded absolute
// time, a replay that ran the task ahead of the trace (more CPUs) held it
// asleep until then: one of six massive_intr workers slept 1.25 s that
// the trace never showed, with CPUs free, and ran 0.39x its siblings
// (new-user pass 70 F2). Open-loop and periodic tasks, pool members, a
// SCHED_DEADLINE task's replenishment (Cause.Throttle) and a block whose
// length is unknown (asleep since before the trace) keep their absolute
// time.
func relativeUnknownWakes(m *Model) {
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.OpenLoop || tk.Periodic || tk.Pool > 0 {
			continue
		}
		timers, absolute := 0, false
		for k := range tk.Bursts {
			b := &tk.Bursts[k]
			if b.End != EndBlock {
				continue
			}
			if b.Wake.Kind == CauseTimer {
				timers++
			}
			absolute = absolute || b.Wake.Kind == CauseExternal && !b.Wake.Inferred
		}
		if timers == 0 || absolute {
			continue
		}
		for k := range tk.Bursts {
			b := &tk.Bursts[k]
			if b.End == EndBlock && b.Wake.Kind == CauseExternal && b.Wake.Inferred && !b.Wake.Throttle && b.Slept > 0 {
				b.Wake = Cause{Kind: CauseTimer, Delay: b.Slept, At: b.Wake.At, Inferred: true}
				m.Stats.RelativeUnknownWakes++
			}
		}
	}
}
