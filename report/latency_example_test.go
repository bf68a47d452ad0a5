package report_test

import (
	"fmt"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// A task woken at 1.000 s that gets the CPU at 1.002 s waited 2 ms.
func ExampleComputeLatency() {
	name := trace.NewEvent(0, 0, trace.KindComm)
	name.TID, name.PID, name.Comm = 42, 42, "worker"
	sleep := trace.NewEvent(500_000_000, 0, trace.KindSwitch) // worker sleeps
	sleep.CurTID, sleep.TID, sleep.PrevState, sleep.NextTID = 42, 42, trace.StateInterruptible, 0
	wake := trace.NewEvent(1_000_000_000, 1, trace.KindWaking)
	wake.CurTID, wake.TID = 7, 42
	run := trace.NewEvent(1_002_000_000, 0, trace.KindSwitch) // idle -> worker
	run.CurTID, run.TID, run.NextTID = 0, 0, 42

	src := trace.NewSliceSource([]trace.Event{name, sleep, wake, run}, &trace.Meta{})
	res, err := report.ComputeLatency(src, report.LatencyOptions{PerTask: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Rows {
		fmt.Printf("%s:%d count %d max %d ns (%d -> %d)\n", r.Comm, r.TID, r.Count, r.MaxDelay, r.MaxDelayStart, r.MaxDelayEnd)
	}
	// Output:
	// worker:42 count 1 max 2000000 ns (1000000000 -> 1002000000)
}
