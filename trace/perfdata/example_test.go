package perfdata_test

import (
	"fmt"
	"io"
	"os"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfdata"
)

// Read a perf.data (here a pipe-mode stream of `perf sched record -o -`)
// and count its context switches; the first one is the line `perf script`
// prints as "perf:23949 [120] D ==> migration/0:18 [0]".
func ExampleNewReader() {
	f, err := os.Open("../../testdata/traces/sched-pipe-mode.data")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r, err := perfdata.NewReader(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	var first trace.Event
	switches := 0
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Kind == trace.KindSwitch {
			if switches == 0 {
				first = ev
			}
			switches++
		}
	}
	fmt.Println(r.Meta().Tool, switches, "switches")
	fmt.Println(first)
	// Output:
	// perf 6.12.95 107 switches
	// 919.426680151 [000] sched_switch: perf:23949 [120] D ==> migration/0:18 [0]
}
