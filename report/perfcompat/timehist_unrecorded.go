package perfcompat

import (
	"slices"

	"github.com/traceview/traceview/trace"
)

// A capture of some CPUs only (record --cpu, perf record -C) has no event
// of the others: a task queued on one of them while it waited may have run
// there unseen, so its wait until a switch-in on a recorded CPU is not a
// scheduling delay one can measure. Outside Exact, timehist decides it as
// the schedule does for latency and stats (schedule.Delay.Unrecorded): the
// task was queued (woken to, or migrated from or to) a CPU that had
// recorded no event of its own, and that CPU still had none at the
// switch-in. Such a row's sch delay prints "-", is left out of the -S
// summary's delay, and is counted in TimehistResult.UnrecordedDelays.
// Its wait time (switch-out to switch-in) holds that delay, so it is not
// known either: it prints "-" too, and the --state summary's sleep, I/O
// wait or preemption keeps only its part before the delay (switch-out to
// wakeup, asleep). Exact mode prints perf's numbers.

// noteCPU marks e's CPU as recorded from e's time on (events arrive in
// time order). When the capture says which CPUs it recorded
// (trace.RecordedCPUs: perf record -C, record --cpu), another CPU is
// marked only by a sched_switch of its own: perf record -C writes the
// COMM, FORK and EXIT records of every CPU and record --cpu the
// migrations off a recorded CPU from any (a perf sched record -C 0 file
// read 0 unmeasured delays and a 150 ms sch delay, against latency's 286
// unmeasured and 5.9 ms at most).
func (th *timehist) noteCPU(e *trace.Event) {
	c := int(e.CPU)
	if c < 0 || c >= TimehistMaxCPUs {
		return
	}
	if !th.recordedRead {
		th.recordedRead = true
		th.recordedCPUs = trace.RecordedCPUs(th.meta)
	}
	for len(th.recordedAt) <= c {
		th.recordedAt = append(th.recordedAt, -1)
	}
	for len(th.lastAt) <= c {
		th.lastAt = append(th.lastAt, -1)
	}
	if e.Kind != trace.KindLost { // (noteLost reads the CPU's event before it)
		th.lastAt[c] = max(th.lastAt[c], e.Time)
	}
	if th.recordedAt[c] < 0 && (th.recordedCPUs == nil || e.Kind == trace.KindSwitch || slices.Contains(th.recordedCPUs, e.CPU)) {
		th.recordedAt[c] = e.Time
	}
}

// unrecordedAt reports whether cpu had recorded no event by time at.
func (th *timehist) unrecordedAt(cpu trace.CPU, at int64) bool {
	c := int(cpu)
	return c >= 0 && (c >= len(th.recordedAt) || th.recordedAt[c] < 0 || th.recordedAt[c] > at)
}

// noteQueue notes that waiting t is queued on cpu at time at: when cpu has
// recorded nothing yet, t's delay may end with t having run there unseen
// (settled at the delay's end, settleUnrecorded). A CPU noted before that
// has since recorded an event gives way to this one.
func (th *timehist) noteQueue(t *timehistThread, cpu trace.CPU, at int64) {
	if th.unrecordedAt(cpu, at) && (!t.hasOff || !th.unrecordedAt(t.offCPU, at)) {
		t.offCPU, t.hasOff = cpu, true
	}
}

// noteMigrate notes the CPUs a waiting task migrates between.
func (th *timehist) noteMigrate(e *trace.Event) {
	if e.TID <= 0 {
		return
	}
	t := th.m.get(e.TID) // no pid update: a lookup only
	if t == nil || t.readyToRun == 0 {
		return // not waiting
	}
	th.noteQueue(t, e.OrigCPU, e.Time)
	th.noteQueue(t, e.DestCPU, e.Time)
	th.queuedOn(t, e.DestCPU)
}

// queuedOn notes (in a recording of some CPUs) that waiting t is queued on
// cpu, for idleOn.
func (th *timehist) queuedOn(t *timehistThread, cpu trace.CPU) {
	if th.recordedCPUs == nil || cpu < 0 || int(cpu) >= TimehistMaxCPUs {
		return
	}
	t.qCPU = cpu
	for len(th.qList) <= int(cpu) {
		th.qList = append(th.qList, nil)
	}
	if t.qIn == int32(cpu)+1 {
		return // listed there already
	}
	t.qIn = int32(cpu) + 1
	q := th.qList[cpu]
	if n := len(q); n >= qListCompact && n&(n-1) == 0 {
		// A CPU that does not idle for long: keep each task that still
		// waits there once (a task that went elsewhere and came back is
		// listed again).
		k := 0
		for _, w := range q {
			if w.qIn == int32(cpu)+1 && w.qCPU == cpu && th.waiting(w) {
				w.qIn = -w.qIn // kept
				q[k] = w
				k++
			}
		}
		for _, w := range q[:k] {
			w.qIn = -w.qIn
		}
		clear(q[k:])
		q = q[:k]
	}
	th.qList[cpu] = append(q, t)
}

