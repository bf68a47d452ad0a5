package textfmt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/traceview/traceview/trace"
)

// Window is how many events the reader holds back to put lines of
// interleaved per-CPU output (trace_pipe) into time order.
const Window = 1023

// maxLine is the longest line the reader parses; longer lines are skipped
// and counted.
const maxLine = 64 << 10

// Reader is a trace.Source over tracing text.
type Reader struct {
	// cur is a copy of the line being parsed; joinBuf holds the lines
	// joinedPrefix joined.
	cur, joinBuf []byte
	br           *bufio.Reader
	meta         trace.Meta
	lenient      bool
	lineNo       int
	comms        map[string]string
	names        trace.CommTracker
	p            prefix

	// Reorder buffer: a ring of n events from head, sorted by (Time,
	// arrival); its size is a power of two, grown up to above Window.
	ring    []trace.Event
	head, n int
	emitted bool
	lastOut int64
	eof     bool
	err     error

	// Numeric prev_state (trace-cmd report -R): the encoding chosen, why,
	// and whether that was said.
	stateEnc  stateEncoding
	stateWhy  string
	stateSaid bool

	closer      io.Closer       // the input, when it is a file to close
	lastTime    []int64         // last event time per CPU (lost windows), -1 none
	sameTime    [][]trace.Event // per CPU, the events at lastTime (duplicates)
	before      []lastEvent     // per CPU, what undoing its last event needs
	hist        [][]kept        // per CPU, its latest kept events (dropRun)
	started     bool            // an event line was read; firstTime is its time
	firstTime   int64
	overwritten bool                 // the header says the ring buffer overwrote events
	latFormat   bool                 // a line of ftrace's latency format was read (parseLatPrefix)
	badField    string               // set by the payload parser for an out-of-range field
	pendingLost map[trace.CPU]uint64 // lost counts waiting for the CPU's next event

	// ftrace's header count of the events in the buffer (summed over
	// headers, headerEntries says one was read) and the event lines
	// read, compared at the end (checkEntries).
	headerEntries bool
	entriesIn     int64
	entries       int64
	garbled       int // lines skipped as text-garbled-line
	// hole: lines were skipped as damaged (text-garbled-line) since the
	// last event line, whose time is lastEvent; the next event line
	// brings a trace.KindLost of unknown CPU (every CPU unobserved from
	// its previous event to there: the skipped lines held events).
	hole      bool
	lastEvent int64
	// onlyCPU is the CPU of every event line so far (-1: none yet, -2:
	// more than one), for checkEntries.
	onlyCPU    int64
	endChecked bool
}

// lastEvent is what the reader keeps of a CPU's last event to drop it
// when the next event shows its time was the damaged one (dropOutlier).
type lastEvent struct {
	prevTime int64 // the CPU's event time before it, -1 none
	line     int   // its line number
	undoable bool  // it was the only event at its time and brought no lost window
}

// maxCPU bounds the CPU column: larger numbers make the line malformed.
const maxCPU = 1 << 16

// pidMaxLimit is the largest pid a 64-bit kernel hands out
// (include/linux/threads.h PID_MAX_LIMIT, 4 * 1024 * 1024); a larger one in
// a text trace is damage (a pid of 2^40 would wrap to 0, the idle task).
const pidMaxLimit = 4 << 20

// NewReader returns a reader of ftrace, trace-cmd report or perf script text
// from r; format names the dialect in Meta.Format and Meta.Tool. A
// malformed sched line is an error (see NewReaderWith).
func NewReader(r io.Reader, format string) *Reader {
	return NewReaderWith(r, format, trace.ReadOptions{})
}

// NewReaderWith is NewReader with options: with opts.Lenient a malformed
// sched line is skipped and counted as a warning.
func NewReaderWith(r io.Reader, format string, opts trace.ReadOptions) *Reader {
	var closer io.Closer
	if f, ok := r.(*os.File); ok && f != os.Stdin {
		closer = f
	}
	return &Reader{
		closer:      closer,
		br:          bufio.NewReaderSize(r, maxLine),
		meta:        trace.Meta{Format: format, Tool: format},
		lenient:     opts.Lenient,
		comms:       map[string]string{"<idle>": "<idle>"},
		ring:        make([]trace.Event, 64),
		pendingLost: map[trace.CPU]uint64{},
	}
}

// Meta returns what the text told about the trace; warnings grow while
// reading.
func (r *Reader) Meta() *trace.Meta { return &r.meta }

