package tvf

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestGroupsFrames: the groups a writer learns as it goes (AddGroups) go
// in a groups frame ahead of the block whose events name them, so that a
// file cut short, without the trailer that holds the whole table, still
// names its cgroups and its processes' autogroups (new-user pass 70 F3:
// "cgroup id 9223372036854775809", the autogroups lost). Two blocks: the
// first names /a (id 5) and process 100's autogroup /autogroup-3, the
// second /b (id 7). Cut inside the second block, the file names all
// three; process 100's events in the root group (id 1) carry its
// autogroup's id, as with the trailer's table; the warning says only the
// settings are missing. Read whole, from a file or a stream, the tables
// are the trailer's (here the same) and no warning is given.
func TestGroupsFrames(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Autogroup: 1})
	if err != nil {
		t.Fatal(err)
	}
	ag := map[trace.PID]string{100: "/autogroup-3"}
	w.AddGroups(map[uint64]string{trace.RootCgroupID: "/", 5: "/a"}, ag)
	ev := func(i int, cg uint64) trace.Event {
		e := trace.NewEvent(int64(1000+i), 0, trace.KindSwitch)
		e.TID, e.PID, e.NextTID, e.NextPID, e.Cgroup = 100, 100, 200, 200, cg
		return e
	}
	for i := range BlockEvents {
		cg := uint64(5)
		if i%2 == 0 {
			cg = trace.RootCgroupID
		}
		if err := w.Write(ev(i, cg)); err != nil {
			t.Fatal(err)
		}
	}
	w.AddGroups(map[uint64]string{7: "/b", 5: "/a"}, ag) // (only /b is new)
	for i := range 10 {
		if err := w.Write(ev(BlockEvents+i, 7)); err != nil {
			t.Fatal(err)
		}
	}
	all := map[uint64]string{trace.RootCgroupID: "/", 5: "/a", 7: "/b"}
	w.SetCgroups(all)
	w.SetTaskAutogroups(ag)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	agID, _ := trace.AutogroupCgroupID("/autogroup-3")
	check := func(name string, r io.Reader, warn bool) {
		evs, tr := decodeAll(t, r)
		m := tr.Meta()
		for id, p := range all {
			if m.Cgroups[id] != p {
				t.Errorf("%s: cgroup %d named %q, want %q (table %v)", name, id, m.Cgroups[id], p, m.Cgroups)
			}
		}
		if m.Cgroups[agID] != "/autogroup-3" {
			t.Errorf("%s: autogroup id %d named %q", name, agID, m.Cgroups[agID])
		}
		root, a := 0, 0
		for _, e := range evs {
			switch e.Cgroup {
			case trace.RootCgroupID:
				root++
			case agID:
				a++
			}
		}
		if root != 0 || a != BlockEvents/2 {
			t.Errorf("%s: %d events in the root group, %d in the autogroup; want 0 and %d", name, root, a, BlockEvents/2)
		}
		if got := warning(tr, "truncated-cgroups"); got != 0 != warn {
			t.Errorf("%s: truncated-cgroups warnings %d (%v)", name, got, m.Warnings.List())
		}
	}
	check("whole", bytes.NewReader(file), false)
	check("stream", io.MultiReader(bytes.NewReader(file)), false)
	offs := blockOffsets(file)
	if len(offs) != 2 {
		t.Fatalf("%d blocks, want 2", len(offs))
	}
	check("cut", bytes.NewReader(file[:offs[1]+frameHeaderSize+10]), true)
}

// TestLossesAhead: a capture's loss, which traceview record writes as a
// KindLost when it notices it (the window's end), is delivered at the
// window's start with its length known ahead (Event.Runtime), as
// perf.data's are, and the recorder's own event is not delivered again:
// so a delay on another CPU that ends inside the window is known lossy
// when it ends (new-user pass 79 F1: a 110.403 ms max delay inside CPU
// 1's window of 17814 lost events was counted). Events at 100..1000 on
// CPU 0; CPU 1 lost 7 events from 300 to 700, its KindLost written at 700.
// Read back: the KindLost at 300 (Runtime 400, Count 7) right before the
// first event at or after 300, none at 700. A converted file (Source set)
// keeps its events as written.
func TestLossesAhead(t *testing.T) {
	for _, source := range []string{"", "perf.data"} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Header{Tool: "traceview record", Source: source})
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(1); i <= 10; i++ {
			e := trace.NewEvent(i*100, 0, trace.KindSwitch)
			e.TID, e.NextTID = 1, 2
			if i == 7 {
				l := trace.NewEvent(700, 1, trace.KindLost)
				l.Count = 7
				if err := w.Write(l); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		w.SetLost([]trace.LostWindow{{CPU: 1, Count: 7, Start: 300, End: 700}})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		evs, _ := decodeAll(t, bytes.NewReader(buf.Bytes()))
		var got []string
		for _, e := range evs {
			if e.Kind == trace.KindLost {
				got = append(got, fmt.Sprintf("%d cpu%d n%d r%d", e.Time, e.CPU, e.Count, e.Runtime))
			}
		}
		want := []string{"300 cpu1 n7 r400"}
		if source != "" {
			want = []string{"700 cpu1 n7 r0"}
		}
		if !slices.Equal(got, want) || len(evs) != 11 {
			t.Errorf("source %q: losses %v in %d events, want %v in 11", source, got, len(evs), want)
		}
		if source == "" && (evs[2].Kind != trace.KindLost || evs[3].Time != 300) {
			t.Errorf("the loss not right before the event at 300: %v, %v", evs[2].Kind, evs[3].Time)
		}
	}
}
