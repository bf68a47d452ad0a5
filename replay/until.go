package replay

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Deadline inference constants. minDeadlineLife: a task must live at
// least this long (ns) to be taken for a loop bounded by wall-clock time;
// deadlineSpread: siblings whose exit times lie within this fraction of
// their mean lifetime of each other ended at one wall-clock time (hog and
// massive_intr siblings of ../shared/traces end within 1.1 % of each other;
// work-bound messaging workers 5-60 %); spinnerShare: a last burst with at
// least this share of the task's CPU time makes it a spinner.
const (
	minDeadlineLife = 200_000_000
	deadlineSpread  = 0.03
	spinnerShare    = 0.8
)

// untilCand is a task inferUntil may make deadline-bound.
type untilCand struct {
	i      int
	lo, hi int64 // absolute: the deadline lies in (lo, hi]
	// wlo is a spinner's lo widened by the wait before its final run
	// (Task.FinalWaitFrom): a spinner off the CPU when its time came
	// exits in its next run, so the time lies in (wlo, hi]; lo for a
	// spinner that waited for no CPU there and for a cycle task.
	wlo int64
}

// loneSpinners makes a spinner with no sibling deadline-bound when a
// clock-paced task of the workload that lived at least half as long ends
// with it: within deadlineSpread of its lifetime, the last event of a task
// woken at absolute times
// (minTimerSamples or more CauseExternal timers, an open-loop generator or
// a periodic loop) or of a task already inferred deadline-bound, or the
// last absolute-time wakeup of such a clock-paced task. One command's
// tasks that stop together, one of them paced by the wall clock, share a
// wall-clock duration: `reqsrv RATE US N 2 & hog 2` ends its arrivals and
// its spinner 2 s after they start (10 ms apart), where a spinner doing a
// fixed amount of work ends when its work is done. The generator's last
// timer marks when its clock stopped even where the task lives on: held
// back by its group's CPU quota, reqsrv's workers drain a backlog for 1.3
// s after the last arrival (new-user pass 24, 1200 requests/s of 300 µs
// under 30ms/100ms), so its exit is no witness there but its last timer
// is (53 ms from the spinner's exit, of a 3014 ms life).
func (x *extractor) loneSpinners(groups map[[2]string][]untilCand) {
	m := x.m
	type witness struct {
		i  int
		at int64 // ns, absolute
	}
	var witnesses []witness
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		n, lastTimer := 0, int64(-1)
		for _, b := range tk.Bursts {
			if b.End == EndBlock && b.Wake.Kind == CauseExternal && !b.Wake.Inferred {
				n++
				lastTimer = b.Wake.At
			}
		}
		if n >= minTimerSamples || tk.Until == UntilDeadline {
			witnesses = append(witnesses, witness{i, tk.Last})
		}
		if n >= minTimerSamples && lastTimer < tk.Last {
			witnesses = append(witnesses, witness{i, lastTimer})
		}
	}
	for _, g := range groups {
		if len(g) != 1 || g[0].lo != g[0].hi {
			continue // siblings decide (inferUntil); only spinners here
		}
		tk := &m.Tasks[g[0].i]
		life := tk.Last - tk.Start
		for _, w := range witnesses {
			d := w.at - tk.Last
			// A witness keeps the clock over the spinner's life: one
			// that lived less than half of it is no witness (new-user
			// pass 123 F1: `bc`, run for 3 ms at the end of a script,
			// made xz compressing a fixed file deadline-bound, and
			// --cpus 1 predicted a third of its work gone).
			if o := &m.Tasks[w.i]; 2*(o.Last-o.Start) < life {
				continue
			}
			if w.i != g[0].i && float64(max(d, -d)) <= deadlineSpread*float64(life) {
				tk.Until, tk.UntilInferred, tk.Spinner = UntilDeadline, true, true
				tk.Deadline = g[0].lo - tk.Start
				break
			}
		}
	}
}

