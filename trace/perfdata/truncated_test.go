package perfdata

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestTruncatedFile reads nice.2cpu.perf.data cut short (`head -c`): inside
// its data section (offset 1224, 239672 bytes: a cut at 100000 leaves 98776
// bytes of records and 140896 missing, the last record cut after 56 of its
// 88 bytes at offset 99944), and after the data inside the feature
// sections. Each copy gives the events of its whole records, every one an
// event of the whole file, with a counted warning that says how many bytes
// are missing; the tracepoint formats (a feature section) come from the
// recording kernel's tracefs copy (killed-record.tracefs, the same kernel).
// The cut in the data falls in the second of the file's rounds, which holds
// CPU 0's buffer only (722 samples) before the cut: CPU 1, last seen at
// 687.429452356 s in the first round, is unobserved from there to the
// last event read (688.496691778 s), one Count 0 lost event at the window's
// start, its length in Runtime (TestCutRound has the details).
func TestTruncatedFile(t *testing.T) {
	useRecordingTracefs(t)
	b := readFile(t, "../../testdata/traces/nice.2cpu.perf.data")
	key := func(e trace.Event) string {
		return fmt.Sprintf("%s %d %d %d %d", e.Kind, e.Time, e.CPU, e.TID, e.NextTID)
	}
	whole, _, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]int{}
	for _, e := range whole {
		all[key(e)]++
	}
	_, dataEnd := dataSection(b)
	for _, c := range []struct {
		name   string
		cut    int
		events int    // events of the whole records before the cut
		warn   string // the truncated-file warning
		unseen int    // Count 0 lost events: CPUs the cut round lacks
	}{
		// Cut before HEADER_SAMPLE_TIME, the reader takes the first sample
		// time from the data's first round (scanFirstSample): perf's FORK
		// record from before it (687.367811 s, perf forking its thread
		// 13336) is kept, as the whole file keeps it (it was dropped as a
		// repeat of a sched_process_fork sample until new-user pass 61 F4).
		{"in data", 100000, 886, "the file ends 98776 bytes into its 239672-byte data section at offset 1224: 140896 bytes of records are missing", 1},
		{"in feature table", dataEnd + 100, len(whole), "the file ends 100 bytes after its data section, inside the feature table (336 bytes at offset 240896)", 0},
		{"in features", len(b) - 20, len(whole), fmt.Sprintf("the file ends inside its feature sections (%d bytes, feature", len(b)-20), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, pipe := range []bool{false, true} {
				got, r, err := drain(b[:c.cut], pipe)
				if err != nil {
					t.Fatalf("pipe %v: %v", pipe, err)
				}
				if len(got) != c.events+c.unseen {
					t.Errorf("pipe %v: %d events, want %d and %d unobserved CPUs", pipe, len(got), c.events, c.unseen)
				}
				seen := map[string]int{}
				var known []trace.Event // the events of the whole file's records
				unseen := 0
				for _, e := range got {
					if e.Kind == trace.KindLost && e.Count == 0 && e.Runtime > 0 {
						unseen++ // an unobserved CPU's window, known ahead
						continue
					}
					known = append(known, e)
				}
				if unseen != c.unseen {
					t.Errorf("pipe %v: %d unobserved-CPU lost events, want %d", pipe, unseen, c.unseen)
				}
				for _, e := range known {
					if k := key(e); seen[k] >= all[k] {
						t.Fatalf("pipe %v: event %s is not one of the whole file's", pipe, k)
					} else {
						seen[k]++
					}
				}
				var msgs []string
				found := false
				for _, w := range r.Meta().Warnings.List() {
					msgs = append(msgs, w.Key+": "+w.Message)
					if w.Key == "truncated-file" && w.Count == 1 && strings.Contains(w.Message, c.warn) {
						found = true
					}
				}
				if !found {
					t.Errorf("pipe %v: no truncated-file warning %q in\n%s", pipe, c.warn, strings.Join(msgs, "\n"))
				}
			}
		})
	}
}
