package replay

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// TestExtractNamesAsReports: the model names its tasks as the reports name
// their rows (perfcompat.LatencyThread.Named), so the prediction's rows
// match the observed table's. Task 5 has no record naming it: its switches
// say "stress-ng" then "stress-ng-cpu" (a prctl rename whose COMM record a
// cut file lost): the latest, stress-ng-cpu (it stayed stress-ng, and a
// cut file's replay showed stress-ng-cpu at 0 ms and stress-ng at 8.9x).
// Task 6, named "perf-exec" by perf's synthesized COMM, then switched as
// "wl1.sh" (an exec whose record was lost): wl1.sh. Task 7, a kworker
// whose synthesized /proc name extends its switches' "kworker/0:0", keeps
// "kworker/0:0-events".
func TestExtractNamesAsReports(t *testing.T) {
	named := synthComm
	run := func(at int64, tid trace.TID, name string) []trace.Event {
		in := sw(at, 0, trace.StateRunning, tid)
		in.NextComm = name
		out := sw(at+1000, tid, trace.StateInterruptible, 0)
		out.Comm = name
		return []trace.Event{in, out}
	}
	evs := []trace.Event{named(6, "perf-exec"), named(7, "kworker/0:0-events")}
	evs = append(evs, run(10_000, 5, "stress-ng")...)
	evs = append(evs, run(20_000, 5, "stress-ng-cpu")...)
	evs = append(evs, run(30_000, 6, "wl1.sh")...)
	evs = append(evs, run(40_000, 7, "kworker/0:0")...)
	m, err := Extract(trace.NewSliceSource(evs, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[trace.TID]string{5: "stress-ng-cpu", 6: "wl1.sh", 7: "kworker/0:0-events"}
	for _, tk := range m.Tasks {
		if w, ok := want[tk.TID]; ok && tk.Comm != w {
			t.Errorf("task %d named %q, want %q", tk.TID, tk.Comm, w)
		}
	}
}

// synthComm is perf's record-start COMM naming task tid (time 0, no CPU).
func synthComm(tid trace.TID, name string) trace.Event {
	e := trace.NewEvent(0, -1, trace.KindComm)
	e.TID, e.PID, e.Comm = tid, trace.PID(tid), name
	return e
}

// TestPredictionKeepsRenames: a prediction names a task as the recording
// did at each point of its work (new-user pass 34 F5: every event of a
// prediction carried the task's last name, so an exec'd task's earlier
// names, and with them `compare --comm` of them, were gone). Task 8,
// named "sh" at record start, runs 1 ms from 10 us and execs "python3"
// 400 us into that run, sleeps, is woken at 2 ms, runs 0.5 ms and renames
// itself "worker" (prctl) 100 us into that run: its renames are at 400 us
// and 1000 + 100 = 1100 us of its run time. Replayed alone on one CPU
// (eevdf) it runs the same two runs: the comm record at its start and
// the first switch-in name it "sh",
// an exec to "python3" comes before its first switch-out (run time 1000
// us by then), which names it "python3", as does the second switch-in;
// a comm record "worker" comes before its second switch-out.
func TestPredictionKeepsRenames(t *testing.T) {
	us := int64(1000)
	ex := trace.NewEvent(410*us, 0, trace.KindExec)
	ex.TID, ex.PID, ex.Comm, ex.CurTID = 8, 8, "python3", 8
	w := trace.NewEvent(2000*us, 0, trace.KindWaking)
	w.TID, w.TargetCPU = 8, 0
	cm := trace.NewEvent(2100*us, 0, trace.KindComm)
	cm.TID, cm.PID, cm.Comm, cm.CurTID = 8, 8, "worker", 8
	in1 := sw(10*us, 0, trace.StateRunning, 8)
	in1.NextComm = "sh"
	out1 := sw(1010*us, 8, trace.StateInterruptible, 0)
	out1.Comm = "python3"
	in2 := sw(2000*us, 0, trace.StateRunning, 8)
	in2.NextComm = "python3"
	out2 := sw(2500*us, 8, trace.StateInterruptible, 0)
	out2.Comm = "worker"
	m, err := Extract(trace.NewSliceSource([]trace.Event{synthComm(8, "sh"), in1, ex, out1, w, in2, cm, out2}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var tk *Task
	for i := range m.Tasks {
		if m.Tasks[i].TID == 8 {
			tk = &m.Tasks[i]
		}
	}
	want := []Rename{{CPU: 400 * us, Comm: "python3", Exec: true}, {CPU: 1100 * us, Comm: "worker"}}
	if tk == nil || tk.FirstComm != "sh" || !slices.Equal(tk.Renames, want) || tk.Comm != "worker" {
		t.Fatalf("task 8: %+v, want first named sh, renames %+v, named worker", tk, want)
	}
	res, err := Simulate(m, policies.NewStack(policies.NewEEVDF(nil, 1)), Config{CPUs: 1, HZ: 250})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Events() {
		switch {
		case e.Kind == trace.KindSwitch && e.NextTID == 8:
			got = append(got, "in "+e.NextComm)
		case e.Kind == trace.KindSwitch && e.TID == 8:
			got = append(got, "out "+e.Comm)
		case (e.Kind == trace.KindExec || e.Kind == trace.KindComm) && e.TID == 8:
			got = append(got, e.Kind.String()+" "+e.Comm)
		case e.Kind == trace.KindRuntime && e.TID == 8:
			got = append(got, fmt.Sprintf("runtime %s %d us", e.Comm, e.Runtime/us))
		}
	}
	// Each rename comes at its point of the run, after a
	// sched_stat_runtime of the run so far under the old name (pass 37
	// F1: all of a run was charged to the name at its switch-out).
	wantEv := []string{"comm sh", "in sh", "runtime sh 400 us", "sched_process_exec python3", "runtime python3 600 us", "out python3",
		"in python3", "runtime python3 100 us", "comm worker", "runtime worker 400 us", "out worker"}
	if !slices.Equal(got, wantEv) {
		t.Errorf("task 8's predicted events: %q, want %q", got, wantEv)
	}
}

// TestSelectorEscapedNames: a name selector takes a name as the tables
// print it (escaped: "evil\ttab", "\xff\xfe\x01bin", "back\\slash") as
// well as its raw bytes, and a raw name with a lone backslash as it is
// (new-user pass 39 F3: the printed form matched no task).
func TestSelectorEscapedNames(t *testing.T) {
	for _, c := range []struct{ sel, comm string }{
		{`evil\ttab`, "evil\ttab"},
		{"evil\ttab", "evil\ttab"},
		{`\xff\xfe\x01bin`, "\xff\xfe\x01bin"},
		{`back\\slash`, `back\slash`},
		{`back\slash`, `back\slash`},
	} {
		s, err := ParseSelector(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Match(&Task{Comm: c.comm}) || s.Match(&Task{Comm: "other"}) {
			t.Errorf("selector %q: matches %q %v", c.sel, c.comm, s.Match(&Task{Comm: c.comm}))
		}
	}
}
