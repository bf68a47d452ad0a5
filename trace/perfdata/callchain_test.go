package perfdata

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// TestCallchains: the callchain of every sched_switch sample of a `perf
// sched record -g` trace (testdata/traces/sched-g.data) is read into
// Event.Stack and Meta.Stacks, leaf first, exactly as perf script prints
// it (sched-g.script-ip.txt.gz): for each of the 876 switches, in order,
// the same tid and time, the same kernel addresses and as many user
// frames (perf prints user addresses relative to their object, which the
// reader does not map). The first switch, perf's at 2475.741737202 s,
// left 5 kernel frames (0xffffffff82265908 first) and 8 user frames.
func TestCallchains(t *testing.T) {
	dir := testtraces.Repo(t)
	r, evs := readAll(t, filepath.Join(dir, "sched-g.data"))
	stacks := r.Meta().Stacks
	for i, s := range stacks {
		if s.ID != trace.StackID(i+1) || len(s.Frames) == 0 {
			t.Fatalf("stack table entry %d: id %d, %d frames", i, s.ID, len(s.Frames))
		}
	}
	// One line per switch, "tid time", then one per frame: "k ADDR" or "u".
	var got []string
	for _, e := range evs {
		if e.Kind != trace.KindSwitch {
			continue
		}
		got = append(got, fmt.Sprintf("%d %d", e.CurTID, e.Time))
		if e.Stack == 0 {
			continue
		}
		for _, fr := range stacks[e.Stack-1].Frames {
			switch {
			case fr.Kernel && fr.Module == "[kernel.kallsyms]":
				got = append(got, fmt.Sprintf("k %x", fr.Addr))
			case fr.Kernel:
				got = append(got, "k without module")
			default:
				got = append(got, "u")
			}
		}
	}
	var want []string
	inSwitch := false
	for _, line := range strings.Split(string(testtraces.Load(t, filepath.Join(dir, "sched-g.script-ip.txt.gz"))), "\n") {
		fs := strings.Fields(line)
		switch {
		case len(fs) >= 3 && strings.HasPrefix(fs[2], "sched:"):
			inSwitch = fs[2] == "sched:sched_switch:"
			if inSwitch {
				sec, ns, _ := strings.Cut(strings.TrimSuffix(fs[1], ":"), ".")
				want = append(want, fs[0]+" "+strings.TrimLeft(sec+ns, "0"))
			}
		case len(fs) == 1 && inSwitch && strings.HasPrefix(fs[0], "ffff"):
			want = append(want, "k "+fs[0])
		case len(fs) == 1 && inSwitch:
			want = append(want, "u")
		}
	}
	if len(want) < 876 {
		t.Fatalf("the golden has %d lines", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("switches and their frames (-perf script +reader):\n%s", d)
	}
	if first := got[:14]; !strings.HasPrefix(first[0], "4371 2475741737202") || first[1] != "k ffffffff82265908" || first[6] != "u" || first[13] != "u" {
		t.Errorf("first switch %q", first)
	}
}

// TestCallchainsInterned: equal callchains share one stack table entry;
// without -g nothing is added.
func TestCallchainsInterned(t *testing.T) {
	data := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "sched-g.data"))
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[trace.StackID]bool{}
	switches := 0
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			switches++
			seen[e.Stack] = true
		} else if e.Stack != 0 {
			t.Fatalf("a %s event has stack %d", e.Kind, e.Stack)
		}
	}
	if n := len(r.Meta().Stacks); n != len(seen) || n >= switches {
		t.Errorf("%d stacks for %d distinct ids over %d switches", n, len(seen), switches)
	}
	plain, err := NewReader(bytes.NewReader(testtraces.Load(t, filepath.Join(testtraces.Repo(t), "pipe.perf.data"))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadAll(plain); err != nil {
		t.Fatal(err)
	}
	if n := len(plain.Meta().Stacks); n != 0 {
		t.Errorf("pipe.perf.data (no -g): %d stacks", n)
	}
}
