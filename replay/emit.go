// The simulator's output. It records compact, pointer-free records (so a
// million-event prediction costs little memory and no GC scanning) and
// Result.Source turns them into trace.Event values on demand.

package replay

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// Source returns the prediction as a trace.Source for the reports; each
// call starts a new stream from the first event.
func (r *Result) Source() trace.Source {
	if r.dropped {
		return droppedSource{r.Meta}
	}
	if r.recorded != nil {
		return r.recorded.Source(r.Meta)
	}
	return r.newRecSource(&recCursor{l: &r.recs}, r.tasks)
}

// newRecSource reads the predicted events recs of the simulation's tasks.
func (r *Result) newRecSource(recs recReader, tasks []*policies.Task) *recSource {
	rs := &recSource{recs: recs, tasks: tasks, cg: r.cgroupOf, meta: r.Meta, policies: r.policies, renames: r.renames, first: r.first}
	if r.renames != nil {
		rs.named = make([]int32, len(r.renames))
	}
	return rs
}

// DropEvents lets the prediction's events go: a caller that has read them
// (its latency table) keeps the rest of the Result (Stats, Makespan, End,
// Groups) without them. Source then fails with ErrEventsDropped.
func (r *Result) DropEvents() {
	r.recs, r.recorded, r.dropped = recLog{}, nil, true
}

// DrainEvents is Source for a caller that reads the prediction's events
// once and last (its latency table): the stream releases each chunk of
// them once read (about 5000 events), and the Result is left as after
// DropEvents. The predicted table is the last thing a replay computes, at
// its heap's peak: on bench/replaymem's 2 M-event file the self-replay's
// events are 9.5 MB of live heap when it starts (heap profile).
func (r *Result) DrainEvents() trace.Source {
	src := r.Source()
	if rs, ok := src.(*recSource); ok {
		l := r.recs // the stream's own: it releases the chunks it has read
		rs.recs = &recCursor{l: &l, drain: true}
	}
	r.DropEvents()
	return src
}

// ErrEventsDropped is what a Result's Source returns after DropEvents.
var ErrEventsDropped = errors.New("replay: the prediction's events were dropped (Result.DropEvents)")

type droppedSource struct{ meta *trace.Meta }

func (s droppedSource) Next() (trace.Event, error) { return trace.Event{}, ErrEventsDropped }
func (s droppedSource) Meta() *trace.Meta          { return s.meta }
func (s droppedSource) Close() error               { return nil }

// recChunkBytes is the size a recLog chunk is given (about 5000 records).
const recChunkBytes = 64 << 10

// recLog is the simulator's output, each record as varints (about 12
// bytes, where a rec is 40) in fixed-size chunks: growing it never copies,
// and its size follows what the simulation emits rather than a
// reservation. recSource decodes the records back in order.
type recLog struct {
	chunks [][]byte
	n      int
	last   int64 // ns, the last record's time
	// pub, when not nil, is handed each chunk once full and the last one
	// at the end (flush), for a reader beside the simulation
	// (SimulateInto); pubN records were handed over. With drop, a chunk
	// handed over is not kept.
	pub  chan<- recChunk
	pubN int
	drop bool
}

// recChunk is a chunk of a recLog handed to a reader: its records, n of
// them, never written again.
type recChunk struct {
	b []byte
	n int
}

func (l *recLog) add(r rec) {
	cs := l.chunks
	if len(cs) == 0 || cap(cs[len(cs)-1])-len(cs[len(cs)-1]) < maxRecBytes {
		if l.pub != nil && len(cs) > 0 {
			l.handOver() // full
		}
		l.chunks = append(l.chunks, make([]byte, 0, recChunkBytes))
	}
	// Encoded in place: the chunk has room for the longest record.
	k := len(l.chunks) - 1
	b := l.chunks[k]
	b = binary.AppendVarint(b, r.t-l.last)
	b = append(b, byte(r.kind), byte(r.irq))
	for _, v := range [...]int64{int64(r.task), int64(r.other), int64(r.cur), int64(r.cpu), int64(r.cpu2), int64(r.state)} {
		b = binary.AppendVarint(b, v)
	}
	if r.kind == trace.KindRuntime {
		b = binary.AppendVarint(b, r.runtime)
	}
	l.chunks[k] = b
	l.last = r.t
	l.n++
}

