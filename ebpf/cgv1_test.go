package ebpf

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// TestV1Sampler: a fake v1 cpu hierarchy with group /a/b (shares 512,
// quota 25 ms per 100 ms) listing task 10. The sampler puts task 10 in
// /a/b about the time of its reading and nowhere long after, keeps the
// settings of /a/b and /a read when first seen after the group is
// removed, and a file's switches of task 10 get an id that names /a/b;
// task 11 (the root group) keeps its cgroup v2 id.
func TestV1Sampler(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"b/tasks": "10\n", "b/cpu.shares": "512", "b/cpu.cfs_quota_us": "25000", "b/cpu.cfs_period_us": "100000", "cpu.shares": "1024"} {
		if err := os.WriteFile(filepath.Join(root, "a", name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &groupReader{mounts: CgroupMounts{V1CPU: root}, proc: t.TempDir()}
	stop := make(chan struct{})
	s := startV1Sampler(g, stop)
	close(stop)
	now := monotonicNow()
	if got := s.group(10, now); got != "/a/b" {
		t.Errorf("task 10 at the reading: %q, want /a/b", got)
	}
	if got := s.group(10, now+int64(10*v1SampleEvery)); got != "" {
		t.Errorf("task 10 long after the last reading: %q, want none", got)
	}
	if got := s.group(11, now); got != "" {
		t.Errorf("task 11: %q, want none (the root group)", got)
	}
	os.RemoveAll(filepath.Join(root, "a"))
	set := s.settings()
	want := trace.CgroupSettings{Path: "/a/b", Shares: 512, Weight: 50, QuotaNS: 25_000_000, PeriodNS: 100_000_000}
	got := set["/a/b"]
	got.Time = 0
	if got != want {
		t.Errorf("settings of /a/b: %+v, want %+v", got, want)
	}
	if got := set["/a"]; got.Shares != 1024 {
		t.Errorf("settings of /a: %+v, want shares 1024", got)
	}
	a := newV1Attrib(s)
	e := trace.NewEvent(now, 0, trace.KindSwitch)
	e.TID, e.Cgroup = 10, 77
	a.rewrite(&e)
	if e.Cgroup&V1CgroupIDBit == 0 || a.paths[e.Cgroup] != "/a/b" {
		t.Errorf("task 10's switch: cgroup %#x (%q), want a v1 id naming /a/b", e.Cgroup, a.paths[e.Cgroup])
	}
	e.TID, e.Cgroup = 11, 77
	if a.rewrite(&e); e.Cgroup != 77 {
		t.Errorf("task 11's switch: cgroup %#x, want its v2 id 77", e.Cgroup)
	}
	// Task 12, forked by task 10 then and never listed (it ends before a
	// reading), is in /a/b from its birth, its own child 13 too; task 14,
	// forked by task 11, stays in the root group.
	for _, f := range [][2]trace.TID{{10, 12}, {12, 13}, {11, 14}} {
		fk := trace.NewEvent(now, 0, trace.KindFork)
		fk.TID, fk.ChildTID = f[0], f[1]
		a.rewrite(&fk)
	}
	for tid, want := range map[trace.TID]string{12: "/a/b", 13: "/a/b", 14: ""} {
		e := trace.NewEvent(now+int64(50*time.Millisecond), 1, trace.KindSwitch)
		e.TID, e.Cgroup = tid, 77
		a.rewrite(&e)
		got := ""
		if e.Cgroup != 77 {
			got = a.paths[e.Cgroup]
		}
		if got != want {
			t.Errorf("task %d's switch: group %q, want %q", tid, got, want)
		}
	}
}

// TestV1AwaitReading: an event newer than the latest reading waits for
// the next one (here set 30 ms later by hand), an older one does not, and
// nothing waits once the sampler has stopped.
func TestV1AwaitReading(t *testing.T) {
	s := &v1Sampler{spans: map[trace.TID][]v1Span{}, latest: 1000}
	start := time.Now()
	s.awaitReading(900)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("an event before the latest reading waited %v", d)
	}
	go func() {
		time.Sleep(30 * time.Millisecond)
		s.mu.Lock()
		s.latest = 3000
		s.mu.Unlock()
	}()
	start = time.Now()
	s.awaitReading(2000)
	if d := time.Since(start); d < 30*time.Millisecond || d > v1WaitMax {
		t.Errorf("an event after the latest reading waited %v, want from 30 ms (the next reading) to %v", d, v1WaitMax)
	}
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	start = time.Now()
	s.awaitReading(1 << 62)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("a stopped sampler made an event wait %v", d)
	}
}
