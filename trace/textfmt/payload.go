package textfmt

import (
	"bytes"
	"errors"
	"strings"

	"github.com/traceview/traceview/trace"
)

// errPayload is wrapped by payload parse errors.
var errPayload = errors.New("cannot parse payload")

// kv finds the values of keys in a "key=value key=value" payload, keys in
// the order the kernel's print format writes them. A comm or filename value
// runs up to the space before the next key (so names with spaces survive);
// other values end at their first space, so fields between the keys asked
// for (older kernels' "success=1") are skipped. Each key is given as
// " key=" (leading space), the first one may start the payload. It reports
// false if a key is missing.
func kv(p []byte, keys []string, out [][]byte) bool {
	pos := 0
	start := -1
	for i, k := range keys {
		var at int
		if i == 0 && bytes.HasPrefix(p, []byte(k[1:])) {
			at = 0
			start = len(k) - 1
			continue
		}
		at = bytes.Index(p[pos:], []byte(k))
		if at < 0 {
			return false
		}
		at += pos
		if i > 0 {
			out[i-1] = cutValue(keys[i-1], p[start:at])
		}
		start = at + len(k)
		pos = start
	}
	rest := p[start:]
	if sp := bytes.IndexByte(rest, ' '); sp >= 0 {
		rest = rest[:sp]
	}
	out[len(keys)-1] = rest
	return true
}

// cutValue ends a numeric value at its first space.
func cutValue(key string, v []byte) []byte {
	if strings.HasSuffix(key, "comm=") || key == " filename=" {
		return v
	}
	if sp := bytes.IndexByte(v, ' '); sp >= 0 {
		return v[:sp]
	}
	return v
}

// Keys of the kernel print formats (include/trace/events/sched.h, Linux 6.x).
var (
	keysSwitchPrev = []string{" prev_comm=", " prev_pid=", " prev_prio=", " prev_state="}
	keysSwitchNext = []string{" next_comm=", " next_pid=", " next_prio="}
	keysWakeup     = []string{" comm=", " pid=", " prio=", " target_cpu="}
	keysMigrate    = []string{" comm=", " pid=", " prio=", " orig_cpu=", " dest_cpu="}
	keysFork       = []string{" comm=", " pid=", " child_comm=", " child_pid="}
	keysExit       = []string{" comm=", " pid=", " prio="}
	keysExec       = []string{" filename=", " pid=", " old_pid="}
	keysRuntime    = []string{" comm=", " pid=", " runtime="}
)

var arrow = []byte(" ==> ")

// parsePayload fills ev (whose Kind is set) from the payload text.
func (r *Reader) parsePayload(ev *trace.Event, p []byte) bool {
	var v [5][]byte
	f := v[:]
	switch ev.Kind {
	case trace.KindSwitch:
		a := bytes.Index(p, arrow)
		if a < 0 {
			return false
		}
		prev, next := p[:a], p[a+len(arrow):]
		if bytes.HasPrefix(prev, []byte("prev_comm=")) {
			if !kv(prev, keysSwitchPrev, f) || !r.task(ev, f[0], f[1], f[2]) {
				return false
			}
			st, ok := kernelState(f[3])
			if !ok {
				return false
			}
			ev.PrevState = st
			if !kv(next, keysSwitchNext, f) {
				return false
			}
		} else {
			// Plugin form: "comm:pid [prio] STATE ==> comm:pid [prio]".
			sp := bytes.LastIndexByte(prev, ' ')
			if sp < 0 || !r.pluginTask(ev, prev[:sp]) {
				return false
			}
			st, ok := pluginState(prev[sp+1:])
			if !ok {
				return false
			}
			ev.PrevState = st
			var t trace.Event
			if !r.pluginTask(&t, next) {
				return false
			}
			ev.NextTID, ev.NextComm, ev.NextPrio = t.TID, t.Comm, t.Prio
			return true
		}
		tid, ok1 := num(f[1])
		prio, ok2 := num(f[2])
		if !ok1 || !ok2 {
			return false
		}
		ev.NextTID, ev.NextComm, ev.NextPrio = trace.TID(tid), r.intern(f[0]), int32(prio)
		return true
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		if bytes.HasPrefix(p, []byte("comm=")) {
			if !kv(p, keysWakeup, f) || !r.task(ev, f[0], f[1], f[2]) {
				return false
			}
			cpu, ok := num(f[3])
			ev.TargetCPU = trace.CPU(cpu)
			return ok
		}
		// Plugin form: "comm:pid [prio] CPU:nnn" or "... success=1 CPU:nnn".
		c := bytes.LastIndex(p, []byte(" CPU:"))
		if c < 0 {
			return false
		}
		cpu, ok := num(p[c+5:])
		if !ok {
			return false
		}
		ev.TargetCPU = trace.CPU(cpu)
		t := p[:c]
		if s := bytes.LastIndex(t, []byte(" success=")); s >= 0 {
			t = t[:s]
		}
		return r.pluginTask(ev, t)
	case trace.KindMigrate:
		if !kv(p, keysMigrate, f) || !r.task(ev, f[0], f[1], f[2]) {
			return false
		}
		o, ok1 := num(f[3])
		d, ok2 := num(f[4])
		ev.OrigCPU, ev.DestCPU = trace.CPU(o), trace.CPU(d)
		return ok1 && ok2
	case trace.KindFork:
		if !kv(p, keysFork, f) || !r.task(ev, f[0], f[1], nil) {
			return false
		}
		c, ok := num(f[3])
		ev.ChildTID, ev.ChildComm = trace.TID(c), r.intern(f[2])
		return ok
	case trace.KindExit:
		return kv(p, keysExit, f) && r.task(ev, f[0], f[1], f[2])
	case trace.KindExec:
		if !kv(p, keysExec, f) {
			return false
		}
		// The kernel names the task after the file's base name
		// (fs/exec.c: __set_task_comm(me, kbasename(bprm->filename))),
		// cut to TASK_COMM_LEN-1 = 15 bytes.
		name := f[0]
		if i := bytes.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if len(name) > 15 {
			name = name[:15]
		}
		return r.task(ev, name, f[1], nil)
	case trace.KindRuntime:
		if !kv(p, keysRuntime, f) || !r.task(ev, f[0], f[1], nil) {
			return false
		}
		rt, ok := num(f[2])
		ev.Runtime = rt
		return ok && rt >= 0
	}
	return false
}

