// Package testtraces finds and loads the real traces the tests read: the
// repository's own testdata/traces and the shared recordings in
// ../shared/traces beside the repository (present on developers' machines
// and in CI; tests that need them skip when they are absent).
package testtraces

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// root returns the repository root: the nearest directory above the
// working directory (a package directory under `go test`) holding go.mod.
func root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("testtraces: no go.mod above the working directory")
		}
		dir = up
	}
}

// Repo returns the path of the repository's testdata/traces.
func Repo(t testing.TB) string {
	t.Helper()
	return filepath.Join(root(t), "testdata", "traces")
}

// Shared returns the path of ../shared/traces beside the repository, or
// skips the test when it is not there.
func Shared(t testing.TB) string {
	t.Helper()
	d := filepath.Join(filepath.Dir(root(t)), "shared", "traces")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared traces not found at %s: %v", d, err)
	}
	return d
}

// Load returns a file's bytes, gunzipped when its name ends in .gz. A
// missing file fails the test.
func Load(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) != ".gz" {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