// Close closes the input when it is a file (as trace.Open passes it);
// other readers are left to their owner.
func (r *Reader) Close() error {
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// Next returns the next event in time order, io.EOF after the last, or an
// error for a malformed sched line ("line N: ...", wrapping trace.ErrCorrupt).
func (r *Reader) Next() (trace.Event, error) {
	for !r.eof && r.err == nil && r.n <= Window {
		r.fill()
	}
	if r.eof && r.err == nil && !r.endChecked {
		r.endChecked = true
		r.checkEntries()
	}
	if r.n > 0 {
		ev := r.ring[r.head]
		if ev.Kind == trace.KindSwitch && ev.PrevState&rawStateMark != 0 {
			ev.PrevState = r.decodeRaw(ev.PrevState)
		}
		r.head = (r.head + 1) & (len(r.ring) - 1)
		r.n--
		r.emitted, r.lastOut = true, ev.Time
		return ev, nil
	}
	if r.err != nil {
		return trace.Event{}, r.err
	}
	return trace.Event{}, io.EOF
}

// fill reads one line and queues its event, if any.
func (r *Reader) fill() {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.lineNo++
		r.meta.Warnings.Add("text-long-line", "line %d: longer than %d bytes, skipped", r.lineNo, maxLine)
		for err == bufio.ErrBufferFull {
			_, err = r.br.ReadSlice('\n')
		}
		if err == io.EOF {
			r.eof = true
		} else if err != nil {
			r.err = err
		}
		return
	}
	if err == io.EOF && len(bytes.TrimSpace(line)) > 0 {
		// A last line without a newline: cut short with the file (`head
		// -c`), as every tracer ends its lines with one. Left out with a
		// warning, not an error, so that every event before it counts:
		// also when it parses, since a number cut short reads as a
		// smaller one (new-user pass 36 F2: "runtime=486271" cut to
		// "runtime=48" was read as 48 ns, with no word).
		r.lineNo++
		r.meta.Warnings.Add("truncated-file", "line %d: the input ends inside it (%d bytes, no newline): a file cut short; the line is left out (cut, its last field may read as another value: a number cut short as a smaller one)", r.lineNo, len(line))
		r.eof = true
		return
	}
	if len(line) > 0 {
		r.lineNo++
		// A copy: joining a line cut by a newline in a task name peeks
		// past the buffer's end, which may move the line's bytes.
		r.cur = append(r.cur[:0], bytes.TrimRight(line, "\r\n")...)
		if perr := r.line(r.cur); perr != nil {
			if errors.Is(perr, errNoCPU) {
				// Every line lacks it: skipping them would leave nothing.
				r.err = fmt.Errorf("line %d: %w", r.lineNo, perr)
				return
			}
			if !r.lenient {
				r.err = fmt.Errorf("line %d: %w (--lenient skips such lines, counted as warnings)", r.lineNo, perr)
				return
			}
			// Each named (-v lists them) and counted lost: a sched
			// event line the file held (new-user pass 93 F8: "lost: 0
			// events", and the header's count blamed a cut or lines
			// lost "where the header does not say").
			r.meta.Warnings.AddEach("text-malformed-line", "line %d: %v (skipped: lenient)", r.lineNo, perr)
			r.meta.LostInFile++
			r.garbled++
			r.hole = r.started // (its event is lost, as a garbled line's)
		}
	}
	if err == io.EOF {
		r.eof = true
	} else if err != nil {
		r.err = err
	}
}

// errNoCPU is the error for perf script text printed without the cpu
// field (noCPUColumn). It wraps trace.ErrCorrupt, as every error of a
// line that cannot be read.
var errNoCPU = fmt.Errorf("perf script text without the cpu field (traceview needs each event's CPU: print it with perf script -F comm,pid,tid,cpu,time,event,trace): %w", trace.ErrCorrupt)

// latPrefix parses line as ftrace's latency format (parseLatPrefix) and,
// at the first such line, says what that format loses.
func (r *Reader) latPrefix(line []byte, p *prefix) bool {
	if !parseLatPrefix(line, p) {
		return false
	}
	if !r.latFormat {
		r.latFormat = true
		r.meta.Warnings.Add("text-latency-format", "line %d: ftrace's latency format (options/latency-format): times are whole µs from the ring buffer's start, so every time and delay is rounded to 1 µs, and the task column cuts names to 8 characters (sched_switch's own names are whole); for ns times record with latency-format off (echo 0 > /sys/kernel/tracing/options/latency-format)", r.lineNo)
	}
	return true
}