// spinBurst finds the spin of task tk (Task.Spinner): the index of a
// burst with at least spinnerShare of its CPU time after which the task
// only exits (every later burst short and doing nothing but end the task,
// tailDoesMore: their CPU time together under 1 − spinnerShare of the
// total, and the tail's wall time under 1 − spinnerShare of the task's
// life: a shell that forks its jobs in one burst and then waits for them
// does not spin), and the time in ns the spin ended in the recording: the
// task's last event less the tail's CPU time and sleeps (the tail's waits
// for the CPU are not known, so the end is an upper bound by at most
// those). -1 when there is none.
func spinBurst(tk *Task) (int, int64) {
	bs := tk.Bursts
	var total int64
	for _, b := range bs {
		total += b.Len
	}
	if total <= 0 {
		return -1, 0
	}
	end, tail := tk.Last, int64(0)
	for k := len(bs) - 1; k >= 0; k-- {
		if float64(bs[k].Len) >= spinnerShare*float64(total) {
			if float64(tk.Last-end) > (1-spinnerShare)*float64(tk.Last-tk.Start) {
				return -1, 0 // its work came early and it waited long after: no spin to the end
			}
			return k, end
		}
		tail += bs[k].Len
		if tailDoesMore(tk, k) || k == 0 || float64(tail) > (1-spinnerShare)*float64(total) {
			return -1, 0
		}
		end -= bs[k].Len + bs[k-1].Slept
	}
	return -1, 0
}

// tailDoesMore reports whether burst k of tk, one after its spin, does
// more than end the task: a fork, or a wakeup in a burst after which the
// task blocks and goes on. A wakeup in the burst that ends in the exit is
// the exit's own (kernel/exit.c do_exit, v6.x: exit_mm wakes a thread's
// joiner through its clear_child_tid futex, exit_files the readers of its
// pipes, stdio flushed by exit(3) before that, exit_notify the parent
// waiting in wait(); deferred work wakes a kworker), as when the exit
// runs in the spin's burst, where no wakeup was ever looked at. A spinner
// preempted by the reader its exit's flush woke exits in a burst of its
// own: of three `hog 3` started together, the last to exit did so and
// woke the shell waiting for it there (new-user pass 17 F3: r1.tv's
// hog:6852, 585 µs into a 595 µs burst; p2.perf.data's hog:8957 woke a
// kworker, 345 µs into 396 µs), and was kept work-bound beside its two
// deadline-bound siblings.
func tailDoesMore(tk *Task, k int) bool {
	b := &tk.Bursts[k]
	exit := k == len(tk.Bursts)-1 && b.End == EndExit
	for _, a := range tk.ActionsOf(b) {
		if a.Kind == ActFork || a.Kind == ActWake && !exit {
			return true
		}
	}
	return false
}

