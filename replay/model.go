package replay

import (
	"fmt"
	"io"
	"path"
	"sort"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// CauseKind says what ended a blocking point.
type CauseKind uint8

// Causes of a wakeup.
const (
	CauseNever      CauseKind = iota // not woken before the trace ended
	CauseDependency                  // woken by another task at a point of its burst
	CauseTimer                       // woken Delay ns after blocking (timer, or interrupt modelled as one)
	CauseExternal                    // woken at absolute time At, whatever the schedule
)

// String returns "never", "dependency", "timer" or "external".
func (c CauseKind) String() string {
	return [...]string{"never", "dependency", "timer", "external"}[c]
}

// EndKind says how a burst ends.
type EndKind uint8

// Burst ends.
const (
	EndBlock EndKind = iota // the task blocks; Burst.Wake says what wakes it
	EndExit                 // the task exits
	EndTrace                // the trace ended while the task was runnable or running
)

// Cause is what ends a blocking point.
type Cause struct {
	Kind  CauseKind
	Waker int   // task index in Model.Tasks (CauseDependency)
	Delay int64 // ns after blocking (CauseTimer)
	At    int64 // ns, absolute trace time (CauseExternal)
	// Inferred is true when the cause was guessed, not recorded: perf's
	// waker is only the task current on the waking CPU, and a wakeup from
	// idle may be a timer or a device.
	Inferred bool
}

// ActionKind is what a task does at a point of its burst.
type ActionKind uint8

// Actions.
const (
	ActWake ActionKind = iota // wake Target from the block after its burst Block
	ActFork                   // create Target (a new task)
)

// Action is an effect of a task on another at At ns into its burst.
type Action struct {
	At     int64
	Kind   ActionKind
	Target int // task index
	Block  int // ActWake: index of the target's burst whose following block this ends
}

// Burst is CPU time a task consumes between blocking points.
type Burst struct {
	Len     int64    // ns of CPU time
	Actions []Action // sorted by At (0 <= At <= Len)
	End     EndKind
	Wake    Cause // EndBlock: what ends the block after this burst
	// Observed: ns the task slept after this burst in the trace (EndBlock
	// with a known wake), for reports.
	Slept int64
}

// InitState is a task's state when the model starts.
type InitState uint8

// Initial states.
const (
	InitForked   InitState = iota // created by a fork inside the trace
	InitRunnable                  // runnable or running at the start of the trace
	InitSleeping                  // sleeping at the start; Bursts[0] is empty and its Wake ends that sleep
)

// Task is one task identity of the model.
type Task struct {
	TID    trace.TID
	PID    trace.PID
	Comm   string
	Prio   int32 // kernel prio seen in the trace (-1 unknown)
	Parent int   // forking task index, -1
	Init   InitState
	CPU    int   // CPU it was first seen on
	Start  int64 // ns, first appearance (fork time for forked tasks)
	Last   int64 // ns, last event that concerns the task
	Bursts []Burst
	// Workload marks the traced command's process tree.
	Workload bool
	// Affinity is the CPU set the task was inferred to be pinned to (0:
	// no restriction known); see ModelStats.PinnedTasks.
	Affinity policies.CPUSet
	ranOn    policies.CPUSet
	switchIn int
}

// Class returns the scheduling class and nice/RT priority implied by the
// traced prio: below 100 real-time (SCHED_FIFO assumed: a trace does not
// tell FIFO from RR), else fair with nice = prio-120.
func (t *Task) Class() (c policies.Class, nice, rtprio int) {
	switch {
	case t.Prio >= 0 && t.Prio < 100:
		return policies.ClassFIFO, 0, int(99 - t.Prio)
	case t.Prio >= 100 && t.Prio < 140:
		return policies.ClassFair, int(t.Prio) - 120, 0
	}
	return policies.ClassFair, 0, 0
}

// Model is a workload extracted from a trace.
type Model struct {
	Tasks      []Task
	Start, End int64 // ns, first and last event time
	NrCPUs     int   // from the trace's Meta, or the highest CPU seen + 1
	Meta       trace.Meta
	// Recorded is the observed schedule (every scheduler event of the
	// input), re-emitted by the as-traced policy.
	Recorded EventLog
	// IdleExit is the median delay in ns between a wakeup targeting an
	// idle CPU and the switch-in of the woken task there, measured in the
	// trace: what the simulator charges when an idle CPU gets work.
	IdleExit int64
	// WakePreempt is the median delay in ns between a wakeup and the
	// switch-in of the woken task when it preempted the running task
	// there (resched IPI, return to user mode), likewise measured.
	WakePreempt int64
	// SwitchCost is the mean CPU time in ns per run that the kernel
	// charged to no task: the time between a task's recorded switch-in and
	// switch-out minus the sched_stat_runtime charged to it meanwhile (the
	// context switch itself). 0 when the trace has no sched_stat_runtime
	// (bursts then include it) or the runtime covers the switches.
	SwitchCost int64
	// WorkloadRoot is the TID of the traced command (the child of the
	// recorder), -1 when none was found; Workload tasks descend from it.
	WorkloadRoot trace.TID
	Stats        ModelStats
}

// ModelStats counts what a model rests on.
type ModelStats struct {
	Tasks          int `json:"tasks"`
	Bursts         int `json:"bursts"`
	BlockingPoints int `json:"blocking_points"`
	Dependencies   int `json:"dependencies"`
	Timers         int `json:"timers"`
	External       int `json:"external"`
	Never          int `json:"never_woken"`
	Inferred       int `json:"inferred"`
	Forks          int `json:"forks"`
	Exits          int `json:"exits"`
	// PinnedTasks counts workload tasks given an inferred affinity: the
	// whole traced command ran on one CPU of several (taskset) over at
	// least PinMinSwitches switch-ins.
	PinnedTasks int `json:"pinned_tasks"`
	// PingPongs counts preemptions turned into inferred blocking points
	// (a task preempted by the task it woke, resumed when that one blocked).
	PingPongs int `json:"ping_pongs"`
}

// PinMinSwitches is how many switch-ins of the traced command on a single
// CPU of a multi-CPU trace make Extract infer that it was pinned there.
const PinMinSwitches = 50

// ObservedMakespan returns the span in ns from the first to the last event
// of the traced command's process tree in the input (of every task when no
// traced command was found).
func (m *Model) ObservedMakespan() int64 {
	first, last := int64(-1), int64(-1)
	any := m.WorkloadRoot >= 0
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if any && !tk.Workload {
			continue
		}
		if first < 0 || tk.Start < first {
			first = tk.Start
		}
		if tk.Last > last {
			last = tk.Last
		}
	}
	if first < 0 {
		return 0
	}
	return last - first
}

