package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManyTracesRenameHint: two copies of nice.2cpu (read once: one
// recording) give the --comm hint a single file gives, naming the hogs'
// names after exec (hog: 306 switch-ins, sh: 4); several traces read
// together lost it (new-user pass 33 F3).
func TestManyTracesRenameHint(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../testdata/traces/nice.2cpu.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range []string{"a.data", "b.data"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	_, single, _ := runCLI(t, "latency", "-i", paths[0], "--comm", "nice")
	_, many, code := runCLI(t, "latency", paths[0], paths[1], "--comm", "nice")
	want := "hint: --comm nice matched 3 tasks that also ran under other names (hog: 306 switch-ins, sh: 4 switch-ins)"
	if code != 0 || !strings.Contains(single, want) || !strings.Contains(many, want) {
		t.Errorf("exit %d; one file's stderr:\n%s\ntwo copies':\n%s\nwant both to hold %q", code, single, many, want)
	}
}
