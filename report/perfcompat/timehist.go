package perfcompat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
)

// TimehistOptions selects what Timehist prints. The fields mirror the
// options of `perf sched timehist` (tools/perf/builtin-sched.c,
// timehist_options, perf 6.12).
type TimehistOptions struct {
	Wakeups     bool // -w: a row per wakeup ("awakened: comm[tid]")
	Migrations  bool // -M: a row per migration ("migrated: comm[tid] cpu A => B"); with Exact, counts migrations (the summary counts them always otherwise)
	Next        bool // -n: name the next task of each switch
	State       bool // --state: the state letter the task left in; wait-time summary
	ShowPrio    bool // --show-prio: the task's kernel prio ("120" or "120->110" when it changed)
	Summary     bool // -S: the rows, then the summary
	SummaryOnly bool // -s: only the summary
	IdleHist    bool // -I: only switches to/from idle; idle time charged to the task that ran before
	CPUVisual   bool // -V: a column per CPU marking the switching CPU ('s', 'i' for idle; 'm' migration)

	CPUs []int // -C: only these CPUs' rows and idle stats (nil: all)
	PIDs []int // -p: only these processes (tgid)
	TIDs []int // -t: only these threads
	// Comms keeps only threads whose current name is listed (traceview's
	// --comm; perf timehist has none).
	Comms []string
	// Start and End bound the time window (--time start,stop) in trace
	// nanoseconds; 0 leaves that side open.
	Start, End int64
	// Prios keeps only tasks whose kernel prio (0..139) is listed (--prio).
	Prios []int
	// CallGraph appends to the row of each task's switch-out (not idle's)
	// that carries a callchain (Event.Stack, perf sched record -g) the
	// callchain as perf sched timehist -g prints it (save_task_callchain,
	// timehist_print_sample in tools/perf/builtin-sched.c): the first
	// MaxStack+2 frames, leaf first, without schedule, __schedule and
	// preempt_schedule, each named by Frame.Func, else KernelSymbols for a
	// kernel frame, else "[unknown]", joined by " <- ".
	CallGraph bool
	// MaxStack is perf's --max-stack (0: perf's default, 5).
	MaxStack int
	// KernelSymbols names kernel addresses (nil: none known).
	KernelSymbols interface {
		Lookup(addr uint64) (string, bool)
	}

	// Exact reproduces perf 6.12's output byte for byte, including its
	// thread-identity errors: a task's last switch after its exit shows as a
	// fresh ":TID" thread with zeroed statistics, an exiting thread whose
	// sample tid is -1 shows as ":-1[-1/PID]", and threads first seen in a
	// wakeup print without "[tid]". Off, traceview keeps identities
	// (tracepoint prev_pid, names from the tracepoint when no COMM record
	// named the task) and the summary lists every task.
	Exact bool
	// NrCPUs is the number of CPUs online when the trace was recorded (0:
	// take it from the trace's Meta; perf falls back to 4).
	NrCPUs int
	// Throttled, when set (traceview's; not with Exact), returns how much
	// of task tid's wait from start to end (ns) its task group spent
	// throttled (report.CgroupThrottle, a first pass over the trace); a
	// row whose sch delay has some ends with "  throttled: N.NNN ms".
	Throttled func(tid trace.TID, start, end int64) int64
	// Result, when set, receives what the output leaves unsaid (see
	// TimehistResult), for the caller's warnings.
	Result *TimehistResult
	// Rows, when set, receives each row as data instead of its text
	// (traceview's timehist -o json and csv): nothing is written to w,
	// no header, no callchains, no CPU-visual columns. Not with Exact,
	// Summary or SummaryOnly (the summary is text; latency -o json has
	// the per-task totals). The row is reused after the call returns;
	// the first error it returns ends Timehist with that error.
	Rows func(*TimehistRow) error
}

// TimehistRow is one row of Timehist's view as data (TimehistOptions.Rows).
// Kind "switch": a sched_switch, for the task switched out (TID 0: the
// idle task), with its wait time (since its previous switch-out: sleep,
// I/O wait or preemption), scheduling delay (wakeup, or preemption, to
// switch-in) and run time (switch-in to this switch-out), wait and delay
// -1 when not measured (the task may have run unseen meanwhile, see
// TimehistResult.UnrecordedDelays) and 0 before the task's first
// recorded switch-out and wakeup, as perf prints them, and
// the state letter it left the CPU in. Kind "wakeup" and "migrate" (with
// Wakeups, Migrations): the task current on the CPU (the waker) and the
// task woken or moved (Target*), for a migration from FromCPU to ToCPU.
// Names are raw (any bytes); times are trace nanoseconds.
type TimehistRow struct {
	Kind        string `json:"kind"`
	Time        int64  `json:"time_ns"`
	CPU         int    `json:"cpu"`
	Comm        string `json:"comm"`
	TID         int64  `json:"tid"`
	PID         int64  `json:"pid"`  // -1 unknown
	Prio        int32  `json:"prio"` // switch rows: the task's kernel prio (-1 in other rows)
	WaitNs      int64  `json:"wait_ns"`
	SchDelayNs  int64  `json:"sch_delay_ns"`
	RunNs       int64  `json:"run_ns"`
	State       string `json:"state"`
	NextComm    string `json:"next_comm"`
	NextTID     int64  `json:"next_tid"`
	TargetComm  string `json:"target_comm"`
	TargetTID   int64  `json:"target_tid"`
	FromCPU     int    `json:"from_cpu"` // -1 outside migrations
	ToCPU       int    `json:"to_cpu"`
	ThrottledNs int64  `json:"throttled_ns"` // of SchDelayNs, with Throttled; -1 without (not computed)
	Lost        int64  `json:"lost"`         // kind "lost": the events the recorder lost on CPU (0: a number unknown)
}

// TimehistColumns are TimehistRow's fields in CSV order, named as its
// JSON keys.
var TimehistColumns = []string{"kind", "time_ns", "cpu", "comm", "tid", "pid", "prio", "wait_ns", "sch_delay_ns", "run_ns", "state",
	"next_comm", "next_tid", "target_comm", "target_tid", "from_cpu", "to_cpu", "throttled_ns", "lost"}

// Record is the row as CSV fields, in TimehistColumns' order.
func (r *TimehistRow) Record() []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []string{r.Kind, i(r.Time), i(int64(r.CPU)), r.Comm, i(r.TID), i(r.PID), i(int64(r.Prio)), i(r.WaitNs), i(r.SchDelayNs), i(r.RunNs), r.State,
		r.NextComm, i(r.NextTID), r.TargetComm, i(r.TargetTID), i(int64(r.FromCPU)), i(int64(r.ToCPU)), i(r.ThrottledNs), i(r.Lost)}
}

// TimehistResult is what a Timehist run tells its caller besides the
// output.
type TimehistResult struct {
	// SummaryTasks is the number of task rows the summary printed
	// (Summary or SummaryOnly; 0: "<no still running tasks>"), so that a
	// caller can say that its filters matched nothing.
	SummaryTasks int
	// Rows is the number of task rows printed (the "lost N events on cpu"
	// lines are not), so that a caller can say that its filters matched
	// nothing on a lossy trace too.
	Rows int
	// UnrecordedDelays (outside Exact) counts the rows whose sch delay is
	// not measured, printed "-": the task was queued meanwhile on a CPU
	// that had recorded no event, so it may have run there (see
	// timehist_unrecorded.go).
	UnrecordedDelays int64
	// LossyDelays (outside Exact) counts the rows whose sch delay is not
	// measured, printed "-" (-1 in Rows), because it overlapped a window of
	// lost events on some CPU: the task may have been pulled there and run
	// meanwhile (as latency's lossy delays; not in the summary's delay).
	LossyDelays int64
	// LossyRuns (outside Exact) counts the rows whose run time is not
	// measured, printed "-": events were lost on the task's CPU during the
	// run, so its switch-in or a switch-out may be among them (not in the
	// summary's run time either).
	LossyRuns int64
	// MissingSwitchIns (outside Exact) counts the rows of a task whose
	// switch-in the trace lacks (the CPU's previous sched_switch switched
	// in another): its wait and sch delay ended somewhere in between and
	// print "-" (-1 in Rows); perf measures both to that previous switch.
	MissingSwitchIns int64
	// FirstSeen (outside Exact) counts the rows of a task's first
	// switch-in, whose wait and sch delay the trace does not hold ("-");
	// NoWakeups the rows after a sleep with no recorded wakeup, whose sch
	// delay it does not hold ("-", the wait printed). perf prints 0.000.
	FirstSeen, NoWakeups int64
	// WaitUnknown (outside Exact) counts the rows of a task whose first
	// event is its wakeup: the sleep before it is not in the trace, so
	// the wait prints "-" (-1 in Rows), the sch delay its value; perf
	// prints 0.000 for the wait.
	WaitUnknown int64
	// OpenRuns (with the summary, outside Exact) are the runs still on a
	// CPU when the trace (or the --time window) ended, of 1 % of its span
	// or more (openRunMinShare): perf counts a run
	// at its switch-out, so the summary's run times leave them out; a
	// capture cut while a hog ran shows it with a fraction of its CPU.
	// By CPU.
	OpenRuns []TimehistOpenRun
	// Switches and Unchained count, per CPU, the sched_switch events and
	// those that switched out a task the CPU's previous sched_switch had
	// not switched in (the trace lacks a switch between them, as PID 1's
	// threads on this VM): perf charges the switched-out task the run
	// time from that previous switch, UnchainedNs in all, which may have
	// been another task's.
	Switches, Unchained []int64
	UnchainedNs         int64
	// UnchainedRuns (outside Exact) counts the rows of those switches
	// whose run time prints '-' and stays out of the summary's run times
	// (the idle task's aside), UnchainedRunNs the run time perf's rule
	// gives them.
	UnchainedRuns, UnchainedRunNs int64
	// UnchainedIdle (outside Exact) counts the idle task's rows among
	// them: idle periods whose run time prints '-' and stays out of the
	// CPU's idle time; UnchainedIdleNs the time perf's rule gives them.
	UnchainedIdle, UnchainedIdleNs int64
}

