package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

const msNS = int64(1_000_000)

// thrBase puts the test traces 1 s into the trace clock (a time of 0 reads
// as unset to the reconstruction).
const thrBase = 1000 * msNS

func thrNS(ms float64) int64 { return thrBase + int64(ms*float64(msNS)) }

// thrSwitch is a sched_switch at thrBase + ms on cpu; prev's cgroup is cg
// (0: none).
func thrSwitch(ms float64, cpu trace.CPU, prev trace.TID, st trace.TaskState, cg uint64, next trace.TID) trace.Event {
	e := trace.NewEvent(thrNS(ms), cpu, trace.KindSwitch)
	e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.PrevState, e.Cgroup = prev, prev, trace.PID(prev), fmt.Sprint("t", prev), 120, st, cg
	e.NextTID, e.NextPID, e.NextComm, e.NextPrio = next, trace.PID(next), fmt.Sprint("t", next), 120
	if prev == 0 {
		e.Comm = "swapper"
	}
	if next == 0 {
		e.NextComm = "swapper"
	}
	return e
}

// thrWant checks task tid's row: its sum of delays and their throttled
// part (ms) and how many delays were throttled.
func thrWant(t *testing.T, res *LatencyResult, tid trace.TID, sumMS, throttledMS, n int64) {
	t.Helper()
	if r := thrRow(t, res, tid); r.SumDelay != sumMS*msNS || r.Throttled != throttledMS*msNS || r.ThrottledDelays != n {
		t.Errorf("task %d: sum %d ns, throttled %d ns (%d delays); want %d ms, %d ms (%d)", tid, r.SumDelay, r.Throttled, r.ThrottledDelays, sumMS, throttledMS, n)
	}
}

// thrSwitchDL is thrSwitch on CPU 0 with task dl shown under
// SCHED_DEADLINE (prio -1, as sched_switch reports it).
func thrSwitchDL(ms float64, prev trace.TID, st trace.TaskState, cg uint64, next, dl trace.TID) trace.Event {
	e := thrSwitch(ms, 0, prev, st, cg, next)
	if prev == dl {
		e.Prio = -1
	}
	if next == dl {
		e.NextPrio = -1
	}
	return e
}

// thrWaking is a sched_waking of tid at thrBase + ms, recorded on cpu while
// cur ran there.
func thrWaking(ms float64, cpu trace.CPU, cur, tid trace.TID) trace.Event {
	e := trace.NewEvent(thrNS(ms), cpu, trace.KindWaking)
	e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = 0, tid, trace.PID(tid), fmt.Sprint("t", tid), 120, cpu
	e.CurTID = cur
	return e
}

func thrMeta() *trace.Meta {
	return &trace.Meta{Cgroups: map[uint64]string{1: "/", 7: "/svc", 8: "/batch"}}
}

func thrRow(t *testing.T, res *LatencyResult, tid trace.TID) LatencyRow {
	t.Helper()
	for _, r := range res.TaskRows {
		if r.TID == tid {
			return r
		}
	}
	t.Fatalf("no row for task %d", tid)
	return LatencyRow{}
}

func thrGroupOf(t *testing.T, res *LatencyResult, path string) CgroupThrottle {
	t.Helper()
	for _, g := range res.Cgroups {
		if g.Path == path {
			return g
		}
	}
	t.Fatalf("no group %s in %+v", path, res.Cgroups)
	return CgroupThrottle{}
}

// TestThrottleIdleEvidence: two CPUs; /batch's task 3 holds CPU 1 from 0 to
// 110 ms; /svc's tasks 1 and 2 share CPU 0. At 8 ms task 2 is switched out
// runnable and CPU 0 goes idle (the throttle's mark) until 100 ms, when
// task 1 runs again (the unthrottle).
//
//	task 1: runs 0-5, preempted 5-100 (delay 95 ms), runs 100-102,
//	        preempted 102-104 (2 ms), runs 104-106, sleeps.
//	task 2: woken at 1, runs 5-8 (delay 4 ms), runnable 8-102 (94 ms),
//	        runs 102-104, sleeps.
//
// /svc is starved from 8 to 100 ms with the idle mark at 8: one throttle,
// [8, 100] ms. Throttled part: task 1 100−8 = 92 ms of 97, task 2 92 ms of
// 98. cpu.stat-like throttled time: both waited on CPU 0, from 8 ms: 92 ms.
// One period boundary (phase from the end) inside: 1 period.
func TestThrottleIdleEvidence(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 1),
		thrSwitch(0, 1, 0, R, 0, 3),
		thrWaking(1, 0, 1, 2),
		thrSwitch(5, 0, 1, R, 7, 2),
		thrSwitch(8, 0, 2, R, 7, 0),
		thrSwitch(100, 0, 0, R, 0, 1),
		thrSwitch(102, 0, 1, R, 7, 2),
		thrSwitch(104, 0, 2, S, 7, 1),
		thrSwitch(106, 0, 1, S, 7, 0),
		thrSwitch(110, 1, 3, S, 8, 0),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Options.Throttle {
		t.Fatal("Options.Throttle not set for a trace with cgroups")
	}
	for _, c := range []struct {
		tid            trace.TID
		sum, throttled int64
	}{{1, 97 * msNS, 92 * msNS}, {2, 98 * msNS, 92 * msNS}} {
		r := thrRow(t, res, c.tid)
		if r.SumDelay != c.sum || r.Throttled != c.throttled || r.ThrottledDelays != 1 {
			t.Errorf("task %d: sum %d throttled %d (%d delays), want %d, %d (1)", c.tid, r.SumDelay, r.Throttled, r.ThrottledDelays, c.sum, c.throttled)
		}
	}
	g := thrGroupOf(t, res, "/svc")
	if len(g.Throttles) != 1 || g.Throttles[0] != (ThrottleSpan{thrNS(8), thrNS(100)}) {
		t.Errorf("/svc throttles %v, want [{8ms 100ms}]", g.Throttles)
	}
	if g.Throttled != 92*msNS || g.ThrottledWall != 92*msNS || g.ThrottledPeriods != 1 || g.IdleEvidence != 1 || g.Settings != "unknown" {
		t.Errorf("/svc: %+v", g)
	}
	// /svc ran 0-8 and 100-106: 14 ms of 2 CPUs × 110 ms.
	if g.Runtime != 14*msNS || g.CPUTime != 220*msNS {
		t.Errorf("/svc runtime %d of %d", g.Runtime, g.CPUTime)
	}
	if b := thrGroupOf(t, res, "/batch"); b.Throttled != 0 || b.Runtime != 110*msNS {
		t.Errorf("/batch: %+v", b)
	}
}

