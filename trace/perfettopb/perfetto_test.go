package perfettopb_test

import (
	"bytes"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfettopb"
)

// TestExecAndTimeZeroRecords: bash (tid 5) is named by a time-0 record
// of a task alive at the start (perf's, CPU -1), switched in on CPU 0 at
// 1 s, execs ls at 1.1 s and sleeps at 1.2 s. The export writes the exec
// as sched_process_exec (it was a rename, new-user pass 26 F14) and the
// time-0 record only in the process tree: read back, no event of a CPU
// lies at time 0 (as one of CPU 0 it read as bash running since 0: a
// replay gave perf 754349 ms of run time). A time-0 rename in CPU 0's
// bundle, as exports before 2026-12-06 wrote it, reads as a record with
// no CPU.
func TestExecAndTimeZeroRecords(t *testing.T) {
	const s = int64(1e9)
	rec := trace.NewEvent(0, -1, trace.KindComm)
	rec.TID, rec.PID, rec.Comm = 5, 5, "bash"
	old := trace.NewEvent(0, 0, trace.KindComm)
	old.TID, old.PID, old.Comm = 6, 6, "cron"
	in := trace.NewEvent(s, 0, trace.KindSwitch)
	in.TID, in.NextTID, in.NextComm, in.CurTID, in.Prio, in.NextPrio = 0, 5, "bash", 0, 120, 120
	exec := trace.NewEvent(s+s/10, 0, trace.KindExec)
	exec.TID, exec.PID, exec.Comm, exec.CurTID = 5, 5, "ls", 5
	out := trace.NewEvent(s+s/5, 0, trace.KindSwitch)
	out.TID, out.Comm, out.PrevState, out.NextTID, out.CurTID, out.Prio, out.NextPrio = 5, "ls", trace.StateInterruptible, 0, 5, 120, 120
	var buf bytes.Buffer
	if _, err := perfettopb.Write(&buf, trace.NewSliceSource([]trace.Event{rec, old, in, exec, out}, &trace.Meta{NrCPUs: 1}), perfettopb.Options{}); err != nil {
		t.Fatal(err)
	}
	src, err := trace.OpenReader(bytes.NewReader(buf.Bytes()), "x.pftrace")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	execs := 0
	for _, e := range evs {
		if e.Time == 0 && e.CPU >= 0 {
			t.Errorf("an event of CPU %d at time 0: %s", e.CPU, e.String())
		}
		if e.Kind == trace.KindExec {
			execs++
			if e.TID != 5 || e.Comm != "ls" || e.Time != s+s/10 {
				t.Errorf("exec read back as %s", e.String())
			}
		}
	}
	if execs != 1 {
		t.Errorf("%d sched_process_exec read back, want 1", execs)
	}
}
