package chromejson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// FuzzWrite: no event stream (testsched.FuzzEvents; the corpus keeps the
// stream that once dated a recovered run before a CPU's first switch) makes
// Write fail or panic, or write invalid JSON or a slice of negative
// duration.
func FuzzWrite(f *testing.F) {
	testsched.Fuzz(f, func(t *testing.T, evs []trace.Event) {
		var buf bytes.Buffer
		if err := Write(&buf, trace.NewSliceSource(evs, nil), Options{}); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatalf("invalid JSON:\n%s", buf.String())
		}
		for _, e := range gDecodePerfetto(t, buf.Bytes()) {
			if e.Dur < 0 {
				t.Fatalf("slice %q on %d/%d: duration %g us", e.Name, e.Pid, e.Tid, e.Dur)
			}
		}
	})
}