// TestThrottleQuotaEvidence: one CPU. /svc's task 1 runs 0-20 ms and
// 100-120 ms, each time switched out runnable to /batch's task 3 (no idle:
// contention would explain the waits as well), and runs again at 100 and
// 200 ms, then sleeps at 210. Without a known quota nothing is throttled.
// With /svc's quota stated as 20 ms per 100 ms: at 20 and 120 ms the group
// used 20 ms over the trailing period (threshold: the quota, as it ran on
// one CPU); both waits end on the same phase (1000 ms mod 100 = 0, so the
// timer's boundaries are at 100 and 200), began 80 ms before them, after
// 20 ms used since the boundary before: two throttles, [20, 100] and
// [120, 200], 160 ms of task 1's delays, 2 periods.
func TestThrottleQuotaEvidence(t *testing.T) {
	evs := quotaEvidenceEvents()
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := thrRow(t, res, 1); r.SumDelay != 160*msNS || r.Throttled != 0 {
		t.Errorf("quota unknown: task 1 sum %d throttled %d, want 160 ms, 0", r.SumDelay, r.Throttled)
	}
	stated := []trace.CgroupSettings{{Path: "/svc", QuotaNS: 20 * msNS, PeriodNS: 100 * msNS}}
	res, err = ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{Cgroups: stated})
	if err != nil {
		t.Fatal(err)
	}
	if r := thrRow(t, res, 1); r.Throttled != 160*msNS || r.ThrottledDelays != 2 {
		t.Errorf("quota stated: task 1 throttled %d in %d delays, want 160 ms in 2", r.Throttled, r.ThrottledDelays)
	}
	g := thrGroupOf(t, res, "/svc")
	if g.QuotaEvidence != 2 || g.Settings != "stated" || g.Throttled != 160*msNS || g.ThrottledPeriods != 2 {
		t.Errorf("/svc: %+v", g)
	}
	// Task 3 waited 100-120 and 200-210 behind /svc: contention (/batch
	// has no quota).
	if r := thrRow(t, res, 3); r.SumDelay != 30*msNS || r.Throttled != 0 {
		t.Errorf("task 3 sum %d throttled %d, want 30 ms, 0", r.SumDelay, r.Throttled)
	}
	// A quota of 30 ms: 20 ms used is below it; nothing is throttled.
	stated[0].QuotaNS = 30 * msNS
	res, err = ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{Cgroups: stated})
	if err != nil {
		t.Fatal(err)
	}
	if r := thrRow(t, res, 1); r.Throttled != 0 {
		t.Errorf("quota 30 ms: task 1 throttled %d, want 0", r.Throttled)
	}
}

// TestThrottledPeriods: the period timer's phase comes from the throttle
// ends (four end 0.5 ms after a multiple of 100 ms); each boundary inside a
// throttle counts once: 100.5, 200.5, none for [225, 235] (ended by the
// slack timer), 300.5, then 400.5 and 500.5 for the long one: 5.
func TestThrottledPeriods(t *testing.T) {
	f := func(a, b float64) ThrottleSpan {
		return ThrottleSpan{int64(a * float64(msNS)), int64(b * float64(msNS))}
	}
	spans := []ThrottleSpan{f(30, 100.5), f(130, 200.5), f(225, 235), f(240, 300.5), f(330, 500.5)}
	if n := throttledPeriods(spans, 100*msNS, nil, nil); n != 5 {
		t.Errorf("throttledPeriods = %d, want 5", n)
	}
	if n := throttledPeriods(nil, 0, nil, nil); n != 0 {
		t.Errorf("no spans: %d", n)
	}
}

// TestMergeCgroupThrottles: groups of two traces merge by path (sums, the
// larger max delay, the first known settings).
func TestMergeCgroupThrottles(t *testing.T) {
	a := []CgroupThrottle{{Path: "/svc", Runtime: 10, ThrottledPeriods: 2, Throttled: 5, MaxDelay: 7, Settings: "unknown"}}
	b := []CgroupThrottle{{Path: "/svc", Runtime: 30, ThrottledPeriods: 1, Throttled: 4, MaxDelay: 3, QuotaNS: 9, PeriodNS: 100, Settings: "recorded"}, {Path: "/b", Runtime: 1, Settings: "unknown"}}
	m := MergeCgroupThrottles(a, b)
	if len(m) != 2 || m[0].Path != "/b" || m[1].Runtime != 40 || m[1].ThrottledPeriods != 3 || m[1].Throttled != 9 || m[1].MaxDelay != 7 || m[1].QuotaNS != 9 || m[1].Settings != "recorded" {
		t.Errorf("merged: %+v", m)
	}
}

