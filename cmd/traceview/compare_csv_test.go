package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareCSVWarnings (new-user pass 122 F3): compare -o csv says the
// traces' warnings on stderr as its table does (one summary line per
// trace; each warning with -v), where it said none: pipe.perf.data lacks
// switches (its summary line names them).
func TestCompareCSVWarnings(t *testing.T) {
	const a, b = "../../testdata/traces/pipe.perf.data", "../../testdata/traces/nice.2cpu.perf.data"
	_, table, _ := runCLI(t, "compare", a, b)
	out, csv, code := runCLI(t, "compare", a, b, "-o", "csv")
	if code != 0 || csv != table || !strings.Contains(csv, "warning: "+a+": ") || !strings.HasPrefix(out, "comm,") {
		t.Errorf("exit %d; csv stderr:\n%s\ntable stderr:\n%s", code, csv, table)
	}
	_, verbose, _ := runCLI(t, "compare", "-v", a, b, "-o", "csv")
	if !strings.Contains(verbose, "switched out a task that the CPU's previous sched_switch had not switched in") {
		t.Errorf("-v -o csv: stderr\n%s", verbose)
	}
}

// TestCompareGlobReadsCopyOnce (new-user pass 125 F1): a side whose glob
// matches a trace and a copy of it under another name reads it once, as
// latency does, with the duplicate-input warning: its TOTAL equals the
// trace's own (before, the copy's events counted twice, every ratio wrong).
func TestCompareGlobReadsCopyOnce(t *testing.T) {
	data, err := os.ReadFile("../../testdata/traces/cpu1.tv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range []string{"a1.tv", "a1copy.tv"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const b = "../../testdata/traces/autogroups.tv"
	total := func(args ...string) string {
		out, errs, code := runCLI(t, append([]string{"compare", "-o", "json"}, args...)...)
		var doc struct {
			Total struct {
				A json.RawMessage `json:"a"`
			} `json:"total"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("compare %v: exit %d: %s", args, code, errs)
		}
		return string(doc.Total.A)
	}
	glob, one := total(filepath.Join(dir, "a*.tv"), b), total("../../testdata/traces/cpu1.tv", b)
	if glob != one {
		t.Errorf("A with a copy %s; A alone %s", glob, one)
	}
	_, errs, _ := runCLI(t, "compare", filepath.Join(dir, "a*.tv"), b)
	if !strings.Contains(errs, "holds the same events as this trace") {
		t.Errorf("no duplicate-input warning:\n%s", errs)
	}
}
