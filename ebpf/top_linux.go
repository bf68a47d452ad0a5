//go:build linux

package ebpf

import (
	"fmt"
	"strings"

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
	coll  *cilium.Collection
	links []link.Link
	epoch uint64 // the latest NewEpoch
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

// Snapshot reads every task's totals so far, as SnapshotAt does, without
// the time.
func (t *Top) Snapshot() (map[trace.TID]TaskStat, error) {
	out, _, err := t.SnapshotAt()
	return out, err
}

// SnapshotAt reads every task's totals up to the CLOCK_MONOTONIC time (ns)
// it returns, at which a window read with it ends. The kernel adds a run to
// the task's Runtime only at its switch-out; SnapshotAt adds the part up to
// that time of the runs still going on each CPU (agg_oncpu: who runs there
// and since when), so that the difference of two snapshots is the run time
// inside the window between them: a run still going at a window's end
// counts there up to the end, the rest in the next window. A CPU whose
// running task changed while the map was read (seen by reading agg_oncpu
// before and after) gets the switched-out task's totals read again, which
// hold its run up to the switch, a few microseconds at most after the
// returned time.
func (t *Top) SnapshotAt() (map[trace.TID]TaskStat, int64, error) {
	oncpu := t.coll.Maps["agg_oncpu"]
	var first, last []schedOncpu
	if err := oncpu.Lookup(uint32(0), &first); err != nil {
		return nil, 0, fmt.Errorf("read top's running tasks: %w", err)
	}
	now := monotonicNow()
	out, err := t.readStats()
	if err != nil {
		return nil, 0, err
	}
	if err := oncpu.Lookup(uint32(0), &last); err != nil {
		return nil, 0, fmt.Errorf("read top's running tasks: %w", err)
	}
	stats := t.coll.Maps["agg_stats"]
	for cpu := range min(len(first), len(last)) {
		f, l := first[cpu], last[cpu]
		if f == l {
			// The same run from before the read to after it: not in the
			// totals yet.
			if s, ok := out[trace.TID(f.Tid)]; ok && f.Tid != 0 && f.Since != 0 && int64(f.Since) < now {
				s.Runtime += now - int64(f.Since)
				out[s.TID] = s
			}
			continue
		}
		// Switched during the read: the task switched out has its run in
		// the map now.
		var v schedTaskStat
		if f.Tid != 0 && stats.Lookup(f.Tid, &v) == nil {
			if s, ok := out[trace.TID(f.Tid)]; ok {
				s.Runtime = int64(v.Runtime)
				out[s.TID] = s
			}
		}
	}
	return out, now, nil
}

// readStats reads the totals of agg_stats as they are, without the runs
// still going.
func (t *Top) readStats() (map[trace.TID]TaskStat, error) {
	out := map[trace.TID]TaskStat{}
	var (
		tid int32
		v   schedTaskStat
	)
	it := t.coll.Maps["agg_stats"].Iterate()
	for it.Next(&tid, &v) {
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
		out[s.TID] = s
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("read top map: %w", err)
	}
	return out, nil
}

// NewEpoch starts a new epoch of the per-window delays (TaskStat.Windows)
// and returns its number (from 1). The delays of an epoch are complete once
// the next one has started: call NewEpoch, then Snapshot, at each window's
// end, and pass Window the epoch started at the window's beginning. The
// kernel keeps a task's latest two epochs with delays, so each window must
// be read before the next ends.
func (t *Top) NewEpoch() (uint64, error) {
	v := t.coll.Variables["agg_epoch"]
	if v == nil {
		return 0, fmt.Errorf("top: the programs have no agg_epoch")
	}
	t.epoch++
	if err := v.Set(t.epoch); err != nil {
		return 0, fmt.Errorf("top: start window %d: %w", t.epoch, err)
	}
	return t.epoch, nil
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