// TestThrottleUnnamedCgroup: a cgroup id the trace names no path for is
// shown by id, with one counted warning, which calls it a damaged id most
// likely when the trace has a cgroup table (perf writes a record for
// every cgroup: new-user pass 108 F1).
func TestThrottleUnnamedCgroup(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 1),
		thrSwitch(10, 0, 1, S, 9, 0),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cgroups) != 1 || res.Cgroups[0].Path != "cgroup id 9" {
		t.Fatalf("groups %+v, want one, cgroup id 9", res.Cgroups)
	}
	n := 0
	for _, w := range res.ReportWarnings {
		if w.Key == "cgroup-no-path" {
			n++
			if w.Count != 1 || !strings.Contains(w.Message, "cgroup id 9") || !strings.Contains(w.Message, "damaged ids, most likely") {
				t.Errorf("warning %+v", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d cgroup-no-path warnings, want 1", n)
	}
}

// TestThrottleCollectorBounded: a group with no throttle mark and no known
// quota keeps only its last runs (trimmed to retainHorizon every trimEvery
// runs per CPU) while its totals count them all; the root group keeps
// nothing; the first mark (a run left runnable for idle) makes the group
// keep everything from then on.
func TestThrottleCollectorBounded(t *testing.T) {
	c := newThrottleCollector(&trace.Meta{Cgroups: map[uint64]string{1: "/", 7: "/svc"}}, nil)
	svc := &schedule.Task{ID: 1, TID: 1, Cgroup: 7}
	root := &schedule.Task{ID: 2, TID: 2, Cgroup: 1}
	idle := &schedule.Task{ID: 3, TID: 0}
	lt := &latTask{}
	run := func(task *schedule.Task, cpu trace.CPU, start, end int64, st trace.TaskState) {
		c.run(&schedule.Run{CPU: cpu, Task: task, Start: start, End: end, Prio: 120, Quality: schedule.Known, EndState: st, EndSwitch: true}, lt)
	}
	// 5000 cycles of 1 ms: /svc runs 0.5 ms on CPU 0 and sleeps; the
	// root task runs 0.5 ms on CPU 1.
	for i := int64(0); i < 5000; i++ {
		at := 1000*msNS + i*msNS
		run(svc, 0, at, at+msNS/2, trace.StateInterruptible)
		run(idle, 0, at+msNS/2, at+msNS, 0)
		run(root, 1, at, at+msNS/2, trace.StateInterruptible)
	}
	g, r := c.groups[7], c.groups[1]
	// The last trim was at run 4096: 1 + 10 ms of runs after the horizon,
	// then 904 more.
	if n := len(g.runs[0]); n > trimEvery+int(retainHorizon/msNS)+1 || g.retain != 0 {
		t.Errorf("/svc keeps %d runs (retain %d), want at most %d", n, g.retain, trimEvery+int(retainHorizon/msNS)+1)
	}
	if g.runtime != 5000*msNS/2 {
		t.Errorf("/svc runtime %d, want 2.5 s", g.runtime)
	}
	if r.retain != -1 || len(r.runs) != 0 || r.runtime != 5000*msNS/2 {
		t.Errorf("root: retain %d, %d CPU lists, runtime %d; want -1, 0, 2.5 s", r.retain, len(r.runs), r.runtime)
	}
	// /svc left runnable at 6000.5 ms with CPU 0 going idle: the mark.
	at := 6000 * msNS
	run(svc, 0, at, at+msNS/2, trace.StateRunning)
	run(idle, 0, at+msNS/2, at+msNS, 0)
	if g.retain != 1 || !g.runs[0][len(g.runs[0])-1].toIdle {
		t.Errorf("after the mark: retain %d, last run marked %v; want 1, true", g.retain, g.runs[0][len(g.runs[0])-1].toIdle)
	}
}

// TestThrottleCollectorNoCgroups: in a trace without cgroups (every
// switch-out names group 0) a task's delays are held only until its first
// switch-out shows it has none, then dropped as they come: 1000 delays of
// one task leave nothing held; a task never switched out keeps its one
// first wait held (its group may still come).
func TestThrottleCollectorNoCgroups(t *testing.T) {
	c := newThrottleCollector(&trace.Meta{}, nil)
	a := &schedule.Task{ID: 1, TID: 1}
	b := &schedule.Task{ID: 2, TID: 2}
	lt := &latTask{}
	c.delay(&schedule.Delay{Task: a, Start: 0, End: msNS}, lt)
	c.run(&schedule.Run{CPU: 0, Task: a, Start: msNS, End: 2 * msNS, Prio: 120, Quality: schedule.Known, EndState: trace.StateInterruptible, EndSwitch: true}, lt)
	for i := int64(0); i < 1000; i++ {
		c.delay(&schedule.Delay{Task: a, Start: 3*msNS + i*msNS, End: 3*msNS + i*msNS + msNS/2}, lt)
	}
	c.delay(&schedule.Delay{Task: b, Start: 0, End: msNS}, lt)
	if n := len(c.unplaced[a]); n != 0 {
		t.Errorf("task without a group after its switch-out: %d delays held, want 0", n)
	}
	if n := len(c.unplaced[b]); n != 1 {
		t.Errorf("task not switched out yet: %d delays held, want 1", n)
	}
	if len(c.groups) != 0 {
		t.Errorf("%d groups, want none", len(c.groups))
	}
}

// TestClosestNames: by hand, editDistance("sched-pip", "sched-pipe") = 1
// (one insertion), ("perf", "pref") = 2, ("hog", "bash") = 4; "pip" is in
// "sched-pipe" (distance 0 by containment).
func TestClosestNames(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"sched-pip", "sched-pipe", 1}, {"perf", "pref", 2}, {"hog", "bash", 4}, {"", "ab", 2}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	names := map[string]bool{"sched-pipe": true, "perf": true, "hog": true, "kworker/0:1": true}
	if got := ClosestNames("pip", names, 3); len(got) != 1 || got[0] != "sched-pipe" {
		t.Errorf("closest to pip: %v, want [sched-pipe]", got)
	}
	if got := ClosestNames("pref", names, 3); len(got) != 1 || got[0] != "perf" {
		t.Errorf("closest to pref: %v, want [perf]", got)
	}
	if got := ClosestNames("zzzzzz", names, 3); len(got) != 0 {
		t.Errorf("closest to zzzzzz: %v, want none", got)
	}
}

// movedTaskEvents is TestByCgroupSplitsMovedTask's trace.
func movedTaskEvents() []trace.Event {
	return []trace.Event{
		thrSwitch(0, 0, 0, 0, 0, 5),
		thrWaking(1, 0, 5, 6),
		thrSwitch(2, 0, 5, trace.StatePreempted, 1, 6),
		thrSwitch(3, 0, 6, trace.StateInterruptible, 7, 5),
		thrWaking(6, 0, 5, 6),
		thrSwitch(7, 0, 5, trace.StatePreempted, 7, 6),
		thrSwitch(9, 0, 6, trace.StateInterruptible, 7, 5),
		thrSwitch(12, 0, 5, trace.StateInterruptible, 7, 0),
	}
}

// TestByCgroupSplitsMovedTask: task 5 starts in / (cgroup 1) and moves to
// /svc (7), as cgrun does (echo $$ > cgroup.procs, then exec); task 6, in
// /svc, is first seen woken. One CPU, times in ms:
//
//	 0  swapper -> 5                    (first seen: no delay)
//	 1  5 wakes 6                       (6's cgroup not known yet)
//	 2  5 (R+, cg 1) -> 6               5 ran 0-2 in /; 6 waited 1-2: 1 ms
//	 3  6 (S,  cg 7) -> 5               5 waited 2-3: 1 ms, in / (its cg then)
//	 6  5 wakes 6
//	 7  5 (R+, cg 7) -> 6               5 ran 3-7 (moved: this switch-out says /svc);
//	                                    6 waited 6-7: 1 ms
//	 9  6 (S,  cg 7) -> 5               5 waited 7-9: 2 ms, in /svc
//	12  5 (S,  cg 7) -> swapper         5 ran 9-12 in /svc
//
// No sched_stat_runtime: run time from the switches. /svc ran 5's 3-7 and
// 9-12 (7 ms) and 6's 2-3 and 7-9 (3 ms): 10 ms; its delays: 5's 2 ms and
// 6's 1 + 1 ms (the first before 6's cgroup was known, counted in the group
// its next switch-out names, where it waited): 3 delays, 4 ms. With ByCgroup task 5 has a row in / (run 2
// ms, 1 delay of 1 ms) and one in /svc (run 7 ms, 1 delay of 2 ms), and the
// rows of /svc add up to its CgroupThrottle. Without it 5's one row (run 9
// ms, 2 delays, 3 ms) sits in /svc, whose rows then exceed the group's
// line by 2 ms of run time and a delay: the inconsistency latency --by
// cgroup showed (418.290 ms in the table, 415.847 ms on the group's line,
// on a cgrun capture).
func TestByCgroupSplitsMovedTask(t *testing.T) {
	evs := movedTaskEvents()
	type part struct {
		cg                  uint64
		runtime, count, sum int64
	}
	rowsOf := func(res *LatencyResult, tid trace.TID) []part {
		var out []part
		for _, r := range res.TaskRows {
			if r.TID == tid {
				out = append(out, part{r.Cgroup, r.Runtime, r.Count, r.SumDelay})
			}
		}
		slices.SortFunc(out, func(a, b part) int { return cmp.Compare(a.cg, b.cg) })
		return out
	}
	for _, c := range []struct {
		name  string
		by    bool
		want5 []part
	}{
		{"merged", false, []part{{7, 9 * msNS, 2, 3 * msNS}}},
		{"by cgroup", true, []part{{1, 2 * msNS, 1, 1 * msNS}, {7, 7 * msNS, 1, 2 * msNS}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{PerTask: true, ByCgroup: c.by})
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsOf(res, 5); fmt.Sprint(got) != fmt.Sprint(c.want5) {
				t.Errorf("task 5 rows (cgroup, runtime, count, sum) = %v, want %v", got, c.want5)
			}
			if got, want := rowsOf(res, 6), []part{{7, 3 * msNS, 2, 2 * msNS}}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("task 6 rows = %v, want %v", got, want)
			}
			g := thrGroupOf(t, res, "/svc")
			if g.Runtime != 10*msNS || g.Delays != 3 || g.SumDelay != 4*msNS {
				t.Errorf("/svc line: runtime %d, %d delays, sum %d; want 10 ms, 3, 4 ms", g.Runtime, g.Delays, g.SumDelay)
			}
			if !c.by {
				return
			}
			var run, n, sum int64
			for _, r := range res.TaskRows {
				if r.Cgroup == 7 {
					run, n, sum = run+r.Runtime, n+r.Count, sum+r.SumDelay
				}
			}
			if run != g.Runtime || n != g.Delays || sum != g.SumDelay {
				t.Errorf("/svc rows: runtime %d, %d delays, sum %d; the group's line: %d, %d, %d", run, n, sum, g.Runtime, g.Delays, g.SumDelay)
			}
		})
	}
}

