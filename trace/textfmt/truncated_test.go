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
