package perfcompat_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

// Two tasks share CPU 0: "worker" sleeps at 1.000 s, is woken at 1.0002 s
// and runs again at 1.0005 s after "noise" is done: its wait time is
// 0.500 ms, of which 0.300 ms scheduling delay. The first two rows print
// "-" for what began before the trace (perf prints 0.000; Exact does).
func ExampleTimehist() {
	sw := func(t int64, prev trace.TID, prevComm string, state trace.TaskState, next trace.TID, nextComm string) trace.Event {
		e := trace.NewEvent(t, 0, trace.KindSwitch)
		e.TID, e.PID, e.Comm, e.PrevState = prev, trace.PID(prev), prevComm, state
		e.NextTID, e.NextPID, e.NextComm = next, trace.PID(next), nextComm
		e.CurTID, e.CurPID = prev, trace.PID(prev)
		return e
	}
	wake := trace.NewEvent(1_000_200_000, 0, trace.KindWaking)
	wake.TID, wake.Comm, wake.CurTID, wake.CurPID = 7, "worker", 9, 9
	evs := []trace.Event{
		sw(1_000_000_000, 7, "worker", trace.StateInterruptible, 9, "noise"),
		wake,
		sw(1_000_500_000, 9, "noise", trace.StateInterruptible, 7, "worker"),
		sw(1_001_000_000, 7, "worker", trace.StateInterruptible, 0, "swapper/0"),
	}
	src := trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 1})
	var out bytes.Buffer
	if err := perfcompat.Timehist(&out, src, perfcompat.TimehistOptions{}); err != nil {
		panic(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		fmt.Println(strings.TrimRight(line, " ")) // perf's rows end in a blank
	}
	// Output:
	//            time    cpu  task name                       wait time  sch delay   run time
	//                         [tid/pid]                          (msec)     (msec)     (msec)
	// --------------- ------  ------------------------------  ---------  ---------  ---------
	//        1.000000 [0000]  worker[7]                               -          -          -
	//        1.000500 [0000]  noise[9]                                -          -      0.500
	//        1.001000 [0000]  worker[7]                           0.500      0.300      0.500
}
