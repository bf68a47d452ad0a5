package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGroupTableIgnoresTaskFilters: the cgroup table describes whole
// groups, so --pid, --tid, --comm and --cgroup (which select tasks) leave
// it as it is without them; a kept task's Throttled ms is the same too.
// quota-siblings.tv (its meta file): /p7q has a 30ms/100ms quota and two
// hogs, 17090 and 17091; unfiltered, the inference finds 22 throttled
// periods, 2985.202 ms (the kernel's cpu.stat: 22, 3000.440 ms), and
// charges 1521.017 ms of them to 17090's waits. Before the group saw only
// the kept tasks' delays: --pid 1 gave /p7q 0 periods, --comm
// stress-ng-cpu 21 periods (3045.264 ms).
func TestGroupTableIgnoresTaskFilters(t *testing.T) {
	const tr = "../../testdata/traces/quota-siblings.tv"
	type task struct {
		PID         int   `json:"pid"`
		ThrottledNS int64 `json:"throttled_ns"`
	}
	type out struct {
		Tasks   []task           `json:"tasks"`
		Cgroups []map[string]any `json:"cgroups"`
	}
	run := func(args ...string) out {
		t.Helper()
		stdout, stderr, code := runCLI(t, append([]string{"latency", "-p", "-o", "json", "-i", tr}, args...)...)
		if code != 0 {
			t.Fatalf("latency %v: exit %d: %s", args, code, stderr)
		}
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatalf("latency %v: %v", args, err)
		}
		return o
	}
	whole := run()
	var p7q map[string]any
	for _, g := range whole.Cgroups {
		if g["path"] == "/p7q" {
			p7q = g
		}
	}
	if p7q == nil || p7q["throttled_periods"] != float64(22) || p7q["throttled_ns"] != float64(2985202195) {
		t.Fatalf("unfiltered /p7q: %v, want 22 throttled periods, 2985202195 ns", p7q)
	}
	for _, args := range [][]string{{"--pid", "1"}, {"--pid", "17090"}, {"--comm", "stress-ng-cpu"}, {"--cgroup", "/p7q"}, {"--tid", "17091"}} {
		o := run(args...)
		if !reflect.DeepEqual(o.Cgroups, whole.Cgroups) {
			t.Errorf("latency %v: cgroup table\n%v\nwant (unfiltered)\n%v", args, o.Cgroups, whole.Cgroups)
		}
	}
	o := run("--pid", "17090")
	if len(o.Tasks) != 1 || o.Tasks[0].ThrottledNS != 1521017195 {
		t.Errorf("--pid 17090: tasks %+v, want one with throttled_ns 1521017195 (as unfiltered)", o.Tasks)
	}
}

// TestThrottleEndsWhenGroupEmpties: in cgmove-quota.tv (its meta file)
// the quota group /nu13q (20 ms per 100 ms) holds spin0 for 1.0 s, is
// empty for 1.09 s (spin0 moved out while throttled), then holds spin1
// for 1.0 s. The inference took the empty second for part of one throttle
// (the gap in the group's runs lasted until spin1 ran there): 29 periods,
// 2489.867 ms, where the kernel's cpu.stat counts 23 periods in all, 21
// throttled, 1638.849 ms (new-user pass 13 F1). A throttle ends at the
// latest when the last of its waiting tasks runs again: now 18 periods
// (10 in spin0's stay and 8 in spin1's, as the two windows alone give),
// 1398.696 ms, its tasks' throttled waits.
func TestThrottleEndsWhenGroupEmpties(t *testing.T) {
	type out struct {
		Cgroups []map[string]any `json:"cgroups"`
	}
	o := cliJSON[out](t, "latency", "-o", "json", "-i", "../../testdata/traces/cgmove-quota.tv")
	for _, g := range o.Cgroups {
		if g["path"] == "/nu13q" {
			if g["throttled_periods"] != float64(18) || g["throttled_ns"] != float64(1398695866) || g["throttled_delay_ns"] != float64(1398695866) {
				t.Errorf("/nu13q: %v; want 18 throttled periods, 1398695866 ns, all of it its tasks' waits", g)
			}
			return
		}
	}
	t.Errorf("no group /nu13q: %v", o.Cgroups)
}

// TestCgroupFilterPartOfMovedTask: --cgroup keeps what tasks did while in
// the groups given, as --by cgroup splits them, and the help says so (it
// said "tasks whose last switch-out was in one of them": new-user pass 13
// F5). In cgmove-quota.tv spin0 (7954) was in /nu13q for a second and
// ended in /nu13s, spin1 (7955) ended in /nu13q: --cgroup /nu13q gives
// both, with their /nu13q rows' run times of --by cgroup, 223288163 and
// 202651558 ns.
func TestCgroupFilterPartOfMovedTask(t *testing.T) {
	type out struct {
		Tasks []struct {
			PID       int   `json:"pid"`
			RuntimeNS int64 `json:"runtime_ns"`
		} `json:"tasks"`
	}
	o := cliJSON[out](t, "latency", "-o", "json", "-p", "--cgroup", "/nu13q", "-i", "../../testdata/traces/cgmove-quota.tv")
	got := map[int]int64{}
	for _, r := range o.Tasks {
		got[r.PID] = r.RuntimeNS
	}
	if want := map[int]int64{7954: 223288163, 7955: 202651558}; !reflect.DeepEqual(got, want) {
		t.Errorf("--cgroup /nu13q rows %v, want %v", got, want)
	}
	help, _, _ := runCLI(t, "latency", "--help")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), "a task that moved between groups shows only its part in the ones given") {
		t.Error("latency --help does not say a moved task shows only its part")
	}
}