// task sets the subject task from comm, pid and (optional) prio texts.
func (r *Reader) task(ev *trace.Event, comm, pid, prio []byte) bool {
	t, ok := num(pid)
	if !ok {
		return false
	}
	ev.TID = trace.TID(t)
	ev.Comm = r.intern(comm)
	if prio != nil {
		pr, ok := num(prio)
		if !ok {
			return false
		}
		ev.Prio = int32(pr)
	}
	return true
}

// pluginTask parses the sched plugin's "comm:pid [prio]" into the subject.
func (r *Reader) pluginTask(ev *trace.Event, s []byte) bool {
	s = bytes.TrimSpace(s)
	n := len(s)
	if n < 5 || s[n-1] != ']' {
		return false
	}
	o := bytes.LastIndex(s, []byte(" ["))
	if o < 0 {
		return false
	}
	prio, ok := num(s[o+2 : n-1])
	if !ok {
		return false
	}
	cp := s[:o]
	c := bytes.LastIndexByte(cp, ':')
	if c < 0 {
		return false
	}
	if !r.task(ev, cp[:c], cp[c+1:], nil) {
		return false
	}
	ev.Prio = int32(prio)
	return true
}

// kernelState decodes the kernel's sched_switch prev_state text: letters of
// the TASK_REPORT bits joined by '|' ("S", "S|D" ...), "R" for running and
// "R+" for preempted (include/trace/events/sched.h print fmt, Linux >= 4.14:
// __print_flags with "S","D","T","t","X","Z","P","I" for bits 0x01..0x80).
// Letters that only older kernels print (3.x/4.x: "x" TASK_DEAD, "K"
// TASK_WAKEKILL, "W" TASK_WAKING, "N" TASK_NOLOAD, "n" TASK_NEW) have no
// TASK_REPORT bit: "x" is read as X (dead), the others add nothing.
func kernelState(b []byte) (trace.TaskState, bool) {
	return letters(b, kernelTable)
}

// kernelTable is the kernel's prev_state letter order (bit i = letter i).
const kernelTable = "SDTtXZPI"

// oldLetter maps the pre-4.14 letters kernelState accepts besides its table.
func oldLetter(c byte) (trace.TaskState, bool) {
	switch c {
	case 'x':
		return trace.StateDead, true
	case 'K', 'W', 'N', 'n':
		return 0, true
	}
	return 0, false
}

// pluginState decodes libtraceevent's sched plugin states: its table
// "SDTtZXxW" maps bit 0..7 (plugins/plugin_sched_switch.c write_state),
// which differs from the kernel's for bits 0x10 (Z), 0x20 (X), 0x40 (x) and
// 0x80 (W); preemption is not shown (a preempted task prints "R").
func pluginState(b []byte) (trace.TaskState, bool) {
	return letters(b, "SDTtZXxW")
}

// letters translates a '|'-joined state string using table (bit i =
// table[i]); "R" is running and a trailing "+" marks preemption.
func letters(b []byte, table string) (trace.TaskState, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var st trace.TaskState
	if b[len(b)-1] == '+' {
		st |= trace.StatePreempted
		b = b[:len(b)-1]
	}
	if len(b) == 1 && b[0] == 'R' {
		return st, true
	}
	for len(b) > 0 {
		if len(b) > 1 && b[1] != '|' {
			return 0, false
		}
		if i := indexByte(table, b[0]); i >= 0 {
			st |= 1 << i
		} else if table == kernelTable {
			old, ok := oldLetter(b[0])
			if !ok {
				return 0, false
			}
			st |= old
		} else {
			return 0, false
		}
		b = b[1:]
		if len(b) > 0 {
			b = b[1:]
			if len(b) == 0 {
				return 0, false
			}
		}
	}
	return st, true
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
