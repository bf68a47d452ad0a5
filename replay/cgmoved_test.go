package replay

import (
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// TestCgroupByRun: a thread moved between cgroups (a cgroup v1 tasks
// write) is replayed in the group it ran longest in, not the one of its
// last switch-out. Task 10 runs on CPU 0 from 0: 2 ms in /a (id 7,
// switched out at 2 ms), 5 ms in /b (id 8, from 3 to 8 ms), 1 ms in the
// root (id 1, from 9 to 10 ms); idle between. Before, the model took its
// last switch-out's group, the root, and a replay of such a trace said it
// showed no cgroups (new-user pass 12 F2). Task 20 stays in /a: no
// warning for it. The warning counts one moved task.
func TestCgroupByRun(t *testing.T) {
	const ms = int64(1_000_000)
	sw := func(at int64, prev trace.TID, pc string, st trace.TaskState, next trace.TID, nc string, cg uint64) trace.Event {
		e := testsched.Switch(at, 0, prev, pc, st, next, nc)
		e.Cgroup = cg
		return e
	}
	ev := []trace.Event{
		sw(0, 0, "swapper/0", 0, 10, "mover", 1),
		sw(2*ms, 10, "mover", trace.StateInterruptible, 20, "stay", 7),
		sw(3*ms, 20, "stay", trace.StateInterruptible, 10, "mover", 7),
		sw(8*ms, 10, "mover", trace.StateInterruptible, 0, "swapper/0", 8),
		sw(9*ms, 0, "swapper/0", 0, 10, "mover", 1),
		sw(10*ms, 10, "mover", trace.StateInterruptible, 0, "swapper/0", 1),
	}
	meta := &trace.Meta{NrCPUs: 1, Cgroups: map[uint64]string{1: "/", 7: "/a", 8: "/b"}}
	m, err := Extract(trace.NewSliceSource(ev, meta))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tk := range m.Tasks {
		got[tk.Comm] = tk.Cgroup
	}
	if got["mover"] != "/b" || got["stay"] != "/a" {
		t.Errorf("groups %v, want mover in /b (5 ms of its 8), stay in /a", got)
	}
	var warned int
	for _, w := range m.Meta.Warnings.List() {
		if w.Key == "replay-cgroup-moved" {
			warned++
			if want := "1 task changed cgroup during the trace: it is replayed in the group it ran longest in (a replay keeps a task in one group)"; w.Message != want {
				t.Errorf("warning %q, want %q", w.Message, want)
			}
		}
	}
	if warned != 1 {
		t.Errorf("%d replay-cgroup-moved warnings, want 1", warned)
	}
}
