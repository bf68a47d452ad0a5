package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// groupHogs returns hogModel(burst, 120 ×len(paths)) with task i in
// cgroup paths[i].
func groupHogs(burst int64, paths ...string) *Model {
	prios := make([]int32, len(paths))
	for i := range prios {
		prios[i] = 120
	}
	m := hogModel(burst, prios...)
	for i, p := range paths {
		m.Tasks[i].Cgroup = p
	}
	return m
}

// runBefore sums each task's run time before cut, by TID.
func runBefore(res *Result, cut int64) map[trace.TID]int64 {
	out := map[trace.TID]int64{}
	for tid, iv := range runs(res.Events()) {
		out[tid] = ranBefore(iv, cut)
	}
	return out
}

func TestGroupWeightsShareOneCPU(t *testing.T) {
	// Three nice-0 hogs on one CPU, two in /a and one in /b, both groups
	// cpu.weight 100 (load 1024). Hierarchically the CPU is split 1:1
	// between the group entities, then /a's half 1:1 between its tasks:
	// over the first 600 ms b gets 300 ms and each a task 150 ms; flat it
	// would be 200 ms each. Slices end at ticks (HZ 250), so a share is
	// exact to within a few 4 ms ticks: 12 ms tolerance. The same holds
	// for eevdf (kernel/sched/fair.c v6.18) and cfs (v6.5): cfs's slices
	// are longer (sched_slice: 6 ms × 1/2 for /b's hog, 6 ms × 1/2 × 1/2
	// for each of /a's) but still end at a tick.
	for _, pol := range []string{"eevdf", "cfs"} {
		t.Run(pol, func(t *testing.T) { testGroupWeights(t, pol) })
	}
}

func testGroupWeights(t *testing.T, pol string) {
	m := groupHogs(2_000_000_000, "/a", "/a", "/b")
	res := simulate(t, m, pol, Config{HZ: 250})
	if !res.GroupsModelled || len(res.Groups) != 3 {
		t.Fatalf("groups modelled %v, %d groups, want true and 3 (root, /a, /b)", res.GroupsModelled, len(res.Groups))
	}
	got := runBefore(res, 600_000_000)
	for tid, want := range map[trace.TID]int64{100: 150_000_000, 101: 150_000_000, 102: 300_000_000} {
		if d := got[tid] - want; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("tid %d ran %d ns of the first 600 ms, want %d ± 12 ms", tid, got[tid], want)
		}
	}
	// /a at cpu.weight 200 (load 2048): /a gets 2/3, 200 ms per task, b 200.
	res = simulate(t, m, pol, Config{HZ: 250, CgroupChanges: []CgroupChange{{Path: "/a", Weight: 200}}})
	got = runBefore(res, 600_000_000)
	for tid, want := range map[trace.TID]int64{100: 200_000_000, 101: 200_000_000, 102: 200_000_000} {
		if d := got[tid] - want; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("/a weight 200: tid %d ran %d ns of the first 600 ms, want %d ± 12 ms", tid, got[tid], want)
		}
	}
	// Weights 2:1 with one hog each: /a at cpu.weight 200 (load 2048) and
	// /b at 100 (1024) split the CPU 2:1, 400 and 200 ms of 600.
	m2 := groupHogs(2_000_000_000, "/a", "/b")
	res = simulate(t, m2, pol, Config{HZ: 250, CgroupChanges: []CgroupChange{{Path: "/a", Weight: 200}}})
	got = runBefore(res, 600_000_000)
	for tid, want := range map[trace.TID]int64{100: 400_000_000, 101: 200_000_000} {
		if d := got[tid] - want; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("weights 2:1: tid %d ran %d ns of the first 600 ms, want %d ± 12 ms", tid, got[tid], want)
		}
	}
	// Nested: /a/x and /a/y under /a, /b beside it: /a and /b split 1:1,
	// /a's half goes 1:1 to /a/x and /a/y: 150, 150, 300 ms again.
	m = groupHogs(2_000_000_000, "/a/x", "/a/y", "/b")
	res = simulate(t, m, pol, Config{HZ: 250})
	if len(res.Groups) != 5 {
		t.Fatalf("nested: %d groups, want 5 (/, /a, /a/x, /a/y, /b)", len(res.Groups))
	}
	got = runBefore(res, 600_000_000)
	for tid, want := range map[trace.TID]int64{100: 150_000_000, 101: 150_000_000, 102: 300_000_000} {
		if d := got[tid] - want; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("nested: tid %d ran %d ns of the first 600 ms, want %d ± 12 ms", tid, got[tid], want)
		}
	}
	// NoGroups: the flat runqueue, 200 ms each.
	res = simulate(t, m, pol, Config{HZ: 250, NoGroups: true})
	got = runBefore(res, 600_000_000)
	for tid := trace.TID(100); tid <= 102; tid++ {
		if d := got[tid] - 200_000_000; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("no groups: tid %d ran %d ns of the first 600 ms, want 200 ms ± 12 ms", tid, got[tid])
		}
	}
}