// TestCgroupFilterDecidesLater: --cgroup /svc on movedTaskEvents selects
// what the /svc line and table of --by cgroup hold. Task 6's first wait
// (1-2 ms) and switch-in (2 ms) come before any switch-out names its
// cgroup; the filter dropped them ("a task whose cgroup is not known yet
// matches none": latency --cgroup /tv-u counted 458 delays and switches,
// --by cgroup's /tv-u 460). They are decided at its switch-out at 3 ms,
// which says /svc: selected. Task 5's first switch-in (0 ms) waits the
// same way and its switch-out at 2 ms says /: dropped. Selected: task 5's
// wait 7-9 (2 ms) and switch-in at 9; task 6's waits 1-2 and 6-7 and
// switch-ins at 2 and 7: 3 delays, 4 ms, 3 switches.
func TestCgroupFilterDecidesLater(t *testing.T) {
	res, err := ComputeLatency(trace.NewSliceSource(movedTaskEvents(), thrMeta()), LatencyOptions{Filter: &schedule.Filter{Cgroups: []uint64{7}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Total; got.Count != 3 || got.SumDelay != 4*msNS || got.Switches != 3 {
		t.Errorf("total %d delays, %d ns, %d switches; want 3, 4 ms, 3", got.Count, got.SumDelay, got.Switches)
	}
}

// TestDeadlineThrottled: one CPU, no cgroups. Task 1 (nice 0) runs 0-5
// ms; task 2, SCHED_DEADLINE (prio -1 in its switches), woken at 4, runs
// 5-7 and is switched out runnable (its runtime used) until its
// replenishment at 15, runs 15-17 and sleeps; task 1 runs 7-15 and 17-20.
//
//	task 2: delays 4 → 5 (1 ms, a wakeup) and 7 → 15 (8 ms, throttled)
//	task 1: delays 5 → 7 and 15 → 17 (2 ms each: contention)
//
// The deadline task's 8 ms wait is Throttled, task 1 has none, and
// DeadlineThrottled is set (the table's Throttled column and its note).
// With every prio unknown (-1, a format without prios) nothing is. Task 3,
// on CPU 1 with no recorded switch-in (a run whose prio the
// reconstruction does not know), switched out runnable at 3 and in again
// at 9, is no deadline task: its 6 ms wait is not throttled (a 103 s `go
// build` capture had 19 s of its compilers' delays counted so when runs
// of unknown prio were taken for deadline runs).
func TestDeadlineThrottled(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	sw := func(ms float64, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
		return thrSwitchDL(ms, prev, st, 0, next, 2)
	}
	evs := []trace.Event{
		sw(0, 0, R, 1),
		thrWaking(4, 0, 1, 2),
		sw(5, 1, R, 2),
		sw(7, 2, R, 1),
		sw(15, 1, R, 2),
		sw(17, 2, S, 1),
		sw(20, 1, S, 0),
		thrSwitch(3, 1, 3, R, 0, 0),
		thrSwitch(9, 1, 0, R, 0, 3),
		thrSwitch(11, 1, 3, S, 0, 0),
	}
	slices.SortStableFunc(evs, func(a, b trace.Event) int { return cmp.Compare(a.Time, b.Time) })
	res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	thrWant(t, res, 2, 9, 8, 1)
	thrWant(t, res, 1, 4, 0, 0)
	thrWant(t, res, 3, 6, 0, 0)
	if !res.DeadlineThrottled || !res.Options.Throttle || !res.JSON().DeadlineThrottled {
		t.Errorf("DeadlineThrottled %v (JSON %v), Options.Throttle %v; want all", res.DeadlineThrottled, res.JSON().DeadlineThrottled, res.Options.Throttle)
	}
	for i := range evs {
		evs[i].Prio, evs[i].NextPrio = -1, -1
	}
	res, err = ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := thrRow(t, res, 2); r.Throttled != 0 || res.DeadlineThrottled {
		t.Errorf("prios unknown: throttled %d, DeadlineThrottled %v; want 0, false", r.Throttled, res.DeadlineThrottled)
	}
}

// TestDeadlineTaskInThrottledGroup: TestThrottleIdleEvidence's trace with
// task 2 under SCHED_DEADLINE (prio -1 in its sched_switch events). Its
// switch-out at 8 ms with CPU 0 going idle is its own runtime throttle, not
// /svc's: CFS bandwidth charges only fair-class tasks (latExtra.
// underBandwidth), so /svc shows no throttle and the 94 ms wait (8 to 102)
// is counted once, by the deadline rule.
//
//	task 2: woken at 1, runs 5-8 (delay 4 ms), runnable 8-102 (94 ms,
//	        throttled), runs 102-104: sum 98 ms, throttled 94 ms in 1 delay.
//	task 1: preempted 5-100 (95 ms) and 102-104 (2 ms): sum 97 ms, none
//	        throttled (no fair task of /svc left a CPU idle while runnable).
//
// Before the rule, /svc's throttle [8, 100] was inferred from task 2's
// switch-out and charged 92 ms of task 2's wait on top of the deadline
// rule's 94: 186 ms throttled of a 98 ms sum.
func TestDeadlineTaskInThrottledGroup(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	sw := func(ms float64, prev trace.TID, st trace.TaskState, cg uint64, next trace.TID) trace.Event {
		return thrSwitchDL(ms, prev, st, cg, next, 2)
	}
	evs := []trace.Event{
		sw(0, 0, R, 0, 1),
		thrSwitch(0, 1, 0, R, 0, 3),
		thrWaking(1, 0, 1, 2),
		sw(5, 1, R, 7, 2),
		sw(8, 2, R, 7, 0),
		sw(100, 0, R, 0, 1),
		sw(102, 1, R, 7, 2),
		sw(104, 2, S, 7, 1),
		sw(106, 1, S, 7, 0),
		thrSwitch(110, 1, 3, S, 8, 0),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	thrWant(t, res, 2, 98, 94, 1)
	thrWant(t, res, 1, 97, 0, 0)
	g := thrGroupOf(t, res, "/svc")
	if len(g.Throttles) != 0 || g.Throttled != 0 {
		t.Errorf("/svc throttles %v (%d ns), want none", g.Throttles, g.Throttled)
	}
	// /svc's runtime still counts the deadline task's runs: 0-8 and
	// 100-106 on CPU 0.
	if g.Runtime != 14*msNS {
		t.Errorf("/svc runtime %d, want 14 ms", g.Runtime)
	}
}

// TestPolicyNotes: tasks whose switch-outs recorded SCHED_IDLE or
// SCHED_BATCH (an eBPF capture's policies) are named under the table and
// in JSON; other policies and unknown ones are not. Task 2 switches out
// under SCHED_IDLE, task 3 under SCHED_BATCH, task 1 under SCHED_OTHER.
func TestPolicyNotes(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	pol := func(e trace.Event, p trace.SchedPolicy) trace.Event { e.Policy = p; return e }
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 1),
		pol(thrSwitch(2, 0, 1, R, 0, 2), trace.PolicyNormal),
		pol(thrSwitch(4, 0, 2, S, 0, 3), trace.PolicyIdle),
		pol(thrSwitch(6, 0, 3, S, 0, 1), trace.PolicyBatch),
		pol(thrSwitch(8, 0, 1, S, 0, 0), trace.PolicyNormal),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.IdleTasks, []string{"t2:2"}) || !slices.Equal(res.BatchTasks, []string{"t3:3"}) {
		t.Fatalf("idle %v, batch %v; want [t2:2], [t3:3]", res.IdleTasks, res.BatchTasks)
	}
	// A hostile name is escaped in the table's note (termsafe.Name), kept
	// as it is in JSON.
	res.IdleTasks[0] = "t\x1b[2J:2"
	var b strings.Builder
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b[2J") || !strings.Contains(b.String(), `t\x1b[2J:2`) {
		t.Errorf("the note does not escape an ESC in a name:\n%q", b.String())
	}
	res.IdleTasks[0] = "t2:2"
	b.Reset()
	if err := WriteLatencyTable(&b, res, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  SCHED_IDLE (weight 3, behind every other runnable task by design): t2:2\n", "  SCHED_BATCH (its wakeups do not preempt the running task): t3:3\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if j := res.JSON(); !slices.Equal(j.SchedIdleTasks, []string{"t2:2"}) || !slices.Equal(j.SchedBatchTasks, []string{"t3:3"}) {
		t.Errorf("JSON idle %v, batch %v", j.SchedIdleTasks, j.SchedBatchTasks)
	}
}

// TestThrottledWithinMovedTask: a task that was in a throttled group for a
// while (written into a v1 group's tasks file, then back to the root) is
// throttled by the group its delay was in, not its last row's: task 5's
// last row is in the root group (1); its delay from 100 to 200 ns was in
// group 7, throttled from 120 to 180: 60 ns, and the switch-in at 180 ends
// that 60 ns throttle (map --throttled). Without the delay's group (nil
// DelayCgroups: the last row's group) it read 0 and no end: a mover's
// 557 ms throttled in latency were none in timehist and map.
func TestThrottledWithinMovedTask(t *testing.T) {
	res := &LatencyResult{
		Cgroups:  []CgroupThrottle{{Cgroup: 7, Throttles: []ThrottleSpan{{Start: 120, End: 180}}}},
		TaskRows: []LatencyRow{{TID: 5, Cgroup: 1}},
	}
	dc := DelayCgroups{5: {{Start: 10, End: 50, Cgroup: 1}, {Start: 100, End: 180, Cgroup: 7}, {Start: 300, End: 320, Cgroup: 1}}}
	if got := res.ThrottledWithin(dc)(5, 100, 200); got != 60 {
		t.Errorf("throttled within [100, 200]: %d ns, want 60", got)
	}
	if got := res.ThrottledWithin(dc)(5, 300, 320); got != 0 {
		t.Errorf("throttled within [300, 320] (back in the root group): %d ns, want 0", got)
	}
	if ns, ok := res.ThrottleEnds(dc)(5, 180); !ok || ns != 60 {
		t.Errorf("switch-in at 180: throttle end %v, %d ns; want true, 60", ok, ns)
	}
	if got := res.ThrottledWithin(nil)(5, 100, 200); got != 0 {
		t.Errorf("without the delays' groups: %d ns, want 0 (the last row's group)", got)
	}
}

// TestQuotaChanged: /svc's quota was read as 30 ms per 100 ms at the start
// and 20 ms at 250 ms (thrNS: 1.25 s on the trace clock; changed during the trace): the group keeps both
// readings, in order (a repeated reading of the same value is one), and
// the quota text says it changed (new-user pass 15 F8 showed only the
// last, as if it had held throughout). The analysis uses each quota from
// the reading that saw it: task 1 runs 20 ms of each 100 ms period (0-20,
// 100-120, 200-210) while the quota is 30 ms, under the quota rule's
// threshold (max(30 − 0, 15) = 30 ms on one CPU), so no throttle; under
// 20 ms from the start those runs are TestThrottleQuotaEvidence's two
// throttles, 20-100 and 120-200 = 160 ms (the readings reversed). Read
// only after the last event (400 ms, an older recording's end reading),
// when the change came is not recorded: the start's quota holds for every
// event and the text says so.
func TestQuotaChanged(t *testing.T) {
	evs := quotaEvidenceEvents()
	for _, c := range []struct {
		name      string
		first     int64
		last      int64
		at        int64
		throttled int64
		text      string
	}{
		{"30 then 20", 30, 20, 250, 0, "20ms/100ms, recorded; changed during the trace: 30ms/100ms (read at the start), 20ms/100ms (read at 1.250000 s); the analysis used each from when it was read"},
		{"20 then 30", 20, 30, 250, 160 * msNS, "30ms/100ms, recorded; changed during the trace: 20ms/100ms (read at the start), 30ms/100ms (read at 1.250000 s); the analysis used each from when it was read"},
		{"read at the end", 30, 20, 400, 0, "20ms/100ms, recorded; changed during the trace: 30ms/100ms (read at the start), 20ms/100ms (read at 1.400000 s); when is not recorded (read only as the recording ended): the analysis used each from when it was read, the start's for every event"},
	} {
		meta := thrMeta()
		meta.CgroupSettings = []trace.CgroupSettings{
			{Path: "/svc", QuotaNS: c.first * msNS, PeriodNS: 100 * msNS},
			{Path: "/svc", Time: thrNS(100), QuotaNS: c.first * msNS, PeriodNS: 100 * msNS},
			{Path: "/svc", Time: thrNS(float64(c.at)), QuotaNS: c.last * msNS, PeriodNS: 100 * msNS},
		}
		res, err := ComputeLatency(trace.NewSliceSource(evs, meta), LatencyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g := thrGroupOf(t, res, "/svc")
		want := []QuotaReading{{0, c.first * msNS, 100 * msNS}, {thrNS(float64(c.at)), c.last * msNS, 100 * msNS}}
		if !slices.Equal(g.QuotaReadings, want) || g.QuotaNS != c.last*msNS || g.Throttled != c.throttled {
			t.Errorf("%s: /svc readings %v quota %d throttled %d, want %v, %d ms, %d ns", c.name, g.QuotaReadings, g.QuotaNS, g.Throttled, want, c.last, c.throttled)
		}
		if got := quotaText(&g); got != c.text {
			t.Errorf("%s: quota text %q, want %q", c.name, got, c.text)
		}
		if quotaReadings("/svc", meta.CgroupSettings[:2]) != nil {
			t.Errorf("one value read twice gave readings")
		}
	}
}

// quotaEvidenceEvents are TestThrottleQuotaEvidence's switches (times in
// ms): task 1 of /svc (cgroup 7) and task 3 of /batch (8) on CPU 0.
func quotaEvidenceEvents() []trace.Event {
	R, S := trace.StateRunning, trace.StateInterruptible
	return []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 1),
		thrSwitch(20, 0, 1, R, 7, 3),
		thrSwitch(100, 0, 3, R, 8, 1),
		thrSwitch(120, 0, 1, R, 7, 3),
		thrSwitch(200, 0, 3, R, 8, 1),
		thrSwitch(210, 0, 1, S, 7, 3),
		thrSwitch(250, 0, 3, S, 8, 0),
	}
}

// TestClipAbove: the parts of a group's candidate throttles inside an
// ancestor's throttles are the ancestor's. Candidates [0,100) (idle
// evidence) and [200,300); ancestor throttles [50,80) and [150,250): what
// is left is [0,50), [80,100) (idle) and [250,300).
func TestClipAbove(t *testing.T) {
	cands := []candidate{{ThrottleSpan{0, 100}, true}, {ThrottleSpan{200, 300}, false}}
	got := clipAbove(cands, []ThrottleSpan{{50, 80}, {150, 250}})
	want := []candidate{{ThrottleSpan{0, 50}, true}, {ThrottleSpan{80, 100}, true}, {ThrottleSpan{250, 300}, false}}
	if !slices.Equal(got, want) {
		t.Errorf("clipAbove: %v, want %v", got, want)
	}
	if got := clipAbove(cands, nil); !slices.Equal(got, cands) {
		t.Errorf("no ancestor: %v", got)
	}
	if got := clipAbove(cands, []ThrottleSpan{{-10, 400}}); len(got) != 0 {
		t.Errorf("inside one ancestor throttle: %v, want none", got)
	}
}

// TestQuotaContradicted: a stated quota of 10 ms per 100 ms allows at most
// 10 ms × 30 periods + 10 ms (a period the span cuts) = 310 ms in a 3 s
// span; a group that ran 3000 ms did not run under it. Stated over a
// recorded 50ms/50ms, it replaced it. Within what it allows, or recorded
// rather than stated, nothing is said.
func TestQuotaContradicted(t *testing.T) {
	const ms = 1_000_000
	meta := &trace.Meta{CgroupSettings: []trace.CgroupSettings{{Path: "/a", QuotaNS: 50 * ms, PeriodNS: 50 * ms}}}
	g := &CgroupThrottle{Path: "/a", Settings: "stated", QuotaNS: 10 * ms, PeriodNS: 100 * ms, Runtime: 3000 * ms}
	want := "the stated quota 10ms/100ms replaces the 50ms/50ms the trace recorded; its tasks ran 3000.000 ms in the 3000.000 ms traced, more than the stated quota allows (310.000 ms): it was not the quota in force"
	if got := quotaContradicted(g, meta, nil, 3000*ms); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	g.Runtime = 310 * ms
	if got := quotaContradicted(g, nil, nil, 3000*ms); got != "" {
		t.Errorf("within the quota: %q", got)
	}
	g.Runtime, g.Settings = 3000*ms, "recorded"
	if got := quotaContradicted(g, meta, nil, 3000*ms); got != "" {
		t.Errorf("recorded: %q", got)
	}
}

// TestMergeCgroupThrottlesCPUs (new-user pass 23 F6: `latency A B` added
// the traces' CPUs used, 1.158 for one single-threaded hog, and showed the
// first trace's quota): /a ran 1 s in a trace of 2 s under 30ms/100ms and
// 3 s in one of 4 s with no quota; merged it used (1 + 3) / (2 + 4) =
// 0.667 CPUs, and its quota differs between the traces, both named in
// order. /b, in one trace only (0.25 s of 2 s), keeps 0.125 and its quota.
func TestMergeCgroupThrottlesCPUs(t *testing.T) {
	a := []CgroupThrottle{
		{Path: "/a", Runtime: 1e9, Span: 2e9, CPUs: 0.5, QuotaNS: 30e6, PeriodNS: 100e6, Settings: "recorded"},
		{Path: "/b", Runtime: 25e7, Span: 2e9, CPUs: 0.125, QuotaNS: 10e6, PeriodNS: 100e6, Settings: "recorded"},
	}
	b := []CgroupThrottle{{Path: "/a", Runtime: 3e9, Span: 4e9, CPUs: 0.75, QuotaNS: -1, Settings: "recorded"}}
	m := MergeCgroupThrottles(a, b)
	if len(m) != 2 || m[0].Path != "/a" || math.Abs(m[0].CPUs-4.0/6) > 1e-9 || m[1].CPUs != 0.125 {
		t.Fatalf("merged %+v", m)
	}
	if got, want := quotaText(&m[0]), "differs between the traces: 30ms/100ms, max (no limit), recorded"; got != want {
		t.Errorf("/a quota %q, want %q", got, want)
	}
	if got, want := quotaText(&m[1]), "10ms/100ms, recorded"; got != want {
		t.Errorf("/b quota %q, want %q", got, want)
	}
	if m := MergeCgroupThrottles(a, a); len(m[0].QuotasOfTraces) != 0 || m[0].CPUs != 0.5 {
		t.Errorf("a trace with itself: %+v", m[0])
	}
}

// TestKernelNoteRecordedCPUs (new-user pass 23 F7: a `record --cpu 0`
// capture's group line read 0 throttled periods beside the kernel's 82,
// with no word): on a recording of CPU 0 only, /svc (quota 25ms/100ms)
// runs 10 ms and sleeps, so no throttle is inferred, while its cpu.stat,
// read at the trace's start and end, counted 5 throttled periods, 400
// ms. The note says the recording holds CPU 0 only and the inference is
// not comparable. A group its cpu.stat says was never throttled gets no
// note.
func TestKernelNoteRecordedCPUs(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 2),
		thrSwitch(10, 0, 2, S, 7, 3),
		thrSwitch(20, 0, 3, S, 8, 0),
		thrSwitch(500, 0, 0, R, 0, 2),
		thrSwitch(510, 0, 2, S, 7, 0),
	}
	meta := thrMeta()
	meta.RecordedCPUs = []trace.CPU{0}
	meta.CgroupSettings = []trace.CgroupSettings{{Path: "/svc", QuotaNS: 25e6, PeriodNS: 100e6}}
	meta.CgroupStats = []trace.CgroupStat{
		{Path: "/svc", Time: thrNS(0), NrPeriods: 10, NrThrottled: 2, ThrottledNS: 100e6},
		{Path: "/svc", Time: thrNS(510), NrPeriods: 16, NrThrottled: 7, ThrottledNS: 500e6},
		{Path: "/batch", Time: thrNS(0)}, {Path: "/batch", Time: thrNS(510)},
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, meta), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteCgroupTable(&b, res.Cgroups)
	if want := "  /svc: the recording holds CPU 0 only: the kernel counted every CPU's runqueues, and a wait on a recorded CPU is left out where the task may have run on another meanwhile, so the inference (0 periods, 0.000 ms) is not comparable; take the kernel's figures\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	if strings.Contains(b.String(), "/batch: the recording holds") {
		t.Errorf("a note for /batch, never throttled:\n%s", b.String())
	}
}

