package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// TestTasksetParts: taskset-parts.tv runs two spinners under `taskset -c
// 0` and a sleeper under `taskset -c 1`, each started by a task the trace
// names "taskset" that then exec'd timeout. The whole workload ran on both
// CPUs, so inferPinning pins nothing; inferTasksetPinning pins each part
// to the CPU it ran on: spin_a, spin_b and their two timeouts to CPU 0,
// the sleeper and its timeout to CPU 1 (6 tasks). Replayed under eevdf,
// the CPU-0 spinners' run time fits in the makespan (before, unpinned,
// they got 746 + 733 ms of a 1.09 s makespan, as if on two CPUs).
func TestTasksetParts(t *testing.T) {
	m := extractFile(t, "../testdata/traces/taskset-parts.tv")
	want := map[string]policies.CPUSet{"spin_a": 1, "spin_b": 1, "sleeper": 2}
	on := map[policies.CPUSet]int{}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if w, ok := want[tk.Comm]; ok && tk.Affinity != w {
			t.Errorf("%s: affinity %v, want %v", tk.Comm, tk.Affinity, w)
		}
		if tk.Workload && tk.Affinity != 0 {
			on[tk.Affinity]++
		}
	}
	if m.Stats.PinnedTasks != 6 || on[1] != 4 || on[2] != 2 {
		t.Errorf("%d tasks pinned (%d on CPU 0, %d on CPU 1), want 6 (4 and 2)", m.Stats.PinnedTasks, on[1], on[2])
	}
	specs, _ := policies.ParseSpecs("eevdf")
	pol, _ := specs[0].New(2)
	res, err := Simulate(m, pol, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int64{}
	for _, e := range res.Events() {
		if e.Kind == trace.KindRuntime {
			if i, ok := taskOfTID(m, e.TID); ok {
				ran[m.Tasks[i].Comm] += e.Runtime
			}
		}
	}
	if cpu0 := ran["spin_a"] + ran["spin_b"]; cpu0 <= 0 || cpu0 > res.Makespan {
		t.Errorf("spin_a and spin_b ran %d + %d ns on CPU 0 in a makespan of %d ns", ran["spin_a"], ran["spin_b"], res.Makespan)
	}
}

// taskOfTID returns the index in m.Tasks of the task tid.
func taskOfTID(m *Model, tid trace.TID) (int, bool) {
	for i := range m.Tasks {
		if m.Tasks[i].TID == tid {
			return i, true
		}
	}
	return 0, false
}

// TestQuotaSiblingsDeadline: in quota-siblings.tv two stress-ng workers
// looping until 2 s have passed run in /p7q under a 30 ms/100 ms quota;
// one exited 90 ms after the other, after waiting for its group's next
// period (4.4 % of their life: over the 3 % sibling spread). Both are
// deadline-bound at the earlier exit (inferUntil, waitedSpinners); before,
// the later one was taken for work-bound, and a what-if to a 60 ms quota
// gave the two 909 and 312 ms of CPU where a recording of it gave 637 and
// 579. The replayed pair under --cpu-max /p7q=60ms/100ms shares the
// quota: each within 10 % of the other and 1.1-1.3 s together (60 % of
// a CPU over the 2.05 s they live; the recording: 1.216 s).
func TestQuotaSiblingsDeadline(t *testing.T) {
	m := extractFile(t, "../testdata/traces/quota-siblings.tv")
	var q []int
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; tk.Comm == "stress-ng-cpu" && tk.Cgroup == "/p7q" {
			q = append(q, i)
			if tk.Until != UntilDeadline {
				t.Errorf("tid %d: %s, want deadline-bound", tk.TID, tk.Until)
			}
		}
	}
	if len(q) != 2 {
		t.Fatalf("%d stress-ng-cpu tasks in /p7q, want 2", len(q))
	}
	a, b := &m.Tasks[q[0]], &m.Tasks[q[1]]
	if a.Start+a.Deadline != b.Start+b.Deadline {
		t.Errorf("deadlines at %d and %d ns, want one time", a.Start+a.Deadline, b.Start+b.Deadline)
	}
	cfg := DefaultConfig()
	cfg.CgroupChanges = []CgroupChange{{Path: "/p7q", Quota: 60_000_000, Period: 100_000_000}}
	specs, _ := policies.ParseSpecs("eevdf")
	pol, _ := specs[0].New(2)
	res, err := Simulate(m, pol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[trace.TID]int64{}
	for _, e := range res.Events() {
		if e.Kind == trace.KindRuntime {
			ran[e.TID] += e.Runtime
		}
	}
	ra, rb := ran[a.TID], ran[b.TID]
	if ra+rb < 1_100_000_000 || ra+rb > 1_300_000_000 || 10*max(ra-rb, rb-ra) > max(ra, rb) {
		t.Errorf("under 60 ms/100 ms the /p7q workers ran %.1f and %.1f ms, want 1.1-1.3 s together, within 10 %% of each other", float64(ra)/1e6, float64(rb)/1e6)
	}
}

