package testtraces

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadGunzips: a .gz file comes back as the bytes that were compressed;
// any other file as it is.
func TestLoadGunzips(t *testing.T) {
	dir := t.TempDir()
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("sched_switch\n"))
	zw.Close()
	gz := filepath.Join(dir, "x.txt.gz")
	plain := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := string(Load(t, gz)); got != "sched_switch\n" {
		t.Errorf("Load(.gz) = %q", got)
	}
	if got := Load(t, plain); !bytes.Equal(got, zb.Bytes()) {
		t.Errorf("Load(plain) changed the bytes")
	}
}

// TestRepo: the repository's own traces are found from a package directory.
func TestRepo(t *testing.T) {
	if _, err := os.Stat(filepath.Join(Repo(t), "pipe.perf.data")); err != nil {
		t.Errorf("testdata/traces/pipe.perf.data: %v", err)
	}
}