// InferredShare is the fraction of blocking points whose cause was
// inferred (0..1).
func (s ModelStats) InferredShare() float64 {
	if s.BlockingPoints == 0 {
		return 0
	}
	return float64(s.Inferred) / float64(s.BlockingPoints)
}

// ext is the extraction state of one task.
type ext struct {
	idx      int
	running  bool
	sleeping bool
	segStart int64 // ns, when it went on CPU, or its last sched_stat_runtime since
	accum    int64 // ns consumed in the current burst up to segStart
	blocked  int64 // ns, when it blocked
	dead     bool
	cpu      trace.CPU // where it runs, while running
	wakeAt   int64     // ns, pending wakeup time (for latency measurements), -1
	wakeIdle bool      // the wakeup targeted an idle CPU
	wakeCPU  trace.CPU // the CPU the wakeup targeted
	wakeN    int       // that CPU's switch count at the wakeup
	inAt     int64     // ns, recorded switch-in of the current run (-1 unknown)
	rtIn     int64     // ns of sched_stat_runtime charged during that run
	pp       int       // task index + 1 of the wakee that preempted this task right after its wakeup (ping-pong)
	ppAt     int64     // ns, when
}

type extractor struct {
	m          *Model
	st         []ext
	byTID      map[trace.TID]int
	cpuCurr    []trace.TID
	cpuLast    []int64 // ns, last sched_switch per CPU
	cpuN       []int   // sched_switch events per CPU
	idle       []int64
	preempt    []int64
	seenWaking bool
	pre        map[trace.TID]preName
	sawRT      bool      // the trace has sched_stat_runtime
	lastWake   []wakeRec // per CPU: the last dependency wakeup emitted there
	ovSum      int64     // ns: Σ (run between recorded switches − its sched_stat_runtime)
	ovN        int64     // runs in ovSum
}

