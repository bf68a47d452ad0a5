package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPredictionCarriesReplayCounts: a prediction written with replay -w
// carries the replay's own throttling counts (its cpu.stat, two readings
// over the prediction) and says where each group's settings came from, so
// that latency on it shows the replay's figures beside its inference and
// labels a what-if quota as one (new-user pass 26 F12, pass 27 F6).
// quota-siblings.tv (its meta file) has /p7q at 30ms/100ms and /p7h with
// no quota; the what-if gives /p7q 10ms/100ms.
func TestPredictionCarriesReplayCounts(t *testing.T) {
	in := "../../testdata/traces/quota-siblings.tv"
	pred := filepath.Join(t.TempDir(), "pred.tv")
	type stat struct {
		Path        string `json:"path"`
		NrPeriods   int64  `json:"nr_periods"`
		NrThrottled int64  `json:"nr_throttled"`
		ThrottledNS int64  `json:"throttled_ns"`
	}
	type replayDoc struct {
		Runs []struct {
			GroupStats []stat `json:"group_stats"`
		} `json:"runs"`
	}
	rd := cliJSON[replayDoc](t, "replay", "-i", in, "--policy", "eevdf", "--cpu-max", "/p7q=10ms/100ms", "-o", "json", "-w", pred)
	if len(rd.Runs) != 1 || len(rd.Runs[0].GroupStats) != 1 || rd.Runs[0].GroupStats[0].NrThrottled == 0 {
		t.Fatalf("replay's group stats %+v, want /p7q's throttles", rd.Runs)
	}
	want := rd.Runs[0].GroupStats[0]
	type group struct {
		Path      string `json:"path"`
		Settings  string `json:"settings"`
		WeightSet string `json:"weight_settings"`
		Kernel    *stat  `json:"kernel_cpu_stat"`
		Predicted bool   `json:"kernel_cpu_stat_predicted"`
		Periods   int64  `json:"throttled_periods"`
		Throttled int64  `json:"throttled_ns"`
		Counted   bool   `json:"throttled_counted"`
	}
	type latDoc struct {
		Cgroups []group `json:"cgroups"`
	}
	d := cliJSON[latDoc](t, "latency", "-i", pred, "-o", "json")
	got := map[string]group{}
	for _, g := range d.Cgroups {
		got[g.Path] = g
	}
	q, h := got["/p7q"], got["/p7h"]
	if q.Settings != "what-if (replay)" || h.Settings != "recorded (replay)" {
		t.Errorf("settings /p7q %q, /p7h %q; want what-if (replay), recorded (replay)", q.Settings, h.Settings)
	}
	// The what-if set the quota only: the weight is the recording's
	// (new-user pass 29 F6).
	if q.WeightSet != "recorded (replay)" {
		t.Errorf("/p7q's weight from %q, want recorded (replay)", q.WeightSet)
	}
	if q.Kernel == nil || !q.Predicted || q.Kernel.NrThrottled != want.NrThrottled || q.Kernel.NrPeriods != want.NrPeriods || q.Kernel.ThrottledNS != want.ThrottledNS {
		t.Errorf("/p7q cpu.stat %+v (predicted %v), want the replay's %+v", q.Kernel, q.Predicted, want)
	}
	if h.Kernel != nil {
		t.Errorf("/p7h (no quota) has cpu.stat %+v", h.Kernel)
	}
	// The group's Throttled figures are that count, not the inference
	// (new-user pass 84 F4: 341.912 ms inferred beside 132.621 counted).
	if !q.Counted || q.Periods != want.NrThrottled || q.Throttled != want.ThrottledNS {
		t.Errorf("/p7q throttled %d periods, %d ns (counted %v), want the replay's %d, %d", q.Periods, q.Throttled, q.Counted, want.NrThrottled, want.ThrottledNS)
	}
	out, _, _ := runCLI(t, "latency", "-i", pred)
	if !strings.Contains(out, "/p7q: the replay's cpu.stat counted ") || strings.Contains(out, "the kernel's") || !strings.Contains(out, "A prediction's span is its own, first to last event") {
		t.Errorf("latency on a prediction does not name the replay's counts:\n%s", out)
	}
	// info labels them the replay's too (new-user pass 72 F5: "kernel
	// cpu.stat").
	if info, _, _ := runCLI(t, "info", "-i", pred); !strings.Contains(info, "cfs bandwidth over the trace (the replay's cpu.stat") {
		t.Errorf("info on a prediction does not name the replay's counts:\n%s", info)
	}
	// The recording itself: the kernel's, as recorded.
	out, _, _ = runCLI(t, "latency", "-i", in)
	if !strings.Contains(out, "/p7q: the kernel's cpu.stat counted ") || strings.Contains(out, "(replay)") {
		t.Errorf("latency on the recording:\n%s", out)
	}
}

