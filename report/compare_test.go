package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/traceview/traceview/trace"
)

// gScenarioB is gScenario's workload scheduled differently (us): D takes
// C's place, A waits 500 us after its preemption, B waits 100 us.
//
//	   0  CPU0 swapper -> A          CPU1 swapper -> B
//	 100  CPU0 A wakes D
//	 300  CPU0 A (R+) -> D           D waited 200 us
//	 400                             CPU1 B (S) -> swapper
//	 450  A migrates CPU0 -> CPU1
//	 800                             CPU1 swapper -> A      A waited 800-300 = 500 us
//	 900  CPU0 D wakes B
//	1000  CPU0 D (S) -> B            B waited 100 us
//	1500  CPU0 B (S) -> swapper
//	2000                             CPU1 A (S) -> swapper
//
// Runtimes (sched_stat_runtime): A 300+1200 = 1500 us, B 400+500 = 900 us, D 700 us.
func gScenarioB() []trace.Event {
	return []trace.Event{
		gSwitch(0, 0, 0, "swapper/0", 0, 10, "A"),
		gSwitch(0, 1, 0, "swapper/1", 0, 20, "B"),
		gWaking(100*gUs, 0, 10, 40, "D", 0),
		gRuntime(300*gUs, 0, 10, "A", 300*gUs),
		gSwitch(300*gUs, 0, 10, "A", trace.StatePreempted, 40, "D"),
		gRuntime(400*gUs, 1, 20, "B", 400*gUs),
		gSwitch(400*gUs, 1, 20, "B", trace.StateInterruptible, 0, "swapper/1"),
		gMigrate(450*gUs, 0, 10, "A", 0, 1),
		gSwitch(800*gUs, 1, 0, "swapper/1", 0, 10, "A"),
		gWaking(900*gUs, 0, 40, 20, "B", 0),
		gRuntime(1000*gUs, 0, 40, "D", 700*gUs),
		gSwitch(1000*gUs, 0, 40, "D", trace.StateInterruptible, 20, "B"),
		gRuntime(1500*gUs, 0, 20, "B", 500*gUs),
		gSwitch(1500*gUs, 0, 20, "B", trace.StateInterruptible, 0, "swapper/0"),
		gRuntime(2000*gUs, 1, 10, "A", 1200*gUs),
		gSwitch(2000*gUs, 1, 10, "A", trace.StateInterruptible, 0, "swapper/1"),
	}
}

func gRatio(x float64) *float64 { return &x }

// gNamed prepends COMM records (perf names threads from those, not from
// tracepoint fields) for the scenario tasks.
func gNamed(evs []trace.Event) []trace.Event {
	var out []trace.Event
	for tid, comm := range map[trace.TID]string{10: "A", 20: "B", 30: "C", 40: "D"} {
		e := trace.NewEvent(0, 0, trace.KindComm)
		e.TID, e.PID, e.Comm = tid, trace.PID(tid), comm
		out = append(out, e)
	}
	return append(out, evs...)
}

