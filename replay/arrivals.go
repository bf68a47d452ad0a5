package replay

import "math"

// TimerSlack is the default timer slack of a normal task in ns: a
// clock_nanosleep expires up to this long after the time it asked for
// (include/linux/init_task.h INIT_TASK .timer_slack_ns = 50000, Linux
// v6.18; PR_SET_TIMERSLACK in kernel/sys.c changes it). A recorded timer
// wakeup is that much after the arrival time the program computed.
const TimerSlack = 50_000

// MinArrivalSleeps is how many recorded sleeps of an open-loop generator
// splitArrivals needs before it estimates the arrival rate from them.
const MinArrivalSleeps = 20

// MinArrivalShare is the share of a task's blocking points that must end
// at absolute recorded times for splitArrivals to take it for an
// open-loop generator: its loop sleeps for arrivals, and a few other
// blocks (starting its workers, joining them at the end) do not decide.
const MinArrivalShare = 0.9

// splitArrivals recovers the arrivals an open-loop generator handled
// without sleeping. A generator (absolute, not evenly spaced timer
// wakeups, see absoluteTimers) that is still busy, or waiting for a CPU,
// when its next arrival time passes does not sleep for it:
// clock_nanosleep(TIMER_ABSTIME) with a time in the past returns at once.
// The recording then shows one burst where the program handled several
// arrivals; a replay that is earlier there than the recording should
// sleep between them, and one that is later should not (sim.passed). Left
// merged, a replay only ever loses sleeps: a self-replay of reqsrv on 2
// CPUs skipped 1108 of 3627 sleeps that the recording had made, on top of
// the about 1400 arrivals the recording had already merged.
//
// The arrival process is taken for a Poisson process, as open-loop load
// is (Kleinrock, Queueing Systems vol. 1, 1975, ch. 2): its sleeps, less
// the timer slack, are then exponential with mean 1/λ whatever came
// before them (memorylessness), so λ = sleeps / Σ(sleep − TimerSlack);
// and the number of arrivals in a busy window (the recorded arrival, at
// the wakeup less the slack, to the block) has mean λ·window. Rounding is
// carried from window to window, so the total is λ·Σwindow to within one.
// Each recovered arrival splits its burst: the burst's CPU time is shared
// evenly between the arrivals, its actions and update points go with the
// piece they fall in, and the arrival time is spread evenly over the
// window but never after the recorded time the generator reached that
// sleep (it did not sleep there). Measured on ../shared/traces, whose
// program states its arrivals (reqsrv prints "requests"): srv.2cpu has
// 5053 arrivals and 3627 arrival sleeps, 5209 with the recovered ones
// (+3.1 %); srv.2cpu-r2 3571 and 5204 (+3.0 %); srv.1cpu 2278 and 5148
// (+1.9 %); a held-back recording (srvB.2cpu: reqsrv 1800/s beside one
// hog) 3629 arrivals, 2871 sleeps, 3580 (-1.4 %).
//
// It returns the number of arrivals recovered. Wake actions aimed at a
// split task (Action.Block) and Task.Repeat are renumbered.
func (x *extractor) splitArrivals() int {
	m := x.m
	total := 0
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Periodic || tk.Pool != 0 {
			continue
		}
		bs := tk.Bursts
		var n int
		var sleep float64
		for k := 1; k < len(bs); k++ {
			if isArrival(&bs[k-1]) && bs[k].End == EndBlock && bs[k].Slept > 0 {
				n++
				sleep += float64(max(bs[k].Slept-TimerSlack, 0))
			}
		}
		ext, blocks := 0, 0
		for k := range bs {
			if bs[k].End == EndBlock {
				blocks++
				if isArrival(&bs[k]) {
					ext++
				}
			}
		}
		if ext < MinArrivalSleeps || float64(ext) < MinArrivalShare*float64(blocks) || n < MinArrivalSleeps || sleep <= 0 {
			continue
		}
		lambda := float64(n) / sleep // arrivals per ns
		out := make([]Burst, 0, len(bs)+len(bs)/2)
		newIdx := make([]int, len(bs))
		carry := 0.0
		for k := range bs {
			b := bs[k]
			h := 0
			if k > 0 && isArrival(&bs[k-1]) && b.End == EndBlock && b.Slept > 0 {
				arr := bs[k-1].Wake.At - TimerSlack
				blocked := b.Wake.At - b.Slept
				if win := blocked - arr; win > 0 {
					carry += lambda * float64(win)
					h = int(math.Floor(carry))
					carry -= float64(h)
					// Pieces shorter than a microsecond are no arrival's
					// handling (the burst cannot hold that many).
					h = min(h, int(b.Len/1000))
				}
				if h > 0 {
					out = append(out, splitBurst(b, h, arr, blocked)...)
					newIdx[k] = len(out) - 1
					total += h
					continue
				}
			}
			out = append(out, b)
			newIdx[k] = len(out) - 1
		}
		if len(out) == len(bs) {
			continue
		}
		tk.Bursts = out
		tk.OpenLoop = true
		if tk.Repeat >= 0 {
			tk.Repeat = newIdx[tk.Repeat]
		}
		// A wakeup aimed at block j of this task now ends the block after
		// the last piece of old burst j.
		for a := range m.Tasks {
			for b := range m.Tasks[a].Bursts {
				acts := m.Tasks[a].Bursts[b].Actions
				for c := range acts {
					if acts[c].Kind == ActWake && acts[c].Target == i && acts[c].Block >= 0 && acts[c].Block < len(newIdx) {
						acts[c].Block = newIdx[acts[c].Block]
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

// splitBurst cuts b into h+1 pieces of equal CPU time: h recovered
// arrivals, each a block whose absolute wake time is spread evenly over
// (arr, blocked) and clamped to the time the recording reached that
// point of the burst, then the last piece with b's own end.
func splitBurst(b Burst, h int, arr, blocked int64) []Burst {
	pieces := make([]Burst, h+1)
	step := b.Len / int64(h+1)
	ran := blocked - b.Len // the burst's start, had it run without a break
	for j := 0; j <= h; j++ {
		lo := int64(j) * step
		hi := lo + step
		p := &pieces[j]
		if j == h {
			hi = b.Len
			p.End, p.Wake, p.Slept = b.End, b.Wake, b.Slept
		} else {
			at := arr + (blocked-arr)*int64(j+1)/int64(h+1)
			at = min(at, ran+hi)
			p.End, p.Wake = EndBlock, Cause{Kind: CauseExternal, At: at, Inferred: true}
		}
		if j == 0 {
			p.FromIdle, p.WokenBy, p.WokenRemote = b.FromIdle, b.WokenBy, b.WokenRemote
		}
		p.Len = hi - lo
		for _, a := range b.Actions {
			if a.At >= lo && (a.At < hi || j == h) {
				a.At -= lo
				p.Actions = append(p.Actions, a)
			}
		}
		for _, u := range b.Updates {
			if u > lo && u < hi {
				p.Updates = append(p.Updates, u-lo)
			}
		}
	}
	return pieces
}