// line parses one line; an error means a malformed sched line.
func (r *Reader) line(line []byte) error {
	t := skipSpaces(line)
	if len(t) > 0 && t[0] == '#' {
		r.comment(t)
		return nil
	}
	if len(t) == 0 {
		return nil
	}
	if r.header(t) {
		return nil
	}
	if bytes.IndexByte(line, 0) >= 0 {
		// No tracer writes a NUL (a name holds any byte but NUL): a block
		// of zeros over the file, which may leave a line that still
		// parses (new-user pass 40 F2: 4 KiB of NULs inside a
		// sched_switch's payload, read as one, and its 28 lines gone).
		if r.entries > 0 {
			r.meta.Warnings.Add("text-garbled-line", "line %d: holds NUL bytes (damaged), skipped: %q", r.lineNo, clip(line))
			r.garbled++
			r.hole = true
			return nil
		}
		return fmt.Errorf("a line with NUL bytes (damaged): %q: %w", clip(line), trace.ErrCorrupt)
	}
	p := &r.p
	if !parsePrefix(line, p) && !r.latPrefix(line, p) {
		if noCPUColumn(line) {
			if r.entries > 0 {
				// The event lines before it have the field: this one is
				// damaged (new-user pass 61 F3: a flipped bit in "[001]"
				// failed even --lenient with advice to print the field).
				return fmt.Errorf("event line without the cpu field the lines before it have (damaged?): %q: %w", clip(line), trace.ErrCorrupt)
			}
			return fmt.Errorf("%w: %q", errNoCPU, clip(line))
		}
		// (" sched:" too: a perf script line cut inside its event's name,
		// "... sched:sc", was taken for no event line at all: new-user
		// pass 47 F1.)
		if bytes.Contains(line, []byte(": sched_")) || bytes.Contains(line, []byte(" sched:")) {
			return fmt.Errorf("sched event line that does not parse as COMM PID [CPU] TIME: EVENT: ... (cut short or damaged?): %q: %w", clip(line), trace.ErrCorrupt)
		}
		if joined := r.joinedPrefix(line); joined != nil {
			return r.line(joined)
		}
		if r.entries > 0 {
			// Between event lines: not a header or comment but a line
			// damaged or replaced, and events may be missing with it.
			r.meta.Warnings.Add("text-garbled-line", "line %d: not an event line between event lines (damaged?), skipped: %q", r.lineNo, clip(line))
			r.garbled++
			r.hole = true
			return nil
		}
		r.meta.Warnings.Add("text-other-line", "line %d: not an event line, skipped: %q", r.lineNo, clip(line))
		return nil
	}
	r.entries++
	switch {
	case r.entries == 1:
		r.onlyCPU = p.cpu
	case r.onlyCPU != p.cpu:
		r.onlyCPU = -2
	}
	if p.system != nil && string(p.system) != "sched" {
		r.meta.Warnings.Add("text-other-event", "line %d: %s:%s is not a sched event, skipped", r.lineNo, p.system, p.event)
		return nil
	}
	kind := eventKind(p.event)
	if kind == trace.KindInvalid && len(p.payload) == 0 && (string(p.system) == "sched" || p.system == nil && (string(p.event) == "sched" || bytes.HasPrefix(p.event, []byte("sched_")))) {
		// A sched event's line that ends at its name (cut there: "...
		// sched:" read as an event "sched"), not a tracepoint we leave
		// out: every sched tracepoint prints fields (new-user pass 47
		// F1: a sched_switch gone with a note about events not
		// modelled).
		return fmt.Errorf("sched event line cut short or damaged (no fields after the event name %q): %q: %w", p.event, clip(line), trace.ErrCorrupt)
	}
	if kind == trace.KindInvalid {
		r.meta.Warnings.Add("text-other-event", "line %d: %s is not a sched event traceview models, skipped", r.lineNo, p.event)
		return nil
	}
	if p.cpu >= maxCPU {
		return fmt.Errorf("%s: CPU %d out of range: %w", p.event, p.cpu, trace.ErrCorrupt)
	}
	if r.meta.NrCPUs > 0 && p.cpu >= int64(r.meta.NrCPUs) {
		r.meta.Warnings.Add("text-cpu-out-of-range", "line %d: CPU %d beyond the %d CPUs the header names: event dropped", r.lineNo, p.cpu, r.meta.NrCPUs)
		r.meta.LostInFile++ // an event the text held (new-user pass 91 F10: "lost: 0 events")
		return nil
	}
	if p.tid > pidMaxLimit {
		r.meta.Warnings.Add("text-pid-out-of-range", "line %d: pid %d above the kernel's PID_MAX_LIMIT %d: event dropped", r.lineNo, p.tid, pidMaxLimit)
		r.meta.LostInFile++
		return nil
	}
	cpu := trace.CPU(p.cpu)
	ev := trace.NewEvent(p.time, cpu, kind)
	ev.CurTID = trace.TID(p.tid)
	ev.CurPID = trace.PID(p.pid)
	if p.pid < 0 && p.tid == 0 {
		ev.CurPID = 0
	}
	if at := joinedEventAt(p.payload); at >= 0 {
		// Another event's line glued onto this one's end (a newline
		// lost): the payload parsers read their fields and stopped, and
		// the second event was gone with no word (new-user pass 48 F2: a
		// sched_switch after a sched_stat_runtime's "[ns]").
		return fmt.Errorf("%s: the line holds a second event line (%q: a lost newline?): %w", p.event, clip(p.payload[at:]), trace.ErrCorrupt)
	}
	r.badField = ""
	if !r.parsePayload(&ev, p.payload) && !r.joinedPayload(&ev, p.payload) {
		if r.badField != "" {
			r.meta.Warnings.Add("text-pid-out-of-range", "line %d: %s: event dropped", r.lineNo, r.badField)
			r.meta.LostInFile++
			return nil
		}
		return fmt.Errorf("%s: %w %q: %w", p.event, errPayload, clip(p.payload), trace.ErrCorrupt)
	}
	first := p.time // the trace's first event time (this one's before any)
	if r.started {
		first = r.firstTime
	}
	if kind == trace.KindRuntime && trace.RuntimeDamaged(&ev, first) {
		r.meta.Warnings.Add("damaged-runtime", "line %d: sched_stat_runtime for pid %d %s: a damaged value, dropped", r.lineNo, ev.TID, trace.RuntimeDamage(&ev, first))
		r.meta.LostInFile++
		return nil
	}
	if name, c := trace.CPUFieldBeyond(&ev, r.meta.NrCPUs); name != "" {
		// (A CPU field past the header's CPUs, as the CPU column:
		// new-user pass 101 F3, target_cpu=127 in a 2-CPU trace read as
		// written, exit 0.)
		r.meta.Warnings.Add("text-cpu-out-of-range", "line %d: %s %d beyond the %d CPUs the header names: event dropped", r.lineNo, name, c, r.meta.NrCPUs)
		r.meta.LostInFile++
		return nil
	}
	if p.flags != nil && (kind == trace.KindWaking || kind == trace.KindWakeup) {
		ev.FromIRQ = irqFlag(p.flags)
	}
	for int(cpu) >= len(r.lastTime) {
		r.lastTime = append(r.lastTime, -1)
		r.sameTime = append(r.sameTime, nil)
		r.before = append(r.before, lastEvent{prevTime: -1})
		r.hist = append(r.hist, nil)
	}
	if last := r.lastTime[cpu]; p.time < last && !r.dropOutlier(cpu, p.time) && !r.dropRun(cpu, p.time) {
		r.meta.Warnings.AddEach("text-time-backwards", "line %d: CPU %d: time %s s is before that CPU's previous event at %s s (damaged or repeated lines): event dropped",
			r.lineNo, cpu, secs(p.time), secs(last))
		r.meta.LostInFile++
		return nil
	} else if p.time == last {
		for _, same := range r.sameTime[cpu] {
			if same == ev {
				r.meta.Warnings.Add("text-duplicate", "line %d: CPU %d: the same %s at %s s again (repeated lines): event dropped", r.lineNo, cpu, ev.Kind, secs(p.time))
				return nil
			}
		}
	} else {
		r.sameTime[cpu] = r.sameTime[cpu][:0]
	}
	r.sameTime[cpu] = append(r.sameTime[cpu], ev)
	if !r.started {
		r.started, r.firstTime = true, p.time
	}
	lostPushed := false
	if r.lastTime[cpu] < 0 && r.overwritten && p.time > r.firstTime {
		lostPushed = true
		// The ring buffer overwrote this CPU's older events: from the
		// trace's first event to this CPU's first one nothing is known.
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Start: r.firstTime, End: p.time})
		r.push(trace.NewEvent(p.time, cpu, trace.KindLost))
	}
	if n := r.pendingLost[cpu]; n > 0 {
		lostPushed = true
		delete(r.pendingLost, cpu)
		start := r.lastTime[cpu]
		if start < 0 {
			// Lost before the CPU's first event (an overwriting
			// buffer's oldest): from the trace's first event (new-user
			// pass 94 F4: a window of no width).
			start = min(r.firstTime, p.time)
			if !r.started {
				start = p.time
			}
		}
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Count: n, Start: start, End: p.time})
		lost := trace.NewEvent(p.time, cpu, trace.KindLost)
		lost.Count = n
		r.push(lost)
	}
	if r.hole {
		// The damaged lines skipped since the last event line held
		// events of any CPU (new-user pass 61 F2: 4 KiB of NULs took 36
		// lines, 15 of them wakeups, and the delays across them were
		// measured, 0.439 ms read as 2.520): every CPU is unobserved
		// from its previous event to here, as after a damaged block of
		// a traceview file.
		r.hole, lostPushed = false, true
		if p.time > r.lastEvent {
			r.meta.Warnings.AddEach("damaged-text-span", "line %d: the events of the damaged lines skipped before it lay between %s s and %s s (the event lines around them): that time is unobserved on every CPU, delays across it are not measured",
				r.lineNo, secs(r.lastEvent), secs(p.time))
		}
		r.push(trace.NewEvent(p.time, -1, trace.KindLost))
	}
	r.lastEvent = max(r.lastEvent, p.time)
	r.before[cpu] = lastEvent{prevTime: r.lastTime[cpu], line: r.lineNo, undoable: len(r.sameTime[cpu]) == 1 && !lostPushed}
	if h := r.hist[cpu]; len(h) > 0 && h[len(h)-1].t == p.time {
		h[len(h)-1].undoable = false // (more than one event at its time)
	} else {
		if len(h) == histLen {
			h = append(h[:0], h[1:]...)
		}
		r.hist[cpu] = append(h, kept{p.time, r.lineNo, true}) // (a loss marker before it moves with it: unqueue)
	}
	r.lastTime[cpu] = p.time
	if p.dialect == dialectPerf && len(p.comm) > 0 {
		// perf's own name of the line's task (CommTracker.Column), first:
		// the payload's names of it then rename it only when they change.
		if c, ok := r.names.Column(&ev, trace.TID(p.tid), string(p.comm)); ok {
			r.push(c)
		}
	}
	var named [2]trace.Event
	for _, c := range named[:r.names.Changes(&ev, &named)] {
		r.push(c)
	}
	r.push(ev)
	return nil
}

