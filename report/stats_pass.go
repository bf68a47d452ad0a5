package report

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/traceview/traceview/trace"
)

// This file holds the schedule reconstruction shared by stats, the pprof and
// Perfetto exports and the HTML report: one streaming pass over a
// trace.Event stream that follows every task through the states running,
// runnable and sleeping, and tells its hooks about each scheduling delay,
// CPU slice, task-state interval, runqueue-length change and wakeup.
//
// The delay rules are perf sched latency's (tools/perf/builtin-sched.c,
// perf 6.12: latency_switch_event, latency_wakeup_event,
// add_sched_out_event, add_sched_in_event), so the delays summed here equal
// the latency table's Sum delay:
//   - a sched_switch whose prev_state is runnable ('R' or 'R+') starts a
//     delay at the switch-out itself (reason: preempted);
//   - a sched_waking (or sched_wakeup when the trace has no sched_waking,
//     and sched_wakeup_new) of a task that is sleeping or not seen yet starts
//     a delay at the wakeup (reason: the waker); a wakeup of a task that is
//     already runnable or running is ignored, as perf ignores it;
//   - the delay ends when the task is switched in;
//   - when a CPU's events show a task running there that the CPU's last
//     sched_switch did not switch in (the trace lacks switches: on these
//     VMs, switches out of idle), the task's open delay ends at its first
//     sched_stat_runtime on that CPU, at the event time minus the runtime
//     it reports (the kernel restarts that count at the switch-in:
//     kernel/sched/fair.c update_curr / set_next_entity, Linux 6.x), never
//     before the delay began nor before the CPU's last recorded switch.
//     This is ComputeLatency's default correction of perf, so the sums stay
//     equal to the latency table's.

// statsRunState is where a task is in the reconstruction.
type statsRunState uint8

const (
	statsUnknown  statsRunState = iota // not seen yet
	statsRunning                       // on a CPU
	statsRunnable                      // on a runqueue, waiting for a CPU
	statsSleeping                      // blocked (PrevState says how)
	statsDead                          // exited
)

// statsTask is one task identity of the reconstruction.
type statsTask struct {
	TID  trace.TID
	PID  trace.PID
	Comm string // latest name (perf names a thread by its latest comm)

	state     statsRunState
	since     int64     // ns, start of the current state
	cpu       trace.CPU // CPU running on, or whose runqueue holds the task
	preempted bool      // runnable because switched out while runnable
	waker     trace.TID // runnable because woken by this task (-1 unknown)
	sleep     trace.TaskState

	// Accumulated over the trace.
	StatRuntime int64 // ns, sum of sched_stat_runtime
	OnCPU       int64 // ns, time between switch-in and switch-out
	Switches    int64 // times switched in
	Migrations  int64 // sched_migrate_task events

	lastOff int64 // ns, end of the task's last reported interval
}

// statsDelay is one measured scheduling delay: Task waited on a runqueue from
// Start to End (ns) and was then switched in on CPU. Preempted tells a delay
// after a preemption from one after a wakeup by Waker (-1: unknown waker,
// 0: an interrupt on an idle CPU).
type statsDelay struct {
	Task       *statsTask
	Start, End int64
	CPU        trace.CPU
	Preempted  bool
	Waker      *statsTask // nil when unknown
}

// statsHooks are the callbacks of a pass; nil hooks are skipped.
type statsHooks struct {
	// Delay is called at each switch-in that ends a scheduling delay
	// (including zero-length ones).
	Delay func(d statsDelay)
	// Slice is called when a task (never the idle task) leaves CPU after
	// running from start to end.
	Slice func(cpu trace.CPU, t *statsTask, start, end int64)
	// State is called when a task leaves a state it entered at start: one of
	// statsRunnable (with preempted/waker as in statsDelay) or statsSleeping
	// (with the sleep state). Running intervals go to Slice.
	State func(t *statsTask, st statsRunState, start, end int64, preempted bool, waker *statsTask, sleep trace.TaskState)
	// Wakeup is called for each wakeup that makes a task runnable.
	Wakeup func(at int64, waker, wakee *statsTask, target trace.CPU)
	// Runqueue is called when the number of tasks waiting on cpu's runqueue
	// (runnable, not running) changes to n at time at.
	Runqueue func(cpu trace.CPU, at int64, n int)
	// Migrate is called for each sched_migrate_task.
	Migrate func(at int64, t *statsTask, from, to trace.CPU)
}

