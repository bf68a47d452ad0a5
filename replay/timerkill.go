package replay

// timerSleep is one long timer sleep of a workload task: it blocked at
// from and its timer woke it at at (absolute ns).
type timerSleep struct {
	task     int
	from, at int64
}

// longTimerSleeps returns the sleeps of the workload's tasks that a timer
// (relative or absolute, as recorded, not inferred) ended after at least
// minDeadlineLife: `timeout 3 CMD` sleeps 3 s in one go before it sends
// its signal, as does the `sleep 3` of `hog & sleep 3; kill $!`.
func longTimerSleeps(m *Model) []timerSleep {
	var out []timerSleep
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		for _, b := range tk.Bursts {
			w := b.Wake
			if b.End != EndBlock || w.Inferred || w.Kind != CauseTimer && w.Kind != CauseExternal {
				continue
			}
			slept := b.Slept
			if slept <= 0 && w.Kind == CauseTimer {
				slept = w.Delay
			}
			if slept >= minDeadlineLife && w.At > 0 {
				out = append(out, timerSleep{task: i, from: w.At - slept, at: w.At})
			}
		}
	}
	return out
}

// timerKills makes a spinner deadline-bound when another task of the
// workload slept on a timer for the spinner's whole life and the spinner
// exited just after that timer fired: a kill at a wall-clock deadline
// (`timeout 3 sh -c 'while :; do :; done'`, whose signal the trace does
// not show: a running task's signal wakes no one). The sleep must have
// begun before the spinner's start or within deadlineSpread of its life
// after it (the killer forks its target, then sleeps), and the spinner's
// last event must follow the timer's wakeup within deadlineSpread of its
// life: the tolerance the sibling rule (inferUntil) gives one deadline's
// exits. Measured on this 2-CPU VM (a spinner's life of about 3 s): the
// lone `sh` loop exited 2.2 ms (0.07 %) after `timeout` woke, and the two
// `stress-ng --cpu 2` hogs, signalled through their parent on CPUs busy
// with a Go build, 29 and 44 ms (1.1 % and 1.6 %) after it. A spinner
// doing fixed work ends at such a time only by coincidence with a timer
// that spans its life. It covers spinners with siblings too, whose exits
// may spread over more than deadlineSpread when a loaded machine delivers
// the signal late. The deadline, as for any spinner, is the end of its
// spin (the exit, less its tail), after its start.
func (x *extractor) timerKills(groups map[[2]string][]untilCand) {
	m := x.m
	sleeps := longTimerSleeps(m)
	if len(sleeps) == 0 {
		return
	}
	for _, g := range groups {
		for _, c := range g {
			tk := &m.Tasks[c.i]
			if !tk.Spinner || tk.Until == UntilDeadline {
				continue
			}
			life := tk.Last - tk.Start
			slack := int64(deadlineSpread * float64(life))
			for _, s := range sleeps {
				if s.task == c.i || s.from > tk.Start+slack || s.at > tk.Last || tk.Last-s.at > slack {
					continue
				}
				tk.Until, tk.UntilInferred = UntilDeadline, true
				tk.Deadline = c.lo - tk.Start
				m.Stats.TimerKills++
				break
			}
		}
	}
}
