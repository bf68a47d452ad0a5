package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

// scheduleCase opens one -- NAME.txt -- of testdata/schedule.txtar with the
// ftrace text reader.
func scheduleCase(t *testing.T, name string) trace.Source { return testsched.Case(t, name) }

// rowsByComm renders rows as "comm count sum max lossy runtime source" for
// comparison.
type caseRow struct {
	Comm                  string
	Count, Sum, Max, Lost int64
	Runtime               int64
	Source                string
}

func caseRows(res *LatencyResult) []caseRow {
	var out []caseRow
	for _, r := range res.Rows {
		out = append(out, caseRow{r.Comm, r.Count, r.SumDelay, r.MaxDelay, r.Lossy, r.Runtime, r.RuntimeSource})
	}
	return out
}

func hasWarning(res *LatencyResult, key string, count int) bool {
	for _, w := range res.Warnings {
		if w.Key == key && w.Count == count {
			return true
		}
	}
	return false
}

// TestScheduleLossyDelays (issue 16 item 1): lossy.txt. S sleeps at 10.05 s;
// W wakes it from CPU 1 at 10.1 s; CPU 1 then loses 5000 events (reported at
// its next event, 10.6 s: lost window CPU 1 10.1..10.6 s); S is switched in on
// CPU 0 at 10.6001 s. That 500.1 ms delay overlaps the window on its start
// CPU, so it is left out and counted; S's later delay 10.8..10.8005 s (500 us)
// and D's 10.6..10.7 s (100 ms, woken by the first event after the loss) count.
//
//	default:      S Count 1 sum 0.5 ms max 0.5 ms, 1 lossy; D Count 1, 100 ms
//	--keep-lossy: S Count 2 sum 500.6 ms max 500.1 ms (still 1 lossy)
//	--perf:       S Count 3 (perf's 0 ns first-seen delay at 10.0 s + both)
//
// No sched_stat_runtime: Runtime from the switches. S ran 10.0-10.05,
// 10.6001-10.7 and 10.8005-10.9 s: 50 + 99.9 + 99.5 = 249.4 ms; D 10.7-10.8 s
// = 100 ms; W ran on CPU 1 from 10.0 s to the end (10.9 s) across the lost
// window: that run is unknown, W's runtime 0.
func TestScheduleLossyDelays(t *testing.T) {
	res, err := ComputeLatency(scheduleCase(t, "lossy"), LatencyOptions{PerTask: true, Sort: []string{"sum"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []caseRow{
		{"D", 1, 100_000_000, 100_000_000, 0, 100_000_000, RuntimeFromSwitches},
		{"S", 1, 500_000, 500_000, 1, 249_400_000, RuntimeFromSwitches},
		{"W", 0, 0, 0, 0, 0, RuntimeFromSwitches},
	}
	if d := cmp.Diff(want, caseRows(res)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	if res.Diag.LossyDelays != 1 || !hasWarning(res, "delay-lossy", 1) {
		t.Errorf("lossy delays %d, warnings %v", res.Diag.LossyDelays, res.Warnings)
	}
	js := res.JSON()
	if got := js.Tasks[1]; got.Comm != "S" || got.LossyDelays == nil || *got.LossyDelays != 1 || got.RuntimeSource != "switches" {
		t.Errorf("JSON row %+v, want S with lossy_delays 1, runtime_source switches", got)
	}

	res, err = ComputeLatency(scheduleCase(t, "lossy"), LatencyOptions{PerTask: true, Sort: []string{"sum"}, KeepLossy: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Comm != "S" || r.Count != 2 || r.SumDelay != 500_600_000 || r.MaxDelay != 500_100_000 || r.Lossy != 1 {
		t.Errorf("--keep-lossy row %+v, want S Count 2 sum 500.6 ms max 500.1 ms", r)
	}

	res, err = ComputeLatency(scheduleCase(t, "lossy"), LatencyOptions{PerTask: true, Sort: []string{"max"}, PerfCompat: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r.Comm != "S" || r.Count != 3 || r.SumDelay != 500_600_000 {
		t.Errorf("--perf row %+v, want S Count 3 sum 500.6 ms", r)
	}
}

// TestScheduleWakingRace (issue 16 items 2 and 4): race.txt. A (CPU 0) wakes
// B at 20.000000 s while B still runs on CPU 1; B's own switch-out to sleep
// follows at 20.000003 s and its switch-in at 20.000053 s. The delay starts
// at the switch-out: 50 us (perf ignores the waking of a running task and
// counts nothing). C is woken at 21.000000 and again at 21.000100 s while
// waiting (a counted warning; the delay restarts), then switched in at
// 21.000200 s: 100 us (perf: 200 us from the first waking).
//
// No sched_stat_runtime: Runtime from the switches. A ran 19.8-21.0002 s:
// 1200.2 ms; B 19.9-20.000003 and 20.000053-20.1 s: 100.003 + 99.947 =
// 199.95 ms; C from 21.0002 s, the end of the trace: 0.
func TestScheduleWakingRace(t *testing.T) {
	res, err := ComputeLatency(scheduleCase(t, "race"), LatencyOptions{PerTask: true, Sort: []string{"runtime"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []caseRow{
		{"A", 0, 0, 0, 0, 1_200_200_000, RuntimeFromSwitches},
		{"B", 1, 50_000, 50_000, 0, 199_950_000, RuntimeFromSwitches},
		{"C", 1, 100_000, 100_000, 0, 0, RuntimeFromSwitches},
	}
	if d := cmp.Diff(want, caseRows(res)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	for _, k := range []string{"delay-woken-before-switch-out", "delay-woken-twice", "runtime-from-switches"} {
		if !hasWarning(res, k, 1) {
			t.Errorf("no warning %s (count 1) in %v", k, res.Warnings)
		}
	}
	if res.Rows[1].Raced != 1 || res.Rows[1].RacedSum != 50_000 {
		t.Errorf("B raced %d (%d ns), want 1 (50000 ns)", res.Rows[1].Raced, res.Rows[1].RacedSum)
	}

	res, err = ComputeLatency(scheduleCase(t, "race"), LatencyOptions{PerTask: true, Sort: []string{"runtime"}, PerfCompat: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, r := range res.Rows {
		got[r.Comm] = [2]int64{r.Count, r.SumDelay}
	}
	// perf: B's only delay is its first-seen 0 ns; C 21.0000-21.0002 s.
	if got["B"] != [2]int64{1, 0} || got["C"] != [2]int64{1, 200_000} {
		t.Errorf("--perf B %v C %v, want [1 0] and [1 200000]", got["B"], got["C"])
	}
}

// TestScheduleUnknownNotBusy (issue 16 item 3): idle.txt, the shape of a
// `perf sched record -- sleep 1` on a VM whose CPU 1 records no switch out of
// idle. CPU 1 goes idle at 30.0 s; the next switches on it switch out Y
// (30.901 s) and Z (31.0 s), whose switch-ins are missing. Y's
// sched_stat_runtime at 30.9 s (2 ms) dates its switch-in at 30.898 s, so Y
// ran 30.898-30.901 s (3 ms, recovered); 30.0-30.898 s (idle then Y) and
// 30.901-31.0 s (idle then Z) are unknown: 898 + 99 = 997 ms. Busy 3 ms of
// 1000 ms observed: 0.3 %, not 100 % (the unknown share 99.7 %). CPU 0 runs P
// for the whole second.
// Series over 2 buckets of 500 ms: CPU 1 busy 0 and 3/500 = 0.006; unknown
// 500/500 = 1 and (398 + 99)/500 = 0.994.
func TestScheduleUnknownNotBusy(t *testing.T) {
	st, err := ComputeStats(scheduleCase(t, "idle"), StatsOptions{Buckets: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []StatsCPU{
		{CPU: 0, Busy: 1e9, Observed: 1e9, Utilization: 1, Switches: 2},
		{CPU: 1, Busy: 3e6, Observed: 1e9, Unknown: 997e6, Utilization: 0.003, UnknownShare: 0.997, Switches: 3},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if d := cmp.Diff(want, st.CPUs, approx); d != "" {
		t.Errorf("CPUs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([][]float64{{1, 1}, {0, 0.006}}, st.Series.Utilization, approx); d != "" {
		t.Errorf("utilization series (-want +got):\n%s", d)
	}
	if d := cmp.Diff([][]float64{{0, 0}, {1, 0.994}}, st.Series.Unknown, approx); d != "" {
		t.Errorf("unknown series (-want +got):\n%s", d)
	}
}

// TestScheduleRunqueueUnderLoss (issue 16 item 13, runqueue part): P wakes
// Q1, Q2, Q3 onto CPU 0 at 40.1 s; CPU 0 then loses 200 events (window
// 40.1..40.5 s): their switch-ins may be among them, so at the loss they
// leave the runqueue and their delays are dropped (3 lossy). Q1 is woken again
// at 40.5 s and waits to the end, 41.0 s. The runqueue is counted outside
// the lost window, over 40.0..40.1 and 40.5..41.0 s (0.6 s): 0 for 0.1 s,
// then 1 for 0.5 s: mean 0.5/0.6 = 0.833, max 1 (the 3 queued inside the
// window are not known to have waited; counted, they made it 1.7, max 3).
// With --keep-lossy the three stay queued (Q1's second waking restarts its
// delay, a counted warning): 3 x 0.5 / 0.6 = 2.5, max 3.
func TestScheduleRunqueueUnderLoss(t *testing.T) {
	for _, c := range []struct {
		keep  bool
		avg   float64
		max   int
		lossy int64
	}{{false, 0.5 / 0.6, 1, 3}, {true, 1.5 / 0.6, 3, 0}} {
		st, err := ComputeStats(scheduleCase(t, "runqueue"), StatsOptions{KeepLossy: c.keep})
		if err != nil {
			t.Fatal(err)
		}
		cpu := st.CPUs[0]
		if math.Abs(cpu.RunqueueAvg-c.avg) > 1e-9 || cpu.RunqueueMax != c.max || st.LossyDelays != c.lossy {
			t.Errorf("keep-lossy %v: runqueue avg %.3f max %d, %d lossy delays; want %.3f, %d, %d",
				c.keep, cpu.RunqueueAvg, cpu.RunqueueMax, st.LossyDelays, c.avg, c.max, c.lossy)
		}
	}
}

// timehistCase runs timehist on one case of testdata/schedule.txtar.
func timehistCase(t *testing.T, name string, opt perfcompat.TimehistOptions) string {
	t.Helper()
	var b strings.Builder
	if err := perfcompat.Timehist(&b, scheduleCase(t, name), opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSchedulePidReuse (issue 16 item 5): reuse.txt. Task old (tid 10) runs
// 100.000-100.002 s (2 ms) and exits; p (5) runs 100.002-100.004 s (2 ms),
// forks a new tid 10 at 100.003 s and switches to it; the new 10 runs
// 100.004-100.007 s (3 ms). `timehist -s` summarises both incarnations of
// tid 10 (perf 6.12 and traceview before this fix kept only the last one):
// 3 tasks, 3 switches of tasks + 1 of idle = 4, run time 2 + 2 + 3 = 7 ms.
// latency -p keeps them apart too.
func TestSchedulePidReuse(t *testing.T) {
	got := timehistCase(t, "reuse", perfcompat.TimehistOptions{SummaryOnly: true})
	for _, want := range []string{
		"                       old[10]      -1          1        2.000      2.000       2.000       2.000    0.00       0\n",
		"                          p[5]      -1          1        2.000      2.000       2.000       2.000    0.00       0\n",
		"                         p[10]       5          1        3.000      3.000       3.000       3.000    0.00       0\n",
		"    Total number of unique tasks: 3\n",
		"Total number of context switches: 4\n",
		"           Total run time (msec):  7.000 \n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("timehist -s: no %q in\n%s", want, got)
		}
	}
	res, err := ComputeLatency(scheduleCase(t, "reuse"), LatencyOptions{PerTask: true, Sort: []string{"runtime"}})
	if err != nil {
		t.Fatal(err)
	}
	rt := map[string]int64{}
	for _, r := range res.Rows {
		rt[fmt.Sprintf("%s:%d", r.Comm, r.TID)] = r.Runtime
	}
	if d := cmp.Diff(map[string]int64{"old:10": 2e6, "p:5": 2e6, "p:10": 3e6}, rt); d != "" {
		t.Errorf("latency -p runtimes (-want +got):\n%s", d)
	}
}

// TestScheduleCPUsFromHeader (issue 16 item 11): cpus.txt says #P:2 in its
// header, read only with the events, so timehist starts with perf's
// fallback of 4 CPUs. The summary must count 2: "CPU 1 idle entire time
// window", no CPU 3, "(x 2)". Idle on CPU 0: 100.002-100.005 s = 3 ms of
// the 5 ms window (100.000-100.005 s): 60.00 %. The same lines without the
// header: the CPUs seen, CPU 0 only, "(x 1)".
func TestScheduleCPUsFromHeader(t *testing.T) {
	got := timehistCase(t, "cpus", perfcompat.TimehistOptions{SummaryOnly: true})
	want := "Idle stats:\n" +
		"    CPU  0 idle for      3.000  msec  ( 60.00%)\n" +
		"    CPU  1 idle entire time window\n" +
		"\n    Total number of unique tasks: 1\n" +
		"Total number of context switches: 3\n" +
		"           Total run time (msec):  2.000 \n" +
		"    Total scheduling time (msec):  5.000  (x 2)\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("timehist -s ends\n%s\nwant\n%s", got, want)
	}
	// Without the header nothing says how many CPUs there were: the CPUs
	// seen (CPU 0 only), not perf's 4.
	var text strings.Builder
	ar, err := txtar.ParseFile("testdata/schedule.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "cpus.txt" {
			for _, l := range strings.SplitAfter(string(f.Data), "\n") {
				if !strings.HasPrefix(l, "#") {
					text.WriteString(l)
				}
			}
		}
	}
	src, err := trace.OpenReader(strings.NewReader(text.String()), "cpus-noheader")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := perfcompat.Timehist(&b, src, perfcompat.TimehistOptions{SummaryOnly: true}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "(x 1)") || strings.Contains(got, "CPU  3") || strings.Contains(got, "CPU  1") {
		t.Errorf("no header: timehist -s\n%s\nwant (x 1) and only CPU 0", got)
	}
}

// switchRecordEvents is what the perf.data reader makes of `perf record
// --switch-events -a` (trace/perfdata TestSwitchRecords): COMM records at
// time 0, then one sched_switch per switch-out record, without priorities;
// a switch-out that was not a preemption reads as S.
func switchRecordEvents() []trace.Event {
	comm := func(tid trace.TID, name string) trace.Event {
		e := trace.NewEvent(0, -1, trace.KindComm)
		e.TID, e.PID, e.Comm = tid, trace.PID(tid), name
		return e
	}
	sw := func(ns int64, prev, next trace.TID, st trace.TaskState) trace.Event {
		e := trace.NewEvent(ns, 0, trace.KindSwitch)
		e.TID, e.PID, e.NextTID, e.NextPID, e.PrevState = prev, trace.PID(prev), next, trace.PID(next), st
		e.CurTID, e.CurPID = prev, trace.PID(prev)
		return e
	}
	return []trace.Event{
		comm(10, "a"), comm(20, "b"),
		sw(1_000_000_000, 0, 10, trace.StatePreempted),
		sw(1_002_000_000, 10, 20, trace.StatePreempted),
		sw(1_005_000_000, 20, 10, trace.StateInterruptible),
		sw(1_006_000_000, 10, 0, trace.StateInterruptible),
	}
}

// TestScheduleSwitchRecords (issue 16 item 9): the schedule from switch
// records alone. a runs 1.000-1.002 s, is preempted by b (runnable: a delay
// starts at 1.002 s), b runs to 1.005 s and sleeps, a runs 1.005-1.006 s.
//
//	latency -p: a Count 1, sum = max = 1.005 - 1.002 = 3 ms, runtime 2 + 1 = 3 ms;
//	            b Count 0 (first seen switched in), runtime 3 ms
//	timehist:   1.002 a run 2 ms; 1.005 b run 3 ms (their waits before
//	            their first switch-ins are not in the trace: "-");
//	            1.006 a wait 3 ms (preempted), sch delay 3 ms, run 1 ms
func TestScheduleSwitchRecords(t *testing.T) {
	res, err := ComputeLatency(trace.NewSliceSource(switchRecordEvents(), nil), LatencyOptions{PerTask: true, Sort: []string{"sum"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []caseRow{
		{"a", 1, 3_000_000, 3_000_000, 0, 3_000_000, RuntimeFromSwitches},
		{"b", 0, 0, 0, 0, 3_000_000, RuntimeFromSwitches},
	}
	if d := cmp.Diff(want, caseRows(res)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	var b strings.Builder
	if err := perfcompat.Timehist(&b, trace.NewSliceSource(switchRecordEvents(), nil), perfcompat.TimehistOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"       1.002000 [0000]  a[10]                                   -          -      2.000 \n",
		"       1.005000 [0000]  b[20]                                   -          -      3.000 \n",
		"       1.006000 [0000]  a[10]                               3.000      3.000      1.000 \n",
	} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("timehist: no %q in\n%s", row, b.String())
		}
	}
}

// TestScheduleSwitchRecordsMap: perf sched map's view of the switch-record
// schedule of TestScheduleSwitchRecords: a gets A0 at 1.000 s, b B0 at
// 1.002 s, a again at 1.005 s, idle (".") at 1.006 s.
func TestScheduleSwitchRecordsMap(t *testing.T) {
	var b strings.Builder
	if err := perfcompat.Map(&b, trace.NewSliceSource(switchRecordEvents(), nil), perfcompat.MapOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "  *A0       1.000000 secs A0 => a:10\n" +
		"  *B0       1.002000 secs B0 => b:20\n" +
		"  *A0       1.005000 secs \n" +
		"  *.        1.006000 secs .  => swapper:0\n"
	if b.String() != want {
		t.Errorf("map:\n%q\nwant\n%q", b.String(), want)
	}
}
