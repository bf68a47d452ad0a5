//go:build linux

package ebpf

import (
	"fmt"
	"strings"
	"time"

	cilium "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/traceview/traceview/trace"
)

// Top is a loaded and attached in-kernel aggregation (traceview top):
// sched_switch, sched_waking and sched_wakeup_new programs that keep per
// task totals in a BPF hash map (16384 tasks, least recently used
// evicted) and send no record to user space.
type Top struct {
	coll   *cilium.Collection
	links  []link.Link
	snapAt int64 // the latest SnapshotAt's time: the current window's start
	late   int64 // how long after snapAt its write had surely landed (ns; 0 when before): SnapshotLate
}

// OpenTop loads and attaches the aggregation programs. It needs tp_btf
// (Linux >= 5.5 with BTF); errors are one line, as Open's.
func OpenTop(opts Options) (*Top, error) {
	cache := btf.NewCache()
	classic, err := probe(opts, cache)
	if err != nil {
		return nil, err
	}
	if classic {
		return nil, fmt.Errorf("traceview top needs BTF-enabled tracepoints (tp_btf, Linux >= 5.5), which this kernel lacks: use traceview record")
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, fmt.Errorf("raise the locked-memory limit: %w", err)
	}
	spec, err := loadSched()
	if err != nil {
		return nil, err
	}
	if err := setVars(spec, opts, false); err != nil {
		return nil, err
	}
	for name := range spec.Programs {
		if !strings.HasPrefix(name, "agg_") {
			delete(spec.Programs, name)
		}
	}
	// A delay starts when the task is woken: at sched_waking, which
	// try_to_wake_up emits in the waker's context before the wakee is
	// queued (sched_wakeup may come later, from the target CPU's wake
	// list; kernel/sched/core.c, Linux 6.x), as traceview latency and perf
	// sched latency start it when the trace has sched_waking. Both
	// tracepoints belong to one event class (sched_wakeup_template,
	// include/trace/events/sched.h: TP_PROTO(struct task_struct *p)), so
	// the sched_wakeup program attaches to sched_waking as it is.
	if p := spec.Programs["agg_sched_wakeup"]; p != nil {
		p.AttachTo = "sched_waking"
	}
	for name := range spec.Maps {
		// Keep the aggregation's maps and the global data (.rodata,
		// .data: the CPU filter and the enabled flag).
		if !strings.HasPrefix(name, "agg_") && !strings.HasPrefix(name, ".") {
			delete(spec.Maps, name)
		}
	}
	coll, err := newCollection(spec, cache, "top")
	if err != nil {
		return nil, err
	}
	t := &Top{coll: coll}
	for _, name := range []string{"agg_sched_wakeup", "agg_sched_wakeup_new", "agg_sched_switch"} {
		l, err := link.AttachTracing(link.TracingOptions{Program: coll.Programs[name]})
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("attach %s: %w", name, err)
		}
		t.links = append(t.links, l)
	}
	return t, nil
}

// Snapshot reads every task's totals so far (the run time of its ended
// runs, and of a run still going up to the read) without moving the
// snapshot time SnapshotAt's windows are cut at, so it may be called while
// another goroutine reads windows (top's Prometheus scrapes beside its
// table; a scrape calling SnapshotAt moved the table's window bounds). A
// task's totals only grow from one Snapshot to the next.
func (t *Top) Snapshot() (map[trace.TID]TaskStat, error) {
	running, err := t.running()
	if err != nil {
		return nil, err
	}
	// A run still going when its task's copy is read counts up to a time
	// before the read: taken after, a run that ended between the read
	// and that time counted past its end, and the next Snapshot, with the
	// run as it ended, went back (a CI run: 8.38 ms, then 1.52 ms).
	now := monotonicNow()
	raw, err := t.readStable()
	if err != nil {
		return nil, err
	}
	out := make(map[trace.TID]TaskStat, len(raw))
	for tid, r := range raw {
		s := statOf(tid, r)
		if r.RunSince != 0 && running[tid] == r.RunSince && int64(r.RunSince) < now {
			s.Runtime += now - int64(r.RunSince)
		}
		out[s.TID] = s
	}
	return out, nil
}

// running returns who runs on each CPU and since when (agg_oncpu), by
// TID; the idle task is left out.
func (t *Top) running() (map[int32]uint64, error) {
	var oncpu []schedOncpu
	if err := t.coll.Maps["agg_oncpu"].Lookup(uint32(0), &oncpu); err != nil {
		return nil, fmt.Errorf("read top's running tasks: %w", err)
	}
	running := make(map[int32]uint64, len(oncpu))
	for _, c := range oncpu {
		if c.Tid != 0 && c.Since != 0 {
			running[c.Tid] = c.Since
		}
	}
	return running, nil
}

