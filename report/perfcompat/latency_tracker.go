package perfcompat

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/traceview/traceview/internal/tidmap"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// LatencyThread mirrors perf's struct thread as perf sched latency sees it:
// one per TID until a fork of the same TID replaces it (perf's
// machine__process_fork_event, tools/perf/util/machine.c), named by COMM
// records and inherited on fork. X is what the report measuring the delays
// keeps per task.
type LatencyThread[X any] struct {
	TID  trace.TID
	PID  trace.PID // -1 until an event says
	Comm string    // "" = never named (perf prints ":TID")
	// Seen is the latest name the events' own fields gave the task
	// (sched_switch prev_comm/next_comm, a wakeup's or a migration's
	// comm): what the default report calls a task that no COMM record
	// named (perf.data of a task alive before the recording that perf did
	// not synthesize, or whose COMM came after the cut of a truncated file).
	Seen string
	// CommAt is the time of the COMM record or fork that set Comm (0: a
	// record perf synthesized at the recording's start, from /proc);
	// SeenAt the time of the event that gave Seen.
	CommAt, SeenAt int64
	// Emptied is true when a COMM record renamed the task to the empty
	// name (prctl(PR_SET_NAME, "")): its name is "", not ":TID".
	Emptied bool
	// Cgroup is the cgroup id of its last switch-out (0 unknown).
	Cgroup uint64
	Task   *LatencyTask[X] // nil until perf would create its atoms
	// splits, with LatencyTracker.SplitCgroups, holds the thread objects
	// of this task by cgroup, shared by all of them: a task back in a
	// group it was in goes on in that group's object (one row per task
	// and group).
	splits map[uint64]*LatencyThread[X]
}

// Name is perf's thread name: "swapper" for TID 0, ":TID" when the trace
// never named the task, else its latest comm ("" after a rename to the
// empty name: perf's row then reads ":TID", the empty name and the pid).
func (th *LatencyThread[X]) Name() string {
	if th.TID == 0 {
		return "swapper"
	}
	if th.Comm == "" && !th.Emptied {
		return fmt.Sprintf(":%d", th.TID)
	}
	return th.Comm
}

// Named is Name, except that a task no COMM record named takes the name
// its events gave it (Seen) when they gave one: the default report's name,
// which timehist also prints.
//
// So does a task whose events name it otherwise after the record that
// named it: a rename the trace lost, as a cut perf.data loses the exec's
// COMM record with the CPU buffer it was in ("perf-exec" where its
// sched_switch events said "wl1.sh"). A name perf synthesized at the start
// (CommAt 0, from /proc) that merely extends the events' keeps: /proc
// appends a kworker's workqueue ("kworker/0:0-events" for the task's
// "kworker/0:0": wq_worker_comm, kernel/workqueue.c v6.12). So does such a
// name at any time (workerExtends): perf script text carries perf's names
// in its task column, which the text reader gives as KindComm where the
// task's first line shows it, not at 0 (new-user pass 110 F1: the text of a
// perf.data named "kworker/0:0-vir" "kworker/0:0").
func (th *LatencyThread[X]) Named() string {
	if th.TID != 0 && th.Comm == "" && !th.Emptied && th.Seen != "" {
		return th.Seen
	}
	if th.TID != 0 && th.Seen != "" && th.Seen != th.Comm && th.SeenAt > th.CommAt && (th.CommAt > 0 && !workerExtends(th.Comm, th.Seen) || !strings.HasPrefix(th.Comm, th.Seen)) {
		return th.Seen
	}
	return th.Name()
}

// workerExtends reports whether name is comm with a workqueue worker's
// description appended as /proc/PID/comm shows it: "-" and the workqueue,
// "+" while the worker runs a work item, "@" for a rescuer (wq_worker_comm,
// kernel/workqueue.c v6.18; report.compareName strips the same), cut to
// the 15 bytes of a comm.
func workerExtends(name, comm string) bool {
	rest, ok := strings.CutPrefix(name, comm)
	return ok && len(rest) > 0 && strings.IndexByte("-+@", rest[0]) >= 0
}

