//go:build linux

package ebpf

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// TestV1MovesWatched (real eBPF, a cgroup v1 cpu hierarchy): a sleep
// process is moved into a new group by a tasks write and, 30 ms later,
// back to the root group by a cgroup.procs write. The sampler's watcher
// (cgattach.c) sees both moves between the times taken just before and
// after each write, and places the task by them: in the root before the
// first write, in the group from it to the second, in the root after.
// The readings alone (every 100 ms) place a 30 ms stay nowhere or over
// the whole reading interval.
func TestV1MovesWatched(t *testing.T) {
	requireBPF(t, false)
	m := requireCPUGroup(t)
	if m.V1CPU == "" {
		t.Skip("the cpu controller is not on a cgroup v1 hierarchy here")
	}
	name := "tv-test-moves-" + strconv.Itoa(os.Getpid())
	dir := filepath.Join(m.V1CPU, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(dir)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	tid := trace.TID(pid)

	stop := make(chan struct{})
	s := startV1Sampler(&groupReader{mounts: m, proc: "/proc"}, stop)
	defer close(stop)
	if s.watchErr != "" {
		t.Fatalf("moves not watched: %s", s.watchErr)
	}
	write := func(file string) (before, after int64) {
		before = monotonicNow()
		if err := os.WriteFile(file, []byte(strconv.Itoa(pid)), 0o644); err != nil {
			t.Fatal(err)
		}
		return before, monotonicNow()
	}
	in0, in1 := write(filepath.Join(dir, "tasks"))
	time.Sleep(30 * time.Millisecond)
	out0, out1 := write(filepath.Join(m.V1CPU, "cgroup.procs"))
	s.awaitReading(out1 + 1) // the next reading drains the moves
	s.mu.Lock()
	moves, procMoves := s.moves[tid], s.procMoves[trace.PID(pid)]
	s.mu.Unlock()
	if len(moves) != 1 || moves[0].path != "/"+name || moves[0].time < in0 || moves[0].time > in1 {
		t.Errorf("tasks write in [%d, %d]: moves %+v, want one to /%s in that span", in0, in1, moves, name)
	}
	if len(procMoves) != 1 || procMoves[0].path != "/" || procMoves[0].time < out0 || procMoves[0].time > out1 {
		t.Errorf("cgroup.procs write in [%d, %d]: process moves %+v, want one to the root in that span", out0, out1, procMoves)
	}
	for _, c := range []struct {
		t    int64
		want string
	}{{in0 - 1, ""}, {in1, "/" + name}, {out0, "/" + name}, {out1, "/"}} {
		if got := s.group(tid, trace.PID(pid), c.t); got != c.want {
			t.Errorf("at %d (in [%d, %d], out [%d, %d]): group %q, want %q", c.t, in0, in1, out0, out1, got, c.want)
		}
	}
}
