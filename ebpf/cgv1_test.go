package ebpf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	if got := s.group(10, 0, now); got != "/a/b" {
		t.Errorf("task 10 at the reading: %q, want /a/b", got)
	}
	if got := s.group(10, 0, now+int64(10*v1SampleEvery)); got != "" {
		t.Errorf("task 10 long after the last reading: %q, want none", got)
	}
	if got := s.group(11, 0, now); got != "" {
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

// TestV1MovesPlaceTasks: with every move known (exact), a task is in the
// group of its latest move at or before the time asked, and before its
// first move in the group the readings list it in, at any distance; the
// readings after a move say nothing of the time before it. Readings (trace
// clock, ns): task 10 listed in /a from 1000 to 5000 and in /b from 6000 to
// 9000, moved to /b at 5500 (a tasks write); task 21 of process 20 listed
// in /b from 6000 to 9000, its process moved to the root group at 7000 (a
// cgroup.procs write). Without the moves (exact false, slack 1000) the
// nearest reading within the slack decides: at 5200 /a (200 from its last
// reading, /b 800), at -2000 none (3000 from the nearest).
func TestV1MovesPlaceTasks(t *testing.T) {
	s := &v1Sampler{exact: true, slack: 1000,
		spans: map[trace.TID][]v1Span{
			10: {{path: "/a", first: 1000, last: 5000}, {path: "/b", first: 6000, last: 9000}},
			21: {{path: "/b", first: 6000, last: 9000}},
		},
		moves:     map[trace.TID][]v1Move{10: {{time: 5500, path: "/b"}}},
		procMoves: map[trace.PID][]v1Move{20: {{time: 7000, path: "/"}}},
	}
	for _, c := range []struct {
		tid  trace.TID
		pid  trace.PID
		t    int64
		want string
	}{
		{10, 0, -2000, "/a"}, {10, 0, 5400, "/a"}, {10, 0, 5500, "/b"}, {10, 0, 20000, "/b"},
		{21, 20, 6500, "/b"}, {21, 20, 7000, "/"}, {21, 20, 8000, "/"}, {21, 0, 8000, "/b"},
	} {
		if got := s.group(c.tid, c.pid, c.t); got != c.want {
			t.Errorf("exact: task %d (pid %d) at %d: %q, want %q", c.tid, c.pid, c.t, got, c.want)
		}
	}
	if m, ok := s.movedWithin(10, 0, 5000, 6000); !m || !ok {
		t.Errorf("task 10 in (5000, 6000]: moved %v ok %v, want true true", m, ok)
	}
	if m, ok := s.movedWithin(10, 0, 5500, 7000); m || !ok {
		t.Errorf("task 10 in (5500, 7000]: moved %v ok %v, want false true", m, ok)
	}
	if m, _ := s.movedWithin(21, 20, 6000, 7000); !m {
		t.Error("task 21 in (6000, 7000]: its process's move not seen")
	}
	s.exact = false
	for _, c := range []struct {
		t    int64
		want string
	}{{5200, "/a"}, {5600, "/b"}, {-2000, ""}} {
		if got := s.group(10, 0, c.t); got != c.want {
			t.Errorf("sampled: task 10 at %d: %q, want %q", c.t, got, c.want)
		}
	}
	if _, ok := s.movedWithin(10, 0, 0, 9000); ok {
		t.Error("movedWithin ok without the moves")
	}
}

// TestParseCgMove decodes a cg_move record as cgattach.c lays it out, one
// whose path fills the record (cut), and a short record.
func TestParseCgMove(t *testing.T) {
	b := make([]byte, cgMoveSize)
	binary.LittleEndian.PutUint64(b[0:], 123456789)
	binary.LittleEndian.PutUint32(b[8:], 4607)
	binary.LittleEndian.PutUint32(b[12:], 4600)
	binary.LittleEndian.PutUint32(b[16:], 3)
	binary.LittleEndian.PutUint16(b[20:], uint16(len("/nu11a")+1))
	b[22] = 1
	copy(b[24:], "/nu11a")
	m, ok := parseCgMove(b, binary.LittleEndian)
	want := cgMove{Time: 123456789, TID: 4607, PID: 4600, Hierarchy: 3, Threadgroup: true, Path: "/nu11a"}
	if !ok || m != want {
		t.Errorf("parseCgMove = %+v %v, want %+v", m, ok, want)
	}
	binary.LittleEndian.PutUint16(b[20:], 256)
	if m, _ := parseCgMove(b, binary.LittleEndian); !m.Cut {
		t.Errorf("a 256-byte path: %+v, want Cut", m)
	}
	if _, ok := parseCgMove(b[:100], binary.LittleEndian); ok {
		t.Error("a 100-byte record parsed")
	}
	for _, c := range []struct{ root, path, want string }{
		{"/", "/", ""}, {"/", "/a/b", "/a/b"}, {"", "/a", "/a"},
		{"/docker/4f", "/docker/4f/x", "/x"}, {"/docker/4f", "/docker/4f", ""},
	} {
		if got, ok := relPath(c.root, c.path); !ok || got != c.want {
			t.Errorf("relPath(%q, %q) = %q %v, want %q", c.root, c.path, got, ok, c.want)
		}
	}
	if _, ok := relPath("/docker/4f", "/docker/4fa"); ok {
		t.Error("relPath: a sibling of the mount's root read as inside it")
	}
}

// TestV1RunAcrossMove: a running task moves between groups without a
// sched_switch, so the sched_switch that ends the run a move fell in names
// the new group; the recorder writes a KindCgroupMove before it, at its
// time, saying when the task moved and which group the run was in before.
// Task 10 (in /a, moved to /b at 5500 ns) runs on CPU 0 from 5000 to
// 6000: one move 500 ns before the switch-out, which names /b; its next
// run, 7000 to 8000, has none; task 11's run on CPU 1 from 5200 to 5400
// is another task's.
func TestV1RunAcrossMove(t *testing.T) {
	s := &v1Sampler{exact: true, slack: 1000, latest: 1 << 62, stopped: true,
		spans: map[trace.TID][]v1Span{10: {{path: "/a", first: 1000, last: 5000}}},
		moves: map[trace.TID][]v1Move{10: {{time: 5500, path: "/b"}}}, procMoves: map[trace.PID][]v1Move{}}
	a := newV1Attrib(s)
	sw := func(at int64, cpu trace.CPU, prev, next trace.TID) (trace.Event, []trace.Event) {
		e := trace.NewEvent(at, cpu, trace.KindSwitch)
		e.TID, e.NextTID, e.Cgroup, e.Comm = prev, next, 77, "w"
		a.rewrite(&e)
		return e, append([]trace.Event(nil), a.splits...)
	}
	sw(5000, 0, 0, 10)
	sw(5200, 1, 0, 11)
	if _, sp := sw(5400, 1, 11, 0); len(sp) != 0 {
		t.Errorf("task 11's switch-out: splits %v, want none", sp)
	}
	e, sp := sw(6000, 0, 10, 0)
	if a.paths[e.Cgroup] != "/b" {
		t.Errorf("task 10's switch-out at 6000 in %q, want /b", a.paths[e.Cgroup])
	}
	if len(sp) != 1 || sp[0].Kind != trace.KindCgroupMove || sp[0].Time != 6000 || sp[0].CPU != 0 || sp[0].TID != 10 ||
		sp[0].Runtime != 500 || a.paths[sp[0].Cgroup] != "/a" {
		t.Errorf("splits before the switch-out at 6000: %v, want one move of task 10 500 ns before, from /a", sp)
	}
	sw(7000, 0, 0, 10)
	if _, sp := sw(8000, 0, 10, 0); len(sp) != 0 {
		t.Errorf("task 10's run from 7000 to 8000: splits %v, want none", sp)
	}
}

// TestV1MoveToRoot: a task moved back to the root group (its tasks file at
// the hierarchy's mount) is known to be there, "/", and its switches name
// the root group (trace.RootCgroupID), not the cgroup v2 group its switch
// carries (id 77 here: cgrun puts a task in the v2 group of the same name,
// whose cpu.max does not schedule it when cpu is on v1; new-user pass 17
// F2 counted 1.5 s in the root in /t17b that way). Task 10, listed in /a
// from 1000 to 5000, moved to the root at 5500 ns while running on CPU 0
// (5000 to 6000): the switch-out names the root and a move splits the run
// 500 ns before it, from /a; its next run, 7000 to 8000, is in the root.
func TestV1MoveToRoot(t *testing.T) {
	s := &v1Sampler{exact: true, slack: 1000, latest: 1 << 62, stopped: true, mountRoot: "/",
		spans: map[trace.TID][]v1Span{10: {{path: "/a", first: 1000, last: 5000}}},
		moves: map[trace.TID][]v1Move{}, procMoves: map[trace.PID][]v1Move{}}
	s.addMove(cgMove{Time: 5500, TID: 10, PID: 10, Path: "/"})
	if got := s.group(10, 10, 5600); got != "/" {
		t.Fatalf("group after the move to the root: %q, want /", got)
	}
	a := newV1Attrib(s)
	sw := func(at int64, prev, next trace.TID) (trace.Event, []trace.Event) {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.NextTID, e.Cgroup, e.Comm = prev, next, 77, "w"
		a.rewrite(&e)
		return e, append([]trace.Event(nil), a.splits...)
	}
	sw(5000, 0, 10)
	e, sp := sw(6000, 10, 0)
	if e.Cgroup != trace.RootCgroupID || a.paths[trace.RootCgroupID] != "/" {
		t.Errorf("switch-out at 6000: cgroup %d (%q), want the root's, %d", e.Cgroup, a.paths[e.Cgroup], trace.RootCgroupID)
	}
	if len(sp) != 1 || sp[0].Runtime != 500 || a.paths[sp[0].Cgroup] != "/a" {
		t.Errorf("splits: %v, want one move 500 ns before, from /a", sp)
	}
	sw(7000, 0, 10)
	if e, _ := sw(8000, 10, 0); e.Cgroup != trace.RootCgroupID {
		t.Errorf("run 7000-8000 in cgroup %d, want the root's", e.Cgroup)
	}
}

// TestV1MoveFromRoot is the regression test for new-user pass 22 F1: a
// task no reading placed in a v1 group (in the root, named by its cgroup
// v2 group) moved into /b while running; cgrun moves it in cgroup2 too,
// so the switch that ends the run already carries the new v2 group (88).
// The move's "from" was that id, and the run's part before the move
// counted in the group it moved to. Task 20, forked at 4000 by task 19,
// whose last switch-out carried v2 id 1 (the root), runs on CPU 0 from
// 5000 to 6000 and is moved to /b at 5500: the split before the
// switch-out says it left v2 group 1, 500 ns before; the switch names /b.
func TestV1MoveFromRoot(t *testing.T) {
	s := &v1Sampler{exact: true, slack: 1000, latest: 1 << 62, stopped: true,
		spans: map[trace.TID][]v1Span{}, moves: map[trace.TID][]v1Move{20: {{time: 5500, path: "/b"}}}, procMoves: map[trace.PID][]v1Move{}}
	a := newV1Attrib(s)
	sw := func(at int64, prev, next trace.TID, cg uint64) (trace.Event, []trace.Event) {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.PID, e.NextTID, e.Cgroup, e.Comm = prev, trace.PID(prev), next, cg, "w"
		a.rewrite(&e)
		return e, append([]trace.Event(nil), a.splits...)
	}
	sw(3000, 0, 19, 0)
	sw(3500, 19, 0, 1)
	fork := trace.NewEvent(4000, 1, trace.KindFork)
	fork.TID, fork.PID, fork.ChildTID, fork.ChildPID = 19, 19, 20, 20
	a.rewrite(&fork)
	sw(5000, 0, 20, 0)
	e, sp := sw(6000, 20, 0, 88)
	if a.paths[e.Cgroup] != "/b" {
		t.Errorf("switch-out at 6000 in %d (%q), want /b", e.Cgroup, a.paths[e.Cgroup])
	}
	if len(sp) != 1 || sp[0].Runtime != 500 || sp[0].Cgroup != 1 {
		t.Errorf("splits %v, want one move 500 ns before the switch-out, from cgroup v2 id 1", sp)
	}
}

// TestV1IDsAcrossFiles is the regression test for new-user pass 52 F2:
// each file of a record --rotate series numbered the v1 groups in the
// order it met them, so one id named different groups in two files. Task
// 10 is in /a and task 11 in /b throughout; file 1 meets task 10 first
// (its switch-out at 2000 ns, then task 11's at 3000), file 2 task 11
// first (at 5000, task 10 at 6000). The recording met /a first, so /a is
// V1CgroupIDBit|1 and /b V1CgroupIDBit|2 in both files, and each file's
// table names only the groups of its own switches (file 3, with task 11
// alone, names /b only, still as |2).
func TestV1IDsAcrossFiles(t *testing.T) {
	s := &v1Sampler{exact: false, slack: 1 << 40, latest: 1 << 62, stopped: true,
		spans: map[trace.TID][]v1Span{10: {{path: "/a", first: 0, last: 10000}}, 11: {{path: "/b", first: 0, last: 10000}}},
		moves: map[trace.TID][]v1Move{}, procMoves: map[trace.PID][]v1Move{}}
	file := func(switches ...[2]int64) (map[trace.TID]uint64, map[uint64]string) {
		a := newV1Attrib(s)
		got := map[trace.TID]uint64{}
		for _, sw := range switches {
			e := trace.NewEvent(sw[1], 0, trace.KindSwitch)
			e.TID, e.PID, e.Cgroup = trace.TID(sw[0]), trace.PID(sw[0]), 77
			a.rewrite(&e)
			got[e.TID] = e.Cgroup
		}
		return got, a.paths
	}
	ida, idb := V1CgroupIDBit|1, V1CgroupIDBit|2
	for _, c := range []struct {
		name      string
		switches  [][2]int64
		want      map[trace.TID]uint64
		wantPaths map[uint64]string
	}{
		{"file 1", [][2]int64{{10, 2000}, {11, 3000}}, map[trace.TID]uint64{10: ida, 11: idb}, map[uint64]string{ida: "/a", idb: "/b"}},
		{"file 2", [][2]int64{{11, 5000}, {10, 6000}}, map[trace.TID]uint64{10: ida, 11: idb}, map[uint64]string{ida: "/a", idb: "/b"}},
		{"file 3", [][2]int64{{11, 8000}}, map[trace.TID]uint64{11: idb}, map[uint64]string{idb: "/b"}},
	} {
		// (In order, not t.Run: each file's numbering follows the
		// files before it.)
		got, paths := file(c.switches...)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: ids of the tasks' switches (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.wantPaths, paths); diff != "" {
			t.Errorf("%s: the file's table (-want +got):\n%s", c.name, diff)
		}
	}
}