// TimehistOpenRun is a task running on CPU from its switch-in at Start to
// the end of the trace or window, End (ns).
type TimehistOpenRun struct {
	Task       string // comm[tid], as the summary names it
	CPU        int
	Start, End int64
}

// TimehistMaxPrio is the number of kernel priorities (MAX_PRIO in
// include/linux/sched/prio.h): --prio values must be below it.
const TimehistMaxPrio = 140

// ErrTimehistNoSwitch is returned when a trace has no sched_switch events:
// nothing can be computed without them.
var ErrTimehistNoSwitch = errors.New("no sched_switch events (record with 'perf sched record' or a sched_switch tracepoint)")

// timehist is the state of one Timehist run.
type timehist struct {
	opt  TimehistOptions
	m    *timehistMachine
	w    *bufio.Writer
	line []byte
	// countMigrations: sched_migrate_task events count in the summary's
	// migrations column. perf counts them only with -M (its handler is
	// registered only then) and prints 0 otherwise, for tasks that did
	// migrate; outside Exact every summary counts them.
	countMigrations bool

	idle       []*timehistThread // per CPU (perf's idle_threads)
	lastSwitch []int64           // ns, per CPU: previous sched_switch (tprev)
	curIn      []trace.TID       // per CPU: the task that switch switched in
	// row is the row handed to opt.Rows, rowErr its first error.
	row    TimehistRow
	rowErr error
	// switches and unchained per CPU, unchainedNs: TimehistResult's.
	switches, unchained []int64
	unchainedNs         int64
	lastTime            int64 // ns: the latest scheduler event's time
	commWidth           int
	maxCPU              int // perf's sched->max_cpu (starts at the online CPU count)
	nrCPUs              int // online CPUs
	maxSeen             int // highest CPU number seen
	// cpusGuessed: the CPU count was unknown when the events began (perf's
	// fallback of 4 stands in until the summary; see lateCPUs).
	cpusGuessed bool
	skipped     int
	histStart   int64
	histSet     bool // histStart was set (a switch at time 0 sets it to 0)
	before      bool // an event came before the window's start
	histEnd     int64
	sawWaking   bool
	sawSwitch   bool
	// recordedAt (outside Exact), per CPU: the time of its first event,
	// -1 none yet; unrecordedDelays counts the delays it left unmeasured.
	recordedAt       []int64
	unrecordedDelays int64
	// missingIns counts the rows whose switch-in the trace lacks
	// (settleUnrecorded), printed "-" for wait and sch delay; firstSeen
	// the rows of a task's first switch-in and noWakeups those after a
	// sleep with no recorded wakeup (timehistThread.dtFirstSeen, dtNoWake).
	missingIns, firstSeen, noWakeups, waitUnknown int64
	// meta is the source's; recordedCPUs its trace.RecordedCPUs, read at
	// the first event (a pipe-mode perf.data states its command line in
	// records before its samples), with recordedRead set.
	meta         *trace.Meta
	recordedCPUs []trace.CPU
	recordedRead bool
	// qList, per CPU, the tasks noted waiting there since its last idle
	// switch (queuedOn, idleOn).
	qList [][]*timehistThread
	// racesPending counts the threads with racePending set.
	racesPending int
	// lastAt (outside Exact), per CPU: the time of its latest event;
	// lostWins the lost-event windows so far (a KindLost's CPU from its
	// previous event to the loss, or the window a loss known ahead
	// gives); lossyDelays counts the delays that overlapped one
	// (settleUnrecorded).
	lastAt      []int64
	lostWins    []lostWin
	lostAhead   int64 // the longest window a loss known ahead gave (lossy)
	lossyDelays int64
	lossyRuns   int64
	// unchainedRuns and unchainedRunNs (outside Exact): the runs printed
	// '-' for their missing switch-in, and the run time perf's rule
	// gives them (TimehistResult's).
	unchainedRuns, unchainedRunNs int64
	// unchainedIdle and unchainedIdleNs (outside Exact): the idle
	// periods left out of the CPUs' idle time for the same reason.
	unchainedIdle, unchainedIdleNs int64

	stacks    []trace.Stack            // the source's stack table so far (CallGraph)
	chainText map[trace.StackID][]byte // rendered callchains
	cpuSet    []bool                   // nil: all
	pidSet    map[trace.PID]bool
	tidSet    map[trace.TID]bool
	commSet   map[string]bool
	prioSet   *[TimehistMaxPrio]bool
}

// Timehist writes perf sched timehist's view of src to w: one row per
// sched_switch giving, for the task switched out, its wait time (since its
// previous switch-out), scheduling delay (wakeup, or preemption, to
// switch-in) and run time (switch-in to this switch-out), all printed in
// msec with microsecond resolution; optional wakeup and migration rows;
// and the run-time summary. Definitions follow the comment "Explanation of
// delta-time stats" and timehist_update_runtime_stats in
// tools/perf/builtin-sched.c (perf 6.12). Events must come in time order.
// Errors: reading src, writing w, ErrTimehistNoSwitch.
func Timehist(w io.Writer, src trace.Source, opt TimehistOptions) error {
	th := &timehist{opt: opt, m: newTimehistMachine(opt.Exact, true), commWidth: 30, meta: src.Meta()}
	th.w = bufio.NewWriterSize(w, 256<<10)
	th.line = make([]byte, 0, 256)
	if opt.SummaryOnly {
		th.opt.Summary = true
	}
	th.countMigrations = opt.Migrations || !opt.Exact && th.opt.Summary
	ncpu := opt.NrCPUs
	if ncpu <= 0 && src.Meta() != nil {
		ncpu = src.Meta().NrCPUs
	}
	if ncpu <= 0 {
		ncpu = 4 // perf: "if (sched->max_cpu.cpu == 0) sched->max_cpu.cpu = 4"
		// A pipe-mode perf.data carries its features after the events and
		// ftrace text says "#P:2" in a header read with the first event:
		// outside Exact the summary asks the source again (lateCPUs).
		th.cpusGuessed = !opt.Exact
	}
	th.maxCPU, th.nrCPUs = ncpu, ncpu
	if !th.cpusGuessed {
		th.idleThreads(ncpu)
	}
	if opt.CPUs != nil {
		for _, c := range opt.CPUs {
			if c < 0 {
				continue
			}
			for len(th.cpuSet) <= c {
				th.cpuSet = append(th.cpuSet, false)
			}
			th.cpuSet[c] = true
		}
	}
	if len(opt.PIDs) > 0 {
		th.pidSet = map[trace.PID]bool{}
		for _, p := range opt.PIDs {
			th.pidSet[trace.PID(p)] = true
		}
	}
	if len(opt.TIDs) > 0 {
		th.tidSet = map[trace.TID]bool{}
		for _, p := range opt.TIDs {
			th.tidSet[trace.TID(p)] = true
		}
	}
	if opt.Comms != nil {
		th.commSet = map[string]bool{}
		for _, c := range opt.Comms {
			th.commSet[c] = true
		}
	}
	if opt.Prios != nil {
		th.prioSet = new([TimehistMaxPrio]bool)
		for _, p := range opt.Prios {
			if p >= 0 && p < TimehistMaxPrio {
				th.prioSet[p] = true
			}
		}
	}
	if !th.opt.SummaryOnly && th.opt.Rows == nil {
		th.header()
	}
	// Kinds timehist does not look at need not be decoded. Outside Exact
	// it reads every kind: migrations feed noteMigrate, and
	// sched_stat_runtime is evidence that a waiting task ran where the
	// trace cannot see (noteRanUnseen); skipped, it made a row's sch
	// delay depend on whether a filter was given (a filter keeps every
	// kind for its no-match message): 648.553 ms unfiltered, "-" with
	// -t, for a task that ran on a CPU perf record -C left out.
	switch {
	case !opt.Exact:
	case th.countMigrations:
		trace.SkipKinds(src, trace.KindRuntime)
	default:
		trace.SkipKinds(src, trace.KindRuntime, trace.KindMigrate)
	}
	// perf's thread table acts on PERF_RECORD_FORK, _COMM and _EXIT
	// (util/machine.c: machine__process_fork_event, _comm_event,
	// _exit_event, which removes the thread), not on the
	// sched_process_fork/exec/exit tracepoints a `perf record -e
	// 'sched:*'` also holds and which come a few microseconds later: in
	// exact mode a task's last switch after its exit is a fresh ":TID";
	// in both modes its rows between exec and sched_process_exec carry
	// the new name.
	trace.UseTaskRecords(src)
	if opt.Exact {
		trace.KeepRepeats(src) // perf reads a record written twice twice
	}
	var stacks func([]trace.Stack)
	if opt.CallGraph {
		stacks = func(s []trace.Stack) { th.stacks = append(th.stacks, s...) }
	}
	if err := trace.Each(src, func(e *trace.Event) error { th.event(e); return th.rowErr }, stacks); err != nil {
		th.w.Flush()
		return err
	}
	if !th.sawSwitch {
		th.w.Flush()
		return ErrTimehistNoSwitch
	}
	if r := th.opt.Result; r != nil {
		r.UnrecordedDelays, r.LossyDelays, r.MissingSwitchIns = th.unrecordedDelays, th.lossyDelays, th.missingIns
		r.LossyRuns = th.lossyRuns
		r.UnchainedRuns, r.UnchainedRunNs = th.unchainedRuns, th.unchainedRunNs
		r.UnchainedIdle, r.UnchainedIdleNs = th.unchainedIdle, th.unchainedIdleNs
		r.FirstSeen, r.NoWakeups, r.WaitUnknown = th.firstSeen, th.noWakeups, th.waitUnknown
		r.Switches, r.Unchained, r.UnchainedNs = th.switches, th.unchained, th.unchainedNs
	}
	if th.opt.Summary {
		th.lateCPUs(src.Meta())
		th.summary()
		if r := th.opt.Result; r != nil && !th.opt.Exact {
			r.OpenRuns = th.openRuns()
		}
	}
	return th.w.Flush()
}