// inferUntil labels each workload task with how it ends (UntilKind). A
// task is deadline-bound when it is self-paced (a spinner, or a cycle of
// CPU bursts and relative timer sleeps, another task waking it or woken
// by it at most once in ten blocks), it
// exits in the trace after at least minDeadlineLife, and at least one
// sibling of the same name and parent does too with exit times within
// deadlineSpread of their mean lifetime: the issue's rule "sibling tasks
// that exit within a few % of the same lifetime with no dependencies
// between them". A lone self-paced task cannot tell a deadline from its
// work and keeps the default (work, or count with three or more blocking
// points); --until overrides either way.
//
// The deadline: a spinner checks the clock as it spins, so its exit time
// is its deadline. A cycle task checks at the top of each cycle: the
// deadline passed between the start of its last full cycle and the wakeup
// that began its final burst; siblings share one deadline (their parent's
// start + duration), so the group's deadline is the midpoint of the
// intersection of those intervals, or of their union when they do not
// intersect. Each task's Deadline is relative to its own start.
func (x *extractor) inferUntil() {
	m := x.m
	type cand = untilCand
	groups := map[[2]string][]cand{}
	var order [][2]string
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			if m.WorkloadRoot < 0 {
				// No traced command (a capture of the whole system): the
				// makespan spans every task (sim.wlAll), so any task the
				// capture cut is censored too.
				x.censor(tk)
			}
			continue
		}
		bs := tk.Bursts
		blocks := 0
		for _, b := range bs {
			if b.End == EndBlock {
				blocks++
			}
		}
		if blocks >= 3 {
			tk.Until = UntilCount
		}
		e := len(bs) - 1
		if x.censor(tk) {
			continue
		}
		if e < 0 || bs[e].End != EndExit || tk.Last-tk.Start < minDeadlineLife {
			continue
		}
		var total int64
		for _, b := range bs {
			total += b.Len
		}
		k, spinEnd := spinBurst(tk)
		spinner := k >= 0
		// A cycle: relative timer sleeps (or wakeups the trace lost),
		// at most a tenth of the blocks of another kind, at most a
		// tenth ended by another task or waking or forking one after
		// the first burst (which may fork), and a timer sleep before
		// the final burst (the cycle repeated past the trace).
		cycle := e >= 3
		timers, incidental := 0, 0
		for k := 0; cycle && k < e; k++ {
			if k > 0 && tk.affects(&bs[k]) {
				incidental++
			}
			switch {
			case bs[k].End != EndBlock:
				cycle = false
			case bs[k].Wake.Kind == CauseDependency:
				// Another task ended the wait: with the bursts that
				// wake or fork another task, at most a tenth of the
				// blocks (below), incidental contention (a lock the
				// parent held while it forked, 15 µs to a few hundred
				// between 1 ms timer sleeps of three threads, and their
				// releases of it: new-user pass 115 F1, where one such
				// block kept the threads work-bound and a --cpus 1
				// prediction 43 % long); more is a dependency that
				// paces the task.
				incidental++
			case bs[k].Wake.Kind == CauseTimer || bs[k].Wake.Kind == CauseExternal && bs[k].Wake.Inferred:
				// An inferred external wakeup of a self-paced task is a
				// timer whose waking the trace lacks (on this VM nothing is
				// recorded on an idle CPU 1, its timer interrupts included).
				timers++
			}
		}
		cycle = cycle && timers*10 >= 9*e && incidental*10 <= e
		tk.Repeat = -1
		for k := e - 1; cycle && k >= 1; k-- {
			if bs[k].Wake.Kind == CauseTimer {
				tk.Repeat = k
				break
			}
		}
		cycle = cycle && tk.Repeat >= 0
		var c cand
		switch {
		case spinner:
			c = cand{i: i, lo: spinEnd, hi: spinEnd, wlo: spinEnd}
			if w := tk.FinalWaitFrom; w > tk.Start && w < spinEnd {
				c.wlo = w
			}
			tk.Spinner, tk.SpinBurst = true, k
		case cycle, forkWaitLoop(m, i):
			// The wakeup that began the final burst found the deadline
			// past; the one before it did not.
			c = cand{i: i, lo: bs[e-2].Wake.At, hi: bs[e-1].Wake.At}
			c.wlo = c.lo
		default:
			continue
		}
		key := [2]string{tk.Comm, fmt.Sprint(tk.Parent)}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
	}
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		first, last, life := int64(-1), int64(-1), int64(0)
		lo, hi := int64(-1), int64(-1)
		ulo, uhi := int64(-1), int64(-1)
		for _, c := range g {
			tk := &m.Tasks[c.i]
			if first < 0 || tk.Last < first {
				first = tk.Last
			}
			last = max(last, tk.Last)
			life += tk.Last - tk.Start
			lo = max(lo, c.lo)
			if hi < 0 || c.hi < hi {
				hi = c.hi
			}
			if ulo < 0 || c.lo < ulo {
				ulo = c.lo
			}
			uhi = max(uhi, c.hi)
		}
		life /= int64(len(g))
		if float64(last-first) > deadlineSpread*float64(life) {
			// Spinners that exited apart can still share one time: one
			// that was off the CPU when it came (preempted, or its group
			// throttled by a quota: up to a period, 100 ms by default)
			// exits in its next run. They do when every one's widened
			// interval holds the earliest exit; that exit is the time.
			if at, ok := waitedSpinners(m, g); ok {
				for _, c := range g {
					tk := &m.Tasks[c.i]
					tk.Until, tk.UntilInferred = UntilDeadline, true
					tk.Deadline = at - tk.Start
				}
			}
			continue
		}
		d := (lo + hi) / 2
		if lo > hi {
			d = (ulo + uhi) / 2
		}
		for _, c := range g {
			tk := &m.Tasks[c.i]
			tk.Until, tk.UntilInferred = UntilDeadline, true
			tk.Deadline = d - tk.Start
			if tk.Spinner {
				tk.Deadline = c.lo - tk.Start
			}
		}
	}
	x.loneSpinners(groups)
	x.timerKills(groups)
	x.censorLiveRoot()
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		switch tk.Until {
		case UntilWork:
			m.Stats.WorkBound++
		case UntilCount:
			m.Stats.CountBound++
		case UntilDeadline:
			m.Stats.DeadlineBound++
			m.Stats.DeadlineInferred++
		}
	}
}