// wakeRec is a dependency wakeup: waker woke wakee at t (task indexes).
type wakeRec struct {
	waker, wakee int
	t            int64
}

// preName is what synthesized records said about a task that existed
// before the trace started.
type preName struct {
	comm string
	pid  trace.PID
}

// Extract reads src to its end and builds the workload model. It keeps the
// observed schedule for as-traced replays. Errors are the source's.
func Extract(src trace.Source) (*Model, error) {
	x := &extractor{m: &Model{WorkloadRoot: -1, Start: -1}, byTID: map[trace.TID]int{}, pre: map[trace.TID]preName{}}
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: extract: %w", err)
		}
		x.event(ev)
	}
	if m := src.Meta(); m != nil {
		x.m.Meta.Format, x.m.Meta.Hostname, x.m.Meta.OSRelease = m.Format, m.Hostname, m.OSRelease
		x.m.Meta.Arch, x.m.Meta.Tool, x.m.Meta.Cmdline = m.Arch, m.Tool, m.Cmdline
		x.m.Meta.NrCPUs, x.m.Meta.Clock = m.NrCPUs, m.Clock
		if m.NrCPUs > x.m.NrCPUs {
			x.m.NrCPUs = m.NrCPUs
		}
	}
	x.finish()
	return x.m, nil
}

func (x *extractor) cpu(c trace.CPU) {
	for int(c) >= len(x.cpuCurr) {
		x.cpuCurr = append(x.cpuCurr, -1)
		x.cpuLast = append(x.cpuLast, 0)
		x.cpuN = append(x.cpuN, 0)
		x.lastWake = append(x.lastWake, wakeRec{waker: -1})
	}
	if int(c)+1 > x.m.NrCPUs {
		x.m.NrCPUs = int(c) + 1
	}
}

// task returns the live identity of tid, creating one alive at the start.
func (x *extractor) task(tid trace.TID, t int64, cpu trace.CPU, init InitState) int {
	if i, ok := x.byTID[tid]; ok {
		return i
	}
	return x.newTask(tid, t, cpu, init, -1)
}

func (x *extractor) newTask(tid trace.TID, t int64, cpu trace.CPU, init InitState, parent int) int {
	i := len(x.m.Tasks)
	x.m.Tasks = append(x.m.Tasks, Task{TID: tid, PID: -1, Prio: -1, Parent: parent, Init: init, CPU: int(cpu), Start: t, Last: t,
		Bursts: []Burst{{}}})
	x.st = append(x.st, ext{idx: i, wakeAt: -1, inAt: -1})
	if p, ok := x.pre[tid]; ok && parent < 0 {
		x.m.Tasks[i].Comm, x.m.Tasks[i].PID = p.comm, p.pid
	}
	x.byTID[tid] = i
	if init == InitSleeping {
		// The empty first burst ends in the sleep the task was in.
		x.m.Tasks[i].Bursts = []Burst{{End: EndBlock}, {}}
		x.st[i].sleeping = true
		x.st[i].blocked = t
	}
	if parent >= 0 && x.m.Tasks[parent].Workload {
		x.m.Tasks[i].Workload = true
	}
	return i
}

func (x *extractor) ident(i int, ev *trace.Event, pid trace.PID, comm string, prio int32) {
	tk := &x.m.Tasks[i]
	tk.Last = ev.Time
	if pid >= 0 {
		tk.PID = pid
	}
	// As in trace.Tasks (which names the rows of every report): a
	// tracepoint's comm only names a task that has no name yet; perf's
	// COMM records and exec rename it. (A kworker's sched_switch says
	// "kworker/0:0" while perf names the thread "kworker/0:0-events".)
	if comm != "" && tk.Comm == "" {
		tk.Comm = comm
	}
	if prio >= 0 {
		tk.Prio = prio
	}
}

