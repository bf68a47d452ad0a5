package ebpf

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// writeFiles creates the files of m (path relative to root: content).
func writeFiles(t *testing.T, root string, m map[string]string) {
	t.Helper()
	for p, c := range m {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindCgroupMounts(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"hybrid": `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`, "v2": `36 25 0:31 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate
`, "joint": `32 31 0:29 / /sys/fs/cgroup/cpu\040acct rw - cgroup cgroup rw,cpu,cpuacct
`, "container": `1210 1208 0:29 /docker/4f2a /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu
`})
	for name, want := range map[string]CgroupMounts{
		"hybrid":    {V2: "/sys/fs/cgroup/unified", V1CPU: "/sys/fs/cgroup/cpu", V1CPURoot: "/"},
		"v2":        {V2: "/sys/fs/cgroup"},
		"joint":     {V1CPU: "/sys/fs/cgroup/cpu acct", V1CPURoot: "/"},
		"container": {V1CPU: "/sys/fs/cgroup/cpu", V1CPURoot: "/docker/4f2a"},
		"missing":   {},
	} {
		if got := FindCgroupMounts(filepath.Join(dir, name)); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

func TestReadCgroupSettings(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"v1/a/cpu.shares": "512\n", "v1/a/cpu.cfs_quota_us": "20000\n", "v1/a/cpu.cfs_period_us": "100000\n", "v1/a/cpu.cfs_burst_us": "0\n",
		"v1/a/cpu.stat":   "nr_periods 12\nnr_throttled 9\nthrottled_time 812345678\nnr_bursts 0\nburst_time 0\n",
		"v1/b/cpu.shares": "1024\n", "v1/b/cpu.cfs_quota_us": "-1\n", "v1/b/cpu.cfs_period_us": "100000\n",
		"v2/c/cpu.weight": "300\n", "v2/c/cpu.max": "max 100000\n", "v2/c/cpu.max.burst": "5000\n",
		"v2/d/cpu.weight": "100\n", "v2/d/cpu.max": "25000 50000\n",
		"v2/d/cpu.stat": "usage_usec 5\nuser_usec 3\nsystem_usec 2\nnr_periods 4\nnr_throttled 2\nthrottled_usec 1500\nnr_bursts 1\nburst_usec 7\n",
		"v2/e/cpu.stat": "usage_usec 5\nuser_usec 3\nsystem_usec 2\n",
	})
	for _, c := range []struct {
		dir  string
		v1   bool
		want trace.CgroupSettings
		ok   bool
	}{
		{"v1/a", true, trace.CgroupSettings{Path: "/x", Weight: 50, Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000}, true},
		{"v1/b", true, trace.CgroupSettings{Path: "/x", Weight: 100, Shares: 1024, QuotaNS: -1, PeriodNS: 100_000_000}, true},
		{"v2/c", false, trace.CgroupSettings{Path: "/x", Weight: 300, QuotaNS: -1, PeriodNS: 100_000_000, BurstNS: 5_000_000}, true},
		{"v2/d", false, trace.CgroupSettings{Path: "/x", Weight: 100, QuotaNS: 25_000_000, PeriodNS: 50_000_000}, true},
		{"v2/e", false, trace.CgroupSettings{Path: "/x"}, false},
	} {
		got, ok := ReadCgroupSettings(filepath.Join(root, c.dir), "/x", c.v1)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.dir, got, ok, c.want, c.ok)
		}
		if ok && got.Check() != nil {
			t.Errorf("%s: %v", c.dir, got.Check())
		}
	}
	for _, c := range []struct {
		dir  string
		want trace.CgroupStat
		ok   bool
	}{
		{"v1/a", trace.CgroupStat{Path: "/x", Time: 7, NrPeriods: 12, NrThrottled: 9, ThrottledNS: 812345678}, true},
		{"v2/d", trace.CgroupStat{Path: "/x", Time: 7, NrPeriods: 4, NrThrottled: 2, ThrottledNS: 1_500_000, NrBursts: 1, BurstNS: 7000}, true},
		{"v2/e", trace.CgroupStat{Path: "/x", Time: 7}, false},
		{"v1/b", trace.CgroupStat{}, false},
	} {
		got, ok := ReadCgroupStat(filepath.Join(root, c.dir), "/x", 7)
		if ok != c.ok || got != c.want {
			t.Errorf("%s cpu.stat: %+v %v, want %+v %v", c.dir, got, ok, c.want, c.ok)
		}
	}
}

