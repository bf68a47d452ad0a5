package perfdata

import (
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// NextBatch delivers exactly the events of Next, in the same order, for any
// batch size, then the terminal error (io.EOF) with n = 0, again on every
// later call. The trace is the shipped messaging.2cpu.perf.data (6046
// events, lost events, both CPUs interleaved).
func TestNextBatchEqualsNext(t *testing.T) {
	const path = "../../testdata/traces/messaging.2cpu.perf.data"
	_, want := readAll(t, path)
	if len(want) != 6046 {
		t.Fatalf("%d events in %s, want 6046", len(want), path)
	}
	for _, size := range []int{1, 7, 4096, len(want) + 1} {
		r := openReader(t, path)
		var _ trace.BatchSource = r
		buf := make([]trace.Event, size)
		var got []trace.Event
		for {
			n, err := r.NextBatch(buf)
			if err != nil {
				if n != 0 || !errors.Is(err, io.EOF) {
					t.Fatalf("size %d: NextBatch = %d, %v; want 0, io.EOF", size, n, err)
				}
				break
			}
			if n < 1 || n > size {
				t.Fatalf("size %d: NextBatch wrote %d events", size, n)
			}
			got = append(got, buf[:n]...)
		}
		if n, err := r.NextBatch(buf); n != 0 || err != io.EOF {
			t.Errorf("size %d: NextBatch after the end = %d, %v; want 0, io.EOF", size, n, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("size %d: NextBatch differs from Next (-want +got):\n%s", size, d)
		}
	}
}