// dropOutlier is called for an event at t earlier than CPU cpu's last
// event. One damaged timestamp ("1357.2990" read as "9357.2990") is either
// this event (t too early: it is dropped as before) or the last one (too
// late: every good event after it would be dropped). The last one is the
// outlier when t is not before the CPU's event before it or, for a CPU's
// first event, when t is nearer than it to the other CPUs' clock (their
// latest event). dropOutlier then takes that event out of the reorder
// buffer (its task-name events move to t), counts a warning and reports
// true; it reports false, changing nothing, when the last event is not the
// outlier or was delivered already. The check costs O(1) per CPU event;
// the undo, which is rare, a scan of the buffer's tail.
func (r *Reader) dropOutlier(cpu trace.CPU, t int64) bool {
	b, last := r.before[cpu], r.lastTime[cpu]
	if !b.undoable {
		return false
	}
	if b.prevTime >= 0 {
		if t < b.prevTime {
			return false
		}
	} else {
		if !r.nearerClock(cpu, t, last) {
			return false
		}
	}
	if !r.unqueue(cpu, last, t) {
		return false // delivered already
	}
	r.meta.Warnings.AddEach("text-time-outlier", "event with a time out of line with its neighbours dropped: line %d, CPU %d, time %s s (the CPU's next event is at %s s)",
		b.line, cpu, secs(last), secs(t))
	r.meta.LostInFile++
	r.lastTime[cpu], r.sameTime[cpu] = b.prevTime, r.sameTime[cpu][:0]
	r.before[cpu].undoable = false
	if h := r.hist[cpu]; len(h) > 0 {
		r.hist[cpu] = h[:len(h)-1]
	}
	return true
}