// maxRecBytes bounds a record's encoding (recLog.add): its kind and irq
// bytes and at most eight varints.
const maxRecBytes = 2 + 8*binary.MaxVarintLen64

// handOver hands the last chunk's records not handed over yet to pub.
func (l *recLog) handOver() {
	k := len(l.chunks) - 1
	if k < 0 || l.n == l.pubN {
		return
	}
	l.pub <- recChunk{b: l.chunks[k], n: l.n - l.pubN}
	l.pubN = l.n
	if l.drop {
		l.chunks[k] = nil // the reader's now (appendChunked starts another)
	}
}

// flush hands the rest to pub and closes it: the log is complete.
func (l *recLog) flush() {
	if l.pub == nil {
		return
	}
	l.handOver()
	close(l.pub)
	l.pub = nil
}

// recCursor reads a recLog's records in order.
type recCursor struct {
	l     *recLog
	drain bool // release each chunk of l once read (Result.DrainEvents)
	i     int  // records read
	c     varintCursor
	t     int64 // ns, the previous record's time
}

// next decodes the next record into r; false after the last.
func (c *recCursor) next(r *rec) bool {
	if c.i >= c.l.n {
		return false
	}
	v := &c.c
	first := v.chunk
	v.begin(c.l.chunks)
	if c.drain {
		for k := first; k < v.chunk; k++ {
			c.l.chunks[k] = nil // read
		}
	}
	decodeRec(v, &c.t, r)
	v.end()
	c.i++
	return true
}

// decodeRec decodes the record v begins into r (recLog.add's encoding);
// *t is the previous record's time in ns, and becomes r's.
func decodeRec(v *varintCursor, t *int64, r *rec) {
	*t += v.varint()
	*r = rec{t: *t, kind: trace.Kind(v.octet()), irq: trace.Tristate(int8(v.octet()))}
	r.task, r.other, r.cur = int32(v.varint()), int32(v.varint()), int32(v.varint())
	r.cpu, r.cpu2, r.state = int16(v.varint()), int16(v.varint()), trace.TaskState(v.varint())
	if r.kind == trace.KindRuntime {
		r.runtime = v.varint()
	}
}

// recStream reads the chunks a recLog hands over (recLog.pub) as they
// come, waiting for the next one; false once the log is complete.
type recStream struct {
	ch   <-chan recChunk
	cur  []byte // the chunk being read, from the next record on
	left int    // its records not read yet
	t    int64  // ns, the previous record's time
}

func (s *recStream) next(r *rec) bool {
	for s.left == 0 {
		c, ok := <-s.ch
		if !ok {
			return false
		}
		s.cur, s.left = c.b, c.n
	}
	v := varintCursor{b: s.cur}
	decodeRec(&v, &s.t, r)
	s.cur, s.left = s.cur[v.p:], s.left-1
	return true
}

// recReader is where a recSource reads its records: a recCursor over a
// complete log, or a recStream beside the simulation.
type recReader interface{ next(r *rec) bool }

// rec is one predicted event.
type rec struct {
	t       int64
	runtime int64
	task    int32 // subject task ID, -1 for the idle task
	other   int32 // switch: next (-1 idle); fork: child; waking/wakeup_new: waker (-1 none)
	cur     int32 // the task current on cpu when the event was emitted, -1 idle (the event's CurTID)
	cpu     int16
	cpu2    int16 // waking/wakeup_new: target CPU; migrate: destination
	kind    trace.Kind
	irq     trace.Tristate
	state   trace.TaskState
}