// waitedSpinners reports whether the spinners of group g (every member a
// spinner, each with its (wlo, hi] interval) share one wall-clock time:
// the earliest exit, which must lie in every member's interval (after the
// start of the wait before its final run). It returns that time. Only a
// quota explains a wait as long as the spread it excuses (over 3 % of a
// life of 200 ms or more: a throttled group waits up to its period, 100
// ms by default, where a preempted task waits a few slices), so each
// member that exited later must run in a cgroup the recording gives a CPU
// quota, or below one (Meta.CgroupSettings; cpu.max or cfs_quota_us).
// Without it, spinners of a fixed amount of work that were held back
// before their last run (perf bench sched messaging -t's senders, whose
// waits for a CPU average 6-17 ms) would pass for deadline-bound.
func waitedSpinners(m *Model, g []untilCand) (int64, bool) {
	at := int64(-1)
	for _, c := range g {
		if !m.Tasks[c.i].Spinner {
			return 0, false
		}
		if at < 0 || c.hi < at {
			at = c.hi
		}
	}
	for _, c := range g {
		if c.hi == at {
			continue
		}
		if c.wlo >= at || !underQuota(m, m.Tasks[c.i].Cgroup) {
			return 0, false
		}
	}
	return at, true
}

// underQuota reports whether cgroup path, or a group above it, has a CPU
// quota in the recording's settings.
func underQuota(m *Model, path string) bool {
	path = normPath(path)
	for _, s := range m.Meta.CgroupSettings {
		if s.QuotaNS <= 0 {
			continue
		}
		p := normPath(s.Path)
		if p != "/" && (path == p || strings.HasPrefix(path, p+"/")) {
			return true
		}
	}
	return false
}

// censor marks tk censored when the capture ended before it did (its
// last burst ends with the trace) and reports whether it did: a spinner
// then spins at least to the capture's end (deadline-bound at it).
func (x *extractor) censor(tk *Task) bool {
	m, bs := x.m, tk.Bursts
	e := len(bs) - 1
	if e < 0 || bs[e].End != EndTrace {
		return false
	}
	tk.Censored = true
	m.Stats.Censored++
	if k, _ := spinBurst(tk); k == e && m.End > tk.Start {
		tk.Until, tk.UntilInferred = UntilDeadline, true
		tk.Spinner, tk.SpinBurst = true, e
		tk.Deadline = m.End - tk.Start
	}
	return true
}

// censorLiveRoot censors the traced command itself (the workload's root
// task) when it did not exit in the trace, whatever it was doing at the
// end: `record -d 1s -- sleep 5` stops while sleep sleeps (its last block
// never woken), and a file of a record --rotate series other than the
// last holds a command that goes on in the next file. The workload had
// not ended when the capture did, so no makespan can be predicted (before,
// "makespan 19.8 ms observed" for the sleep). A root that exited, or a
// trace with no traced command, is left alone.
func (x *extractor) censorLiveRoot() {
	m := x.m
	if m.WorkloadRoot < 0 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload || tk.TID != m.WorkloadRoot || tk.Censored {
			continue
		}
		if bs := tk.Bursts; len(bs) > 0 && bs[len(bs)-1].End != EndExit {
			tk.Censored = true
			m.Stats.Censored++
		}
	}
}

