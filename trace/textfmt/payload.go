package textfmt

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
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

// switchFields parses the kernel's sched_switch payload by its key=value
// fields: "prev_comm=C prev_pid=N prev_prio=N prev_state=S ==> next_comm=C
// next_pid=N next_prio=N" (include/trace/events/sched.h), or the raw form of
// `trace-cmd report -R` (libtraceevent's tep_print_fields), which has no
// "==>" and a numeric prev_state. A comm may hold any byte but NUL, so
// " ==> " or " prev_pid=" may appear inside one: prev_comm ends at the first
// " prev_pid=" after which the remaining fields parse (numbers where the
// kernel prints numbers), next_comm at the last
// " next_pid=" (the fields after it are numbers).
func (r *Reader) switchFields(ev *trace.Event, p []byte) bool {
	body := p[len("prev_comm="):]
	np := bytes.LastIndex(body, []byte(" next_pid="))
	if np < 0 {
		return false
	}
	tail := body[np+len(" next_pid="):]
	sp := bytes.Index(tail, []byte(" next_prio="))
	if sp < 0 {
		return false
	}
	ntid, ok1 := r.pid(tail[:sp])
	nprio, ok2 := num(bytes.TrimRight(tail[sp+len(" next_prio="):], " "))
	if !ok1 || !ok2 {
		return false
	}
	head := body[:np]
	for from := 0; ; {
		i := bytes.Index(head[from:], []byte(" prev_pid="))
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		rest := head[i+len(" prev_pid="):]
		pid, rest, ok := field(rest, " prev_prio=")
		if _, isNum := num(pid); !ok || !isNum {
			// (" prev_pid=" inside the name: "x prev_pid=9" read
			// "9 prev_pid=7355" as the pid, and the line as corrupt;
			// new-user pass 54 F4.)
			continue
		}
		prio, rest, ok := field(rest, " prev_state=")
		if _, isNum := num(prio); !ok || !isNum {
			continue
		}
		state, rest, ok := field(rest, " ")
		if !ok {
			continue
		}
		rest = bytes.TrimPrefix(rest, []byte("==> "))
		if !bytes.HasPrefix(rest, []byte("next_comm=")) {
			continue
		}
		st, ok := r.switchState(state)
		if !ok || !r.task(ev, head[:i], pid, prio) {
			return false
		}
		ev.PrevState = st
		ev.NextTID, ev.NextComm, ev.NextPrio = trace.TID(ntid), r.intern(rest[len("next_comm="):]), int32(nprio)
		return true
	}
}

// field cuts the value before sep from b; the value must be a number
// (decimal, or hex with 0x as tep_print_fields writes some longs).
func field(b []byte, sep string) (val, rest []byte, ok bool) {
	i := bytes.Index(b, []byte(sep))
	if i <= 0 {
		return nil, nil, false
	}
	return b[:i], b[i+len(sep):], true
}

// switchPlugin parses the sched plugin's "comm:pid [prio] STATE ==>
// comm:pid [prio]". A comm holding " ==> " makes several arrows: the first
// one whose two sides parse is taken.
func (r *Reader) switchPlugin(ev *trace.Event, p []byte) bool {
	for from := 0; ; {
		a := bytes.Index(p[from:], arrow)
		if a < 0 {
			return false
		}
		a += from
		from = a + 1
		prev, next := p[:a], p[a+len(arrow):]
		sp := bytes.LastIndexByte(prev, ' ')
		if sp < 0 {
			continue
		}
		st, ok := pluginState(prev[sp+1:])
		if !ok {
			continue
		}
		var cur, t trace.Event
		if !r.pluginTask(&cur, prev[:sp]) || !r.pluginTask(&t, next) {
			continue
		}
		ev.TID, ev.Comm, ev.Prio = cur.TID, cur.Comm, cur.Prio
		ev.PrevState = st
		ev.NextTID, ev.NextComm, ev.NextPrio = t.TID, t.Comm, t.Prio
		return true
	}
}