func TestGroupQuotaThrottles(t *testing.T) {
	// One hog of 1 s of CPU in /svc with cpu.max 25ms/100ms on one CPU,
	// and nothing else: it runs 25 ms of each 100 ms period. Its runqueue
	// takes 5 ms slices from the pool (sched_cfs_bandwidth_slice), runtime
	// is charged at ticks (4 ms at HZ 250), so it overruns the quota by
	// less than a tick per period and the next refill
	// (min(pool + quota, quota + burst)) pays the debt: about 25 ms per
	// period. The first refill comes half a period after the group's first
	// run (startPeriod: the mean under the unknown phase), so 1 s of work
	// takes 25 ms in [0, 50 ms) and 39 periods more: the task ends after
	// about 50 + 38 × 100 + 25 ms = 3.875 s, ± one period; the first second
	// holds 25 + 9 × 25 + 25 = 275 ms of it (the last 25 ms in the period
	// from 950 ms). cfs throttles as v6.5 does, by dequeuing the group
	// entity (eevdf's NO_TASK_THROTTLE).
	for _, feat := range []string{"eevdf", "eevdf:NO_TASK_THROTTLE", "cfs"} {
		t.Run(feat, func(t *testing.T) {
			m := groupHogs(1_000_000_000, "/svc")
			cfg := Config{HZ: 250, Cgroups: []trace.CgroupSettings{{Path: "/svc", QuotaNS: 25_000_000, PeriodNS: 100_000_000}}}
			res := simulate(t, m, feat, cfg)
			if res.End < 3_800_000_000 || res.End > 4_000_000_000 {
				t.Errorf("the hog ended at %d ns, want about 3.9 s (1 s of work at 25 ms per 100 ms)", res.End)
			}
			if len(res.GroupStats) != 1 {
				t.Fatalf("group stats %v, want one entry for /svc", res.GroupStats)
			}
			gs := res.GroupStats[0]
			// Throttled in each of the ~39 periods before the last one;
			// throttled ~75 ms of each.
			if gs.NrThrottled < 37 || gs.NrThrottled > 40 {
				t.Errorf("nr_throttled %d, want 37..40 (one per period but the last)", gs.NrThrottled)
			}
			if gs.ThrottledNS < 37*70_000_000 || gs.ThrottledNS > 40*80_000_000 {
				t.Errorf("throttled %d ns, want about 39 × 75 ms", gs.ThrottledNS)
			}
			got := runBefore(res, 1_000_000_000)[100]
			if got < 255_000_000 || got > 295_000_000 {
				t.Errorf("ran %d ns of the first second, want 275 ms ± 20 ms (25 ms in each of 11 periods, the first half a period)", got)
			}
		})
	}
}

