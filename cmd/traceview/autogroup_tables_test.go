package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestAutogroupGroupTables: the autogroups a recording read are task
// groups in latency's, compare's and --by cgroup's tables, as they are in
// the replay (new-user pass 26 F3). testdata/traces/autogroups.tv (its
// meta file) holds three sessions: the recorder's, a1 and a2 in
// /autogroup-683 at nice 0, b in /autogroup-684 at nice 10. Each group's
// weight is the nice's: sched_prio_to_weight[nice+20] as a cpu.weight,
// 1024 → 100 and 110 → round(110 × 100 / 1024) = 11; an autogroup has no
// quota and is never throttled. A group's run time is its tasks' (the
// rows --cgroup selects).
func TestAutogroupGroupTables(t *testing.T) {
	in := "../../testdata/traces/autogroups.tv"
	type group struct {
		Path      string `json:"path"`
		Runtime   int64  `json:"runtime_ns"`
		Weight    int    `json:"weight"`
		Nice      int    `json:"nice"`
		Settings  string `json:"settings"`
		Autogroup bool   `json:"autogroup"`
		Periods   int64  `json:"throttled_periods"`
	}
	type doc struct {
		Cgroups []group `json:"cgroups"`
		Tasks   []struct {
			Comm    string `json:"comm"`
			Runtime int64  `json:"runtime_ns"`
		} `json:"tasks"`
	}
	d := cliJSON[doc](t, "latency", "-o", "json", "-i", in)
	want := map[string]group{
		"/autogroup-676": {Path: "/autogroup-676", Weight: 100, Nice: 0},
		"/autogroup-683": {Path: "/autogroup-683", Weight: 100, Nice: 0},
		"/autogroup-684": {Path: "/autogroup-684", Weight: trace.AutogroupWeight(10), Nice: 10},
	}
	if trace.AutogroupWeight(10) != 11 {
		t.Fatalf("AutogroupWeight(10) = %d, want 11", trace.AutogroupWeight(10))
	}
	if len(d.Cgroups) != len(want) {
		t.Fatalf("groups %+v, want the three autogroups", d.Cgroups)
	}
	for _, g := range d.Cgroups {
		w, ok := want[g.Path]
		if !ok || g.Weight != w.Weight || g.Nice != w.Nice || g.Settings != "autogroup" || !g.Autogroup || g.Periods != 0 {
			t.Errorf("group %+v, want %+v, settings autogroup, never throttled", g, w)
		}
		rows := cliJSON[doc](t, "latency", "-o", "json", "-i", in, "--cgroup", g.Path)
		var sum int64
		for _, r := range rows.Tasks {
			sum += r.Runtime
		}
		if sum != g.Runtime || sum == 0 {
			t.Errorf("%s: run time %d ns, its rows' %d ns", g.Path, g.Runtime, sum)
		}
	}
	out, _, _ := runCLI(t, "latency", "-i", in)
	if !strings.Contains(out, "|           - |             - | 11 (nice 10) | none (autogroup)") {
		t.Errorf("group table has no autogroup cells for /autogroup-684:\n%s", out)
	}
	if strings.Contains(out, "| thr:") {
		t.Errorf("a trace whose only groups are autogroups has a throttled column:\n%s", out)
	}
	by, _, _ := runCLI(t, "latency", "-i", in, "--by", "cgroup")
	if !strings.Contains(by, "cgroup: /autogroup-684\n") || !strings.Contains(by, "never throttled; weight 11 (nice 10); no quota (autogroup)") {
		t.Errorf("--by cgroup has no section for /autogroup-684:\n%s", by)
	}
	// A replay's prediction names the same groups: compare pairs every
	// one (no "-" side).
	pred := filepath.Join(t.TempDir(), "pred.tv")
	if _, errOut, code := runCLI(t, "replay", "-i", in, "--policy", "eevdf", "-w", pred); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	cmpOut, _, _ := runCLI(t, "compare", in, pred)
	for path := range want {
		line := ""
		for _, l := range strings.Split(cmpOut, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), path+" ") {
				line = l
			}
		}
		if line == "" || strings.Contains(line, " - ") || !strings.HasSuffix(line, "none (autogroup)  none (autogroup)") {
			t.Errorf("compare's line for %s: %q\n%s", path, line, cmpOut)
		}
	}
	// A what-if on the nice-10 session's weight: the prediction's group
	// has weight 50, which no nice gives, marked a what-if (new-user pass
	// 28 F7 read "100 (nice 5)").
	wi := filepath.Join(t.TempDir(), "wi.tv")
	if _, errOut, code := runCLI(t, "replay", "-i", in, "--policy", "eevdf", "--cpu-weight", "/autogroup-684=50", "-w", wi); code != 0 {
		t.Fatalf("replay --cpu-weight: exit %d: %s", code, errOut)
	}
	if out, _, _ := runCLI(t, "latency", "-i", wi); !regexp.MustCompile(`\|\s+50, what-if \| none \(autogroup\)`).MatchString(out) {
		t.Errorf("the what-if's prediction does not show weight 50 as a what-if:\n%s", out)
	}
}