// tail is the run time of a running task since its last mark that counts
// into its burst: the time on CPU when the trace has no sched_stat_runtime,
// else nothing (the kernel charges a task's time in sched_stat_runtime,
// emitted right before it leaves the CPU; perf's Runtime column is their
// sum, and bursts must add up to it).
func (x *extractor) tail(s *ext, t int64) int64 {
	if x.sawRT || t <= s.segStart {
		return 0
	}
	return t - s.segStart
}

// consumed returns how far task i is into its current burst at time t.
func (x *extractor) consumed(i int, t int64) int64 {
	s := &x.st[i]
	if s.running && t > s.segStart {
		return s.accum + t - s.segStart
	}
	return s.accum
}

func (x *extractor) event(ev trace.Event) {
	m := x.m
	if m.Start < 0 && ev.CPU < 0 && (ev.Kind == trace.KindFork || ev.Kind == trace.KindComm || ev.Kind == trace.KindExec) {
		// Synthesized at record start (perf's PERF_RECORD_FORK/COMM for
		// tasks that already existed): names only, no fork in the trace.
		m.Recorded.Append(ev)
		tid, comm, pid := ev.TID, ev.Comm, ev.PID
		if ev.Kind == trace.KindFork {
			tid, comm, pid = ev.ChildTID, ev.ChildComm, ev.ChildPID
		}
		p := x.pre[tid]
		if comm != "" {
			p.comm = comm
		}
		if pid >= 0 {
			p.pid = pid
		}
		x.pre[tid] = p
		return
	}
	if m.Start < 0 {
		m.Start = ev.Time
	}
	m.End = ev.Time
	if ev.CPU >= 0 {
		x.cpu(ev.CPU)
	}
	switch ev.Kind {
	case trace.KindSwitch:
		m.Recorded.Append(ev)
		x.switchEv(ev)
	case trace.KindWaking, trace.KindWakeup:
		if ev.Kind == trace.KindWaking {
			x.seenWaking = true
		} else if x.seenWaking {
			m.Recorded.Append(ev)
			return // sched_wakeup beside sched_waking: the waking one counts
		}
		m.Recorded.Append(ev)
		x.wake(ev)
	case trace.KindWakeupNew:
		m.Recorded.Append(ev)
		if _, known := x.byTID[ev.TID]; !known && ev.TID > 0 {
			// No fork event (trace-cmd or ftrace without
			// sched_process_fork): the task waking a new task is its parent.
			parent := ev.WakerTID
			if parent < 0 {
				parent = ev.CurTID
			}
			if p, ok := x.byTID[parent]; ok && parent > 0 && x.st[p].running {
				f := trace.NewEvent(ev.Time, ev.CPU, trace.KindFork)
				f.TID, f.PID, f.ChildTID, f.ChildPID, f.ChildComm = parent, -1, ev.TID, ev.PID, ev.Comm
				x.fork(f)
			}
		}
		i := x.task(ev.TID, ev.Time, ev.TargetCPU, InitRunnable)
		x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
		x.noteWake(i, ev)
	case trace.KindFork:
		m.Recorded.Append(ev)
		x.fork(ev)
	case trace.KindExit:
		m.Recorded.Append(ev)
		if i, ok := x.byTID[ev.TID]; ok {
			x.st[i].dead = true
		}
	case trace.KindMigrate:
		m.Recorded.Append(ev)
	case trace.KindRuntime:
		m.Recorded.Append(ev)
		x.sawRT = true
		// The kernel's own accounting (update_curr) replaces the time on
		// CPU measured from switch timestamps since the last mark, so
		// bursts add up to perf's Runtime column.
		if i, ok := x.byTID[ev.TID]; ok && ev.Runtime > 0 {
			s := &x.st[i]
			switch bs := x.m.Tasks[i].Bursts; {
			case s.running:
				s.accum += ev.Runtime
				s.segStart = max(ev.Time, s.segStart)
				s.rtIn += ev.Runtime
			case s.sleeping && len(bs) >= 2 && bs[len(bs)-2].End == EndBlock:
				// Charged after the switch-out (same timestamp, other
				// order): it belongs to the burst that just ended.
				bs[len(bs)-2].Len += ev.Runtime
			default:
				s.accum += ev.Runtime
			}
		}
	case trace.KindExec, trace.KindComm:
		m.Recorded.Append(ev)
		if i, ok := x.byTID[ev.TID]; ok && ev.Comm != "" {
			m.Tasks[i].Comm = ev.Comm
		}
	}
}