// forkWaitLoop reports whether task i of m is a loop that forks a child
// and waits for it, over and over, and hardly affects anybody else: at
// least 3 blocks before its final burst, at least nine in ten of them
// ended by the exit of a child of its own (a dependency whose waker's
// parent is i), and before the final burst (which may wake its parent at
// exit) at most one wakeup of a task that is not its child per ten blocks
// (a stray one is a wakeup the trace gives to the task current on the
// waking CPU; a ping-pong pair wakes the other at every block). `stress-ng --fork N --timeout T` workers
// are such loops: each checks a flag its SIGALRM handler sets at the top
// of its loop, so siblings of one parent that end together (deadlineSpread)
// are taken as ending at a wall-clock deadline, the block before the final
// burst being where each found it past (as for a timer cycle). A
// work-bound loop of this kind ends when its count is done, siblings
// apart by the spread of their CPU shares.
func forkWaitLoop(m *Model, i int) bool {
	tk := &m.Tasks[i]
	bs := tk.Bursts
	e := len(bs) - 1
	if e < 3 {
		return false
	}
	own, others := 0, 0
	for k := 0; k < e; k++ {
		b := &bs[k]
		if b.End != EndBlock {
			return false
		}
		if w := b.Wake.Waker; b.Wake.Kind == CauseDependency && w >= 0 && int(w) < len(m.Tasks) && m.Tasks[w].Parent == i {
			own++
		}
		for _, a := range tk.ActionsOf(b) {
			if a.Kind == ActWake && (a.Target < 0 || int(a.Target) >= len(m.Tasks) || m.Tasks[a.Target].Parent != i) {
				others++
			}
		}
	}
	return own*10 >= 9*e && others*10 <= e
}

// EndDeadline is the deadline, in ns after the task's start, at which it
// ended in the trace: for a spinner the end of its spin (spinBurst: its
// last event less its exit's tail), else its last event. `--until
// SEL=deadline` gives it to a task whose end the trace does not explain:
// a kill at a wall-clock time (timeout, a signal from outside the
// workload) ends a task where its work would have gone on.
func (t *Task) EndDeadline() int64 {
	end := t.Last
	if t.Spinner {
		if k, e := spinBurst(t); k >= 0 {
			end = e
		}
	}
	return max(end-t.Start, 1)
}

// SpinExits returns the indexes of the workload's spinners (Task.Spinner)
// that exited in the trace after at least minDeadlineLife and were not
// inferred deadline-bound: each ended mid-spin, when its work was done or
// when a signal killed it, which the trace cannot tell apart (a running
// task's signal wakes no one, and exit records no cause). Replayed as
// work-bound, such a task given less CPU runs longer; killed at a
// wall-clock time it would have stopped there (`--until SEL=deadline`).
// The tasks of KeptWorkBound are among them (in index order), so the
// workload line names each and the kill check replays it deadline-bound.
func (m *Model) SpinExits() []int {
	var out []int
	kept := m.KeptWorkBound()
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		bs := tk.Bursts
		if tk.Workload && tk.Spinner && tk.Until != UntilDeadline && !tk.Censored &&
			len(bs) > 0 && bs[len(bs)-1].End == EndExit && tk.Last-tk.Start >= minDeadlineLife ||
			slices.Contains(kept, i) {
			out = append(out, i)
		}
	}
	return out
}

// KeptWorkBound returns the indexes of the workload's tasks kept work- or
// count-bound that exited in the trace after at least minDeadlineLife (not
// censored) while a sibling of theirs (same name and parent, as inferUntil
// groups them) was inferred deadline-bound, and that exited no earlier than
// deadlineSpread of the siblings' mean lifetime before the first of them:
// tasks of one command started together that looped until one wall-clock
// time end at it or, held off the CPU when it came, after it, never
// clearly before. inferUntil gives such a task no deadline when the trace
// does not show it self-paced (its exit does more than exit, or a wakeup
// cuts its spin), so the prediction may rest on one of them alone running
// its recorded work to its end: of three `hog 3` under a quota what-if, one
// kept work-bound made the makespan 762 s for 3 s (new-user pass 17 F3,
// before tailDoesMore). `--until tid:N=deadline` settles it.
func (m *Model) KeptWorkBound() []int {
	type sib struct {
		first, life int64 // the deadline-bound siblings' first exit, summed lifetimes
		n           int
	}
	key := func(tk *Task) [2]string { return [2]string{tk.Comm, fmt.Sprint(tk.Parent)} }
	sibs := map[[2]string]*sib{}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload || tk.Until != UntilDeadline || !tk.UntilInferred {
			continue
		}
		g := sibs[key(tk)]
		if g == nil {
			g = &sib{first: tk.Last}
			sibs[key(tk)] = g
		}
		g.first = min(g.first, tk.Last)
		g.life += tk.Last - tk.Start
		g.n++
	}
	var out []int
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		bs := tk.Bursts
		g := sibs[key(tk)]
		if g == nil || !tk.Workload || tk.Until == UntilDeadline || tk.Censored ||
			len(bs) == 0 || bs[len(bs)-1].End != EndExit || tk.Last-tk.Start < minDeadlineLife {
			continue
		}
		if float64(g.first-tk.Last) <= deadlineSpread*float64(g.life/int64(g.n)) {
			out = append(out, i)
		}
	}
	return out
}