// statsPass runs the reconstruction. Use newStatsPass, feed events with
// observe (or run), then finish.
type statsPass struct {
	hooks statsHooks

	tasks   map[trace.TID]*statsTask
	All     []*statsTask // every identity, in order of first appearance
	curr    map[trace.CPU]*statsTask
	currAt  map[trace.CPU]int64 // ns, time of the last switch seen on the CPU
	rqLen   map[trace.CPU]int
	rqDirty []trace.CPU
	// evCurr is the task the CPU's events say is current (-1: none yet);
	// pending marks a CPU whose current task changed without a recorded
	// sched_switch, until its first sched_stat_runtime dates the switch-in.
	evCurr  map[trace.CPU]trace.TID
	pending map[trace.CPU]bool
	cpuOff  map[trace.CPU]int64 // end of the CPU's last reported run
	haveWak bool                // the trace has sched_waking: ignore sched_wakeup

	First, Last int64 // ns, times of the first and last event
	haveFirst   bool
	// SchedFirst and SchedLast are the times (ns) of the first and last
	// scheduler tracepoint event (isSchedEvent); see Span.
	SchedFirst, SchedLast int64
	haveSched             bool
	Events                int64
	CPUs                  map[trace.CPU]bool // CPUs that recorded events
	// BusyOnCPU is per-CPU time (ns) spent running a non-idle task,
	// between switches seen on that CPU.
	BusyOnCPU map[trace.CPU]int64
	// SeenFrom is, per CPU, the first time its state is known: its first
	// sched_switch, or the start of a run dated before it (a missing
	// switch-in recovered from sched_stat_runtime). Utilization before it
	// is unknown.
	SeenFrom map[trace.CPU]int64
	// HaveRuntime: the trace carries sched_stat_runtime events.
	HaveRuntime bool
}

func newStatsPass(h statsHooks) *statsPass {
	return &statsPass{
		hooks:     h,
		tasks:     map[trace.TID]*statsTask{},
		curr:      map[trace.CPU]*statsTask{},
		currAt:    map[trace.CPU]int64{},
		rqLen:     map[trace.CPU]int{},
		evCurr:    map[trace.CPU]trace.TID{},
		pending:   map[trace.CPU]bool{},
		cpuOff:    map[trace.CPU]int64{},
		CPUs:      map[trace.CPU]bool{},
		BusyOnCPU: map[trace.CPU]int64{},
		SeenFrom:  map[trace.CPU]int64{},
	}
}

// task returns the live identity of tid, creating it on first sight.
func (p *statsPass) task(tid trace.TID, pid trace.PID, comm string) *statsTask {
	if tid < 0 {
		return nil
	}
	t := p.tasks[tid]
	if t == nil || t.state == statsDead {
		t = &statsTask{TID: tid, PID: pid, Comm: comm, waker: -1, cpu: -1}
		if tid == 0 {
			t.PID, t.Comm = 0, "swapper"
		}
		p.tasks[tid] = t
		p.All = append(p.All, t)
	}
	if t.PID < 0 && pid >= 0 {
		t.PID = pid
	}
	if t.Comm == "" && comm != "" {
		t.Comm = comm
	}
	return t
}

func (p *statsPass) setRunqueue(cpu trace.CPU, at int64, delta int) {
	if cpu < 0 {
		return
	}
	n := p.rqLen[cpu] + delta
	if n < 0 {
		n = 0
	}
	p.rqLen[cpu] = n
	for _, c := range p.rqDirty {
		if c == cpu {
			return
		}
	}
	p.rqDirty = append(p.rqDirty, cpu)
}

// flushRunqueue reports the runqueue lengths an event changed, once per
// CPU, so that a switch that queues prev and takes next from the same
// runqueue shows no transient spike.
func (p *statsPass) flushRunqueue(at int64) {
	for _, c := range p.rqDirty {
		if p.hooks.Runqueue != nil {
			p.hooks.Runqueue(c, at, p.rqLen[c])
		}
	}
	p.rqDirty = p.rqDirty[:0]
}

// leaveState closes t's current runnable or sleeping interval at end.
func (p *statsPass) leaveState(t *statsTask, end int64) {
	switch t.state {
	case statsRunnable:
		p.setRunqueue(t.cpu, end, -1)
		p.emitState(t, statsRunnable, end)
	case statsSleeping:
		p.emitState(t, statsSleeping, end)
	}
}