// openRunMinShare is the share of the trace's span (first switch to last
// event) from which a run still open at the end is reported: the recorder
// itself is usually on a CPU as a capture stops, for a fraction of a
// millisecond, which is no news.
const openRunMinShare = 0.01

// openRuns returns the runs of the selected tasks still on a CPU at the
// end of the events (or of the --time window) that are at least
// openRunMinShare of the span.
func (th *timehist) openRuns() []TimehistOpenRun {
	end := th.lastTime
	if th.opt.End != 0 && th.opt.End < end {
		end = th.opt.End
	}
	minRun := int64(openRunMinShare * float64(end-th.histStart))
	// A task switched in on two CPUs left the first one unrecorded (perf
	// stopping, a vCPU's missing events): only its latest switch-in holds.
	latest := map[trace.TID]int64{}
	for cpu, tid := range th.curIn {
		latest[tid] = max(latest[tid], th.lastSwitch[cpu])
	}
	var out []TimehistOpenRun
	for cpu, tid := range th.curIn {
		start := th.lastSwitch[cpu]
		if tid <= 0 || start == 0 || start < latest[tid] || end-max(start, th.opt.Start) < max(minRun, 1) || !th.cpuAllowed(trace.CPU(cpu)) {
			continue
		}
		t := th.m.find(-1, tid)
		// A later switch-out elsewhere: the switch-out here was not
		// recorded (see the chain breaks of latency).
		if t == nil || t.lastTime > start || th.filtered(t) || (th.prioSet != nil && (t.prio < 0 || t.prio >= TimehistMaxPrio || !th.prioSet[t.prio])) {
			continue
		}
		out = append(out, TimehistOpenRun{Task: string(th.commStr(t)), CPU: cpu, Start: max(start, th.opt.Start), End: end})
	}
	return out
}

// lateCPUs settles the CPU count of the summary ("CPU N idle", "(x N)")
// when it was not known before the events: the count the source learnt
// while it was read (m.NrCPUs), else the CPUs seen (a text trace without
// a header; perf would say 4), raised, as perf raises sched->max_cpu, to
// the highest CPU number seen.
func (th *timehist) lateCPUs(m *trace.Meta) {
	if !th.cpusGuessed {
		return
	}
	n := th.maxSeen + 1
	if m != nil && m.NrCPUs > 0 {
		n = m.NrCPUs
	}
	th.nrCPUs = n
	th.maxCPU = max(n, th.maxSeen)
	th.idleThreads(n)
}

// TimehistMaxCPUs bounds CPU numbers (perf's MAX_CPUS in
// builtin-sched.c): events on higher CPUs are corrupt and skipped.
const TimehistMaxCPUs = 4096

func (th *timehist) event(e *trace.Event) {
	if e.CPU >= TimehistMaxCPUs {
		return
	}
	switch e.Kind {
	case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime:
		if int(e.CPU) > th.maxCPU {
			th.maxCPU = int(e.CPU)
		}
		if int(e.CPU) > th.maxSeen {
			th.maxSeen = int(e.CPU)
		}
		th.lastTime = max(th.lastTime, e.Time)
	}
	if !th.opt.Exact {
		th.noteCPU(e)
		th.noteRanUnseen(e)
		switch e.Kind {
		case trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit, trace.KindSwitch, trace.KindRuntime, trace.KindLost:
		default:
			// An event in a task's own context after a waking that found
			// it running: it ran on, so the waking does not start a wait
			// at its switch-out (the schedule's
			// WakingsWhileRunningForgotten).
			// (A lookup only while some waking is remembered.)
			if e.CurTID > 0 && th.racesPending > 0 {
				if ct := th.m.get(e.CurTID); ct != nil {
					th.setRacePending(ct, false)
				}
			}
		}
	}
	switch e.Kind {
	case trace.KindSwitch:
		th.sawSwitch = true
		th.switchEvent(e)
	case trace.KindWaking:
		th.sawWaking = true
		th.wakeup(e)
	case trace.KindWakeupNew:
		th.wakeup(e)
	case trace.KindWakeup:
		// perf prefers sched_waking when the trace has it and then ignores
		// sched_wakeup altogether.
		if !th.sawWaking {
			th.wakeup(e)
		}
	case trace.KindMigrate:
		if !th.opt.Exact {
			th.noteMigrate(e)
		}
		if th.countMigrations {
			th.migrate(e)
		}
	case trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit:
		th.m.observe(e)
	case trace.KindLost:
		if !th.opt.Exact {
			th.noteLost(e)
			// Outside --time or --cpu: perf prints every loss of the
			// trace around the rows asked for (new-user pass 17 F5: 276
			// lines around a handful of rows); the default view prints
			// those that touch the window and CPUs shown.
			if th.outside(e.Time) && (e.Runtime <= 0 || th.outside(e.Time+e.Runtime)) && !th.spans(e.Time, e.Time+e.Runtime) ||
				!th.cpuAllowed(e.CPU) {
				return
			}
		}
		if th.opt.Rows != nil {
			th.row = TimehistRow{Kind: "lost", Time: e.Time, CPU: int(e.CPU), TID: -1, PID: -1, Prio: -1, WaitNs: -1, SchDelayNs: -1, RunNs: -1,
				NextTID: -1, TargetTID: -1, FromCPU: -1, ToCPU: -1, Lost: int64(e.Count)}
			th.emitRow(&th.row)
			return
		}
		th.line = timehistRight(th.line[:0], 15, timehistUsec(nil, e.Time))
		if e.Count == 0 {
			// A window of unknown loss (a file cut in the round perf
			// was writing), not a LOST record: it said "lost 0 events".
			th.line = th.onCPU(th.line, e.CPU)
			th.line = append(th.line, " unobserved"...)
			if e.Runtime > 0 {
				th.line = append(th.line, " from here to "...)
				th.line = timehistUsec(th.line, e.Time+e.Runtime)
			} else {
				th.line = append(th.line, " until here"...)
			}
			th.line = append(th.line, " (events lost, number unknown)\n"...)
			th.w.Write(th.line)
			return
		}
		th.line = append(th.line, " lost "...)
		th.line = timehistUint(th.line, e.Count)
		th.line = append(th.line, " events on"...)
		th.line = th.onCPU(th.line, e.CPU)
		th.line = append(th.line, '\n')
		th.w.Write(th.line)
	}
}

