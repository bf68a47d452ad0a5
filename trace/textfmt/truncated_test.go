package textfmt

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTruncatedFile cuts each of the repo's text traces of one run
// (testdata/traces/pipe-multi.*: ftrace's trace file, trace-cmd report,
// perf script) 10 bytes into the line after its first 40 %, as `head -c`
// would: the events are exactly those of the whole lines before the cut
// (the same file cut at that line's start), and the cut line is a counted
// truncated-file warning that names it, not an error.
func TestTruncatedFile(t *testing.T) {
	for _, c := range []struct{ file, format string }{
		{"pipe-multi.ftrace.txt.gz", FormatFtrace},
		{"pipe-multi.report.txt.gz", FormatTraceCmd},
		{"pipe-multi.script.txt.gz", FormatPerf},
	} {
		t.Run(c.format, func(t *testing.T) {
			f, err := os.Open("../../testdata/traces/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			start := len(b)*2/5 + bytes.IndexByte(b[len(b)*2/5:], '\n') + 1 // a line's first byte
			line := bytes.Count(b[:start], []byte("\n")) + 1
			whole, err := drain(NewReader(bytes.NewReader(b[:start]), c.format))
			if err != nil || len(whole) < 1000 {
				t.Fatalf("whole lines: %d events, %v", len(whole), err)
			}
			r := NewReader(bytes.NewReader(b[:start+10]), c.format)
			got, err := drain(r)
			if err != nil {
				t.Fatalf("cut: %v", err)
			}
			if diff := cmp.Diff(whole, got); diff != "" {
				t.Errorf("cut: events differ from the whole lines' (-want +got):\n%s", diff)
			}
			want := fmt.Sprintf("line %d: the input ends inside it (10 bytes, no newline)", line)
			found := false
			for _, w := range r.Meta().Warnings.List() {
				found = found || (w.Key == "truncated-file" && w.Count == 1 && strings.HasPrefix(w.Message, want))
			}
			if !found {
				t.Errorf("no truncated-file warning %q in %+v", want, r.Meta().Warnings.List())
			}
		})
	}
}

// TestEntriesCount checks the warning of a file holding fewer (or more)
// event lines than its header's entries-in-buffer: 4 counted, 2 read (the
// non-sched line is an entry too); 1 counted, 2 read.
func TestEntriesCount(t *testing.T) {
	const sw = "  a-5 [000] d..2. 100.00000%d: sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
	const other = "  a-5 [000] d..2. 100.000009: irq_handler_entry: irq=1 name=i8042\n"
	for _, tc := range []struct {
		name, in, key, want string
	}{
		{"short", "# entries-in-buffer/entries-written: 4/4   #P:1\n" + fmt.Sprintf(sw, 1) + other,
			"text-entries-short", "the header says 4 entries, the file holds 2: 2 events missing, the file cut short at its end or lines lost inside it (the header does not say where)"},
		{"extra", "# entries-in-buffer/entries-written: 1/1   #P:1\n" + fmt.Sprintf(sw, 1) + fmt.Sprintf(sw, 2),
			"text-entries-extra", "the header says 1 entries, the file holds 2: more lines than the tracer wrote (files joined?)"},
		{"equal", "# entries-in-buffer/entries-written: 2/2   #P:1\n" + fmt.Sprintf(sw, 1) + other, "", ""},
		// Every line of CPU 0 of 2 (a per_cpu/cpu0/trace file, whose
		// header counts both CPUs' events): not checked, and said so
		// (new-user pass 48 F3: "2 events missing at its end").
		{"per-cpu", "# entries-in-buffer/entries-written: 4/4   #P:2\n" + fmt.Sprintf(sw, 1) + other,
			"text-entries-per-cpu", "the header says 4 entries and the file holds 2, all of CPU 0 of the machine's 2: a per_cpu/cpuN/trace file, whose header counts every CPU's events, so its count cannot be checked"},
		// NULs over the end of the second line and the start of the third
		// (new-user pass 38 F4: the two were joined as one event with a
		// multi-line name, and the count said "at its end"): the damaged
		// line is skipped with a garbled-line warning, the count names it.
		{"nul", "# entries-in-buffer/entries-written: 4/4   #P:1\n" + fmt.Sprintf(sw, 1) + fmt.Sprintf(sw, 2)[:20] + strings.Repeat("\x00", 30) + fmt.Sprintf(sw, 3)[60:] + fmt.Sprintf(sw, 4),
			"text-entries-short", "the header says 4 entries, the file holds 2: 2 events missing, in the damaged line skipped (text-garbled-line) or at its end (cut short)"},
		// NULs inside a payload, the line's end still a sched_switch's
		// (new-user pass 40 F2: read as one event, no word of the line).
		{"nul-payload", "# entries-in-buffer/entries-written: 4/4   #P:1\n" + fmt.Sprintf(sw, 1) + fmt.Sprintf(sw, 2)[:70] + strings.Repeat("\x00", 30) + fmt.Sprintf(sw, 3)[90:] + fmt.Sprintf(sw, 4),
			"text-entries-short", "the header says 4 entries, the file holds 2: 2 events missing, in the damaged line skipped (text-garbled-line) or at its end (cut short)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), "test")
			if _, err := drain(r); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, w := range r.Meta().Warnings.List() {
				got[w.Key] = w.Message
			}
			for _, k := range []string{"text-entries-short", "text-entries-extra", "text-entries-per-cpu"} {
				want := ""
				if k == tc.key {
					want = tc.want
				}
				if got[k] != want {
					t.Errorf("%s: %q; want %q", k, got[k], want)
				}
			}
		})
	}
}
