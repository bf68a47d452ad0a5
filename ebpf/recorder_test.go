package ebpf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// TestAddProcTasksCutsNames is the regression test for long /proc names:
// the kernel's /proc/PID/comm of a kworker adds its workqueue
// ("kworker/u8:0-events_unbound", 27 bytes) while task names are at most
// 15 bytes (TASK_COMM_LEN-1), as perf's synthesized COMM records cut them:
// the first 15 bytes, "kworker/u8:0-ev". A fake /proc holds that kworker
// (pid 12) and a thread (tid 31 of pid 30) whose name is exactly 15 bytes
// and must stay whole.
func TestAddProcTasksCutsNames(t *testing.T) {
	proc := t.TempDir()
	for _, th := range []struct{ pid, tid, comm string }{
		{"12", "12", "kworker/u8:0-events_unbound\n"},
		{"30", "31", "fifteen-bytes-x\n"},
	} {
		dir := filepath.Join(proc, th.pid, "task", th.tid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(th.comm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf strings.Builder
	w, err := tvf.NewWriter(&buf, tvf.Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := AddProcTasks(w, proc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := tvf.NewReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%d/%d %s", e.PID, e.TID, e.Comm))
	}
	want := []string{"12/12 kworker/u8:0-ev", "30/31 fifteen-bytes-x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comm events (-want +got):\n%s", diff)
	}
	var tasks []string
	for _, tk := range r.Tasks() {
		tasks = append(tasks, tk.Comm)
	}
	if diff := cmp.Diff([]string{"kworker/u8:0-ev", "fifteen-bytes-x"}, tasks); diff != "" {
		t.Errorf("task table (-want +got):\n%s", diff)
	}
}

