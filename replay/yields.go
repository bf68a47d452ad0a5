package replay

import (
	"cmp"
	"slices"

	"github.com/traceview/traceview/trace"
)

// Yield points (sched_yield).
//
// On the recording kernel (6.18) a task that calls sched_yield and one
// preempted on its return to user space both leave with prev_state "R"
// (no "+": only a preemption inside the kernel, __schedule(SM_PREEMPT),
// makes __trace_sched_switch_state report TASK_REPORT_MAX,
// kernel/sched/core.c v6.18). So a yield is told by evidence: a runnable
// switch-out (R) of a task whose switch-in on that CPU is recorded, when
// nothing could have asked that CPU to reschedule since:
//   - no wakeup aimed at it (sched_waking, sched_wakeup, sched_wakeup_new
//     whose target CPU it is, the task's own included), no fork there, no
//     migration onto it, no sched_stat_runtime of the task emitted on
//     another CPU (a remote enqueue), no lost events (poke);
//   - a task switched in next that the trace shows runnable (one with no
//     recorded wakeup had a wakeup the trace lost; and a yield with nothing
//     else runnable switches nothing);
//   - not at a tick (a slice that ended there): Model.HZ and TickPhase, or
//     without sched_stat_runtime (HZ 0) a tick inferred from the
//     candidates themselves, where tick preemptions gather on its phase;
//   - with sched_stat_runtime, not accounted twice just before the switch
//     (yieldAccountWindow);
//   - and its task yields in a loop (minYields).
//
// A kept yield is an ActYield action at its CPU offset into the burst: the
// burst goes on after it, as the task stays runnable.

// yieldAccountWindow tells a yield from a preemption at an update_curr
// when the trace has sched_stat_runtime. sched_yield accounts the task
// once: yield_task_fair's update_curr, then rq_clock_skip_update, so the
// schedule() that follows does not move the clock and its put_prev
// update_curr charges nothing and emits no event (kernel/sched/fair.c and
// core.c v6.18, __schedule: "rq->clock_update_flags <<= 1;
// update_rq_clock(rq)" skips the update). A slice that ended at an
// update_curr (the tick's, or a clock_gettime(CLOCK_THREAD_CPUTIME_ID)
// in EEVDF, see Burst.upds) is accounted there and again by the
// schedule() on the return to user space, a few µs later: two
// sched_stat_runtime events of the run within this many ns of its
// switch-out make it a preemption. The return to user space can come a
// while after the update_curr that asked for it (the rest of the
// syscall): in ../shared/traces/mi6.2cpu massive_intr:26439 was accounted
// at 2808.780080 and .780134 and switched out R at .780137, 57 µs after
// the first; with a 50 µs window 1 and 5 of massive_intr's preemptions
// (it calls no sched_yield) in mi6.2cpu and mi6.2cpu-r2 were taken for
// yields. 1 ms is a judgement: a yield loop's runs between yields hold
// one event (the yield's); stress-ng --yield's and sysbench threads' runs
// last 3-6 µs.
const yieldAccountWindow = 1_000_000

// minYields is the fewest yields a task must show for Extract to keep
// them. Without sched_stat_runtime a preemption at an update_curr (any
// syscall's, once the slice is used up: EEVDF's PROTECT_RESCHED, v6.17+)
// leaves the same evidence as a yield: in testdata/traces/stress-fork.1cpu.tv
// 1052 of stress-ng --fork's children (which call no sched_yield) had one
// each. A yield loop makes thousands (stress-ng --yield 2: 332,976 in
// 2 s pinned to one CPU, sysbench threads 777,315), and the yields are
// most of its runnable switch-outs. 10 is a judgement.
const minYields = 10

// poke notes that cpu (all CPUs when cpu < 0: a lost-events record, or a
// wakeup whose target is not recorded) may have been asked to reschedule
// at t.
func (x *extractor) poke(cpu trace.CPU, t int64) {
	if cpu < 0 {
		for c := range x.pokeAt {
			x.pokeAt[c] = t
		}
		return
	}
	if int(cpu) < len(x.pokeAt) {
		x.pokeAt[cpu] = t
	}
}

// noteYield keeps the runnable switch-out ev of task i as a candidate
// yield point when nothing could have preempted it since its switch-in at
// in (ns; -1 when that switch-in was not recorded on ev.CPU). It is called
// before the burst's bookkeeping moves on: the offset is the CPU time the
// task consumed in its burst so far.
func (x *extractor) noteYield(i int, ev *trace.Event, in int64) {
	c := ev.CPU
	if ev.PrevState.Preempted() || in < 0 || c < 0 || int(c) >= len(x.pokeAt) || ev.NextTID <= 0 || x.pokeAt[c] >= in {
		return
	}
	if n, ok := x.byTID.get(ev.NextTID); !ok || x.st[n].sleeping || x.st[n].dead {
		return // the next task's wakeup is not in the trace: it may be what preempted
	}
	s := &x.st[i]
	if x.sawRT && s.rtPrev >= in && ev.Time-s.rtPrev <= yieldAccountWindow {
		return // two update_curr at the switch: a preemption (see yieldAccountWindow)
	}
	x.yields = append(x.yields, updCand{i: i, b: s.bursts.len() - 1, off: s.accum, t: ev.Time, cpu: c})
}

// yieldPoints keeps the candidate yield points that are not at a tick as
// ActYield actions of their bursts (after updatePoints, which infers the
// tick from sched_stat_runtime). Counted in ModelStats.Yields.
func (x *extractor) yieldPoints() {
	m := x.m
	if len(x.yields) == 0 {
		return
	}
	hz, phase := m.HZ, m.TickPhase
	if hz <= 0 {
		ts := make([]int64, len(x.yields))
		task := make([]int, len(x.yields))
		for k, c := range x.yields {
			ts[k], task[k] = c.t, c.i
		}
		hz, phase = inferTick(ts, task)
	}
	tick := Model{HZ: hz, TickPhase: phase}
	keep := x.yields[:0]
	per := make([]int, len(m.Tasks))
	for _, c := range x.yields {
		b := &m.Tasks[c.i].Bursts[c.b]
		if tick.atTick(c.t) || c.off < 0 || c.off >= b.Len {
			continue
		}
		keep = append(keep, c)
		per[c.i]++
	}
	// A task that yields, yields in a loop: keep the yields of tasks with
	// minYields of them at least, making most of their runnable
	// switch-outs.
	keep = slices.DeleteFunc(keep, func(c updCand) bool {
		return per[c.i] < minYields || 2*per[c.i] < x.st[c.i].rOuts
	})
	x.yields = nil
	// Per burst, merge its yields (in trace order, so by offset) into its
	// actions, sorted by At; a yield goes after an action at its offset.
	slices.SortStableFunc(keep, func(a, b updCand) int { return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.b, b.b)) })
	for lo := 0; lo < len(keep); {
		hi := lo + 1
		for hi < len(keep) && keep[hi].i == keep[lo].i && keep[hi].b == keep[lo].b {
			hi++
		}
		tk := &m.Tasks[keep[lo].i]
		b := &tk.Bursts[keep[lo].b]
		old := tk.ActionsOf(b)
		acts := make([]Action, 0, len(old)+hi-lo)
		k := 0
		for _, c := range keep[lo:hi] {
			for k < len(old) && old[k].At <= c.off {
				acts = append(acts, old[k])
				k++
			}
			acts = append(acts, Action{At: c.off, Kind: ActYield, Target: -1})
		}
		acts = append(acts, old[k:]...)
		tk.SetActions(b, acts)
		m.Stats.Yields += hi - lo
		lo = hi
	}
}