// TestChainBreakNamesShownTask (new-user pass 23 F1: the warning named
// only the tasks whose switch-out was missing, tokio-rt-worker, never the
// hog whose 300 ms it left out of Runtime): CPU 0 switches t2 in at 0 ms,
// and the next sched_switch, at 10 ms, switches t3 out: t2's switch-out
// and t3's switch-in are missing, and t3 began its run at an unknown time
// in those 10 ms, so its Runtime lacks up to 10 ms: the warning names t2
// as missing its switch-out and t3, 10.000 ms, as the task whose run time
// is a lower bound.
func TestChainBreakNamesShownTask(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 2),
		thrSwitch(10, 0, 3, S, 0, 0),
		thrSwitch(20, 0, 0, R, 0, 2),
		thrSwitch(30, 0, 2, S, 0, 0),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, w := range res.ReportWarnings {
		if strings.HasPrefix(w.Key, "sched-switch-chain-cpu") {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "the trace lacks the switches out of: t2:2 1;") || !strings.Contains(msg, "a lower bound for the tasks they show running: t3:3 10.000 ms (") {
		t.Errorf("warning %q", msg)
	}
}

// TestSameBasis (new-user pass 24 F1): /p has a quota in trace A, so its
// line there counts its subtree (its own tasks, 40 ms, and /p/c's, 60 ms:
// 100 ms), and none in trace B, whose line counts its own tasks (30 ms)
// beside /p/c's (70 ms). Compared or merged, B's line is rebuilt on the
// subtree basis, 30 + 70 = 100 ms: compare's /p B is 100 ms (it was 30,
// B/A 0.3), and merged /p is 200 ms with the groups below it (it added
// 100 and 30). Where B's /p/c is itself a subtree line (a quota of its
// own), /p cannot be rebuilt: it keeps its basis, marked MixedBasis, and
// compare gives no ratio for it. Merged, "under /q's quota" from one
// trace and "also under /q's quota" from another name /q once.
func TestSameBasis(t *testing.T) {
	a := []CgroupThrottle{
		{Path: "/p", Runtime: 100, Span: 1000, Subtree: true, QuotaNS: 10, PeriodNS: 100, Settings: "recorded"},
		{Path: "/p/c", Runtime: 60, Span: 1000, ThrottledBy: "/p", QuotaNS: -1, Settings: "recorded"},
	}
	b := []CgroupThrottle{
		{Path: "/p", Runtime: 30, Span: 1000, QuotaNS: -1, Settings: "recorded"},
		{Path: "/p/c", Runtime: 70, Span: 1000, QuotaNS: -1, Settings: "recorded"},
	}
	c := compareCgroups(sameBasis([][]CgroupThrottle{a, b})[0], sameBasis([][]CgroupThrottle{a, b})[1])
	if len(c) != 2 || c[0].Path != "/p" || c[0].B.Runtime != 100 || !c[0].B.Subtree || c[0].B.CPUs != 0.1 {
		t.Errorf("compared /p: %+v", c[0].B)
	}
	m := MergeCgroupThrottles(a, b)
	if m[0].Path != "/p" || m[0].Runtime != 200 || !m[0].Subtree || m[0].MixedBasis {
		t.Errorf("merged /p: %+v", m[0])
	}
	b[1].Subtree = true
	s := sameBasis([][]CgroupThrottle{a, b})
	if g := s[1][0]; g.Runtime != 30 || g.Subtree || !g.MixedBasis {
		t.Errorf("B's /p over a subtree line: %+v, want 30 ms, own basis, mixed", g)
	}
	var out strings.Builder
	res := &CompareResult{Cgroups: compareCgroups(s[0], s[1])}
	if err := writeCompareCgroups(&out, res.Cgroups); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "/p" && f[3] != "-" {
			t.Errorf("/p compared across bases with ratio %s:\n%s", f[3], out.String())
		}
	}
	x := []CgroupThrottle{{Path: "/q/r", ThrottledBy: "/q", Settings: "recorded", QuotaNS: -1}}
	y := []CgroupThrottle{{Path: "/q/r", AlsoUnder: "/q", Settings: "recorded", QuotaNS: 5, PeriodNS: 100}}
	if g := MergeCgroupThrottles(x, y)[0]; g.ThrottledBy != "/q" || g.AlsoUnder != "" {
		t.Errorf("merged /q/r: under %q, also under %q", g.ThrottledBy, g.AlsoUnder)
	}
}

