package main

import (
	"path/filepath"
	"regexp"
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
