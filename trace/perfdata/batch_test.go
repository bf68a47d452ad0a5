package perfdata

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// NextBatch delivers exactly the events of Next, in the same order, for any
// batch size, then the terminal error (io.EOF) with n = 0, again on every
// later call. The trace is the shipped messaging.2cpu.perf.data (6047
// events, among them the FORK record perf wrote before its first sample;
// lost events, both CPUs interleaved).
func TestNextBatchEqualsNext(t *testing.T) {
	const path = "../../testdata/traces/messaging.2cpu.perf.data"
	_, want := readAll(t, path)
	if len(want) != 6047 {
		t.Fatalf("%d events in %s, want 6047", len(want), path)
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

// NextPointers hands over exactly the events of Next, in the same order, for
// any batch size, and each batch's events stay as they were while later
// batches are read (here three batches in turn, as the prefetcher keeps
// several in flight): a batch is checked only when it is read into again.
// A Next call between batches is allowed. Every perf.data of testdata and of
// the shared traces (damaged and event-less ones included: the same
// terminal error, with no events, again on a later call).
func TestNextPointersEqualsNext(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/traces/*.data")
	shared, _ := filepath.Glob(filepath.Join(sharedTraces, "*.perf.data"))
	paths = append(paths, shared...)
	if len(paths) < 5 {
		t.Fatalf("%d perf.data files found", len(paths))
	}
	for _, path := range paths {
		var want []trace.Event
		r := openReader(t, path)
		wantErr := func() error {
			for {
				e, err := r.Next()
				if err != nil {
					return err
				}
				want = append(want, e)
			}
		}()
		for _, size := range []int{1, 7, 300, 4096} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), size), func(t *testing.T) {
				r := openReader(t, path)
				var _ trace.PointerSource = r
				var ring [3]*trace.EventBatch
				for i := range ring {
					ring[i] = trace.NewEventBatch(size)
				}
				var got []trace.Event
				take := func(b *trace.EventBatch) {
					for _, e := range b.Events {
						got = append(got, *e)
					}
					b.Events = b.Events[:0]
				}
				// takeAll takes the batches before the i-th, oldest first.
				takeAll := func(i int) {
					for j := range ring {
						take(ring[(i+j)%len(ring)])
					}
				}
				var err error
				for i := 0; ; i++ {
					b := ring[i%len(ring)]
					take(b)
					if i == 5 {
						takeAll(i)
						e, err := r.Next()
						if err == nil {
							got = append(got, e)
						}
					}
					if err = r.NextPointers(b); err != nil {
						if len(b.Events) != 0 {
							t.Errorf("NextPointers gave %d events with %v", len(b.Events), err)
						}
						takeAll(i)
						break
					}
					if n := len(b.Events); n < 1 || n > size {
						t.Fatalf("NextPointers gave %d events", n)
					}
				}
				if (err == nil) != (wantErr == nil) || err.Error() != wantErr.Error() {
					t.Errorf("NextPointers ended with %v, Next with %v", err, wantErr)
				}
				if again := r.NextPointers(ring[0]); len(ring[0].Events) != 0 || again == nil || again.Error() != err.Error() {
					t.Errorf("NextPointers after the end = %d events, %v; want none, %v", len(ring[0].Events), again, err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("NextPointers differs from Next (-want +got):\n%s", d)
				}
			})
		}
	}
}