// LatencyTask is perf's work_atoms of one thread object (its row of the
// -p table) reduced to the sums both latency reports print; X holds what
// the report measuring the delays keeps besides. Times are ns.
type LatencyTask[X any] struct {
	Thread *LatencyThread[X]
	Order  int // creation order
	// Runtime: the sum of the task's sched_stat_runtime (perf's mode; the
	// default report fills it from its schedule's Runtime hook).
	Runtime int64
	// Switches: its recorded switch-ins (that the filter keeps);
	// Unrecorded: switch-ins the trace lacks (its own event on a CPU whose
	// last recorded sched_switch switched in another task); FirstSeen:
	// switch-ins when first seen.
	Switches, Unrecorded, FirstSeen int64
	// undecided: switch-ins that a cgroup or PID filter could not judge
	// yet (the task's cgroup unknown until its first switch-out; its PID
	// until an event gives it: a perf.data's sched_process_fork names the
	// child's TID only, and a child can be switched in before anything
	// says its process, new-user pass 26 F8), added to Switches when a
	// switch-out that says them finds the task selected (schedule's rule
	// for its delays).
	undecided int64
	Delays    DelaySums
	// Recovered delays (included in Delays): whose switch-in the trace
	// lacks, and their total.
	Recovered, RecoveredSum int64
	X                       X
}

// DelaySums accumulates delays as perf's add_sched_in_event does: their
// count and sum, and the first largest (a strictly greater one replaces
// it) with its start and end. Samples holds every delay (ns, in order)
// when Add is told to keep them.
type DelaySums struct {
	Count, Sum, Max  int64
	MaxStart, MaxEnd int64
	Samples          []int64
}

// Add counts one delay from start to end (ns), keeping it in Samples when
// keep is set.
func (d *DelaySums) Add(start, end int64, keep bool) {
	lat := end - start
	d.Sum += lat
	if lat > d.Max {
		d.Max, d.MaxStart, d.MaxEnd = lat, start, end
	}
	d.Count++
	if keep {
		d.Samples = append(d.Samples, lat)
	}
}

// LatencyCPU is what a LatencyTracker follows of one CPU: the task its
// events say runs there, perf's curr_pid, and the breaks of its chain of
// sched_switch events.
type LatencyCPU struct {
	// Curr is the task running, by the last switch or later evidence; -1
	// unknown. PerfCurr is perf's curr_pid: the last switched-in task.
	Curr, PerfCurr trace.TID
	// LastSwitch is the time of the CPU's last sched_switch (ns).
	LastSwitch int64
	switches   int64
	breaks     int64
	missing    map[trace.TID]int64
	idleEvents int64
	lost       bool // records lost on this CPU since its last break
	afterLoss  int64
	unknownRun int64
	shownRun   map[trace.TID]int64
}

// ChainBreak counts, for one CPU, sched_switch events whose previous task was
// not the task the CPU's previous sched_switch had switched in: the trace
// lacks the switches in between. Missing maps the task that should have been
// switched out (the last one switched in, 0 = idle) to how often.
type ChainBreak struct {
	CPU      trace.CPU
	Breaks   int64
	Switches int64 // sched_switch events on this CPU
	Missing  map[trace.TID]int64
	// Events recorded on this CPU while its idle task was current (0 on a
	// CPU whose idle-time events were never recorded).
	IdleEvents int64
	// AfterLoss: breaks that follow a lost-records report for this CPU
	// (or for an unknown CPU) since the CPU's previous break: explained by
	// the recorder's losses rather than by events never emitted.
	AfterLoss int64
	// UnknownRun (ns) sums, over the breaks, the time from the CPU's
	// previous sched_switch to the event that showed the break: the task
	// it showed running began its run at an unknown time in it, so a run
	// time measured from switches leaves that run out (a lower bound),
	// where perf's timehist charges all of it to that task.
	UnknownRun int64
	// ShownRun is UnknownRun per task the breaks showed running (ns):
	// the tasks whose run time it is a lower bound of.
	ShownRun map[trace.TID]int64
}