// parsePayload fills ev (whose Kind is set) from the payload text.
func (r *Reader) parsePayload(ev *trace.Event, p []byte) bool {
	var v [5][]byte
	f := v[:]
	switch ev.Kind {
	case trace.KindSwitch:
		if bytes.HasPrefix(p, []byte("prev_comm=")) {
			return r.switchFields(ev, p)
		}
		return r.switchPlugin(ev, p)
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
		c, ok := r.pid(f[3])
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

// pid parses a pid field, noting one beyond the kernel's limit in badField
// (the line is then dropped with a warning, not an error).
func (r *Reader) pid(b []byte) (int64, bool) {
	t, ok := num(b)
	if ok && (t < 0 || t > pidMaxLimit) {
		r.badField = fmt.Sprintf("pid %d outside 0..%d (PID_MAX_LIMIT)", t, pidMaxLimit)
		return 0, false
	}
	return t, ok
}

// task sets the subject task from comm, pid and (optional) prio texts.
func (r *Reader) task(ev *trace.Event, comm, pid, prio []byte) bool {
	t, ok := r.pid(pid)
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
	s = bytes.Trim(s, " ") // only spaces: a name may be a tab
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

// rawStateMark flags a sched_switch whose numeric prev_state is held raw in
// the low bits of PrevState until the reader has chosen the encoding
// (decodeRaw, when the event leaves the reorder window). No encoding uses
// the bit: pre-4.14 values stay below 2*TASK_STATE_MAX = 0x2000.
const rawStateMark trace.TaskState = 0x8000

// stateEncoding is how numeric prev_state values are decoded.
type stateEncoding uint8

const (
	encUndecided stateEncoding = iota
	encModern                  // Linux >= 4.14: TASK_REPORT bits, 0x100 = preempted
	encOld                     // Linux < 4.14: raw task->state, TASK_STATE_MAX = preempted
)

// switchState decodes a prev_state text: kernel letters ("S", "R+") or the
// number `trace-cmd report -R` prints (decimal, or 0x hex).
func (r *Reader) switchState(b []byte) (trace.TaskState, bool) {
	if len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return kernelState(b)
	}
	var v int64
	var ok bool
	if bytes.HasPrefix(b, []byte("0x")) {
		u, err := strconv.ParseUint(string(b[2:]), 16, 64)
		v, ok = int64(u), err == nil && u < 1<<62
	} else {
		v, ok = num(b)
	}
	if !ok || v < 0 || v >= int64(rawStateMark) {
		return 0, false
	}
	r.noteRawState(uint64(v))
	return rawStateMark | trace.TaskState(v), true
}

// noteRawState lets a numeric prev_state decide the encoding when the
// trace did not name its kernel: a value at or above 0x200 exists only in
// the pre-4.14 encoding (TASK_PARKED 512, TASK_NOLOAD 1024, TASK_STATE_MAX
// 1024/2048/4096: include/linux/sched.h of 3.x-4.13); a value with 0x100
// and nothing above is Linux >= 4.14's TASK_REPORT_MAX (a preemption; the
// old TASK_WAKING 256 is never a switched-out task's state).
func (r *Reader) noteRawState(v uint64) {
	if r.stateEnc != encUndecided {
		r.sayState()
		return
	}
	switch {
	case v >= 0x200:
		r.decideState(encOld, fmt.Sprintf("value %d at line %d exists only there", v, r.lineNo))
	case v&0x100 != 0:
		r.decideState(encModern, fmt.Sprintf("value %d (TASK_REPORT_MAX, a preemption) at line %d", v, r.lineNo))
	}
}

// decideState fixes the numeric prev_state encoding and says why.
func (r *Reader) decideState(enc stateEncoding, why string) {
	r.stateEnc, r.stateWhy = enc, why
	r.sayState()
}

// sayState warns once which encoding decodes numeric prev_state values.
func (r *Reader) sayState() {
	if r.stateSaid {
		return
	}
	r.stateSaid = true
	enc, why := r.stateEnc, r.stateWhy
	name := "Linux >= 4.14 bits (S D T t X Z P I = 0x1..0x80, 0x100 preempted)"
	if enc == encOld {
		name = "pre-4.14 task states (64 dead, 512 parked, 1024/2048/4096 alone = preempted)"
	}
	r.meta.Warnings.Add("text-numeric-state", "sched_switch prev_state is numeric (trace-cmd report -R): decoded as %s: %s", name, why)
}

// decodeRaw translates a numeric prev_state held under rawStateMark.
func (r *Reader) decodeRaw(st trace.TaskState) trace.TaskState {
	if r.stateEnc == encUndecided {
		r.decideState(encModern, fmt.Sprintf("assumed: the trace names no kernel and no value up to line %d tells the encodings apart", r.lineNo))
	}
	v := uint64(st &^ rawStateMark)
	if r.stateEnc == encModern {
		return trace.TaskState(v & 0x1ff)
	}
	switch v {
	case 1024, 2048, 4096: // TASK_RUNNING | TASK_STATE_MAX of 3.x / 4.2 / 4.11
		return trace.StatePreempted
	}
	var out trace.TaskState
	for _, b := range [...]struct {
		bit uint64
		st  trace.TaskState
	}{
		{1, trace.StateInterruptible}, {2, trace.StateUninterruptible}, {4, trace.StateStopped},
		{8, trace.StateTraced}, {16, trace.StateDead}, {32, trace.StateZombie},
		{64, trace.StateDead}, {512, trace.StateParked},
	} {
		if v&b.bit != 0 {
			out |= b.st
		}
	}
	return out // 128 TASK_WAKEKILL, 256 TASK_WAKING, 1024 TASK_NOLOAD, 2048 TASK_NEW only modify
}

// osRelease reads the kernel release a text trace names ("# os release :
// 4.9.0-8-amd64", perf script --header) and lets it choose the numeric
// prev_state encoding.
func (r *Reader) osRelease(t []byte) bool {
	const key = "# os release : "
	var rel string
	switch {
	case bytes.HasPrefix(t, []byte(key)):
		rel = string(bytes.TrimSpace(t[len(key):]))
	case bytes.Contains(t, []byte(" latency trace v")) && bytes.Contains(t, []byte(" on ")):
		// The latency format's header, "# nop latency trace v1.1.5 on
		// 6.18.44" (print_trace_header, kernel/trace/trace.c v6.18).
		_, after, _ := bytes.Cut(t, []byte(" on "))
		rel = string(bytes.TrimSpace(after))
	default:
		return false
	}
	r.meta.OSRelease = rel
	var major, minor int
	if n, _ := fmt.Sscanf(rel, "%d.%d", &major, &minor); n == 2 && r.stateEnc == encUndecided {
		enc := encModern
		if major < 4 || major == 4 && minor < 14 {
			enc = encOld
		}
		r.stateEnc, r.stateWhy = enc, "the trace names Linux "+rel
	}
	return true
}
