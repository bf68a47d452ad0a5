package tracedat

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestTruncatedFile: a trace.dat cut short (`head -c`) delivers the events
// of the whole pages before the cut, every one an event of the whole
// file, with a counted "truncated-file" warning that says how many bytes
// of the CPU's data are missing, instead of an error:
//   - the hand-made file (8 events) cut a quarter page into CPU 1's last
//     page (512 bytes: its 128 bytes are left out with the 384 missing,
//     and its 2 events);
//   - pipe-multi.v6.dat cut at 2412544 bytes, 126976 bytes before the end
//     of CPU 1's data (the 2539520-byte file's last).
//
// trace-cmd's v7 files (pipe-multi.v7zstd.dat, 225298 bytes) keep an
// instance's CPU table (its BUFFER option) in an options section after its
// data: tv-helperE's data section is at 129529 (its CPU 0 at 131072, 7
// chunks to 177913; CPU 1 at 180224, 6 chunks to 225062, the section's
// end) and the options section that locates them at 225062. Cut before
// it, the file used to give no event at all (only the empty top
// instance's option, at 129470, was there); now the data section is split
// into its CPUs by its own framing and read, with a truncated-options
// warning and one per CPU cut with the bytes missing from the first chunk
// the cut leaves partial:
//   - cut at 200000: CPU 0 whole (every CPU 0 event of the whole file),
//     CPU 1 up to its chunk at 195302: 225062-195302 = 29760 bytes missing;
//   - cut at 140000: CPU 0 up to its chunk at 138384 (at most
//     225062-138384 = 86678 bytes missing: its own end is in the missing
//     option), CPU 1 has no data before the cut.
//
// Cut at 100000, before the first options section (128556, which points at
// the event formats and gives the CPU count), no event can be located,
// which the error says.
func TestTruncatedFile(t *testing.T) {
	key := func(e trace.Event) string {
		return fmt.Sprintf("%s %d %d %d %d", e.Kind, e.Time, e.CPU, e.TID, e.NextTID)
	}
	good := handmade(t, -2)
	v6 := load(t, "pipe-multi.v6.dat.gz")
	v7 := load(t, "pipe-multi.v7zstd.dat")
	for _, c := range []struct {
		name   string
		whole  []byte
		cut    int
		events int // events read from the cut file
		warn   string
		// more warnings (key: message part); full: CPUs whose events
		// are all there
		more map[string]string
		full []trace.CPU
	}{
		{name: "handmade", whole: good, cut: len(good) - testPage/4, events: 7, warn: "CPU 1: the file ends at offset 3968, inside the CPU's data (which should end at 4096): 512 bytes missing"},
		{name: "v6", whole: v6, cut: 2412544, events: 8354, warn: "CPU 1: the file ends at offset 2412544, inside the CPU's data (which should end at 2539520): 126976 bytes missing"},
		{name: "v7 in CPU 1", whole: v7, cut: 200000, events: 7828, full: []trace.CPU{0},
			warn: "CPU 1: the file ends at offset 200000, inside the CPU's data (which should end at 225062): 29760 bytes missing; the CPU's whole chunks before the cut were read",
			more: map[string]string{"truncated-options": "trace.dat: the file ends at 200000 bytes, before its options section at offset 225062, which names the instances before it and locates their CPU data; " +
				"read the CPU data of the flyrecord section at offset 129529 (instance name unknown): CPUs 0-1, numbered in the order trace-cmd writes them"}},
		{name: "v7 in CPU 0", whole: v7, cut: 140000, events: 1776,
			warn: "CPU 0: the file ends at offset 140000, inside the CPU's data (in a section that should end at 225062): at most 86678 bytes missing",
			more: map[string]string{"truncated-options": "(instance name unknown): CPU 0, numbered in the order trace-cmd writes them; CPU 1 of 2: no data before the cut"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, _, err := readBytes(c.whole)
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]int{}
			for _, e := range whole {
				all[key(e)]++

			}
			got, meta, err := readBytes(c.whole[:c.cut])
			if err != nil {
				t.Fatalf("cut at %d: %v", c.cut, err)
			}
			if len(got) != c.events {
				t.Errorf("%d events, want %d (the whole file has %d)", len(got), c.events, len(whole))
			}
			// The cut CPU is unobserved from its last event to the
			// trace's last (one Count 0 window and its KindLost event,
			// the file's last; counted in events), unless it holds the
			// last event (v7 cut in CPU 0, CPU 1 without data).
			var lastTime, cutLast int64
			cutCPU := trace.CPU(-1)
			if !strings.HasPrefix(c.name, "v7 in CPU 0") {
				cutCPU = 1
			}
			for _, e := range got {
				if e.Kind != trace.KindLost {
					lastTime = max(lastTime, e.Time)
					if e.CPU == cutCPU {
						cutLast = max(cutLast, e.Time)
					}
				}
			}
			var lost []trace.LostWindow
			for _, w := range meta.Lost {
				if w.Count == 0 {
					lost = append(lost, w)
				}
			}
			// (The window starts at the CPU's last record, which may be
			// one that is no sched event: not before its last event.)
			if cutCPU < 0 && len(lost) != 0 || cutCPU >= 0 && (len(lost) != 1 || lost[0].CPU != cutCPU || lost[0].Start < cutLast || lost[0].Start >= lastTime || lost[0].End != lastTime ||
				got[len(got)-1].Kind != trace.KindLost || got[len(got)-1].CPU != cutCPU || got[len(got)-1].Time != lastTime) {
				t.Errorf("unobserved windows %+v, last event %v; want CPU %d from its last event (%d) to %d", lost, got[len(got)-1], cutCPU, cutLast, lastTime)
			}
			seen := map[string]int{}
			for _, e := range got {
				if e.Kind == trace.KindComm || e.Kind == trace.KindLost {
					continue // the names that events show, when they first show them; the cut's window
				}
				k := key(e)
				if seen[k] >= all[k] {
					t.Fatalf("event %s is not one of the whole file's", k)
				}
				seen[k]++
			}
			var msgs []string
			found := false
			for _, w := range meta.Warnings.List() {
				msgs = append(msgs, w.Key+": "+w.Message)
				found = found || (w.Key == "truncated-file" && w.Count == 1 && strings.Contains(w.Message, c.warn))
			}
			if !found {
				t.Errorf("no truncated-file warning %q in\n%s", c.warn, strings.Join(msgs, "\n"))
			}
			for k, m := range c.more {
				ok := false
				for _, w := range meta.Warnings.List() {
					ok = ok || w.Key == k && w.Count == 1 && strings.Contains(w.Message, m)
				}
				if !ok {
					t.Errorf("no %s warning %q in\n%s", k, m, strings.Join(msgs, "\n"))
				}
			}
			for _, cpu := range c.full {
				n, m := 0, 0
				for _, e := range whole {
					if e.CPU == cpu && e.Kind != trace.KindComm {
						n++
					}
				}
				for _, e := range got {
					if e.CPU == cpu && e.Kind != trace.KindComm {
						m++
					}
				}
				if n != m {
					t.Errorf("CPU %d: %d events, want all %d of the whole file", cpu, m, n)
				}
			}
		})
	}
	_, err := Open(bytes.NewReader(v7[:100000]), Options{})
	if want := "the file ends at 100000 bytes, before its options section at offset 128556, which locates the CPU data"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("v7 cut at 100000: error %v, want %q", err, want)
	}
}

