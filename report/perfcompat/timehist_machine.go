package perfcompat

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/trace"
)

// timehistThread is one thread identity as perf's thread table
// (tools/perf/util/machine.c, thread.c; perf 6.12) knows it, plus the
// per-thread state of `perf sched timehist` (struct thread_runtime in
// tools/perf/builtin-sched.c) and of `perf sched map` (shortname,
// comm_changed).
type timehistThread struct {
	tid     trace.TID
	pid     trace.PID // -1 until known
	ppid    trace.TID // tid of the forking parent; -1 unknown
	comm    string
	commSet bool // named by a COMM record or a fork (perf's thread__comm_set)
	// commAt: the time of the COMM record or fork that named it (0: one
	// perf synthesized at the recording's start, from /proc; see name).
	commAt int64
	seq    int // creation order, for a deterministic summary order
	// commMatched (outside Exact): an event of the thread passed the
	// --comm filter under some name, so the summary keeps it (filtered).
	commMatched bool

	// timehist (struct thread_runtime).
	lastTime   int64 // ns: last sched_switch that switched this thread out
	readyToRun int64 // ns: first wakeup since then (or the switch-out itself when preempted)
	// Outside Exact: running says a sched_switch switched the thread in
	// and none out since; racePending that a waking came while it ran
	// and nothing in its own context since (the schedule's remembered
	// waking); raced that readyToRun is a switch-out to sleep such a
	// waking came before.
	running, racePending, raced bool
	// queuedWake (outside Exact) is the first waking since a preemption
	// (ns; 0 none): it found the task queued; a second one means it ran
	// and slept unseen in between.
	queuedWake int64
	lastState  byte // perf's state letter at the last switch-out
	dtRun      int64
	dtSleep    int64
	dtIOWait   int64
	dtPreempt  int64
	dtDelay    int64
	delayEnd   int64 // ns: the switch-in that ended dtDelay
	// Outside Exact (timehist_unrecorded.go): hasOff says that during its
	// current wait the task was queued on offCPU, a CPU that had recorded
	// no event then; dtUnrecorded that dtDelay is not measured.
	offCPU       trace.CPU
	hasOff       bool
	dtUnrecorded bool
	// dtNoWake (outside Exact): the row's sch delay is not known, its wait
	// is: a sleep the trace shows no wakeup ending; dtFirstSeen: neither
	// is, the task's first switch-in (asleep or waiting since before the
	// trace). Both print "-" where perf prints 0.000.
	// dtRunUnknown: the run time is not known either (the CPU's first
	// switch: its switch-in is before the trace).
	// dtWaitUnknown: the wait is not known, the delay is: the task's
	// first event is a wakeup (it slept since before the trace, or
	// since before a loss that took its earlier events).
	dtNoWake, dtFirstSeen, dtRunUnknown, dtWaitUnknown bool
	qCPU                                               trace.CPU // the CPU it waits on (queuedOn; recordings of some CPUs)
	qIn                                                int32     // 1 + the CPU whose qList holds it, 0 none (queuedOn)
	// ranUnseen: during its current wait the task ran unseen (a record in
	// its context on a CPU that recorded nothing, or an exec or rename of
	// its own: noteRanUnseen); its delay is not measured.
	ranUnseen bool

	run timehistStats
	// unmeasured counts the runs outside run's statistics (outside
	// Exact: a run across lost events, or whose switch-in the trace
	// lacks): switches all the same, in the summary's sched-in count.
	unmeasured int64
	totalRun   int64
	totalSleep int64
	totalIO    int64
	totalPre   int64
	totalDelay int64
	migrations uint64
	prio       int32 // prio at the last switch-in; -1 unknown

	// map.
	shortname   [2]byte // 0 = none yet
	commChanged bool
	// shownComm is the name map last said XX stands for: without Exact
	// a COMM record that sets the same name again (prctl PR_SET_NAME in
	// a loop) is no rename and gets no new "XX => comm:tid".
	shownComm string

	lastIdle *timehistThread // idle threads only: the task that ran before (-I)

	// commStr cache: the rendered "comm[tid/pid]" for cachedComm/cachedPID.
	cached     []byte
	cachedComm string
	cachedPID  trace.PID
}