func TestCompareHand(t *testing.T) {
	res, err := Compare(trace.NewSliceSource(gNamed(gScenario()), nil), trace.NewSliceSource(gNamed(gScenarioB()), nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	side := func(tasks int, rt, sw, cnt, sum, mx, p99 int64) *CompareSide {
		return &CompareSide{NrTasks: tasks, Runtime: rt * gUs, Switches: sw, Count: cnt, AvgDelay: sum * gUs / cnt,
			MaxDelay: mx * gUs, SumDelay: sum * gUs, P99Delay: p99 * gUs}
	}
	// Per task (see the scenarios): a first switch-in of a task not seen
	// before measures no delay, so each task has one delay.
	want := &CompareResult{
		Rows: []CompareRow{
			{Comm: "A", A: side(1, 1800, 2, 1, 200, 200, 200), B: side(1, 1500, 2, 1, 500, 500, 500),
				Ratio: CompareRatios{gRatio(1500.0 / 1800), gRatio(1), gRatio(2.5), gRatio(2.5), gRatio(2.5), gRatio(2.5), nil}},
			{Comm: "B", A: side(1, 900, 2, 1, 400, 400, 400), B: side(1, 900, 2, 1, 100, 100, 100),
				Ratio: CompareRatios{gRatio(1), gRatio(1), gRatio(0.25), gRatio(0.25), gRatio(0.25), gRatio(0.25), nil}},
			// C and D tie on sum delay (200 us): by name.
			{Comm: "C", A: side(1, 700, 1, 1, 200, 200, 200)},
			{Comm: "D", B: side(1, 700, 1, 1, 200, 200, 200)},
		},
		// Totals: A 1800+900+700 = 3400 us runtime, 5 switch-ins, delays
		// {200, 400, 200}: sum 800, avg 800/3 = 266.666 us, p99 (empirical)
		// 400; B 1500+900+700 = 3100 us, delays {500, 100, 200}: p99 500.
		Total: CompareRow{Comm: "TOTAL",
			A:     &CompareSide{NrTasks: 3, Runtime: 3400 * gUs, Switches: 5, Count: 3, AvgDelay: 266666, MaxDelay: 400 * gUs, SumDelay: 800 * gUs, P99Delay: 400 * gUs},
			B:     &CompareSide{NrTasks: 3, Runtime: 3100 * gUs, Switches: 5, Count: 3, AvgDelay: 266666, MaxDelay: 500 * gUs, SumDelay: 800 * gUs, P99Delay: 500 * gUs},
			Ratio: CompareRatios{gRatio(3100.0 / 3400), gRatio(1), gRatio(1), gRatio(1.25), gRatio(1), gRatio(1.25), nil}},
		// Both scenarios run from their first switch at 0 to their last at
		// 2000 us.
		SpanA: &TraceSpan{0, 2000 * gUs}, SpanB: &TraceSpan{0, 2000 * gUs},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	noWarn := cmpopts.IgnoreFields(CompareResult{}, "WarningsA", "WarningsB", "TaskRowsA", "TaskRowsB") // (the rows: ComputeLatency's, tested there)
	noSource := cmpopts.IgnoreFields(CompareSide{}, "RuntimeSource")                                    // checked in TestCompareRuntimeSources
	// The figures without a field of their own (Extra) are pinned by the
	// tests of their columns (latency_columns_test.go).
	noExtra := cmp.Options{cmpopts.IgnoreFields(CompareSide{}, "Extra"), cmpopts.IgnoreFields(CompareRatios{}, "Extra")}
	if d := cmp.Diff(want, res, approx, noWarn, noSource, noExtra); d != "" {
		t.Errorf("compare (-want +got):\n%s", d)
	}

	var tab bytes.Buffer
	if err := WriteCompareTable(&tab, res, "a.data", "b.data"); err != nil {
		t.Fatal(err)
	}
	out := tab.String()
	// No line ends in the padding of the note column, empty on most rows.
	for i, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("line %d ends in spaces: %q", i+1, l)
		}
	}
	for _, s := range []string{"only in A", "only in B", "runtime A ms", "A: a.data  (0.002 s: 0.000 s to 0.002 s)\nB: b.data  (0.002 s: 0.000 s to 0.002 s)\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	// The summary line: the total ratios.
	_, summary, _ := strings.Cut(out, "\nB/A: ")
	for _, s := range []string{"runtime 0.912", "switches 1.000", "avg delay 1.000", "max delay 1.250", "sum delay 1.000", "p99 delay 1.250"} {
		if !strings.Contains(", "+summary, ", "+s+",") && !strings.HasSuffix(summary, " "+s+"\n") {
			t.Errorf("summary lacks %q: %q", s, summary)
		}
	}
	// Row A: runtime 1.800 / 1.500 ms, ratio 0.833.
	if !strings.Contains(strings.Join(strings.Fields(strings.Split(out, "\n")[4]), " "), "A 1.800 1.500 0.833 2 2 1.000 0.200 0.500 2.500") {
		t.Errorf("row A wrong:\n%s", out)
	}

	var cbuf bytes.Buffer
	if err := WriteCompareCSV(&cbuf, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cbuf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The header and the four commands, A to D: no TOTAL line (rows of one
	// kind, as latency's CSV); D: only in B, 700 us.
	if len(recs) != 5 || recs[0][2] != "runtime_a_ns" || strings.Join(recs[3][:5], ",") != "C,only_a,700000,," ||
		strings.Join(recs[4][:5], ",") != "D,only_b,,700000," {
		t.Errorf("csv:\n%v", recs)
	}

	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back CompareResult
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	noRows := cmpopts.IgnoreFields(CompareResult{}, "TaskRowsA", "TaskRowsB") // (not in the JSON)
	if d := cmp.Diff(res, &back, approx, noRows); d != "" {
		t.Errorf("json round trip (-want +got):\n%s", d)
	}
}

// TestCompareRuntimeSources (issue 16 item 4): A is gScenario with its
// sched_stat_runtime, B the same events without them, so B's runtime is
// on-CPU time from the switches: A ran 0-300 and 500-2000 us (1800 us; its
// sched_stat_runtime 300 + 1500 us), B 0-400 and 1000-1500 us (900 us; 400 +
// 500), C 300-1000 us (700 us; 700): ratios 1. (No COMM record names a
// task: the rows take the names of their events, where perf prints ":TID".)
// The sources differ, which a warning says. A row whose
// B runtime is 0 (the trace holds none for it) gets no runtime ratio.
func TestCompareRuntimeSources(t *testing.T) {
	var noRT []trace.Event
	for _, e := range gScenario() {
		if e.Kind != trace.KindRuntime {
			noRT = append(noRT, e)
		}
	}
	res, err := Compare(trace.NewSliceSource(gScenario(), nil), trace.NewSliceSource(noRT, nil), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range res.Rows {
		if r.Ratio.Runtime != nil {
			got[r.Comm] = *r.Ratio.Runtime
		}
		if r.B != nil && r.B.RuntimeSource != RuntimeFromSwitches {
			t.Errorf("row %s: B runtime source %q", r.Comm, r.B.RuntimeSource)
		}
	}
	want := map[string]float64{"A": 1, "B": 1, "C": 1}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("runtime ratios (-want +got):\n%s", d)
	}
	found := false
	for _, w := range res.WarningsB {
		found = found || w.Key == "compare-runtime-source"
	}
	if !found {
		t.Errorf("no compare-runtime-source warning in %v", res.WarningsB)
	}
	if r := compareRatios(&CompareSide{Runtime: 1500}, &CompareSide{Runtime: 0, Switches: 1}); r.Runtime != nil {
		t.Errorf("runtime ratio %v against a runtime of 0, want none", *r.Runtime)
	}
}

// TestCompareKworkerNames: perf.data names a kworker from the COMM record
// perf synthesized from /proc ("kworker/u8:1-kv", the workqueue cut to 15
// bytes), a traceview capture from the tracepoint ("kworker/u8:1"); compare
// set them on two rows, "only in A" and "only in B". Hand values (ms):
// A kworker/u8:1 runtime 12, 2 delays 1 and 3; B kworker/u8:1-kv runtime
// 2, delays 2; kworker/u8:1+events (the same worker, busy) runtime 1,
// delay 4: B merged is runtime 3, 2 delays, sum 6, max 4, avg 3; ratios
// runtime 3/12 = 0.25, sum delay 6/4 = 1.5, max 4/3.
func TestCompareKworkerNames(t *testing.T) {
	ms := int64(1_000_000)
	row := func(comm string, runtime int64, delays ...int64) LatencyRow {
		r := LatencyRow{Comm: comm, NrTasks: 1, Runtime: runtime * ms, Switches: int64(len(delays))}
		for _, d := range delays {
			r.Count++
			r.SumDelay += d * ms
			r.MaxDelay = max(r.MaxDelay, d*ms)
			r.Samples = append(r.Samples, d*ms)
		}
		r.AvgDelay = r.SumDelay / max(r.Count, 1)
		r.setPercentiles()
		return r
	}
	ra := &LatencyResult{Rows: []LatencyRow{row("kworker/u8:1", 12, 1, 3), row("kworker/R-rcu_g", 1, 1)}}
	rb := &LatencyResult{Rows: []LatencyRow{row("kworker/u8:1-kv", 2, 2), row("kworker/u8:1+events", 1, 4), row("kworker/R-rcu_g", 1, 1)}}
	res := CompareLatency(ra, rb, false)
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Comm)
	}
	if diff := cmp.Diff([]string{"kworker/u8:1", "kworker/R-rcu_g"}, got); diff != "" {
		t.Fatalf("rows (-want +got):\n%s", diff)
	}
	r := res.Rows[0]
	if r.A == nil || r.B == nil {
		t.Fatalf("kworker/u8:1 is on one side only: A %v, B %v", r.A, r.B)
	}
	if r.B.Runtime != 3*ms || r.B.Count != 2 || r.B.SumDelay != 6*ms || r.B.MaxDelay != 4*ms || r.B.AvgDelay != 3*ms {
		t.Errorf("B merged = %+v, want runtime 3 ms, 2 delays, sum 6 ms, max 4 ms, avg 3 ms", *r.B)
	}
	for name, c := range map[string]struct {
		got  *float64
		want float64
	}{
		"runtime":   {r.Ratio.Runtime, 0.25},
		"sum delay": {r.Ratio.SumDelay, 1.5},
		"max delay": {r.Ratio.MaxDelay, 4.0 / 3},
	} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("%s ratio = %v, want %v", name, c.got, c.want)
		}
	}
	// The input rows are not changed by the merge.
	if got := rb.Rows[0].Runtime; got != 2*ms {
		t.Errorf("B's first row runtime changed to %d", got)
	}
}