func (x *extractor) fork(ev trace.Event) {
	if ev.ChildTID <= 0 {
		return
	}
	if i, ok := x.byTID[ev.ChildTID]; ok && !x.st[i].dead {
		return // the same fork reported twice (tracepoint and PERF_RECORD_FORK)
	}
	p := x.task(ev.TID, ev.Time, ev.CPU, InitRunnable)
	x.ident(p, &ev, ev.PID, ev.Comm, -1)
	c := x.newTask(ev.ChildTID, ev.Time, ev.CPU, InitForked, p)
	x.m.Tasks[c].PID, x.m.Tasks[c].Comm, x.m.Tasks[c].Prio = ev.ChildPID, ev.ChildComm, x.m.Tasks[p].Prio
	if x.m.WorkloadRoot < 0 && isRecorder(x.m.Tasks[p].Comm) && !isRecorder(ev.ChildComm) || x.m.WorkloadRoot < 0 && x.m.Tasks[p].Comm == "perf" {
		x.m.WorkloadRoot = ev.ChildTID
		x.m.Tasks[c].Workload = true
	}
	b := &x.m.Tasks[p].Bursts[len(x.m.Tasks[p].Bursts)-1]
	b.Actions = append(b.Actions, Action{At: x.consumed(p, ev.Time), Kind: ActFork, Target: c})
	x.m.Stats.Forks++
}

// isRecorder reports whether comm is the recording tool, whose first child
// is the traced command (perf forks "perf-exec", which execs the workload).
func isRecorder(comm string) bool {
	switch path.Base(comm) {
	case "perf", "trace-cmd", "traceview":
		return true
	}
	return false
}

