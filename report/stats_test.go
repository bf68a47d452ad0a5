package report

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// The hand-made events of the stats and report tests (the exporters'
// tests share them: internal/testsched).
const gUs = testsched.Us // ns per microsecond

var (
	gSwitch   = testsched.Switch
	gWaking   = testsched.Waking
	gMigrate  = testsched.Migrate
	gRuntime  = testsched.Runtime
	gScenario = testsched.Scenario // 2 CPUs, 3 tasks: see testsched.Scenario for the hand computation
)

func TestStatsLog2Bucket(t *testing.T) {
	// runqlat buckets: [0,2) [2,4) [4,8) ... us.
	for _, c := range []struct {
		ns   int64
		want int
	}{{0, 0}, {1999, 0}, {2000, 1}, {3999, 1}, {4000, 2}, {200 * gUs, 7}, {255 * gUs, 7}, {256 * gUs, 8}, {400 * gUs, 8}} {
		if got := StatsLog2Bucket(c.ns); got != c.want {
			t.Errorf("StatsLog2Bucket(%d ns) = %d, want %d", c.ns, got, c.want)
		}
	}
}

func TestComputeStatsHand(t *testing.T) {
	st, err := ComputeStats(trace.NewSliceSource(gScenario(), nil), StatsOptions{Buckets: 4})
	if err != nil {
		t.Fatal(err)
	}
	if st.Start != 0 || st.End != 2000*gUs || st.Duration != 2000*gUs || st.Events != 16 || st.Tasks != 3 {
		t.Errorf("span = %d..%d (%d ns), %d events, %d tasks; want 0..2000000, 16 events, 3 tasks",
			st.Start, st.End, st.Duration, st.Events, st.Tasks)
	}
	// CPU0 busy: A 0-300 + C 300-1000 + B 1000-1500 = 1500 us of 2000 -> 0.75.
	// CPU1 busy: B 0-400 + A 500-2000 = 1900 us -> 0.95.
	// rq0: 1 over 100-450 and 600-1000 = 750 us -> 750/2000 = 0.375; rq1: 1 over 450-500 -> 0.025.
	// Idle while a task waited: CPU0 none (busy 0-1500 covers 100-1000);
	// CPU1 idle 400-500, A waiting there from 450: 50 us.
	want := []StatsCPU{
		{CPU: 0, Busy: 1500 * gUs, Observed: 2000 * gUs, Utilization: 0.75, RunqueueAvg: 0.375, RunqueueMax: 1, Switches: 4, MigrateOut: 1},
		{CPU: 1, Busy: 1900 * gUs, Observed: 2000 * gUs, Utilization: 0.95, RunqueueAvg: 0.025, RunqueueMax: 1, Switches: 4, MigrateIn: 1, IdleWaiting: 50 * gUs},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if d := cmp.Diff(want, st.CPUs, approx); d != "" {
		t.Errorf("CPUs (-want +got):\n%s", d)
	}
	if st.Migrations != 1 {
		t.Errorf("migrations = %d, want 1", st.Migrations)
	}
	// Delays 200 us (C, wakeup), 200 us (A, preempted), 400 us (B, wakeup):
	// 200 us falls in bucket 7 (128-255 us), 400 us in bucket 8 (256-511 us).
	hist := func(counts map[int]int64, sum, mx int64) StatsHistogram {
		h := StatsHistogram{Sum: sum, Max: mx}
		for k := 0; k <= 8; k++ {
			lo := int64(1) << k
			if k == 0 {
				lo = 0
			}
			h.Buckets = append(h.Buckets, StatsBucket{Low: lo, High: int64(1)<<(k+1) - 1, Count: counts[k]})
			h.Count += counts[k]
		}
		return h
	}
	if d := cmp.Diff(hist(map[int]int64{7: 2, 8: 1}, 800*gUs, 400*gUs), st.Delays); d != "" {
		t.Errorf("delays (-want +got):\n%s", d)
	}
	if d := cmp.Diff(hist(map[int]int64{7: 1, 8: 1}, 600*gUs, 400*gUs), st.WakeupDelays); d != "" {
		t.Errorf("wakeup delays (-want +got):\n%s", d)
	}
	wantPre := StatsHistogram{Count: 1, Sum: 200 * gUs, Max: 200 * gUs}
	for k := 0; k <= 7; k++ {
		lo := int64(1) << k
		if k == 0 {
			lo = 0
		}
		wantPre.Buckets = append(wantPre.Buckets, StatsBucket{Low: lo, High: int64(1)<<(k+1) - 1})
	}
	wantPre.Buckets[7].Count = 1
	if d := cmp.Diff(wantPre, st.PreemptDelays); d != "" {
		t.Errorf("preempt delays (-want +got):\n%s", d)
	}
	// Series over 4 buckets of 500 us:
	// CPU0 busy: [0,500) A+C full, [500,1000) C, [1000,1500) B, [1500,2000) idle.
	// CPU1 busy: [0,500) B 0-400 = 0.8, then A to the end.
	// rq0: [0,500) 100-450 = 350/500 = 0.7, [500,1000) 600-1000 = 0.8; rq1: [0,500) 450-500 = 0.1.
	wantSeries := &StatsSeries{
		Start: 0, Width: 500 * gUs, CPUs: []trace.CPU{0, 1},
		Utilization: [][]float64{{1, 1, 1, 0}, {0.8, 1, 1, 1}},
		Unknown:     [][]float64{{0, 0, 0, 0}, {0, 0, 0, 0}}, // both CPUs switch at 0: all known
		Runqueue:    [][]float64{{0.7, 0.8, 0, 0}, {0.1, 0, 0, 0}},
		RunqueueMax: [][]int{{1, 1, 0, 0}, {1, 0, 0, 0}},
	}
	if d := cmp.Diff(wantSeries, st.Series, approx); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
}

// TestStatsIdleWaiting: the runqueue steps against the runs, by hand (us):
// waiting 10-40 and 60-100 (1 task), 40-60 none; runs 0-15, 20-30 (busy),
// 70-80 (unknown: not idle), end 100. Idle with a task waiting: 15-20,
// 30-40, 60-70, 80-100 = 5+10+10+20 = 45. A throttled group's tasks wait
// like this while their CPU idles (grpq.q25: CPU 0 idle 75.8 % of the
// trace with tasks waiting, runqueue avg 1.9 at 20.6 % utilization).
func TestStatsIdleWaiting(t *testing.T) {
	us := func(v int64) int64 { return v * 1000 }
	steps := []statsStep{{us(10), 1}, {us(40), 0}, {us(60), 1}}
	busy := []statsSpan{{us(0), us(15)}, {us(20), us(30)}}
	unknown := []statsSpan{{us(70), us(80)}}
	if got := statsIdleWaiting(steps, busy, unknown, us(100)); got != us(45) {
		t.Errorf("idle waiting = %d ns, want 45000", got)
	}
	if got := statsIdleWaiting(nil, busy, unknown, us(100)); got != 0 {
		t.Errorf("no steps: %d, want 0", got)
	}
}

// TestStatsBusyUnknownOverlap: gScenario with its events in two halves
// swapped (a damaged file's blocks out of order) makes the schedule's
// busy and unknown runs overlap; each CPU still reads Busy + Unknown <=
// Observed (new-user pass 42 F2: 5708.6 ms busy + 539.0 ms unknown of
// 5733.5 ms observed).
func TestStatsBusyUnknownOverlap(t *testing.T) {
	evs := gScenario()
	h := len(evs) / 2
	swapped := append(append([]trace.Event(nil), evs[h:]...), evs[:h]...)
	st, err := ComputeStats(trace.NewSliceSource(swapped, nil), StatsOptions{Buckets: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.CPUs {
		if c.Busy+c.Unknown > c.Observed || c.Busy < 0 || c.Unknown < 0 {
			t.Errorf("CPU %d: busy %d + unknown %d ns > observed %d ns", c.CPU, c.Busy, c.Unknown, c.Observed)
		}
	}
}

// TestStatsSwitchesOnly: gScenario without its wakeups and its migration
// (perf record -e sched:sched_switch alone): A still runs on CPU 0, then
// CPU 1, so the migrations are unknown, not 0 (MigrationsUnknown, a
// no-migrations warning), and no delay after a wakeup can be measured
// (NoWakeups, a no-wakeups warning); the full scenario has neither
// (new-user pass 46 F1: "0 migrations", "after wakeup: 0 delays", no
// warning).
func TestStatsSwitchesOnly(t *testing.T) {
	var evs []trace.Event
	for _, e := range gScenario() {
		switch e.Kind {
		case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate:
			continue
		}
		evs = append(evs, e)
	}
	keys := func(st *Stats) []string {
		var out []string
		for _, w := range st.Warnings {
			out = append(out, w.Key)
		}
		return out
	}
	st, err := ComputeStats(trace.NewSliceSource(evs, nil), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.NoWakeups || !st.MigrationsUnknown || !slices.Contains(keys(st), "no-wakeups") || !slices.Contains(keys(st), "no-migrations") {
		t.Errorf("switches only: no wakeups %v, migrations unknown %v, warnings %v; want both, and both warnings", st.NoWakeups, st.MigrationsUnknown, keys(st))
	}
	whole, err := ComputeStats(trace.NewSliceSource(gScenario(), nil), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.NoWakeups || whole.MigrationsUnknown {
		t.Errorf("whole scenario: no wakeups %v, migrations unknown %v; want neither", whole.NoWakeups, whole.MigrationsUnknown)
	}
	// Filtered to C (TID 30), which never migrated, in a trace that
	// records the migration of A: 0 migrations, known (new-user pass 87
	// F4: "the trace records no sched_migrate_task events", the figure
	// "-", of a filter that selected no migration).
	onlyC, err := ComputeStats(trace.NewSliceSource(gScenario(), nil), StatsOptions{Filter: &schedule.Filter{TIDs: []trace.TID{30}}})
	if err != nil {
		t.Fatal(err)
	}
	if onlyC.Migrations != 0 || onlyC.MigrationsUnknown || slices.Contains(keys(onlyC), "no-migrations") {
		t.Errorf("--tid 30: %d migrations, unknown %v, warnings %v; want 0, known, no no-migrations warning", onlyC.Migrations, onlyC.MigrationsUnknown, keys(onlyC))
	}
}