// LatencyCounts are a LatencyTracker's counters.
type LatencyCounts struct {
	Events int64 // events read, lost-events markers included (perf's nr_events)
	// SchedEvents: those of them that are scheduler events
	// (trace.Kind.Scheduler).
	SchedEvents int64
	Switches    int64 // sched_switch events
	// FirstSeen: switch-ins of tasks seen for the first time (perf counts
	// a 0 ns delay for each).
	FirstSeen int64
	// SwitchBugs: perf's nr_context_switch_bugs (a sched_switch whose
	// previous task is not the CPU's curr_pid). LostEvents, LostChunks:
	// perf's nr_lost_events and nr_lost_chunks.
	SwitchBugs, LostEvents, LostChunks int64
}

// LatencyStep is what LatencyTracker.Event did with one event, for the
// state machine that measures the delays.
type LatencyStep[X any] struct {
	// CPU is the event's CPU (nil for a CPU number past maxCPUs).
	CPU *LatencyCPU
	// Moved: the event says another task, Runs, runs on CPU than the one
	// the CPU was believed to run (for a sched_switch, its previous task;
	// CPU.Curr is then already the next).
	Moved bool
	Runs  trace.TID
	// Task is the task of a switch-out, a counted wakeup or a
	// sched_stat_runtime (nil otherwise), Created whether this event
	// created it. In and InCreated are the switch-in's task (InCreated is
	// false when a filter leaves the switch-in out).
	Task, In           *LatencyTask[X]
	Created, InCreated bool
	// Wakeup: the event is a wakeup that starts a delay (Wakeups chooses).
	Wakeup bool
}

// LatencyTracker keeps what both latency reports take from perf sched
// latency: perf's thread objects, a task (row) for each created at the
// events perf creates work atoms at (a switch, a counted wakeup, a
// sched_stat_runtime), and per CPU its chain of sched_switch events (perf's
// context-switch-bug rule, and the chain breaks the reports warn about).
// The report's own state machine measures the delays from its Steps.
type LatencyTracker[X any] struct {
	// Wakeups chooses the wakeup events that count (as schedule.Options).
	Wakeups schedule.WakeupSource
	// Filter (may be nil) keeps switch-ins: one it leaves out counts
	// neither as a switch nor as a first sight.
	Filter *schedule.Filter
	// SplitCgroups: a switch-out in another cgroup than the task's
	// previous one starts a new thread object (a row per task and group,
	// for latency --by cgroup); the run it ends and what follows go to the
	// new object, as the schedule puts a run in the cgroup of its
	// switch-out. perf has no such rule.
	SplitCgroups bool
	// Gen counts the thread objects made: a task cached under an older
	// generation may belong to its TID's previous object.
	Gen    uint64
	Tasks  []*LatencyTask[X] // in creation order
	Counts LatencyCounts
	// Warnings: sched_switch events out of time order on a CPU.
	Warnings trace.Warnings

	threads    tidmap.Map[trace.TID, *LatencyThread[X]]
	cpus       []LatencyCPU
	seenWaking bool
}

// maxCPUs bounds per-CPU state (perf's MAX_CPUS, tools/perf/builtin-sched.c);
// events of larger CPU numbers are processed without it.
const maxCPUs = 4096

// CPU returns the state of CPU c (nil past maxCPUs).
func (tr *LatencyTracker[X]) CPU(c trace.CPU) *LatencyCPU {
	if c < 0 || c >= maxCPUs {
		return nil
	}
	for int(c) >= len(tr.cpus) {
		tr.cpus = append(tr.cpus, LatencyCPU{Curr: -1, PerfCurr: -1})
	}
	return &tr.cpus[c]
}

// Lookup returns the current thread object of tid, or nil.
func (tr *LatencyTracker[X]) Lookup(tid trace.TID) *LatencyThread[X] { return tr.threads.Get(tid) }

// setThread makes th the current thread object of its TID.
func (tr *LatencyTracker[X]) setThread(th *LatencyThread[X]) {
	tr.threads.Set(th.TID, th)
	tr.Gen++
}

// Thread is perf's machine__findnew_thread(machine, pid, tid).
func (tr *LatencyTracker[X]) Thread(tid trace.TID, pid trace.PID) *LatencyThread[X] {
	th := tr.Lookup(tid)
	if th == nil {
		th = &LatencyThread[X]{TID: tid, PID: -1}
		if tid == 0 {
			th.PID = 0
		}
		tr.setThread(th)
	}
	if pid >= 0 && th.PID < 0 {
		th.PID = pid
	}
	return th
}