// v1Tree is a v1 cpu hierarchy: the root, /p (shares 2048, no quota) and
// /p/c (shares 512, 20 ms per 100 ms).
var v1Tree = map[string]string{
	"cpu/cpu.shares": "1024\n", "cpu/cpu.cfs_quota_us": "-1\n",
	"cpu/p/cpu.shares": "2048\n", "cpu/p/cpu.cfs_quota_us": "-1\n", "cpu/p/cpu.cfs_period_us": "100000\n",
	"cpu/p/c/cpu.shares": "512\n", "cpu/p/c/cpu.cfs_quota_us": "20000\n", "cpu/p/c/cpu.cfs_period_us": "100000\n",
}

// TestGroupSnapshot: on a fake v1 cpu hierarchy and /proc, a file's
// settings are those of the groups of its processes and their ancestors
// (not of other groups), the autogroups of its processes in the root
// group; a change at the end adds an entry with the time read, and each
// group's cpu.stat is read at both ends.
func TestGroupSnapshot(t *testing.T) {
	root := t.TempDir()
	cg, proc := filepath.Join(root, "cpu"), filepath.Join(root, "proc")
	writeFiles(t, root, v1Tree)
	writeFiles(t, root, map[string]string{
		"cpu/p/c/cpu.stat":     "nr_periods 1\nnr_throttled 0\nthrottled_time 0\n",
		"cpu/other/cpu.shares": "100\n",
		"proc/10/cgroup":       "4:memory:/m\n1:cpu:/p/c\n0::/\n",
		"proc/11/cgroup":       "1:cpu:/\n0::/\n", "proc/11/autogroup": "/autogroup-5 nice 3\n",
		"proc/12/cgroup": "1:cpu:/\n0::/\n", "proc/12/autogroup": "/autogroup-6 nice 0\n",
	})
	g := &groupReader{mounts: CgroupMounts{V1CPU: cg}, proc: proc, autogroup: true}
	snap := g.snapshot(100)
	writeFiles(t, root, map[string]string{
		"cpu/p/c/cpu.cfs_quota_us": "50000\n",
		"cpu/p/c/cpu.stat":         "nr_periods 11\nnr_throttled 8\nthrottled_time 700000000\n",
		"proc/11/autogroup":        "/autogroup-5 nice -2\n",
	})
	set, stats, _ := g.finish(snap, nil, map[trace.PID]bool{10: true, 11: true}, 900, true, nil, nil, nil, nil, nil)
	wantSet := []trace.CgroupSettings{
		{Path: "/p", Weight: 200, Shares: 2048, QuotaNS: -1, PeriodNS: 100_000_000},
		{Path: "/p/c", Weight: 50, Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000},
		{Path: "/p/c", Time: 900, Weight: 50, Shares: 512, QuotaNS: 50_000_000, PeriodNS: 100_000_000},
		{Path: "/autogroup-5", Weight: trace.AutogroupWeight(3), Nice: 3},
		{Path: "/autogroup-5", Time: 900, Weight: trace.AutogroupWeight(-2), Nice: -2},
	}
	if diff := cmp.Diff(wantSet, set); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	wantStats := []trace.CgroupStat{
		{Path: "/p/c", Time: 100, NrPeriods: 1},
		{Path: "/p/c", Time: 900, NrPeriods: 11, NrThrottled: 8, ThrottledNS: 700_000_000},
	}
	if diff := cmp.Diff(wantStats, stats); diff != "" {
		t.Errorf("cpu.stat (-want +got):\n%s", diff)
	}
	// The events' cgroup v2 paths name groups too (cgrun makes the same
	// path in both hierarchies); a ring dump's start is not time 0.
	set, _, _ = g.finish(g.snapshot(100), map[uint64]string{7: "/other"}, nil, 900, false, nil, nil, nil, nil, nil)
	if want := []trace.CgroupSettings{{Path: "/other", Time: 100, Weight: 10, Shares: 100}}; !cmp.Equal(want, set) {
		t.Errorf("by cgroup id: %+v, want %+v", set, want)
	}
}