// emitState reports t's runnable or sleeping interval from t.since to end,
// clipped so that no two intervals of a task overlap.
func (p *statsPass) emitState(t *statsTask, st statsRunState, end int64) {
	start := max(t.since, t.lastOff)
	if end < start {
		return
	}
	t.lastOff = end
	if p.hooks.State == nil {
		return
	}
	if st == statsRunnable {
		p.hooks.State(t, st, start, end, t.preempted, p.lookup(t.waker), 0)
	} else {
		p.hooks.State(t, st, start, end, false, nil, t.sleep)
	}
}

// emitSlice accounts t's run on cpu from start to end, clipped so that no
// two runs of a CPU or of a task overlap (a trace that lacks switches can
// otherwise claim two tasks on a CPU at once).
func (p *statsPass) emitSlice(cpu trace.CPU, t *statsTask, start, end int64) {
	start = max(start, t.lastOff, p.cpuOff[cpu])
	if end < start {
		return
	}
	t.lastOff, p.cpuOff[cpu] = end, end
	if from, ok := p.SeenFrom[cpu]; !ok || start < from {
		p.SeenFrom[cpu] = start
	}
	t.OnCPU += end - start
	p.BusyOnCPU[cpu] += end - start
	if p.hooks.Slice != nil {
		p.hooks.Slice(cpu, t, start, end)
	}
}

func (p *statsPass) lookup(tid trace.TID) *statsTask {
	if tid < 0 {
		return nil
	}
	return p.tasks[tid]
}

// isSchedEvent reports whether events of kind k are scheduler
// tracepoints only: sched_switch, sched_waking, sched_wakeup,
// sched_wakeup_new, sched_migrate_task, sched_stat_runtime, or the notice
// that such events were lost (the tracepoints were on). Fork, exec,
// exit and comm events may instead be perf's bookkeeping records
// (PERF_RECORD_FORK/COMM/EXIT), which perf writes from the start of `perf
// record`, before the sched tracepoints are enabled, and for tasks alive
// before it (time 0); they are not counted.
func isSchedEvent(k trace.Kind) bool {
	switch k {
	case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime, trace.KindLost:
		return true
	}
	return false
}

// Span returns the time span of the trace in ns: from the first to the
// last scheduler tracepoint event (isSchedEvent), the window in which the
// scheduler was observed; perf's fork/comm/exit records written before
// the tracepoints were enabled do not stretch it. A trace without any
// such event spans its first to last event of nonzero time.
func (p *statsPass) Span() (from, to int64) {
	if p.haveSched {
		return p.SchedFirst, p.SchedLast
	}
	return p.First, p.Last
}

// observe feeds one event.
func (p *statsPass) observe(e *trace.Event) {
	// Records synthesized at record start (perf's COMM and FORK of the
	// tasks already running) may carry time 0: the trace starts at the
	// first real timestamp.
	synth := e.Time == 0 && (e.Kind == trace.KindComm || e.Kind == trace.KindFork || e.Kind == trace.KindExec || e.Kind == trace.KindExit)
	if !synth && (!p.haveFirst || e.Time < p.First) {
		p.First, p.haveFirst = e.Time, true
	}
	p.Events++
	if e.Time > p.Last {
		p.Last = e.Time
	}
	if isSchedEvent(e.Kind) {
		if !p.haveSched || e.Time < p.SchedFirst {
			p.SchedFirst = e.Time
		}
		p.SchedLast, p.haveSched = max(p.SchedLast, e.Time), true
	}
	if e.CPU >= 0 {
		p.CPUs[e.CPU] = true
	}
	defer p.flushRunqueue(e.Time)
	p.evidence(e)
	switch e.Kind {
	case trace.KindSwitch:
		p.doSwitch(e)
	case trace.KindWaking:
		p.haveWak = true
		p.doWakeup(e)
	case trace.KindWakeup:
		if !p.haveWak {
			p.doWakeup(e)
		}
	case trace.KindWakeupNew:
		p.doWakeup(e)
	case trace.KindMigrate:
		t := p.task(e.TID, e.PID, e.Comm)
		if t == nil {
			return
		}
		t.Migrations++
		if t.state == statsRunnable && t.cpu != e.DestCPU {
			p.setRunqueue(t.cpu, e.Time, -1)
			t.cpu = e.DestCPU
			p.setRunqueue(t.cpu, e.Time, +1)
		}
		if p.hooks.Migrate != nil {
			p.hooks.Migrate(e.Time, t, e.OrigCPU, e.DestCPU)
		}
	case trace.KindRuntime:
		if t := p.task(e.TID, e.PID, e.Comm); t != nil {
			p.HaveRuntime = true
			t.StatRuntime += e.Runtime
		}
	case trace.KindFork:
		p.task(e.TID, e.PID, e.Comm)
		if e.ChildTID >= 0 {
			if old := p.tasks[e.ChildTID]; old != nil && old.state != statsDead && old.state != statsUnknown {
				p.leaveState(old, e.Time) // pid reuse without a seen exit
				old.state = statsDead
			}
			p.task(e.ChildTID, e.ChildPID, e.ChildComm)
		}
	case trace.KindExec, trace.KindComm:
		if t := p.task(e.TID, e.PID, e.Comm); t != nil && e.Comm != "" && e.TID != 0 {
			t.Comm = e.Comm
		}
	case trace.KindExit:
		// The task still runs until its last switch-out (prev_state X or
		// Z); that switch ends its identity.
		p.task(e.TID, e.PID, e.Comm)
	}
}