// onCPU appends " cpu N" to b, or for a loss of no one CPU (CPU -1: a
// damaged .tv block, whose events were of every CPU) " every cpu", as map
// says (new-user pass 93 F9: "lost 8192 events on cpu -1").
func (th *timehist) onCPU(b []byte, cpu trace.CPU) []byte {
	if cpu < 0 {
		return append(b, " every cpu"...)
	}
	b = append(b, " cpu "...)
	return timehistInt(b, int64(cpu))
}

// idleThreads makes the idle threads of CPUs 0 to n-1, as perf's
// init_idle_threads does for every online CPU before reading the events:
// a CPU that never went idle still has one, so its summary says "idle
// entire time window".
func (th *timehist) idleThreads(n int) {
	th.idleThread(n - 1)
	for cpu := range n {
		th.idleThread(cpu)
	}
}

// idleThread returns CPU cpu's idle thread (perf's get_idle_thread: one
// "<idle>" thread per CPU outside the thread table).
func (th *timehist) idleThread(cpu int) *timehistThread {
	if cpu < 0 {
		cpu = 0
	}
	if cpu >= len(th.idle) {
		n := 1
		for n < cpu+1 {
			n <<= 1
		}
		if n < len(th.idle) {
			n = len(th.idle)
		}
		grown := make([]*timehistThread, n)
		copy(grown, th.idle)
		th.idle = grown
	}
	if th.idle[cpu] == nil {
		th.idle[cpu] = &timehistThread{tid: 0, pid: 0, ppid: -1, comm: "<idle>", commSet: true, prio: -1}
	}
	return th.idle[cpu]
}

// sampleThread resolves the task a sched_switch reports on.
func (th *timehist) sampleThread(e *trace.Event) *timehistThread {
	if th.opt.Exact {
		// machine__resolve: perf looks the sample's own pid/tid up first.
		th.m.findnew(perfCurIDs(e))
	}
	if e.TID == 0 {
		return th.idleThread(int(e.CPU))
	}
	var t *timehistThread
	if th.opt.Exact {
		// perf uses the sample's tid (-1 for a task already unhashed by
		// exit), falling back to the pid when the tid is 0.
		pid, tid := perfCurIDs(e)
		if tid == 0 {
			tid = trace.TID(pid)
		}
		t = th.m.findnew(pid, tid)
	} else {
		pid := e.PID
		if pid < 0 && e.CurTID == e.TID {
			pid = e.CurPID
		}
		t = th.m.findnew(pid, e.TID)
		th.m.name(t, e.Comm, e.Time)
	}
	if th.opt.IdleHist {
		it := th.idleThread(int(e.CPU))
		it.lastIdle = t
	}
	return t
}

// perfCurIDs returns the current task's pid and tid as perf.data's sample
// holds them: -1 where the kernel reported a released task as -1
// (trace.Event.CurGone), as perf 6.12 sees them; it names that thread
// ":-1[-1/PID]" and keeps one such thread for all of them.
func perfCurIDs(e *trace.Event) (trace.PID, trace.TID) {
	pid, tid := e.CurPID, e.CurTID
	if e.CurGone&trace.GoneTID != 0 {
		tid = -1
	}
	if e.CurGone&trace.GonePID != 0 {
		pid = -1
	}
	return pid, tid
}

func (th *timehist) filtered(t *timehistThread) bool {
	if th.pidSet != nil && !th.pidSet[t.pid] {
		return true
	}
	if th.tidSet != nil && !th.tidSet[t.tid] {
		return true
	}
	if th.commSet != nil && !th.commSet[t.comm] {
		return true
	}
	return false
}

// summaryFiltered is filtered for the summary: perf (Exact) filters a task
// by the name it has at the end; otherwise a task that ran under a --comm
// name at some event is kept, under its last name (new-user pass 32 F3:
// -s --comm of a name a task had before it renamed itself said "nothing
// matched", while the rows matched 53 switches).
func (th *timehist) summaryFiltered(t *timehistThread) bool {
	if th.commSet != nil && !th.opt.Exact && t.commMatched && !(th.pidSet != nil && !th.pidSet[t.pid]) && !(th.tidSet != nil && !th.tidSet[t.tid]) {
		return false
	}
	return th.filtered(t)
}

// skip is perf's timehist_skip_sample (it counts skipped samples, which
// suppresses the idle statistics of the summary).
func (th *timehist) skip(t *timehistThread, e *trace.Event) bool {
	rc := false
	if th.filtered(t) {
		rc = true
		th.skipped++
	} else if th.commSet != nil {
		t.commMatched = true
	}
	if th.prioSet != nil {
		prio := int32(-1)
		if t.prio != -1 {
			prio = t.prio
		} else if e.Kind == trace.KindSwitch {
			prio = e.Prio
		}
		if prio != -1 && (prio < 0 || prio >= TimehistMaxPrio || !th.prioSet[prio]) {
			rc = true
			th.skipped++
		}
	}
	if th.opt.IdleHist {
		if e.Kind != trace.KindSwitch || (e.TID != 0 && e.NextTID != 0) {
			rc = true
		}
	}
	return rc
}

func (th *timehist) cpuAllowed(cpu trace.CPU) bool {
	return th.cpuSet == nil || (int(cpu) >= 0 && int(cpu) < len(th.cpuSet) && th.cpuSet[cpu])
}

// timehistStateChar is perf's evsel__taskstate: the letter of the lowest
// set prev_state bit, 'R' for none and for bits past the known letters
// (such as the preempted flag).
func timehistStateChar(s trace.TaskState) byte {
	c := s.Char()
	if c == '?' {
		return 'R'
	}
	return c
}

func (th *timehist) switchEvent(e *trace.Event) {
	cpu := int(e.CPU)
	if cpu < 0 {
		return
	}
	for len(th.lastSwitch) <= cpu {
		th.lastSwitch = append(th.lastSwitch, 0)
	}
	if th.opt.ShowPrio || th.prioSet != nil {
		var n *timehistThread
		if e.NextTID == 0 {
			n = th.idleThread(cpu)
		} else {
			n = th.m.findnew(-1, e.NextTID)
		}
		n.prio = e.NextPrio
	}
	state := timehistStateChar(e.PrevState)
	t := th.sampleThread(e)
	tm := e.Time
	var tr *timehistThread
	if !th.skip(t, e) {
		tr = t
		th.account(e, t, &tm, state)
	} else if !th.opt.Exact && !th.opt.IdleHist {
		// A filtered task's switch still ends its run (perf's
		// timehist_sched_change_event leaves it out, tools/perf/
		// builtin-sched.c v6.12: --exact keeps that): a task that --comm
		// or --prio keeps only under its later name or prio would
		// otherwise measure its first kept row's wait and sch delay
		// from a wakeup before runs and sleeps the filter hid (a worker
		// renamed by prctl after a 20 ms sleep read a 20.149 ms delay for
		// 0.012 ms).
		tr = t
	}
	if th.opt.Start != 0 && tm < th.opt.Start {
		th.before = true
	}
	if (th.opt.Exact && th.histStart == 0 || !th.opt.Exact && !th.histSet) && tm >= th.opt.Start {
		// (perf takes a start of 0 for none: a switch at time 0, which
		// a synthetic trace has, starts the span outside Exact; new-user
		// pass 37 F2 read 2213.6 ms here, 2217.6 ms in stats.)
		th.histStart, th.histSet = tm, true
		if !th.opt.Exact && th.before {
			// The trace began before the window: its runs count from
			// the window's start (timehistUpdateFrom), and so does the
			// span the summary's shares are of.
			th.histStart = th.opt.Start
		}
	}
	if th.opt.End == 0 || tm <= th.opt.End {
		th.histEnd = tm
	} else if !th.opt.Exact && th.histSet {
		th.histEnd = th.opt.End // (runs are clamped to the window's end)
	}
	if tr != nil {
		tr.lastTime = e.Time
		tr.lastState = state
		switch {
		case state == 'R':
			tr.readyToRun = tm
		case !th.opt.Exact && tr.racePending:
			// Woken while it ran, before this switch-out to sleep
			// (try_to_wake_up raced __schedule: the task is runnable
			// again and waits from here on, as latency counts it, the
			// schedule's CauseWokenBeforeSwitchOut); perf resets it and
			// prints a 0.000 sch delay for the wait that follows.
			tr.readyToRun, tr.raced = tm, true
		default:
			tr.readyToRun = 0
		}
		if state == 'R' || tr.readyToRun == 0 {
			tr.raced = false
		}
		th.setRacePending(tr, false)
		tr.hasOff, tr.ranUnseen = false, false // a new wait (or none)
	}
	if !th.opt.Exact {
		t.running = false
		if e.NextTID > 0 {
			n := th.m.findnew(-1, e.NextTID)
			n.running = true
			th.setRacePending(n, false)
		}
		if state == 'R' && t.tid != 0 {
			th.queuedOn(t, e.CPU) // preempted: waits on this CPU
		}
		if e.NextTID == 0 {
			th.idleOn(e.CPU, e.Time)
		}
	}
	for len(th.curIn) <= cpu {
		th.curIn = append(th.curIn, -1)
	}
	for len(th.switches) <= cpu {
		th.switches, th.unchained = append(th.switches, 0), append(th.unchained, 0)
	}
	th.switches[cpu]++
	if in := th.curIn[cpu]; in >= 0 && in != e.TID {
		th.unchained[cpu]++
		th.unchainedNs += e.Time - th.lastSwitch[cpu]
	}
	th.lastSwitch[cpu] = e.Time
	th.curIn[cpu] = e.NextTID
}

