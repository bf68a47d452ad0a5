package perfcompat

import (
	"errors"
	"fmt"
	"io"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// LatencyOptions select the variant of perf sched latency's state machine
// that Latency runs.
type LatencyOptions struct {
	// CPUGiven is perf's -C/--CPU: trust every wakeup (even of a task
	// believed runnable) and reset the task's delay at each
	// sched_migrate_task. Like perf, it does not filter events by CPU.
	CPUGiven bool
	// Corrected leaves out what perf gets wrong: no 0 ns delay counted at
	// the first switch-in of a task not seen before, and a delay whose
	// switch-in the trace lacks recovered from the task's first
	// sched_stat_runtime on its CPU (see recoverDelay). false reproduces
	// perf 6.12's numbers exactly.
	Corrected bool
	// Wakeups chooses the wakeup events that start a delay.
	Wakeups schedule.WakeupSource
	// KeepSamples keeps every delay in its task's Delays.Samples.
	KeepSamples bool
}

// LatencyAtom is perf's last work atom of a task (all perf sched latency
// reads of the list): its state, when it was switched out and when its
// delay started.
type LatencyAtom struct {
	state    atomState
	outTime  int64 // sched_out_time
	wakeTime int64 // wake_up_time
}

// atomState follows perf's enum thread_state (builtin-sched.c).
type atomState uint8

const (
	atomNone     atomState = iota // no atom yet
	atomSleeping                  // switched out not runnable; waiting for a wakeup
	atomWaitCPU                   // runnable, delay running since wake
	atomSchedIn                   // switched in (delay measured or not)
	atomIgnore                    // perf's THREAD_IGNORE: switch-in before the wakeup
)

// LatencyRun is what Latency measured: perf's thread objects and their
// tasks (Tracker), and the counters of perf's state machine.
type LatencyRun struct {
	Tracker LatencyTracker[LatencyAtom]
	// Timestamps and Unordered are perf's nr_timestamps (wakeups of tasks
	// it believed asleep, plus migrations with -C) and
	// nr_unordered_timestamps.
	Timestamps, Unordered int64
	// Dropped: delays that stayed open (a wakeup or preemption seen, the
	// switch-in never) and so are not counted. Unwoken: tasks switched in
	// (or seen running) after they were last seen going to sleep, with no
	// recorded wakeup in between. Recovered: delays whose switch-in the
	// trace lacks, recovered (Corrected only).
	Dropped, Unwoken, Recovered int64
	// Wakeups: the sched_waking, sched_wakeup and sched_wakeup_new events
	// read.
	Wakeups int64

	opts    LatencyOptions
	pending []bool // per CPU: its current task's switch-in is missing; recover its delay at its first runtime event
}

// Latency reads src to its end through perf 6.12's latency state machine
// (tools/perf/builtin-sched.c: latency_switch_event, latency_wakeup_event,
// latency_runtime_event, latency_migrate_task_event) and returns what it
// measured. It does not close src. The error is the source's first non-EOF
// error, wrapped with the number of events read before it.
func Latency(src trace.Source, opts LatencyOptions) (*LatencyRun, error) {
	m := &LatencyRun{opts: opts}
	m.Tracker.Wakeups = opts.Wakeups
	// perf sched latency ignores exits, and migrations without -C:
	// readers that can leave them out save their decoding.
	if opts.CPUGiven {
		trace.SkipKinds(src, trace.KindExit)
	} else {
		trace.SkipKinds(src, trace.KindExit, trace.KindMigrate)
	}
	// perf names a task from its thread table, which PERF_RECORD_FORK and
	// _COMM build (util/machine.c: machine__process_fork_event gives a
	// child its parent's name), not from the sched_process_fork
	// tracepoint, which a `perf record -C` recording or lost events may
	// lack while the record is there: a child named by its fork alone
	// printed ":8556:8556" where perf printed "python3:8556".
	trace.UseTaskRecords(src)
	if !opts.Corrected {
		trace.KeepRepeats(src) // perf reads a record written twice twice
	}
	pf := trace.Prefetch(src, nil)
	for {
		e, err := pf.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return m, nil
			}
			return nil, fmt.Errorf("after %d events: %w", m.Tracker.Counts.Events, err)
		}
		m.event(e)
	}
}

func (m *LatencyRun) event(e *trace.Event) {
	st := m.Tracker.Event(e)
	var pending *bool
	if c := st.CPU; c != nil {
		for int(e.CPU) >= len(m.pending) {
			m.pending = append(m.pending, false)
		}
		pending = &m.pending[e.CPU]
		if st.Moved {
			*pending = m.opts.Corrected
			if th := m.Tracker.Lookup(st.Runs); th != nil && th.Task != nil && th.Task.X.state == atomSleeping {
				m.Unwoken++ // running, but neither wakeup nor switch-in recorded
			}
		}
		if *pending && e.CurTID >= 0 && e.Kind == trace.KindRuntime && e.TID == c.Curr {
			*pending = false
			m.recoverDelay(e, c)
		}
	}
	switch e.Kind {
	case trace.KindSwitch:
		if pending != nil {
			*pending = false
		}
		m.switchEvent(e, &st)
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		m.Wakeups++
		if st.Task != nil {
			m.wakeup(e, st.Task, st.Created)
		}
	case trace.KindRuntime:
		if st.Task != nil {
			m.runtime(e, st.Task, st.Created)
		}
	case trace.KindMigrate:
		m.migrate(e)
	}
}