// qListCompact is the length from which queuedOn drops the entries of a
// CPU's list that wait there no more, at each power of two: the list stays
// within about twice the tasks waiting on it. (A bound of memory, not a
// figure of the kernel's.)
const qListCompact = 1024

// idleOn notes that cpu switched to its idle task at time at: in a
// recording of some CPUs, the tasks still waiting queued there were pulled
// to a CPU it left out (a CPU runs a queued task before idling, unless its
// group is throttled) and may run there unseen (the schedule's rule for
// latency: a task taskset moved to CPU 0 read a 1.55 s delay on a -C 1
// recording while it ran there).
func (th *timehist) idleOn(cpu trace.CPU, at int64) {
	if th.recordedCPUs == nil || int(cpu) >= len(th.qList) || len(th.qList[cpu]) == 0 {
		return
	}
	unseen := th.someUnrecorded(at)
	for _, t := range th.qList[cpu] {
		if unseen && t.qCPU == cpu && th.waiting(t) {
			t.ranUnseen = true
		}
		if t.qIn == int32(cpu)+1 {
			t.qIn = 0
		}
	}
	clear(th.qList[cpu])
	th.qList[cpu] = th.qList[cpu][:0]
}

// settleUnrecorded decides, after timehistUpdate of t's switch-out, whether
// the delay ending at its switch-in tprev is unrecorded: then it comes out
// of t's total delay, its span (the end of the wait) out of t's total wait
// of its kind, and the row prints "-" for both.
//
// So is a delay that overlapped a lost-event window on any CPU (lossy):
// while a CPU's events are missing, a task waiting elsewhere may have been
// pulled there and run (schedule.Builder's markDelay says the same for
// latency). A lossy recording showed ksoftirqd/0 with a 1.332 s sch delay
// across 200 lost windows where latency counted at most 5.3 ms.
//
// And a switch-out whose switch-in the trace lacks (the CPU's previous
// sched_switch switched in another task, missingIn): the task's wait ended
// somewhere between that switch and this one, so neither its wait nor its
// delay is known; perf measures both to the CPU's previous switch and
// printed 0.000 where latency recovered a 2.406 ms delay (or an 80 ms one
// where the switch-in came much later).
func (th *timehist) settleUnrecorded(t *timehistThread, tprev, tm int64, cpu trace.CPU, missingIn bool) {
	waiting := tprev != 0 && t.readyToRun != 0 && t.readyToRun <= tprev
	unrecorded := waiting && (t.hasOff && th.unrecordedAt(t.offCPU, tprev) || t.ranUnseen)
	t.ranUnseen = false
	// A run that overlaps a loss on its own CPU may not have begun at the
	// CPU's last recorded switch (the real switch-in may be among the lost
	// events): a .tv recorded with --buffer-size 8K printed a 30.585 ms
	// delay, placed at the start of the lost window, where perf's
	// recording of the same run shows 0.223 ms.
	runLossy := tprev != 0 && th.lossyOn(cpu, tprev, tm)
	// A sleep that met a loss before its recorded wakeup: the real wakeup
	// may be among the lost events, earlier (a sched_wakeup on the
	// target's CPU at the switch-in, its sched_waking lost on the other
	// CPU, printed 0.000 where the whole file has 1.361 ms).
	sleptLossy := t.lastState != 'R' && t.lastTime > 0 && th.lossy(t.lastTime, t.readyToRun)
	lossy := waiting && !unrecorded && (th.lossy(t.readyToRun, tprev) || runLossy || sleptLossy)
	// No recorded wakeup (perf prints 0) for a wait that overlapped lost
	// events: the wakeup may be among them, and the task may have run
	// where the loss was, so neither the wait nor the delay is measured (a
	// cut perf.data printed nice's 0.000 where the whole file has 14.310
	// ms, and rt-ticker's wait of 376.123 ms where it has 2.047 ms). So
	// for a task's first switch-in after a loss (its wakeup, or its fork's,
	// may be among the lost events; perf prints 0 for a task first seen).
	// And in a recording of some CPUs, where the wakeup may have been on
	// one the capture left out (record -C 0: a 102.865 ms delay read
	// 0.000).
	noWakeBase := t.tid != 0 && !waiting && tprev != 0 && t.lastTime <= tprev
	noWakeLossy := noWakeBase && (th.lossy(t.lastTime, tprev) || runLossy)
	noWake := noWakeLossy || noWakeBase && t.lastTime > 0 && th.someUnrecorded(tprev)
	idleMissingIn := missingIn && t.tid == 0 && tprev != 0
	missingIn = missingIn && t.tid != 0 && tprev != 0
	t.dtUnrecorded = unrecorded || lossy || noWake || missingIn
	t.dtNoWake, t.dtFirstSeen, t.dtRunUnknown, t.dtWaitUnknown = false, false, false, false
	if runLossy {
		// The run may have begun or ended among the lost events (an 83
		// ms "run" of a hackbench worker across 516 lost events on its
		// CPU; perf[18327]'s runs summed 729.6 ms where latency counts
		// 24.1): '-', and out of the task's total run time. The idle
		// task's likewise: out of the CPU's idle time (new-user pass 38
		// F1: a damaged block's 1.29 s read as idle on CPU 0).
		t.dtRunUnknown = true
		t.totalRun -= t.dtRun
		th.lossyRuns++
	} else if missingIn {
		// The run's switch-in is not in the trace (this VM's PID 1
		// threads switch without sched_switch events; a throttled
		// group's task back from idle): it began somewhere after the
		// CPU's previous switch, which perf's rule (--exact) takes for
		// its start. '-', and out of the task's total run time, as
		// latency leaves it out: a thread of a group throttled to 25
		// ms per 100 ms read 84-104 ms runs, 1372 ms in all where
		// latency has 377 (new-user pass 25 F6).
		t.dtRunUnknown = true
		t.totalRun -= t.dtRun
		th.unchainedRuns++
		th.unchainedRunNs += t.dtRun
	} else if idleMissingIn {
		// An idle period whose switch-in the trace lacks: the task the
		// CPU's previous switch switched in ran for part of it, and the
		// trace does not say how long (stats counts the span unknown).
		// Out of the CPU's idle time, as a task's run is out of its run
		// time: counted whole, idle + busy + unknown exceeded the CPU's
		// observed time by 99 ms (new-user pass 40 F4).
		t.dtRunUnknown = true
		t.totalRun -= t.dtRun
		th.unchainedIdle++
		th.unchainedIdleNs += t.dtRun
	}
	if !t.dtUnrecorded {
		switch {
		case t.tid == 0:
		case tprev == 0:
			// The CPU's first switch: the task ran since before the
			// trace, for how long and after what wait is not in it.
			t.dtFirstSeen, t.dtRunUnknown = true, true
			th.firstSeen++
		case t.lastTime == 0 && t.readyToRun == 0:
			// The task's first switch-in: how long it had waited or
			// slept before is not in the trace.
			t.dtFirstSeen = true
			th.firstSeen++
		case t.lastTime == 0:
			// Its first event is its wakeup: the delay from it is
			// measured, the sleep before it began before the trace (or
			// before a loss that took the task's earlier events: a
			// damaged block's ksoftirqd/0 printed a wait of 0.000 ms
			// where the whole file has 551.371; new-user pass 61 F6).
			// perf prints 0.000.
			t.dtWaitUnknown = true
			th.waitUnknown++
		case t.readyToRun == 0 && t.lastState != 'R' && t.lastTime <= tprev:
			// Back from a sleep with no recorded wakeup (latency counts
			// these as "ran again ... with no recorded wakeup"): the wait
			// is known, the delay in it is not.
			t.dtNoWake = true
			th.noWakeups++
		}
		return
	}
	t.totalDelay -= t.dtDelay
	// (A wait with no recorded wakeup while some CPU had recorded
	// nothing yet is counted with the unrecorded ones, not as lost
	// events: a full capture whose CPU 1 was quiet for its first 18 ms
	// blamed 3 rows on lost events, of which it had none.)
	switch {
	case missingIn && !unrecorded && !lossy && !noWakeLossy:
		// (Before a CPU that recorded nothing yet: the switch-in the
		// trace lacks is what hides the wait here.)
		th.missingIns++
	case unrecorded || noWake && !noWakeLossy:
		th.unrecordedDelays++
	default:
		th.lossyDelays++
	}
	if noWake || missingIn {
		// The whole wait is unknown (there is no delay in it to take).
		t.totalSleep -= t.dtSleep
		t.totalIO -= t.dtIOWait
		t.totalPre -= t.dtPreempt
		return
	}
	// One of the three is the wait (timehistUpdate); it ends with the
	// delay, which is at most all of it (a preemption's is all of it).
	t.totalSleep -= min(t.dtSleep, t.dtDelay)
	t.totalIO -= min(t.dtIOWait, t.dtDelay)
	t.totalPre -= min(t.dtPreempt, t.dtDelay)
}

