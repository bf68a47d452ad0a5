package formats_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// TestOpenCompressed: trace.Open detects gzip and zstd by their magic
// bytes, whatever the file is named, and reads the trace inside: the
// repository's pipe-multi.perf.data.gz (file-mode perf.data: spilled to a
// temporary file) and its trace.dat (read into memory) and perf script
// text (streamed), the same bytes recompressed with zstd under a name
// without extension, decode to the same events as the plain file. perf
// script of that recording prints 4943 sched_switch lines
// (pipe-multi.script.txt.gz: `grep -c sched:sched_switch:`).
func TestOpenCompressed(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the file-mode perf.data is spilled
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, testtraces.Load(t, filepath.Join(testtraces.Repo(t), "pipe-multi.perf.data.gz")), 0o644); err != nil {
		t.Fatal(err)
	}
	zst := filepath.Join(dir, "trace-without-extension")
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zst, enc.EncodeAll(raw, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(path, wantFormat string) []trace.Event {
		t.Helper()
		src, err := trace.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := src.Close(); err != nil {
				t.Errorf("%s: Close: %v", path, err)
			}
		}()
		if got := src.Meta().Format; got != wantFormat {
			t.Errorf("%s: format %q, want %q", path, got, wantFormat)
		}
		evs, err := trace.ReadAll(src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return evs
	}
	want := read(plain, "perf.data")
	switches := 0
	for _, e := range want {
		if e.Kind == trace.KindSwitch {
			switches++
		}
	}
	if switches != 4943 {
		t.Errorf("plain perf.data: %d sched_switch, want perf script's 4943", switches)
	}
	for _, path := range []string{filepath.Join(testtraces.Repo(t), "pipe-multi.perf.data.gz"), zst} {
		if diff := cmp.Diff(want, read(path, "perf.data")); diff != "" {
			t.Errorf("%s: events differ from the plain file (-plain +compressed):\n%s", path, diff)
		}
	}
	for _, c := range []struct{ name, format string }{
		{"pipe-multi.v6.dat.gz", "trace.dat"},
		{"pipe-multi.script.txt.gz", "perf-script"},
	} {
		evs := read(filepath.Join(testtraces.Repo(t), c.name), c.format)
		n := 0
		for _, e := range evs {
			if e.Kind == trace.KindSwitch {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no sched_switch read", c.name)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left after Close: %v", left)
	}
}

// TestOpenCompressedGarbage: a broken gzip header is one error line naming
// the file.
func TestOpenCompressedGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.gz")
	if err := os.WriteFile(path, []byte{0x1f, 0x8b, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Open(path); err == nil {
		t.Fatal("a broken gzip header opened")
	} else if got := err.Error(); got != path+": gzip: unexpected EOF" {
		t.Errorf("error %q", got)
	}
}

// TestOpenCompressedCut: a gzip or zstd file cut short (head -c) is read
// up to the cut, as the plain file cut there would be, with a warning of
// the bytes decompressed: before, a file-mode perf.data stopped at
// "copying file-mode perf.data from a pipe: unexpected EOF" and a trace.dat
// at "unexpected EOF", with nothing read.
func TestOpenCompressedCut(t *testing.T) {
	// Where the file-mode perf.data is spilled.
	t.Setenv("TMPDIR", t.TempDir())
	perf := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "pipe-multi.perf.data.gz")) // decompressed
	dat := testtraces.Load(t, filepath.Join(testtraces.Repo(t), "pipe-multi.v6.dat.gz"))
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, what, format string
		compressed         []byte
		keep               float64 // the share of the compressed bytes kept
	}{
		{"perf.data.gz", "gzip", "perf.data", mustGzip(t, perf), 0.5},
		{"perf.data.zst", "zstd", "perf.data", enc.EncodeAll(perf, nil), 0.5},
		// Its metadata (event formats, kallsyms) is over half of the
		// compressed bytes: a cut at 50 % leaves no event to read.
		{"trace.dat.gz", "gzip", "trace.dat", mustGzip(t, dat), 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, _ := readBytes(t, c.compressed, "whole")
			cut := c.compressed[:int(float64(len(c.compressed))*c.keep)]
			evs, meta := readBytes(t, cut, c.name)
			if len(evs) == 0 || len(evs) >= len(whole) {
				t.Errorf("%d events read of the cut file, %d in the whole; want some, fewer", len(evs), len(whole))
			}
			want := fmt.Sprintf("%s: the compressed stream ends early, after %d decompressed bytes: the file is cut short; read up to the cut", c.what, decompressedLen(t, c.what, cut))
			found := false
			for _, w := range meta.Warnings.List() {
				found = found || w.Key == "truncated-compressed" && w.Message == want
			}
			if !found || meta.Format != c.format {
				t.Errorf("format %q, warnings %v; want %s and %q", meta.Format, meta.Warnings.List(), c.format, want)
			}
		})
	}
}

// mustGzip returns b gzip-compressed.
func mustGzip(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// decompressedLen returns how many bytes the gzip or zstd stream b
// decompresses to before it ends (or is cut).
func decompressedLen(t *testing.T, what string, b []byte) int64 {
	t.Helper()
	var r io.Reader
	if what == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	} else {
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	n, _ := io.Copy(io.Discard, r)
	return n
}

// readBytes returns the events and metadata of the trace in b.
func readBytes(t *testing.T, b []byte, name string) ([]trace.Event, *trace.Meta) {
	t.Helper()
	src, err := trace.OpenReader(bytes.NewReader(b), name)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	return testsched.Events(t, src), src.Meta()
}