// TestSettingsSampler: the settings sampler dates the changes between a
// file's start and end. /p/c's quota goes 20 -> 50 ms (read at 300) -> 30 ms
// (read at 500) and stays; a group made at 400 (/n) comes with its first
// reading. The file's settings are the start's (time 0), then each change
// at the time of the reading that saw it, and no end reading for a group
// whose last dated reading the end agrees with: /p/c 20 ms at 0, 50 ms at
// 300, 30 ms at 500; /n shares 256 at 400. /p did not change: one reading.
func TestSettingsSampler(t *testing.T) {
	root := t.TempDir()
	cg, proc := filepath.Join(root, "cpu"), filepath.Join(root, "proc")
	writeFiles(t, root, v1Tree)
	writeFiles(t, root, map[string]string{
		"proc/10/cgroup": "1:cpu:/p/c\n0::/\n",
		"proc/13/cgroup": "1:cpu:/n\n0::/\n",
	})
	g := &groupReader{mounts: CgroupMounts{V1CPU: cg}, proc: proc}
	s := &settingsSampler{g: g, last: map[string]trace.CgroupSettings{}, changes: map[string][]trace.CgroupSettings{}}
	s.sample(50)
	snap := g.snapshot(100)
	s.sample(200) // nothing changed
	writeFiles(t, root, map[string]string{"cpu/p/c/cpu.cfs_quota_us": "50000\n"})
	s.sample(300)
	writeFiles(t, root, map[string]string{"cpu/n/cpu.shares": "256\n"})
	s.sample(400)
	writeFiles(t, root, map[string]string{"cpu/p/c/cpu.cfs_quota_us": "30000\n"})
	s.sample(500)
	s.sample(950) // after the file's end: not its
	set, _, _ := g.finish(snap, nil, map[trace.PID]bool{10: true, 13: true}, 900, true, nil, nil, nil, nil, s)
	want := []trace.CgroupSettings{
		{Path: "/n", Time: 400, Weight: 25, Shares: 256}, // (256·100 + 512) / 1024 = 25
		{Path: "/p", Weight: 200, Shares: 2048, QuotaNS: -1, PeriodNS: 100_000_000},
		{Path: "/p/c", Weight: 50, Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000},
		{Path: "/p/c", Time: 300, Weight: 50, Shares: 512, QuotaNS: 50_000_000, PeriodNS: 100_000_000},
		{Path: "/p/c", Time: 500, Weight: 50, Shares: 512, QuotaNS: 30_000_000, PeriodNS: 100_000_000},
	}
	if diff := cmp.Diff(want, set); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	// Without the sampler only the ends are read: the change to 50 ms is
	// lost and the one to 30 ms dated at the end.
	set, _, _ = g.finish(snap, nil, map[trace.PID]bool{10: true}, 900, true, nil, nil, nil, nil, nil)
	if len(set) != 3 || set[2].Time != 900 || set[2].QuotaNS != 30_000_000 {
		t.Errorf("without the sampler: %+v, want /p, /p/c 20 ms, /p/c 30 ms at 900", set)
	}
}

func TestAutogroupEnabled(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"on/sys/kernel/sched_autogroup_enabled": "1\n", "off/sys/kernel/sched_autogroup_enabled": "0\n", "none/sys/kernel/x": ""})
	for name, want := range map[string]int8{"on": 1, "off": -1, "none": -1, "missing": 0} {
		if got := AutogroupEnabled(filepath.Join(root, name)); got != want {
			t.Errorf("%s: %d, want %d", name, got, want)
		}
	}
}

// BenchmarkGroupSnapshot reads this machine's cgroup tree and /proc as a
// file's start does (a file's start pays this once).
func BenchmarkGroupSnapshot(b *testing.B) {
	g := &groupReader{mounts: FindCgroupMounts("/proc/self/mountinfo"), proc: "/proc", autogroup: AutogroupEnabled("/proc") > 0}
	b.ReportAllocs()
	for b.Loop() {
		g.snapshot(1)
	}
}