// account runs the accounting part of timehist_sched_change_event for a
// switch that is not filtered out; *tm may be clamped to the window's end.
func (th *timehist) account(e *trace.Event, t *timehistThread, tm *int64, state byte) {
	tprev := th.lastSwitch[e.CPU]
	start, end := th.opt.Start, th.opt.End
	// Before the window: only remember the switch.
	if start != 0 && start > *tm {
		return
	}
	realIn := tprev
	if tprev != 0 && start > tprev {
		tprev = start
	}
	if end != 0 {
		// The switch-in is unknown or after the window.
		if tprev == 0 || tprev > end {
			return
		}
		if *tm > end {
			*tm = end
		}
	}
	if th.opt.IdleHist && t.tid != 0 {
		return
	}
	if th.cpuAllowed(e.CPU) {
		// A run across lost events on its CPU is not measured outside
		// --exact (settleUnrecorded prints it '-'): it stays out of the
		// summary's runs as well.
		in := trace.TID(-1) // the task the CPU's previous switch switched in
		if int(e.CPU) < len(th.curIn) {
			in = th.curIn[e.CPU]
		}
		// A run whose switch-in the trace lacks is not measured either
		// (settleUnrecorded).
		// The idle task's too: a damaged block's unobserved window read
		// as 1290.704 ms of idle on CPU 0 (new-user pass 38 F1).
		countRun := th.opt.Exact || tprev == 0 || !th.lossyOn(e.CPU, tprev, *tm) && (t.tid == 0 || in < 0 || in == e.TID)
		if th.opt.Exact || realIn == tprev {
			timehistUpdate(t, *tm, tprev, countRun)
		} else {
			// A run that began before the window: perf measures the
			// wait and the sch delay up to the window's start, so they
			// grow by the part of the run before it (hog's 0.033 ms
			// delay read 5.350 ms). The wait and the delay end at the
			// real switch-in; the run time is the part in the window.
			timehistUpdateFrom(t, *tm, realIn, tprev, countRun)
		}
		if !th.opt.Exact {
			th.settleUnrecorded(t, tprev, *tm, e.CPU, in >= 0 && in != e.TID)
			if t.tid == 0 {
				// The idle task waits for no CPU: perf gives it the
				// time its CPU was busy since idle last left it as its
				// wait and sch delay (it leaves in state R), 2535.588 ms
				// in a -C 1 recording.
				t.dtDelay, t.dtSleep, t.dtIOWait, t.dtPreempt = 0, 0, 0, 0
			}
		}
	}
	if th.opt.IdleHist {
		if t.lastIdle == nil {
			// No task's sample on this CPU since the last idle row (a
			// switch out of the task idle switched to is missing): perf
			// prints no row (timehist_sched_switch_event's "goto out",
			// tools/perf/builtin-sched.c v6.12).
			return
		}
		// Charge the idle period to the task that ran before it.
		last := t.lastIdle
		timehistUpdate(last, *tm, tprev, true)
		last.dtRun, last.dtDelay, last.dtSleep, last.dtIOWait, last.dtPreempt = 0, 0, 0, 0, 0
		t.lastIdle = nil
	}
	if !th.opt.SummaryOnly {
		th.printSample(e, t, *tm, state)
	}
}

// timehistUpdate is timehist_update_runtime_stats: t is this switch-out,
// tprev the previous switch on the CPU (this task's switch-in); countRun
// false leaves the run out of the summary's run statistics (its count,
// min, average, max and deviation).
func timehistUpdate(r *timehistThread, t, tprev int64, countRun bool) {
	timehistUpdateFrom(r, t, tprev, tprev, countRun)
}

// timehistUpdateFrom is timehistUpdate with the run time counted from
// runFrom (the window's start, for a run that began before it) while the
// wait and the sch delay end at tprev, the real switch-in: the summary's
// run times then hold only the part in the window (new-user pass 58 F1:
// an idle period begun before a 10 ms window counted whole in it, 55.037
// ms idle, 848 %, and two halves' idle exceeded the whole trace's).
func timehistUpdateFrom(r *timehistThread, t, tprev, runFrom int64, countRun bool) {
	r.dtDelay, r.dtSleep, r.dtIOWait, r.dtPreempt, r.dtRun = 0, 0, 0, 0, 0
	if tprev != 0 {
		r.dtRun = t - runFrom
		if r.readyToRun != 0 && r.readyToRun <= tprev {
			r.dtDelay, r.delayEnd = tprev-r.readyToRun, tprev
		}
		if r.lastTime != 0 && r.lastTime <= tprev {
			wait := tprev - r.lastTime
			switch r.lastState {
			case 'R':
				r.dtPreempt = wait
			case 'D':
				r.dtIOWait = wait
			default:
				r.dtSleep = wait
			}
		}
	}
	if countRun {
		r.run.update(r.dtRun)
	} else if tprev != 0 {
		r.unmeasured++
	}
	r.totalRun += r.dtRun
	r.totalDelay += r.dtDelay
	r.totalSleep += r.dtSleep
	r.totalIO += r.dtIOWait
	r.totalPre += r.dtPreempt
}

func (th *timehist) wakeup(e *trace.Event) {
	if e.TID < 0 {
		return
	}
	var t *timehistThread
	if th.opt.Exact {
		t = th.m.findnew(0, e.TID) // perf passes pid 0 here (timehist_sched_wakeup_event)
	} else {
		t = th.m.findnew(e.PID, e.TID)
		th.m.name(t, e.Comm, e.Time)
	}
	switch {
	case !th.opt.Exact && t.running:
		// A waking of a running task: remembered, it starts the wait
		// at the task's switch-out if that is to sleep (switchEvent).
		if e.Kind != trace.KindWakeupNew {
			th.setRacePending(t, true)
		}
	case t.readyToRun == 0 || t.raced && e.Time > t.lastTime || th.rewoken(t, e):
		// (A wakeup after a raced switch-out: the waking before it had
		// found the task still queued, so it went on running and slept
		// only now; its wait starts here, as the schedule's RacesUndone.
		// And a second waking of a waiting task, rewoken.)
		t.readyToRun, t.raced, t.queuedWake = e.Time, false, 0
		t.hasOff, t.ranUnseen = false, false
		fallthrough
	default:
		if !th.opt.Exact && e.TargetCPU >= 0 { // the target the kernel chose
			th.noteQueue(t, e.TargetCPU, e.Time)
			th.queuedOn(t, e.TargetCPU)
		} else if !th.opt.Exact {
			th.queuedOn(t, e.CPU)
		}
	}
	if th.opt.Wakeups && !th.outside(e.Time) {
		th.printEventRow(e, t, "awakened: ", -1, -1)
	}
}

// setRacePending sets t.racePending, counting the threads that have it
// set (racesPending).
func (th *timehist) setRacePending(t *timehistThread, v bool) {
	if t.racePending != v {
		t.racePending = v
		if v {
			th.racesPending++
		} else {
			th.racesPending--
		}
	}
}

// rewoken reports (outside Exact) whether waking e of waiting task t
// restarts its wait, as the schedule's doWakeup decides for latency: a
// second waking of a task woken from sleep (the first found it queued:
// it ran and slept again where the trace does not show; Rewoken), or the
// second since its preemption (the first set it running again,
// ttwu_runnable; Dropped); the first since a preemption is only noted.
// A wakeup_new, or one before the wait began, restarts nothing.
func (th *timehist) rewoken(t *timehistThread, e *trace.Event) bool {
	if th.opt.Exact || e.Kind == trace.KindWakeupNew || t.readyToRun == 0 || e.Time < t.readyToRun || t.readyToRun < t.lastTime {
		return false
	}
	if t.lastState != 'R' {
		return true
	}
	if t.queuedWake >= t.readyToRun && t.queuedWake > 0 {
		return true
	}
	t.queuedWake = e.Time
	return false
}

// spans reports whether [from, to] covers the whole --time window (a
// loss longer than the window, both of its ends outside it).
func (th *timehist) spans(from, to int64) bool {
	return th.opt.Start != 0 && th.opt.End != 0 && from <= th.opt.Start && to >= th.opt.End
}

