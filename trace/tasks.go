package trace

// Task is one task identity: a TID from the moment it is first seen (or
// forked) until it exits. A TID reused after an exit gets a new Task, so
// identities survive pid reuse; Comms keeps every name the task had (exec
// and prctl renames), so a report can say "sh, then perf-exec, then sched-pipe".
type Task struct {
	ID     int // unique per trace, from 1, in order of first appearance
	TID    TID
	PID    PID // tgid; -1 if the trace never said
	Comms  []CommSpan
	Exited bool
	// Start and End bound the events seen for this identity (ns).
	Start, End int64
}

// CommSpan is one name of a task, valid from Since (ns) on.
type CommSpan struct {
	Comm  string
	Since int64
}

// Comm returns the task's latest name ("" if it never had one). perf's
// reports name a thread by its latest comm.
func (t *Task) Comm() string {
	if len(t.Comms) == 0 {
		return ""
	}
	return t.Comms[len(t.Comms)-1].Comm
}

// CommAt returns the name the task had at time ts.
func (t *Task) CommAt(ts int64) string {
	c := ""
	for _, s := range t.Comms {
		if s.Since > ts && c != "" {
			break
		}
		c = s.Comm
	}
	return c
}

// Tasks is the task table built from an event stream: call Observe on every
// event in order, then Get/Current to resolve TIDs. The idle task (TID 0) is
// one shared identity named "swapper".
type Tasks struct {
	byTID map[TID]*Task
	all   []*Task
}

// NewTasks returns an empty table.
func NewTasks() *Tasks { return &Tasks{byTID: map[TID]*Task{}} }

// All returns every identity in order of first appearance.
func (ts *Tasks) All() []*Task { return ts.all }

// Current returns the live identity of tid, creating one if tid is new.
func (ts *Tasks) Current(tid TID, at int64) *Task {
	if t, ok := ts.byTID[tid]; ok && !t.Exited {
		return t
	}
	t := &Task{ID: len(ts.all) + 1, TID: tid, PID: -1, Start: at, End: at}
	if tid == 0 {
		t.PID = 0
		t.Comms = []CommSpan{{Comm: "swapper", Since: at}}
	}
	ts.byTID[tid] = t
	ts.all = append(ts.all, t)
	return t
}

// Lookup returns the latest identity of tid (live or exited) or nil.
func (ts *Tasks) Lookup(tid TID) *Task { return ts.byTID[tid] }

func (ts *Tasks) touch(tid TID, pid PID, comm string, at int64, rename bool) *Task {
	if tid < 0 {
		return nil
	}
	t := ts.Current(tid, at)
	if at > t.End {
		t.End = at
	}
	if pid >= 0 && t.PID < 0 {
		t.PID = pid
	}
	if comm != "" && tid != 0 {
		if len(t.Comms) == 0 {
			t.Comms = append(t.Comms, CommSpan{Comm: comm, Since: at})
		} else if rename && t.Comm() != comm {
			t.Comms = append(t.Comms, CommSpan{Comm: comm, Since: at})
		}
	}
	return t
}

// Observe updates the table with one event. Names from tracepoint fields
// only name a task that has no name yet; Comm and Exec events rename it.
func (ts *Tasks) Observe(e *Event) {
	switch e.Kind {
	case KindSwitch:
		ts.touch(e.TID, e.PID, e.Comm, e.Time, false)
		ts.touch(e.NextTID, e.NextPID, e.NextComm, e.Time, false)
	case KindFork:
		p := ts.touch(e.TID, e.PID, e.Comm, e.Time, false)
		if e.ChildTID >= 0 {
			if old, ok := ts.byTID[e.ChildTID]; ok && !old.Exited && old.End < e.Time {
				old.Exited = true // pid reuse without a seen exit
			}
			c := ts.touch(e.ChildTID, e.ChildPID, e.ChildComm, e.Time, false)
			if len(c.Comms) == 0 && p != nil && p.Comm() != "" {
				c.Comms = append(c.Comms, CommSpan{Comm: p.Comm(), Since: e.Time})
			}
		}
	case KindExec, KindComm:
		ts.touch(e.TID, e.PID, e.Comm, e.Time, true)
	case KindExit:
		if t := ts.touch(e.TID, e.PID, e.Comm, e.Time, false); t != nil && e.TID != 0 {
			t.Exited = true
		}
	case KindLost:
	default:
		ts.touch(e.TID, e.PID, e.Comm, e.Time, false)
	}
	if e.CurTID >= 0 {
		ts.touch(e.CurTID, e.CurPID, "", e.Time, false)
	}
}