func (s *sim) emit(r rec, t *policies.Task) {
	r.cur = s.curOn(int(r.cpu))
	s.out.add(r)
	if t != nil && (s.wlAll || s.m.Tasks[t.ID].Workload) {
		if s.wlFirst < 0 {
			s.wlFirst = r.t
		}
		s.wlLast = r.t
	}
}

// curOn returns the ID of the task current on cpu, -1 when it is idle: an
// event's CurTID is the task the emitting CPU was running, as in a trace
// (a timer's wakeup interrupts whatever runs there).
func (s *sim) curOn(cpu int) int32 {
	if cpu < 0 || cpu >= len(s.cpus) || s.cpus[cpu].curr == nil {
		return -1
	}
	return int32(s.cpus[cpu].curr.ID)
}

func (s *sim) emitTask(k trace.Kind, cpu int, t *policies.Task) {
	s.emit(rec{t: s.now, kind: k, task: int32(t.ID), other: -1, cpu: int16(cpu), cpu2: -1}, t)
}

// emitComm names t for the reports (after its fork event, which makes a
// child inherit its parent's name), when the recording named it by a
// record of its own (not Task.Unnamed): a task the recording knows only
// from tracepoint comms keeps perf's ":TID" on both sides of a comparison.
func (s *sim) emitComm(t *policies.Task, cpu int) {
	if s.m.Tasks[t.ID].Unnamed {
		return
	}
	s.out.add(rec{t: s.now, kind: trace.KindComm, task: int32(t.ID), other: -1, cpu: int16(cpu), cpu2: -1, cur: s.curOn(cpu)})
}

// renameDue emits the renames of t (Task.Renames) that its run time
// (ranNow) has reached, or, with all, every one not emitted yet (its work
// is done): a sched_process_exec for an exec, else a comm record, each
// naming the rename by its index (rec.other; the stream's reader names the
// task's events from there on, recSource.names).
func (s *sim) renameDue(t *policies.Task, cpu int, all bool) {
	rn := s.m.Tasks[t.ID].Renames
	st := &s.ts[t.ID]
	ran := s.ranNow(cpu, t)
	if k := int(st.renamed); k >= len(rn) || !all && rn[k].CPU > ran {
		return
	}
	if c := &s.cpus[cpu]; c.curr == t {
		// The run so far is the old name's: a sched_stat_runtime for it
		// first, as the switch-out gives one for the whole run (the
		// reports charge run time to the name the event carries;
		// new-user pass 37 F1: a run that exec'd twice was all charged to
		// its last name). What is not charged yet is taken from the next
		// charge (st.ran below 0 until then).
		uncharged := ran - t.SumExec
		if r := st.ran + uncharged; r > 0 {
			s.emit(rec{t: s.now, kind: trace.KindRuntime, task: int32(t.ID), other: -1, cpu: int16(cpu), cpu2: -1, runtime: r}, t)
			st.ran = -uncharged
		}
	}
	for k := int(st.renamed); k < len(rn) && (all || rn[k].CPU <= ran); k++ {
		kind := trace.KindComm
		if rn[k].Exec {
			kind = trace.KindExec
		}
		s.out.add(rec{t: s.now, kind: kind, task: int32(t.ID), other: int32(k), cpu: int16(cpu), cpu2: -1, cur: s.curOn(cpu)})
		st.renamed++
	}
}

func (s *sim) emitMigrate(t *policies.Task, src, dst int) {
	s.stats.Migrations++
	s.emit(rec{t: s.now, kind: trace.KindMigrate, task: int32(t.ID), other: -1, cpu: int16(src), cpu2: int16(dst)}, t)
}

// throttleAt reports whether the block after burst j of task i is a
// SCHED_DEADLINE throttle (Cause.Throttle), which the kernel shows as a
// runnable switch-out and a switch-in with no wakeup.
func (s *sim) throttleAt(i, j int) bool {
	if !s.m.Tasks[i].SchedDeadline {
		return false
	}
	bs := s.m.Tasks[s.ts[i].src].Bursts
	return j >= 0 && j < len(bs) && bs[j].Wake.Throttle
}