// evidence compares the task e was recorded under (for a sched_switch:
// prev) with the task the CPU's events last showed, and dates a missing
// switch-in at the task's first sched_stat_runtime (see the file comment).
func (p *statsPass) evidence(e *trace.Event) {
	switch e.Kind {
	case trace.KindLost, trace.KindComm, trace.KindExec, trace.KindFork, trace.KindExit:
		return // not recorded in the context of the CPU's current task
	}
	c := e.CPU
	who := e.CurTID
	if e.Kind == trace.KindSwitch {
		who = e.TID
	}
	if c < 0 || who < 0 {
		return
	}
	if cur, ok := p.evCurr[c]; !ok || cur != who {
		p.evCurr[c] = who
		p.pending[c] = true
	}
	if !p.pending[c] || e.Kind != trace.KindRuntime || e.TID != who {
		return
	}
	p.pending[c] = false
	t := p.tasks[who]
	if t == nil || t.state != statsRunnable || t.since > e.Time {
		return
	}
	in := e.Time - e.Runtime
	in = max(in, t.since)
	if last, ok := p.currAt[c]; ok {
		in = max(in, last)
	}
	// The CPU's task by the last switch stopped running by then.
	if y := p.curr[c]; y != nil && y != t {
		if start, ok := p.currAt[c]; ok {
			if y.state == statsRunning && y.cpu == c {
				start = y.since
			}
			p.emitSlice(c, y, start, in)
		}
		// y keeps its running state (ComputeLatency's rule: its next
		// wakeup is ignored, as perf would) but holds no CPU any more.
		if y.state == statsRunning && y.cpu == c {
			y.cpu = -1
		}
	}
	p.leaveState(t, in)
	if p.hooks.Delay != nil {
		p.hooks.Delay(statsDelay{Task: t, Start: t.since, End: in, CPU: c, Preempted: t.preempted, Waker: p.lookup(t.waker)})
	}
	t.state, t.since, t.cpu = statsRunning, in, c
	p.curr[c] = t
	if _, ok := p.currAt[c]; ok {
		p.currAt[c] = in
	}
}

