package report

import (
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/traceview/traceview/trace"
)

// Event builders for hand-made traces. cur is the task in whose context the
// event was recorded (perf's sample tid).

func comm(tid trace.TID, name string) trace.Event {
	e := trace.NewEvent(0, 0, trace.KindComm)
	e.TID, e.PID, e.Comm = tid, trace.PID(tid), name
	return e
}

func sw(t int64, cpu trace.CPU, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindSwitch)
	e.CurTID, e.TID, e.PrevState, e.NextTID = prev, prev, st, next
	return e
}

func wake(t int64, cpu trace.CPU, cur, tid trace.TID) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindWaking)
	e.CurTID, e.TID = cur, tid
	return e
}

func kind(e trace.Event, k trace.Kind) trace.Event { e.Kind = k; return e }

func rt(t int64, cpu trace.CPU, tid trace.TID, ns int64) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindRuntime)
	e.CurTID, e.TID, e.Runtime = tid, tid, ns
	return e
}

func fork(t int64, cpu trace.CPU, parent, child trace.TID) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindFork)
	e.CurTID, e.TID, e.PID, e.ChildTID, e.ChildPID = parent, parent, trace.PID(parent), child, trace.PID(child)
	return e
}

const preempted = trace.StatePreempted
const sleeping = trace.StateInterruptible