func (s *sim) emitSwitch(cpu int, prev, next *policies.Task) {
	s.stats.Switches++
	r := rec{t: s.now, kind: trace.KindSwitch, task: -1, other: -1, cpu: int16(cpu), cpu2: -1}
	if prev != nil {
		st := &s.ts[prev.ID]
		if st.ran > 0 {
			s.emit(rec{t: s.now, kind: trace.KindRuntime, task: int32(prev.ID), other: -1, cpu: int16(cpu), cpu2: -1, runtime: st.ran}, prev)
			st.ran = 0
		}
		s.renameDue(prev, cpu, prev.State == policies.TaskDead)
		r.task = int32(prev.ID)
		switch prev.State {
		case policies.TaskRunnable:
			r.state = trace.StatePreempted
			if s.yielding {
				r.state = trace.StateRunning // a yield: "R", not "R+"
			}
		case policies.TaskDead:
			r.state = trace.StateDead
		default:
			r.state = trace.StateInterruptible
			if s.throttleAt(prev.ID, s.ts[prev.ID].burst) {
				r.state = trace.StatePreempted // throttled, still TASK_RUNNING
			}
		}
	}
	if next != nil {
		r.other = int32(next.ID)
		s.renameDue(next, cpu, false)
	}
	s.emit(r, prev)
	if next != nil && (s.wlAll || s.m.Tasks[next.ID].Workload) {
		if s.wlFirst < 0 {
			s.wlFirst = s.now
		}
		s.wlLast = s.now
	}
}

// recSource serves a Result's records as trace events.
type recSource struct {
	recs  recReader
	tasks []*policies.Task
	cg    []uint64 // Result.cgroupOf
	meta  *trace.Meta
	r     rec
	// renames are the model's tasks' renames (Task.Renames, nil for a
	// task never renamed) and first their first names (Task.FirstComm);
	// named is, per renamed task, 1 + the index of the rename that names
	// it now (0: its first name). Nil renames: every task keeps its name.
	renames [][]Rename
	first   []string
	named   []int32
	// policies: name each task's scheduling policy (Result.policies).
	policies bool
}

// predictedCgroups names the task groups of a prediction as a capture
// with cgroups does (perf record --all-cgroups, traceview record), so
// that its reports (latency --by cgroup, info) see them: group k of
// res.Groups (the root first) is cgroup id trace.RootCgroupID+k in
// Meta.Cgroups, with its settings in Meta.CgroupSettings, and each
// sched_switch carries the id of the task it switches out (perf's
// PERF_SAMPLE_CGROUP: the group of the task running when the event
// fired). tg is each model task's group index (Groups). With the groups
// not modelled (Result.GroupsModelled false) their settings say so
// (trace.NotModelledSource, no quota, no weight).
func predictedCgroups(res *Result, tg []int) {
	if len(res.Groups) < 2 || len(tg) == 0 {
		return
	}
	res.Meta.Cgroups = make(map[uint64]string, len(res.Groups))
	for k, g := range res.Groups {
		id := uint64(trace.RootCgroupID + k)
		res.Meta.Cgroups[id] = g.Path
		if k > 0 && !res.GroupsModelled {
			// The policy ran every task as a peer: no quota and no
			// weight of the recording's was in force.
			res.Meta.CgroupSettings = append(res.Meta.CgroupSettings, trace.CgroupSettings{Path: g.Path, QuotaNS: -1, PeriodNS: trace.DefaultCfsPeriod, Source: trace.NotModelledSource})
		} else if k > 0 {
			s := g.CgroupSettings
			// (What, not the advice after a ";".)
			s.Source, _, _ = strings.Cut(cmp.Or(g.QuotaSource, g.Source), ";")
			if w, _, _ := strings.Cut(cmp.Or(g.WeightSource, g.Source), ";"); w != s.Source {
				s.WeightSource = w
			}
			res.Meta.CgroupSettings = append(res.Meta.CgroupSettings, s)
			for _, c := range g.Changes {
				mergeSettings(&s, c)
				s.Time = c.Time
				res.Meta.CgroupSettings = append(res.Meta.CgroupSettings, s)
			}
		}
	}
	res.cgroupOf = make([]uint64, len(tg))
	for i, g := range tg {
		if g >= 0 && g < len(res.Groups) {
			res.cgroupOf[i] = uint64(trace.RootCgroupID + g)
		}
	}
}