// lostWin is a window of lost events on cpu (-1 every CPU): [start, end]
// ns, noted at time at (its KindLost's: windows come in order of at, and
// end at most lostAhead after it).
type lostWin struct {
	start, end, at int64
	cpu            trace.CPU
}

// noteLost notes the window of a KindLost: its CPU (every CPU when -1)
// unobserved from its previous event to the loss, or, for a loss known
// ahead (trace.Event.Runtime > 0, a perf.data cut in the round perf was
// writing), from the event on for Runtime ns.
func (th *timehist) noteLost(e *trace.Event) {
	w := lostWin{e.Time, e.Time, e.Time, e.CPU}
	switch c := int(e.CPU); {
	case e.Runtime > 0:
		w.end = e.Time + e.Runtime
		th.lostAhead = max(th.lostAhead, e.Runtime)
	case c >= 0 && c < len(th.lastAt) && th.lastAt[c] >= 0:
		w.start = th.lastAt[c]
	case c < 0:
		for _, t := range th.lastAt {
			if t >= 0 {
				w.start = min(w.start, t)
			}
		}
	}
	th.lostWins = append(th.lostWins, w)
}

// lossyOn reports whether [start, end] meets a lost window on cpu (or on
// every CPU), ends included: a window starts at the CPU's last event.
func (th *timehist) lossyOn(cpu trace.CPU, start, end int64) bool {
	for i := len(th.lostWins) - 1; i >= 0; i-- {
		w := &th.lostWins[i]
		if w.at+th.lostAhead < start {
			break // (this one and every earlier one end before start)
		}
		if (w.cpu == cpu || w.cpu < 0) && w.start <= end && w.end >= start {
			return true
		}
	}
	return false
}

