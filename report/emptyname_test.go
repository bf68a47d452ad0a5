package report

import (
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestEmptyRename: task 7 runs as "py", renames itself to the empty name
// (prctl(PR_SET_NAME, ""): a rename event with no name) at 25 µs, and is
// woken and switched in twice more under "". --comm py keeps what it did
// as py only: by hand, its one delay (woken at 5, in at 10 µs) and its
// switch-in at 10 µs; before, the empty name counted as py and gave 3
// delays against 1 switch-in (new-user pass 32 F2: 769 against 79).
func TestEmptyRename(t *testing.T) {
	us := testsched.Us
	rename := trace.NewEvent(25*us, 0, trace.KindComm)
	rename.TID, rename.PID, rename.CurTID, rename.Comm = 7, 7, 7, ""
	evs := []trace.Event{
		testsched.Waking(5*us, 0, 0, 7, "py", 0),
		testsched.Switch(10*us, 0, 0, "swapper/0", 0, 7, "py"),
		rename,
		testsched.Switch(30*us, 0, 7, "", trace.StateInterruptible, 0, "swapper/0"),
		testsched.Waking(40*us, 0, 0, 7, "", 0),
		testsched.Switch(45*us, 0, 0, "swapper/0", 0, 7, ""),
		testsched.Switch(50*us, 0, 7, "", trace.StateInterruptible, 0, "swapper/0"),
		testsched.Waking(60*us, 0, 0, 7, "", 0),
		testsched.Switch(62*us, 0, 0, "swapper/0", 0, 7, ""),
		testsched.Switch(70*us, 0, 7, "", trace.StateInterruptible, 0, "swapper/0"),
	}
	res, err := ComputeLatency(trace.NewSliceSource(evs, nil), LatencyOptions{PerTask: true, Filter: &schedule.Filter{Comms: []string{"py"}}})
	if err != nil {
		t.Fatal(err)
	}
	var row *LatencyRow
	for i := range res.Rows {
		if res.Rows[i].TID == 7 {
			row = &res.Rows[i]
		}
	}
	if row == nil || row.Count != 1 || row.Switches != 1 {
		t.Fatalf("--comm py: row %+v, want 1 delay and 1 switch-in", row)
	}
}
