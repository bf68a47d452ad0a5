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
	one := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 2e9, NrPeriods: 16, NrThrottled: 16, ThrottledNS: 1442e6}}}
	if k := kernelStat(one, "/q", 0, span, period); k == nil || k.NrThrottled != 16 || k.ThrottledNS != 1442e6 {
		t.Errorf("one reading that fits: %+v, want its counts", k)
	}
	old := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 2e9, NrPeriods: 500, NrThrottled: 16}}}
	if k := kernelStat(old, "/q", 0, span, period); k != nil {
		t.Errorf("one reading of 500 periods in a 2 s trace: %+v, want nil", k)
	}
	if k := kernelStat(one, "/q", 0, span, 0); k != nil {
		t.Errorf("no period known: %+v, want nil", k)
	}
	two := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", NrPeriods: 400, NrThrottled: 10}, {Path: "/q", NrPeriods: 416, NrThrottled: 26}}}
	if k := kernelStat(two, "/q", 0, span, period); k == nil || k.NrPeriods != 16 || k.NrThrottled != 16 {
		t.Errorf("two readings: %+v, want their difference", k)
	}
}

// TestKernelStatReadingsAfterTrace: a flight-recorder dump of a 2 s
// window (0 to 2 s) read its group's cpu.stat twice as it was written, at
// 1.99 and 2.3 s, overlapping the window by 10 ms, less than a period: their
// difference (0) is not the window's count, so the two are one reading at
// the end, whose 83 throttled periods of 400 predate the window: no kernel
// figure (it said "counted 0 throttled periods" beside 12 inferred,
// new-user pass 16 F4). Of a group made in the window (16 periods at 2.3
// s), the counts are the window's. A capture's start reading 119 ms after
// its first event (as record's are) still counts.
func TestKernelStatReadingsAfterTrace(t *testing.T) {
	const span, period = int64(2e9), int64(100e6)
	ring := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 1.99e9, NrPeriods: 400, NrThrottled: 83}, {Path: "/q", Time: 2.3e9, NrPeriods: 400, NrThrottled: 83}}}
	if k := kernelStat(ring, "/q", 0, span, period); k != nil {
		t.Errorf("two readings after the window: %+v, want nil", k)
	}
	made := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 2.2e9, NrPeriods: 15, NrThrottled: 14}, {Path: "/q", Time: 2.3e9, NrPeriods: 16, NrThrottled: 15}}}
	if k := kernelStat(made, "/q", 0, span, period); k == nil || k.NrPeriods != 16 || k.NrThrottled != 15 {
		t.Errorf("a group made in the window, read after it: %+v, want its last reading", k)
	}
	late := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 119e6, NrPeriods: 3, NrThrottled: 1}, {Path: "/q", Time: 2.01e9, NrPeriods: 43, NrThrottled: 41}}}
	if k := kernelStat(late, "/q", 0, span, period); k == nil || k.NrThrottled != 40 {
		t.Errorf("a start reading 119 ms in: %+v, want the difference, 40 throttled", k)
	}
	// A group removed during the capture: read at the start (119 ms in)
	// only; that reading says nothing of the trace after it (new-user pass
	// 18 F4). One at the end (1.95 s, within a period of it) still counts.
	removed := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 119e6, NrPeriods: 3}}}
	if k := kernelStat(removed, "/q", 0, span, period); k != nil {
		t.Errorf("one reading at the start: %+v, want nil", k)
	}
	end := &trace.Meta{CgroupStats: []trace.CgroupStat{{Path: "/q", Time: 1.95e9, NrPeriods: 19, NrThrottled: 17}}}
	if k := kernelStat(end, "/q", 0, span, period); k == nil || k.NrThrottled != 17 {
		t.Errorf("one reading at the end: %+v, want it", k)
	}
}