// recoverDelay closes the open delay of the task of sched_stat_runtime event
// e, whose switch-in onto CPU c the trace lacks. The event reports the CPU
// time since the task's exec_start, which set_next_entity ->
// update_stats_curr_start set when the task was picked (kernel/sched/fair.c,
// Linux 6.x), in rq_clock_task time that excludes IRQ and steal time: so the
// switch-in was at or before e.Time - Runtime. The switch-in is taken there,
// but never before the wakeup nor before the CPU's last recorded switch; the
// delay is thus an upper bound of the true one, tight to the IRQ and steal
// time of that first run.
func (m *LatencyRun) recoverDelay(e *trace.Event, c *LatencyCPU) {
	th := m.Tracker.Lookup(e.TID)
	if th == nil || th.Task == nil {
		return
	}
	t := th.Task
	if t.X.state != atomWaitCPU || t.X.wakeTime > e.Time {
		return
	}
	lo := max(t.X.wakeTime, c.LastSwitch)
	in := e.Time - e.Runtime
	if in > e.Time { // a negative runtime from a corrupt trace
		in = e.Time
	}
	in = max(in, lo)
	m.measure(t, in)
	m.Recovered++
	t.Recovered++
	t.RecoveredSum += in - t.X.wakeTime
}

// measure closes the task's open delay at switch-in time in (perf's
// add_sched_in_event after its checks).
func (m *LatencyRun) measure(t *LatencyTask[LatencyAtom], in int64) {
	t.X.state = atomSchedIn
	t.Delays.Add(t.X.wakeTime, in, m.opts.KeepSamples)
}

// schedOut is perf's add_sched_out_event: a new atom, waiting for the CPU
// from now if the task is still runnable, else asleep.
func (m *LatencyRun) schedOut(t *LatencyTask[LatencyAtom], runnable bool, ts int64) {
	if t.X.state == atomWaitCPU {
		m.Dropped++
	}
	t.X.outTime = ts
	if runnable {
		t.X.state = atomWaitCPU
		t.X.wakeTime = ts
	} else {
		t.X.state = atomSleeping
		t.X.wakeTime = 0
	}
}

// switchEvent is perf's latency_switch_event.
func (m *LatencyRun) switchEvent(e *trace.Event, st *LatencyStep[LatencyAtom]) {
	if st.Task != nil {
		m.schedOut(st.Task, e.PrevState.Runnable(), e.Time)
	}
	in := st.In
	if in == nil {
		return
	}
	if st.InCreated {
		if !m.opts.Corrected {
			// perf inserts a runnable atom at this very time, so the
			// switch-in below measures a 0 ns delay.
			m.schedOut(in, true, e.Time)
		} else {
			in.X.state = atomSchedIn
			in.X.outTime = e.Time
			return
		}
	}
	if in.X.state == atomSleeping {
		// Switched in while asleep as far as the trace tells: its wakeup
		// was not recorded, so its delay cannot be measured.
		m.Unwoken++
	}
	if in.X.state != atomWaitCPU {
		return
	}
	if e.Time < in.X.wakeTime {
		in.X.state = atomIgnore
		return
	}
	m.measure(in, e.Time)
}

// wakeup is perf's latency_wakeup_event.
func (m *LatencyRun) wakeup(e *trace.Event, t *LatencyTask[LatencyAtom], created bool) {
	if created {
		t.X.state = atomSleeping
		t.X.outTime = e.Time
	}
	if !m.opts.CPUGiven && t.X.state != atomSleeping {
		return
	}
	m.Timestamps++
	if t.X.outTime > e.Time {
		m.Unordered++
		return
	}
	t.X.state = atomWaitCPU
	t.X.wakeTime = e.Time
}

// runtime is perf's latency_runtime_event.
func (m *LatencyRun) runtime(e *trace.Event, t *LatencyTask[LatencyAtom], created bool) {
	if created {
		if !m.opts.Corrected {
			m.schedOut(t, true, e.Time)
		} else {
			// The task is running: it has no delay pending.
			t.X.state = atomSchedIn
			t.X.outTime = e.Time
		}
	}
	t.Runtime += e.Runtime
}

// migrate is perf's latency_migrate_task_event: only with -C.
func (m *LatencyRun) migrate(e *trace.Event) {
	if !m.opts.CPUGiven || e.TID < 0 {
		return
	}
	t, created := m.Tracker.Task(m.Tracker.Thread(e.TID, e.PID))
	if created {
		m.schedOut(t, true, e.Time)
	}
	t.X.outTime = e.Time
	t.X.wakeTime = e.Time
	m.Timestamps++
}