// TestReadBandwidth reads the cpu.stat counters of a made-up v1 cpu
// hierarchy: the root and /p/c have bandwidth counters, /p's cpu.stat has
// only usage fields (no nr_periods: left out), /q has none.
func TestReadBandwidth(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"cpu/cpu.stat":     "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n",
		"cpu/p/cpu.stat":   "usage_usec 5\n",
		"cpu/p/c/cpu.stat": "nr_periods 11\nnr_throttled 8\nthrottled_time 700000000\n",
		"cpu/q/cpu.shares": "1024\n",
	})
	got := ReadBandwidth(CgroupMounts{V1CPU: filepath.Join(root, "cpu")}, 42)
	want := map[string]trace.CgroupStat{
		"/":    {Path: "/", Time: 42},
		"/p/c": {Path: "/p/c", Time: 42, NrPeriods: 11, NrThrottled: 8, ThrottledNS: 700_000_000},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadBandwidth (-want +got):\n%s", diff)
	}
	if got := ReadBandwidth(CgroupMounts{}, 42); len(got) != 0 {
		t.Errorf("no hierarchy: %v, want none", got)
	}
}

// TestAutogroupSampler: on a fake /proc, process 11 is in /autogroup-5
// (nice 3) when the file starts, set to -2 by 300 (the sampler's reading
// follows the start's); process 12 appears during it in a new
// session, /autogroup-8, read at 200 with nice 0, which it sets to 5 by
// 300 and keeps until it exits (gone at 400); process 13, in the v1 cpu
// group /p, is in no autogroup. The file's settings are /autogroup-5's
// start reading (time 0) and /autogroup-8's two readings (200 and 300);
// its processes' autogroups are 11's and 12's (new-user pass 25 F1: a
// session started during the capture was not recorded at all). Process
// 14, read at 200 in its parent's /autogroup-5, calls setsid by 300: the
// sampler, which reads a process again for agFollow (1 s) after it first
// saw it, places it in /autogroup-10. 11's move to /autogroup-11 at 2 s,
// past that second, is not followed.
func TestAutogroupSampler(t *testing.T) {
	root := t.TempDir()
	cg, proc := filepath.Join(root, "cpu"), filepath.Join(root, "proc")
	writeFiles(t, root, map[string]string{
		"cpu/cpu.shares": "1024\n", "cpu/p/cpu.shares": "1024\n", "cpu/p/cpu.cfs_quota_us": "-1\n",
		"proc/11/cgroup": "1:cpu:/\n0::/\n", "proc/11/autogroup": "/autogroup-5 nice 3\n",
	})
	g := &groupReader{mounts: CgroupMounts{V1CPU: cg}, proc: proc, autogroup: true}
	snap := g.snapshot(100)
	s := newProcSampler(g)
	s.sample(100)
	writeFiles(t, root, map[string]string{
		"proc/12/cgroup": "1:cpu:/\n0::/\n", "proc/12/autogroup": "/autogroup-8 nice 0\n",
		"proc/13/cgroup": "1:cpu:/p\n0::/\n", "proc/13/autogroup": "/autogroup-5 nice 3\n",
		"proc/14/cgroup": "1:cpu:/\n0::/\n", "proc/14/autogroup": "/autogroup-5 nice 3\n",
	})
	s.sample(200)
	writeFiles(t, root, map[string]string{"proc/12/autogroup": "/autogroup-8 nice 5\n", "proc/11/autogroup": "/autogroup-5 nice -2\n",
		"proc/14/autogroup": "/autogroup-10 nice 0\n"})
	s.sample(300)
	if err := os.RemoveAll(filepath.Join(proc, "12")); err != nil {
		t.Fatal(err)
	}
	s.sample(400)
	writeFiles(t, root, map[string]string{"proc/11/autogroup": "/autogroup-11 nice 0\n"})
	s.sample(2_000_000_000)
	pids := map[trace.PID]bool{11: true, 12: true, 13: true, 14: true}
	agOf, agReadings := s.forFile(pids)
	set, _, taskAG := g.finish(snap, nil, pids, 900, true, nil, nil, agOf, agReadings, nil)
	wantSet := []trace.CgroupSettings{
		{Path: "/p", Weight: 100, Shares: 1024, QuotaNS: -1},
		{Path: "/autogroup-5", Weight: trace.AutogroupWeight(3), Nice: 3},
		{Path: "/autogroup-5", Time: 300, Weight: trace.AutogroupWeight(-2), Nice: -2},
		{Path: "/autogroup-8", Time: 200, Weight: 100},
		{Path: "/autogroup-10", Time: 300, Weight: 100},
		{Path: "/autogroup-8", Time: 300, Weight: trace.AutogroupWeight(5), Nice: 5},
	}
	if diff := cmp.Diff(wantSet, set); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if want := map[trace.PID]string{11: "/autogroup-5", 12: "/autogroup-8", 14: "/autogroup-10"}; !cmp.Equal(want, taskAG) {
		t.Errorf("autogroups %v, want %v", taskAG, want)
	}
}