// TogetherExits returns the indexes of the workload's tasks that ended
// together but were not inferred deadline-bound: each group of two or
// more tasks of one command and parent (as inferUntil groups them; the
// threads of one process by process and parent, whatever their names), each
// exiting in the trace after at least minDeadlineLife, whose exits lie
// within deadlineSpread of their mean lifetime of each other. A group
// that loops until a wall-clock time but whose tasks wake each other
// (sysbench threads on a mutex, Python threads taking turns on the GIL)
// ends so, and so does a count-bound group whose last iterations wake
// each other (a ping-pong pair): the trace cannot tell them apart, as the
// deadline rules (a cycle of timer sleeps, a spinner) do not apply to
// tasks that wake each other. Censored tasks, tasks settled as deadline-
// bound and spinners (SpinExits) are left out, and so is a group that
// ended before the workload did by more than deadlineSpread of the
// workload's span: a loop bounded by a wall-clock time sets the length of
// the run it belongs to, and a group that ended while the rest went on is
// one process among many whose threads died in its exit_group (a 103 s
// `go build` had 474 tasks of go, compile, cgo and link flagged before
// this rule, 8 after: the go command's threads and the last link's).
func (m *Model) TogetherExits() []int {
	groups := map[[2]string][]int{}
	var order [][2]string
	wlStart, wlEnd := int64(-1), int64(-1)
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; tk.Workload {
			if wlStart < 0 || tk.Start < wlStart {
				wlStart = tk.Start
			}
			wlEnd = max(wlEnd, tk.Last)
		}
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		bs := tk.Bursts
		if !tk.Workload || tk.Until == UntilDeadline || tk.Censored || tk.Spinner ||
			len(bs) == 0 || bs[len(bs)-1].End != EndExit || tk.Last-tk.Start < minDeadlineLife {
			continue
		}
		key := [2]string{tk.Comm, fmt.Sprint(tk.Parent)}
		if tk.PID > 0 && int64(tk.PID) != int64(tk.TID) {
			// The threads one task of a process made, whatever each
			// is named (prctl: ss0 to ss3 looping until one wall-clock
			// time were four groups of one, and no note said the
			// prediction rested on how they end).
			key = [2]string{fmt.Sprintf("process %d", tk.PID), fmt.Sprint(tk.Parent)}
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	var out []int
	for _, key := range order {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		first, last, life := int64(-1), int64(-1), int64(0)
		for _, i := range g {
			tk := &m.Tasks[i]
			if first < 0 || tk.Last < first {
				first = tk.Last
			}
			last = max(last, tk.Last)
			life += tk.Last - tk.Start
		}
		life /= int64(len(g))
		if float64(wlEnd-last) > deadlineSpread*float64(wlEnd-wlStart) {
			continue // ended while the workload went on
		}
		if float64(last-first) <= deadlineSpread*float64(life) {
			out = append(out, g...)
		}
	}
	return out
}

// ForkLoop is a workload task that ran a loop of commands: it forked
// Children children one after another, each gone before the next was
// forked (a shell's `while ...; do cmd; done`), over Span ns from its
// first fork to its last child's end.
type ForkLoop struct {
	Task     int   `json:"task"` // index in Model.Tasks
	Children int   `json:"children"`
	Span     int64 `json:"span_ns"`
}

// minLoopChildren is how many children one after another make a loop of
// commands (ForkLoops): a shell script's handful of commands is not one.
const minLoopChildren = 20

// ForkLoops returns the workload's loops of commands: tasks with at least
// minLoopChildren forked children, at least 90 % of them ended before
// the next was forked. The model replays the recorded children, so a
// loop's count is kept whatever the prediction: one that loops until a
// wall-clock time (`while [ $(date +%s) -lt $end ]`) would run more of
// them with more CPU and fewer with less, which no --until can say for a
// loop of commands (new-user pass 29 F4: a session's loop ran 89
// iterations at nice 5 and 47 at nice 0; the what-if kept 89).
func (m *Model) ForkLoops() []ForkLoop {
	kids := map[int][]int{}
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; tk.Parent >= 0 && tk.Init == InitForked && m.Tasks[tk.Parent].Workload {
			kids[tk.Parent] = append(kids[tk.Parent], i)
		}
	}
	var out []ForkLoop
	for p := range m.Tasks {
		ks := kids[p]
		if len(ks) < minLoopChildren {
			continue
		}
		slices.SortFunc(ks, func(a, b int) int { return cmp.Compare(m.Tasks[a].Start, m.Tasks[b].Start) })
		serial := 0
		for j := 1; j < len(ks); j++ {
			if m.Tasks[ks[j-1]].Last <= m.Tasks[ks[j]].Start {
				serial++
			}
		}
		if serial*10 < (len(ks)-1)*9 {
			continue
		}
		end := int64(0)
		for _, k := range ks {
			end = max(end, m.Tasks[k].Last)
		}
		out = append(out, ForkLoop{Task: p, Children: len(ks), Span: end - m.Tasks[ks[0]].Start})
	}
	return out
}