// Task returns the thread's task, creating it (perf's
// thread_atoms_insert); created reports whether it is new.
func (tr *LatencyTracker[X]) Task(th *LatencyThread[X]) (t *LatencyTask[X], created bool) {
	if th.Task != nil {
		return th.Task, false
	}
	t = &LatencyTask[X]{Thread: th, Order: len(tr.Tasks)}
	th.Task = t
	tr.Tasks = append(tr.Tasks, t)
	return t, true
}

// Event does the bookkeeping of e common to both reports and says what it
// did.
func (tr *LatencyTracker[X]) Event(e *trace.Event) LatencyStep[X] {
	tr.Counts.Events++
	if e.Kind.Scheduler() {
		tr.Counts.SchedEvents++
	}
	st := LatencyStep[X]{CPU: tr.CPU(e.CPU)}
	if st.CPU != nil && e.CurTID >= 0 {
		switch e.Kind {
		case trace.KindLost, trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit, trace.KindCgroupMove:
			// Not recorded in the context of the CPU's current task (a
			// cgroup move is, but perf has no such event: it adds no
			// evidence).
		case trace.KindMigrate:
			// A CPU with no sched_switch at all gives no chain to break
			// (record --cpu keeps the migrations other CPUs emit for the
			// tasks they move off or onto a recorded CPU: "CPU 0: 73 of 0
			// sched_switch events ..." and as many unrecorded switch-ins).
			if st.CPU.switches > 0 {
				st.Moved, st.Runs = tr.evidence(e, st.CPU)
			}
		default:
			st.Moved, st.Runs = tr.evidence(e, st.CPU)
		}
	}
	switch e.Kind {
	case trace.KindSwitch:
		tr.switchEvent(e, &st)
	case trace.KindWaking:
		tr.seenWaking = true
		st.Wakeup = tr.Wakeups != schedule.WakeupsWakeup
	case trace.KindWakeup:
		st.Wakeup = tr.Wakeups == schedule.WakeupsWakeup || tr.Wakeups == schedule.WakeupsAuto && !tr.seenWaking
	case trace.KindWakeupNew:
		st.Wakeup = true
	case trace.KindRuntime:
		if e.TID >= 0 {
			th := tr.Thread(e.TID, e.PID)
			if tr.SplitCgroups && e.TID != 0 && e.Cgroup != 0 {
				// A tick's group (perf --all-cgroups): the run time is
				// that group's, a run that spans a move split by ticks.
				th = tr.splitCgroup(th, e.Cgroup)
			}
			st.Task, st.Created = tr.Task(th)
			if tr.SplitCgroups && e.TID != 0 && e.Cgroup != 0 {
				st.Task.Thread.Cgroup = e.Cgroup
			}
		}
	case trace.KindComm, trace.KindExec:
		if e.TID > 0 {
			th := tr.Thread(e.TID, e.PID)
			switch {
			case e.Comm != "":
				th.Comm, th.Emptied, th.CommAt = e.Comm, false, e.Time
			case e.Kind == trace.KindComm:
				// A rename to the empty name (prctl(PR_SET_NAME, "")):
				// a COMM record always carries the new name, so perf's
				// thread is named "" from here and prints as ":TID"; the
				// names its earlier events gave it no longer hold. (An
				// exec's empty Comm is a reader that lacks the name.)
				th.Comm, th.Seen, th.Emptied = "", "", true
			}
		}
	case trace.KindFork:
		tr.fork(e)
	case trace.KindLost:
		tr.Counts.LostEvents += int64(e.Count)
		tr.Counts.LostChunks++
		if st.CPU != nil {
			st.CPU.lost = true
		} else {
			for i := range tr.cpus {
				tr.cpus[i].lost = true
			}
		}
	}
	if st.Wakeup && e.TID >= 0 {
		st.Task, st.Created = tr.Task(tr.Thread(e.TID, e.PID))
	}
	tr.seen(e)
	return st
}

