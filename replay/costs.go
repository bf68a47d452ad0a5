package replay

import (
	"cmp"
	"slices"
	"sort"
	"sync"
)

// measureCosts measures the extra CPU time of a remote wakeup for the
// waker (measureWakeupCost) and the wakee (measureWakeeCost), and of a burst
// started on a CPU just out of idle (measureIdleStartCost).
func (x *extractor) measureCosts() {
	m := x.m
	// The three measurements only read the tasks: they run at once.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); m.RemoteWakeupCost, m.WakeupCostSamples = measureWakeupCost(m.Tasks) }()
	go func() { defer wg.Done(); m.RemoteWakeeCost, m.WakeeCostSamples = measureWakeeCost(m.Tasks) }()
	m.IdleStartCost, m.IdleStartCostSamples = measureIdleStartCost(m.Tasks)
	wg.Wait()
}

// measureLatencies sets the idle exit and wakeup preemption latencies (the
// medians of what the extractor measured) and the context switch cost
// (run time between recorded switches that sched_stat_runtime charged to
// no task, on average), each bounded by boundCost. A woken task that ran
// next on its CPU after the running task was switched out runnable at a
// tick (Model.TickPhase, within tickWindow) after a wakeup outside that
// tick's window did not preempt it: the tick did, once slice protection
// let it, and its wait is scheduling delay, not the wakeup's latency (a
// low-weight group's task on this VM waits 1-3 ms for the tick at most of
// its wakeups: grpl.a128.1cpu); those samples are left out when the tick
// is known. A wakeup in the tick's own window (a timer the tick expired)
// stays a sample.
func (x *extractor) measureLatencies() {
	m := x.m
	m.IdleExit = m.boundCost("idle exit", median(x.idle))
	pre := x.preempt
	if m.HZ > 0 && len(x.preemptAt) == len(pre) {
		pre = nil
		for k, d := range x.preempt {
			if at := x.preemptAt[k]; !m.atTick(at) || m.atTick(at-d) {
				pre = append(pre, d)
			}
		}
	}
	m.WakePreempt = m.boundCost("wakeup preemption", median(pre))
	if x.sawRT && x.ovN > 0 && x.ovSum > 0 {
		m.ContextSwitchCost = m.boundCost("context switch", x.ovSum/x.ovN)
	}
}

// maxMeasuredCost bounds a cost or latency Extract measures in a trace
// (Model.IdleExit, WakePreempt, ContextSwitchCost): 1 ms. A context switch costs
// a few µs, an idle exit or a reschedule IPI tens of µs even in a VM (the
// largest on ../shared/traces: 30 µs idle exit, 13 µs wakeup preemption
// on messaging.2cpu); a median or mean above 1 ms measures something else
// (a run preempted again before the wakee got the CPU, a vCPU the
// hypervisor did not run) or damage (a context switch of 12,265,122 s was
// measured on a damaged file). It is reported as not measurable.
const maxMeasuredCost = int64(1e6)

// boundCost returns the measured cost v of name, or 0 (none measured, as
// when the trace shows no case of it) when v is above maxMeasuredCost,
// recording why in Model.Unmeasured. (Each sample is also bounded by the
// interval it was measured over, by construction: a run's time charged
// to no task is at most the run, as checkEvent keeps times in order and
// run times non-negative; a delay from a wakeup to the switch-in is the
// interval itself. Bounding the mean by the shortest run instead rejected
// plausible costs of undamaged traces: messaging.1cpu's 11.3 µs context
// switch beside a run of 5.1 µs.)
func (m *Model) boundCost(name string, v int64) int64 {
	if v <= maxMeasuredCost {
		return v
	}
	m.Unmeasured = append(m.Unmeasured, UnmeasuredCost{Name: name, Measured: v, Bound: maxMeasuredCost})
	return 0
}

// minWakeCostSamples is how many bursts of one task with the same number
// of wakeups and the same number of them remote measureWakeupCost needs
// before it compares their lengths: a median of fewer is noise.
const minWakeCostSamples = 8

// maxWakeCostSpread is the largest spread (median absolute deviation over
// the median) of a group of bursts measureWakeupCost compares: bursts that
// vary more than that do varying work, and their difference says nothing
// about the wakeup. The 0.5 is twice maxRelativeSpread (what still reads as
// one requested sleep length); on ../shared/traces reqsrv's generator
// bursts spread 0.17-0.29, its workers' (one to many requests each)
// 0.45-0.69.
const maxWakeCostSpread = 0.5

// maxRemoteWakeCost bounds a plausible cross-CPU wakeup cost: 100 µs. A
// reschedule IPI costs about 1-5 µs on bare metal and tens of µs in a VM
// (an exit to the hypervisor and an injected interrupt; 24 µs measured on
// this VM, see measureWakeupCost); a larger difference between two groups
// of bursts means they do different work (pipeline.2cpu: frame bursts that
// wake the next stage remotely against short hand-offs), not a costlier
// wakeup.
const maxRemoteWakeCost = 100_000

