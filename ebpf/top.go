package ebpf

import (
	"cmp"
	"slices"
	"time"

	"github.com/traceview/traceview/trace"
)

// HistBuckets is the number of buckets of a TaskStat's delay histogram:
// bucket i counts delays d with 2^i <= d < 2^(i+1) ns (bucket 0 also
// d = 0), the last one is open-ended (2^31 ns, about 2.1 s, and more).
const HistBuckets = 32

// TaskStat is one task's totals since the aggregation started (times in
// ns, CLOCK_MONOTONIC): its on-CPU time, switches in, and scheduling
// delays (from a wakeup or a preemption to the next switch-in, as perf
// sched latency measures them).
type TaskStat struct {
	TID      trace.TID
	PID      trace.PID
	Comm     string
	Cgroup   uint64
	Runtime  int64
	Switches int64
	Delays   int64
	DelaySum int64
	DelayMax int64
	MaxAt    int64 // the switch-in that ended the largest delay
	Hist     [HistBuckets]int64
	// Windows holds the switches in and delays of the latest two
	// windows between snapshot times (Top.SnapshotAt) in which the task
	// was switched in, the newest first.
	Windows [2]EpochDelays
}

// EpochDelays are a task's switches in and delays of one epoch of the
// aggregation, the time between two snapshot times (Top.SnapshotAt), named
// by its start (Epoch, CLOCK_MONOTONIC ns; 0 before the first): the switches
// in, and count, sum and max (ns) of the delays they ended (so never more
// delays than switches), and the switch-in that ended the largest.
type EpochDelays struct {
	Epoch           uint64
	Switches        int64
	Delays, Sum     int64
	DelayMax, MaxAt int64
}

// Epoch returns the task's delays of epoch ep (none if the task had none
// then, or if ep is 0: no epochs).
func (s TaskStat) Epoch(ep uint64) EpochDelays {
	for _, w := range s.Windows {
		if ep != 0 && w.Epoch == ep {
			return w
		}
	}
	return EpochDelays{Epoch: ep}
}

// Sub returns s minus an earlier snapshot of the same task: the counts of
// the window between them. The maximum is not a sum: it is kept when it
// ended inside the window (MaxAt after since) and is 0 otherwise, so a
// window's max is never an older window's.
func (s TaskStat) Sub(old TaskStat, since int64) TaskStat {
	d := s
	d.Runtime -= old.Runtime
	d.Switches -= old.Switches
	d.Delays -= old.Delays
	d.DelaySum -= old.DelaySum
	for i := range d.Hist {
		d.Hist[i] -= old.Hist[i]
	}
	if s.MaxAt <= since || d.Delays == 0 {
		d.DelayMax, d.MaxAt = 0, 0
	}
	return d
}

// Window returns, per task, what happened between the snapshots before
// and after (taken at CLOCK_MONOTONIC time since, or 0), sorted by TID; a
// task in after only counts whole. With epoch (not 0: the window's name
// in the kernel, its start, uint64(since) for snapshots from
// Top.SnapshotAt) the switches in and the delays (count, sum, max) are
// those the kernel counted in the window, so the max is one of the delays
// the average is of and every delay ended one of the switches (the
// snapshots' difference can count the switches of a slightly different
// interval: a window once showed 86 delays in 80 switches); without, the
// kernel's running max counts only if it ended after since (see Sub).
func Window(before, after map[trace.TID]TaskStat, since int64, epoch uint64) []TaskStat {
	var out []TaskStat
	for tid, a := range after {
		d := a
		if b, ok := before[tid]; ok {
			d = a.Sub(b, since)
		} else if a.MaxAt <= since {
			d.DelayMax, d.MaxAt = 0, 0
		}
		if epoch != 0 {
			w := a.Epoch(epoch)
			d.Switches, d.Delays, d.DelaySum, d.DelayMax, d.MaxAt = w.Switches, w.Delays, w.Sum, w.DelayMax, w.MaxAt
		}
		if d.Runtime != 0 || d.Switches != 0 || d.Delays != 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y TaskStat) int { return cmp.Compare(x.TID, y.TID) })
	return out
}

// aggMaps are the maps only the aggregation programs use.
var aggMaps = []string{"agg_stats", "agg_ready", "agg_oncpu"}

// ProgramTotals are the kernel's run statistics of a set of BPF programs
// (struct bpf_prog_info run_time_ns, run_cnt, recursion_misses): run time
// and count need kernel.bpf_stats_enabled=1 (Linux >= 5.8) and are 0
// without it; recursion misses (Linux >= 5.12) count the times a program
// did not run because another BPF program was running on its CPU, i.e.
// events the aggregation missed.
type ProgramTotals struct {
	Runtime         time.Duration
	Runs            uint64
	RecursionMisses uint64
}
