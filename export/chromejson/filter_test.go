package chromejson

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestWriteChromeJSONFilterCPUTracks: the CPU tracks hold the runs of the
// filter's tasks only. By hand from testsched.Scenario (see
// TestWriteChromeJSONHand): B ran on CPU 1 0-400 us and on CPU 0
// 1000-1500 us; a name no task has selects no run.
func TestWriteChromeJSONFilterCPUTracks(t *testing.T) {
	for _, tc := range []struct {
		comm string
		want []string
	}{
		{"B", []string{"CPU1: B 0-400", "CPU0: B 1000-1500"}},
		{"nosuch", nil},
	} {
		t.Run(tc.comm, func(t *testing.T) {
			var buf bytes.Buffer
			f := &schedule.Filter{Comms: []string{tc.comm}}
			if err := Write(&buf, trace.NewSliceSource(testsched.Scenario(), nil), Options{Filter: f}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range gDecodePerfetto(t, buf.Bytes()) {
				if e.Ph == "X" && e.Cat == "cpu" {
					got = append(got, fmt.Sprintf("CPU%d: %s %g-%g", e.Tid-CPUPid, e.Name, e.Ts, e.Ts+e.Dur))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("CPU slices (-want +got):\n%s", d)
			}
		})
	}
}