func (x *extractor) switchEv(ev trace.Event) {
	t := ev.Time
	if ev.CPU >= 0 {
		if c := x.cpuCurr[ev.CPU]; c > 0 && c != ev.TID {
			// The task this CPU last switched in left it unseen (lost
			// switch-out): assume it blocked at once.
			if i, ok := x.byTID[c]; ok && x.st[i].running && x.st[i].cpu == ev.CPU {
				s := &x.st[i]
				s.running = false
				x.endBurst(i, EndBlock)
				s.sleeping, s.blocked = true, s.segStart
			}
		}
	}
	if ev.TID > 0 {
		i := x.task(ev.TID, t, ev.CPU, InitRunnable)
		x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
		s := &x.st[i]
		if !s.running {
			// It ran without a recorded switch-in: since before the trace,
			// or the trace lost events (perf's "context switch bugs").
			// It ran at most since the CPU's previous switch.
			from := x.m.Start
			if ev.CPU >= 0 && x.cpuLast[ev.CPU] > 0 {
				from = x.cpuLast[ev.CPU]
			}
			if s.sleeping {
				x.setCause(i, Cause{Kind: CauseExternal, At: from, Inferred: true}, from)
			}
			if from < x.m.Tasks[i].Start {
				x.m.Tasks[i].Start = from
			}
			s.running, s.segStart, s.cpu = true, from, ev.CPU
		}
		if s.running {
			if s.inAt >= 0 && s.cpu == ev.CPU {
				x.ovSum += t - s.inAt - s.rtIn // CPU time of this run charged to no task
				x.ovN++
			}
			s.accum += x.tail(s, t)
			s.running = false
		}
		s.inAt = -1
		switch {
		case ev.PrevState.Runnable():
			s.wakeAt, s.wakeIdle = t, false // waits for the CPU from now (perf's R semantics)
			s.pp = 0
			if lw := x.lastWake[ev.CPU]; ev.CPU >= 0 && lw.waker == i && t-lw.t <= PingPongWindow {
				if n, ok := x.byTID[ev.NextTID]; ok && n == lw.wakee {
					s.pp, s.ppAt = n+1, t // preempted by the task it just woke
				}
			}
		case ev.PrevState&(trace.StateDead|trace.StateZombie) != 0 || s.dead:
			x.endBurst(i, EndExit)
			delete(x.byTID, ev.TID)
			x.m.Stats.Exits++
		default:
			x.endBurst(i, EndBlock)
			s.sleeping, s.blocked = true, t
		}
	}
	if ev.NextTID > 0 {
		i := x.task(ev.NextTID, t, ev.CPU, InitRunnable)
		x.ident(i, &ev, ev.NextPID, ev.NextComm, ev.NextPrio)
		s := &x.st[i]
		if s.pp > 0 {
			x.pingPong(i, ev)
		}
		if s.sleeping {
			// Switched in without a recorded wakeup: an external event now.
			x.setCause(i, Cause{Kind: CauseExternal, At: t, Inferred: true}, t)
		}
		if s.wakeAt >= 0 {
			d := t - s.wakeAt
			next := s.wakeCPU == ev.CPU && x.cpuN[ev.CPU] == s.wakeN // the CPU's very next switch
			switch {
			case next && s.wakeIdle:
				x.idle = append(x.idle, d)
			case next && ev.TID > 0 && ev.PrevState.Runnable():
				x.preempt = append(x.preempt, d) // it preempted the running task
			}
			s.wakeAt = -1
		}
		if s.running && s.cpu != ev.CPU {
			s.accum += x.tail(s, t) // switched in elsewhere without a switch-out here
		}
		s.running, s.segStart, s.cpu = true, t, ev.CPU
		s.inAt, s.rtIn = t, 0
		if ev.CPU >= 0 && ev.CPU < policies.MaxCPUs {
			x.m.Tasks[i].ranOn |= 1 << uint(ev.CPU)
			x.m.Tasks[i].switchIn++
		}
	}
	if ev.CPU >= 0 {
		x.cpuCurr[ev.CPU] = ev.NextTID
		x.cpuLast[ev.CPU] = t
		x.cpuN[ev.CPU]++
	}
}

// PingPongWindow: a task preempted by the task it woke at most this many ns
// before, that gets its CPU back when that task blocks there within this
// many ns (a quick reply, not independent work), is taken to have waited
// for it (see pingPong).
const PingPongWindow = 100_000

// pingPong handles the switch back to task i after the task it woke
// preempted it: when that task just blocked on the same CPU and handed the
// CPU straight back, i evidently waited for it (sched-pipe's writer waits
// for the reader's reply, which it finds ready and so never blocks). The
// preemption becomes an inferred blocking point of i, ended by the wakee
// at the end of the burst it just finished; otherwise a faster schedule
// would let i run ahead of the data it consumes.
func (x *extractor) pingPong(i int, ev trace.Event) {
	s := &x.st[i]
	w := s.pp - 1
	s.pp = 0
	ws := &x.st[w]
	if ev.TID <= 0 || x.byTID[ev.TID] != w || !ws.sleeping || ev.PrevState.Runnable() || s.running ||
		ev.Time-s.ppAt > PingPongWindow {
		return
	}
	wb := x.m.Tasks[w].Bursts
	if len(wb) < 2 || wb[len(wb)-2].End != EndBlock {
		return
	}
	x.endBurst(i, EndBlock)
	ib := x.m.Tasks[i].Bursts
	ib[len(ib)-2].Wake = Cause{Kind: CauseDependency, Waker: w, Inferred: true}
	ib[len(ib)-2].Slept = ev.Time - s.ppAt
	b := &wb[len(wb)-2]
	b.Actions = append(b.Actions, Action{At: b.Len, Kind: ActWake, Target: i, Block: len(ib) - 2})
	x.m.Stats.PingPongs++
}