func (p *statsPass) doSwitch(e *trace.Event) {
	c := e.CPU
	last, seen := p.currAt[c]
	if from, ok := p.SeenFrom[c]; !ok || e.Time < from {
		p.SeenFrom[c] = e.Time
	}
	prev := p.task(e.TID, e.PID, e.Comm)
	if prev != nil && prev.TID != 0 {
		// On the first switch seen on a CPU the run started before the
		// trace: its length is unknown and not counted.
		switch {
		case prev.state == statsRunning && prev.cpu == c:
			p.emitSlice(c, prev, prev.since, e.Time)
		case prev.state == statsRunnable:
			// It ran without a switch-in the trace shows: at the latest
			// from the CPU's last switch on, not before it became
			// runnable. No delay is measured (ComputeLatency drops it).
			in := prev.since
			if seen {
				in = max(in, last)
			}
			p.leaveState(prev, min(in, e.Time))
			if seen {
				p.emitSlice(c, prev, in, e.Time)
			}
		case seen:
			p.emitSlice(c, prev, last, e.Time)
		}
		ps := e.PrevState
		prev.since = e.Time
		prev.cpu = c
		switch {
		case ps&(trace.StateDead|trace.StateZombie) != 0:
			prev.state = statsDead
		case ps.Runnable():
			prev.state = statsRunnable
			prev.preempted = true
			prev.waker = -1
			p.setRunqueue(c, e.Time, +1)
		default:
			prev.state = statsSleeping
			prev.sleep = ps
		}
	}
	next := p.task(e.NextTID, e.NextPID, e.NextComm)
	if next != nil && next.TID != 0 {
		// A switch-in before the wakeup (events out of order) measures
		// nothing, as perf's THREAD_IGNORE atom.
		if next.state == statsRunnable && e.Time >= next.since {
			p.leaveState(next, e.Time)
			if p.hooks.Delay != nil {
				p.hooks.Delay(statsDelay{Task: next, Start: next.since, End: e.Time, CPU: c,
					Preempted: next.preempted, Waker: p.lookup(next.waker)})
			}
		} else {
			p.leaveState(next, e.Time)
		}
		if next.state == statsRunning && next.cpu != c {
			// Still running elsewhere by our bookkeeping (a lost switch-out):
			// drop that CPU's claim.
			if p.curr[next.cpu] == next {
				delete(p.curr, next.cpu)
			}
		}
		next.state = statsRunning
		next.since = e.Time
		next.cpu = c
		next.Switches++
		p.curr[c] = next
	} else {
		delete(p.curr, c)
	}
	p.currAt[c] = e.Time
	p.evCurr[c] = e.NextTID
	p.pending[c] = false
}

func (p *statsPass) doWakeup(e *trace.Event) {
	t := p.task(e.TID, e.PID, e.Comm)
	if t == nil || t.TID == 0 {
		return
	}
	if t.state != statsSleeping && t.state != statsUnknown {
		return // already runnable or running: perf ignores it too
	}
	if t.state == statsSleeping && t.since > e.Time {
		return // out of order (perf's nr_unordered_timestamps)
	}
	p.leaveState(t, e.Time)
	wtid := e.WakerTID
	if wtid < 0 {
		wtid = e.CurTID
	}
	waker := p.lookup(wtid)
	if waker == nil && wtid >= 0 {
		waker = p.task(wtid, e.CurPID, "")
	}
	t.state = statsRunnable
	t.since = e.Time
	t.preempted = false
	t.waker = wtid
	t.cpu = e.TargetCPU
	if t.cpu < 0 {
		t.cpu = e.CPU
	}
	p.setRunqueue(t.cpu, e.Time, +1)
	if p.hooks.Wakeup != nil {
		p.hooks.Wakeup(e.Time, waker, t, t.cpu)
	}
}

// run drains src into the pass.
func (p *statsPass) run(src trace.Source) error {
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading events: %w", err)
		}
		p.observe(&e)
	}
}

// finish closes every open interval at the end of the trace (Span), so
// states and slices reach it.
func (p *statsPass) finish() {
	_, end := p.Span()
	for _, t := range p.All {
		switch t.state {
		case statsRunnable, statsSleeping:
			p.leaveState(t, end)
			t.state = statsUnknown
		}
	}
	p.rqDirty = p.rqDirty[:0] // the trace ends, not the runqueues
	cpus := make([]trace.CPU, 0, len(p.curr))
	for c := range p.curr {
		cpus = append(cpus, c)
	}
	slices.Sort(cpus)
	for _, c := range cpus {
		t := p.curr[c]
		if t == nil || t.state != statsRunning || t.cpu != c {
			continue
		}
		if _, ok := p.currAt[c]; ok {
			p.emitSlice(c, t, t.since, end)
		}
	}
}

// statsProcessName returns the name of t's process: the comm of its thread
// group leader when seen, else t's own comm.
func (p *statsPass) processName(t *statsTask) string {
	if t.PID >= 0 && trace.TID(t.PID) != t.TID {
		if l := p.tasks[trace.TID(t.PID)]; l != nil && l.Comm != "" {
			return l.Comm
		}
	}
	return t.Comm
}