// lossy reports whether [start, end] overlaps a lost window.
func (th *timehist) lossy(start, end int64) bool {
	for i := len(th.lostWins) - 1; i >= 0; i-- {
		w := &th.lostWins[i]
		if w.at+th.lostAhead < start {
			break // (this one and every earlier one end before start)
		}
		if w.start < end && w.end > start {
			return true
		}
	}
	return false
}

// waiting reports whether t waits for a CPU: ready since its last
// switch-out and on no CPU now.
func (th *timehist) waiting(t *timehistThread) bool {
	if t.readyToRun == 0 || t.readyToRun < t.lastTime {
		return false
	}
	return !slices.Contains(th.curIn, t.tid)
}

// noteRanUnseen notes that a waiting task ran where the trace cannot see
// (as schedule.Builder does for latency): a record in its context on a
// CPU that has recorded nothing of its own (perf record -C writes the
// COMM, FORK and EXIT records of every CPU), or a new name in no known
// context (traceview record names a task anew at its switch-in when it
// exec'd or renamed itself unseen) while a CPU of the machine has
// recorded nothing (perf script text names a task anew where its name
// first shows). A timeout waiting on CPU 1 of a -C 1 capture exec'd nice
// and taskset on CPU 0 meanwhile and read a 960 ms delay.
func (th *timehist) noteRanUnseen(e *trace.Event) {
	if e.CurTID > 0 && e.CPU >= 0 && th.unrecordedAt(e.CPU, e.Time) {
		if t := th.m.get(e.CurTID); t != nil && th.waiting(t) {
			th.noteQueue(t, e.CPU, e.Time)
		}
	}
	// (The cheap checks first: every sched_stat_runtime comes here.)
	if e.Kind == trace.KindRuntime && e.TID > 0 && e.Runtime > 0 && e.CPU >= 0 {
		// Run time charged to a waiting task while another runs on the
		// CPU that says so: it runs on a CPU the recording left out
		// (perf record -C 1: 466.934 ms where the whole machine's
		// recording has 1.4 ms).
		if c := int(e.CPU); c >= len(th.curIn) || th.curIn[c] != e.TID {
			if t := th.m.get(e.TID); t != nil && th.waiting(t) && th.someUnrecorded(e.Time) {
				t.ranUnseen = true
			}
		}
	}
	if (e.Kind == trace.KindExec || e.Kind == trace.KindComm) && e.TID > 0 && e.Comm != "" && e.CurTID <= 0 {
		if t := th.m.get(e.TID); t != nil && t.comm != "" && t.comm != e.Comm && th.waiting(t) && th.someUnrecorded(e.Time) {
			t.ranUnseen = true
		}
	}
}

// someUnrecorded reports whether an online CPU had recorded no event by
// time at.
func (th *timehist) someUnrecorded(at int64) bool {
	if th.cpusGuessed {
		return false // (perf's stand-in count, not the machine's)
	}
	for c := 0; c < th.nrCPUs; c++ {
		if th.unrecordedAt(trace.CPU(c), at) {
			return true
		}
	}
	return false
}