// TestThrottlePhaseFromEveryCandidate: the period timer's phase comes from
// every candidate throttle weighed by length, not from the idle-rule ones
// alone (new-user pass 51 F3: a later file's few idle-rule throttles moved
// the phase and took 7 of an earlier window's 28 periods away). One CPU,
// /svc's quota stated as 20 ms per 100 ms (thrBase is 0 mod 100 ms). Task
// 1 (/svc) runs 0-20, 100-120 and 200-220, each time switched out runnable
// to /batch's task 3 after using the 20 ms quota: quota-rule candidates
// [20,100], [120,200], [220,300], ending on the boundaries at 100, 200, 300.
// At 310 task 1 is switched out runnable to the idle task and runs again
// at 355: one idle-rule candidate [310,355], ending at phase 55.
//
// The phase: the window at 0 holds 3 × 80 = 240 ms of waiting, the one at
// 55 holds 45 ms: phase 0, so all three quota-rule candidates end on a
// boundary and are kept beside the idle one. Task 1 is throttled
// 80+80+80+45 = 285 ms in 4 delays; periods: the boundaries at 100, 200
// and 300 (none inside [310,355]): 3. From the idle-rule candidate alone
// the phase was 55, the three quota-rule ones ended 45 ms after a
// boundary and were dropped: 45 ms in 1 delay, 1 period.
func TestThrottlePhaseFromEveryCandidate(t *testing.T) {
	R, S := trace.StateRunning, trace.StateInterruptible
	evs := []trace.Event{
		thrSwitch(0, 0, 0, R, 0, 1),
		thrSwitch(20, 0, 1, R, 7, 3),
		thrSwitch(100, 0, 3, R, 8, 1),
		thrSwitch(120, 0, 1, R, 7, 3),
		thrSwitch(200, 0, 3, R, 8, 1),
		thrSwitch(220, 0, 1, R, 7, 3),
		thrSwitch(300, 0, 3, R, 8, 1),
		thrSwitch(310, 0, 1, R, 7, 0),
		thrSwitch(355, 0, 0, R, 0, 1),
		thrSwitch(360, 0, 1, S, 7, 3),
		thrSwitch(400, 0, 3, S, 8, 0),
	}
	stated := []trace.CgroupSettings{{Path: "/svc", QuotaNS: 20 * msNS, PeriodNS: 100 * msNS}}
	res, err := ComputeLatency(trace.NewSliceSource(evs, thrMeta()), LatencyOptions{Cgroups: stated})
	if err != nil {
		t.Fatal(err)
	}
	if r := thrRow(t, res, 1); r.Throttled != 285*msNS || r.ThrottledDelays != 4 {
		t.Errorf("task 1 throttled %d ns in %d delays, want 285 ms in 4", r.Throttled, r.ThrottledDelays)
	}
	g := thrGroupOf(t, res, "/svc")
	if g.QuotaEvidence != 3 || g.IdleEvidence != 1 || g.ThrottledPeriods != 3 || g.Throttled != 285*msNS {
		t.Errorf("/svc: %d quota-rule, %d idle-rule throttles, %d periods, %d ns; want 3, 1, 3, 285 ms", g.QuotaEvidence, g.IdleEvidence, g.ThrottledPeriods, g.Throttled)
	}
}