// TestGroupWhatIfPeerPolicy: a task-group what-if under a policy that
// schedules every task as a peer (bfs) changes nothing in its run: the
// replay warns and its policy line says so instead of claiming the
// what-if (new-user pass 29 F1). Under eevdf it is modelled: no warning.
func TestGroupWhatIfPeerPolicy(t *testing.T) {
	in := "../../testdata/traces/quota-siblings.tv"
	out, errOut, code := runCLI(t, "replay", "-i", in, "--policy", "bfs", "--cpu-max", "/p7q=5ms/100ms", "--no-self-replay")
	if code != 0 || !strings.Contains(errOut, "warning: bfs schedules every task as a peer, so --cpu-max changes nothing in its run") ||
		!strings.Contains(out, "with --cpu-max /p7q=5ms/100ms (task-group what-ifs not modelled: bfs has no task groups):") {
		t.Errorf("bfs: exit %d\n%s\n%s", code, errOut, out)
	}
	_, errOut, _ = runCLI(t, "replay", "-i", in, "--policy", "eevdf", "--cpu-max", "/p7q=5ms/100ms", "--no-self-replay")
	if strings.Contains(errOut, "as a peer") {
		t.Errorf("eevdf warned: %s", errOut)
	}
}

// TestCutTVSameError: a .tv cut inside its first block, before any
// sched_switch could be read, gets the one cut-short error from every
// command that needs switches, not advice to record with another tool
// (new-user pass 29 F8: timehist, map and export parquet said "record
// with 'perf sched record'").
func TestCutTVSameError(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/traces/escape-names.tv")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tv")
	if err := os.WriteFile(cut, orig[:9000], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"latency"}, {"stats"}, {"timehist"}, {"map"}, {"export", "--format", "parquet", "-o", filepath.Join(t.TempDir(), "pq")}} {
		_, errOut, code := runCLI(t, append(args, "-i", cut)...)
		if code == 0 || !strings.Contains(errOut, "the file is cut short or damaged before any sched_switch event could be read") || strings.Contains(errOut, "perf sched record") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestPredictionGroupsNotModelled: a prediction of a policy that runs every
// task as a peer (bfs) says its groups were not modelled: no quota in force
// (-1), no weight, settings "not modelled (replay)", and no throttle
// inferred (new-user pass 53 F1: a bfs prediction of quota-siblings.tv-like
// recordings showed the recorded 30ms/100ms quota as the replay's and
// inferred throttles nothing did). quota-siblings.tv's /p7q has a 30 ms per
// 100 ms quota (its meta file).
func TestPredictionGroupsNotModelled(t *testing.T) {
	pred := filepath.Join(t.TempDir(), "bfs.tv")
	if _, errs, code := runCLI(t, "replay", "-i", "../../testdata/traces/quota-siblings.tv", "--policy", "bfs", "-w", pred); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	type group struct {
		Path     string `json:"path"`
		Settings string `json:"settings"`
		Quota    int64  `json:"quota_ns"`
		Weight   int    `json:"weight"`
		Periods  int64  `json:"throttled_periods"`
		Thr      int64  `json:"throttled_ns"`
	}
	d := cliJSON[struct {
		Cgroups []group `json:"cgroups"`
	}](t, "latency", "-i", pred, "-o", "json")
	n := 0
	for _, g := range d.Cgroups {
		if g.Path != "/p7q" && g.Path != "/p7h" {
			continue
		}
		n++
		if g.Settings != "not modelled (replay)" || g.Quota != -1 || g.Weight != 0 || g.Periods != 0 || g.Thr != 0 {
			t.Errorf("%+v: want settings \"not modelled (replay)\", quota -1, no weight, nothing throttled", g)
		}
	}
	if n != 2 {
		t.Errorf("groups %+v: want /p7q and /p7h", d.Cgroups)
	}
	out, _, _ := runCLI(t, "latency", "-i", pred)
	if !strings.Contains(out, "not modelled (the replay's policy ran every task as a peer)") {
		t.Errorf("latency table:\n%s", out)
	}
}

// TestPredictionCarriesInputDamage: a prediction made from a cut trace
// says so in its own warnings, printed in full by every report on it
// (new-user pass 56 F3: it read "lost: 0 events" and compare set it beside
// the whole recording with no word of the cut). stress-fork.2cpu.tv cut to
// 90 % of its bytes (its first event block whole): its reader says the
// file ends inside a frame. info exits 0: the prediction file is whole.
func TestPredictionCarriesInputDamage(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/stress-fork.2cpu.tv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, pred := filepath.Join(dir, "cut.tv"), filepath.Join(dir, "pred.tv")
	if err := os.WriteFile(in, b[:len(b)*9/10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "replay", "-i", in, "--policy", "eevdf", "--no-self-replay", "-w", pred); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	want := "warning: " + pred + ": predicted from " + in + ", which the replay read only in part: traceview format: file ends inside the frame at offset "
	for _, args := range [][]string{{"latency", "-i", pred}, {"info", "-i", pred}, {"compare", "../../testdata/traces/stress-fork.2cpu.tv", pred}} {
		if out, errs, code := runCLI(t, args...); !strings.Contains(out+errs, want) || code != 0 {
			t.Errorf("%v: exit %d (want 0: the prediction file is whole), output lacks %q:\n%s%s", args, code, want, out, errs)
		}
	}
}

// TestAsTracedKeepsGroups: a prediction written under as-traced is the
// recording's schedule, so it carries the recording's task groups: the
// same paths, settings, runtime split at a cgroup move and inferred
// throttling per group as latency gives on the recording (new-user pass
// 69 F3: the groups read "cgroup id N", quota unknown, the throttling
// was inferred without the quota, and the move was lost).
// cgmove-quota.tv holds a task moved into a group with a quota.
func TestAsTracedKeepsGroups(t *testing.T) {
	in := "../../testdata/traces/cgmove-quota.tv"
	pred := filepath.Join(t.TempDir(), "at.tv")
	if _, errOut, code := runCLI(t, "replay", "-i", in, "--policy", "as-traced", "-w", pred); code != 0 {
		t.Fatalf("replay exit %d: %s", code, errOut)
	}
	type group struct {
		Path      string `json:"path"`
		Runtime   int64  `json:"runtime_ns"`
		Periods   int64  `json:"throttled_periods"`
		Throttled int64  `json:"throttled_ns"`
		Quota     int64  `json:"quota_ns"`
		Period    int64  `json:"period_ns"`
		Weight    int    `json:"weight"`
	}
	type latDoc struct {
		Cgroups []group `json:"cgroups"`
	}
	want := cliJSON[latDoc](t, "latency", "-i", in, "-o", "json").Cgroups
	got := cliJSON[latDoc](t, "latency", "-i", pred, "-o", "json").Cgroups
	if len(want) < 2 {
		t.Fatalf("the recording has %d groups, want a quota group and others", len(want))
	}
	quota := false
	for _, g := range want {
		quota = quota || g.Quota > 0 && g.Throttled > 0
	}
	if !quota {
		t.Fatalf("no throttled quota group in the recording: %+v", want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the as-traced prediction's groups differ from the recording's (-recording +prediction):\n%s", d)
	}
}