// queued reports whether CPU cpu's event at time last (not a task-name
// event) is still in the reorder buffer.
func (r *Reader) queued(cpu trace.CPU, last int64) bool {
	mask := len(r.ring) - 1
	for i := r.n - 1; i >= 0 && r.ring[(r.head+i)&mask].Time >= last; i-- {
		if e := r.ring[(r.head+i)&mask]; e.CPU == cpu && e.Time == last && e.Kind != trace.KindComm {
			return true
		}
	}
	return false
}

// unqueue takes CPU cpu's event at time last out of the reorder buffer,
// with the task-name events queued right before it, which move to time t;
// false when it was delivered already.
func (r *Reader) unqueue(cpu trace.CPU, last, t int64) bool {
	mask := len(r.ring) - 1
	at := -1
	for i := r.n - 1; i >= 0 && r.ring[(r.head+i)&mask].Time >= last; i-- {
		e := r.ring[(r.head+i)&mask]
		if e.CPU == cpu && e.Time == last && e.Kind != trace.KindComm {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	// Remove it and the task-name events and lost-event marker queued
	// right before it (same CPU and time, pushed together); push those
	// again at t, and end the marker's window there.
	start := at
	for start > 0 {
		e := r.ring[(r.head+start-1)&mask]
		if e.CPU != cpu || e.Time != last || e.Kind != trace.KindComm && e.Kind != trace.KindLost {
			break
		}
		if e.Kind == trace.KindLost {
			for i := range r.meta.Lost {
				if l := &r.meta.Lost[i]; l.CPU == cpu && l.End == last {
					l.End, l.Start = t, min(l.Start, t)
				}
			}
		}
		start--
	}
	var names []trace.Event
	for i := start; i < at; i++ {
		e := r.ring[(r.head+i)&mask]
		e.Time = t
		names = append(names, e)
	}
	j := start
	for i := at + 1; i < r.n; i++ {
		r.ring[(r.head+j)&mask] = r.ring[(r.head+i)&mask]
		j++
	}
	r.n = j
	for _, e := range names {
		r.push(e)
	}
	return true
}

// nearerClock reports, for a CPU with no event before the ones in
// question, whether its event at t is nearer the other CPUs' clock (their
// latest event) than its earlier event at ahead is: then the earlier one
// is out of line. False when no other CPU has an event yet.
func (r *Reader) nearerClock(cpu trace.CPU, t, ahead int64) bool {
	ref := int64(-1)
	for c, lt := range r.lastTime {
		if trace.CPU(c) != cpu && lt > ref {
			ref = lt
		}
	}
	return ref >= 0 && ahead-ref > abs(t-ref)
}

// histLen is how many of a CPU's latest kept events the reader remembers
// to undo a run of them stamped ahead (dropRun).
const histLen = 9

// kept is one of a CPU's latest kept events: its time and line, and
// whether it can be undone (the only event at its time, no lost window).
type kept struct {
	t        int64
	line     int
	undoable bool
}

// dropRun is dropOutlier for a run of 1 to histLen-2 of the CPU's latest
// events later than t (one when dropOutlier could not undo it: it brought
// a loss marker, which moves with the undo) (new-user pass 94 F5: two lines 1 s ahead were kept
// and the CPU's 13949 later events dropped): the run is stamped ahead when
// it rose from the event before it by at least half as much as it falls
// to t (as lines pushed ahead together do; a line stamped back has no such
// rise), every event of it can be undone and is still queued. They are then
// taken out, counted and warned of, and it reports true.
func (r *Reader) dropRun(cpu trace.CPU, t int64) bool {
	h := r.hist[cpu]
	n, m := len(h), 0
	for m < n && h[n-1-m].t > t {
		m++
	}
	if m < 1 || m > histLen-2 {
		return false // (one: dropOutlier's, but for an event that brought a loss marker)
	}
	var before kept
	switch {
	case m < n:
		before = h[n-1-m]
		if 2*(h[n-m].t-before.t) < h[n-1].t-t {
			return false
		}
	case len(h) < histLen:
		// The CPU's first lines, nothing before them: as dropOutlier
		// for a first event, they are the ones out of line when t is
		// nearer than they are to the other CPUs' clock (new-user pass
		// 96 N6: a CPU's first three lines 1 s ahead kept, 8752 after
		// them dropped).
		if !r.nearerClock(cpu, t, h[0].t) {
			return false
		}
		before = kept{t: -1}
	default:
		return false
	}
	for _, k := range h[n-m:] {
		if !k.undoable || !r.queued(cpu, k.t) {
			return false
		}
	}
	for i := n - 1; i >= n-m; i-- {
		r.unqueue(cpu, h[i].t, t)
		r.meta.Warnings.AddEach("text-time-outlier", "event with a time out of line with its neighbours dropped: line %d, CPU %d, time %s s (the CPU's next event is at %s s)",
			h[i].line, cpu, secs(h[i].t), secs(t))
		r.meta.LostInFile++
	}
	prev := int64(-1)
	if n-m-2 >= 0 {
		prev = h[n-m-2].t
	}
	r.lastTime[cpu], r.sameTime[cpu] = before.t, r.sameTime[cpu][:0] // (-1: no event of the CPU kept)
	r.before[cpu] = lastEvent{prevTime: prev, line: before.line, undoable: false}
	r.hist[cpu] = h[:n-m]
	return true
}

func abs(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}

// comment reads the facts of ftrace's header comments:
// "# entries-in-buffer/entries-written: 700/10081   #P:2"
// (kernel/trace/trace.c print_event_info: events in the ring buffer, events
// ever written, CPUs online) and perf script --header's "# os release :".
// Other comment lines carry nothing the reader needs.
func (r *Reader) comment(t []byte) {
	if r.osRelease(t) {
		return
	}
	const key = "# entries-in-buffer/entries-written:"
	if !bytes.HasPrefix(t, []byte(key)) {
		// The latency format's "# latency: 0 us, #4676/4676, CPU#0 |
		// (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)": its CPU count.
		if bytes.HasPrefix(t, []byte("# latency: ")) {
			if i := bytes.Index(t, []byte("#P:")); i >= 0 {
				d := t[i+3:]
				if j := bytes.IndexFunc(d, func(c rune) bool { return c < '0' || c > '9' }); j >= 0 {
					d = d[:j]
				}
				if n, ok := num(d); ok && n > 0 && n < maxCPU {
					r.meta.NrCPUs = int(n)
				}
			}
		}
		return
	}
	f := bytes.Fields(t[len(key):])
	if len(f) == 0 {
		return
	}
	if slash := bytes.IndexByte(f[0], '/'); slash > 0 {
		in, ok1 := num(f[0][:slash])
		written, ok2 := num(f[0][slash+1:])
		if ok1 && in >= 0 {
			r.headerEntries, r.entriesIn = true, r.entriesIn+in
		}
		if ok1 && ok2 && written > in && in >= 0 {
			r.overwritten = true
			r.meta.LostUnplaced += uint64(written - in)
			r.meta.Warnings.Add("text-overwritten", "ftrace ring buffer overwritten: %d of %d events written are not in the trace (entries-in-buffer/entries-written %d/%d, line %d); the time before each CPU's first event is unobserved",
				written-in, written, in, written, r.lineNo)
		}
	}
	for _, w := range f[1:] {
		if bytes.HasPrefix(w, []byte("#P:")) {
			if n, ok := num(w[3:]); ok && n > 0 && n < maxCPU {
				r.meta.NrCPUs = int(n)
			}
		}
	}
}

// checkEntries compares, at the end of the input, the event lines read
// with the count of ftrace's header ("entries-in-buffer"): fewer means
// the file was most likely cut short at a line boundary (`head -n`),
// which leaves no partial line to tell; more is only noted (files
// joined, or lines added).
func (r *Reader) checkEntries() {
	switch {
	case !r.headerEntries:
	case r.entries < r.entriesIn && r.garbled > 0:
		r.meta.Warnings.Add("text-entries-short", "the header says %d entries, the file holds %d: %d events missing, in the damaged %s skipped (text-garbled-line) or at its end (cut short)",
			r.entriesIn, r.entries, r.entriesIn-r.entries, map[bool]string{true: "line", false: "lines"}[r.garbled == 1])
	case r.entries < r.entriesIn && r.oneCPU():
		// tracefs' per_cpu/cpuN/trace carries the whole buffer's count
		// in its header (new-user pass 48 F3: a whole per-CPU file
		// "missing 17352 events at its end", info exit 1).
		r.meta.Warnings.Add("text-entries-per-cpu", "the header says %d entries and the file holds %d, all of CPU %d of the machine's %d: a per_cpu/cpuN/trace file, whose header counts every CPU's events, so its count cannot be checked",
			r.entriesIn, r.entries, r.onlyCPU, r.meta.NrCPUs)
	case r.entries < r.entriesIn:
		// Where is not known: at the end (head -n), or lines lost
		// inside (pass 48 F3: "at its end" of lines deleted mid-file).
		r.meta.Warnings.Add("text-entries-short", "the header says %d entries, the file holds %d: %d events missing, the file cut short at its end or lines lost inside it (the header does not say where)",
			r.entriesIn, r.entries, r.entriesIn-r.entries)
	case r.entries > r.entriesIn:
		r.meta.Warnings.Add("text-entries-extra", "the header says %d entries, the file holds %d: more lines than the tracer wrote (files joined?)",
			r.entriesIn, r.entries)
	}
}

// header handles the non-event lines that carry facts: "cpus=N"
// (trace-cmd report), "CPU:N [LOST M EVENTS]" (ftrace) and
// "CPU:N [M EVENTS DROPPED]" (trace-cmd report, with "NAME: " before it for
// an instance). It reports whether the line was one of them.
func (r *Reader) header(t []byte) bool {
	if bytes.HasPrefix(t, []byte("cpus=")) {
		if n, ok := num(bytes.TrimSpace(t[5:])); ok {
			r.meta.NrCPUs = int(n)
			return true
		}
		return false
	}
	if i := bytes.Index(t, []byte(": CPU:")); i > 0 && bytes.IndexByte(t[:i], ' ') < 0 {
		// trace-cmd report of an instance ("NAME: CPU:1 [21911 EVENTS
		// DROPPED]", as its event lines are prefixed: new-user pass 94
		// F6 read it as a damaged line and counted nothing lost).
		t = t[i+2:]
	}
	if !bytes.HasPrefix(t, []byte("CPU:")) {
		return false
	}
	rest := t[4:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return false
	}
	cpu, ok := num(rest[:sp])
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest[sp:])
	var count []byte
	switch {
	case len(rest) > 14 && bytes.HasPrefix(rest, []byte("[LOST ")) && bytes.HasSuffix(rest, []byte(" EVENTS]")):
		count = rest[6 : len(rest)-8]
	case len(rest) > 17 && rest[0] == '[' && bytes.HasSuffix(rest, []byte(" EVENTS DROPPED]")):
		count = rest[1 : len(rest)-16]
	default:
		return false
	}
	n, ok := num(count)
	if !ok || n < 0 {
		return false
	}
	r.pendingLost[trace.CPU(cpu)] += uint64(n)
	r.meta.Warnings.AddCount("text-lost-events", int(n), "events lost in all", "CPU %d: the tracer lost %d events (line %d)", cpu, n, r.lineNo)
	return true
}

// push queues ev in time order behind events of equal time.
func (r *Reader) push(ev trace.Event) {
	if r.emitted && ev.Time < r.lastOut {
		r.meta.Warnings.Add("text-out-of-order", "line %d: event at %s s is older than events already delivered (%s s), delivered out of order",
			r.lineNo, secs(ev.Time), secs(r.lastOut))
	}
	mask := len(r.ring) - 1
	if r.n == len(r.ring) {
		// Grow, unrolling the ring.
		bigger := make([]trace.Event, 2*len(r.ring))
		for i := 0; i < r.n; i++ {
			bigger[i] = r.ring[(r.head+i)&mask]
		}
		r.ring, r.head = bigger, 0
		mask = len(r.ring) - 1
	}
	// Insert behind the last event not later than ev (stable for ties).
	i := r.n
	for i > 0 && r.ring[(r.head+i-1)&mask].Time > ev.Time {
		r.ring[(r.head+i)&mask] = r.ring[(r.head+i-1)&mask]
		i--
	}
	r.ring[(r.head+i)&mask] = ev
	r.n++
}

// irqFlag reads the hardirq/softirq character (third) of ftrace's irq-info
// column: 'h' hardirq, 's' softirq, 'H' hardirq inside softirq
// (kernel/trace/trace_output.c trace_print_lat_fmt).
func irqFlag(f []byte) trace.Tristate {
	if len(f) < 4 {
		return trace.Unknown
	}
	switch f[2] {
	case 'h', 's', 'H':
		return trace.Yes
	case '.':
		return trace.No
	}
	return trace.Unknown
}

// eventKind maps a tracepoint name onto the kind it feeds.
func eventKind(name []byte) trace.Kind {
	switch string(name) {
	case "sched_switch":
		return trace.KindSwitch
	case "sched_waking":
		return trace.KindWaking
	case "sched_wakeup":
		return trace.KindWakeup
	case "sched_wakeup_new":
		return trace.KindWakeupNew
	case "sched_migrate_task":
		return trace.KindMigrate
	case "sched_process_fork":
		return trace.KindFork
	case "sched_process_exec":
		return trace.KindExec
	case "sched_process_exit":
		return trace.KindExit
	case "sched_stat_runtime":
		return trace.KindRuntime
	}
	return trace.KindInvalid
}

// intern returns a shared string for b (no allocation once seen).
func (r *Reader) intern(b []byte) string {
	if s, ok := r.comms[string(b)]; ok {
		return s
	}
	s := string(b)
	r.comms[s] = s
	return s
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

func secs(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e9, 'f', 6, 64)
}

// joinedPayload retries a payload that did not parse with the next line
// appended after a newline, when that line is no event line of its own: a
// task name holding a newline (prctl(PR_SET_NAME) takes any byte) splits
// perf script's line there ("comm=a,b" then "c pid=7272 runtime=..."). On
// success the next line is consumed and the event keeps the task's whole
// name and its pid.
func (r *Reader) joinedPayload(ev *trace.Event, payload []byte) bool {
	next, nl := r.peekLine(0)
	if nl < 0 {
		return false
	}
	var q prefix
	if len(next) == 0 || parsePrefix(next, &q) {
		return false
	}
	joined := make([]byte, 0, len(payload)+1+len(next))
	joined = append(append(append(joined, payload...), '\n'), next...)
	saved := *ev
	if !r.parsePayload(ev, joined) {
		*ev = saved
		return false
	}
	r.br.Discard(nl + 1)
	r.lineNo++
	return true
}

// peekLine returns the line that starts off bytes past the reader's
// position (without its line end) and the offset of its newline, -1 when
// the input holds no whole line there. It reads on as needed (up to
// maxLine bytes ahead), which may move the bytes of the line last read:
// fill parses a copy of it.
func (r *Reader) peekLine(off int) ([]byte, int) {
	buf, _ := r.br.Peek(r.br.Buffered())
	if bytes.IndexByte(buf[min(off, len(buf)):], '\n') < 0 {
		buf, _ = r.br.Peek(maxLine)
	}
	if off >= len(buf) {
		return nil, -1
	}
	nl := bytes.IndexByte(buf[off:], '\n')
	if nl < 0 {
		return nil, -1
	}
	return bytes.TrimRight(buf[off:off+nl], "\r"), off + nl
}

// maxNameLines bounds the lines joinedPrefix joins: a task name holds at
// most TASK_COMM_LEN-1 = 15 bytes (include/linux/sched.h), so 15 newlines.
const maxNameLines = 16

// joinedPrefix reads the lines of an event line whose task column holds a
// newline in the task's name: perf script right-aligns the name in 16
// columns (a line starting with spaces), so "x\ny" prints "             x"
// and then "y    9018 [001] ...". For line, which is no event line of its
// own, it returns line joined by newlines with the lines that follow up
// to the first event line, when that gives an event line whose name holds
// them (and consumes them), else nil.
func (r *Reader) joinedPrefix(line []byte) []byte {
	if len(line) == 0 || line[0] != ' ' || bytes.IndexByte(line, 0) >= 0 {
		// (A name holds any byte but NUL: NULs are damage, not a piece
		// of a name with a newline; new-user pass 38 F4: 200 NULs over
		// a line's end joined it with the next, both events gone unsaid.)
		return nil
	}
	joined := append(r.joinBuf[:0], line...)
	off := 0
	for k := 1; k < maxNameLines; k++ {
		next, nl := r.peekLine(off)
		if nl < 0 || len(next) == 0 {
			return nil
		}
		joined = append(append(joined, '\n'), next...)
		off = nl + 1
		var q prefix
		if !parsePrefix(next, &q) {
			continue // another piece of the name
		}
		var jp prefix
		if !parsePrefix(joined, &jp) || bytes.IndexByte(jp.comm, '\n') < 0 {
			return nil
		}
		r.joinBuf = joined
		r.br.Discard(off)
		r.lineNo += k
		return joined
	}
	return nil
}

// oneCPU reports whether every event line read was of one CPU, on a
// machine the header says has more (#P).
func (r *Reader) oneCPU() bool { return r.entries > 0 && r.onlyCPU >= 0 && r.meta.NrCPUs > 1 }

// joinedEventAt returns where in payload a second event line's
// timestamp and event name begin ("... 64255.580959: sched_switch:" or
// "sched:sched_switch:"), -1 when it holds none: a field's value is
// never a timestamp followed by ": sched" (task names are 15 bytes at
// most, and they come as comm=NAME or NAME:PID, never before a colon
// and a space).
func joinedEventAt(payload []byte) int {
	for off := 0; ; {
		i := bytes.Index(payload[off:], []byte(": sched"))
		if i < 0 {
			return -1
		}
		i += off
		j := i
		for j > 0 && (payload[j-1] >= '0' && payload[j-1] <= '9' || payload[j-1] == '.') {
			j--
		}
		if tok := payload[j:i]; j < i && (j == 0 || payload[j-1] == ' ') && isTimestamp(append(tok[:len(tok):len(tok)], ':')) {
			return j
		}
		off = i + 1
	}
}
