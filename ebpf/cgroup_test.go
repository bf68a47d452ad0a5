package ebpf

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolveCgroups: on a directory tree standing for a cgroup mount,
// the ids (inode numbers) of the root and of a nested directory resolve
// to "/" and "/a/b"; an id of no directory is left out, and so is a
// directory whose id was not asked for.
func TestResolveCgroups(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ino := func(p string) uint64 {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(root, p), &st); err != nil {
			t.Fatal(err)
		}
		return uint64(st.Ino)
	}
	const missing = 1<<63 + 12345
	got := ResolveCgroups(root, map[uint64]bool{ino("."): true, ino("a/b"): true, missing: true})
	want := map[uint64]string{ino("."): "/", ino("a/b"): "/a/b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