// TestGroupQuotaChange: TestGroupQuotaThrottles's hog (1 s of CPU in /svc
// on one CPU) with the recorded quota 25ms/100ms at the start and, read at
// 1 s (inside the 5 s trace), 75ms/100ms or no limit. The replay applies
// the change at 1 s (tg_set_cfs_bandwidth): 275 ms of work in the first
// second (as in TestGroupQuotaThrottles, refills at 50, 150, ... 950 ms),
// then the pool refilled to 75 ms: 50 ms run before the refill at 1.05 s,
// and the 675 ms left at 75 ms per period take 9 periods, ending about
// 1.05 s + 8 × 100 ms + 75 ms = 1.925 s; with the limit lifted,
// 1 s + 725 ms = 1.725 s. Both ± one period (100 ms). Held for the whole
// trace (the replay before), 75 ms (in force longest) would have ended it
// near 1.375 s.
func TestGroupQuotaChange(t *testing.T) {
	q25 := trace.CgroupSettings{Path: "/svc", Weight: 100, QuotaNS: 25_000_000, PeriodNS: 100_000_000}
	for _, c := range []struct {
		name  string
		quota int64
		end   int64
	}{{"75 ms", 75_000_000, 1_925_000_000}, {"no limit", -1, 1_725_000_000}} {
		for _, pol := range []string{"eevdf", "cfs"} {
			m := groupHogs(1_000_000_000, "/svc")
			m.End = 5_000_000_000
			later := q25
			later.Time, later.QuotaNS = 1_000_000_000, c.quota
			m.Meta.CgroupSettings = []trace.CgroupSettings{q25, later}
			groups, _ := groupsByPath(t, m, Config{})
			if len(groups) != 2 || groups[1].QuotaNS != 25_000_000 || len(groups[1].Changes) != 1 || !strings.Contains(groups[1].Changed, "the replay applies each from when it was read") {
				t.Fatalf("%s %s: groups %+v, want /svc at 25 ms with one change", c.name, pol, groups)
			}
			res := simulate(t, m, pol, Config{HZ: 250})
			if res.End < c.end-100_000_000 || res.End > c.end+100_000_000 {
				t.Errorf("%s %s: the hog ended at %d ns, want %d ± 100 ms", c.name, pol, res.End, c.end)
			}
			if got := runBefore(res, 1_000_000_000)[100]; got < 255_000_000 || got > 295_000_000 {
				t.Errorf("%s %s: ran %d ns of the first second, want 275 ms ± 20 ms", c.name, pol, got)
			}
		}
	}
	// Read only as the recording ended: no change to apply.
	m := groupHogs(1_000_000_000, "/svc")
	m.End = 5_000_000_000
	later := q25
	later.Time, later.QuotaNS = 5_100_000_000, 75_000_000
	m.Meta.CgroupSettings = []trace.CgroupSettings{q25, later}
	if groups, _ := groupsByPath(t, m, Config{}); len(groups) != 2 || groups[1].QuotaNS != 25_000_000 || groups[1].Changes != nil {
		t.Errorf("undated change: groups %+v, want /svc held at 25 ms, no changes", groups)
	}
}

func TestGroupConfigErrors(t *testing.T) {
	m := groupHogs(10_000_000, "/a", "/b")
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"unknown path", Config{CgroupChanges: []CgroupChange{{Path: "/nope", Weight: 10}}}},
		{"weight above 10000", Config{CgroupChanges: []CgroupChange{{Path: "/a", Weight: 10001}}}},
		{"quota above the CPUs", Config{CgroupChanges: []CgroupChange{{Path: "/a", Quota: 300_000_000, Period: 100_000_000}}}},
		{"period too long", Config{CgroupChanges: []CgroupChange{{Path: "/a", Quota: 30_000_000, Period: 2_000_000_000}}}},
		{"quota below 1 ms", Config{CgroupChanges: []CgroupChange{{Path: "/a", Quota: 500_000}}}},
		{"stated path", Config{Cgroups: []trace.CgroupSettings{{Path: "/c", Weight: 50}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckConfig(m, c.cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("CheckConfig = %v, want an ErrConfig", err)
			}
		})
	}
	// Moving a task to a new group is fine: the group exists once a task
	// is in it.
	p := "/c"
	cfg := Config{Overrides: []Override{{Sel: Selector{PID: 100, TID: -1}, Cgroup: &p}}, CgroupChanges: []CgroupChange{{Path: "/c", Weight: 50}}}
	if err := CheckConfig(m, cfg); err != nil {
		t.Errorf("moving pid 100 to /c and weighting /c: %v", err)
	}
}

