package textfmt

import (
	"bytes"
)

// dialect says how a line names the current task.
type dialect uint8

const (
	dialectNone   dialect = iota
	dialectFtrace         // "comm-tid" (ftrace, trace-cmd report)
	dialectPerf           // "comm pid/tid" or "comm tid" (perf script)
)

// prefix is the part of an event line before the payload.
type prefix struct {
	dialect dialect
	comm    []byte // current task's comm ("<idle>" for the idle task in ftrace)
	tid     int64
	pid     int64 // -1 unless the line has a tgid column or perf's pid/tid
	cpu     int64
	flags   []byte // ftrace irq-info column ("d.s4."), nil when absent
	time    int64  // ns
	event   []byte // tracepoint name without its "sched:" system
	system  []byte // "sched" when the line names it (perf script), else nil
	payload []byte
}

// parsePrefix splits an event line. It reports false when the line does not
// have the shape of an event line at all.
//
// The CPU column is a "[digits]" followed by a space or the end; a task
// name may hold one too (prctl allows "job [3]" or "w 12 [001]"), so each
// such token is tried in turn, and the first after which the line reads
// on (the task column before it, a timestamp after it, then the event)
// is the CPU's.
//
// At most maxCPUCandidates such tokens are tried, so that a hostile line
// of many costs no more than a few parses.
func parsePrefix(line []byte, p *prefix) bool {
	tried := 0
	for i := 0; i < len(line) && tried < maxCPUCandidates; i++ {
		if line[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == ']' && (j+1 == len(line) || line[j+1] == ' ') && i > 0 {
			tried++
			if parseAfterCPU(line, i, j, p) {
				return true
			}
		}
	}
	return false
}

// maxCPUCandidates bounds the "[digits] " tokens parsePrefix tries: a task
// name is at most 15 bytes (TASK_COMM_LEN 16 with its NUL,
// include/linux/sched.h), which holds at most 4 of them ("[1] [2] [3] [4]"),
// and the CPU column's is the next; 8 leaves room for a trace-cmd buffer
// name before the task.
const maxCPUCandidates = 8

// parseAfterCPU parses line with its CPU column at line[open:close+1].
func parseAfterCPU(line []byte, open, close int, p *prefix) bool {
	p.cpu = atoi(line[open+1 : close])
	if !parseTask(bytes.TrimRight(line[:open], " "), p) {
		return false
	}
	rest := line[close+1:]
	rest = skipSpaces(rest)
	// Optional irq-info flags column, then the timestamp "S.F:".
	p.flags = nil
	tok, after := token(rest)
	if len(tok) == 0 {
		return false
	}
	if !isTimestamp(tok) {
		p.flags = tok
		tok, after = token(skipSpaces(after))
		if !isTimestamp(tok) {
			return false
		}
	}
	p.time = parseTime(tok[:len(tok)-1])
	return parseEvent(skipSpaces(after), p)
}

// parseEvent parses the event name and the payload that follow the
// timestamp: "sched_switch: prev_comm=..." (ftrace) or
// "sched:sched_switch: ..." (perf script).
func parseEvent(rest []byte, p *prefix) bool {
	// Event name up to ':' (perf script: "sched:sched_switch:").
	end := bytes.IndexByte(rest, ':')
	if end <= 0 {
		return false
	}
	p.system = nil
	p.event = rest[:end]
	rest = rest[end+1:]
	if len(rest) > 0 && rest[0] != ' ' {
		// "system:event:" form.
		e2 := bytes.IndexByte(rest, ':')
		if e2 <= 0 || bytes.IndexByte(rest[:e2], ' ') >= 0 {
			return false
		}
		p.system = p.event
		p.event = rest[:e2]
		rest = rest[e2+1:]
	}
	p.payload = bytes.TrimRight(skipSpaces(rest), " \r")
	if p.system != nil {
		p.payload = cutIPSym(p.payload)
	}
	return true
}

// cutIPSym cuts what perf script prints after a tracepoint's payload
// when asked for the ip and sym fields (-F ...,trace,ip,sym): one space,
// the 16 hex digits of the kernel address, then the symbol (perf's
// builtin-script.c prints the fields in its own order, trace before ip).
// No task name can hold such a token: a comm has at most 15 characters.
func cutIPSym(payload []byte) []byte {
	for i := len(payload) - 17; i >= 0; i-- {
		if payload[i] != ' ' || !isHex16(payload[i+1:i+17]) || (i+17 < len(payload) && payload[i+17] != ' ') {
			continue
		}
		return bytes.TrimRight(payload[:i], " ")
	}
	return payload
}

// isHex16 reports whether b is 16 lowercase hex digits.
func isHex16(b []byte) bool {
	if len(b) != 16 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseTask parses the current-task column: "comm-tid", "comm-tid (tgid)",
// "comm tid" or "comm pid/tid".
func parseTask(s []byte, p *prefix) bool {
	p.pid = -1
	// trace-cmd report of several buffers starts each line with the
	// buffer's name and a colon, then at least two spaces.
	if t := skipSpaces(s); len(t) > 0 {
		if i := bytes.IndexByte(t, ' '); i > 0 && t[i-1] == ':' && i+1 < len(t) && t[i+1] == ' ' {
			s = t[i:]
		}
	}
	if n := len(s); n > 0 && s[n-1] == ')' {
		o := bytes.LastIndexByte(s, '(')
		if o < 0 {
			return false
		}
		tg := bytes.TrimSpace(s[o+1 : n-1])
		if isDigits(tg) {
			p.pid = atoi(tg)
		} else if len(bytes.Trim(tg, "-")) != 0 {
			return false
		}
		s = bytes.TrimRight(s[:o], " ")
	}
	s = skipSpaces(s)
	// Trailing digits: the tid (or pid/tid).
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return false
	}
	tid := atoi(s[i:])
	if i == 0 {
		// perf script -F tid,cpu,... (no comm column).
		p.dialect, p.tid, p.comm = dialectPerf, tid, nil
		return true
	}
	switch s[i-1] {
	case '-':
		if i >= 2 && s[i-2] == ' ' && string(s[i:]) == "1" {
			// perf script's ":-1  -1": an event after its thread's
			// pid was released (a thread of a process exits; Go
			// builds show hundreds), whose comm and tid perf no
			// longer knows. The thread is unknown here (tid -1),
			// not a task "1" (new-user pass 48 F1: a phantom ":1"
			// "ran" 1.467 ms, 250 switch-ins flagged missing); the
			// payload names the tasks it is about.
			p.dialect, p.tid, p.comm = dialectPerf, -1, nil
			return true
		}
		p.dialect = dialectFtrace
		p.tid = tid
		p.comm = bytes.TrimLeft(s[:i-1], " ")
		if len(p.comm) == 0 && i == 1 {
			// "-22786": a task named with spaces only (prctl(PR_SET_NAME,
			// " ")), which ftrace's right-aligned %16s column shows as
			// padding. The name is unknown here; the payloads name it.
			p.comm = nil
			return true
		}
	case '/':
		j := i - 1
		k := j
		for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
			k--
		}
		if k == j || k > 0 && s[k-1] != ' ' {
			return false
		}
		p.dialect = dialectPerf
		p.pid = atoi(s[k:j])
		p.tid = tid
		p.comm = bytes.Trim(s[:k], " ")
		return true // comm may be absent (perf script -F pid,tid,...)
	case ' ':
		// perf script pads the comm with spaces (%16s); a name may hold
		// any other byte, a tab or a newline's escape among them
		// (prctl(PR_SET_NAME, "\t")), so only spaces are padding.
		p.dialect = dialectPerf
		p.tid = tid
		p.comm = bytes.Trim(s[:i], " ")
	default:
		return false
	}
	return len(p.comm) > 0
}

func skipSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// token returns the bytes up to the next space and the rest.
func token(b []byte) (tok, rest []byte) {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i:]
}

// isTimestamp reports whether tok is "digits[.digits]:".
func isTimestamp(tok []byte) bool {
	n := len(tok)
	if n < 2 || tok[n-1] != ':' {
		return false
	}
	dot := false
	for _, c := range tok[:n-1] {
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return tok[0] != '.'
}

// parseTime converts "seconds.fraction" into ns, keeping every digit given
// (up to nine decimals; further digits are dropped). A timestamp without a
// fraction is taken as ns, as ftrace prints its counter clocks.
func parseTime(b []byte) int64 {
	dot := bytes.IndexByte(b, '.')
	if dot < 0 {
		return atoi(b)
	}
	sec := atoi(b[:dot])
	frac := b[dot+1:]
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			ns += int64(frac[i] - '0')
		}
	}
	return sec*1_000_000_000 + ns
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// atoi parses an optionally signed decimal; callers check the syntax first
// where it matters (see num). Overlong input saturates instead of wrapping.
func atoi(b []byte) int64 {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	var v int64
	for _, c := range b {
		if v > (1<<62)/10 {
			break
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

// num parses a signed decimal integer, reporting false for anything else.
func num(b []byte) (int64, bool) {
	d := b
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if !isDigits(d) || len(d) > 18 {
		return 0, false
	}
	return atoi(b), true
}

// parseLatPrefix splits an event line of ftrace's latency format (the
// options/latency-format file set to 1, or a latency tracer's output):
//
//	bash-16888     1d..2. 15818us+: sched_wakeup_new: comm=bash ...
//
// The task column ("%8.8s-%-7d": the comm cut to 8 characters), the CPU
// number with no brackets ("%3d") glued to the irq-info flags, then the
// time in whole µs since the ring buffer's start, one mark character
// (trace_find_mark: ' ', '+' over 10 µs to the next event, '!', '#', '*',
// '@', '$') and ": " (lat_print_generic and lat_print_timestamp,
// kernel/trace/trace_output.c v6.18, the !verbose, ns-clock case). It
// reports false for any other shape, the verbose layout included.
func parseLatPrefix(line []byte, p *prefix) bool {
	// The time: the first "<space><digits>us<mark>: ".
	at := -1
	for i := bytes.Index(line, []byte("us")); i >= 0; {
		if i+4 < len(line) && isLatMark(line[i+2]) && line[i+3] == ':' && line[i+4] == ' ' {
			j := i
			for j > 0 && line[j-1] >= '0' && line[j-1] <= '9' {
				j--
			}
			if j < i && j > 0 && line[j-1] == ' ' {
				at = j
				break
			}
		}
		k := bytes.Index(line[i+2:], []byte("us"))
		if k < 0 {
			break
		}
		i += 2 + k
	}
	if at < 0 {
		return false
	}
	us := bytes.IndexByte(line[at:], 'u') + at
	p.time = atoi(line[at:us]) * 1000
	// Before it: the task column, then CPU and flags as one token.
	head := bytes.TrimRight(line[:at], " ")
	sp := bytes.LastIndexByte(head, ' ')
	if sp < 0 {
		return false
	}
	cf := head[sp+1:]
	d := 0
	for d < len(cf) && cf[d] >= '0' && cf[d] <= '9' {
		d++
	}
	if d == 0 {
		return false
	}
	p.cpu = atoi(cf[:d])
	p.flags = cf[d:]
	if len(p.flags) == 0 {
		p.flags = nil
	}
	if !parseTask(bytes.TrimRight(head[:sp], " "), p) || p.dialect != dialectFtrace {
		return false
	}
	return parseEvent(skipSpaces(line[us+4:]), p)
}

// isLatMark reports whether c is a latency-format time mark
// (trace_find_mark, kernel/trace/trace_output.c v6.18, or a space).
func isLatMark(c byte) bool {
	switch c {
	case ' ', '+', '!', '#', '*', '@', '$':
		return true
	}
	return false
}

// noCPUColumn reports whether line, one parsePrefix refused (both callers
// ask only then), is a perf script line of a sched tracepoint printed
// without the cpu field ("perf 515 22104.216453: sched:sched_switch: ...",
// -F comm,tid,time,event,trace): a timestamp token right before the
// "sched:" event.
func noCPUColumn(line []byte) bool {
	i := bytes.Index(line, []byte(" sched:sched_"))
	if i < 0 {
		return false
	}
	tok := bytes.TrimRight(line[:i], " ")
	before := []byte(nil)
	if j := bytes.LastIndexByte(tok, ' '); j >= 0 {
		tok, before = tok[j+1:], bytes.TrimRight(tok[:j], " ")
	}
	if k := bytes.LastIndexByte(before, ' '); k >= 0 {
		before = before[k+1:]
	}
	// "[001]" before the time is the CPU column: the line has it and is
	// malformed otherwise (cut short in the event name, say).
	if len(before) >= 3 && before[0] == '[' && before[len(before)-1] == ']' && isDigits(before[1:len(before)-1]) {
		return false
	}
	return isTimestamp(tok)
}
