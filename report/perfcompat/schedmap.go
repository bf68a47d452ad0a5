package perfcompat

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
)

// MapOptions selects what Map prints; the fields mirror `perf sched map`'s
// options (tools/perf/builtin-sched.c, map_options, perf 6.12).
type MapOptions struct {
	// Compact shows only CPUs that had a switch, in order of their first
	// switch (--compact); the line of a CPU's first switch ends "(CPU n)".
	Compact bool
	// ColorTIDs and ColorCPUs highlight those threads' cells and names in
	// blue and those CPUs' marks on a red background (perf's --color-pids,
	// --color-cpus: COLOR_PIDS PERF_COLOR_BLUE, COLOR_CPUS
	// PERF_COLOR_BG_RED, builtin-sched.c v6.12), when Color is set: perf
	// colors only a terminal, so its output elsewhere is the same with or
	// without them.
	ColorTIDs, ColorCPUs []int
	Color                bool
	// CPUs prints only switches on these CPUs (--cpus); nil: all.
	CPUs []int
	// TaskNames keeps only tasks with these names (--task-name; with Fuzzy,
	// names containing one of them): other tasks show as "-", a matching
	// task's switch-out adds a line where it shows as "*-".
	TaskNames []string
	Fuzzy     bool
	// PIDs and TIDs keep only tasks of these processes (tgid) and threads,
	// shown like TaskNames (both must match when both are given).
	PIDs, TIDs []int
	// Start and End print only switches inside this window (ns,
	// inclusive; 0 leaves a side open); the tasks' short names are still
	// assigned from the trace's start.
	Start, End int64
	// Exact reproduces perf 6.12 byte for byte, including naming a thread
	// without a COMM record ":TID" (off: the tracepoint's name is used) and
	// its CPU column count (the online CPU count, grown only to the highest
	// CPU number seen rather than one past it).
	Exact bool
	// NrCPUs is the number of CPU columns (0: the trace's Meta.NrCPUs).
	NrCPUs int
	// Unthrottled, when set (traceview's; not with Exact), says whether a
	// task's switch-in at a time ended a throttle of its task group, and
	// its length (report.LatencyResult.ThrottleEnds): that switch-in's
	// line ends "  (unthrottled after N.NNN ms)".
	Unthrottled func(tid trace.TID, at int64) (int64, bool)
}

// Map writes perf sched map's view of src to w: one line per sched_switch
// with a 3-character cell per CPU naming the task on it by a two-character
// short name ("A0", "B0", ... "Z0", "A1", ...; "." for the idle task; "*"
// marks the CPU that switched), the switch time in seconds, and the first
// time a short name is used (or its task renamed) "XX => comm:tid". Errors:
// reading src, writing w, ErrTimehistNoSwitch.
func Map(w io.Writer, src trace.Source, opt MapOptions) error {
	mp := &schedMap{opt: opt, m: newTimehistMachine(opt.Exact, false), next1: 'A', next2: '0'}
	mp.w = bufio.NewWriterSize(w, 256<<10)
	n := opt.NrCPUs
	if n <= 0 && src.Meta() != nil {
		n = src.Meta().NrCPUs
	}
	mp.maxCPU = n
	if opt.CPUs != nil {
		mp.cpuSet = map[int]bool{}
		for _, c := range opt.CPUs {
			mp.cpuSet[c] = true
		}
	}
	// map looks only at sched_switch and the task records: perf's
	// PERF_RECORD_COMM/FORK/EXIT at their own times, as timehist (a
	// `perf record -e 'sched:*'` also holds sched_process_exec, a few
	// microseconds later: perf named an exec'd task one switch earlier).
	trace.UseTaskRecords(src)
	if opt.Exact {
		trace.KeepRepeats(src) // perf reads a record written twice twice
	}
	trace.SkipKinds(src, trace.KindRuntime, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate)
	saw := false
	var lost LatencyInfo // perf's print_bad_events after the map: lost events only
	err := trace.Each(src, func(e *trace.Event) error {
		switch e.Kind {
		case trace.KindLost:
			lost.LostEvents += int64(e.Count)
			lost.LostChunks++
			if !mp.opt.Exact && saw {
				mp.lostLine(e)
			}
		case trace.KindSwitch:
			saw = true
			mp.switchEvent(e)
		case trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit:
			if t := mp.m.observe(e); t != nil {
				if mp.opt.Exact && e.CurTID < 0 {
					// perf flags the thread of the record's sample id, which
					// perf record's synthesized COMM records leave zero: the
					// idle task's.
					t = mp.m.findnew(-1, 0)
				}
				t.commChanged = true
			}
		}
		return nil
	}, nil)
	if err != nil {
		mp.w.Flush()
		return err
	}
	if !saw {
		mp.w.Flush()
		return ErrTimehistNoSwitch
	}
	if m := src.Meta(); mp.opt.Exact && m != nil {
		// perf sched map ends with print_bad_events (builtin-sched.c
		// v6.12): of its lines only the lost-events one, as map mode
		// counts neither unordered timestamps nor switch bugs; "out of"
		// every record read (Meta.Records).
		lost.Events = m.Records
		WriteLatencyInfo(mp.w, &lost)
	}
	return mp.w.Flush()
}