// timehistStats is perf's util/stat.c running statistics (Welford's
// online mean/variance, float64 like perf's doubles), kept bit-compatible
// so avg and stddev print exactly as perf prints them.
type timehistStats struct {
	n, mean, m2 float64
	max, min    int64
}

func (s *timehistStats) update(v int64) {
	s.n++
	delta := float64(v) - s.mean
	s.mean += delta / s.n
	s.m2 += delta * (float64(v) - s.mean)
	if s.n == 1 || v > s.max {
		s.max = v
	}
	if s.n == 1 || v < s.min {
		s.min = v
	}
}

// relStddev is perf's rel_stddev_stats(stddev_stats(), avg): the standard
// error of the mean, sqrt(M2/(n-1)/n), as a percentage of the mean.
func (s *timehistStats) relStddev() float64 {
	if s.n < 2 || s.mean == 0 {
		return 0
	}
	v := s.m2 / (s.n - 1) / s.n
	return 100 * math.Sqrt(v) / s.mean
}

// timehistMachine is the thread table the timehist and map views resolve
// task ids in. In exact mode it reproduces perf 6.12's rules, warts
// included, so the views print what perf prints:
//   - a thread seen without a COMM record is named ":TID";
//   - PERF_RECORD_EXIT removes the thread (timehist only), so a later
//     sample of it starts a fresh ":TID" thread with zeroed statistics;
//   - finding a thread with a known pid sets its pid once (and creates the
//     group leader's entry);
//   - a FORK removes any thread that still holds the child's tid.
//
// Outside exact mode the table keeps exited threads until their tid is
// reused and names unnamed threads from the tracepoint's comm field.
type timehistMachine struct {
	exact       bool
	removeExits bool
	byTID       []*timehistThread             // indexed by tid, 0 <= tid < timehistDenseTIDs
	sparse      map[trace.TID]*timehistThread // other tids (-1, corrupt values)
	seq         int
	// perfOrder mirrors, in exact mode, the order of perf's thread table
	// (perfThreads), which is the row order of perf's summary.
	perfOrder *perfThreads
	// retired holds, outside exact mode, the earlier incarnations of
	// reused tids (a fork of a tid the table still held), so the summary
	// keeps every task identity.
	retired []*timehistThread
}

func newTimehistMachine(exact, removeExits bool) *timehistMachine {
	m := &timehistMachine{exact: exact, removeExits: removeExits, byTID: make([]*timehistThread, 4096), sparse: map[trace.TID]*timehistThread{}}
	if exact {
		m.perfOrder = &perfThreads{}
	}
	// perf's host machine knows the idle task as "swapper" (pid 0).
	sw := m.newThread(0, 0)
	sw.comm, sw.commSet = "swapper", true
	return m
}

func (m *timehistMachine) newThread(pid trace.PID, tid trace.TID) *timehistThread {
	m.seq++
	t := &timehistThread{tid: tid, pid: pid, ppid: -1, seq: m.seq, prio: -1}
	t.comm = ":" + strconv.Itoa(int(tid))
	m.set(tid, t)
	if m.perfOrder != nil {
		m.perfOrder.add(t)
	}
	return t
}

// timehistDenseTIDs bounds the directly indexed tids: the kernel's
// PID_MAX_LIMIT (4194304, include/linux/threads.h).
const timehistDenseTIDs = 1 << 22

func (m *timehistMachine) get(tid trace.TID) *timehistThread {
	if tid < 0 || tid >= timehistDenseTIDs {
		return m.sparse[tid]
	}
	if int(tid) < len(m.byTID) {
		return m.byTID[tid]
	}
	return nil
}

