package perfdata

import (
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// SkipKinds leaves out the asked kinds and changes nothing else: the
// remaining events are the same, in the same order, with the same fields.
func TestSkipKinds(t *testing.T) {
	const path = "../../../shared/traces/pipe.perf.data"
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/traces absent")
	}
	read := func(skip ...trace.Kind) []trace.Event {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if !trace.SkipKinds(r, skip...) {
			t.Fatal("perfdata.Reader does not implement trace.KindSkipper")
		}
		var out []trace.Event
		for {
			e, err := r.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
	}
	all := read()
	skipped := read(trace.KindRuntime, trace.KindWaking)
	var want []trace.Event
	for _, e := range all {
		if e.Kind != trace.KindRuntime && e.Kind != trace.KindWaking {
			want = append(want, e)
		}
	}
	// pipe.perf.data: 2056 sched_stat_runtime and 1018 sched_waking samples
	// (perf report --stats in pipe.meta.txt).
	if len(all)-len(want) != 2056+1018 {
		t.Errorf("%d runtime+waking events, want 3074", len(all)-len(want))
	}
	if d := cmp.Diff(want, skipped); d != "" {
		t.Errorf("events differ when skipping (-want +got):\n%s", d)
	}
}