func (rs *recSource) Meta() *trace.Meta { return rs.meta }

func (rs *recSource) Close() error { return nil }

func (rs *recSource) Next() (trace.Event, error) {
	if !rs.recs.next(&rs.r) {
		return trace.Event{}, io.EOF
	}
	return rs.event(&rs.r), nil
}

func (rs *recSource) subject(ev *trace.Event, id int32) {
	if id < 0 {
		ev.TID, ev.PID, ev.Comm, ev.Prio = 0, 0, "swapper", 120
		if rs.policies {
			ev.Policy = trace.PolicyNormal // the idle task's, as a capture records it
		}
		return
	}
	t := rs.tasks[id]
	ev.TID, ev.PID, ev.Comm, ev.Prio = t.TID, t.PID, rs.comm(id), t.Prio()
	if rs.policies {
		ev.Policy = t.Policy()
	}
}

// comm is the name of task id at the event being read: its last (Comm),
// or for a task renamed during the trace the name it has reached.
func (rs *recSource) comm(id int32) string {
	if int(id) < len(rs.renames) && rs.renames[id] != nil {
		if k := rs.named[id]; k > 0 {
			return rs.renames[id][k-1].Comm
		}
		return rs.first[id]
	}
	return rs.tasks[id].Comm
}

func (rs *recSource) event(r *rec) trace.Event {
	if (r.kind == trace.KindComm || r.kind == trace.KindExec) && r.task >= 0 && int(r.task) < len(rs.named) {
		rs.named[r.task] = r.other + 1 // (-1, the first name at the task's start: 0)
	}
	ev := trace.NewEvent(r.t, trace.CPU(r.cpu), r.kind)
	rs.subject(&ev, r.task)
	ev.CurTID, ev.CurPID = 0, 0
	if r.cur >= 0 {
		c := rs.tasks[r.cur]
		ev.CurTID, ev.CurPID = c.TID, c.PID
	}
	switch r.kind {
	case trace.KindSwitch:
		ev.PrevState = r.state
		if rs.cg != nil {
			ev.Cgroup = trace.RootCgroupID // the idle task's
			if r.task >= 0 && int(r.task) < len(rs.cg) {
				ev.Cgroup = rs.cg[r.task]
			}
		}
		var nx trace.Event
		rs.subject(&nx, r.other)
		ev.NextTID, ev.NextPID, ev.NextComm, ev.NextPrio, ev.NextPolicy = nx.TID, nx.PID, nx.Comm, nx.Prio, nx.Policy
	case trace.KindWaking, trace.KindWakeupNew:
		ev.TargetCPU, ev.FromIRQ = trace.CPU(r.cpu2), r.irq
		ev.WakerTID = 0
		if r.other >= 0 {
			ev.WakerTID = rs.tasks[r.other].TID
		}
		if r.kind == trace.KindWakeupNew {
			ev.FromIRQ = trace.Unknown
		}
	case trace.KindFork:
		c := rs.tasks[r.other]
		ev.ChildTID, ev.ChildPID, ev.ChildComm = c.TID, c.PID, rs.comm(r.other)
	case trace.KindMigrate:
		ev.OrigCPU, ev.DestCPU = trace.CPU(r.cpu), trace.CPU(r.cpu2)
	case trace.KindRuntime:
		ev.Runtime = r.runtime
	}
	return ev
}

// Events returns the whole prediction as a slice (for tests and small
// traces; reports should stream Source).
func (r *Result) Events() []trace.Event {
	evs, _ := trace.ReadAll(r.Source())
	return evs
}