// TestGroupsIgnoreRecordedAutogroups: a recorded autogroup's settings
// (named by the kernel's sequence number) are not applied to an inferred
// session that happens to share its name (named by its leader's TID):
// weight 100 and source "session inferred", while a recorded cgroup's
// settings apply.
func TestGroupsIgnoreRecordedAutogroups(t *testing.T) {
	m := groupHogs(1_000_000_000, "/autogroup-100", "/tv-a")
	m.Meta.CgroupSettings = []trace.CgroupSettings{{Path: "/autogroup-100", Weight: 1, Nice: 19}, {Path: "/tv-a", Weight: 300}}
	_, got := groupsByPath(t, m, Config{})
	if g := got["/autogroup-100"]; g.Weight != 100 || g.Source != inferredSessionSource {
		t.Errorf("/autogroup-100: weight %d source %q", g.Weight, g.Source)
	}
	if g := got["/tv-a"]; g.Weight != 300 || g.Source != "recorded" {
		t.Errorf("/tv-a: weight %d source %q", g.Weight, g.Source)
	}
}

// TestGroupsStatedGroupEmptiedByWhatIf: a stated group (--recorded-cgroup)
// of the recording whose every task a what-if moves elsewhere (--cgroup
// SEL=/) is no error, while a path the recording never had still is.
func TestGroupsStatedGroupEmptiedByWhatIf(t *testing.T) {
	m := groupHogs(1_000_000_000, "/tv-a", "/tv-b")
	root := "/"
	cfg := Config{Cgroups: []trace.CgroupSettings{{Path: "/tv-a", Weight: 13}},
		Overrides: []Override{{Sel: Selector{PID: -1, TID: m.Tasks[0].TID}, Cgroup: &root}}}
	groups, _, err := Groups(m, cfg)
	if err != nil {
		t.Fatalf("stated /tv-a emptied by a what-if: %v", err)
	}
	for _, g := range groups {
		if g.Path == "/tv-a" {
			t.Errorf("/tv-a still a group of the replay: %+v", g)
		}
	}
	cfg.Cgroups[0].Path = "/tv-x"
	if _, _, err := Groups(m, cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("stated /tv-x (not in the recording): %v, want ErrConfig", err)
	}
}

// TestGroupsNewGroupOfAMove: a group only a --cgroup move makes (no task of
// the trace ran in it) is new, not a recorded group without settings: the
// model line told 'replay -i quota.tv --cgroup massive_intr=/new' '/new
// weight 100 max unlimited (default, 4 tasks); 1 without recorded settings:
// ... (state them with --recorded-cgroup ...)', settings no recording could
// have. Its parent /tv-a, where a task ran, and /tv-b, recorded without
// settings, stay "default" and are counted as such.
func TestGroupsNewGroupOfAMove(t *testing.T) {
	m := groupHogs(1_000_000_000, "/tv-a/x", "/tv-b")
	moved := "/tv-a/new"
	cfg := Config{Overrides: []Override{{Sel: Selector{PID: -1, TID: m.Tasks[0].TID}, Cgroup: &moved}}}
	groups, _, err := Groups(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range groups {
		got[g.Path] = g.Source
	}
	want := map[string]string{"/": "root", "/tv-a": "default", "/tv-a/new": "new, made by --cgroup", "/tv-b": "default"}
	if len(got) != len(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: source %q, want %q", p, got[p], w)
		}
	}
	line := GroupsLine(groups)
	if want := "; 2 without recorded settings:"; !strings.Contains(line, want) {
		t.Errorf("GroupsLine %q lacks %q", line, want)
	}
}