type schedMap struct {
	opt          MapOptions
	m            *timehistMachine
	w            *bufio.Writer
	line         []byte
	maxCPU       int
	seenCPUs     int // one past the highest CPU switched on so far
	cpuSet       map[int]bool
	curr, out    []*timehistThread // per CPU: task switched in, task switched out
	comp         []int             // --compact: CPUs in order of first switch
	compSeen     []bool
	next1, next2 byte
}

// matchTask reports whether t passes the task filters (TaskNames, PIDs,
// TIDs).
func (mp *schedMap) matchTask(t *timehistThread) bool {
	if mp.opt.TaskNames != nil && !mp.match(t.comm) {
		return false
	}
	if mp.opt.PIDs != nil && !slices.Contains(mp.opt.PIDs, int(t.pid)) {
		return false
	}
	return mp.opt.TIDs == nil || slices.Contains(mp.opt.TIDs, int(t.tid))
}

// nextShort returns the next short name ("A0", "B0", ... "Z0", "A1", ...)
// and advances it.
func (mp *schedMap) nextShort() [2]byte {
	sn := [2]byte{mp.next1, mp.next2}
	if mp.next1 < 'Z' {
		mp.next1++
	} else {
		mp.next1 = 'A'
		if mp.next2 < '9' {
			mp.next2++
		} else {
			mp.next2 = '0'
		}
	}
	return sn
}

func (mp *schedMap) match(comm string) bool {
	for _, n := range mp.opt.TaskNames {
		if mp.opt.Fuzzy {
			if strings.Contains(comm, n) {
				return true
			}
		} else if comm == n {
			return true
		}
	}
	return false
}

func (mp *schedMap) switchEvent(e *trace.Event) {
	cpu := int(e.CPU)
	if cpu < 0 || cpu >= TimehistMaxCPUs || e.NextTID < 0 || e.TID < 0 {
		return
	}
	for len(mp.curr) <= cpu {
		mp.curr = append(mp.curr, nil)
		mp.out = append(mp.out, nil)
		mp.compSeen = append(mp.compSeen, false)
	}
	if cpu > mp.maxCPU {
		mp.maxCPU = cpu
	}
	newCPU := false
	var ncols int
	if mp.opt.Compact {
		if !mp.compSeen[cpu] {
			mp.compSeen[cpu] = true
			mp.comp = append(mp.comp, cpu)
			newCPU = true
		}
		ncols = len(mp.comp)
	} else {
		ncols = mp.maxCPU
		if !mp.opt.Exact {
			// One past the highest CPU switched on so far, whichever
			// CPU switches now: with no CPU count (text formats, a
			// perf.data cut before its header's features) a switch on
			// CPU 0 printed one column, and CPU 1's task vanished
			// from 88229 of 145035 lines (new-user pass 54 F1).
			mp.seenCPUs = max(mp.seenCPUs, cpu+1)
			ncols = max(ncols, mp.seenCPUs)
		}
	}
	in := mp.m.findnew(-1, e.NextTID)
	out := mp.m.findnew(-1, e.TID)
	mp.m.name(in, e.NextComm, e.Time)
	mp.m.name(out, e.Comm, e.Time)
	mp.curr[cpu] = in
	mp.out[cpu] = out
	named := mp.opt.TaskNames != nil || mp.opt.PIDs != nil || mp.opt.TIDs != nil
	newShort := false
	if in.shortname[0] == 0 {
		switch {
		case in.comm == "swapper":
			in.shortname = [2]byte{'.', ' '}
		case !named || mp.matchTask(in):
			in.shortname = mp.nextShort()
		default:
			in.shortname = [2]byte{'-', ' '}
		}
		newShort = true
	} else if named && !mp.opt.Exact && in.shortname[0] == '-' && mp.matchTask(in) {
		// Selected since its first switch-in: renamed to a name the
		// filter takes (sh exec'd hog), it gets its letter now, where
		// perf (--exact) keeps the "-" of its first name (new-user pass
		// 63 F1: hog's 253 lines all "-", as the tasks not selected).
		in.shortname = mp.nextShort()
		newShort = true
	}
	if mp.cpuSet != nil && !mp.cpuSet[cpu] {
		return
	}
	if (mp.opt.Start != 0 && e.Time < mp.opt.Start) || (mp.opt.End != 0 && e.Time > mp.opt.End) {
		if newShort {
			in.commChanged = true // say who XX is on the window's first line of it
		}
		return
	}
	// With --task-name: a line for the switch-in when the next task
	// matches, and one for the switch-out when the previous task matches.
	inLine, outLine, endIn := true, false, true
	if named {
		inLine = mp.matchTask(in)
		outMatch := mp.matchTask(out)
		outLine = outMatch && out.shortname[0] != 0
		// perf leaves the switch-in line unterminated when the task
		// switched out matches but never had a short name.
		endIn = !inLine || !outMatch || outLine
	}
	b := mp.line[:0]
	if inLine {
		b = mp.cells(b, cpu, ncols, false)
		b = mp.stamp(b, e.Time)
		if in.commChanged && !newShort && !mp.opt.Exact && in.comm == in.shownComm {
			in.commChanged = false // named again as it was: no rename
		}
		if newShort || in.commChanged {
			in.shownComm = in.comm
			if mp.colored(in) {
				b = append(b, colorBlue...)
			}
			b = append(b, in.shortname[0], in.shortname[1])
			b = append(b, " => "...)
			if mp.opt.Exact {
				b = append(b, termsafe.PerfName(in.comm)...)
			} else {
				b = append(b, termsafe.Name(in.comm)...) // (as timehist.name)
			}
			b = append(b, ':')
			b = timehistInt(b, int64(in.tid))
			if mp.colored(in) {
				b = append(b, colorReset...)
			}
			in.commChanged = false
		}
		if mp.opt.Compact && newCPU {
			b = append(b, " (CPU "...)
			b = timehistInt(b, int64(cpu))
			b = append(b, ')')
		}
		if mp.opt.Unthrottled != nil && !mp.opt.Exact && in.tid > 0 {
			if ns, ok := mp.opt.Unthrottled(trace.TID(in.tid), e.Time); ok {
				b = fmt.Appendf(b, "  (unthrottled after %.3f ms)", float64(ns)/1e6)
			}
		}
		if endIn {
			b = append(b, '\n')
		}
	}
	if outLine {
		b = mp.cells(b, cpu, ncols, true)
		b = mp.stamp(b, e.Time)
		b = append(b, '\n')
	}
	mp.line = b
	mp.w.Write(b)
}