// TestEmptyNameKept: in emptyname.perf.data thread 21038 renamed itself
// to the empty name (a PERF_RECORD_COMM of ""; perf's row is ":21038").
// The model keeps that name, not the "python3" it had from its fork, and
// the prediction names it so: its last KindComm event carries "", so the
// predicted table has its own row, not one merged into python3's.
func TestEmptyNameKept(t *testing.T) {
	m := extractFile(t, "../testdata/traces/emptyname.perf.data")
	i, ok := taskOfTID(m, 21038)
	if !ok {
		t.Fatal("no task 21038")
	}
	if tk := &m.Tasks[i]; tk.Comm != "" || tk.Unnamed {
		t.Errorf("task 21038: comm %q, unnamed %v; want \"\", false", tk.Comm, tk.Unnamed)
	}
	specs, _ := policies.ParseSpecs("eevdf")
	pol, _ := specs[0].New(2)
	res, err := Simulate(m, pol, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	last, n := "unset", 0
	for _, e := range res.Events() {
		if e.Kind == trace.KindComm && e.TID == 21038 {
			last, n = e.Comm, n+1
		}
	}
	if n == 0 || last != "" {
		t.Errorf("%d KindComm events for 21038, the last naming it %q; want one or more, the last \"\"", n, last)
	}
}

// TestInferIdlePinning: a capture with no traced command, 2 s on 2 CPUs.
// Hog a ran 1 s on CPU 0 (100 switch-ins) and waited 0.5 s for it (50 %
// of its run, over pinWaitShare's 25 %) while CPU 1 was idle 2 s of 2
// (100 %, over pinOtherIdle's 50 %): pinned to CPU 0. Task b ran there as
// long but waited 0.1 s (10 %): not pinned. With task c running 1.2 s on
// CPU 1 (idle 40 % of the trace) neither is: an idle balance had no idle
// CPU to pull a to. A capture of a traced command is inferPinning's.
func TestInferIdlePinning(t *testing.T) {
	mk := func(withC bool, root trace.TID) *extractor {
		task := func(tid trace.TID, on []int64, ins []int) Task {
			return Task{TID: tid, PID: trace.PID(tid), Start: 0, Last: 2e9, timeOn: on, insOn: ins}
		}
		m := &Model{NrCPUs: 2, WorkloadRoot: root, Tasks: []Task{task(10, []int64{1e9}, []int{100}), task(11, []int64{1e9}, []int{100})}}
		st := []ext{{waitSum: 5e8}, {waitSum: 1e8}}
		if withC {
			m.Tasks = append(m.Tasks, task(12, []int64{0, 1.2e9}, []int{0, 100}))
			st = append(st, ext{})
		}
		return &extractor{m: m, st: st}
	}
	for _, c := range []struct {
		withC  bool
		root   trace.TID
		pinned int
	}{{false, -1, 1}, {true, -1, 0}, {false, 0, 0}} {
		x := mk(c.withC, c.root)
		x.inferIdlePinning()
		if x.m.Stats.PinnedTasks != c.pinned || c.pinned == 1 && (x.m.Tasks[0].Affinity != 1 || x.m.Tasks[1].Affinity != 0) {
			t.Errorf("task c %v, workload root %d: %d pinned, affinities %v and %v; want %d (a on CPU 0)",
				c.withC, c.root, x.m.Stats.PinnedTasks, x.m.Tasks[0].Affinity, x.m.Tasks[1].Affinity, c.pinned)
		}
	}
}

// TestRecordedAffinity: a 2-CPU trace whose recording read process 7's
// affinity as CPU 1 and process 8's as both CPUs: 7's two threads get CPU
// 1 (mask 2, counted twice in AffinityRecorded), 8 none; a CPU outside
// the trace (5) is dropped from a list. Process 8's task, inferred pinned
// to CPU 0 (mask 1, counted in PinnedTasks) where it happened to run,
// loses that pinning (new-user pass 82 F1): PinnedTasks 1 -> 0,
// UnpinnedByRecord 1, and inferIdlePinning passes it by.
func TestRecordedAffinity(t *testing.T) {
	m := &Model{NrCPUs: 2, WorkloadRoot: -1, Tasks: []Task{{TID: 7, PID: 7}, {TID: 9, PID: 7}, {TID: 8, PID: 8, Affinity: 1, Workload: true}}}
	m.Stats.PinnedTasks = 1
	m.Meta.TaskAffinity = map[trace.PID][]trace.CPU{7: {1, 5}, 8: {0, 1}}
	x := &extractor{m: m}
	x.recordedAffinity()
	if m.Tasks[0].Affinity != 2 || m.Tasks[1].Affinity != 2 || m.Tasks[2].Affinity != 0 || m.Stats.AffinityRecorded != 2 {
		t.Errorf("affinities %v %v %v, %d recorded; want 2 2 0, 2", m.Tasks[0].Affinity, m.Tasks[1].Affinity, m.Tasks[2].Affinity, m.Stats.AffinityRecorded)
	}
	if m.Stats.PinnedTasks != 0 || m.Stats.UnpinnedByRecord != 1 || !m.Tasks[2].anyCPU {
		t.Errorf("pinned %d, unpinned %d, anyCPU %v; want 0, 1, true", m.Stats.PinnedTasks, m.Stats.UnpinnedByRecord, m.Tasks[2].anyCPU)
	}
}

// TestOtherCPUIdled: a workload that stayed on CPU 1 says it was pinned
// only when another CPU idled at least pinOtherIdle (50 %) of the trace.
// By hand: tasks over 0..1000 ns; CPU 0 busy 990 ns (1 % idle): no; busy
// 400 ns (60 % idle): yes.
func TestOtherCPUIdled(t *testing.T) {
	for _, c := range []struct {
		busy0 int64
		want  bool
	}{{990, false}, {400, true}} {
		m := &Model{NrCPUs: 2, Tasks: []Task{
			{TID: 5, Start: 0, Last: 1000, timeOn: []int64{c.busy0, 0}},
			{TID: 6, Start: 10, Last: 900, timeOn: []int64{0, 800}},
		}}
		if got := otherCPUIdled(m, 1); got != c.want {
			t.Errorf("CPU 0 busy %d of 1000 ns: %v, want %v", c.busy0, got, c.want)
		}
	}
}