// TestMergeKernelOfSomeTraces: of two traces merged, only one holds the
// group's cpu.stat (a traceview record file beside a perf.data): its
// readings are compared with its own inference, not with the sum of
// both (new-user pass 72 F1: 63 + 8 = 71 inferred periods, 8130.6 +
// 1297.1 ms, against the one trace's 68 and 8273.5 ms read "114 %" and
// blamed a quota change). Inferred 63 periods, 8130 ms against 68 and
// 8273 ms: within KernelAgreement (5 %: 143 ms of 8273) and 20 % of the
// periods, so no note; the group says the readings are of 1 of 2 traces.
// With that trace's inference at 6000 ms (72.5 % of 8273) the note is
// that trace's.
func TestMergeKernelOfSomeTraces(t *testing.T) {
	const ms = int64(1_000_000)
	with := func(thr int64) CgroupThrottle {
		return CgroupThrottle{Path: "/svc", Settings: "recorded", QuotaNS: 15 * ms, PeriodNS: 100 * ms, ThrottledPeriods: 63, Throttled: thr,
			Kernel: &trace.CgroupStat{Path: "/svc", NrPeriods: 69, NrThrottled: 68, ThrottledNS: 8273 * ms}}
	}
	without := CgroupThrottle{Path: "/svc", Settings: "unknown", ThrottledPeriods: 8, Throttled: 1297 * ms}
	got := MergeCgroupThrottles([]CgroupThrottle{with(8130 * ms)}, []CgroupThrottle{without})
	if len(got) != 1 || got[0].KernelOf != "1 of 2 traces" || got[0].KernelNote != "" || got[0].ThrottledPeriods != 71 {
		t.Errorf("merged %+v: want KernelOf \"1 of 2 traces\", no note, 71 periods", got)
	}
	got = MergeCgroupThrottles([]CgroupThrottle{with(6000 * ms)}, []CgroupThrottle{without})
	if len(got) != 1 || !strings.HasPrefix(got[0].KernelNote, "of the traces with readings, the inference found 73% of that throttled time (63 periods)") {
		t.Errorf("note %q", got[0].KernelNote)
	}
	// Both with readings: the sums, as before.
	got = MergeCgroupThrottles([]CgroupThrottle{with(8130 * ms)}, []CgroupThrottle{with(8130 * ms)})
	if len(got) != 1 || got[0].KernelOf != "" || got[0].Kernel.NrThrottled != 136 {
		t.Errorf("both: %+v", got)
	}
}