func (m *timehistMachine) set(tid trace.TID, t *timehistThread) {
	if tid < 0 || tid >= timehistDenseTIDs {
		if t == nil {
			delete(m.sparse, tid)
		} else {
			m.sparse[tid] = t
		}
		return
	}
	if int(tid) >= len(m.byTID) {
		n := 2 * len(m.byTID)
		for n <= int(tid) {
			n *= 2
		}
		grown := make([]*timehistThread, n)
		copy(grown, m.byTID)
		m.byTID = grown
	}
	m.byTID[tid] = t
}

// all returns the live threads in creation order (in exact mode, in the
// order perf's thread table iterates them); outside exact mode also the
// earlier incarnations of reused tids.
func (m *timehistMachine) all() []*timehistThread {
	if m.perfOrder != nil {
		return m.perfOrder.all()
	}
	out := append([]*timehistThread(nil), m.retired...)
	for _, t := range m.byTID {
		if t != nil {
			out = append(out, t)
		}
	}
	for _, t := range m.sparse {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// find returns the thread holding tid (nil if none), updating its pid as
// perf's machine__find_thread does.
func (m *timehistMachine) find(pid trace.PID, tid trace.TID) *timehistThread {
	t := m.get(tid)
	if t != nil {
		m.updatePID(t, pid)
	}
	return t
}

// findnew is perf's machine__findnew_thread.
func (m *timehistMachine) findnew(pid trace.PID, tid trace.TID) *timehistThread {
	if t := m.get(tid); t != nil {
		m.updatePID(t, pid)
		return t
	}
	t := m.newThread(pid, tid)
	if pid != -1 && trace.TID(pid) != tid {
		m.findnew(pid, trace.TID(pid)) // thread__init_maps: the group leader shares its maps
	}
	return t
}

func (m *timehistMachine) updatePID(t *timehistThread, pid trace.PID) {
	if pid == t.pid || pid == -1 || t.pid != -1 {
		return
	}
	t.pid = pid
	if trace.TID(pid) != t.tid {
		m.findnew(pid, trace.TID(pid))
	}
}

func (m *timehistMachine) remove(t *timehistThread) {
	if m.get(t.tid) == t {
		m.set(t.tid, nil)
		if m.perfOrder != nil {
			m.perfOrder.remove(t)
		}
		if !m.exact {
			m.retired = append(m.retired, t)
		}
	}
}

// name gives an unnamed thread the tracepoint's comm at time at (not in
// exact mode, where perf keeps ":TID"). It also renames a named thread
// whose tracepoint says otherwise after the record that named it: a rename
// the trace lost (a cut perf.data loses an exec's COMM record with the CPU
// buffer it was in: "perf-exec" where sched_switch said "wl1.sh"), but for
// a name perf synthesized from /proc that extends the tracepoint's (a
// kworker's "kworker/0:0-events": wq_worker_comm, kernel/workqueue.c
// v6.12, appends its workqueue), and for such a worker's name given at
// any time (perf script text's task column, which the text reader gives
// where the task's first line shows it: new-user pass 113 F7, timehist of
// a perf.data's text named "kworker/0:0-mm_" "kworker/0:0"). As
// LatencyThread.Named.
func (m *timehistMachine) name(t *timehistThread, comm string, at int64) {
	if m.exact || comm == "" || t.tid == 0 {
		return
	}
	if !t.commSet {
		t.comm = comm
	} else if comm != t.comm && at > t.commAt && (t.commAt > 0 && !workerExtends(t.comm, comm) || !strings.HasPrefix(t.comm, comm)) {
		t.comm, t.commAt = comm, at
	}
}

// observe applies the thread-table side of an event: COMM/exec, FORK and
// EXIT records. It returns the thread whose name changed (for map's
// comm_changed), or nil.
func (m *timehistMachine) observe(e *trace.Event) *timehistThread {
	switch e.Kind {
	case trace.KindComm, trace.KindExec:
		if e.TID < 0 {
			return nil
		}
		t := m.findnew(e.PID, e.TID)
		t.comm, t.commSet, t.commAt = e.Comm, true, e.Time
		return t
	case trace.KindFork:
		// perf acts on PERF_RECORD_FORK; readers deliver one fork per
		// clone (the record or the sched_process_fork tracepoint).
		if e.ChildTID < 0 {
			return nil
		}
		child := m.find(e.ChildPID, e.ChildTID)
		parent := m.findnew(e.PID, e.TID)
		if parent.pid != e.PID {
			// perf: "removing erroneous parent thread".
			m.remove(parent)
			parent = m.findnew(e.PID, e.TID)
		}
		if child != nil {
			m.remove(child)
		}
		child = m.findnew(e.ChildPID, e.ChildTID)
		if parent.commSet {
			child.comm, child.commSet, child.commAt = parent.comm, true, 0
			if parent.commAt > 0 || e.Time > 0 {
				child.commAt = e.Time // (a fork perf synthesized is at 0)
			}
		} else if !m.exact && e.ChildComm != "" {
			child.comm = e.ChildComm
		}
		child.ppid = parent.tid
	case trace.KindExit:
		if e.Comm != "" || !m.removeExits {
			return nil // a sched_process_exit tracepoint; perf acts on PERF_RECORD_EXIT only
		}
		if t := m.find(e.PID, e.TID); t != nil && m.exact {
			m.remove(t)
		}
	}
	return nil
}

// perfThreads reproduces the iteration order of perf 6.12's thread table,
// which `perf sched timehist -s` prints its rows in
// (machine__for_each_thread). The table (tools/perf/util/threads.c) is 8
// shards, chosen by (unsigned)tid % 8, each a libbpf hashmap
// (tools/lib/bpf/hashmap.c) keyed by the tid itself: bucket
// hash_bits(tid, cap_bits) = (tid * 11400714819323198485) >> (64 -
// cap_bits), entries pushed at the head of their bucket's chain, 4 buckets
// at the first insert and twice as many whenever an insert would fill more
// than 3/4 (hashmap_needs_to_grow: (sz + 1) * 4 / 3 > cap), rehashing the
// old buckets in order (which reverses entries that land together). All 21
// timehist -s goldens of ../shared/traces pin this order. Iteration walks the shards,
// then the buckets, then each chain from its head.
type perfThreads struct {
	shards [8]perfHashmap
}

type perfHashmap struct {
	capBits int
	sz      int
	buckets [][]*timehistThread // chain of each bucket, head first
}

// perfHashBits is libbpf's hash_bits on LP64.
func perfHashBits(key uint64, bits int) int {
	if bits == 0 {
		return 0
	}
	return int((key * 11400714819323198485) >> (64 - bits))
}

func (p *perfThreads) shard(t *timehistThread) *perfHashmap {
	return &p.shards[uint32(t.tid)%8]
}

// key is perf's hashmap key: the tid as a C long (-1 sign-extended).
func perfKey(t *timehistThread) uint64 { return uint64(int64(t.tid)) }

func (p *perfThreads) add(t *timehistThread) {
	h := p.shard(t)
	if c := len(h.buckets); c == 0 || (h.sz+1)*4/3 > c {
		bits := max(h.capBits+1, 2)
		grown := make([][]*timehistThread, 1<<bits)
		for _, chain := range h.buckets {
			for _, e := range chain {
				b := perfHashBits(perfKey(e), bits)
				grown[b] = append([]*timehistThread{e}, grown[b]...)
			}
		}
		h.buckets, h.capBits = grown, bits
	}
	b := perfHashBits(perfKey(t), h.capBits)
	h.buckets[b] = append([]*timehistThread{t}, h.buckets[b]...)
	h.sz++
}

func (p *perfThreads) remove(t *timehistThread) {
	h := p.shard(t)
	if len(h.buckets) == 0 {
		return
	}
	b := perfHashBits(perfKey(t), h.capBits)
	for i, e := range h.buckets[b] {
		if e == t {
			h.buckets[b] = append(h.buckets[b][:i:i], h.buckets[b][i+1:]...)
			h.sz--
			return
		}
	}
}

func (p *perfThreads) all() []*timehistThread {
	var out []*timehistThread
	for i := range p.shards {
		for _, chain := range p.shards[i].buckets {
			out = append(out, chain...)
		}
	}
	return out
}