// TestCutInOptionsSection: a v7 file cut inside its last options section
// (at offset 225062 of pipe-multi.v7zstd.dat: a 16-byte header, then 93
// bytes of data, to 225171) says it ends inside that section, not
// "before" it: the cut at 225070 was reported as "ends at 225070 bytes,
// before its options section at offset 225062".
func TestCutInOptionsSection(t *testing.T) {
	v7 := load(t, "pipe-multi.v7zstd.dat")
	for _, c := range []struct {
		cut  int
		want string
	}{
		{225062, "trace.dat: the file ends at 225062 bytes, before its options section at offset 225062, which names"},
		{225070, "trace.dat: the file ends at 225070 bytes, inside the 16-byte header of its options section at offset 225062, which names"},
		{225100, "trace.dat: the file ends at 225100 bytes, inside its options section at offset 225062 (16 + 93 bytes, to offset 225171), which names"},
	} {
		t.Run(fmt.Sprint(c.cut), func(t *testing.T) {
			_, meta, err := readBytes(v7[:c.cut])
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, w := range meta.Warnings.List() {
				if w.Key == "truncated-options" {
					got = w.Message
				}
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("truncated-options: %q\nwant it to start %q", got, c.want)
			}
		})
	}
}

// TestCutTail: a v7 file cut in the strings section trace-cmd writes after
// its last options section (the section names; no option locates it) gets
// a truncated-file warning; it was read with none. pipe-multi.v7zstd.dat
// (225298 bytes) ends with its last options section at 225062 (16 + 93
// bytes, to 225171) and the strings section at 225171: id 15, compressed,
// 16 + 111 bytes to the file's end, 144 bytes of strings; the section
// headers' string ids go up to 136 (the strings section's own; 128, the
// last options section's, without it). Walking
// the headers from offset 37 (after the compression header) gives these
// offsets. Cut
//   - at 225297 and 225198: inside the strings section, 1 and 100 bytes
//     missing;
//   - at 225180: inside its 16-byte header;
//   - at 225171, after the whole options section: no strings at all, yet
//     the headers name offsets up to 128.
//
// The whole file and the uncompressed pipe-multi.v7none.dat (whose strings
// section is whole) get no such warning.
func TestCutTail(t *testing.T) {
	v7 := load(t, "pipe-multi.v7zstd.dat")
	for _, c := range []struct {
		data []byte
		want string
	}{
		{v7[:225297], "trace.dat: the file ends at 225297 bytes, inside its strings section (the section names; no event is in it) at offset 225171 (16 + 111 bytes, to offset 225298): 1 bytes missing"},
		{v7[:225198], "trace.dat: the file ends at 225198 bytes, inside its strings section (the section names; no event is in it) at offset 225171 (16 + 111 bytes, to offset 225298): 100 bytes missing"},
		{v7[:225180], "trace.dat: the file ends at 225180 bytes, inside the 16-byte header of the section at offset 225171"},
		{v7[:225171], "trace.dat: the file ends at 225171 bytes, after a whole section, but its section headers name strings up to offset 128 and it holds 0 bytes of strings"},
		{v7, ""},
		{load(t, "pipe-multi.v7none.dat.gz"), ""},
	} {
		t.Run(fmt.Sprint(len(c.data)), func(t *testing.T) {
			evs, meta, err := readBytes(c.data)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 11015 {
				t.Errorf("%d events, want the whole file's 11015", len(evs))
			}
			got := ""
			for _, w := range meta.Warnings.List() {
				if w.Key == "truncated-file" {
					got = w.Message
				}
			}
			if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
				t.Errorf("truncated-file warning %q, want %q", got, c.want)
			}
		})
	}
}