func (th *timehist) outside(t int64) bool {
	return (th.opt.Start != 0 && t < th.opt.Start) || (th.opt.End != 0 && t > th.opt.End)
}

func (th *timehist) migrate(e *trace.Event) {
	if e.TID < 0 {
		return
	}
	var t *timehistThread
	if th.opt.Exact {
		t = th.m.findnew(0, e.TID)
	} else {
		t = th.m.findnew(e.PID, e.TID)
		th.m.name(t, e.Comm, e.Time)
	}
	t.migrations++
	if th.opt.SummaryOnly || !th.opt.Migrations {
		return
	}
	if !th.opt.Exact && th.outside(e.Time) {
		// Only the window's rows, as for switches and wakeups (perf
		// prints every migration of the trace whatever --time says,
		// timehist_migrate_task_event in tools/perf/builtin-sched.c
		// v6.12: --exact keeps that).
		return
	}
	th.printEventRow(e, t, "migrated: ", e.OrigCPU, e.DestCPU)
}

// printEventRow prints a wakeup or migration row: the task current on the
// CPU (the waker), blank time columns, then what happened to subject.
func (th *timehist) printEventRow(e *trace.Event, subject *timehistThread, what string, from, to trace.CPU) {
	var cur *timehistThread
	if th.opt.Exact {
		cur = th.m.findnew(perfCurIDs(e))
	} else {
		cur = th.m.findnew(e.CurPID, e.CurTID)
	}
	if th.skip(cur, e) && th.skip(subject, e) {
		return
	}
	if th.opt.Rows != nil {
		r := th.rowOf(e, cur)
		r.Kind, r.TargetComm, r.TargetTID = "wakeup", subject.comm, int64(subject.tid)
		r.Prio = -1 // the event's prio is the target's
		if what[0] == 'm' {
			r.Kind, r.FromCPU, r.ToCPU = "migrate", int(from), int(to)
		}
		th.emitRow(r)
		return
	}
	b := th.line[:0]
	b = th.appendTimeCPU(b, e.Time, e.CPU)
	if th.opt.CPUVisual {
		if what[0] == 'm' {
			b = append(b, "  "...)
			b = th.cpuMarks(b, e.CPU, 'm')
			b = append(b, "  "...)
		} else {
			b = timehistRight(b, th.visCols()+2, nil)
		}
	}
	b = append(b, ' ')
	b = th.leftName(b, th.commStr(cur))
	b = append(b, ' ')
	b = append(b, "                                  "...) // "  %9s  %9s  %9s " spacer
	b = append(b, what...)
	b = append(b, th.commStr(subject)...)
	if what[0] == 'm' {
		b = append(b, " cpu "...)
		b = timehistInt(b, int64(from))
		b = append(b, " => "...)
		b = timehistInt(b, int64(to))
	}
	b = append(b, '\n')
	th.line = b
	th.w.Write(b)
}

// name is comm escaped for the terminal: as perf prints it with Exact
// (termsafe.PerfName: a backslash as it is), else as every other view of
// traceview does (termsafe.Name: a backslash doubled, so that a name
// spelled "twin\\xff" is not printed as the one holding the byte 0xff;
// new-user pass 35 F1 found the two alike in timehist and map only).
func (th *timehist) name(comm string) string {
	if th.opt.Exact {
		return termsafe.PerfName(comm)
	}
	return termsafe.Name(comm)
}

// commStr is timehist_get_commstr: "comm[tid]", "comm[tid/pid]" for a
// thread of another process, the bare comm for pid 0; at most 31 bytes.
// Longer names widen the task column for later rows, as in perf.
func (th *timehist) commStr(t *timehistThread) []byte {
	if t.cached == nil || t.cachedComm != t.comm || t.cachedPID != t.pid {
		b := make([]byte, 0, len(t.comm)+24)
		b = append(b, th.name(t.comm)...) // a name is any bytes: a newline split the row
		if t.pid != 0 {
			b = append(b, '[')
			b = timehistInt(b, int64(t.tid))
			if trace.PID(t.tid) != t.pid && (th.opt.Exact || t.pid >= 0) {
				b = append(b, '/')
				b = timehistInt(b, int64(t.pid))
			}
			b = append(b, ']')
		}
		if len(b) > 31 {
			b = b[:31]
		}
		t.cached, t.cachedComm, t.cachedPID = b, t.comm, t.pid
	}
	if n := th.nameLen(t.cached); n > th.commWidth {
		th.commWidth = n
	}
	return t.cached
}

func (th *timehist) appendTimeCPU(b []byte, t int64, cpu trace.CPU) []byte {
	var tmp [32]byte
	b = timehistRight(b, 15, timehistUsec(tmp[:0], t))
	b = append(b, " ["...)
	b = timehistZero(b, 4, int64(cpu))
	b = append(b, "] "...)
	return b
}

