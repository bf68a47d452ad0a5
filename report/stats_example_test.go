package report_test

import (
	"fmt"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// One CPU: task 7 wakes at 1 ms, runs from 1.5 ms (a 500 us scheduling
// delay) until it sleeps at 3.5 ms; the last event (here a lost-records
// notice) ends the trace at 4 ms. Its window (3.5 to 4 ms, from the CPU's
// last event) is left out of the runqueue mean: 1 task for 0.5 ms of
// 3.5 ms, 0.143.
func ExampleComputeStats() {
	sw := func(t int64, prev, next trace.TID, st trace.TaskState) trace.Event {
		e := trace.NewEvent(t, 0, trace.KindSwitch)
		e.TID, e.PrevState, e.NextTID = prev, st, next
		return e
	}
	wake := trace.NewEvent(1_000_000, 0, trace.KindWaking)
	wake.TID, wake.TargetCPU, wake.CurTID = 7, 0, 0
	evs := []trace.Event{
		sw(0, 0, 0, 0), // the first switch seen on CPU 0 starts its observation
		wake,
		sw(1_500_000, 0, 7, 0),
		sw(3_500_000, 7, 0, trace.StateInterruptible),
		trace.NewEvent(4_000_000, 0, trace.KindLost),
	}
	st, err := report.ComputeStats(trace.NewSliceSource(evs, nil), report.StatsOptions{})
	if err != nil {
		panic(err)
	}
	c := st.CPUs[0]
	fmt.Printf("CPU %d: busy %.1f ms of %.1f ms (%.0f %%), runqueue avg %.3f max %d\n",
		c.CPU, float64(c.Busy)/1e6, float64(c.Observed)/1e6, 100*c.Utilization, c.RunqueueAvg, c.RunqueueMax)
	for _, b := range st.Delays.Buckets {
		if b.Count > 0 {
			fmt.Printf("%d delay(s) of %d-%d us\n", b.Count, b.Low, b.High)
		}
	}
	// Output:
	// CPU 0: busy 2.0 ms of 4.0 ms (50 %), runqueue avg 0.143 max 1
	// 1 delay(s) of 256-511 us
}