// seen keeps, on the thread objects that exist, the names e's fields give
// them (LatencyThread.Seen); it creates none, so perf's bookkeeping is
// unchanged.
func (tr *LatencyTracker[X]) seen(e *trace.Event) {
	see := func(tid trace.TID, comm string) {
		if tid <= 0 || comm == "" || comm == "<...>" {
			return
		}
		if th := tr.Lookup(tid); th != nil {
			th.Seen, th.SeenAt = comm, e.Time
		}
	}
	switch e.Kind {
	case trace.KindSwitch:
		see(e.TID, e.Comm)
		see(e.NextTID, e.NextComm)
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime:
		see(e.TID, e.Comm)
	}
}

// evidence checks who event e says runs on CPU c (the task in whose context
// it was recorded; for a sched_switch the previous task) against the task
// the CPU's last recorded sched_switch switched in. A mismatch means the
// trace lacks the switches in between: it is counted per CPU and reported.
func (tr *LatencyTracker[X]) evidence(e *trace.Event, c *LatencyCPU) (moved bool, who trace.TID) {
	if e.CurTID == 0 {
		c.idleEvents++
	}
	who = e.CurTID
	if e.Kind == trace.KindSwitch {
		who = e.TID
	}
	if who < 0 || who == c.Curr {
		return false, who
	}
	// c.Curr < 0: the first event on this CPU; its task may still have an
	// open delay whose switch-in preceded the CPU's first recorded event.
	if c.Curr >= 0 {
		c.breaks++
		if th := tr.Lookup(who); who > 0 && th != nil && th.Task != nil {
			th.Task.Unrecorded++
		}
		if c.missing == nil {
			c.missing = map[trace.TID]int64{}
		}
		c.missing[c.Curr]++
		if c.LastSwitch > 0 && e.Time > c.LastSwitch && !c.lost {
			// (After lost records, the span since the CPU's last switch
			// held events the trace lost: no run of who's, whatever its
			// length; new-user pass 38 F2 read a damaged block's 1288 ms
			// as "find ... 96 % of its run", of a task that ran 71 ms.)
			c.unknownRun += e.Time - c.LastSwitch
			if c.shownRun == nil {
				c.shownRun = map[trace.TID]int64{}
			}
			c.shownRun[who] += e.Time - c.LastSwitch
		}
		if c.lost {
			c.afterLoss++
			c.lost = false
		}
	}
	c.Curr = who
	return true, who
}

// MoveCgroup is the schedule's split of task tid's run at a recorded move
// to another task group (schedule.Hooks.CgroupMove; the schedule decides,
// so that a row and the group table put a delay in one group): with
// SplitCgroups, the thread object of the task in from, the group it left,
// becomes current while the schedule closes the run up to the move.
func (tr *LatencyTracker[X]) MoveCgroup(tid trace.TID, pid trace.PID, from uint64) {
	if !tr.SplitCgroups || tid <= 0 || from == 0 {
		return
	}
	t, _ := tr.Task(tr.splitCgroup(tr.Thread(tid, pid), from))
	t.Thread.Cgroup = from
}

// splitCgroup returns the thread object of th's task in cgroup cg
// (SplitCgroups), made and made current when th is in another group.
func (tr *LatencyTracker[X]) splitCgroup(th *LatencyThread[X], cg uint64) *LatencyThread[X] {
	if th.Cgroup == 0 || th.Cgroup == cg {
		return th
	}
	if th.splits == nil {
		th.splits = map[uint64]*LatencyThread[X]{th.Cgroup: th}
	}
	nt := th.splits[cg]
	if nt == nil {
		nt = &LatencyThread[X]{TID: th.TID, splits: th.splits}
		th.splits[cg] = nt
	}
	// (The names as they are now: the task may have been renamed since
	// it was last in that group.)
	nt.PID, nt.Comm, nt.Seen, nt.CommAt, nt.SeenAt, nt.Emptied = th.PID, th.Comm, th.Seen, th.CommAt, th.SeenAt, th.Emptied
	tr.setThread(nt)
	return nt
}