// snapLead is how far ahead SnapshotAt sets the snapshot's time: the
// write of agg_snap_at must be visible to the sched_switch program on
// every CPU before that time comes. A map update is a system call of a
// few microseconds; 1 ms leaves room for the writer being preempted on a
// loaded machine (chosen, not measured: a later write would only make a
// run ending just after the snapshot count in the window after it).
const snapLead = time.Millisecond

// SnapshotAt reads every task's totals up to a CLOCK_MONOTONIC time (ns)
// it returns, at which a window read with it ends: the difference of two
// snapshots is the run time inside the window between them, exactly. The
// kernel adds a run to the task's Runtime only at its switch-out, so
// SnapshotAt sets the snapshot's time P (agg_snap_at) snapLead ahead,
// waits until P has passed, and reads the totals: the sched_switch
// program counts, per task, the part after P of the runs that ended since
// (post), which SnapshotAt takes off, and a run still going that began
// before P (run_since, and the same run on a CPU in agg_oncpu) counts up
// to P. A run going on at P thus counts there up to P, the rest in the
// next window, however long the read takes (the earlier way, reading the
// totals and adding the runs on each CPU at the read, counted a run
// ending during the read past the window's end: 1006.6 ms of run time
// in a 503.0 ms window on 2 CPUs, on a loaded CI machine).
//
// The switches in and delays of the window ending at P are counted by the
// same time: the program keeps them per window, named by the window's
// start (the snapshot time before P; EpochDelays.Epoch), and one at or
// after P counts in the window P begins. Window takes them with epoch
// set to the window's start. (Counting them by a window number user space
// wrote before setting P put the delays of the time between that write
// and P in the next window: on a loaded CI machine, 1194 of 11980 delays,
// about 80 ms of a ping-pong's, where a record cut at the same bounds had
// them in the first.)
//
// The program updates a task's totals with several writes, and a copy of
// the map read between them would mix two states; each task whose copy
// changed between two passes over the map is read again until two reads
// agree (readStable).
func (t *Top) SnapshotAt() (map[trace.TID]TaskStat, int64, error) {
	v := t.coll.Variables["agg_snap_at"]
	if v == nil {
		return nil, 0, fmt.Errorf("top: the programs have no agg_snap_at")
	}
	// The window a switch in counts its delay in is chosen by time
	// too: from here, one before at counts in the window that began at
	// the last snapshot's time, so write that first (sched.c
	// agg_snap_prev).
	prev := t.coll.Variables["agg_snap_prev"]
	if prev == nil {
		return nil, 0, fmt.Errorf("top: the programs have no agg_snap_prev")
	}
	if err := prev.Set(uint64(t.snapAt)); err != nil {
		return nil, 0, fmt.Errorf("top: set the window's start: %w", err)
	}
	// The time should still be ahead once written. On a loaded machine
	// the writer can be preempted past it; the time then stands: a run
	// ending between the time and the write counts its part after the
	// time in this window (post is counted from the write on), and a
	// switch in meanwhile counts in this window too. Setting a later
	// time instead (as before) let the switch-ins after the first time
	// name their window by it and the next ones by agg_snap_prev again:
	// each such flip moves a task's window aside (sched.c: one current
	// window and the one before), and the second threw away the delays
	// of the whole window so far (a CI run under load: 66 of 16253
	// switches in a 815 ms window, every one of them in its last
	// moments).
	at := monotonicNow() + int64(snapLead)
	if err := v.Set(uint64(at)); err != nil {
		return nil, 0, fmt.Errorf("top: set the snapshot time: %w", err)
	}
	late := max(0, monotonicNow()-at)
	for d := at - monotonicNow(); d >= 0; d = at - monotonicNow() {
		time.Sleep(time.Duration(d) + time.Microsecond)
	}
	// Who ran on each CPU, and since when, after the snapshot's time.
	running, err := t.running()
	if err != nil {
		return nil, 0, err
	}
	raw, err := t.readStable()
	if err != nil {
		return nil, 0, err
	}
	out := make(map[trace.TID]TaskStat, len(raw))
	for tid, r := range raw {
		s := statOf(tid, r)
		if r.PostAt == uint64(at) && r.Post <= r.Runtime {
			s.Runtime -= int64(r.Post)
		}
		// A run that began before the snapshot's time and was still
		// going when the map was read: it is on a CPU since then in
		// agg_oncpu too, read before the map. A run_since without
		// that is a switch-out the program did not see (on this
		// machine's kernel some tasks are woken with no sched_switch
		// of theirs ever traced): unknown time, not run time.
		if r.RunSince != 0 && int64(r.RunSince) < at && running[tid] == r.RunSince {
			s.Runtime += at - int64(r.RunSince)
		}
		out[s.TID] = s
	}
	t.snapAt = at
	t.late = late
	return out, at, nil
}

