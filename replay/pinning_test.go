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
