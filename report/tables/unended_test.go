package tables

import (
	"testing"

	"github.com/traceview/traceview/report"
)

// TestTaskLatencyUnknowns (new-user pass 118 F2, F4): task_latency carries
// the counts that tell a 0 run time that is unknown (unended_runs) and a
// delay count above the switch-ins (recovered_delays) from the row.
func TestTaskLatencyUnknowns(t *testing.T) {
	res := &report.LatencyResult{Rows: []report.LatencyRow{{Comm: "m", TID: 50, PID: 50, NrTasks: 1,
		RuntimeSource: report.RuntimeFromSwitches, Switches: 13, Count: 15, Recovered: 2, RunsUnended: 13}}}
	lat, _ := latencyRows("id", res)
	if len(lat) != 1 || lat[0].UnendedRuns != 13 || lat[0].RecoveredDelays != 2 || lat[0].Runtime != 0 || lat[0].DelayCount != 15 {
		t.Errorf("task_latency %+v; want unended_runs 13, recovered_delays 2, runtime 0, delay_count 15", lat)
	}
}