func run(t *testing.T, evs []trace.Event, opts LatencyOptions) *LatencyResult {
	t.Helper()
	res, err := ComputeLatency(trace.NewSliceSource(evs, &trace.Meta{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rowsOf(res *LatencyResult) []LatencyRow { return res.Rows }

var ignoreSamples = cmpopts.IgnoreFields(LatencyRow{}, "Samples", "SortedDelays")

// basicTrace: task a (10) and b (20) share CPU 0.
//
//	t=1000 idle -> a      a first seen switched in
//	t=2000 a S -> idle    (a ran 1000 ns)
//	t=3000 waking a       (from CPU 1)
//	t=3500 idle -> a      delay 3500-3000 = 500
//	t=4000 a R+ -> b      a preempted: delay starts at 4000; b first seen
//	t=4700 b S -> a       delay 4700-4000 = 700
func basicTrace() []trace.Event {
	return []trace.Event{
		comm(10, "a"), comm(20, "b"),
		sw(1000, 0, 0, 0, 10),
		rt(2000, 0, 10, 1000),
		sw(2000, 0, 10, sleeping, 0),
		wake(3000, 1, 30, 10),
		sw(3500, 0, 0, 0, 10),
		rt(4000, 0, 10, 500),
		sw(4000, 0, 10, preempted, 20),
		rt(4700, 0, 20, 700),
		sw(4700, 0, 20, sleeping, 10),
	}
}

func TestLatencyBasic(t *testing.T) {
	res := run(t, basicTrace(), LatencyOptions{})
	// a: delays 500 and 700 (the first switch-in has no known wakeup):
	// count 2, sum 1200, avg 600, max 700 from 4000 to 4700; runtime
	// 1000+500; switched in 3 times. b: only its first switch-in, no delay
	// measured: Count 0, kept (perf shows it) with its 700 ns runtime.
	want := []LatencyRow{
		{Comm: "a", TID: 10, PID: 10, NrTasks: 1, Runtime: 1500, RuntimeSource: RuntimeFromStat, Count: 2, Switches: 3,
			AvgDelay: 600, MaxDelay: 700, SumDelay: 1200, MaxDelayStart: 4000, MaxDelayEnd: 4700, FirstSeen: 1},
		{Comm: "b", TID: 20, PID: 20, NrTasks: 1, Runtime: 700, RuntimeSource: RuntimeFromStat, Switches: 1, FirstSeen: 1},
	}
	if d := cmp.Diff(want, rowsOf(res), ignoreSamples); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if res.Total != (LatencyTotal{Runtime: 2200, Count: 2, Switches: 4, SumDelay: 1200}) {
		t.Errorf("total = %+v", res.Total)
	}
	if res.Diag.FirstSeen != 2 { // idle (TID 0) is not counted
		t.Errorf("FirstSeen = %d, want 2 (a at 1000, b at 4000)", res.Diag.FirstSeen)
	}
}

func TestLatencyPerfCompatFirstSeen(t *testing.T) {
	res := run(t, basicTrace(), LatencyOptions{PerfCompat: true})
	// perf counts a 0 ns delay at each first-seen switch-in: a gets delays
	// 0, 500, 700 (count 3, avg 1200/3 = 400), b gets one 0 ns delay whose
	// max start/end stay 0 (perf only records a maximum > 0).
	want := []LatencyRow{
		{Comm: "a", TID: 10, PID: 10, NrTasks: 1, Runtime: 1500, Count: 3, Switches: 3,
			AvgDelay: 400, MaxDelay: 700, SumDelay: 1200, MaxDelayStart: 4000, MaxDelayEnd: 4700, FirstSeen: 1},
		{Comm: "b", TID: 20, PID: 20, NrTasks: 1, Runtime: 700, Count: 1, Switches: 1, FirstSeen: 1},
	}
	if d := cmp.Diff(want, rowsOf(res), ignoreSamples); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
}

func TestLatencyMergeAndPerTask(t *testing.T) {
	// Two "w" tasks (30, 31) and one "v" (40), each woken once on CPU 0.
	evs := []trace.Event{comm(30, "w"), comm(31, "w"), comm(40, "v"),
		sw(100, 0, 0, 0, 30), sw(200, 0, 30, sleeping, 31), sw(300, 0, 31, sleeping, 40), sw(400, 0, 40, sleeping, 0),
		wake(1000, 1, 99, 30), sw(1100, 0, 0, 0, 30), // 30: 100
		wake(1200, 1, 99, 31), sw(1500, 0, 30, sleeping, 31), // 31: 300
		wake(1600, 1, 99, 40), sw(1610, 0, 31, sleeping, 40), // 40: 10
	}
	res := run(t, evs, LatencyOptions{})
	// Merged: w = {100, 300}: avg 200, max 300 (31, 1200..1500); v = {10}.
	// No sched_stat_runtime in the trace: Runtime is on-CPU time from the
	// switches. w: 30 ran 100-200 and 1100-1500 (500 ns), 31 200-300 and
	// 1500-1610 (210 ns): 710 ns; v: 40 ran 300-400 (100 ns), and from
	// 1610 to the trace's end, 1610 (0 ns). w's MaxTID is 31, the higher.
	want := []LatencyRow{
		{Comm: "w", MaxTID: 31, NrTasks: 2, Runtime: 710, RuntimeSource: RuntimeFromSwitches, Count: 2, Switches: 4, AvgDelay: 200, MaxDelay: 300, SumDelay: 400, MaxDelayStart: 1200, MaxDelayEnd: 1500, FirstSeen: 2},
		{Comm: "v", TID: 40, PID: 40, NrTasks: 1, Runtime: 100, RuntimeSource: RuntimeFromSwitches, Count: 1, Switches: 2, AvgDelay: 10, MaxDelay: 10, SumDelay: 10, MaxDelayStart: 1600, MaxDelayEnd: 1610, FirstSeen: 1},
	}
	if d := cmp.Diff(want, rowsOf(res), ignoreSamples); d != "" {
		t.Errorf("merged rows (-want +got):\n%s", d)
	}
	res = run(t, evs, LatencyOptions{PerTask: true})
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Comm+":"+itoa(int64(r.TID)))
	}
	// avg order: 31 (300), 30 (100), 40 (10).
	if strings.Join(got, " ") != "w:31 w:30 v:40" {
		t.Errorf("per-task order = %v", got)
	}
	res = run(t, evs, LatencyOptions{Sort: []string{"sum"}})
	if res.Rows[0].Comm != "w" || res.Rows[1].Comm != "v" {
		t.Errorf("sum order = %s, %s", res.Rows[0].Comm, res.Rows[1].Comm)
	}
}

func itoa(v int64) string {
	var b []byte
	if v == 0 {
		return "0"
	}
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func TestLatencySortKeyErrors(t *testing.T) {
	_, err := ComputeLatency(trace.NewSliceSource(nil, nil), LatencyOptions{Sort: []string{"avg,bogus"}})
	if err == nil || !strings.Contains(err.Error(), `unknown sort key "bogus"`) {
		t.Fatalf("err = %v", err)
	}
	res, err := ComputeLatency(trace.NewSliceSource(nil, nil), LatencyOptions{Sort: []string{"max, runtime"}})
	if err != nil || strings.Join(res.Options.Sort, ",") != "max,runtime" {
		t.Fatalf("sort = %v, %v", res.Options.Sort, err)
	}
}

// missingSwitchIn: CPU 1's switch idle -> t50 is not in the trace (as on the
// shared traces, where nothing is recorded while CPU 1 is idle).
//
//	t=100  CPU 1: t50 S -> idle
//	t=200  CPU 0: waking t50 (target CPU 1)
//	       (t50 switched in on CPU 1 at an unknown time, not recorded)
//	t=500  CPU 1: sched_stat_runtime t50 250 ns -> picked at or before 250
//	t=600  CPU 1: t50 S -> idle: breaks the chain (last switched in: idle)
func missingSwitchIn() []trace.Event {
	return []trace.Event{comm(50, "m"),
		sw(100, 1, 50, sleeping, 0),
		wake(200, 0, 60, 50),
		rt(500, 1, 50, 250),
		sw(600, 1, 50, sleeping, 0),
	}
}

func TestLatencyMissingSwitchIn(t *testing.T) {
	res := run(t, missingSwitchIn(), LatencyOptions{})
	// Recovered switch-in: max(500-250, wakeup 200, last switch 100) = 250,
	// delay 250-200 = 50. No recorded switch-in (Switches 0), one the trace
	// lacks (Unrecorded 1: t50's own event on CPU 1, whose last switch
	// switched in idle).
	want := []LatencyRow{{Comm: "m", TID: 50, PID: 50, NrTasks: 1, Runtime: 250, RuntimeSource: RuntimeFromStat, Count: 1, Switches: 0,
		AvgDelay: 50, MaxDelay: 50, SumDelay: 50, MaxDelayStart: 200, MaxDelayEnd: 250, Recovered: 1, RecoveredSum: 50, Unrecorded: 1}}
	if d := cmp.Diff(want, rowsOf(res), ignoreSamples); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if res.Diag.Recovered != 1 || res.Diag.Dropped != 0 || res.Diag.PerfSwitchBugs != 1 {
		t.Errorf("diag = %+v", res.Diag)
	}
	// The break is shown at 500 (t50's sched_stat_runtime while idle was
	// the last switched in, at 100): its run began in those 400 ns.
	if len(res.Diag.Chains) != 1 || res.Diag.Chains[0].CPU != 1 || res.Diag.Chains[0].Breaks != 1 || res.Diag.Chains[0].Missing[0] != 1 || res.Diag.Chains[0].UnknownRun != 400 {
		t.Errorf("chains = %+v, want one break on CPU 1 with UnknownRun 400", res.Diag.Chains)
	}
	var msg string
	for _, w := range res.Warnings {
		if w.Key == "sched-switch-chain-cpu1" {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "CPU 1: 1 of 2 sched_switch events") || !strings.Contains(msg, "idle (swapper/1) 1") {
		t.Errorf("chain warning = %q", msg)
	}

	// perf drops the delay: no row, one context switch bug, one
	// "timestamp" (the wakeup of a sleeping task).
	res = run(t, missingSwitchIn(), LatencyOptions{PerfCompat: true})
	if len(res.Rows) != 0 || res.Diag.Dropped != 1 || res.Diag.PerfSwitchBugs != 1 || res.Diag.PerfTimestamps != 1 {
		t.Errorf("perf compat: rows %v diag %+v", res.Rows, res.Diag)
	}
}

func TestLatencyPidReuse(t *testing.T) {
	// Task 70 "old" is woken once (delay 100), exits; a fork by 80 "new"
	// reuses TID 70 and the new task is woken (delay 40). perf keeps two
	// thread objects, so -p shows two rows with TID 70 named by their
	// own comms.
	evs := []trace.Event{comm(70, "old"), comm(80, "new"),
		sw(10, 0, 0, 0, 70), sw(20, 0, 70, sleeping, 0),
		wake(100, 1, 99, 70), sw(200, 0, 0, 0, 70), sw(300, 0, 70, trace.StateDead, 0),
		fork(400, 1, 80, 70),
		kind(wake(500, 1, 80, 70), trace.KindWakeupNew), sw(540, 0, 0, 0, 70),
	}
	res := run(t, evs, LatencyOptions{PerTask: true})
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Comm+":"+itoa(int64(r.TID))+"="+itoa(r.SumDelay))
	}
	if strings.Join(got, " ") != "old:70=100 new:70=40" {
		t.Errorf("rows = %v", got)
	}
}

func TestLatencyWakeupSource(t *testing.T) {
	// A trace with both sched_waking (t=100) and sched_wakeup (t=130) of
	// one wakeup: the delay runs from sched_waking (perf prefers it).
	evs := []trace.Event{comm(5, "x"),
		sw(10, 0, 0, 0, 5), sw(20, 0, 5, sleeping, 0),
		wake(100, 1, 9, 5), kind(wake(130, 0, 0, 5), trace.KindWakeup), sw(150, 0, 0, 0, 5),
	}
	res := run(t, evs, LatencyOptions{})
	if len(res.Rows) != 1 || res.Rows[0].SumDelay != 50 {
		t.Fatalf("auto: %+v", res.Rows)
	}
	res = run(t, evs, LatencyOptions{Wakeups: WakeupsWakeup})
	if len(res.Rows) != 1 || res.Rows[0].SumDelay != 20 {
		t.Fatalf("wakeup only: %+v", res.Rows)
	}
}

func TestLatencyPercentiles(t *testing.T) {
	// One task woken 20 times with delays 1..20 us. stat.Empirical gives
	// the smallest sample x_i (1-based i) with i >= p*n: p50 -> i=10,
	// p95 -> i=19, p99 -> i=20 (19.8 rounds up), p99.9 -> i=20.
	evs := []trace.Event{comm(5, "x"), sw(0, 0, 0, 0, 5), sw(1, 0, 5, sleeping, 0)}
	ts := int64(1000)
	for i := int64(1); i <= 20; i++ {
		evs = append(evs, wake(ts, 1, 9, 5), sw(ts+i*1000, 0, 0, 0, 5), sw(ts+i*1000+1, 0, 5, sleeping, 0))
		ts += 100000
	}
	res := run(t, evs, LatencyOptions{Percentiles: true, KeepSamples: true})
	r := res.Rows[0]
	if r.P50 != 10000 || r.P95 != 19000 || r.P99 != 20000 || r.P999 != 20000 {
		t.Errorf("percentiles = %d %d %d %d", r.P50, r.P95, r.P99, r.P999)
	}
	if len(r.Samples) != 20 || r.Samples[0] != 1000 || r.Samples[19] != 20000 || r.SumDelay != 210000 {
		t.Errorf("samples = %v sum %d", r.Samples, r.SumDelay)
	}
}

func TestLatencyProfileCPU(t *testing.T) {
	// x is preempted at 20 (delay starts), woken again at 50 (already
	// runnable), migrated at 70, switched in at 100.
	mig := trace.NewEvent(70, 1, trace.KindMigrate)
	mig.CurTID, mig.TID, mig.OrigCPU, mig.DestCPU = 9, 5, 1, 0
	evs := []trace.Event{comm(5, "x"),
		sw(10, 0, 0, 0, 5), sw(20, 0, 5, preempted, 0),
		wake(50, 1, 9, 5), mig, sw(100, 0, 0, 0, 5),
	}
	// All CPUs: the wakeup of a runnable task and the migration are
	// ignored: delay 100-20 = 80.
	if res := run(t, evs, LatencyOptions{}); res.Rows[0].SumDelay != 80 {
		t.Errorf("all CPUs: %+v", res.Rows)
	}
	// perf -C: every wakeup counts (delay from 50) and the migration
	// resets it to 70: delay 30, and 2 "timestamps" (wakeup, migration).
	res := run(t, evs, LatencyOptions{CPUGiven: true, CPU: 0})
	if res.Rows[0].SumDelay != 30 || res.Diag.PerfTimestamps != 2 {
		t.Errorf("-C 0: %+v %+v", res.Rows, res.Diag)
	}
}

func TestLatencyChainBreakAfterLoss(t *testing.T) {
	// CPU 0: idle -> a; records lost; b switches out (the switches a -> b
	// were lost), then b -> idle and idle -> ... consistent again.
	lost := trace.NewEvent(150, 0, trace.KindLost)
	lost.Count = 12
	evs := []trace.Event{comm(1, "a"), comm(2, "b"),
		sw(100, 0, 0, 0, 1), lost, sw(200, 0, 2, sleeping, 0), sw(300, 0, 0, 0, 1), sw(400, 0, 3, sleeping, 0),
	}
	res := run(t, evs, LatencyOptions{})
	cb := res.Diag.Chains
	// Two breaks on CPU 0 (b at 200 after a, 3 at 400 after a); only the
	// first follows the loss.
	if len(cb) != 1 || cb[0].Breaks != 2 || cb[0].AfterLoss != 1 || cb[0].Missing[1] != 2 || res.Diag.LostEvents != 12 {
		t.Fatalf("chains %+v diag %+v", cb, res.Diag)
	}
	var buf strings.Builder
	writePerfInfo(&buf, &res.Diag)
	// perf: 2 bugs over 0 "timestamps" (no wakeups) prints no bug line,
	// and 12 lost of 7 events read.
	if buf.String() != "  INFO: 171.429% lost events (12 out of 7, in 1 chunks)\n" {
		t.Errorf("perf INFO = %q", buf.String())
	}
}

func TestLatencyUnwoken(t *testing.T) {
	// u sleeps at 100 on CPU 0; with no recorded wakeup it is switched in
	// at 300 on CPU 0, sleeps at 400, and is seen running on CPU 1 (a
	// sched_stat_runtime in its context after CPU 1's last switch went to
	// idle) at 700: two delays that cannot be measured.
	evs := []trace.Event{comm(7, "u"),
		sw(50, 0, 0, 0, 7), sw(100, 0, 7, sleeping, 0), sw(300, 0, 0, 0, 7), sw(400, 0, 7, sleeping, 0),
		sw(500, 1, 8, sleeping, 0), rt(700, 1, 7, 100),
	}
	res := run(t, evs, LatencyOptions{})
	if res.Diag.Unwoken != 2 || res.Diag.Recovered != 0 || res.Rows[0].Count != 0 {
		t.Errorf("diag %+v rows %+v", res.Diag, res.Rows)
	}
}

// TestLatencyNoWakeupEvents: a trace without any sched_waking or
// sched_wakeup (perf record -e sched:sched_switch alone) measures only
// preemptions; the report says so as a warning of its own (no-wakeups,
// counting the 2 sleeps of TestLatencyUnwoken's stream), not as the
// per-sleep delay-no-wakeup line. One wakeup in the stream (v woken at
// 250) makes it the per-sleep line again, in both modes.
func TestLatencyNoWakeupEvents(t *testing.T) {
	evs := []trace.Event{comm(7, "u"),
		sw(50, 0, 0, 0, 7), sw(100, 0, 7, sleeping, 0), sw(300, 0, 0, 0, 7), sw(400, 0, 7, sleeping, 0),
		sw(500, 1, 8, sleeping, 0), rt(700, 1, 7, 100),
	}
	keys := func(res *LatencyResult) map[string]int {
		m := map[string]int{}
		for _, w := range res.ReportWarnings {
			m[w.Key] = w.Count
		}
		return m
	}
	for _, perf := range []bool{false, true} {
		k := keys(run(t, evs, LatencyOptions{PerfCompat: perf}))
		if k["no-wakeups"] != 2 || k["delay-no-wakeup"] != 0 {
			t.Errorf("perf %v: warnings %v, want no-wakeups 2 and no delay-no-wakeup", perf, k)
		}
		withWake := append([]trace.Event{sw(200, 1, 0, 0, 8), wake(250, 1, 8, 9)}, evs...)
		sort.SliceStable(withWake, func(i, j int) bool { return withWake[i].Time < withWake[j].Time })
		k = keys(run(t, withWake, LatencyOptions{PerfCompat: perf}))
		if k["no-wakeups"] != 0 || k["delay-no-wakeup"] == 0 {
			t.Errorf("perf %v, one wakeup: warnings %v, want delay-no-wakeup and no no-wakeups", perf, k)
		}
	}
}

// Random event streams (bad TIDs, huge CPU numbers, times going backwards,
// negative runtimes) must never panic and keep the totals consistent.
func TestLatencyRandomStreams(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	kinds := []trace.Kind{trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate,
		trace.KindFork, trace.KindExec, trace.KindExit, trace.KindComm, trace.KindRuntime, trace.KindLost}
	tids := []trace.TID{-1, 0, 1, 2, 3, 4, 1 << 23, 1<<31 - 1}
	for round := 0; round < 50; round++ {
		var evs []trace.Event
		ts := int64(0)
		for i := 0; i < 2000; i++ {
			ts += rng.Int63n(2000) - 300
			e := trace.NewEvent(ts, trace.CPU(rng.Intn(3)), kinds[rng.Intn(len(kinds))])
			if rng.Intn(50) == 0 {
				e.CPU = 1 << 30
			}
			e.CurTID, e.TID, e.NextTID, e.ChildTID = tids[rng.Intn(len(tids))], tids[rng.Intn(len(tids))], tids[rng.Intn(len(tids))], tids[rng.Intn(len(tids))]
			e.PrevState = trace.TaskState(rng.Intn(0x200))
			e.Runtime = rng.Int63n(10000) - 1000
			e.Comm = []string{"", "a", "b"}[rng.Intn(3)]
			e.Count = uint64(rng.Intn(5))
			evs = append(evs, e)
		}
		for _, opts := range []LatencyOptions{{}, {PerfCompat: true}, {PerTask: true, Percentiles: true}, {CPUGiven: true}} {
			res := run(t, evs, opts)
			var sum, count int64
			for _, r := range res.Rows {
				sum += r.SumDelay
				count += r.Count
				if r.Count > 0 && r.AvgDelay != r.SumDelay/r.Count {
					t.Fatalf("avg %d != %d/%d", r.AvgDelay, r.SumDelay, r.Count)
				}
			}
			if sum != res.Total.SumDelay || count != res.Total.Count {
				t.Fatalf("totals %+v vs rows %d %d", res.Total, sum, count)
			}
		}
	}
}

// TestDiagWarningsGrammar: one of each diagnosed case reads in the
// singular ("1 scheduling delay had ...", "1 time a task ..."), two in
// the plural; each message states its count.
func TestDiagWarningsGrammar(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want []string
	}{
		{1, []string{"1 scheduling delay had no recorded switch-in", "1 scheduling delay was started", "1 time a task ran again",
			"1 scheduling delay began with a sched_waking", "1 time a task already waiting", "1 scheduling delay overlapped lost events"}},
		{2, []string{"2 scheduling delays had no recorded switch-in", "2 scheduling delays were started", "2 times a task ran again",
			"2 scheduling delays began with a sched_waking", "2 times a task already waiting", "2 scheduling delays overlapped lost events"}},
	} {
		d := &LatencyDiagnostics{Recovered: c.n, Dropped: c.n, Unwoken: c.n, Wakeups: 1, Raced: c.n, Rewoken: c.n, LossyDelays: c.n}
		ws := diagWarnings(d, LatencyOptions{}, func(trace.TID) string { return "" })
		var all []string
		for _, w := range ws {
			all = append(all, w.Message)
		}
		joined := strings.Join(all, "\n")
		for _, want := range c.want {
			if !strings.Contains(joined, want) {
				t.Errorf("n=%d: no %q in:\n%s", c.n, want, joined)
			}
		}
	}
}