// TestTermination: the last --until override that selects a task wins over
// the inferred termination; one that selects another task changes nothing.
func TestTermination(t *testing.T) {
	tk := &Task{TID: 7, PID: 7, Comm: "hog", Until: UntilDeadline, Deadline: 2e9, UntilInferred: true}
	if u, d, set := Termination(tk, Config{}); u != UntilDeadline || d != 2e9 || set {
		t.Errorf("no override: %v %d %v", u, d, set)
	}
	cfg := Config{Overrides: []Override{
		{Sel: Selector{Comm: "hog", PID: -1, TID: -1}, Until: &UntilOverride{Kind: UntilWork}},
		{Sel: Selector{Comm: "hog", PID: -1, TID: -1}, Until: &UntilOverride{Kind: UntilDeadline, Deadline: 1e9}},
		{Sel: Selector{Comm: "other", PID: -1, TID: -1}, Until: &UntilOverride{Kind: UntilCount}},
	}}
	if u, d, set := Termination(tk, cfg); u != UntilDeadline || d != 1e9 || !set {
		t.Errorf("overrides: %v %d %v, want deadline 1e9 set", u, d, set)
	}
}

func TestGroupQuotaTwoCPUs(t *testing.T) {
	// Two hogs in /svc on two CPUs with cpu.max 50ms/100ms: the group's
	// runqueues on both CPUs draw 5 ms slices from one pool, so the pair
	// runs 50 ms per period in all, not per CPU: about 550 ms of the first
	// second between them (refills at 50, 150, ... 950 ms, the first half
	// a period after the start: 11 quotas; each CPU may overrun its slice
	// by up to a 4 ms tick before the pick throttles it: ± 40 ms).
	for _, pol := range []string{"eevdf", "eevdf:NO_TASK_THROTTLE", "cfs"} {
		t.Run(pol, func(t *testing.T) {
			m := groupHogs(2_000_000_000, "/svc", "/svc")
			m.NrCPUs = 2
			cfg := Config{HZ: 250, Cgroups: []trace.CgroupSettings{{Path: "/svc", QuotaNS: 50_000_000, PeriodNS: 100_000_000}}}
			res := simulate(t, m, pol, cfg)
			got := runBefore(res, 1_000_000_000)
			if sum := got[100] + got[101]; sum < 510_000_000 || sum > 590_000_000 {
				t.Errorf("the hogs ran %d + %d ns of the first second, want 550 ms ± 40 ms in all", got[100], got[101])
			}
			if len(res.GroupStats) != 1 || res.GroupStats[0].NrThrottled < 9 {
				t.Errorf("group stats %+v, want /svc throttled in nearly every period", res.GroupStats)
			}
		})
	}
}

// TestPredictionCarriesCgroups: a prediction names its task groups as a
// capture with cgroups does: hogs 100 and 101 in /a and 102 in /b give
// Meta.Cgroups {1: "/", and /a and /b under the ids of their places in
// Groups}, /a's and /b's settings (cpu.weight 100, no quota: the
// defaults), and every sched_switch the id of the task it switches out
// (the idle task's: the root's, 1).
func TestPredictionCarriesCgroups(t *testing.T) {
	m := groupHogs(50_000_000, "/a", "/a", "/b")
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	idOf := map[string]uint64{}
	for id, p := range res.Meta.Cgroups {
		idOf[p] = id
	}
	if len(idOf) != 3 || idOf["/"] != trace.RootCgroupID || idOf["/a"] == 0 || idOf["/b"] == 0 {
		t.Fatalf("Meta.Cgroups %v, want /, /a and /b with the root at %d", res.Meta.Cgroups, trace.RootCgroupID)
	}
	if len(res.Meta.CgroupSettings) != 2 {
		t.Errorf("Meta.CgroupSettings %+v, want /a's and /b's", res.Meta.CgroupSettings)
	}
	want := map[trace.TID]uint64{0: trace.RootCgroupID, 100: idOf["/a"], 101: idOf["/a"], 102: idOf["/b"]}
	n := 0
	for _, e := range res.Events() {
		if e.Kind != trace.KindSwitch {
			continue
		}
		n++
		if e.Cgroup != want[e.TID] {
			t.Fatalf("switch at %d out of tid %d: cgroup %d, want %d", e.Time, e.TID, e.Cgroup, want[e.TID])
		}
	}
	if n < 10 {
		t.Errorf("%d switches, want at least 10", n)
	}
}

