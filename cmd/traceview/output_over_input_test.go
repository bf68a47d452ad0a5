package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command that writes a file refuses to write it over the trace it
// reads, before opening it: exit 2, one line, the trace byte for byte as it
// was. A hard link (another name, the same device and inode) is caught too.
// Before the check, convert and report truncated the input and then
// called it a corrupt trace, and export --format pprof silently replaced it.
func TestOutputOverInputRefused(t *testing.T) {
	data, err := os.ReadFile(messaging2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args func(in, out string) []string
	}{
		{"convert", func(in, out string) []string { return []string{"convert", "-i", in, "-o", out} }},
		{"convert-arg", func(in, out string) []string { return []string{"convert", in, "-o", out} }},
		{"report", func(in, out string) []string { return []string{"report", "-i", in, "-o", out} }},
		{"export-pprof", func(in, out string) []string { return []string{"export", "--format", "pprof", "-i", in, "-o", out} }},
		{"export-perfetto", func(in, out string) []string { return []string{"export", "--format", "perfetto", "-i", in, "-o", out} }},
		{"export-chrome-json", func(in, out string) []string {
			return []string{"export", "--format", "chrome-json", "-i", in, "-o", out}
		}},
		{"export-parquet", func(in, out string) []string { return []string{"export", "--format", "parquet", "-i", in, "-o", out} }},
		{"replay-w", func(in, out string) []string { return []string{"replay", "--policy", "eevdf", "-i", in, "-w", out} }},
	} {
		for _, link := range []bool{false, true} {
			name := tc.name
			if link {
				name += "/hardlink"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "t.perf.data")
				if err := os.WriteFile(in, data, 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, ".", "t.perf.data")
				if link {
					out = filepath.Join(dir, "other.name")
					if err := os.Link(in, out); err != nil {
						t.Skip(err)
					}
				}
				_, errs, code := runCLI(t, tc.args(in, out)...)
				if code != 2 || !strings.Contains(errs, "is the trace being read") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
					t.Errorf("exit %d, stderr %q; want 2 and one line", code, errs)
				}
				if after, err := os.ReadFile(in); err != nil || !bytes.Equal(after, data) {
					t.Errorf("the input changed: %d bytes, err %v; want %d as before", len(after), err, len(data))
				}
			})
		}
	}
}
