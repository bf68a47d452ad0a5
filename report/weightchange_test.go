package report

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestWeightChange: a group's weight read twice with different values is
// said, with each reading's time; read twice the same, or once, it is not.
// An autogroup's readings give their nice (new-user pass 28 F5).
func TestWeightChange(t *testing.T) {
	list := []trace.CgroupSettings{
		{Path: "/autogroup-7", Time: 5_000_000_000, Weight: 100},
		{Path: "/a", Weight: 200, Shares: 2048},
		{Path: "/autogroup-7", Time: 6_500_000_000, Weight: trace.AutogroupWeight(10), Nice: 10},
		{Path: "/a", Time: 9_000_000_000, Weight: 200, Shares: 2048},
	}
	if got, want := weightChange("/autogroup-7", list), "weight changed during the trace: 100 (nice 0, read at 5.000000 s), 11 (nice 10, read at 6.500000 s); the weight shown is the last"; got != want {
		t.Errorf("autogroup: %q\nwant %q", got, want)
	}
	if got := weightChange("/a", list); got != "" {
		t.Errorf("/a read twice the same: %q", got)
	}
}

// TestKernelDisagreesQuotaChanged: the inference under a quota that
// changed during the trace (the analysis uses the last reading's) finds
// none of the kernel's throttles: the note names the change, not
// contention.
func TestKernelDisagreesQuotaChanged(t *testing.T) {
	g := &CgroupThrottle{Path: "/b", QuotaNS: -1, Settings: "recorded",
		QuotaReadings: []QuotaReading{{QuotaNS: 10_000_000, PeriodNS: 100_000_000}, {TimeNS: 9_000_000_000, QuotaNS: -1, PeriodNS: 100_000_000}},
		Kernel:        &trace.CgroupStat{Path: "/b", NrPeriods: 15, NrThrottled: 14, ThrottledNS: 760_337_000}}
	note := kernelDisagrees(g)
	if !strings.Contains(note, "the quota changed during the trace") || strings.Contains(note, "contention") {
		t.Errorf("note %q", note)
	}
}

// TestUnknownRunsWarning: a task of 100 ms or more whose runs of unknown
// start are over 5 % of its run (hog: 902 ms beside 2089 ms counted, 30 %)
// is named; one under 5 % (reqsrv: 10 of 800 ms), one under 100 ms in all
// (rcu_preempt: 0.9 of 1 ms) and one the filter leaves out (other: 50 %)
// are not; run time from sched_stat_runtime has no such gap.
func TestUnknownRunsWarning(t *testing.T) {
	res := &LatencyResult{
		Options: LatencyOptions{Filter: &schedule.Filter{Comms: []string{"hog", "reqsrv", "rcu_preempt"}}},
		Diag: LatencyDiagnostics{Chains: []ChainBreak{
			{CPU: 0, ShownRun: map[trace.TID]int64{10: 500_000_000, 11: 10_000_000, 12: 900_000, 13: 200_000_000}},
			{CPU: 1, ShownRun: map[trace.TID]int64{10: 402_050_000}},
		}},
		TaskRows: []LatencyRow{
			{Comm: "hog", TID: 10, PID: 10, NrTasks: 1, Runtime: 2_088_686_000, RuntimeSource: RuntimeFromSwitches},
			{Comm: "reqsrv", TID: 11, PID: 11, NrTasks: 1, Runtime: 800_000_000, RuntimeSource: RuntimeFromSwitches},
			{Comm: "rcu_preempt", TID: 12, PID: 12, NrTasks: 1, Runtime: 100_000, RuntimeSource: RuntimeFromSwitches},
			{Comm: "other", TID: 13, PID: 13, NrTasks: 1, Runtime: 200_000_000, RuntimeSource: RuntimeFromSwitches},
		},
	}
	w, ok := unknownRunsWarning(res)
	if !ok || w.Key != UnknownRunsKey || w.Count != 1 || !strings.Contains(w.Message, ": hog:10 902.050 ms (30 % of its run); ") {
		t.Errorf("warning %+v, %v", w, ok)
	}
	for i := range res.TaskRows {
		res.TaskRows[i].RuntimeSource = RuntimeFromStat
	}
	if w, ok := unknownRunsWarning(res); ok {
		t.Errorf("run time from sched_stat_runtime: %+v", w)
	}
}

// TestOneSidedAutogroups: two recordings' autogroups with no number in
// common get the note; the same numbers (a recording and its replay's
// prediction), or autogroups on one side only, do not.
func TestOneSidedAutogroups(t *testing.T) {
	g := &CgroupThrottle{}
	for _, c := range []struct {
		groups []CompareCgroup
		want   bool
	}{
		{[]CompareCgroup{{Path: "/autogroup-723", A: g}, {Path: "/autogroup-721", B: g}}, true},
		{[]CompareCgroup{{Path: "/autogroup-723", A: g, B: g}}, false},
		{[]CompareCgroup{{Path: "/autogroup-723", A: g}, {Path: "/tv-a", B: g}}, false},
	} {
		if got := oneSidedAutogroups(c.groups); got != c.want {
			t.Errorf("%+v: %v, want %v", c.groups, got, c.want)
		}
	}
}
