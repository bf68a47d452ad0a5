package trace

import "strconv"

// CommTracker names tasks for readers whose format has no comm records of
// its own (ftrace text, trace-cmd report, perf script, trace.dat): perf.data
// carries PERF_RECORD_COMM at exec and prctl(PR_SET_NAME), and consumers
// such as the latency report name a task by its latest comm from KindComm
// and KindExec events. The tracker watches the (TID, comm) pairs that event
// payloads carry and reports a KindComm event each time a task shows up
// with a name it did not have before. The zero value is ready to use.
type CommTracker struct {
	last map[TID]string
	// pay: for each task a Column name was given for, the name its
	// event payloads last showed ("" none yet): only a change of it is a
	// rename that overrides the column's name.
	pay map[TID]string
}

// Column records the name a line's own task column gives the task tid
// (perf script's comm column: perf's thread comm, which perf.data's COMM
// records set, where the payloads carry the kernel's task->comm: a
// kworker is "kworker/0:0-vir" there, from /proc/PID/comm at the
// recording's start, and "kworker/0:0" in its events), and returns the
// KindComm event (at ev's time and CPU) that names the task so when the
// name is new, as the perf.data the text was printed from names it
// (new-user pass 110 F1). From then on a payload name of the task renames
// it only when the payload name itself changes (an exec, a prctl). It
// ignores the idle task, "<...>", perf's ":TID" for a thread it had no
// comm of, and a column name that is the payload's without its leading
// and trailing spaces (perf script pads the column with spaces).
func (c *CommTracker) Column(ev *Event, tid TID, comm string) (Event, bool) {
	if tid <= 0 || comm == "" || comm == "<...>" || comm == ":"+itoa(int64(tid)) {
		return Event{}, false
	}
	if c.last == nil {
		c.last = make(map[TID]string, 1024)
	}
	old := c.last[tid]
	if old == comm || trimSpaces(old) == comm {
		return Event{}, false
	}
	if c.pay == nil {
		c.pay = map[TID]string{}
	}
	if _, ok := c.pay[tid]; !ok {
		c.pay[tid] = old
	}
	c.last[tid] = comm
	e := NewEvent(ev.Time, ev.CPU, KindComm)
	e.TID, e.Comm = tid, comm
	if ev.CurTID == tid && ev.CurPID >= 0 {
		e.PID = ev.CurPID
	}
	return e, true
}

// trimSpaces is s without leading and trailing ' ' bytes.
func trimSpaces(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// itoa is the decimal form of n.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

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
		if p, ok := c.pay[tid]; ok {
			// Named by a Column: the payload renames it only when its
			// own name changes.
			c.pay[tid] = comm
			if p == "" || p == comm {
				return
			}
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
			if _, ok := c.pay[ev.TID]; ok {
				c.pay[ev.TID] = ev.Comm
			}
		}
	}
	return n
}