// measureWakeupCost estimates the extra CPU time a cross-CPU wakeup costs its
// waker, from the trace alone. Within one task, bursts that end by
// blocking and send the same number k of wakeups do about the same work
// (a generator writing one request, a sender writing to its receivers);
// among them, those where r of the k wakeups went to another CPU are
// longer by r times the remote cost. For each task and k, the medians of
// the burst lengths at the smallest and the largest r seen (each group
// with minWakeCostSamples bursts or more and a spread under
// maxWakeCostSpread) give a slope; slopes beyond ±maxRemoteWakeCost are
// dropped, and the estimate is their median weighted by the bursts
// behind each (the smaller group's count times the r difference).
// Measured on ../shared/traces: reqsrv's generator (srv.2cpu) bursts with
// one local wakeup last 22 µs, with one remote 46 µs. Returns the cost in
// ns (0 when not positive) and the bursts it rests on (0: not measurable).
func measureWakeupCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxWakeCostSpread, func(t *Task, b *Burst) (group, x int, ok bool) {
		k, r := wakesSent(t, b)
		return k, r, k > 0
	})
}

// wakesSent counts the wakeups burst b of task t sends and how many of them the
// recording sent to another CPU.
func wakesSent(t *Task, b *Burst) (k, r int) {
	for _, a := range t.ActionsOf(b) {
		if a.Kind == ActWake {
			k++
			if a.Remote {
				r++
			}
		}
	}
	return k, r
}

// measureWakeeCost estimates the extra CPU time a task spends in a burst
// that another task woke from another CPU rather than its own: what the
// waker wrote (a request in a pipe, a message) and the wakee's own state
// reach it through another CPU's cache, and in a VM through the
// hypervisor's delivery of the wakeup. As in measureWakeupCost, within one
// task bursts that end by blocking and send the same wakeups (k, r) do
// about the same work; the medians of those woken remotely and those woken
// locally (Burst.WokenRemote) give a slope, and the estimate is the
// weighted median of the slopes, bounded by maxRemoteWakeCost. A wakee's
// bursts vary with what it finds (a pipe reader woken for a request
// another reader took goes back to sleep within microseconds), so each
// group must read as one length of work: a spread within
// maxRelativeSpread, not maxWakeCostSpread. On a held-back recording (two
// reqsrv workers woken from the other CPU 1368 times, from their own 27,
// mostly such empty wakeups: 13 µs median, 7 and 123 µs quartiles) the
// looser bound took 77 µs for the cost and a self-replay gave back 90 ms
// of CPU. Measured on
// ../shared/traces: reqsrv's workers on srv.2cpu serve one request in
// 215-220 µs woken from their own CPU, 267-271 µs woken from the other.
// Returns the cost in ns (0 when not positive) and the bursts it rests on.
func measureWakeeCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxRelativeSpread, func(t *Task, b *Burst) (group, x int, ok bool) {
		if !b.WokenBy {
			return 0, 0, false
		}
		k, r := wakesSent(t, b)
		x = 0
		if b.WokenRemote {
			x = 1
		}
		return k<<16 | r, x, true
	})
}

// idleWarmup is how long after a CPU leaves idle a burst that starts
// there still pays for it: 100 µs, measured on this project's VM (a KVM
// guest). In a held-back recording (reqsrv 1800/s beside one hog on 2
// CPUs, the reqsrv CPU idle between requests) the workers' one-request
// bursts that start under 100 µs after their CPU left idle (after the
// generator, which ran first) last 131.7 µs (median of 1946), those that
// start later 113.0 µs (1497), as all of them do in the same workload
// pinned to a CPU that never idles (113.6 µs, 3011); a bare loop of
// 100,000 iterations after a 0.5 ms sleep took 8-25 µs longer from an idle
// CPU than with a SCHED_IDLE spinner keeping the CPU busy, one of 1,000,000
// no longer (the lead's measurements of 2026-12-02).
const idleWarmup = 100_000

