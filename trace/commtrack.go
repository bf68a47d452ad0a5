package trace

// CommTracker names tasks for readers whose format has no comm records of
// its own (ftrace text, trace-cmd report, perf script, trace.dat): perf.data
// carries PERF_RECORD_COMM at exec and prctl(PR_SET_NAME), and consumers
// such as the latency report name a task by its latest comm from KindComm
// and KindExec events. The tracker watches the (TID, comm) pairs that event
// payloads carry and reports a KindComm event each time a task shows up
// with a name it did not have before. The zero value is ready to use.
type CommTracker struct {
	last map[TID]string
}

// Changes writes into out the KindComm events that ev implies (at ev's
// time and CPU, TID and Comm set), to be delivered before ev, and returns
// how many: at most 2 (the subject, and the next task of a sched_switch;
// a fork names its child itself). It
// ignores the idle task (TID 0), unknown TIDs and names, and ftrace's
// "<...>" placeholder for names it did not save.
func (c *CommTracker) Changes(ev *Event, out *[2]Event) int {
	if c.last == nil {
		c.last = make(map[TID]string, 1024)
	}
	n := 0
	add := func(tid TID, comm string) {
		if tid <= 0 || comm == "" || comm == "<...>" {
			return
		}
		if old, ok := c.last[tid]; ok && old == comm {
			return
		}
		c.last[tid] = comm
		e := NewEvent(ev.Time, ev.CPU, KindComm)
		e.TID, e.Comm = tid, comm
		if ev.TID == tid && ev.PID >= 0 {
			e.PID = ev.PID
		}
		out[n] = e
		n++
	}
	switch ev.Kind {
	case KindSwitch:
		add(ev.TID, ev.Comm)
		add(ev.NextTID, ev.NextComm)
	case KindFork:
		// The fork names the child itself (ChildComm): remember it.
		add(ev.TID, ev.Comm)
		if ev.ChildTID > 0 && ev.ChildComm != "" {
			c.last[ev.ChildTID] = ev.ChildComm
		}
	case KindWaking, KindWakeup, KindWakeupNew, KindMigrate, KindExit, KindRuntime:
		add(ev.TID, ev.Comm)
	case KindExec, KindComm:
		// Already a naming event: remember the name, emit nothing.
		if ev.TID > 0 && ev.Comm != "" {
			c.last[ev.TID] = ev.Comm
		}
	}
	return n
}
