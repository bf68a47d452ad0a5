package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestKernelStatOneReading: a group read once (at the capture's end: made
// during it) counts from its creation; its counts are the trace's when its
// nr_periods fit in the trace's span (at most span/period + 1 = 2 s /
// 100 ms + 1 = 21 here): 16 periods, kept as they are; 500 periods
// predate the capture: none. Two readings give their difference, as
// before.
func TestKernelStatOneReading(t *testing.T) {
	const span, period = int64(2e9), int64(100e6)
	one := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 5, NrPeriods: 16, NrThrottled: 16, ThrottledNS: 1442e6}}}
	if k := kernelStat(one, "/q", span, period); k == nil || k.NrThrottled != 16 || k.ThrottledNS != 1442e6 {
		t.Errorf("one reading that fits: %+v, want its counts", k)
	}
	old := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 5, NrPeriods: 500, NrThrottled: 16}}}
	if k := kernelStat(old, "/q", span, period); k != nil {
		t.Errorf("one reading of 500 periods in a 2 s trace: %+v, want nil", k)
	}
	if k := kernelStat(one, "/q", span, 0); k != nil {
		t.Errorf("no period known: %+v, want nil", k)
	}
	two := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", NrPeriods: 400, NrThrottled: 10}, {Path: "/q", NrPeriods: 416, NrThrottled: 26}}}
	if k := kernelStat(two, "/q", span, period); k == nil || k.NrPeriods != 16 || k.NrThrottled != 16 {
		t.Errorf("two readings: %+v, want their difference", k)
	}
}
