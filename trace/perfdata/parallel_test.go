package perfdata

import (
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// readWith reads a perf.data file with n decoding goroutines (-1: none):
// every event, the terminal error, the warnings and the sample counts.
func readWith(t *testing.T, path string, n int) ([]trace.Event, error, []trace.Warning, map[string]uint64, uint64) {
	t.Helper()
	r := openReader(t, path)
	defer r.Close()
	r.Decoders = n
	var evs []trace.Event
	buf := make([]trace.Event, 100)
	for {
		k, err := r.NextBatch(buf)
		evs = append(evs, buf[:k]...)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return evs, err, r.Meta().Warnings.List(), r.SampleCounts(), r.predecoded
		}
	}
}

// Samples decoded by worker goroutines (chunks of 4 KiB, so that every
// trace is cut into many, at any record boundary) give exactly the
// events, warnings and counts of the serial reader, on every perf.data of
// testdata (damaged, killed and per-process recordings included).
func TestParallelDecodeEqualsSerial(t *testing.T) {
	oldChunk, oldMin := predecodeChunk, predecodeMin
	predecodeChunk, predecodeMin = 4096, 0
	t.Cleanup(func() { predecodeChunk, predecodeMin = oldChunk, oldMin })
	paths, _ := filepath.Glob("../../testdata/traces/*.data")
	if len(paths) < 5 {
		t.Fatalf("only %d perf.data files in testdata", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, wantErr, wantW, wantN, _ := readWith(t, path, -1)
			for _, n := range []int{1, 3} {
				got, gotErr, gotW, gotN, pre := readWith(t, path, n)
				if runtime.GOOS == "linux" && filepath.Base(path) == "messaging.2cpu.perf.data" && pre < uint64(len(got))/2 {
					t.Errorf("%d decoders: %d of %d events decoded by them", n, pre, len(got))
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%d decoders: events differ (-serial +parallel):\n%s", n, d)
				}
				if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
					t.Errorf("%d decoders: error %v, serial %v", n, gotErr, wantErr)
				}
				if d := cmp.Diff(wantW, gotW); d != "" {
					t.Errorf("%d decoders: warnings differ (-serial +parallel):\n%s", n, d)
				}
				if d := cmp.Diff(wantN, gotN); d != "" {
					t.Errorf("%d decoders: sample counts differ:\n%s", n, d)
				}
			}
		})
	}
}

// Closing a reader in the middle of a file stops its decoding goroutines
// before the mapping goes.
func TestParallelDecodeClose(t *testing.T) {
	oldChunk, oldMin := predecodeChunk, predecodeMin
	predecodeChunk, predecodeMin = 4096, 0
	t.Cleanup(func() { predecodeChunk, predecodeMin = oldChunk, oldMin })
	r := openReader(t, "../../testdata/traces/messaging.2cpu.perf.data")
	r.Decoders = 2
	for i := 0; i < 10; i++ {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" && r.pd == nil {
		t.Fatal("no decoding goroutines")
	}
	r.Close()
	if r.pd != nil {
		t.Error("decoding goroutines left after Close")
	}
}
