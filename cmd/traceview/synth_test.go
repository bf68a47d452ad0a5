package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

func TestSynthPipe(t *testing.T) {
	// 3 round trips of 1 ms passes on one CPU, strictly alternating: the
	// two tasks run 6 ms in all, back to back: makespan 6 ms.
	out := filepath.Join(t.TempDir(), "pipe.tvf")
	stdout, stderr, code := runCLI(t, "synth", "pipe", "loops=3", "work=1ms", "--cpus", "1", "-w", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "makespan 6.000 ms") || !strings.Contains(stdout, "2 tasks") {
		t.Errorf("stdout %q", stdout)
	}
	evs, meta := readAllEvents(t, out)
	var ran int64
	for _, ev := range evs {
		if ev.Kind == trace.KindRuntime {
			ran += ev.Runtime
		}
	}
	if ran != 6_000_000 {
		t.Errorf("runtime in the trace %d ns, want 6000000", ran)
	}
	if !strings.HasPrefix(meta.Tool, "traceview synth pipe loops=3 work=1ms") {
		t.Errorf("meta tool %q", meta.Tool)
	}
	// The written trace replays under the classic policies.
	rep, stderr, code := runCLI(t, "replay", "-i", out, "--policy", "bfs,o1,goodness24")
	if code != 0 {
		t.Errorf("replay: exit %d: %s", code, stderr)
	}
	// A generated trace has no traced command: the workload line says so
	// (it read "workload (the traced command's process tree): 0 tasks: 0
	// ending after their work, ..." for the trace's 2 tasks).
	if !strings.Contains(rep, "workload: no traced command in the trace") || strings.Contains(rep, "0 tasks:") {
		t.Errorf("replay's workload line:\n%s", rep)
	}
}

func TestSynthListAndErrors(t *testing.T) {
	stdout, _, code := runCLI(t, "synth", "--list")
	if code != 0 {
		t.Fatalf("--list: exit %d", code)
	}
	for _, w := range []string{"pipeline", "massive_intr", "messaging", "pipe", "manytasks", "latt"} {
		if !strings.Contains(stdout, w+": ") {
			t.Errorf("--list lacks %s", w)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"synth", "bogus", "-w", "x"}, `unknown workload "bogus"`},
		{[]string{"synth", "hackbench", "-w", "x"}, "hackbench is the workload messaging"},
		// 100000 groups × 20 senders × 20 receivers × 100000 loops: 4e12 messages, each a burst.
		{[]string{"synth", "messaging", "groups=100000", "loops=100000", "-w", "x"}, "synth messaging: groups=100000 loops=100000 make about 4e+12 CPU bursts, above the limit of 1000000 (about 2.2 GB of memory at 2200 bytes a burst): lower them, or raise --max-bursts"},
		{[]string{"synth", "pipe", "loops=500000", "-w", "x"}, "synth pipe: loops=500000 make about 1e+06 CPU bursts, above the limit"},
		{[]string{"synth", "pipe", "loops=x", "-w", "x"}, "loops=x: want a non-negative integer"},
		{[]string{"synth", "pipe", "depth=3", "-w", "x"}, `unknown parameter "depth"`},
		{[]string{"synth", "pipe"}, "-w FILE is required"},
		{[]string{"synth", "pipe", "--policy", "nosuch", "-w", "x"}, "unknown policy"},
		{[]string{"synth", "x264", "threads=0", "-w", "x"}, "synth x264: threads=0: want 1..1000000"},
		{[]string{"synth", "latt_make", "write=0", "-w", "x"}, "synth latt_make: write=0: want a duration of at least 1ns"},
		{[]string{"synth", "pipe", "--cpus", "-1", "-w", "x"}, "--cpus -1: want 1..64, or 0 for the workload's own count"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