// TestRecordedAutogroups: three nice-0 hogs on one CPU in the root cpu
// group, which traceview record read in autogroups: pids 100 and 101 in
// /autogroup-7 (nice 0, weight 100), pid 102 in /autogroup-9, read first
// at nice 0 and then, 300 ns into the trace, at nice 5
// (trace.AutogroupWeight(5) = 33): the replay starts it at weight 100 and
// applies the change at 300 ns (GroupInfo.Changes). The replay puts them there with the kernel's load
// weights for those nices, 1024 and 335 (sched_prio_to_weight; not the
// rounded cpu.weight 33, new-user pass 26 F10): /autogroup-9 gets
// 335/1359 of the CPU, 147.9 ms of the first 600 ms, and each of
// /autogroup-7's hogs (600 - 147.9) / 2 = 226.0 ms; as peers in
// one runqueue (new-user pass 25 F2: the recorded sessions were dropped)
// each would get 200 ms. A recording with autogroup off keeps them in the
// root.
func TestRecordedAutogroups(t *testing.T) {
	m := groupHogs(2_000_000_000, "/", "/", "/")
	m.End = 2_000_000_000 // (the readings date the nice change within the trace: heldReading)
	m.Meta.TaskAutogroups = map[trace.PID]string{100: "/autogroup-7", 101: "/autogroup-7", 102: "/autogroup-9"}
	m.Meta.CgroupSettings = []trace.CgroupSettings{
		{Path: "/autogroup-7", Weight: 100},
		{Path: "/autogroup-9", Time: 200, Weight: 100},
		{Path: "/autogroup-9", Time: 300, Weight: trace.AutogroupWeight(5), Nice: 5},
	}
	recordedAutogroups(m)
	groups, got := groupsByPath(t, m, Config{})
	g := got["/autogroup-9"]
	if g.Weight != 100 || g.Shares != 1024 || g.Source != "recorded" || g.Tasks != 1 || got["/autogroup-7"].Tasks != 2 ||
		len(g.Changes) != 1 || g.Changes[0].Time != 300 || g.Changes[0].Weight != 33 || g.Changes[0].Shares != 335 {
		t.Fatalf("groups %+v: want /autogroup-9 weight 100 (shares 1024) changed to 33 (shares 335) at 300 ns, recorded with 1 task, /autogroup-7 with 2", groups)
	}
	res := simulate(t, m, "eevdf", Config{HZ: 250})
	ran := runBefore(res, 600_000_000)
	for tid, want := range map[trace.TID]int64{100: 226_049_000, 101: 226_049_000, 102: 147_903_000} {
		if d := ran[tid] - want; d < -12_000_000 || d > 12_000_000 {
			t.Errorf("tid %d ran %d ns of the first 600 ms, want %d ± 12 ms", tid, ran[tid], want)
		}
	}
	off := groupHogs(2_000_000_000, "/", "/", "/")
	off.Meta.TaskAutogroups, off.Meta.Autogroup = m.Meta.TaskAutogroups, -1
	recordedAutogroups(off)
	if groups, _, _ := Groups(off, Config{}); len(groups) != 1 {
		t.Errorf("autogroup off: %d groups, want the root only", len(groups))
	}
}

