//go:build linux

package ebpf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// requireCPUGroup returns the cgroup mounts when a cpu-controller cgroup
// can be made here (root, a v1 cpu hierarchy or cgroup v2 with the cpu
// controller available), else skips the test saying why, or fails it with
// TRACEVIEW_REQUIRE_BPF=1.
func requireCPUGroup(t *testing.T) CgroupMounts {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("TRACEVIEW_REQUIRE_BPF") == "1" {
			t.Fatalf("cannot make a cpu cgroup and TRACEVIEW_REQUIRE_BPF=1: %s", why)
		}
		t.Skipf("cannot make a cpu cgroup (set TRACEVIEW_REQUIRE_BPF=1 to fail instead): %s", why)
	}
	if os.Geteuid() != 0 {
		skip("not root")
	}
	m := FindCgroupMounts("/proc/self/mountinfo")
	if m.V1CPU != "" {
		return m
	}
	if m.V2 == "" {
		skip("no cgroup v1 cpu hierarchy and no cgroup2 mount")
	}
	b, err := os.ReadFile(filepath.Join(m.V2, "cgroup.controllers"))
	if err != nil || !hasOption(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", ","), "cpu") {
		skip("cgroup2 at " + m.V2 + " lacks the cpu controller")
	}
	// Enable it for the root's children (a no-op when it is).
	if err := os.WriteFile(filepath.Join(m.V2, "cgroup.subtree_control"), []byte("+cpu"), 0); err != nil {
		skip("cannot enable the cpu controller in " + m.V2 + ": " + err.Error())
	}
	return m
}

// kernelStat reads dir's cpu.stat as the kernel gives it.
func kernelStat(t *testing.T, dir string) trace.CgroupStat {
	t.Helper()
	st, ok := ReadCgroupStat(dir, "", 0)
	if !ok {
		t.Fatalf("%s/cpu.stat: no bandwidth counters", dir)
	}
	return st
}