func (x *extractor) endBurst(i int, end EndKind) {
	s := &x.st[i]
	bs := &x.m.Tasks[i].Bursts
	b := &(*bs)[len(*bs)-1]
	b.Len, b.End = s.accum, end
	for k := range b.Actions {
		if b.Actions[k].At > b.Len {
			b.Actions[k].At = b.Len
		}
	}
	s.accum = 0
	if end == EndBlock {
		*bs = append(*bs, Burst{})
	}
}

// setCause records what ended task i's current block and starts its next
// burst's bookkeeping.
func (x *extractor) setCause(i int, c Cause, t int64) {
	s := &x.st[i]
	bs := x.m.Tasks[i].Bursts
	b := &bs[len(bs)-2] // the burst before the block (endBurst appended the next one)
	b.Wake = c
	b.Slept = t - s.blocked
	s.sleeping = false
}

func (x *extractor) wake(ev trace.Event) {
	t := ev.Time
	i := x.task(ev.TID, t, ev.CPU, InitSleeping)
	x.ident(i, &ev, ev.PID, ev.Comm, ev.Prio)
	s := &x.st[i]
	if !s.sleeping {
		return // already runnable: nothing ends here
	}
	waker := ev.WakerTID
	inferred := waker < 0
	if waker < 0 {
		waker = ev.CurTID
	}
	w, known := x.byTID[waker]
	var c Cause
	switch {
	case x.m.Tasks[i].Init == InitSleeping && len(x.m.Tasks[i].Bursts) == 2 && x.m.Tasks[i].Bursts[0].Len == 0 && s.blocked == x.m.Tasks[i].Start:
		// Asleep since before the trace: when it slept is unknown.
		c = Cause{Kind: CauseExternal, At: t, Inferred: true}
	case waker > 0 && known && waker != ev.TID && x.st[w].running && ev.FromIRQ != trace.Yes:
		bs := x.m.Tasks[w].Bursts
		bs[len(bs)-1].Actions = append(bs[len(bs)-1].Actions,
			Action{At: x.consumed(w, t), Kind: ActWake, Target: i, Block: len(x.m.Tasks[i].Bursts) - 2})
		c = Cause{Kind: CauseDependency, Waker: w, Inferred: inferred}
		if ev.CPU >= 0 && int(ev.CPU) < len(x.lastWake) {
			x.lastWake[ev.CPU] = wakeRec{waker: w, wakee: i, t: t}
		}
	default:
		c = Cause{Kind: CauseTimer, Delay: t - s.blocked, Inferred: ev.FromIRQ != trace.Yes}
	}
	x.setCause(i, c, t)
	x.noteWake(i, ev)
}

func (x *extractor) noteWake(i int, ev trace.Event) {
	s := &x.st[i]
	s.wakeAt = ev.Time
	tc := ev.TargetCPU
	s.wakeIdle = tc >= 0 && int(tc) < len(x.cpuCurr) && x.cpuCurr[tc] == 0
	s.wakeCPU = tc
	if tc >= 0 && int(tc) < len(x.cpuN) {
		s.wakeN = x.cpuN[tc]
	}
}

