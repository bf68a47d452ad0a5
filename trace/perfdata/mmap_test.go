package perfdata

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// A perf.data file is mapped into memory on Linux and its pages released
// behind the reader (here after every 4 KiB, so that the 690 KB trace
// releases 168 times); the events must be exactly those read
// through a buffer from an io.ReaderAt that is not a file.
func TestMappedEqualsRead(t *testing.T) {
	const path = "../../testdata/traces/messaging.2cpu.perf.data"
	old := dropEvery
	dropEvery = 4096
	t.Cleanup(func() { dropEvery = old })
	mapped, got := readAll(t, path)
	if runtime.GOOS == "linux" && mapped.mm == nil {
		t.Errorf("%s: the data section was not mapped", path)
	}
	if runtime.GOOS == "linux" && mapped.mdrop == 0 {
		t.Errorf("%s: no mapped page was released", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.mm != nil {
		t.Fatal("a bytes.Reader input was mapped")
	}
	want, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 6047 {
		t.Fatalf("%d events read through a buffer, want 6047", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mapped read differs from buffered read (-buffered +mapped):\n%s", d)
	}
	if d := cmp.Diff(r.Meta().Warnings.List(), mapped.Meta().Warnings.List()); d != "" {
		t.Errorf("warnings differ (-buffered +mapped):\n%s", d)
	}
}

// A mapped file truncated while it is read (a recording overwritten in
// place) ends the stream with an error wrapping trace.ErrCorrupt, never a
// crash: reading the pages past the new end faults (SIGBUS), which the
// reader turns into its terminal error.
func TestMappedFileTruncated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the file is mapped on Linux only")
	}
	data, err := os.ReadFile("../../testdata/traces/messaging.2cpu.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/cut.perf.data"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.mm == nil {
		t.Fatal("not mapped")
	}
	buf := make([]trace.Event, 16)
	if _, err := r.NextBatch(buf); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 64<<10); err != nil {
		t.Fatal(err)
	}
	for {
		_, err = r.NextBatch(buf)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), "the file changed while it was read") {
		t.Errorf("after the truncation: %v; want the file-changed error", err)
	}
}

// Next reads a mapped file a few events ahead; NextBatch calls mixed with
// Next still deliver every event once, in order (trace.BatchSource allows
// the mix).
func TestMappedNextAndBatchMixed(t *testing.T) {
	const path = "../../testdata/traces/messaging.2cpu.perf.data"
	_, want := readAll(t, path)
	r := openReader(t, path)
	var got []trace.Event
	buf := make([]trace.Event, 7)
	for i := 0; ; i++ {
		if i%3 == 0 {
			n, err := r.NextBatch(buf)
			if err != nil {
				break
			}
			got = append(got, buf[:n]...)
			continue
		}
		e, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, e)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mixed Next and NextBatch differ from Next alone (-want +got):\n%s", d)
	}
}