// TestAutogroupReadingsOneTime (new-user pass 85 F5): a pass that reads
// an autogroup twice, at nice 0 as it first sees the session and at nice 5
// when it reads its representative again, keeps one reading at its time,
// the later; readings of other groups or times stay. By hand: readings
// (/autogroup-1, 100, nice 0), then this pass (time 200) reads
// /autogroup-2 at nice 0, /autogroup-3 at nice 0, /autogroup-2 again at
// nice 5: kept are autogroup-1 at 100, autogroup-2 at 200 nice 5,
// autogroup-3 at 200 nice 0.
func TestAutogroupReadingsOneTime(t *testing.T) {
	s := &procSampler{}
	ag := func(path string, at int64, nice int) trace.CgroupSettings {
		return trace.CgroupSettings{Path: path, Time: at, Nice: nice, Weight: trace.AutogroupWeight(nice)}
	}
	s.readings = []trace.CgroupSettings{ag("/autogroup-1", 100, 0)}
	for _, a := range []trace.CgroupSettings{ag("/autogroup-2", 200, 0), ag("/autogroup-3", 200, 0), ag("/autogroup-2", 200, 5)} {
		s.addReading(a)
	}
	want := []trace.CgroupSettings{ag("/autogroup-1", 100, 0), ag("/autogroup-2", 200, 5), ag("/autogroup-3", 200, 0)}
	if diff := cmp.Diff(want, s.readings); diff != "" {
		t.Errorf("readings (-want +got):\n%s", diff)
	}
}

// TestProcSamplerAffinity: of two processes on a 2-CPU machine, one may
// run on CPU 1 only (taskset -c 1): the sampler records its
// Cpus_allowed_list, "1" (new-user pass 26 F2); the other's, every CPU,
// "0-1", is recorded too, so that replay does not infer it pinned where it
// happened to run (new-user pass 82 F1); a process not read has none, nor
// one that exec'd after it was read.
func TestProcSamplerAffinity(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	writeFiles(t, root, map[string]string{
		"proc/20/cgroup": "0::/\n", "proc/20/status": "Name:\thog\nCpus_allowed:\t2\nCpus_allowed_list:\t1\n",
		"proc/21/cgroup": "0::/\n", "proc/21/status": "Name:\thog\nCpus_allowed_list:\t0-1\n",
	})
	s := newProcSampler(&groupReader{proc: proc})
	s.sample(100)
	if got := s.affinityFor(map[trace.PID]bool{20: true, 21: true, 22: true}, map[trace.PID]int64{21: 50}); !cmp.Equal(got, map[trace.PID]string{20: "1", 21: "0-1"}) {
		t.Errorf("affinity %v, want 20: 1, 21: 0-1", got)
	}
	// A process that exec'd after its reading (at 150; read at 100):
	// taskset may have set its mask in between (new-user pass 84 F2).
	if got := s.affinityFor(map[trace.PID]bool{20: true, 21: true}, map[trace.PID]int64{21: 150}); !cmp.Equal(got, map[trace.PID]string{20: "1"}) {
		t.Errorf("affinity %v, want 20: 1 (21 exec'd after its reading)", got)
	}
}