func (x *extractor) finish() {
	m := x.m
	if m.Start < 0 {
		m.Start = 0
	}
	for i := range x.st {
		s := &x.st[i]
		tk := &m.Tasks[i]
		bs := tk.Bursts
		last := &bs[len(bs)-1]
		switch {
		case s.running:
			s.accum += x.tail(s, m.End)
			s.running = false
			x.endBurst(i, EndTrace)
		case s.sleeping:
			// The block after the previous burst never ended: drop the
			// empty trailing burst.
			if len(bs) > 1 && last.Len == 0 && len(last.Actions) == 0 {
				tk.Bursts = bs[:len(bs)-1]
				tk.Bursts[len(tk.Bursts)-1].Wake = Cause{Kind: CauseNever}
			} else {
				last.End = EndBlock
				last.Wake = Cause{Kind: CauseNever}
			}
		case len(bs) > 0 && (last.End != EndExit || last.Len == 0 && s.accum > 0):
			if last.End != EndExit {
				last.Len = s.accum
				last.End = EndTrace
			}
		}
	}
	if m.WorkloadRoot < 0 {
		// The recorder's command line: "perf sched record ... -- CMD ARGS";
		// the traced command is the first task named after CMD.
		args := m.Meta.Cmdline
		for k := 0; k+1 < len(args); k++ {
			if args[k] != "--" {
				continue
			}
			cmd := path.Base(args[k+1])
			for i := range m.Tasks {
				if c := m.Tasks[i].Comm; c == cmd || len(cmd) > 15 && c == cmd[:15] {
					m.WorkloadRoot = m.Tasks[i].TID
					m.Tasks[i].Workload = true
					break
				}
			}
			break
		}
	}
	if m.WorkloadRoot < 0 {
		x.guessRoot()
	}
	// Workload membership through forks (parents precede children).
	for i := range m.Tasks {
		if p := m.Tasks[i].Parent; p >= 0 && m.Tasks[p].Workload {
			m.Tasks[i].Workload = true
		}
	}
	x.inferPinning()
	st := &m.Stats
	st.Tasks = len(m.Tasks)
	for _, tk := range m.Tasks {
		st.Bursts += len(tk.Bursts)
		for _, b := range tk.Bursts {
			if b.End != EndBlock {
				continue
			}
			st.BlockingPoints++
			switch b.Wake.Kind {
			case CauseDependency:
				st.Dependencies++
			case CauseTimer:
				st.Timers++
			case CauseExternal:
				st.External++
			case CauseNever:
				st.Never++
			}
			if b.Wake.Inferred {
				st.Inferred++
			}
		}
	}
	m.IdleExit = median(x.idle)
	m.WakePreempt = median(x.preempt)
	if x.sawRT && x.ovN > 0 && x.ovSum > 0 {
		m.SwitchCost = x.ovSum / x.ovN
	}
}

// guessRoot picks the traced command when the trace does not name it (no
// recorder fork, no command line, e.g. trace-cmd extract or raw ftrace): the
// task forked inside the trace, by a task that was not itself forked inside
// it, whose process tree used the most CPU time.
func (x *extractor) guessRoot() {
	m := x.m
	cpu := make([]int64, len(m.Tasks))
	for i := len(m.Tasks) - 1; i >= 0; i-- { // children follow parents
		for _, b := range m.Tasks[i].Bursts {
			cpu[i] += b.Len
		}
		if p := m.Tasks[i].Parent; p >= 0 {
			cpu[p] += cpu[i]
		}
	}
	best := -1
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Init != InitForked || tk.Parent < 0 || m.Tasks[tk.Parent].Init == InitForked {
			continue
		}
		if best < 0 || cpu[i] > cpu[best] {
			best = i
		}
	}
	if best >= 0 {
		m.WorkloadRoot = m.Tasks[best].TID
		m.Tasks[best].Workload = true
	}
}

// inferPinning gives the traced command's tasks the affinity of the single
// CPU they all ran on, when the trace has several CPUs and enough
// switch-ins to tell (a taskset-pinned workload; the trace cannot say).
func (x *extractor) inferPinning() {
	m := x.m
	if m.NrCPUs < 2 || m.WorkloadRoot < 0 {
		return
	}
	var on policies.CPUSet
	n := 0
	for i := range m.Tasks {
		if m.Tasks[i].Workload {
			on |= m.Tasks[i].ranOn
			n += m.Tasks[i].switchIn
		}
	}
	if on.Count() != 1 || n < PinMinSwitches {
		return
	}
	for i := range m.Tasks {
		if m.Tasks[i].Workload {
			m.Tasks[i].Affinity = on
			m.Stats.PinnedTasks++
		}
	}
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