// TestRecordCgroupSettings: two CPU hogs run in a cgroup with cpu.shares
// 2048 (v2: cpu.weight 200) and a quota of 10 ms per 100 ms while
// traceview records for a second (a weight above the default and two hogs,
// so that the group gets more than its quota on a busy machine too). The file's Meta carries the group's path, weight
// and quota, read at the start, and its cpu.stat at the start and the end,
// between the kernel's own readings before and after the capture; the
// kernel throttled the group in that time.
func TestRecordCgroupSettings(t *testing.T) {
	requireBPF(t, false)
	mounts := requireCPUGroup(t)
	v1 := mounts.V1CPU != ""
	name := fmt.Sprintf("tv-test-rec-%d", os.Getpid())
	root := mounts.V2
	if v1 {
		root = mounts.V1CPU
	}
	dir := filepath.Join(root, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// With the cpu controller in v1, a mirror group in cgroup2 gives the
	// hogs' events a cgroup id whose path names the same group (as
	// ../shared/workloads/cgrun does), so that the latency report can
	// tie their waits to the group's quota.
	mirror := ""
	if v1 && mounts.V2 != "" {
		mirror = filepath.Join(mounts.V2, name)
		if err := os.Mkdir(mirror, 0o755); err != nil {
			mirror = ""
		}
	}
	var hogs []*exec.Cmd
	t.Cleanup(func() {
		for _, hog := range hogs {
			hog.Process.Kill()
			hog.Wait()
		}
		// The group goes once its last task has exited.
		for _, d := range []string{dir, mirror} {
			if d == "" {
				continue
			}
			var err error
			for range 50 {
				if err = os.Remove(d); err == nil || os.IsNotExist(err) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil && !os.IsNotExist(err) {
				t.Errorf("removing the test cgroup %s: %v", d, err)
			}
		}
	})
	set := func(file, v string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	if v1 {
		set("cpu.shares", "2048")
		set("cpu.cfs_period_us", "100000")
		set("cpu.cfs_quota_us", "10000")
	} else {
		set("cpu.weight", "200")
		set("cpu.max", "10000 100000")
	}
	hogPIDs := map[trace.PID]bool{}
	for range 2 {
		hog := exec.Command("sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		hogs = append(hogs, hog)
		set("cgroup.procs", strconv.Itoa(hog.Process.Pid))
		if mirror != "" {
			if err := os.WriteFile(filepath.Join(mirror, "cgroup.procs"), []byte(strconv.Itoa(hog.Process.Pid)), 0); err != nil {
				t.Fatal(err)
			}
		}
		hogPIDs[trace.PID(hog.Process.Pid)] = true
	}

	before := kernelStat(t, dir)
	c, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(t.TempDir(), "cg.tv")
	rec, err := NewRecorder(c, RecordConfig{Path: path, Header: RecordHeader(c.Mode())})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := rec.Run(ctx); err != nil {
		t.Fatal(err)
	}
	after := kernelStat(t, dir)
	for _, hog := range hogs {
		hog.Process.Signal(syscall.SIGKILL)
	}

	if after.NrThrottled <= before.NrThrottled || after.ThrottledNS <= before.ThrottledNS {
		t.Fatalf("the kernel did not throttle the hogs: cpu.stat before %+v, after %+v", before, after)
	}
	src, err := trace.Open(path) // tvf: the package imports it
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	m := src.Meta()
	hogSwitches := 0
	for _, e := range evs {
		if e.Kind == trace.KindSwitch && hogPIDs[e.PID] {
			hogSwitches++
		}
	}
	if hogSwitches == 0 {
		t.Errorf("no switch of the hogs (pids %v) in %d events", hogPIDs, len(evs))
	}
	if want := AutogroupEnabled("/proc"); m.Autogroup != want {
		t.Errorf("Meta.Autogroup %d, want %d", m.Autogroup, want)
	}
	for _, w := range m.Warnings.List() {
		if strings.HasPrefix(w.Key, "bad-cgroup") {
			t.Errorf("warning: %s", w.Message)
		}
	}

	// The settings, as read at the start (Time 0), and no change.
	want := trace.CgroupSettings{Path: "/" + name, Weight: 200, QuotaNS: 10_000_000, PeriodNS: 100_000_000}
	if v1 {
		want.Shares = 2048
	}
	var got []trace.CgroupSettings
	for _, s := range m.CgroupSettings {
		if s.Path == want.Path {
			got = append(got, s)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("settings of %s: %+v, want [%+v] (all: %v)", want.Path, got, want, m.CgroupSettings)
	}

	// cpu.stat at both ends of the file, within the kernel's readings.
	var stats []trace.CgroupStat
	for _, st := range m.CgroupStats {
		if st.Path == want.Path {
			stats = append(stats, st)
		}
	}
	if len(stats) != 2 {
		t.Fatalf("cpu.stat readings of %s: %+v, want 2", want.Path, stats)
	}
	d, ok := trace.CgroupStatDelta(stats[0], stats[1])
	if !ok || d.NrThrottled == 0 || d.ThrottledNS <= 0 {
		t.Errorf("recorded cpu.stat delta %+v (ok %v): want throttling", d, ok)
	}
	kd, _ := trace.CgroupStatDelta(before, after)
	if stats[0].NrThrottled < before.NrThrottled || stats[1].NrThrottled > after.NrThrottled ||
		stats[0].ThrottledNS < before.ThrottledNS || stats[1].ThrottledNS > after.ThrottledNS {
		t.Errorf("recorded cpu.stat %+v .. %+v outside the kernel's %+v .. %+v", stats[0], stats[1], before, after)
	}
	if span := stats[1].Time - stats[0].Time; span < int64(900*time.Millisecond) || span > int64(5*time.Second) {
		t.Errorf("recorded cpu.stat readings %d ns apart, want about the 1 s capture", span)
	}
	// Each throttled period of the window is one of at most ~11 periods of
	// a 1 s capture at 100 ms (plus the reads' own time).
	if d.NrThrottled > kd.NrThrottled || d.NrPeriods > 15 {
		t.Errorf("recorded delta %+v against the kernel's %+v", d, kd)
	}
	t.Logf("recorded %s; cpu.stat over the file: %s; kernel around it: %s", got[0], d, kd)

	// The latency report of the file: the group's throttling, inferred
	// from the schedule with the recorded quota, against what cpu.stat
	// counted over the file (its Kernel figures). Issue 27's bound is
	// ±25 %, which the committed recordings hold (report's
	// TestThrottleAgainstKernel); this capture runs beside the rest of the
	// suite, whose tasks take the CPUs the throttled hogs leave and delay
	// their return past the period boundary. Measured here: 8-10 inferred
	// of 10 counted on a quiet machine, 4 of 10 with four busy loops
	// beside the group, 1 of 8 once under the whole suite in parallel. So
	// this checks that throttling is found at all and never overcounted.
	lsrc, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lsrc.Close()
	res, err := report.ComputeLatency(lsrc, report.LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var g *report.CgroupThrottle
	for i := range res.Cgroups {
		if res.Cgroups[i].Path == want.Path {
			g = &res.Cgroups[i]
		}
	}
	if g == nil {
		t.Fatalf("latency: no group %s in %v", want.Path, res.Cgroups)
	}
	if g.Kernel == nil || g.Kernel.NrThrottled != d.NrThrottled || g.Settings != "recorded" || g.QuotaNS != 10_000_000 {
		t.Errorf("latency group %s: kernel %v (want %s), settings %s quota %d", g.Path, g.Kernel, d, g.Settings, g.QuotaNS)
	}
	if g.ThrottledPeriods < 1 || float64(g.ThrottledPeriods) > 1.25*float64(d.NrThrottled) {
		t.Errorf("latency infers %d throttled periods (%.3f ms), cpu.stat counted %d (%.3f ms)", g.ThrottledPeriods, float64(g.Throttled)/1e6, d.NrThrottled, float64(d.ThrottledNS)/1e6)
	}
	t.Logf("latency infers %d throttled periods, %.3f ms; cpu.stat over the file: %d, %.3f ms", g.ThrottledPeriods, float64(g.Throttled)/1e6, d.NrThrottled, float64(d.ThrottledNS)/1e6)
}