// TestKernelStatWholeTraceInWindow: with --time, a group's inferred
// throttling is the window's while its cpu.stat readings cover the whole
// trace: the line says so and judges no agreement (cgmove-quota.tv, spin0's
// stay in /nu13q: 10 periods inferred against the trace's 21 read "the
// inference found 48 % ... take the kernel's figures, and each task's
// Throttled ms as a lower bound": new-user pass 13 F4).
func TestKernelStatWholeTraceInWindow(t *testing.T) {
	stdout, stderr, code := runCLI(t, "latency", "--by", "cgroup", "--time", "79316.1,79317.25", "-i", "../../testdata/traces/cgmove-quota.tv")
	if code != 0 {
		t.Fatalf("latency: exit %d: %s", code, stderr)
	}
	_, line, _ := strings.Cut(stdout, "cgroup: /nu13q\n")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(line, "throttled 10 periods") || !strings.Contains(line, "the kernel's cpu.stat over the whole trace, not this window or these CPUs: 21 throttled periods of 23, 1638.849 ms") ||
		strings.Contains(line, "the inference found") {
		t.Errorf("/nu13q's line in the window:\n%s", line)
	}
}

// TestByCgroupRuntimeTicks: a perf --all-cgroups file carries each
// sample's cgroup; a sched_stat_runtime of the current task says the group
// it ran in at that tick. cgmove-v2.perf.data (its meta file): spinX moved
// / -> /nu14x -> /nu14y -> / while running; its runs span the moves. Its
// rows' run times follow the ticks' groups: /nu14x 505956587 ns and /nu14y
// 512006454 ns, what perf script's samples sum to (505.957 and 512.006 ms);
// before, each tick counted in the group of the task's previous
// switch-out: /nu14x 1029.6 ms and no /nu14y row (new-user pass 14 F1).
func TestByCgroupRuntimeTicks(t *testing.T) {
	type out struct {
		Groups []struct {
			Key   string `json:"key"`
			Tasks []struct {
				PID       int    `json:"pid"`
				Comm      string `json:"comm"`
				RuntimeNS int64  `json:"runtime_ns"`
			} `json:"tasks"`
		} `json:"groups"`
	}
	o := cliJSON[out](t, "latency", "-o", "json", "-p", "--by", "cgroup", "-i", "../../testdata/traces/cgmove-v2.perf.data")
	got := map[string]int64{}
	for _, g := range o.Groups {
		for _, r := range g.Tasks {
			if r.PID == 4353 {
				got[g.Key] = r.RuntimeNS
			}
		}
	}
	if got["/nu14x"] != 505956587 || got["/nu14y"] != 512006454 {
		t.Errorf("spinX's run time by group %v, want /nu14x 505956587 and /nu14y 512006454 ns", got)
	}
}

// TestCgroupFilterPerfAllCgroups: --cgroup on a perf --all-cgroups file,
// whose cgroup table comes in the data section (PERF_RECORD_CGROUP), not
// before it: the paths are matched as the ids appear, and each
// sched_stat_runtime counts in the group its sample names.
// cgmove-v2.perf.data (its meta file): spinX (4353) ran 505.957 ms in
// /nu14x and 512.006 ms in /nu14y by perf script's samples. Before,
// --cgroup was refused ("the trace has no cgroup table"; new-user pass 14
// F2), and with the table known each tick counted in the group of the
// task's previous switch-out (/nu14x 1029.6 ms, /nu14y nothing). A path of
// no group gets the no-match message with the groups the trace has.
func TestCgroupFilterPerfAllCgroups(t *testing.T) {
	const tr = "../../testdata/traces/cgmove-v2.perf.data"
	type out struct {
		Tasks []struct {
			PID       int   `json:"pid"`
			RuntimeNS int64 `json:"runtime_ns"`
		} `json:"tasks"`
	}
	for path, want := range map[string]int64{"/nu14x": 505956587, "/nu14y": 512006454} {
		o := cliJSON[out](t, "latency", "-o", "json", "-p", "--cgroup", path, "-i", tr)
		var got int64
		for _, r := range o.Tasks {
			if r.PID == 4353 {
				got = r.RuntimeNS
			}
		}
		if got != want {
			t.Errorf("--cgroup %s: spinX's run time %d ns, want %d; rows %+v", path, got, want, o.Tasks)
		}
	}
	_, stderr, code := runCLI(t, "latency", "--cgroup", "/nosuch", "-i", tr)
	if want := "nothing matched the filters --cgroup /nosuch: "; code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "; its cgroups: /, /nu14x, /nu14y") {
		t.Errorf("--cgroup /nosuch: exit %d, stderr\n%s\nwant %q and the trace's groups", code, stderr, want)
	}
	// spinX ran in /nu14y but was switched out only in other groups, and
	// it ended in /: stats and report said "nothing matched" (they judged
	// by the switches and by each task's last group).
	_, stderr, code = runCLI(t, "stats", "--cgroup", "/nu14y", "-i", tr)
	if want := "no scheduling delay or migration of the tasks selected matched the filters --cgroup /nu14y"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("stats --cgroup /nu14y: exit %d, stderr\n%s\nwant %q", code, stderr, want)
	}
	_, stderr, code = runCLI(t, "report", "--cgroup", "/nu14y", "-i", tr, "-o", filepath.Join(t.TempDir(), "r.html"))
	if code != 0 || strings.Contains(stderr, "nothing matched") {
		t.Errorf("report --cgroup /nu14y: exit %d, stderr\n%s\nwant no no-match message", code, stderr)
	}
}