// TestFooterCut: autogroups.tv short of 1, 8 or 16 bytes (inside its
// 16-byte footer, after the trailer) reports as the whole file does: the
// reader finds the trailer without the footer (tvf scanTail), so each
// session stays a group (new-user pass 31 F1: a 1-byte cut put every
// autogroup's tasks in "/" and changed the throttle figures, with one
// warning about a cut frame header); each cut is still said on stderr,
// the 16-byte one as the missing footer (new-user pass 33 F2: silent, as
// if the file were whole). Cut into the trailer (17 bytes) the groups are
// lost and a warning says so.
func TestFooterCut(t *testing.T) {
	in := "../../testdata/traces/autogroups.tv"
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	whole, _, code := runCLI(t, "latency", "-i", in, "--by", "cgroup")
	if code != 0 || !strings.Contains(whole, "cgroup: /autogroup-") {
		t.Fatalf("latency --by cgroup of %s: exit %d:\n%s", in, code, whole)
	}
	for _, n := range []int{1, 8, 16, 17} {
		cut := filepath.Join(t.TempDir(), "cut.tv")
		if err := os.WriteFile(cut, b[:len(b)-n], 0o644); err != nil {
			t.Fatal(err)
		}
		got, stderr, code := runCLI(t, "latency", "-i", cut, "--by", "cgroup")
		switch {
		case n <= 16 && (code != 0 || got != whole):
			t.Errorf("%d bytes cut: exit %d, report differs from the whole file's:\n%s\nstderr:\n%s", n, code, got, stderr)
		case n == 16 && !strings.Contains(stderr, "without the 16-byte footer every writer ends a file with"):
			// Cut by exactly the footer (new-user pass 33 F2: no warning).
			t.Errorf("16 bytes cut (the footer): stderr %q, want the missing footer said", stderr)
		case n < 16 && !strings.Contains(stderr, "file ends inside a frame header"):
			t.Errorf("%d bytes cut: stderr %q, want the cut said", n, stderr)
		case n > 16 && (strings.Contains(got, "cgroup: /autogroup-") || !strings.Contains(stderr, "which it lacks")):
			t.Errorf("%d bytes cut (into the trailer): autogroups still reported, or no warning:\n%s\nstderr:\n%s", n, got, stderr)
		}
		if n > 16 {
			// -o json says the damage on stderr too (new-user pass 33
			// F1: nothing there, the warning only in the document).
			if _, stderr, _ := runCLI(t, "latency", "-i", cut, "-o", "json"); !strings.Contains(stderr, "which it lacks") {
				t.Errorf("%d bytes cut, -o json: stderr %q, want the damage", n, stderr)
			}
		}
	}
	// A flipped byte of the footer's offset (new-user pass 32 F1: every
	// autogroup dropped, no warning): the same report and a damage warning.
	for _, back := range []int{1, 8} {
		flip := append([]byte(nil), b...)
		flip[len(flip)-back] ^= 0x5a
		path := filepath.Join(t.TempDir(), "flip.tv")
		if err := os.WriteFile(path, flip, 0o644); err != nil {
			t.Fatal(err)
		}
		got, stderr, code := runCLI(t, "latency", "-i", path, "--by", "cgroup")
		if code != 0 || got != whole || !strings.Contains(stderr, "a damaged footer; the trailer was found by scanning the file's end") {
			t.Errorf("byte %d from the end flipped: exit %d, same report %v, stderr:\n%s", back, code, got == whole, stderr)
		}
	}
}

// TestInfoPredictionAutogroups: info of a replay's prediction with a
// what-if weight on an autogroup (autogroups.tv, /autogroup-684 nice 10 ->
// weight 33) says where each setting came from, prints no nice that
// contradicts the weight (the what-if clears it) and no shares or quota
// for autogroups, which have neither (new-user pass 31 F5 read "33 ...
// nice 0" and "1024 max").
func TestInfoPredictionAutogroups(t *testing.T) {
	pred := filepath.Join(t.TempDir(), "pred.tv")
	if _, stderr, code := runCLI(t, "replay", "-i", "../../testdata/traces/autogroups.tv", "--policy", "eevdf", "--no-self-replay",
		"--cpu-weight", "/autogroup-684=33", "-w", pred); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "info", "-i", pred)
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 8 && strings.HasPrefix(f[0], "/autogroup-") {
			rows[f[0]] = f[1:]
		}
	}
	// read weight shares quota burst nice source
	if got, want := rows["/autogroup-684"], []string{"start", "33", "-", "-", "-", "-", "what-if"}; !slices.Equal(got, want) {
		t.Errorf("/autogroup-684: %q, want %q\n%s", got, want, out)
	}
	if got, want := rows["/autogroup-683"], []string{"start", "100", "-", "-", "-", "0", "recorded"}; !slices.Equal(got, want) {
		t.Errorf("/autogroup-683: %q, want %q\n%s", got, want, out)
	}
}