func (th *timehist) printSample(e *trace.Event, t *timehistThread, tm int64, state byte) {
	if !th.cpuAllowed(e.CPU) {
		return
	}
	if th.opt.Result != nil {
		th.opt.Result.Rows++
	}
	if th.opt.Rows != nil {
		th.sampleRow(e, t, tm, state)
		return
	}
	b := th.line[:0]
	b = th.appendTimeCPU(b, tm, e.CPU)
	if th.opt.CPUVisual {
		mark := byte('s')
		if t.tid == 0 {
			mark = 'i'
		}
		b = append(b, ' ')
		b = th.cpuMarks(b, e.CPU, mark)
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = th.leftName(b, th.commStr(t))
	b = append(b, ' ')
	if th.opt.ShowPrio {
		var p [24]byte
		ps := p[:0]
		if t.prio != e.Prio && t.prio != -1 {
			ps = timehistInt(ps, int64(t.prio))
			ps = append(ps, "->"...)
		}
		ps = timehistInt(ps, int64(e.Prio))
		b = append(b, ' ')
		b = timehistLeft(b, 8, ps)
		b = append(b, ' ')
	}
	switch {
	case t.dtUnrecorded || t.dtFirstSeen:
		// Neither is measured: the task may have run unseen during
		// the delay, which ends the wait (timehist_unrecorded.go).
		b = timehistRight(b, 10, []byte{'-'})
		b = append(b, ' ')
		b = timehistRight(b, 10, []byte{'-'})
		b = append(b, ' ')
	case t.dtNoWake:
		b = timehistSchedTime(b, t.dtSleep+t.dtIOWait+t.dtPreempt, 6)
		b = timehistRight(b, 10, []byte{'-'})
		b = append(b, ' ')
	case t.dtWaitUnknown:
		b = timehistRight(b, 10, []byte{'-'})
		b = append(b, ' ')
		b = timehistSchedTime(b, t.dtDelay, 6)
	default:
		b = timehistSchedTime(b, t.dtSleep+t.dtIOWait+t.dtPreempt, 6)
		b = timehistSchedTime(b, t.dtDelay, 6)
	}
	if t.dtRunUnknown {
		b = timehistRight(b, 10, []byte{'-'})
		b = append(b, ' ')
	} else {
		b = timehistSchedTime(b, t.dtRun, 6)
	}
	if th.opt.State {
		c := state
		if t.tid == 0 {
			c = 'I'
		}
		b = append(b, "     "...)
		b = append(b, c, ' ')
	}
	if th.opt.Next {
		var n [64]byte
		ns := append(n[:0], "next: "...)
		ns = append(ns, th.name(e.NextComm)...)
		ns = append(ns, '[')
		ns = timehistInt(ns, int64(e.NextTID))
		ns = append(ns, ']')
		if len(ns) > 29 { // perf formats into char nstr[30]
			ns = ns[:29]
		}
		b = append(b, ' ')
		b = th.leftName(b, ns)
	}
	if th.opt.Wakeups && !th.opt.Next {
		b = append(b, "  "...)
		b = timehistLeft(b, th.commWidth, nil)
	}
	if th.opt.Throttled != nil && !th.opt.Exact && t.tid != 0 && t.dtDelay > 0 && !t.dtUnrecorded {
		if ns := th.opt.Throttled(trace.TID(t.tid), t.delayEnd-t.dtDelay, t.delayEnd); ns > 0 {
			// Truncated to the µs as the sch delay column is
			// (timehistSchedTime), so the part never prints above
			// the whole (59.995 ms of a 59.995743 ms delay once read
			// "throttled: 59.996 ms").
			ns = min(ns, t.dtDelay)
			b = fmt.Appendf(b, "  throttled: %d.%03d ms", ns/1e6, ns%1e6/1e3)
		}
	}
	if th.opt.CallGraph && t.tid != 0 && e.Kind == trace.KindSwitch && e.Stack != 0 {
		b = append(b, th.callchain(e.Stack)...)
	}
	b = append(b, '\n')
	th.line = b
	th.w.Write(b)
}

// rowOf fills th.row with what every row has: time, CPU and task t.
func (th *timehist) rowOf(e *trace.Event, t *timehistThread) *TimehistRow {
	th.row = TimehistRow{Time: e.Time, CPU: int(e.CPU), Comm: t.comm, TID: int64(t.tid), PID: int64(t.pid), Prio: e.Prio,
		WaitNs: -1, SchDelayNs: -1, RunNs: -1, NextTID: -1, TargetTID: -1, FromCPU: -1, ToCPU: -1}
	return &th.row
}

// sampleRow is printSample's row as data (TimehistOptions.Rows).
func (th *timehist) sampleRow(e *trace.Event, t *timehistThread, tm int64, state byte) {
	r := th.rowOf(e, t)
	r.Kind, r.Time, r.RunNs = "switch", tm, t.dtRun
	if t.dtRunUnknown {
		r.RunNs = -1
	}
	switch {
	case t.dtUnrecorded || t.dtFirstSeen:
	case t.dtNoWake:
		r.WaitNs = t.dtSleep + t.dtIOWait + t.dtPreempt
	case t.dtWaitUnknown:
		r.SchDelayNs = t.dtDelay
	default:
		r.WaitNs, r.SchDelayNs = t.dtSleep+t.dtIOWait+t.dtPreempt, t.dtDelay
	}
	if t.tid == 0 {
		state = 'I'
	}
	if state != 0 {
		r.State = string(rune(state))
	}
	if e.Kind == trace.KindSwitch {
		r.NextComm, r.NextTID = e.NextComm, int64(e.NextTID)
	}
	switch {
	case th.opt.Throttled == nil:
		// Not computed: a 0 read as "never throttled" on a trace with
		// throttled periods (new-user pass 26 F4).
		r.ThrottledNs = -1
	case t.tid != 0 && t.dtDelay > 0 && !t.dtUnrecorded:
		r.ThrottledNs = th.opt.Throttled(trace.TID(t.tid), t.delayEnd-t.dtDelay, t.delayEnd)
	}
	th.emitRow(r)
}

func (th *timehist) emitRow(r *TimehistRow) {
	if th.rowErr == nil {
		th.rowErr = th.opt.Rows(r)
	}
}

// timehistIgnored are the frames perf's save_task_callchain marks ignored:
// the scheduler's own, present in every switch-out's callchain.
var timehistIgnored = map[string]bool{"schedule": true, "__schedule": true, "preempt_schedule": true}

// callchain renders stack id as perf appends it to a row: "  " and, per
// frame kept, " NAME" with " <-" between (see TimehistOptions.CallGraph).
func (th *timehist) callchain(id trace.StackID) []byte {
	if s, ok := th.chainText[id]; ok {
		return s
	}
	if int(id) > len(th.stacks) {
		return nil // not in the table (a damaged trace)
	}
	n := th.opt.MaxStack
	if n <= 0 {
		n = 5
	}
	frames := th.stacks[id-1].Frames
	frames = frames[:min(len(frames), n+2)]
	b := []byte("  ")
	first := true
	kept := 0
	for _, f := range frames {
		name := f.Func
		if name == "" && f.Kernel && th.opt.KernelSymbols != nil {
			name, _ = th.opt.KernelSymbols.Lookup(f.Addr)
		}
		if timehistIgnored[name] {
			continue
		}
		if kept++; kept > n && !th.opt.Exact {
			// perf keeps what is left of the first MaxStack+2 frames
			// after the scheduler's own, MaxStack+1 when only __schedule
			// was among them (__cond_resched enters it directly);
			// --exact prints that, the default mode MaxStack as its
			// --help says.
			break
		}
		if name == "" {
			name = "[unknown]"
		}
		if !first {
			b = append(b, " <-"...)
		}
		first = false
		b = append(b, ' ')
		b = append(b, name...)
	}
	if th.chainText == nil {
		th.chainText = map[trace.StackID][]byte{}
	}
	th.chainText[id] = b
	return b
}

func (th *timehist) header() {
	ncpus := th.visCols()
	var b []byte
	b = timehistRight(b, 15, []byte("time"))
	b = append(b, ' ')
	b = timehistRight(b, 6, []byte("cpu"))
	b = append(b, ' ')
	if th.opt.CPUVisual {
		b = append(b, ' ')
		for i := 0; i < ncpus; i++ {
			b = append(b, "0123456789abcdef"[i%16])
		}
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = timehistLeft(b, th.commWidth, []byte("task name"))
	if th.opt.ShowPrio {
		b = append(b, "  "...)
		b = timehistLeft(b, 8, []byte("prio"))
	}
	b = append(b, "  wait time  sch delay   run time"...)
	if th.opt.State {
		b = append(b, "  state"...)
	}
	b = append(b, '\n')
	b = append(b, "                       "...)
	if th.opt.CPUVisual {
		b = timehistRight(b, ncpus+2, nil)
	}
	b = append(b, ' ')
	b = timehistLeft(b, th.commWidth, []byte("[tid/pid]"))
	if th.opt.ShowPrio {
		b = append(b, "  "...)
		b = timehistLeft(b, 8, nil)
	}
	b = append(b, "     (msec)     (msec)     (msec)"...)
	if th.opt.State {
		b = append(b, "       "...)
	}
	b = append(b, '\n')
	b = append(b, timehistDashes(15)...)
	b = append(b, ' ')
	b = append(b, timehistDashes(6)...)
	b = append(b, ' ')
	if th.opt.CPUVisual {
		b = append(b, ' ')
		b = append(b, timehistDashes(ncpus)...)
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = append(b, timehistDashes(th.commWidth)...)
	if th.opt.ShowPrio {
		b = append(b, "  "...)
		b = append(b, timehistDashes(8)...)
	}
	b = append(b, "  ---------  ---------  ---------"...)
	if th.opt.State {
		b = append(b, "  -----"...)
	}
	b = append(b, '\n')
	th.w.Write(b)
}

// visCols is the width of -V's CPU columns. perf sizes them from
// max_cpu+1, where max_cpu starts at the online CPU count: one column more
// than there are CPUs (kept with Exact).
func (th *timehist) visCols() int {
	if th.opt.Exact {
		return th.maxCPU + 1
	}
	return max(th.nrCPUs, th.maxSeen+1)
}

// cpuMarks appends -V's per-CPU column: mark at cpu, blanks elsewhere.
func (th *timehist) cpuMarks(b []byte, cpu trace.CPU, mark byte) []byte {
	for i := 0; i < th.visCols(); i++ {
		if i == int(cpu) {
			b = append(b, mark)
		} else {
			b = append(b, ' ')
		}
	}
	return b
}

func timehistDashes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = '-'
	}
	return b
}

// summary prints perf's "Runtime summary" (or "Wait-time summary" with
// --state, "Idle-time summary" with -I), the idle statistics per CPU and
// the totals.
func (th *timehist) summary() {
	w := th.w
	histTime := th.histEnd - th.histStart
	if !th.opt.Exact && !th.histSet {
		histTime = 0 // no switch in the window (perf prints the end time itself)
	}
	cw := th.commWidth
	var b []byte
	switch {
	case th.opt.IdleHist:
		b = append(b, "\nIdle-time summary\n"...)
		b = timehistRight(b, cw, []byte("comm"))
		b = append(b, "  parent  sched-out    idle-time   min-idle    avg-idle    max-idle  stddev  migrations\n"...)
	case th.opt.State:
		b = append(b, "\nWait-time summary\n"...)
		b = timehistRight(b, cw, []byte("comm"))
		b = append(b, "  parent   sched-in     run-time      sleep      iowait     preempt       delay\n"...)
	default:
		b = append(b, "\nRuntime summary\n"...)
		b = timehistRight(b, cw, []byte("comm"))
		b = append(b, "  parent   sched-in     run-time    min-run     avg-run     max-run  stddev  migrations\n"...)
	}
	b = timehistRight(b, cw, nil)
	b = append(b, "            (count)       (msec)     (msec)      (msec)      (msec)       "...)
	if th.opt.State {
		b = append(b, "(msec)\n"...)
	} else {
		b = append(b, "%\n"...)
	}
	b = append(b, timehistDashes(117)...)
	b = append(b, '\n')
	w.Write(b)

	threads := th.m.all()
	var tasks, switches uint64
	var totalRun int64
	for _, t := range threads {
		if th.summaryFiltered(t) || t.run.n == 0 && t.unmeasured == 0 {
			continue
		}
		tasks++
		switches += uint64(t.run.n) + uint64(t.unmeasured)
		totalRun += t.totalRun
		b = b[:0]
		b = th.rightName(b, cw, th.commStr(t))
		b = append(b, "   "...)
		b = timehistRight(b, 5, timehistInt(nil, int64(t.ppid)))
		b = append(b, "  "...)
		b = timehistRight(b, 9, timehistInt(nil, int64(t.run.n)+t.unmeasured))
		b = append(b, ' ')
		b = timehistSchedTime(b, t.totalRun, 8)
		if th.opt.State {
			b = timehistSchedTime(b, t.totalSleep, 6)
			b = append(b, ' ')
			b = timehistSchedTime(b, t.totalIO, 6)
			b = append(b, ' ')
			b = timehistSchedTime(b, t.totalPre, 6)
			b = append(b, ' ')
			b = timehistSchedTime(b, t.totalDelay, 6)
		} else {
			b = timehistSchedTime(b, t.run.min, 6)
			b = append(b, ' ')
			b = timehistSchedTime(b, int64(t.run.mean), 6)
			b = append(b, ' ')
			b = timehistSchedTime(b, t.run.max, 6)
			b = append(b, "  "...)
			// perf stores the percentage in a float before printing "%5.2f".
			b = timehistRight(b, 5, timehistFloat(nil, float64(float32(t.run.relStddev())), 2))
			b = append(b, "   "...)
			b = timehistRight(b, 5, timehistUint(nil, t.migrations))
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if th.opt.Result != nil {
		th.opt.Result.SummaryTasks = int(tasks)
	}
	if tasks == 0 {
		w.WriteString("<no still running tasks>\n")
	}
	// perf: "CPU idle stats not tracked when samples were skipped".
	if th.skipped != 0 && !th.opt.IdleHist {
		return
	}
	w.WriteString("\nIdle stats:\n")
	for i, t := range th.idle {
		if !th.cpuAllowed(trace.CPU(i)) || t == nil {
			continue
		}
		b = b[:0]
		b = append(b, "    CPU "...)
		b = timehistRight(b, 2, timehistInt(nil, int64(i)))
		if t.run.n != 0 {
			switches += uint64(t.run.n)
			b = append(b, " idle for "...)
			b = timehistSchedTime(b, t.totalRun, 6)
			b = append(b, " msec  ("...)
			pct := 0.0
			if histTime != 0 {
				pct = 100 * float64(t.totalRun) / float64(histTime)
			}
			b = timehistRight(b, 6, timehistFloat(nil, pct, 2))
			b = append(b, "%)\n"...)
		} else if th.notRecorded(i) {
			b = append(b, " not recorded (the capture left it out: its time is unknown, not idle)\n"...)
		} else if th.opt.Exact || i >= len(th.switches) || th.switches[i] == 0 {
			b = append(b, " idle entire time window\n"...) // perf's words for no idle run
		} else {
			// Switches but no idle run: the CPU ran tasks throughout,
			// where perf says the opposite (new-user pass 26 F6: CPUs
			// 99.7 % busy read "idle entire time window").
			b = append(b, " never idle in the trace\n"...)
		}
		w.Write(b)
	}
	b = b[:0]
	b = append(b, "\n    Total number of unique tasks: "...)
	b = timehistUint(b, tasks)
	b = append(b, "\nTotal number of context switches: "...)
	b = timehistUint(b, switches)
	b = append(b, "\n           Total run time (msec): "...)
	b = timehistSchedTime(b, totalRun, 2)
	b = append(b, "\n    Total scheduling time (msec): "...)
	b = timehistSchedTime(b, histTime, 2)
	b = append(b, " (x "...)
	b = timehistInt(b, int64(th.maxCPU))
	if n := th.notRecordedCount(); n > 0 {
		// (perf's count is of every CPU; the time of those left out
		// is unknown.)
		b = fmt.Appendf(b, " CPUs, %d of them not recorded", n)
	}
	b = append(b, ")\n"...)
	if !th.opt.Exact && (th.unchainedRuns > 0 || th.lossyRuns > 0) {
		// What the run-time column leaves out, under it (new-user pass
		// 27 F1: a hog's 477 ms run printed '-' made its run time 23 %
		// low with no word).
		runs := func(n int64) string {
			if n == 1 {
				return "1 run"
			}
			return fmt.Sprintf("%d runs", n)
		}
		b = fmt.Appendf(b, "\n    Not in the run-time column: %s whose switch-in the trace lacks (%.3f msec in all by perf's rule, the time since their CPU's previous switch; --exact counts them) and %s across lost events; those tasks' run times are lower bounds ('latency' places what it can of them)\n",
			runs(th.unchainedRuns), float64(th.unchainedRunNs)/1e6, runs(th.lossyRuns))
	}
	if !th.opt.Exact && th.unchainedIdle > 0 {
		what := fmt.Sprintf("%d idle periods", th.unchainedIdle)
		if th.unchainedIdle == 1 {
			what = "1 idle period"
		}
		b = fmt.Appendf(b, "\n    Not in the idle times: %s whose switch-in the trace lacks (%.3f msec in all by perf's rule; a task ran for an unknown part of that: 'stats' counts it unknown; --exact counts it idle)\n",
			what, float64(th.unchainedIdleNs)/1e6)
	}
	w.Write(b)
}

// String helpers for the views: fixed-width columns without fmt.

func timehistRight(b []byte, width int, s []byte) []byte {
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// nameLen is how wide a task name is in the comm column: its bytes, as
// perf counts them, with --exact; else its terminal columns
// (termsafe.Width), so that a name of multi-byte characters lines up.
func (th *timehist) nameLen(s []byte) int {
	if th.opt.Exact {
		return len(s)
	}
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return termsafe.Width(string(s))
		}
	}
	return len(s)
}

// leftName appends name s padded to the comm column (nameLen).
func (th *timehist) leftName(b, s []byte) []byte {
	b = append(b, s...)
	for i := th.nameLen(s); i < th.commWidth; i++ {
		b = append(b, ' ')
	}
	return b
}

// rightName appends name s right-aligned in width columns (nameLen).
func (th *timehist) rightName(b []byte, width int, s []byte) []byte {
	for i := th.nameLen(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

func timehistLeft(b []byte, width int, s []byte) []byte {
	b = append(b, s...)
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return b
}

// timehistZero appends v zero-padded to width digits (printf "%0*d").
func timehistZero(b []byte, width int, v int64) []byte {
	var tmp [24]byte
	d := timehistDigits(&tmp, v)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

// timehistDigits renders v >= 0 in decimal into tmp, two digits at a time
// (strconv's generic path costs more per row than the rows' other work, and
// a division per digit was a tenth of a map run).
func timehistDigits(tmp *[24]byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(tmp[:0], v, 10)
	}
	i, u := len(tmp), uint64(v)
	for u >= 100 {
		q := u / 100
		d := (u - q*100) * 2
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[d], digitPairs[d+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		i--
		tmp[i] = byte('0' + u)
	}
	return tmp[i:]
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// timehistUsec appends a trace time as perf's timestamp__scnprintf_usec:
// seconds, '.', six digits of microseconds (truncated, not rounded).
func timehistUsec(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	var tmp [24]byte
	b = append(b, timehistDigits(&tmp, ns/1e9)...)
	us := uint64(ns % 1e9 / 1e3)
	hi, mid, lo := us/10000*2, us/100%100*2, us%100*2
	return append(b, '.', digitPairs[hi], digitPairs[hi+1], digitPairs[mid], digitPairs[mid+1], digitPairs[lo], digitPairs[lo+1])
}

// timehistSchedTime is perf's print_sched_time: msec right-aligned to width,
// '.', three digits of usec (truncated), then a space.
func timehistSchedTime(b []byte, ns int64, width int) []byte {
	if ns < 0 {
		ns = 0
	}
	var tmp [24]byte
	b = timehistRight(b, width, timehistDigits(&tmp, ns/1e6))
	us := ns % 1e6 / 1e3
	return append(b, '.', byte('0'+us/100), byte('0'+us/10%10), byte('0'+us%10), ' ')
}

func timehistInt(b []byte, v int64) []byte   { return strconv.AppendInt(b, v, 10) }
func timehistUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }
func timehistFloat(b []byte, v float64, prec int) []byte {
	return strconv.AppendFloat(b, v, 'f', prec, 64)
}

// notRecorded reports, outside Exact, whether CPU c is one the capture
// left out (trace.RecordedCPUs: perf record -C, record --cpu) with no
// sched_switch of its own: perf's summary calls it "idle entire time
// window", where its time is unknown (new-user pass 43 F2: a CPU that ran
// a pinned busy loop throughout; stats prints "-" for it).
func (th *timehist) notRecorded(c int) bool {
	if th.opt.Exact || th.recordedCPUs == nil || slices.Contains(th.recordedCPUs, trace.CPU(c)) {
		return false
	}
	return c >= len(th.switches) || th.switches[c] == 0
}

// notRecordedCount counts the CPUs below maxCPU that notRecorded.
func (th *timehist) notRecordedCount() int {
	n := 0
	for c := 0; c < th.maxCPU; c++ {
		if th.notRecorded(c) {
			n++
		}
	}
	return n
}