func (tr *LatencyTracker[X]) switchEvent(e *trace.Event, st *LatencyStep[X]) {
	tr.Counts.Switches++
	if c := st.CPU; c != nil {
		c.switches++
		// perf's context-switch-bug rule (process_sched_switch_event).
		if c.PerfCurr >= 0 && c.PerfCurr != e.TID {
			tr.Counts.SwitchBugs++
		}
		if e.Time < c.LastSwitch {
			tr.Warnings.Add("latency-switch-order", "latency: sched_switch on CPU %d at %d ns is before the previous one at %d ns", e.CPU, e.Time, c.LastSwitch)
		}
		c.LastSwitch = e.Time
		c.Curr, c.PerfCurr = e.NextTID, e.NextTID
	}
	if e.TID >= 0 {
		th := tr.Thread(e.TID, e.PID)
		if tr.SplitCgroups && e.TID != 0 && e.Cgroup != 0 {
			th = tr.splitCgroup(th, e.Cgroup)
		}
		st.Task, st.Created = tr.Task(th)
		if e.Cgroup != 0 {
			st.Task.Thread.Cgroup = e.Cgroup
		}
		if t := st.Task; t.undecided > 0 && (e.Cgroup != 0 || tr.Filter.Cgroups == nil) && (e.PID >= 0 || tr.Filter.PIDs == nil) {
			if tr.Filter.TaskIDs(e.TID, e.PID, e.Comm, e.Cgroup) {
				t.Switches += t.undecided
			}
			t.undecided = 0
		}
	}
	if e.NextTID < 0 {
		return
	}
	in, created := tr.Task(tr.Thread(e.NextTID, e.NextPID))
	pid := e.NextPID
	if pid < 0 {
		pid = in.Thread.PID // (-1 too when nothing said it yet)
	}
	if f := tr.Filter; f != nil && !(f.Time(e.Time) && f.CPU(e.CPU) && f.TaskIDs(e.NextTID, pid, e.NextComm, in.Thread.Cgroup)) {
		created = false // neither a switch nor a first sight the filter keeps
		if (f.Cgroups != nil && in.Thread.Cgroup == 0 || f.PIDs != nil && pid < 0) && e.NextTID > 0 && f.Time(e.Time) && f.CPU(e.CPU) {
			in.undecided++
		}
	} else {
		in.Switches++
	}
	if created && e.NextTID != 0 {
		tr.Counts.FirstSeen++
		in.FirstSeen++
	}
	st.In, st.InCreated = in, created
}

// fork follows perf's machine__process_fork_event: a fork of a TID that
// already has a task starts a new thread object (pid reuse); the child
// inherits the parent's name.
func (tr *LatencyTracker[X]) fork(e *trace.Event) {
	if e.ChildTID <= 0 {
		return
	}
	var parent *LatencyThread[X]
	if e.TID >= 0 {
		parent = tr.Thread(e.TID, e.PID)
	}
	child := tr.Lookup(e.ChildTID)
	if child == nil || child.Task != nil {
		child = &LatencyThread[X]{TID: e.ChildTID, PID: -1}
		tr.setThread(child)
	}
	if e.ChildPID >= 0 {
		child.PID = e.ChildPID
	}
	child.Comm, child.CommAt = "", 0
	if parent != nil {
		child.Comm = parent.Comm
		if parent.CommAt > 0 || e.Time > 0 && parent.Comm != "" {
			child.CommAt = e.Time // (a fork perf synthesized is at 0)
		}
	}
}

// Chains returns the CPUs whose chain of sched_switch events broke, in
// ascending order.
func (tr *LatencyTracker[X]) Chains() []ChainBreak {
	var out []ChainBreak
	for i := range tr.cpus {
		c := &tr.cpus[i]
		if c.breaks == 0 {
			continue
		}
		out = append(out, ChainBreak{
			CPU: trace.CPU(i), Breaks: c.breaks, Switches: c.switches,
			Missing: c.missing, IdleEvents: c.idleEvents, AfterLoss: c.afterLoss, UnknownRun: c.unknownRun, ShownRun: c.shownRun,
		})
	}
	return out
}

// AtomRoot returns the tasks in perf's atom_root order: TID descending
// (pid_cmp, larger left), later thread objects of a reused TID first.
// perf merges rows by command name in this order.
func (tr *LatencyTracker[X]) AtomRoot() []*LatencyTask[X] {
	out := append([]*LatencyTask[X](nil), tr.Tasks...)
	slices.SortStableFunc(out, func(a, b *LatencyTask[X]) int {
		if a.Thread.TID != b.Thread.TID {
			return cmp.Compare(b.Thread.TID, a.Thread.TID)
		}
		return cmp.Compare(b.Order, a.Order)
	})
	return out
}