// TestCompareUnmeasuredDelays: a side with no delay measured (Count 0,
// kept for its run time and switches) prints "-" for every figure of the
// delays (average, maximum, percentiles), as latency does, and its other
// figures as they are: its 144 switches and its 0.000 ms sum
// (new-user pass 46 F3: "0.000" read as a measured 0 ms delay).
func TestCompareUnmeasuredDelays(t *testing.T) {
	s := &CompareSide{Runtime: 1024000, Switches: 144}
	var ofDelays, others int
	for _, c := range compareFigures {
		got := compareValue(s, c)
		switch {
		case c.OfDelays:
			ofDelays++
			if got != "-" {
				t.Errorf("%s: %q, want -", c.Key, got)
			}
		case c.Key == "switches" && got != "144", c.Key == "sum_delay_ns" && got != "0.000":
			t.Errorf("%s: %q", c.Key, got)
		default:
			others++
		}
	}
	if ofDelays < 2 || others < 2 {
		t.Errorf("%d figures of the delays, %d others: want the average and maximum among the first", ofDelays, others)
	}
}

// TestCompareCgroupsCountedNote: the note under the group table says
// where each side's throttled time comes from: inferred from the
// schedule, or a prediction's own count of the throttles it simulated
// (CgroupThrottle.ThrottledCounted; new-user pass 108 F2: a prediction's
// count called "inferred from each schedule").
func TestCompareCgroupsCountedNote(t *testing.T) {
	for _, c := range []struct {
		a, b bool
		want string
	}{
		{false, false, "  throttled_time), inferred from each schedule;"},
		{false, true, "  throttled_time): in B the prediction's own count of the throttles it simulated, in A inferred from its schedule;"},
		{true, true, "  throttled_time), the predictions' own count of the throttles they simulated;"},
	} {
		var b bytes.Buffer
		g := []CompareCgroup{{Path: "/q", A: &CgroupThrottle{Path: "/q", Settings: "unknown", ThrottledCounted: c.a}, B: &CgroupThrottle{Path: "/q", Settings: "unknown", ThrottledCounted: c.b}}}
		if err := writeCompareCgroups(&b, g); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("A counted %v, B %v:\n%s\nwant %q", c.a, c.b, b.String(), c.want)
		}
	}
}