// TestJoinedFiles: a trace.dat with another joined after it (cat a.dat
// a.dat) reads as the first, and says that the bytes after its last section
// are another trace.dat, not read: pipe-multi.v6.dat's last section is CPU
// 1's data, ending at 2539520, the file's length; pipe-multi.v7none.dat's
// is its strings section, ending at 2539771, the file's length. The
// instances' note names the empty top instance as such.
func TestJoinedFiles(t *testing.T) {
	for _, c := range []struct {
		name string
		end  int
	}{{"pipe-multi.v6.dat.gz", 2539520}, {"pipe-multi.v7none.dat.gz", 2539771}} {
		a := load(t, c.name)
		if len(a) != c.end {
			t.Fatalf("%s: %d bytes, want %d", c.name, len(a), c.end)
		}
		read := func(b []byte) ([]trace.Event, *trace.Meta) {
			r, err := Open(bytes.NewReader(b), Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			evs, err := trace.ReadAll(r)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return evs, r.Meta()
		}
		alone, ma := read(a)
		joined, mj := read(append(append([]byte(nil), a...), a...))
		if len(joined) != len(alone) {
			t.Errorf("%s joined: %d events, alone %d", c.name, len(joined), len(alone))
		}
		want := fmt.Sprintf("trace.dat: %d bytes follow the file's last section (it ends at offset %d of %d): another trace.dat (its magic is there: `tail -c +%d` of the file is that one); not read, its events are not in the trace",
			c.end, c.end, 2*c.end, c.end+1)
		got := ""
		for _, w := range mj.Warnings.List() {
			if w.Key == "damaged-trailing-bytes" {
				got = w.Message
			}
		}
		if got != want {
			t.Errorf("%s joined: warning %q\nwant %q", c.name, got, want)
		}
		for _, w := range ma.Warnings.List() {
			if w.Key == "damaged-trailing-bytes" {
				t.Errorf("%s alone: %s", c.name, w.Message)
			}
			if w.Key == "tracedat-instances" && w.Message != `trace.dat: read instance "tv-helperE"; not read: the top instance (empty)` {
				t.Errorf("%s: %s", c.name, w.Message)
			}
		}
	}
}

// TestTruncatedNamesEachCPU (new-user pass 112 F4): a v6 file cut inside
// CPU 0's second page, so that CPU 1's page lies wholly after the cut: the
// truncated-file warning names both: CPU 0 cut inside its data (its second
// page missing), CPU 1 before its data (its one page). Before, it said CPU 1's line
// twice ("inside the CPU's data", 2 times) and never CPU 0.
func TestTruncatedNamesEachCPU(t *testing.T) {
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5))}, nil)
	data := switchTrace(t, cpu0, page(1500, -1, sw(t, 5)))
	pg := len(cpu0) / 2                    // the test's page size
	at := cpuOffset(t, data, 0) + pg + 100 // inside CPU 0's second page
	r, err := Open(bytes.NewReader(data[:at]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	trace.ReadAll(r)
	var w trace.Warning
	for _, x := range r.Meta().Warnings.List() {
		if x.Key == "truncated-file" {
			w = x
		}
	}
	all := strings.Join(append([]string{w.Message}, w.Others...), "\n")
	cpu1 := cpuOffset(t, data, 1)
	for _, want := range []string{
		fmt.Sprintf("CPU 0: the file ends at offset %d, inside the CPU's data (which should end at %d): %d bytes missing", at, cpu1, pg),
		fmt.Sprintf("CPU 1: the file ends at offset %d, before the CPU's data (offset %d to %d): all %d bytes missing", at, cpu1, cpu1+pg, pg),
	} {
		if w.Count != 2 || !strings.Contains(all, want) {
			t.Errorf("truncated-file (%d times):\n%s\nwant %q", w.Count, all, want)
		}
	}
}