// TestAutogroupWhatIfSource: a session --autogroup SEL=NAME makes (a
// path no task of the trace ran in) is labelled a what-if, not a session
// inferred from setsid (new-user pass 25 F7).
func TestAutogroupWhatIfSource(t *testing.T) {
	m := groupHogs(1_000_000_000, "/", "/")
	path := "/autogroup-web"
	groups, _, err := Groups(m, Config{Overrides: []Override{{Sel: Selector{PID: -1, TID: m.Tasks[0].TID}, Cgroup: &path}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[1].Path != path || groups[1].Source != "new session, made by --autogroup" {
		t.Errorf("groups %+v, want the root and %s, new session, made by --autogroup", groups, path)
	}
}

// groupsByPath returns Groups(m, cfg)'s groups, in order and by path.
func groupsByPath(t *testing.T, m *Model, cfg Config) ([]GroupInfo, map[string]GroupInfo) {
	t.Helper()
	groups, _, err := Groups(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]GroupInfo{}
	for _, g := range groups {
		got[g.Path] = g
	}
	return groups, got
}

// TestHeldReading: of a group's readings, a replay holds the one in effect
// longest when the readings date the change (an autogroup's nice, read
// during the capture), the start's when the change was read only as the
// recording ended (cgroup settings), and says so; one setting read twice
// did not change. Trace 1000..4000 ns.
func TestHeldReading(t *testing.T) {
	ag0 := trace.CgroupSettings{Path: "/autogroup-5", Weight: 100, Nice: 0}
	ag10 := trace.CgroupSettings{Path: "/autogroup-5", Weight: trace.AutogroupWeight(10), Nice: 10}
	q10 := trace.CgroupSettings{Path: "/b", Weight: 50, Shares: 512, QuotaNS: 10_000_000, PeriodNS: 100_000_000}
	qmax := trace.CgroupSettings{Path: "/b", Weight: 50, Shares: 512, QuotaNS: -1, PeriodNS: 100_000_000}
	at := func(s trace.CgroupSettings, t int64) trace.CgroupSettings { s.Time = t; return s }
	for _, c := range []struct {
		name string
		list []trace.CgroupSettings
		want trace.CgroupSettings
		note string // a part of the note, "" none
	}{
		// nice 0 for 1000..1200 (200 ns), nice 10 for 1200..4000.
		{"nice set after setsid", []trace.CgroupSettings{at(ag0, 0), at(ag10, 1200)}, ag10, "in effect longest (93 % of the trace)"},
		// nice 0 for 1000..3000, nice 10 for 3000..4000.
		{"nice changed late", []trace.CgroupSettings{at(ag0, 0), at(ag10, 3000)}, ag0, "in effect longest (67 % of the trace)"},
		{"quota read at the end", []trace.CgroupSettings{at(q10, 0), at(qmax, 4100)}, q10, "as the recording ended; when is not recorded): the replay holds the start's"},
		{"unchanged", []trace.CgroupSettings{at(q10, 0), at(q10, 4100)}, q10, ""},
	} {
		got, note := heldReading(c.list, 1000, 4000)
		got.Time = 0
		if got != c.want || c.note == "" && note != "" || !strings.Contains(note, c.note) {
			t.Errorf("%s: held %+v, note %q; want %+v, a note with %q", c.name, got, note, c.want, c.note)
		}
	}
}

// TestGroupsLineEscapesPath: a group's path with a byte that is not UTF-8
// or a control character is written on the model line as the tables
// write names (termsafe.Name: \xHH), never raw to the terminal (new-user
// pass 103 F4: the line printed U+FFFD where the tables said \xff).
func TestGroupsLineEscapesPath(t *testing.T) {
	line := GroupsLine([]GroupInfo{{CgroupSettings: trace.CgroupSettings{Path: "/"}}, {CgroupSettings: trace.CgroupSettings{Path: "/n3/\xff\x1b"}, Source: "default", Tasks: 1}})
	if !strings.Contains(line, `task groups: /n3/\xff\x1b`) || strings.ContainsAny(line, "\xff\x1b") || strings.Contains(line, "\uFFFD") {
		t.Errorf("GroupsLine %q: want the path escaped", line)
	}
}