// measureIdleStartCost estimates the extra CPU time a burst costs when it
// starts on a CPU that left idle less than idleWarmup before, rather than
// on one busy for longer: the idle CPU's caches and TLB have gone cold
// meanwhile (in a VM the halted vCPU's physical CPU ran other work), and
// the first work after it pays to refill them. As in measureWakeupCost, bursts of one task that end by
// blocking, send the same wakeups (k, r) and were woken from the same side
// do about the same work; the medians of those that started from idle
// (Burst.FromIdle) and those that did not give a slope. Measured on this
// project's VM: a held-back recording of reqsrv beside one hog on 2 CPUs
// (reqsrv 1800 300 3 2 7 500, the reqsrv CPU idle between requests), the
// generator's bursts that wake one worker last 18.7 µs after another task
// and 25.9 µs from idle, 7.2 µs over 2926 bursts in all. Returns the cost
// in ns (0 when not positive) and the bursts it rests on.
func measureIdleStartCost(tasks []Task) (cost int64, samples int) {
	return measureSlope(tasks, maxRelativeSpread, func(t *Task, b *Burst) (group, x int, ok bool) {
		k, r := wakesSent(t, b)
		w := 0
		if b.WokenRemote {
			w = 1
		}
		if b.FromIdle {
			x = 1
		}
		return k<<16 | r<<1 | w, x, true
	})
}

// measureSlope is the estimator behind measureWakeupCost and
// measureWakeeCost: class maps a burst that ends by blocking to a group
// of bursts of like work and a count x of the costly events in it. Per
// task and group, the medians of the burst lengths at the smallest and the
// largest x seen (each with minWakeCostSamples bursts or more and a spread,
// median absolute deviation over median, of at most spread) give a slope
// per event; slopes beyond
// ±maxRemoteWakeCost are dropped, and the estimate is their median
// weighted by the bursts behind each (the smaller group's count times the
// x difference).
func measureSlope(tasks []Task, spread float64, class func(t *Task, b *Burst) (group, x int, ok bool)) (cost int64, samples int) {
	var sl []slope
	var (
		recs    []slopeRec // one task's bursts, grouped by sorting (a map of slices allocated per group: 0.1 s a run on bench/replaymem's file)
		lens    []int64    // recs' lengths in that order: each group's run
		scratch []int64    // for the medians
	)
	tight := func(g []int64) bool {
		var med, dev int64
		med, dev, scratch = madInto(g, scratch)
		return med > 0 && float64(dev) <= spread*float64(med)
	}
	for i := range tasks {
		recs = recs[:0]
		for k := range tasks[i].Bursts {
			b := &tasks[i].Bursts[k]
			if b.End != EndBlock || b.Len <= 0 {
				continue
			}
			g, x, ok := class(&tasks[i], b)
			if !ok {
				continue
			}
			recs = append(recs, slopeRec{g: g, x: x, len: b.Len})
		}
		if len(recs) < 2*minWakeCostSamples {
			continue // no two groups of minWakeCostSamples
		}
		// By group, then x: each (group, x) a run. Within a run the order
		// is any: the medians do not depend on it.
		slices.SortFunc(recs, func(a, b slopeRec) int {
			if c := cmp.Compare(a.g, b.g); c != 0 {
				return c
			}
			return cmp.Compare(a.x, b.x)
		})
		lens = lens[:0]
		for _, r := range recs {
			lens = append(lens, r.len)
		}
		// Each group (ascending, as the slopes were always taken): the
		// runs of the smallest and the largest x that qualify.
		for a := 0; a < len(recs); {
			g := recs[a].g
			var gl, gh []int64
			lo, hi := -1, -1
			for a < len(recs) && recs[a].g == g {
				x, e := recs[a].x, a
				for e < len(recs) && recs[e].g == g && recs[e].x == x {
					e++
				}
				if v := lens[a:e]; len(v) >= minWakeCostSamples && tight(v) {
					if lo < 0 {
						lo, gl = x, v
					}
					hi, gh = x, v
				}
				a = e
			}
			if lo < 0 || lo == hi {
				continue
			}
			var ml, mh int64
			ml, scratch = medianInto(gl, scratch)
			mh, scratch = medianInto(gh, scratch)
			v := (mh - ml) / int64(hi-lo)
			if v < -maxRemoteWakeCost || v > maxRemoteWakeCost {
				continue
			}
			sl = append(sl, slope{v, min(len(gl), len(gh)) * (hi - lo)})
			samples += len(gl) + len(gh)
		}
	}
	if len(sl) == 0 {
		return 0, 0
	}
	return max(weightedMedian(sl), 0), samples
}

// slope is one group's cost per event in ns (measureSlope) and its weight.
type slope struct {
	v int64
	w int
}

// weightedMedian returns the first value of sl, in ascending order, at
// which the weights reach half their sum (sl is sorted in place); 0 for
// none. Equal values are one value: their order in sl does not matter.
func weightedMedian(sl []slope) int64 {
	sort.Slice(sl, func(a, b int) bool { return sl[a].v < sl[b].v })
	total := 0
	for _, x := range sl {
		total += x.w
	}
	acc := 0
	for _, x := range sl {
		if acc += x.w; 2*acc >= total {
			return x.v
		}
	}
	return 0
}

// slopeRec is a burst measureSlope compares: its group, its count x of
// costly events and its length in ns.
type slopeRec struct {
	g, x int
	len  int64
}
