package ebpf

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// TestAddProcTasksCutsNames is the regression test for long /proc names:
// the kernel's /proc/PID/comm of a kworker adds its workqueue
// ("kworker/u8:0-events_unbound", 27 bytes) while task names are at most
// 15 bytes (TASK_COMM_LEN-1), as perf's synthesized COMM records cut them:
// the first 15 bytes, "kworker/u8:0-ev". A fake /proc holds that kworker
// (pid 12) and a thread (tid 31 of pid 30) whose name is exactly 15 bytes
// and must stay whole.
func TestAddProcTasksCutsNames(t *testing.T) {
	proc := t.TempDir()
	for _, th := range []struct{ pid, tid, comm string }{
		{"12", "12", "kworker/u8:0-events_unbound\n"},
		{"30", "31", "fifteen-bytes-x\n"},
	} {
		dir := filepath.Join(proc, th.pid, "task", th.tid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(th.comm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf strings.Builder
	w, err := tvf.NewWriter(&buf, tvf.Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := AddProcTasks(w, proc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := tvf.NewReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%d/%d %s", e.PID, e.TID, e.Comm))
	}
	want := []string{"12/12 kworker/u8:0-ev", "30/31 fifteen-bytes-x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comm events (-want +got):\n%s", diff)
	}
	var tasks []string
	for _, tk := range r.Tasks() {
		tasks = append(tasks, tk.Comm)
	}
	if diff := cmp.Diff([]string{"kworker/u8:0-ev", "fifteen-bytes-x"}, tasks); diff != "" {
		t.Errorf("task table (-want +got):\n%s", diff)
	}
}

// TestSegmentNamesTasks is the regression test for ":672" rows: a file of
// a rotated series (or a ring dump) holds events of a task whose exec came
// in an earlier file and that exited before this file's /proc names were
// read (compile, tid 672); its sched_switch fields name it, so the file
// gets a comm event for it before its first event, and the latency report
// (named by comm, exec and fork records, as perf) says "compile", not
// ":672". A task named by /proc (tid 31) or by its exec (tid 673, "cc1",
// after a fork from compile) under the name its events carry gets none,
// and a rename an event shows (tid 31 as "renamed") gets one.
func TestSegmentNamesTasks(t *testing.T) {
	proc := t.TempDir()
	dir := filepath.Join(proc, "30", "task", "31")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte("fifteen-bytes-x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	r := &Recorder{cfg: RecordConfig{Proc: proc, Out: &buf}}
	seg, err := r.openSegment("", tvf.Header{})
	if err != nil {
		t.Fatal(err)
	}
	sw := func(ts int64, prev trace.TID, prevComm string, next trace.TID, nextComm string) trace.Event {
		e := trace.NewEvent(ts, 0, trace.KindSwitch)
		e.TID, e.Comm, e.NextTID, e.NextComm = prev, prevComm, next, nextComm
		e.PID, e.NextPID = trace.PID(prev), trace.PID(next)
		return e
	}
	fork := trace.NewEvent(3000, 0, trace.KindFork)
	fork.TID, fork.PID, fork.Comm, fork.ChildTID, fork.ChildPID, fork.ChildComm = 672, 672, "compile", 673, 673, "compile"
	exec := trace.NewEvent(3500, 1, trace.KindExec)
	exec.TID, exec.PID, exec.Comm = 673, 673, "cc1"
	for _, e := range []trace.Event{
		sw(1000, 0, "swapper/0", 672, "compile"),
		sw(2000, 672, "compile", 31, "fifteen-bytes-x"),
		sw(2500, 31, "fifteen-bytes-x", 672, "compile"),
		fork, exec,
		sw(4000, 672, "compile", 673, "cc1"),
		sw(5000, 673, "cc1", 31, "renamed"),
	} {
		if err := seg.write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := seg.w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := tvf.NewReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		if e.Kind == trace.KindComm {
			got = append(got, fmt.Sprintf("%d %d %s", e.Time, e.TID, e.Comm))
		}
	}
	want := []string{"0 31 fifteen-bytes-x", "1000 672 compile", "5000 31 renamed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comm events (time tid comm; -want +got):\n%s", diff)
	}
	if len(evs) != len(want)+7 {
		t.Errorf("%d events, want the 7 written and %d comm events", len(evs), len(want))
	}
}

// TestParseTrigger: record --trigger's grammar, the cgroup resolved to its
// directory's inode (the cgroup v2 id) and to its path in the v1 cpu
// hierarchy where it has one there (/sys.slice/x.service in both, /only1
// in v1 only: new-user pass 15 F4, a v1-only group refused as "no such
// file"), and one-line errors naming both hierarchies.
func TestParseTrigger(t *testing.T) {
	root, v1 := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(root, "sys.slice", "x.service"), filepath.Join(v1, "sys.slice", "x.service"), filepath.Join(v1, "only1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(filepath.Join(root, "sys.slice", "x.service"))
	if err != nil {
		t.Fatal(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	for _, c := range []struct {
		in   string
		want *DelayTrigger
		err  string
	}{
		{"delay>20ms", &DelayTrigger{Threshold: 20 * time.Millisecond}, ""},
		{"delay>1.5ms,comm=nginx", &DelayTrigger{Threshold: 1500 * time.Microsecond, Comm: "nginx"}, ""},
		{"delay>5ms,cgroup=/sys.slice/x.service,comm=a", &DelayTrigger{Threshold: 5 * time.Millisecond, Comm: "a", Cgroup: ino, V1Path: "/sys.slice/x.service", CgroupPath: "/sys.slice/x.service"}, ""},
		{"delay>5ms,cgroup=only1/", &DelayTrigger{Threshold: 5 * time.Millisecond, V1Path: "/only1", CgroupPath: "only1/"}, ""},
		{"delay<5ms", nil, "want delay>DURATION"},
		{"delay>5", nil, "bad delay"},
		{"delay>-1ms", nil, "bad delay"},
		{"delay>5ms,pid=3", nil, "unknown condition"},
		{"delay>5ms,cgroup=/nope", nil, "cgroup /nope: no such group under " + root + " (cgroup2) or " + v1 + " (cgroup v1 cpu)"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseTrigger(c.in, root, v1)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDelayWatch: the delays the trigger sees, by hand: task 5 wakes at
// 100 and is switched in at 4100 (4000 ns, over the 3000 ns threshold:
// reported); it is preempted at 5000 and back at 6000 (1000: not
// reported); task 6 (comm other) waits 9000 ns but the trigger wants comm
// a; task 7 sleeps (state S) at 7000 and is switched in at 20000 without a
// wakeup in between: no delay (it was not runnable).
func TestDelayWatch(t *testing.T) {
	for _, kind := range []trace.Kind{trace.KindWaking, trace.KindWakeup} {
		t.Run(kind.String(), func(t *testing.T) { testDelayWatch(t, kind) })
	}
}

func testDelayWatch(t *testing.T, kind trace.Kind) {
	w := newDelayWatch(&DelayTrigger{Threshold: 3000, Comm: "a"}, nil)
	wake := func(at int64, tid trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, kind)
		e.TID = tid
		return e
	}
	sw := func(at int64, prev trace.TID, state trace.TaskState, next trace.TID, comm string) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.PrevState, e.NextTID, e.NextComm = prev, state, next, comm
		return e
	}
	var got []int64
	for _, e := range []trace.Event{
		wake(100, 5),
		sw(4100, 0, trace.StateRunning, 5, "a"),
		sw(5000, 5, trace.StatePreempted, 0, "swapper/0"),
		sw(6000, 0, trace.StateRunning, 5, "a"),
		wake(6000, 6),
		sw(7000, 7, trace.StateInterruptible, 0, "swapper/0"),
		sw(15000, 5, trace.StateInterruptible, 6, "other"),
		sw(20000, 6, trace.StateInterruptible, 7, "a"),
	} {
		got = append(got, w.event(&e))
	}
	if diff := cmp.Diff([]int64{0, 4000, 0, 0, 0, 0, 0, 0}, got); diff != "" {
		t.Errorf("delays reported (-want +got):\n%s", diff)
	}
}

// TestDelayWatchV1Group: a trigger on a group of the v1 cpu hierarchy
// only (V1Path, no v2 id) fires on a delay of a task the v1 readings put
// in that group when the delay ends: task 5 (listed in /q from 0 to 10000
// ns) waits 4000 ns, from 100 to 4100; task 6 (in the root group) waits
// 5000 ns, from 5000 to 10000: only task 5's delay passes.
func TestDelayWatchV1Group(t *testing.T) {
	s := &v1Sampler{spans: map[trace.TID][]v1Span{5: {{path: "/q", first: 0, last: 10000}}},
		slack: 1000, latest: 1 << 62, stopped: true}
	w := newDelayWatch(&DelayTrigger{Threshold: 3000, V1Path: "/q"}, s)
	wake := func(at int64, tid trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindWaking)
		e.TID = tid
		return e
	}
	sw := func(at int64, prev, next trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, trace.KindSwitch)
		e.TID, e.PrevState, e.NextTID, e.NextPID = prev, trace.StateInterruptible, next, trace.PID(next)
		return e
	}
	var got []int64
	for _, e := range []trace.Event{wake(100, 5), sw(4100, 0, 5), wake(5000, 6), sw(10000, 5, 6)} {
		got = append(got, w.event(&e))
	}
	if diff := cmp.Diff([]int64{0, 4000, 0, 0}, got); diff != "" {
		t.Errorf("delays reported (-want +got):\n%s", diff)
	}
}

// TestNumberedPath: the names of a series.
func TestNumberedPath(t *testing.T) {
	for _, c := range [][3]string{{"t.tv", "1", "t.001.tv"}, {"/x/y/run", "12", "/x/y/run.012"}, {"a.b.tv", "1000", "a.b.1000.tv"}} {
		var n int
		fmt.Sscan(c[1], &n)
		if got := NumberedPath(c[0], n); got != c[2] {
			t.Errorf("NumberedPath(%q, %d) = %q, want %q", c[0], n, got, c[2])
		}
	}
}

// TestSpanRef: the ring counts its Span back from what the delay watch has
// seen, not from the newest record. After a drain pass starved under load,
// one CPU's records reach 10.73 s while the watch has released the events
// up to 10 s only; a delay ending at 10.001 s, still to be seen, wants the
// second before it, so an entry ending at 9.5 s stays (counted from the
// newest record, 9.73 s back, it went: the dump held 0.27 s before its
// trigger). A pending dump counts from its trigger; without a delay
// trigger, from the newest record.
func TestSpanRef(t *testing.T) {
	const s = int64(time.Second)
	newest, released, span := 10*s+730_000_000, 10*s, s
	ref := spanRef(newest, released, true, false, 0)
	if kept := 9*s + s/2; kept < ref-span {
		t.Errorf("watching: ref %d evicts an entry ending at %d, wanted by a delay ending after %d", ref, kept, released)
	}
	for _, c := range []struct {
		watching, pending bool
		want              int64
	}{{true, false, released}, {false, false, newest}, {true, true, 42}, {false, true, 42}} {
		if got := spanRef(newest, released, c.watching, c.pending, 42); got != c.want {
			t.Errorf("spanRef(watching %v, pending %v) = %d, want %d", c.watching, c.pending, got, c.want)
		}
	}
	if got := spanRef(newest, 0, true, false, 0); got != 0 {
		t.Errorf("watching, nothing released yet: ref %d, want 0 (nothing evicted by time)", got)
	}
}

// TestSegmentOpenWindows: the file's loss windows from overflow notes
// (trace.OpenLoss). By hand, CPU 1: a switch at 100 and a note at 100,
// then its switch at 200 (nothing lost: no window); a switch at 300, a
// note at 300, perf's loss of 8 at 500 (the window 300..500, from its
// last record, not two); a switch at 600 and a note at 600 that nothing
// follows on CPU 1 while CPU 0 goes on to 900: closing adds 600..900,
// count unknown (0).
func TestSegmentOpenWindows(t *testing.T) {
	w, err := tvf.NewWriter(io.Discard, tvf.Header{Tool: "traceview record", NrCPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := &segment{w: w, last: map[trace.CPU]int64{}, cgroups: map[uint64]bool{}, pids: map[trace.PID]bool{}, execAt: map[trace.PID]int64{}}
	sw := func(ts int64, cpu trace.CPU) trace.Event {
		e := trace.NewEvent(ts, cpu, trace.KindSwitch)
		e.TID, e.NextTID, e.NextComm = 0, 5, "a"
		return e
	}
	note := func(ts int64) trace.Event {
		e := trace.NewEvent(ts, 1, trace.KindLost)
		e.Runtime = trace.OpenLoss
		return e
	}
	lost := trace.NewEvent(500, 1, trace.KindLost)
	lost.Count = 8
	for _, e := range []trace.Event{sw(100, 1), note(100), sw(200, 1), sw(300, 1), note(300), sw(400, 0), lost, sw(500, 1), sw(600, 1), note(600), sw(900, 0)} {
		if err := s.write(e); err != nil {
			t.Fatal(err)
		}
	}
	s.openWindows()
	want := []trace.LostWindow{{CPU: 1, Count: 8, Start: 300, End: 500}, {CPU: 1, Start: 600, End: 900}}
	if diff := cmp.Diff(want, s.windows); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
}

// TestSegmentSeriesBounds (new-user pass 87 F3): in a --rotate DURATION
// series, a note still open as a file closes leaves its CPU unobserved to
// the file's cut (until), not to its last event; in the next file, a loss
// record of a CPU with no event there yet starts at the file's cut
// (from), not at its first event. By hand: file A has CPU 0's switch at
// 500 and a note at 500, its last event CPU 1's at 700, until 1000:
// window CPU 0 500..1000. File B, from 1000, has CPU 1's switch at 1200
// and CPU 0's loss of 9 at 1300: window CPU 0 1000..1300 (it was 1200..1300
// from the file's first event, and 0 ns when the loss came first).
func TestSegmentSeriesBounds(t *testing.T) {
	seg := func() *segment {
		w, err := tvf.NewWriter(io.Discard, tvf.Header{Tool: "traceview record", NrCPUs: 2})
		if err != nil {
			t.Fatal(err)
		}
		return &segment{w: w, last: map[trace.CPU]int64{}, cgroups: map[uint64]bool{}, pids: map[trace.PID]bool{}, execAt: map[trace.PID]int64{}}
	}
	sw := func(ts int64, cpu trace.CPU) trace.Event {
		e := trace.NewEvent(ts, cpu, trace.KindSwitch)
		e.TID, e.NextTID, e.NextComm = 0, 5, "a"
		return e
	}
	note := trace.NewEvent(500, 0, trace.KindLost)
	note.Runtime = trace.OpenLoss
	a := seg()
	a.until = 1000
	for _, e := range []trace.Event{sw(500, 0), note, sw(700, 1)} {
		if err := a.write(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.stillOpen(); !slices.Equal(got, []trace.CPU{0}) {
		t.Errorf("still open %v, want [0]", got)
	}
	a.openWindows()
	if diff := cmp.Diff([]trace.LostWindow{{CPU: 0, Start: 500, End: 1000}}, a.windows); diff != "" {
		t.Errorf("file A (-want +got):\n%s", diff)
	}
	b := seg()
	b.from = 1000
	lost := trace.NewEvent(1300, 0, trace.KindLost)
	lost.Count = 9
	for _, e := range []trace.Event{sw(1200, 1), lost} {
		if err := b.write(e); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]trace.LostWindow{{CPU: 0, Count: 9, Start: 1000, End: 1300}}, b.windows); diff != "" {
		t.Errorf("file B (-want +got):\n%s", diff)
	}
}