// lostLine prints, in the default view, where events were lost, as
// timehist does: the columns after it show a CPU's task from its next
// switch, and until then the one before the loss, which may not have run
// on (new-user pass 90 F5: a task carried across 76 ms never observed,
// nothing said). perf's map (--exact) prints only the count at the end.
func (mp *schedMap) lostLine(e *trace.Event) {
	if mp.cpuSet != nil && e.CPU >= 0 && !mp.cpuSet[int(e.CPU)] {
		return
	}
	b := mp.stamp(mp.line[:0], e.Time)
	cpu := "every cpu"
	if e.CPU >= 0 {
		cpu = "cpu " + strconv.Itoa(int(e.CPU))
	}
	switch {
	case e.Count > 0:
		b = fmt.Appendf(b, "lost %d events on %s\n", e.Count, cpu)
	case e.Runtime > 0:
		b = fmt.Appendf(b, "%s unobserved from here to %s (events lost, number unknown)\n", cpu, string(timehistUsec(nil, e.Time+e.Runtime)))
	default:
		b = fmt.Appendf(b, "%s unobserved until here (events lost, number unknown)\n", cpu)
	}
	mp.line = b
	mp.w.Write(b)
}

func (mp *schedMap) stamp(b []byte, t int64) []byte {
	var tmp [32]byte
	b = append(b, "  "...)
	b = timehistRight(b, 12, timehistUsec(tmp[:0], t))
	return append(b, " secs "...)
}

// cells prints print_sched_map: per CPU column "*" or " " then the short
// name of its current task ("-" for the task switched out on this CPU when
// out is set), or blanks when none.
func (mp *schedMap) cells(b []byte, cpu, ncols int, out bool) []byte {
	b = append(b, "  "...)
	for i := 0; i < ncols; i++ {
		c := i
		if mp.opt.Compact {
			c = mp.comp[i]
		}
		mark := byte(' ')
		if c == cpu {
			mark = '*'
		}
		if mp.opt.Color && slices.Contains(mp.opt.ColorCPUs, c) {
			b = append(append(append(b, colorBGRed...), mark), colorReset...)
		} else {
			b = append(b, mark)
		}
		var cur *timehistThread
		if c < len(mp.curr) {
			if out {
				cur = mp.out[c]
			} else {
				cur = mp.curr[c]
			}
		}
		if cur == nil {
			b = append(b, "   "...)
			continue
		}
		switch {
		case out && c == cpu:
			b = append(b, "-  "...)
		case out:
			b = mp.short(b, mp.curr[c])
		default:
			b = mp.short(b, cur)
		}
	}
	return b
}

// short appends "%2s " of a short name.
func (mp *schedMap) short(b []byte, t *timehistThread) []byte {
	if t == nil || t.shortname[0] == 0 {
		return append(b, "   "...)
	}
	if mp.colored(t) {
		return append(append(append(b, colorBlue...), t.shortname[0], t.shortname[1], ' '), colorReset...)
	}
	return append(b, t.shortname[0], t.shortname[1], ' ')
}

// The escapes of perf's color.h (PERF_COLOR_BLUE, PERF_COLOR_BG_RED,
// PERF_COLOR_RESET).
const (
	colorBlue  = "\x1b[34m"
	colorBGRed = "\x1b[41m"
	colorReset = "\x1b[m"
)

// colored reports whether t's cell and name are highlighted (ColorTIDs).
func (mp *schedMap) colored(t *timehistThread) bool {
	return mp.opt.Color && t != nil && slices.Contains(mp.opt.ColorTIDs, int(t.tid))
}