// TestCompareCgroupsSideWithoutGroups: a side with no group line at all
// (a trace.dat, text or perf.data without --all-cgroups beside a .tv of
// the same workload) is said to record no group but the root, and its
// throttled-delay figure reads "no group recorded", not "none of its
// tasks" (new-user pass 110 F2); a side with other groups keeps "none of
// its tasks" for a group it lacks.
func TestCompareCgroupsSideWithoutGroups(t *testing.T) {
	q := &CgroupThrottle{Path: "/q", Settings: "unknown", ThrottledDelay: 2e6, SumDelay: 3e6}
	other := &CgroupThrottle{Path: "/other", Settings: "unknown"}
	for _, c := range []struct {
		name      string
		groups    []CompareCgroup
		want, not []string
	}{
		{"B has none", []CompareCgroup{{Path: "/q", A: q}},
			[]string{`"-": none of its tasks in that trace; B has no task group but the root, /):`,
				"  B: no task group but the root: its tasks ran in /, or the trace does not record groups",
				"  /q: its tasks' delay spent throttled: A 2.000 ms of 3.000 ms, B no group recorded"},
			[]string{"B none of its tasks"}},
		{"B has another", []CompareCgroup{{Path: "/other", B: other}, {Path: "/q", A: q}},
			[]string{`Task groups (cgroup; "-": none of its tasks in that trace):`,
				"  /q: its tasks' delay spent throttled: A 2.000 ms of 3.000 ms, B none of its tasks"},
			[]string{"no task group but the root", "no group recorded"}},
	} {
		var b bytes.Buffer
		if err := writeCompareCgroups(&b, c.groups); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s:\n%s\nwant %q", c.name, b.String(), w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s:\n%s\nhas %q", c.name, b.String(), w)
			}
		}
	}
}
