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
// trace-cmd's v7 files (pipe-multi.v7zstd.dat) keep an instance's CPU
// table in an options section after its data: cut before the section of
// the top instance (at 225062) the file says which instance it lacks and
// reads the one before (tv-helperE's is at 128556); cut before that one no
// event can be located, which the error says.
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
	}{
		{"handmade", good, len(good) - testPage/4, 6, "CPU 1: the file ends at offset 3968, inside the CPU's data (which should end at 4096): 512 bytes missing"},
		{"v6", v6, 2412544, 8353, "CPU 1: the file ends at offset 2412544, inside the CPU's data (which should end at 2539520): 126976 bytes missing"},
		{"v7", v7, 200000, 0, "the file ends at 200000 bytes, before its options section at offset 225062"},
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
			seen := map[string]int{}
			for _, e := range got {
				if e.Kind == trace.KindComm {
					continue // the names that events show, when they first show them
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
		})
	}
	_, err := Open(bytes.NewReader(v7[:100000]), Options{})
	if want := "the file ends at 100000 bytes, before its options section at offset 128556, which locates the CPU data"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("v7 cut at 100000: error %v, want %q", err, want)
	}
}
