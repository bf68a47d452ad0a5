package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
)

// TestBindPerCPUKthreads: on a 2-CPU trace the kernel threads the kernel
// binds to one CPU by name get that CPU's affinity; unbound kworkers
// (kworker/uN:M), interrupt threads, a CPU the trace lacks and a workload
// task that happens to carry such a name do not.
func TestBindPerCPUKthreads(t *testing.T) {
	cases := []struct {
		comm     string
		workload bool
		want     policies.CPUSet
	}{
		{"kworker/1:2-mm_", false, 1 << 1},
		{"kworker/0:1H-kb", false, 1 << 0},
		{"kworker/1:0", false, 1 << 1},
		{"ksoftirqd/0", false, 1 << 0},
		{"migration/1", false, 1 << 1},
		{"cpuhp/1", false, 1 << 1},
		{"kworker/u8:2-ev", false, 0},
		{"irq/24-virtio0", false, 0},
		{"kworker/3:1", false, 0}, // no CPU 3 in a 2-CPU trace
		{"kdamond.0", false, 0},
		{"kworker/1:0", true, 0},
		{"ksoftirqd/1x", false, 0},
	}
	m := &Model{NrCPUs: 2, WorkloadRoot: -1}
	for _, c := range cases {
		m.Tasks = append(m.Tasks, Task{Comm: c.comm, Workload: c.workload})
	}
	x := &extractor{m: m}
	x.bindPerCPUKthreads()
	bound := 0
	for k, c := range cases {
		if got := m.Tasks[k].Affinity; got != c.want {
			t.Errorf("%q (workload %v): affinity %s, want %s", c.comm, c.workload, got, c.want)
		}
		if c.want != 0 {
			bound++
		}
	}
	if m.Stats.BoundKthreads != bound {
		t.Errorf("BoundKthreads %d, want %d", m.Stats.BoundKthreads, bound)
	}
}
