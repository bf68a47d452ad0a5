package report

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
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
	if got, want := weightChange("/autogroup-7", list), "weight changed during the trace: 100 (nice 0, read at 5.000000 s), 11 (nice 10, read at 6.500000 s); the table gives the last"; got != want {
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