// SnapshotLate returns how long after the latest SnapshotAt's time (ns)
// its write of that time had surely landed: 0 when it landed before the
// time came, as it should. When it is more (the writer preempted on a
// loaded machine; a CI run beside the other packages' tests showed about
// 22 ms), the switches in and the ended runs between the time and the
// write's landing counted in the window the time ends, not the next: the
// window really ends up to that much later, and the next begins so.
func (t *Top) SnapshotLate() int64 { return t.late }

// readStable reads agg_stats twice and, for each task whose copies
// differ, looks it up until two reads in a row agree (at most 8 tries; a
// task gone from the map meanwhile keeps its last copy).
func (t *Top) readStable() (map[int32]schedTaskStat, error) {
	first, err := t.readRaw()
	if err != nil {
		return nil, err
	}
	second, err := t.readRaw()
	if err != nil {
		return nil, err
	}
	stats := t.coll.Maps["agg_stats"]
	for tid, b := range second {
		if a, ok := first[tid]; ok && a == b {
			continue
		}
		prev := b
		for range 8 {
			var cur schedTaskStat
			if stats.Lookup(tid, &cur) != nil {
				break
			}
			if cur == prev {
				break
			}
			prev = cur
		}
		second[tid] = prev
	}
	return second, nil
}

// readRaw copies agg_stats as it is.
func (t *Top) readRaw() (map[int32]schedTaskStat, error) {
	out := map[int32]schedTaskStat{}
	var (
		tid int32
		v   schedTaskStat
	)
	it := t.coll.Maps["agg_stats"].Iterate()
	for it.Next(&tid, &v) {
		out[tid] = v
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read top map: %w", err)
	}
	return out, nil
}

// statOf is a task's totals as the map holds them.
func statOf(tid int32, v schedTaskStat) TaskStat {
	s := TaskStat{
		TID: trace.TID(tid), PID: trace.PID(v.Pid), Cgroup: v.Cgroup,
		Runtime: int64(v.Runtime), Switches: int64(v.Switches), Delays: int64(v.Delays),
		DelaySum: int64(v.DelaySum), DelayMax: int64(v.DelayMax), MaxAt: int64(v.MaxAt),
	}
	var comm [16]byte
	for i, c := range v.Comm {
		comm[i] = byte(c)
	}
	s.Comm = strings.TrimRight(string(comm[:]), "\x00")
	if i := strings.IndexByte(s.Comm, 0); i >= 0 {
		s.Comm = s.Comm[:i]
	}
	for i, h := range v.Hist {
		s.Hist[i] = int64(h)
	}
	s.Windows[0] = EpochDelays{Epoch: v.Win.Epoch, Switches: int64(v.Win.Switches), Delays: int64(v.Win.Delays), Sum: int64(v.Win.Sum),
		DelayMax: int64(v.Win.Max), MaxAt: int64(v.Win.MaxAt)}
	s.Windows[1] = EpochDelays{Epoch: v.PrevWin.Epoch, Switches: int64(v.PrevWin.Switches), Delays: int64(v.PrevWin.Delays), Sum: int64(v.PrevWin.Sum),
		DelayMax: int64(v.PrevWin.Max), MaxAt: int64(v.PrevWin.MaxAt)}
	return s
}

// Stats sums the run statistics of the aggregation's programs.
func (t *Top) Stats() (ProgramTotals, error) {
	var tot ProgramTotals
	for name, p := range t.coll.Programs {
		st, err := p.Stats()
		if err != nil {
			return tot, fmt.Errorf("stats of %s: %w", name, err)
		}
		tot.Runtime += st.Runtime
		tot.Runs += st.RunCount
		tot.RecursionMisses += st.RecursionMisses
	}
	return tot, nil
}

// Now returns the CLOCK_MONOTONIC time in ns (the programs' clock).
func Now() int64 { return monotonicNow() }

// Close detaches the programs and frees the maps.
func (t *Top) Close() error {
	for _, l := range t.links {
		l.Close()
	}
	t.links = nil
	t.coll.Close()
	return nil
}