// minLoopCycles is how many timer cycles a task needs before
// inferLoopsUntilExit looks at how its loop ended: fewer say nothing of a
// loop (minArrivalSleeps, the same count for a paced generator).
const minLoopCycles = minArrivalSleeps

// inferLoopsUntilExit finds the workload's tasks that loop on a timer until
// another task exits (Task.LoopsUntilExitOf): a ticker, sampler or
// heartbeat thread whose loop checks a flag that the program sets once its
// workers are done (joined). Such a task ends within a cycle or two of the
// last worker's exit, whatever its cycle count, so a what-if that makes
// the workers take longer (fewer CPUs) makes it cycle longer. New-user
// pass 119 F2: periodic.c's ticker (1 ms clock_nanosleep cycles until a
// stop flag set after its 2 hogs are joined) ran 432 cycles on 2 CPUs and
// 791 on 1, and replayed count-bound it kept 432: its run time and
// switches 0.5x.
//
// A task qualifies when it is a workload task not inferred deadline-bound,
// not censored and not a spinner, its blocks (at least minLoopCycles, and
// minArrivalShare of them) end at timers (relative or absolute), its final
// burst, the exit, began at a timer wakeup, and a workload task that lived
// at least half as long as it exited before that wakeup by no more than two
// of its cycles (its period, or the last sleep's length: the flag is seen
// at the top of the next cycle, after the joiner's wakeup): the latest such
// exit is the one its loop waits for.
func (x *extractor) inferLoopsUntilExit() {
	m := x.m
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		bs := tk.Bursts
		e := len(bs) - 1
		if !tk.Workload || tk.Censored || tk.Spinner || tk.Until == UntilDeadline || e < minLoopCycles ||
			bs[e].End != EndExit || bs[e-1].End != EndBlock {
			continue
		}
		timers, blocks := 0, 0
		for k := 0; k < e; k++ {
			if b := &bs[k]; b.End == EndBlock {
				blocks++
				if b.Wake.Kind == CauseTimer || b.Wake.Kind == CauseExternal {
					timers++
				}
			}
		}
		last := bs[e-1].Wake
		if timers < minLoopCycles || float64(timers) < minArrivalShare*float64(blocks) ||
			last.Kind != CauseTimer && last.Kind != CauseExternal {
			continue
		}
		cycle := last.Delay
		if tk.Periodic && tk.Period > 0 {
			cycle = tk.Period
		}
		if cycle <= 0 {
			continue
		}
		final, life := last.At, tk.Last-tk.Start
		h := -1
		for j := range m.Tasks {
			o := &m.Tasks[j]
			if j == i || !o.Workload || o.Last > final || final-o.Last > 2*cycle || 2*(o.Last-o.Start) < life ||
				len(o.Bursts) == 0 || o.Bursts[len(o.Bursts)-1].End != EndExit {
				continue
			}
			if h < 0 || o.Last > m.Tasks[h].Last {
				h = j
			}
		}
		if h < 0 {
			continue
		}
		tk.LoopsUntilExitOf = int32(h + 1)
		tk.Repeat = e - 1 // (its last cycle: the burst before the final sleep)
		m.Stats.LoopsUntilExit++
	}
}
