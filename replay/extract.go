package replay

import (
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"unsafe"

	"github.com/traceview/traceview/internal/tidmap"
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// ext is the extraction state of one task.
type ext struct {
	// nameAt: when a COMM record, an exec or a fork named the task (0:
	// perf's records synthesized at the start, or none; see ident).
	nameAt   int64
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
	// waitSum (ns) and waitN are the task's recorded scheduling delays
	// (wakeup or preemption to switch-in, perf sched latency's), waitSq
	// the sum of their squares (ns², for Task.DelaySD), and ins its
	// recorded switch-ins, for inferTracedSession.
	waitSum int64
	waitN   int
	waitSq  float64
	ins     int
	// fifoN counts dependency wakeups of the task while a thread of its
	// process with its name was asleep too; fifoHit those where this task
	// had been asleep longest (see inferPools).
	fifoN, fifoHit int
	inAt           int64 // ns, recorded switch-in of the current run (-1 unknown)
	// burstIn is the recorded first switch-in of burst burstInOf (its
	// index; -1 none): Task.CutSpan.
	burstIn, burstInOf int64
	rtIn               int64 // ns of sched_stat_runtime charged during that run
	pp                 int   // task index + 1 of the wakee that preempted this task right after its wakeup (ping-pong)
	ppAt               int64 // ns, when
	// rtLast and rtPrev are the times of the last two sched_stat_runtime
	// events of the current run on its CPU (-1: none), for noteYield.
	rtLast, rtPrev int64
	// rOuts counts the task's runnable switch-outs (see yieldPoints).
	rOuts int
	// pend is the last mid-run sched_stat_runtime of the current run,
	// kept as a candidate update point until the next one shows it was
	// not the switch-out's (-1 none): its offset into the burst, time
	// and whether an enqueue on the CPU explains it.
	pend        int64
	pendT       int64
	pendEnqueue bool
	// selfWakes are the wakeups of the task by itself while it ran (see
	// splitArrivals): burst index, CPU offset into it and time.
	selfWakes []selfWake
	// prios counts the task's recorded switch-ins by the prio its
	// sched_switch gave it (see settlePrio).
	prios []prioCount
	// dl is true once a sched_switch showed the task at prio -1 beside a
	// task with a known prio: SCHED_DEADLINE (trace.Event.SwitchDeadline).
	dl bool
	// policies counts the task's recorded switch-outs by the scheduling
	// policy the source gave it (trace.SchedPolicy, index; eBPF captures
	// only): see settlePrio.
	policies [trace.PolicyDeadline + 1]int32
	// throttled is true from a deadline task's runnable switch-out to its
	// next switch-in (a throttle: Cause.Throttle).
	throttled bool
	// cgRun is the task's recorded run time (ns) by the cgroup id of its
	// switch-outs, once a switch-out named a second cgroup (nil while
	// one: Task.CgroupID): a task moved between groups is replayed in
	// the one it ran longest in (cgroupByRun).
	cgRun map[uint64]int64
	// cg1Run is the run time noted while one cgroup was seen.
	cg1Run int64
	// lostIn is true from a lost switch-in (lostSwitchIn) to the run's
	// first sched_stat_runtime of its own, which dates the switch-in.
	lostIn bool
	lostLo int64 // ns: a lost switch-in is dated after this (the block, or the wakeup)
	// early is a wakeup sent from another CPU while the task still ran
	// (Kind 0: none): see earlyWakeWindow. late is one that came more
	// than earlyWakeWindow before the switch-out into the sleep it may
	// end: it ends that sleep if the task is switched in again with no
	// wakeup between (see lateEarlyWake).
	early, late trace.Event
	// earlyBy is where early's waker was in its run when it woke the
	// task (its burst and the CPU time into it; burst -1: not running),
	// for a late early wakeup, taken after the waker moved on.
	earlyBy wakerPoint
	// runFrom is when the current run began on its CPU (recorded, or
	// estimated for a lost switch-in), for Task.timeOn.
	runFrom int64
	// longestRun is the longest of the task's runs so far whose
	// switch-in and switch-out were both recorded, on one CPU (ns; 0
	// none): it bounds a run whose switch-in the trace lacks
	// (unseenRunFrom).
	longestRun int64
	// waitFrom is when the wait for the CPU that preceded the current
	// run began (its wakeup or its runnable switch-out; -1 unknown): see
	// Task.FinalWaitFrom.
	waitFrom int64
	// bursts are the task's bursts so far (Task.Bursts once closeTasks
	// flattens them); acts holds their actions (addAction), Task.acts
	// once they are packed.
	bursts burstList
	acts   actList
	// ranClosed is the run time of the task's closed bursts (ns), the
	// start of its open one (for Rename.CPU).
	ranClosed int64
}

// selfWake is a wakeup a task received while running on its CPU, from an
// interrupt there: a timer it armed for a time already passed fired before
// it could sleep (hrtimer_wakeup through try_to_wake_up of current,
// kernel/sched/core.c v6.18, emits sched_waking and sched_wakeup though
// the task never left the CPU).
type selfWake struct {
	b      int
	off, t int64
}

// updCand is a candidate update point: offset off into burst b of task i,
// at time t on cpu.
type updCand struct {
	i, b int
	off  int64
	t    int64
	cpu  trace.CPU
}

// candChunk is how many candidate update points a chunk of a candList
// holds: as many as fill 4096 bytes.
const candChunk = 4096 / int(unsafe.Sizeof(updCand{}))

// candList is the candidate update points in the order they came, in
// chunks that never move: one slice of them, copied at every growth,
// was 0.06 s of a replay of the 1.78 M-event big.perf.data in growslice.
type candList struct {
	chunks [][]updCand // each of capacity candChunk, all full but the last
	n      int
}

// push appends c.
func (l *candList) push(c updCand) {
	if l.n%candChunk == 0 {
		l.chunks = append(l.chunks, make([]updCand, 0, candChunk))
	}
	k := &l.chunks[len(l.chunks)-1]
	*k = append(*k, c)
	l.n++
}

type extractor struct {
	m          *Model
	st         []ext
	byTID      tidIndex
	cpuCurr    []trace.TID
	cpuLast    []int64 // ns, last sched_switch per CPU
	cpuN       []int   // sched_switch events per CPU
	idleExit   []int64 // ns, when each CPU last switched from idle to a task (-1 never)
	idle       []int64
	preempt    []int64
	preemptAt  []int64 // ns, the switch time of each preempt sample
	seenWaking bool
	pre        map[trace.TID]preName
	sawRT      bool      // the trace has sched_stat_runtime
	lastWake   []wakeRec // per CPU: the last dependency wakeup emitted there
	ovSum      int64     // ns: Σ (run between recorded switches − its sched_stat_runtime)
	ovN        int64     // runs in ovSum
	cands      candList  // candidate update points, in trace order
	enqAt      []int64   // per CPU: ns of the last wakeup, new task or migration aimed at it
	// pokeAt is, per CPU, the time of the last event that could have
	// asked it to reschedule (see noteYield); yields the candidate yield
	// points, in trace order (yieldPoints keeps those off the tick).
	pokeAt   []int64
	yields   []updCand
	nEnqueue int // candidates left out as an enqueue's
	byPID    map[trace.PID][]int
	// maxCPU bounds the CPU numbers an event may carry (checkEvent): the
	// trace's available CPUs when its header states them, else maxCPU.
	maxCPU trace.CPU
	t0     int64 // ns, the first event's time (first)
	// srcMeta is the source's Meta while the events are read (Model.Meta
	// is filled after them): the recorder's command line (cmdline).
	srcMeta *trace.Meta
	// perfExec is 1 + the index of the first task seen under the name
	// perfExecComm (0: none): perf record's forked child, which execs the
	// traced command.
	perfExec int
	// firstSample is the recording's first sample (Meta.FirstTime, perf's
	// HEADER_SAMPLE_TIME; 0 unknown): the records before it set the scene.
	firstSample int64
	// at is the number of the input event being taken, counted from 0
	// (for Model.skippedAt).
	at int
}

// tidIndex maps the TIDs of the live tasks to their indexes, through a
// tidmap (a slice indexed by TID for the usual ones: a Go map's lookup,
// once or twice per event, was 0.07 s a run on bench/replaymem's file).
type tidIndex struct {
	m tidmap.Map[trace.TID, int32] // index + 1; 0: none
}

// get returns the index of tid's live task, or 0 and false.
func (t *tidIndex) get(tid trace.TID) (int, bool) {
	v := t.m.Get(tid)
	if v == 0 {
		return 0, false
	}
	return int(v) - 1, true
}

// set makes i the index of tid's live task.
func (t *tidIndex) set(tid trace.TID, i int) { t.m.Set(tid, int32(i)+1) }

// del forgets tid's task (it exited).
func (t *tidIndex) del(tid trace.TID) { t.m.Set(tid, 0) }

// setup reports whether ev only names a task alive at the start: a record
// perf synthesized for a task that already existed (no CPU, before the
// model's first event), or a FORK, COMM or exec record written before the
// recording's first sample (perf record's tracking event starts a few ms
// before the tracepoints; nothing was scheduled in the trace then).
func (x *extractor) setup(ev *trace.Event) bool {
	if ev.Kind != trace.KindFork && ev.Kind != trace.KindComm && ev.Kind != trace.KindExec {
		return false
	}
	return x.m.Start < 0 && ev.CPU < 0 || ev.Time < x.firstSample
}

// lastWakeOn returns the last dependency wakeup emitted on cpu (waker -1
// when none, or cpu is unknown).
func (x *extractor) lastWakeOn(cpu trace.CPU) wakeRec {
	if cpu < 0 || int(cpu) >= len(x.lastWake) {
		return wakeRec{waker: -1}
	}
	return x.lastWake[cpu]
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
func Extract(src trace.Source) (*Model, error) { return ExtractWith(src, ExtractOptions{}) }

// ExtractOptions say what Extract keeps beside the model.
type ExtractOptions struct {
	// DropRecorded leaves the observed schedule out of the model: its
	// events are counted (Model.Recorded's Len and Count) but not kept, as
	// if Model.DrainRecorded had released them, so the model cannot be
	// replayed as-traced. A caller that can read the input again gets the
	// schedule from that second read (Model.RecordedFrom). On
	// bench/replaymem's 2 M-event perf.data the kept schedule is 22 MB of
	// live heap at the end of extraction, where the peak is, and its
	// encoding 0.2 s of the extracting goroutine's CPU time.
	DropRecorded bool
}

// ExtractWith is Extract with options.
func ExtractWith(src trace.Source, opts ExtractOptions) (*Model, error) {
	x := &extractor{m: &Model{WorkloadRoot: -1, Start: -1}, pre: map[trace.TID]preName{}, byPID: map[trace.PID][]int{},
		maxCPU: maxCPU}
	x.m.Recorded.released = opts.DropRecorded
	if m := src.Meta(); m != nil && m.NrCPUsAvail > 0 && m.NrCPUsAvail < maxCPU {
		x.maxCPU = trace.CPU(m.NrCPUsAvail)
	}
	if m := src.Meta(); m != nil {
		x.firstSample = m.FirstTime
		x.srcMeta = m
	}
	// Each event waits for the next one before it is taken (settle): an
	// event far from both neighbours is damage.
	// Two slots, the pending event's and the one read after it, take
	// turns: each event is copied once out of the source's batch (a copy
	// per call of the state machine's steps was 0.05 s a run on
	// bench/replaymem's file).
	var evs [2]trace.Event
	cur, havePend := 0, false
	at, pendAt := -1, -1 // the input's events so far, counted from 0: ev's and pend's numbers
	// The source is decoded on a goroutine of its own, a few batches ahead
	// (its Meta is read again only after its end).
	pf := trace.Prefetch(src, nil)
	for {
		e, err := pf.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err // the source's own error: it names the file and the problem
		}
		ev := &evs[cur]
		*ev = *e
		at++
		x.at = at
		if !x.checkEvent(ev) {
			continue
		}
		if havePend {
			x.at = pendAt
			x.settle(&evs[1-cur], ev.Time)
		}
		havePend, pendAt = true, at
		cur = 1 - cur
	}
	if havePend {
		x.at = pendAt
		x.settle(&evs[1-cur], -1)
	}
	if m := src.Meta(); m != nil {
		x.m.Meta.Format, x.m.Meta.Hostname, x.m.Meta.OSRelease = m.Format, m.Hostname, m.OSRelease
		x.m.Meta.Arch, x.m.Meta.Tool, x.m.Meta.Cmdline, x.m.Meta.RecordedCPUs = m.Arch, m.Tool, m.Cmdline, m.RecordedCPUs
		x.m.Meta.NrCPUs, x.m.Meta.Clock, x.m.Meta.LLCs = m.NrCPUs, m.Clock, m.LLCs
		x.m.Meta.Cgroups, x.m.Meta.CgroupSettings, x.m.Meta.Autogroup = m.Cgroups, m.CgroupSettings, m.Autogroup
		x.m.Meta.CgroupStats, x.m.Meta.TaskAutogroups, x.m.Meta.TaskAffinity = m.CgroupStats, m.TaskAutogroups, m.TaskAffinity
		if w, ok := trace.UnattributedV1Warning(m); ok {
			x.m.Meta.Warnings.Add(w.Key, "%s", w.Message)
		}
		if n := x.cgroupByRun(); n > 0 {
			what := fmt.Sprintf("%d tasks changed cgroup during the trace: each is", n)
			if n == 1 {
				what = "1 task changed cgroup during the trace: it is"
			}
			x.m.Meta.Warnings.Add("replay-cgroup-moved", "%s replayed in the group it ran longest in (a replay keeps a task in one group)", what)
		}
		for i := range x.m.Tasks {
			if id := x.m.Tasks[i].CgroupID; id != 0 {
				if path, ok := m.Cgroups[id]; ok {
					x.m.Tasks[i].Cgroup = path
				} else {
					x.m.Tasks[i].Cgroup = fmt.Sprintf("cgroup id %d (no path recorded)", id)
				}
			}
		}
		if m.NrCPUs > x.m.NrCPUs {
			x.m.NrCPUs = m.NrCPUs
		}
	}
	x.finish()
	return x.m, nil
}

// maxCPU bounds the CPU numbers Extract takes from a trace whose header
// does not state its available CPUs: 8192, the largest NR_CPUS Linux
// builds (x86 CONFIG_MAXSMP, arch/x86/Kconfig v6.18). A larger number is
// damage; taken as it stands it sized per-CPU tables of billions of
// entries (a damaged CPU field of 0x36311600 ran out of memory).
const maxCPU = 8192

// checkEvent reports whether ev can be taken into the model: its CPUs are
// -1 (unknown) or below the trace's bound, its time is not negative, and
// a sched_stat_runtime reports no more run time than the trace has had
// (trace.RuntimeDamaged); settle checks its time against its neighbours.
// An event that fails is damage, counted in Model.Stats.Skipped and as a warning in
// Model.Meta.Warnings, and skipped: a CPU number indexes per-CPU state,
// and a run time or time stretches a burst the simulator ticks through.
func (x *extractor) checkEvent(ev *trace.Event) bool {
	bad := func(c trace.CPU) bool { return c < -1 || c >= x.maxCPU }
	var why string
	switch {
	case bad(ev.CPU):
		why = fmt.Sprintf("CPU %d", ev.CPU)
	case (ev.Kind == trace.KindWaking || ev.Kind == trace.KindWakeup || ev.Kind == trace.KindWakeupNew) && bad(ev.TargetCPU):
		why = fmt.Sprintf("target CPU %d", ev.TargetCPU)
	case ev.Kind == trace.KindMigrate && (bad(ev.OrigCPU) || bad(ev.DestCPU)):
		why = fmt.Sprintf("CPUs %d -> %d", ev.OrigCPU, ev.DestCPU)
	case ev.Time < 0:
		why = "a negative time"
	case trace.RuntimeDamaged(ev, x.first(ev.Time)):
		why = fmt.Sprintf("a run time of %d ns in a trace of %d ns", ev.Runtime, ev.Time-x.first(ev.Time))
	default:
		x.first(ev.Time)
		return true
	}
	x.skip(ev, why)
	return false
}

// first returns the time of the first event checkEvent passed with a
// time (synthesized records at time 0 aside), t when there is none yet.
func (x *extractor) first(t int64) int64 {
	if x.t0 <= 0 && t > 0 {
		x.t0 = t
	}
	return min(x.t0, t)
}

// skip counts ev as damage, said by why.
func (x *extractor) skip(ev *trace.Event, why string) {
	x.m.Stats.Skipped++
	x.m.skippedAt = append(x.m.skippedAt, x.at)
	x.m.Meta.Warnings.Add("replay-skipped", "replay: %s at %d ns (task %d): %s is outside what the trace can hold: damaged, skipped", ev.Kind, ev.Time, ev.TID, why)
}

// maxGap is the longest time between two neighbouring events Extract
// takes for real when the event is isolated: one hour. An event more than
// that after the trace so far, whose next event is earlier than it (or
// that ends the trace), or a first event more than that before the next
// one, is a time with a high bit damaged, not an hour of nothing: taken
// for real, the task on CPU across it ran for the gap (a sample time
// flipped to 9,007,886 s made a replay tick through 104 days). Judging
// by both neighbours keeps one such event from cutting off the rest
// (those after it would all be earlier than it); a real pause of an hour
// and more, with events after it, is kept. A 10-minute capture of a busy
// server has events every few ms.
const maxGap = int64(3600e9)

// settle takes ev into the model, or skips it as damage: when its time is
// before the previous event's taken, or it is isolated (maxGap) between
// the events taken so far and next, the time of the event after it (-1:
// ev ends the trace).
func (x *extractor) settle(ev *trace.Event, next int64) {
	m := x.m
	if ev.Kind == trace.KindCgroupMove && m.Start >= 0 && ev.Time < m.End {
		// A move the recorder wrote when it read it, after events of
		// other CPUs (traceview record reads the attaches from a ring
		// buffer of their own): not damage; taken where the trace had
		// got to (new-user pass 18 F8 called one 4 ms late "damaged").
		m.Meta.Warnings.Add("replay-late-move", "replay: a cgroup_attach_task of task %d at %d ns came after events up to %d ns (the recorder writes a move when it reads it): taken there", ev.TID, ev.Time, m.End)
		ev.Time = m.End
	}
	switch {
	case x.setup(ev): // (records for tasks alive at the start: see event)
	case m.Start >= 0 && ev.Time < m.End:
		x.skip(ev, fmt.Sprintf("a time before the previous event's (%d ns)", m.End))
		return
	case m.Start >= 0 && ev.Time-m.End > maxGap && next < 0:
		x.skip(ev, fmt.Sprintf("a time %.3f s after the previous event, ending the trace,", float64(ev.Time-m.End)/1e9))
		return
	case m.Start >= 0 && ev.Time-m.End > maxGap && next < ev.Time:
		x.skip(ev, fmt.Sprintf("a time %.3f s after the previous event, with the next one earlier,", float64(ev.Time-m.End)/1e9))
		return
	case m.Start < 0 && next > ev.Time+maxGap:
		x.skip(ev, fmt.Sprintf("a time %.3f s before the next event, starting the trace,", float64(next-ev.Time)/1e9))
		return
	}
	x.event(ev)
}

func (x *extractor) cpu(c trace.CPU) {
	for int(c) >= len(x.cpuCurr) {
		x.cpuCurr = append(x.cpuCurr, -1)
		x.cpuLast = append(x.cpuLast, 0)
		x.cpuN = append(x.cpuN, 0)
		x.idleExit = append(x.idleExit, -1)
		x.lastWake = append(x.lastWake, wakeRec{waker: -1})
		x.enqAt = append(x.enqAt, -1)
		x.pokeAt = append(x.pokeAt, -1)
	}
	if int(c)+1 > x.m.NrCPUs {
		x.m.NrCPUs = int(c) + 1
	}
}

// task returns the live identity of tid, creating one alive at the start.
func (x *extractor) task(tid trace.TID, t int64, cpu trace.CPU, init InitState) int {
	if i, ok := x.byTID.get(tid); ok {
		return i
	}
	return x.newTask(tid, t, cpu, init, -1)
}

func (x *extractor) newTask(tid trace.TID, t int64, cpu trace.CPU, init InitState, parent int) int {
	i := len(x.m.Tasks)
	x.m.Tasks = append(x.m.Tasks, Task{TID: tid, PID: -1, Prio: -1, Parent: parent, Init: init, CPU: int(cpu), Start: t, Last: t,
		Repeat: -1})
	x.st = append(x.st, ext{idx: i, wakeAt: -1, inAt: -1, burstInOf: -1, pend: -1, rtLast: -1, rtPrev: -1})
	x.st[i].bursts.push(Burst{})
	if p, ok := x.pre[tid]; ok && parent < 0 {
		x.m.Tasks[i].Comm = p.comm
		if p.pid >= 0 {
			x.m.Tasks[i].PID = p.pid
			x.byPID[p.pid] = append(x.byPID[p.pid], i)
		}
	}
	// Named by perf's record-start COMM, or by the fork that creates it.
	x.m.Tasks[i].Unnamed = x.m.Tasks[i].Comm == "" && parent < 0
	x.byTID.set(tid, i)
	if init == InitSleeping {
		// The empty first burst ends in the sleep the task was in.
		x.st[i].bursts = burstList{}
		x.st[i].bursts.push(Burst{End: EndBlock})
		x.st[i].bursts.push(Burst{})
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
	if pid >= 0 && tk.PID != pid {
		tk.PID = pid
		x.byPID[pid] = append(x.byPID[pid], i)
	}
	// As in the reports (perfcompat.LatencyThread.Named): a tracepoint's
	// comm names a task that has no name yet; perf's COMM records and exec
	// rename it; and a tracepoint's comm that differs after the record that
	// named it is a rename the trace lost (a cut file), unless the record
	// was perf's synthesized /proc name, which extends a kworker's ("kworker/0:0-events" for
	// the event's "kworker/0:0"). The prediction's rows then match the
	// observed table's.
	// A task no record named takes the latest (the reports' Seen).
	if comm != "" && (tk.Comm == "" || tk.Unnamed) {
		tk.Comm = comm
	} else if comm != "" && comm != tk.Comm {
		if st := &x.st[i]; ev.Time > st.nameAt && (st.nameAt > 0 || !strings.HasPrefix(tk.Comm, comm)) {
			x.renamed(i, ev.Time, comm, false)
			tk.rename(comm)
			st.nameAt = ev.Time
		}
	}
	if comm == sessionLeaderComm {
		tk.setsid = true
	}
	if comm == tasksetComm {
		tk.taskset = true
	}
	if comm == perfExecComm && x.perfExec == 0 {
		x.perfExec = i + 1
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
// renamed keeps where task i's work was when it was renamed comm at time
// t (ns): Task.Renames, at its run time then (the caller renames it); exec
// says an exec made it.
func (x *extractor) renamed(i int, t int64, comm string, exec bool) {
	tk := &x.m.Tasks[i]
	if comm == tk.Comm {
		if n := len(tk.Renames); exec && n > 0 && tk.Renames[n-1].Comm == comm {
			// The exec after the comm record that named it (traceview
			// record writes both): the rename was the exec.
			tk.Renames[n-1].Exec = true
		}
		return
	}
	if len(tk.Renames) == 0 {
		tk.FirstComm = tk.Comm
	}
	tk.Renames = append(tk.Renames, Rename{CPU: x.st[i].ranClosed + x.consumed(i, t), Comm: comm, Exec: exec})
}

func (x *extractor) consumed(i int, t int64) int64 {
	s := &x.st[i]
	if s.running && t > s.segStart {
		return s.accum + t - s.segStart
	}
	return s.accum
}

func (x *extractor) event(ev *trace.Event) {
	m := x.m
	if x.setup(ev) {
		// Synthesized at record start (perf's PERF_RECORD_FORK/COMM for
		// tasks that already existed) or written before the first sample:
		// names only, no fork in the trace.
		m.Recorded.add(ev)
		tid, comm, pid := ev.TID, ev.Comm, ev.PID
		if ev.Kind == trace.KindFork {
			tid, comm, pid = ev.ChildTID, ev.ChildComm, ev.ChildPID
		}
		x.preName(tid, comm, pid)
		return
	}
	if m.Start < 0 {
		m.Start = ev.Time
	}
	m.End = ev.Time
	if ev.CPU >= 0 {
		x.cpu(ev.CPU)
	}
	if ev.Kind != trace.KindSwitch {
		x.lostSwitchIn(ev)
	}
	switch ev.Kind {
	case trace.KindSwitch:
		m.Recorded.add(ev)
		if ev.CPU >= 0 && ev.CPU < policies.MaxCPUs {
			m.CPUsSeen |= 1 << uint(ev.CPU)
		}
		x.switchEv(ev)
	case trace.KindWaking, trace.KindWakeup:
		x.poke(ev.TargetCPU, ev.Time)
		if ev.Kind == trace.KindWaking {
			x.seenWaking = true
		} else if x.seenWaking {
			m.Recorded.add(ev)
			return // sched_wakeup beside sched_waking: the waking one counts
		}
		m.Recorded.add(ev)
		x.wake(ev)
	case trace.KindWakeupNew:
		m.Recorded.add(ev)
		x.poke(ev.TargetCPU, ev.Time)
		if _, known := x.byTID.get(ev.TID); !known && ev.TID > 0 {
			// No fork event (trace-cmd or ftrace without
			// sched_process_fork): the task waking a new task is its parent.
			parent := ev.WakerTID
			if parent < 0 {
				parent = ev.CurTID
			}
			if p, ok := x.byTID.get(parent); ok && parent > 0 && x.st[p].running {
				f := trace.NewEvent(ev.Time, ev.CPU, trace.KindFork)
				f.TID, f.PID, f.ChildTID, f.ChildPID, f.ChildComm = parent, -1, ev.TID, ev.PID, ev.Comm
				x.fork(&f)
			}
		}
		i := x.task(ev.TID, ev.Time, ev.TargetCPU, InitRunnable)
		x.ident(i, ev, ev.PID, ev.Comm, ev.Prio)
		x.noteWake(i, ev)
	case trace.KindFork:
		m.Recorded.add(ev)
		x.markEnqueue(ev.CPU, ev.Time) // task_fork_fair accounts the parent
		x.poke(ev.CPU, ev.Time)
		x.fork(ev)
	case trace.KindExit:
		m.Recorded.add(ev)
		if i, ok := x.byTID.get(ev.TID); ok {
			x.st[i].dead = true
		}
	case trace.KindMigrate:
		m.Recorded.add(ev)
		x.markEnqueue(ev.DestCPU, ev.Time) // enqueued there
		x.markEnqueue(ev.OrigCPU, ev.Time) // and dequeued here: both account their current task
		x.poke(ev.DestCPU, ev.Time)
		x.stopperMove(ev)
	case trace.KindLost:
		// Kept in the recorded schedule: the observed table leaves out
		// the delays and runs a lost window overlaps, as latency does.
		m.Recorded.add(ev)
		x.poke(-1, ev.Time) // anything may have happened on any CPU
	case trace.KindRuntime:
		m.Recorded.add(ev)
		x.sawRT = true
		// The kernel's own accounting (update_curr) replaces the time on
		// CPU measured from switch timestamps since the last mark, so
		// bursts add up to perf's Runtime column.
		if ev.TID > 0 && ev.Runtime > 0 {
			// A task's first event may be its sched_stat_runtime (it ran
			// since before the trace): that CPU time is its first burst's,
			// as perf's Runtime column counts it.
			i := x.task(ev.TID, ev.Time, ev.CPU, InitRunnable)
			s := &x.st[i]
			switch bs := &s.bursts; {
			case s.running:
				if s.lostIn && ev.CPU == s.cpu && ev.CurTID == ev.TID {
					x.dateLostSwitchIn(i, ev.Time-ev.Runtime)
				}
				x.commitPend(i)
				if ev.CPU == s.cpu {
					s.rtPrev, s.rtLast = s.rtLast, ev.Time
				} else {
					// A remote enqueue (a queued wakeup's, done by
					// the IPI later than its sched_waking) accounted
					// the task on its CPU: it may preempt it.
					x.poke(s.cpu, ev.Time)
				}
				s.accum += ev.Runtime
				s.segStart = max(ev.Time, s.segStart)
				s.rtIn += ev.Runtime
				s.pend, s.pendT = s.accum, ev.Time
				// Not the task's own when another CPU emitted it (a
				// remote enqueue accounted this CPU's current task) or
				// something was just enqueued here.
				s.pendEnqueue = ev.CPU != s.cpu || s.cpu >= 0 && int(s.cpu) < len(x.enqAt) && x.enqAt[s.cpu] >= 0 &&
					ev.Time-x.enqAt[s.cpu] <= enqueueWindow
			case s.sleeping && bs.len() >= 2 && bs.last(1).End == EndBlock:
				// Charged after the switch-out (same timestamp, other
				// order): it belongs to the burst that just ended.
				bs.last(1).Len += ev.Runtime
			default:
				s.accum += ev.Runtime
			}
		}
	case trace.KindExec, trace.KindComm:
		m.Recorded.add(ev)
		if ev.Comm == "" && ev.Kind == trace.KindComm && ev.TID > 0 {
			// A rename to the empty name (prctl(PR_SET_NAME, "")): the
			// reports name the task "" from here (perf's ":TID" row), so
			// the prediction does too (emitComm).
			if i, ok := x.byTID.get(ev.TID); ok {
				if !m.Tasks[i].Unnamed {
					x.renamed(i, ev.Time, "", false)
				}
				m.Tasks[i].Comm, m.Tasks[i].Unnamed = "", false
			}
			break
		}
		if ev.Comm == "" || ev.TID <= 0 {
			break
		}
		if i, ok := x.byTID.get(ev.TID); ok {
			if m.Tasks[i].Unnamed {
				m.Tasks[i].rename(ev.Comm) // named, not renamed: its first record
			} else {
				x.renamed(i, ev.Time, ev.Comm, ev.Kind == trace.KindExec)
				m.Tasks[i].rename(ev.Comm)
			}
			m.Tasks[i].Unnamed = false
			x.st[i].nameAt = ev.Time
			m.Tasks[i].taskset = m.Tasks[i].taskset || ev.Comm == tasksetComm
			// setsid(1) exec'd, then its program: a leader never switched
			// out as "setsid" is named so only here (new-user pass 73 F1:
			// its session missed, by timing).
			m.Tasks[i].setsid = m.Tasks[i].setsid || ev.Comm == sessionLeaderComm
			m.Tasks[i].execd = m.Tasks[i].execd || ev.Kind == trace.KindExec
		} else {
			// Named before its first scheduler event (the text readers
			// name each task as they first meet it): keep the name for
			// newTask, as the reports name the row.
			x.preName(ev.TID, ev.Comm, ev.PID)
		}
	case trace.KindCgroupMove:
		// Kept in the recorded schedule only: the reports split a run
		// at the move between the groups (new-user pass 69 F3: without
		// it an as-traced prediction gave the whole run to the new group).
		m.Recorded.add(ev)
	}
}

// preName remembers the name (and pid, when known) of a task a record
// named before the task had an event of its own.
func (x *extractor) preName(tid trace.TID, comm string, pid trace.PID) {
	p, ok := x.pre[tid]
	if !ok {
		p.pid = -1
	}
	if comm != "" {
		p.comm = comm
	}
	if pid >= 0 {
		p.pid = pid
	}
	x.pre[tid] = p
}

func (x *extractor) fork(ev *trace.Event) {
	if ev.ChildTID <= 0 {
		return
	}
	if i, ok := x.byTID.get(ev.ChildTID); ok && !x.st[i].dead {
		return // the same fork reported twice (tracepoint and PERF_RECORD_FORK)
	}
	p := x.task(ev.TID, ev.Time, ev.CPU, InitRunnable)
	x.ident(p, ev, ev.PID, ev.Comm, -1)
	c := x.newTask(ev.ChildTID, ev.Time, ev.CPU, InitForked, p)
	x.m.Tasks[c].PID, x.m.Tasks[c].Comm, x.m.Tasks[c].Prio = ev.ChildPID, ev.ChildComm, x.m.Tasks[p].Prio
	x.st[c].nameAt = ev.Time
	x.byPID[ev.ChildPID] = append(x.byPID[ev.ChildPID], c)
	// (A thread the recorder starts is not the traced command: perf's
	// own, forked before the tracepoints were enabled, is in a cut file
	// too since new-user pass 61 F4, and was taken for the workload.)
	newProcess := ev.ChildPID <= 0 || ev.PID <= 0 || ev.ChildPID != ev.PID
	if x.m.WorkloadRoot < 0 && newProcess && x.recordedBy(x.m.Tasks[p].Comm) && (!x.isRecorder(ev.ChildComm) || x.m.Tasks[p].Comm == "perf") {
		x.m.WorkloadRoot = ev.ChildTID
		x.m.Tasks[c].Workload = true
	}
	x.st[p].addAction(x.st[p].bursts.last(0), Action{At: x.consumed(p, ev.Time), Kind: ActFork, Target: int32(c)})
	x.m.Stats.Forks++
}

// isRecorder reports whether comm is the recording tool, whose first child
// is the traced command (perf forks "perf-exec", which execs the workload):
// perf, trace-cmd, traceview, or the name the recorder's command line
// started it by (a traceview built as "tv": its comm is "tv").
// recordedBy reports whether comm names the program that recorded the
// trace: the one its command line (Meta.Cmdline) names when it has one,
// else any recorder (isRecorder). Another recorder starting meanwhile (a
// perf sched record of its own beside traceview record) forks a child
// that is not the traced command: replay took perf's `sleep` for the
// workload, predicted 143 times its CPU time and left the recorded
// command's tree out.
func (x *extractor) recordedBy(comm string) bool {
	if args := x.cmdline(); len(args) > 0 && comm != "" {
		name := path.Base(args[0])
		if len(name) > 15 { // TASK_COMM_LEN - 1
			name = name[:15]
		}
		return comm == name
	}
	return x.isRecorder(comm)
}

func (x *extractor) isRecorder(comm string) bool {
	switch path.Base(comm) {
	case "perf", "trace-cmd", "traceview":
		return true
	}
	if args := x.cmdline(); len(args) > 0 && comm != "" {
		name := path.Base(args[0])
		if len(name) > 15 { // TASK_COMM_LEN - 1
			name = name[:15]
		}
		return comm == name
	}
	return false
}

// cmdline is the recorder's command line: the model's, or the source's
// while the events are read.
func (x *extractor) cmdline() []string {
	if len(x.m.Meta.Cmdline) > 0 || x.srcMeta == nil {
		return x.m.Meta.Cmdline
	}
	return x.srcMeta.Cmdline
}

// noteCgroup notes the cgroup of task i's switch-out ev and the run it
// ends (from its recorded switch-in on that CPU; 0 when unknown).
func (x *extractor) noteCgroup(i int, ev *trace.Event) {
	tk, s := &x.m.Tasks[i], &x.st[i]
	var ran int64
	if s.running && s.inAt >= 0 && s.cpu == ev.CPU && ev.Time > s.inAt {
		ran = ev.Time - s.inAt
	}
	if s.cgRun == nil && tk.CgroupID != 0 && tk.CgroupID != ev.Cgroup {
		s.cgRun = map[uint64]int64{tk.CgroupID: s.cg1Run}
	}
	if s.cgRun != nil {
		s.cgRun[ev.Cgroup] += ran
	} else {
		s.cg1Run += ran
	}
	tk.CgroupID = ev.Cgroup
}

// cgroupByRun gives each task that switched out in more than one cgroup
// the one it ran longest in (the last of equals), and returns how many
// there were: a replay keeps a task in one group, and the last one was
// the root for threads a v1 cgroup's tasks file moved in and out again
// (the replay said the trace showed no cgroups, and ran them unthrottled).
func (x *extractor) cgroupByRun() (moved int) {
	for i := range x.m.Tasks {
		if i >= len(x.st) || x.st[i].cgRun == nil {
			continue
		}
		moved++
		last := x.m.Tasks[i].CgroupID
		best, most := last, x.st[i].cgRun[last]
		for id, ran := range x.st[i].cgRun {
			if ran > most || ran == most && id < best && best != last {
				best, most = id, ran
			}
		}
		x.m.Tasks[i].CgroupID = best
	}
	return moved
}

// unseenRunFrom estimates when the run that ev (a sched_switch) ends
// began, for a previous task whose switch-in the trace lacks: an upper
// bound on the run, the CPU's previous switch (the trace's start when
// none) and, when that switch was recorded and the trace showed other runs
// of the task whole, no longer before ev than the longest of them
// (ext.longestRun). The CPU's previous switch may lie far back (it
// switched in a task that then left unseen): rcu_preempt's 8 µs runs made
// one of 5.4 ms, and its predicted run time read 45x the observed
// (new-user pass 27 F3; 1.21x with the bound). Measured on the fidelity
// table (go run ./bench/fidelity/run, 2026-12-06): 260 of 314 checks
// within bounds, as before; messaging-tracecmd (23 runs of unknown start
// in 1187) ran 1.021x the recording's run time instead of 1.047x, switched
// 0.916x instead of 0.816x and waited 0.804x instead of 1.052x. (Their
// mean instead of the longest left that delay at 0.739x, past its bound.)
func (x *extractor) unseenRunFrom(ev *trace.Event, s *ext) int64 {
	from := x.m.Start
	if ev.CPU >= 0 && x.cpuLast[ev.CPU] > 0 {
		from = x.cpuLast[ev.CPU]
		if s != nil && s.longestRun > 0 {
			from = max(from, ev.Time-s.longestRun)
		}
	}
	return from
}

func (x *extractor) switchEv(ev *trace.Event) {
	t := ev.Time
	if ev.CPU >= 0 {
		if c := x.cpuCurr[ev.CPU]; c > 0 && c != ev.TID {
			// The task this CPU last switched in left it unseen (lost
			// switch-out): assume it blocked at once. (Giving it the
			// time up to unseenRunFrom instead, as if only the switch
			// from it to ev's task were lost, moved the fidelity table's
			// messaging-tracecmd makespan from 1.028 to 0.883 and left
			// 2 fewer checks within the tight bounds: not taken.)
			if i, ok := x.byTID.get(c); ok && x.st[i].running && x.st[i].cpu == ev.CPU {
				s := &x.st[i]
				s.running, s.pend = false, -1
				x.endBurst(i, EndBlock)
				s.sleeping, s.blocked = true, s.segStart
			}
		}
	}
	if ev.TID > 0 {
		i := x.task(ev.TID, t, ev.CPU, InitRunnable)
		x.ident(i, ev, ev.PID, ev.Comm, ev.Prio)
		if ev.Cgroup != 0 {
			x.noteCgroup(i, ev)
		}
		if p := ev.Policy; p != trace.PolicyUnknown && int(p) < len(x.st[i].policies) {
			// The switch-out's: its task is current, so the recorder
			// reads its policy as it is (a switch-in's may be stale).
			x.st[i].policies[p]++
		}
		s := &x.st[i]
		if !s.running {
			// It ran without a recorded switch-in: since before the trace,
			// or the trace lost events (perf's "context switch bugs").
			// For how long is unknown (the reports leave the run out of
			// its run time): unseenRunFrom.
			from := x.unseenRunFrom(ev, s)
			if s.sleeping {
				x.setCause(i, Cause{Kind: CauseExternal, At: from, Inferred: true}, from)
			}
			if from < x.m.Tasks[i].Start {
				x.m.Tasks[i].Start = from
			}
			s.running, s.segStart, s.cpu, s.runFrom = true, from, ev.CPU, from
		}
		s.pend = -1 // the switch-out's own update_curr
		in := s.inAt
		if s.lostIn || s.cpu != ev.CPU {
			in = -1
		}
		if s.running {
			if s.inAt >= 0 && s.cpu == ev.CPU {
				x.ovSum += t - s.inAt - s.rtIn // CPU time of this run charged to no task
				x.ovN++
				s.longestRun = max(s.longestRun, t-s.inAt)
			}
			if s.cpu == ev.CPU && t > s.runFrom {
				x.m.Tasks[i].countTime(ev.CPU, t-s.runFrom)
			}
			s.accum += x.tail(s, t)
			s.running = false
		}
		s.inAt = -1
		if dl, _ := ev.SwitchDeadline(); dl {
			s.dl = true
		}
		switch {
		case ev.PrevState.Runnable() && s.dl:
			// A deadline task switched out runnable has used its
			// runtime (throttled) until the replenishment its next
			// switch-in dates: a block woken at that time.
			x.endBurst(i, EndBlock)
			s.sleeping, s.blocked, s.throttled = true, t, true
		case ev.PrevState.Runnable():
			s.rOuts++
			x.noteYield(i, ev, in)
			s.wakeAt, s.wakeIdle = t, false // waits for the CPU from now (perf's R semantics)
			s.pp = 0
			// (ev.CPU is checked before it indexes: -1 is "unknown".)
			if lw := x.lastWakeOn(ev.CPU); lw.waker == i && t-lw.t <= pingPongWindow {
				if n, ok := x.byTID.get(ev.NextTID); ok && n == lw.wakee {
					s.pp, s.ppAt = n+1, t // preempted by the task it just woke
				}
			}
		case ev.PrevState&(trace.StateDead|trace.StateZombie) != 0 || s.dead && ev.PrevState&(trace.StateInterruptible|trace.StateUninterruptible) == 0:
			// (After its sched_process_exit a task may still sleep in
			// do_exit, D, be woken and end with its X switch-out: that
			// sleep is a block, not its end, which made a second task
			// of its last run; new-user pass 33 F4.)
			if in >= 0 && s.waitFrom >= 0 {
				x.m.Tasks[i].FinalWaitFrom = s.waitFrom
			}
			x.endBurst(i, EndExit)
			x.byTID.del(ev.TID)
			x.m.Stats.Exits++
		default:
			x.endBurst(i, EndBlock)
			s.sleeping, s.blocked = true, t
			if s.early.Kind != 0 && t-s.early.Time <= earlyWakeWindow {
				e := s.early
				e.Time = t
				x.wake(&e)
			} else if s.early.Kind != 0 {
				s.late = s.early
			}
		}
		clearWake(&s.early)
	}
	if ev.NextTID > 0 {
		i := x.task(ev.NextTID, t, ev.CPU, InitRunnable)
		x.ident(i, ev, ev.NextPID, ev.NextComm, ev.NextPrio)
		s := &x.st[i]
		s.countPrio(ev.NextPrio)
		if _, dl := ev.SwitchDeadline(); dl {
			s.dl = true
		}
		if s.pp > 0 {
			x.pingPong(i, ev)
		}
		if s.sleeping && s.late.Kind != 0 && s.earlyBy.burst >= 0 {
			// lateEarlyWake: the wakeup sent while it still ran, from
			// where its waker was then.
			e := s.late
			e.Time = s.blocked
			x.setCause(i, x.dependOn(i, &e, s.earlyBy, e.WakerTID < 0), e.Time)
			x.noteWake(i, &e)
		}
		clearWake(&s.late)
		if s.sleeping {
			// Switched in without a recorded wakeup: an external event now
			// (a deadline task's replenishment after a throttle).
			x.setCause(i, Cause{Kind: CauseExternal, At: t, Inferred: true, Throttle: s.throttled}, t)
		}
		s.throttled = false
		s.ins++
		s.waitFrom = s.wakeAt
		if s.wakeAt >= 0 {
			d := t - s.wakeAt
			if d >= 0 {
				s.waitSum += d
				s.waitN++
				s.waitSq += float64(d) * float64(d)
			}
			next := ev.CPU >= 0 && s.wakeCPU == ev.CPU && x.cpuN[ev.CPU] == s.wakeN // the CPU's very next switch
			switch {
			case next && s.wakeIdle:
				x.idle = append(x.idle, d)
			case next && ev.TID > 0 && ev.PrevState.Runnable():
				x.preempt = append(x.preempt, d) // it preempted the running task
				x.preemptAt = append(x.preemptAt, t)
			}
			s.wakeAt = -1
		}
		if s.running && s.cpu != ev.CPU {
			s.accum += x.tail(s, t) // switched in elsewhere without a switch-out here
		}
		if ev.TID == 0 && ev.CPU >= 0 && int(ev.CPU) < len(x.idleExit) {
			x.idleExit[ev.CPU] = t
		}
		if bs := &s.bursts; s.accum == 0 && !s.running && bs.len() > 0 && bs.last(0).Len == 0 {
			bs.last(0).FromIdle = ev.CPU >= 0 && int(ev.CPU) < len(x.idleExit) && x.idleExit[ev.CPU] >= 0 && t-x.idleExit[ev.CPU] < idleWarmup
			if s.burstInOf != int64(bs.len()-1) {
				s.burstIn, s.burstInOf = t, int64(bs.len()-1)
			}
		}
		s.running, s.segStart, s.cpu = true, t, ev.CPU
		s.inAt, s.rtIn, s.runFrom = t, 0, t
		s.rtLast, s.rtPrev = -1, -1
		if ev.CPU >= 0 && ev.CPU < policies.MaxCPUs {
			x.m.Tasks[i].countIn(ev.CPU)
		}
	}
	if ev.CPU >= 0 {
		x.cpuCurr[ev.CPU] = ev.NextTID
		x.cpuLast[ev.CPU] = t
		x.cpuN[ev.CPU]++
	}
}

// enqueueWindow: a mid-run sched_stat_runtime of a CPU's current task at
// most this many ns after a wakeup, new task or migration aimed at that CPU
// is taken as the enqueue's update_curr (enqueue_entity accounts the
// current task first, kernel/sched/fair.c), not the task's own. 30 µs
// covers the IPI of a remote wakeup on this project's VM (measured: the
// enqueue's sched_stat_runtime follows the sched_waking by 2-20 µs in
// ../shared/traces/mi6.2cpu and srv.2cpu).
const enqueueWindow = 30_000

// markEnqueue notes that something was enqueued on cpu at t.
func (x *extractor) markEnqueue(cpu trace.CPU, t int64) {
	if cpu >= 0 && int(cpu) < len(x.enqAt) {
		x.enqAt[cpu] = t
	}
}

// commitPend turns task i's pending mid-run sched_stat_runtime into a
// candidate update point: a later one of the same run shows it was not
// the switch-out's.
func (x *extractor) commitPend(i int) {
	s := &x.st[i]
	if s.pend < 0 {
		return
	}
	if s.pendEnqueue {
		x.nEnqueue++
	} else {
		x.cands.push(updCand{i: i, b: s.bursts.len() - 1, off: s.pend, t: s.pendT, cpu: s.cpu})
	}
	s.pend = -1
}

func (x *extractor) endBurst(i int, end EndKind) {
	s := &x.st[i]
	b := s.bursts.last(0)
	b.Len, b.End = s.accum, end
	acts := s.acts.of(b)
	for k := range acts {
		if acts[k].At > b.Len {
			acts[k].At = b.Len
		}
	}
	s.ranClosed += b.Len
	s.accum, s.pend = 0, -1
	if end == EndBlock {
		s.bursts.push(Burst{})
	}
}

// earlyWakeWindow is how long before a task's switch-out into sleep a
// wakeup sent to it from another CPU still ends that sleep: a task that
// set its state and entered __schedule is still current when another CPU
// wakes it (try_to_wake_up finds p->on_cpu and queues it once the switch
// is done, kernel/sched/core.c v6.18), so its sched_switch shows it
// sleeping after the sched_waking that ends the sleep. Without this the
// wakeup was taken for one of a running task, and the run after it,
// often with no switch-in recorded either, had no cause. Measured on
// ../shared/traces: sched_waking 2 µs before the wakee's switch-out to S
// (pipe-ftrace, 817.799325 and .799327) and 11 µs before one to D
// (stress-futex, 683.898353 and .898364); 20 µs leaves room for a slower
// __schedule.
const earlyWakeWindow = 20_000

// lateEarlyWake: a wakeup sent from another CPU to a running task more
// than earlyWakeWindow before its switch-out into sleep (a slow
// __schedule on a loaded VM: 22.7 µs in new-user pass 23's q1.tv, a
// pipeline stage) still ended that sleep when the task is next switched
// in with no wakeup between: nothing else woke it (try_to_wake_up found
// it on its CPU and queued it for when the switch was done). Taken for an
// external event at the switch-in's recorded time instead, it pinned the
// stage's wait to that time, and a what-if with more CPU (--cpu-max
// PATH=max) had the whole pipeline wait 3.68 s for it.

// clearWake empties an ext's early or late wakeup. One that is empty
// already (Kind 0: both are only ever set to a wakeup) is left alone, as
// most are: writing a whole trace.Event at every switch was a measurable
// part of the extractor's time.
func clearWake(e *trace.Event) {
	if e.Kind != 0 {
		*e = trace.Event{}
	}
}

// wakerPoint is where a waker was in its run when it sent a wakeup: its
// task index, burst (-1: it was not running) and CPU time into it.
type wakerPoint struct {
	w, burst int
	off      int64
}

// wakerAt returns where wakeup ev's waker was (burst -1 when the waker is
// unknown, not running, the wakee itself, or an interrupt).
func (x *extractor) wakerAt(ev *trace.Event) wakerPoint {
	waker := ev.WakerTID
	if waker < 0 {
		waker = ev.CurTID
	}
	w, known := x.byTID.get(waker)
	if waker <= 0 || !known || waker == ev.TID || !x.st[w].running || ev.FromIRQ == trace.Yes {
		return wakerPoint{burst: -1}
	}
	return wakerPoint{w: w, burst: x.st[w].bursts.n - 1, off: x.consumed(w, ev.Time)}
}

// dependOn makes wakeup ev, sent by the task at p, the cause of task i's
// sleep: the wake action in the waker's burst, the wakee's next burst
// marked woken; it returns the cause (inferred: ev named no waker).
func (x *extractor) dependOn(i int, ev *trace.Event, p wakerPoint, inferred bool) Cause {
	s, ws := &x.st[i], &x.st[p.w]
	remote := ev.CPU >= 0 && ev.TargetCPU >= 0 && ev.CPU != ev.TargetCPU
	ws.addAction(ws.bursts.at(p.burst), Action{At: p.off, Kind: ActWake, Target: int32(i), Block: int32(s.bursts.len() - 2), Remote: remote})
	nb := s.bursts.last(0)
	nb.WokenBy, nb.WokenRemote = true, remote
	x.noteFIFO(i)
	if ev.CPU >= 0 && int(ev.CPU) < len(x.lastWake) {
		x.lastWake[ev.CPU] = wakeRec{waker: p.w, wakee: i, t: ev.Time}
	}
	return Cause{Kind: CauseDependency, Waker: int32(p.w), Inferred: inferred, At: ev.Time}
}

// lostSwitchIn starts a run of the task current at ev (CurTID, perf's
// sample tid: the task on ev.CPU when the event was recorded) when the
// records have that task asleep or waiting for a CPU, and ev.CPU idle
// since its last switch: its switch-in was lost, and for a sleeping task
// its wakeup too. Seen on this project's VM
// (kernel 6.18, 2026-12-03): a timer wakeup on an idle vCPU and the switch
// out of idle that followed were not recorded, though perf counted no
// lost events (traceview latency warns "the trace lacks the switches out
// of: idle"); in a recording of an open-loop request generator 3380 of its
// 4992 requests began that way. Without this the task's own events (its
// sched_waking of a worker, its sched_stat_runtime) were read as coming
// from a sleeping task: the worker's wakeup became a timer, and the
// generator's run started only at its switch-out.
//
// The run starts at ev.Time, the first evidence (dateLostSwitchIn moves
// it back with the run's first own sched_stat_runtime), and its wakeup is
// an inferred timer at that time, as a wakeup from an idle CPU with no
// recorded waker is in wake. An event at a CPU's last switch (the same
// timestamp, in either order) proves nothing and is left alone.
func (x *extractor) lostSwitchIn(ev *trace.Event) {
	if ev.CurTID <= 0 || ev.CurGone != 0 || ev.CPU < 0 || int(ev.CPU) >= len(x.cpuCurr) ||
		x.cpuCurr[ev.CPU] != 0 || ev.Time <= x.cpuLast[ev.CPU] {
		return
	}
	i, ok := x.byTID.get(ev.CurTID)
	if !ok {
		return
	}
	s := &x.st[i]
	if s.running || s.dead || ev.Time <= s.blocked || s.wakeAt >= 0 && ev.Time <= s.wakeAt {
		return
	}
	t := ev.Time
	s.lostLo = max(s.blocked, s.wakeAt)
	if s.sleeping {
		x.setCause(i, Cause{Kind: CauseTimer, Delay: t - s.blocked, At: t, Inferred: true}, t)
	}
	s.running, s.segStart, s.cpu = true, t, ev.CPU
	s.inAt, s.rtIn, s.wakeAt, s.lostIn, s.runFrom = -1, 0, -1, true, t
	if ev.CPU < policies.MaxCPUs {
		x.m.Tasks[i].countIn(ev.CPU)
	}
	x.cpuCurr[ev.CPU] = ev.CurTID
	x.m.Stats.LostSwitchIns++
}

// dateLostSwitchIn moves the start of task i's run that began with a lost
// switch-in back to in, the time its first own sched_stat_runtime implies
// (event time minus the run time it reports: update_curr charges the time
// since exec_start, set at the switch-in, kernel/sched/fair.c v6.18), when
// in lies after the task blocked and after its CPU's last recorded switch.
// Its wakeup moves with it.
func (x *extractor) dateLostSwitchIn(i int, in int64) {
	s := &x.st[i]
	s.lostIn = false
	bs := &s.bursts
	if bs.len() < 2 || in >= s.segStart || in <= s.lostLo || s.cpu < 0 || in <= x.cpuLast[s.cpu] || s.accum != 0 {
		return
	}
	if b := bs.last(1); b.Wake.Kind == CauseTimer && b.Wake.Inferred && b.Wake.At == s.segStart {
		b.Wake.At, b.Wake.Delay, b.Slept = in, in-s.blocked, in-s.blocked
	}
	// The actions of the run so far were placed at their time since the
	// first evidence: they lie that much further into the burst.
	cur := bs.last(0)
	acts := s.acts.of(cur)
	for k := range acts {
		acts[k].At += s.segStart - in
	}
	s.segStart, s.runFrom = in, in
}

// setCause records what ended task i's current block and starts its next
// burst's bookkeeping.
func (x *extractor) setCause(i int, c Cause, t int64) {
	s := &x.st[i]
	b := s.bursts.last(1) // the burst before the block (endBurst appended the next one)
	b.Wake = c
	b.Slept = t - s.blocked
	s.sleeping = false
}

func (x *extractor) wake(ev *trace.Event) {
	t := ev.Time
	i := x.task(ev.TID, t, ev.CPU, InitSleeping)
	x.ident(i, ev, ev.PID, ev.Comm, ev.Prio)
	s := &x.st[i]
	if !s.sleeping {
		if s.running && ev.CPU == s.cpu && ev.CurTID == ev.TID && ev.TID > 0 {
			s.selfWakes = append(s.selfWakes, selfWake{b: s.bursts.len() - 1, off: x.consumed(i, t), t: t})
		}
		if s.running && ev.CPU != s.cpu {
			s.early = *ev // see earlyWakeWindow
			s.earlyBy = x.wakerAt(ev)
		}
		return // already runnable: nothing ends here
	}
	clearWake(&s.late) // (a wakeup of its own ends the sleep)
	var c Cause
	switch p := x.wakerAt(ev); {
	case x.m.Tasks[i].Init == InitSleeping && s.bursts.len() == 2 && s.bursts.at(0).Len == 0 && s.blocked == x.m.Tasks[i].Start:
		// Asleep since before the trace: when it slept is unknown.
		c = Cause{Kind: CauseExternal, At: t, Inferred: true}
	case p.burst >= 0:
		c = x.dependOn(i, ev, p, ev.WakerTID < 0)
	default:
		c = Cause{Kind: CauseTimer, Delay: t - s.blocked, At: t, Inferred: ev.FromIRQ != trace.Yes}
	}
	x.setCause(i, c, t)
	x.noteWake(i, ev)
}

func (x *extractor) noteWake(i int, ev *trace.Event) {
	s := &x.st[i]
	s.wakeAt = ev.Time
	tc := ev.TargetCPU
	x.markEnqueue(tc, ev.Time)
	s.wakeIdle = tc >= 0 && int(tc) < len(x.cpuCurr) && x.cpuCurr[tc] == 0
	s.wakeCPU = tc
	if tc >= 0 && int(tc) < len(x.cpuN) {
		s.wakeN = x.cpuN[tc]
	}
}

// finish closes the tasks' last bursts and runs the inference passes, in
// this order: each pass reads what the ones before it decided.
func (x *extractor) finish() {
	m := x.m
	x.closeTasks()                                // end each task's last burst at the trace's end
	x.settlePrio()                                // the prio of most of each task's switch-ins
	x.findWorkload()                              // the traced command and its process tree (Task.Workload)
	x.inferPinning()                              // a taskset-pinned workload's affinity (pinning.go)
	x.inferTasksetPinning()                       // taskset-pinned parts of it (pinning.go)
	x.recordedAffinity()                          // the CPU affinity the recording read (pinning.go)
	x.inferIdlePinning()                          // without a traced command, tasks held on one CPU while others idled (pinning.go)
	x.bindPerCPUKthreads()                        // per-CPU kernel threads on their CPU (pinning.go)
	x.updatePoints()                              // the tick, and the update points that are not its (timers.go)
	x.yieldPoints()                               // sched_yield calls, off the tick (yields.go)
	x.absoluteTimers()                            // timer wakeups at absolute times become CauseExternal (timers.go)
	x.inferUntil()                                // how each workload task ends: work, count or deadline (until.go)
	x.inferPools()                                // worker pools that serve one queue (pools.go)
	recordedAutogroups(m)                         // the autogroups the recording read (sessions.go)
	inferSessions(m)                              // setsid session leaders, for autogroups (sessions.go)
	x.inferTracedSession()                        // the traced command's own session, from delays (sessions.go)
	x.measureCosts()                              // remote wakeup, remote wakee and idle-start costs (costs.go)
	m.Stats.RecoveredArrivals = x.splitArrivals() // arrivals merged into one burst (arrivals.go)
	servesArrivals(m)                             // no deadline for an open-loop service's threads (arrivals.go)
	x.drainsProducer()                            // nor for a paced producer's consumers that drained a backlog (arrivals.go)
	x.inferLoopsUntilExit()                       // timer loops that end when another task exits (until.go)
	relativeUnknownWakes(m)                       // unknown wakes of relative-timer tasks as timers of their length (timers.go)
	m.Stats.QueuedRequests = x.requestQueues()    // a pool's work as one request per arrival (requests.go)
	inferWakeAny(m)                               // tasks woken by any of several wakers (wakeany.go)
	x.meanDelays()                                // each task's mean recorded scheduling delay (wakeany.go)
	x.countCauses()                               // the blocking points by cause, for ModelStats
	x.measureLatencies()                          // idle exit, wakeup preemption, context switch (costs.go)
}

// closeTasks ends each task's last burst at the end of the trace: a
// running task's by the trace's end, a sleeping one's with a wakeup that
// never came.
//
// Closing a task reads and writes that task's state only, so the tasks
// are closed in two runs of about as many bursts each, at once: flatten
// and Pack copy every burst and action of the model (0.08 s a run on
// bench/replaymem's 2 M-event file, with nothing else running).
func (x *extractor) closeTasks() {
	m := x.m
	if m.Start < 0 {
		m.Start = 0
	}
	total := 0
	for i := range x.st {
		total += x.st[i].bursts.len()
	}
	mid, acc := len(x.st), 0
	for i := range x.st {
		if acc += x.st[i].bursts.len(); 2*acc >= total {
			mid = i + 1
			break
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		x.closeRange(mid, len(x.st))
	}()
	x.closeRange(0, mid)
	wg.Wait()
}

// cutSpan is Task.CutSpan for a last burst the trace saw from time from
// to its end: at least 1 ns, as 0 means unknown (a task switched in by
// the trace's last event was seen in it for no time: its hold ends at once).
func cutSpan(end, from int64) int64 { return max(1, end-from) }

// closeRange closes tasks lo..hi-1 (closeTasks).
func (x *extractor) closeRange(lo, hi int) {
	m := x.m
	for i := lo; i < hi; i++ {
		s := &x.st[i]
		bs := &s.bursts
		last := bs.last(0)
		switch {
		case s.running:
			s.accum += x.tail(s, m.End)
			s.running = false
			if s.burstInOf == int64(bs.len()-1) {
				m.Tasks[i].CutSpan = cutSpan(m.End, s.burstIn)
			}
			x.endBurst(i, EndTrace)
		case s.sleeping:
			// The block after the previous burst never ended: drop the
			// empty trailing burst.
			if bs.len() > 1 && last.Len == 0 && last.NumActions() == 0 {
				bs.pop()
				bs.last(0).Wake = Cause{Kind: CauseNever}
			} else {
				last.End = EndBlock
				last.Wake = Cause{Kind: CauseNever}
			}
		case bs.len() > 0 && (last.End != EndExit || last.Len == 0 && s.accum > 0):
			if last.End != EndExit {
				last.Len = s.accum
				last.End = EndTrace
				switch {
				case s.burstInOf == int64(bs.len()-1):
					m.Tasks[i].CutSpan = cutSpan(m.End, s.burstIn) // preempted at the end
				case s.wakeAt >= 0:
					m.Tasks[i].CutSpan = cutSpan(m.End, s.wakeAt) // woken, not yet run
				}
			}
		}
		m.Tasks[i].Bursts = bs.flatten()
		m.Tasks[i].acts = s.acts.pack(m.Tasks[i].Bursts)
		s.acts = actList{}
		m.Tasks[i].packUpdates()
	}
}

// countCauses counts the tasks, bursts and blocking points by cause into
// Model.Stats.
func (x *extractor) countCauses() {
	m := x.m
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
}
