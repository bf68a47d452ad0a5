package replay

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestWorkloadRootOfTheRecorder: a trace recorded by traceview (its
// command line: traceview record -- sh -c ...) while another program's perf
// record forked its own child first: the workload is traceview's child
// (21, which execs sh), not perf's (11, forked as perf-exec). Replay took perf's
// sleep for the workload and left the recorded command's tree out.
func TestWorkloadRootOfTheRecorder(t *testing.T) {
	name := synthComm
	fork := func(at int64, parent, child trace.TID, comm string) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindFork)
		e.TID, e.PID, e.CurTID = parent, trace.PID(parent), parent
		e.ChildTID, e.ChildPID, e.ChildComm = child, trace.PID(child), comm
		return e
	}
	execAs := func(at int64, tid trace.TID, comm string) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindExec)
		e.TID, e.PID, e.CurTID, e.Comm = tid, trace.PID(tid), tid, comm
		return e
	}
	evs := []trace.Event{
		name(10, "perf"), name(20, "traceview"),
		sw(1000, 0, 0, 10),
		fork(2000, 10, 11, "perf-exec"),
		sw(3000, 10, trace.StateInterruptible, 20),
		fork(4000, 20, 21, "traceview"),
		execAs(4500, 21, "sh"),
		sw(5000, 20, trace.StateInterruptible, 11),
		sw(6000, 11, trace.StateInterruptible, 21),
		sw(7000, 21, trace.StateInterruptible, 0),
	}
	meta := &trace.Meta{Cmdline: []string{"/usr/local/bin/traceview", "record", "-o", "x.tv", "--", "sh", "-c", "true"}}
	m, err := Extract(trace.NewSliceSource(evs, meta))
	if err != nil {
		t.Fatal(err)
	}
	if m.WorkloadRoot != 21 {
		t.Errorf("workload root %d, want 21 (traceview's child)", m.WorkloadRoot)
	}
}
