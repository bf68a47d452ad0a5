package textfmt

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
)

// readFile opens path by content detection and drains it, dropping the
// KindComm events the reader synthesizes (see commNames).
func readFile(t testing.TB, path string) ([]trace.Event, *trace.Meta) {
	evs, m := readAll(t, path)
	out := evs[:0:0]
	for _, e := range evs {
		if e.Kind != trace.KindComm {
			out = append(out, e)
		}
	}
	return out, m
}

func readAll(t testing.TB, path string) ([]trace.Event, *trace.Meta) {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return evs, src.Meta()
}

func kindCounts(evs []trace.Event) map[string]int {
	m := map[string]int{}
	for _, e := range evs {
		m[e.Kind.String()]++
	}
	return m
}

func checkOrdered(t *testing.T, evs []trace.Event) {
	t.Helper()
	for i := 1; i < len(evs); i++ {
		if evs[i].Time < evs[i-1].Time {
			t.Fatalf("event %d at %d ns before event %d at %d ns", i, evs[i].Time, i-1, evs[i-1].Time)
		}
	}
}

// statsRE matches perf report --stats lines in the meta files:
// "  sched:sched_switch stats:" followed by "SAMPLE events: N".
var statsRE = regexp.MustCompile(`(?m)^\s*sched:(\w+) stats:\n\s*SAMPLE events:\s*(\d+)`)

// TestPerfScriptCountsMatchPerfStats reads every shared NAME.script.txt
// (perf script -F comm,pid,tid,cpu,time,event,trace of NAME.perf.data) and
// checks the per-tracepoint event counts against `perf report --stats` of
// the same perf.data, recorded in NAME.meta.txt.
func TestPerfScriptCountsMatchPerfStats(t *testing.T) {
	dir := testtraces.Shared(t)
	scripts, _ := filepath.Glob(filepath.Join(dir, "*.script.txt"))
	if len(scripts) == 0 {
		t.Skip("no *.script.txt in shared traces")
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".script.txt")
		t.Run(name, func(t *testing.T) {
			meta, err := os.ReadFile(filepath.Join(dir, name+".meta.txt"))
			if err != nil {
				t.Skip(err)
			}
			want := map[string]int{}
			for _, m := range statsRE.FindAllSubmatch(meta, -1) {
				n, _ := strconv.Atoi(string(m[2]))
				want[string(m[1])] = n
			}
			if len(want) == 0 {
				t.Fatalf("no perf report --stats counts in %s.meta.txt", name)
			}
			evs, md := readFile(t, path)
			if md.Format != FormatPerf {
				t.Errorf("detected format %q, want %q", md.Format, FormatPerf)
			}
			checkOrdered(t, evs)
			got := kindCounts(evs)
			for k, n := range want {
				if got[k] != n {
					t.Errorf("%s: %d events, perf report --stats says %d", k, got[k], n)
				}
			}
			for k, n := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: %d events decoded that perf does not count", k, n)
				}
			}
			if w := md.Warnings.List(); len(w) != 0 {
				t.Errorf("warnings: %+v", w)
			}
		})
	}
}

// TestFtraceText reads the shared tracefs "trace" copy. Expected counts are
// from its meta file (6835 event lines; the header says
// entries-in-buffer/entries-written 6835/6835) split by tracepoint with
// grep: 2939 sched_switch, 1942 sched_waking, 1942 sched_wakeup,
// 6 sched_migrate_task, 2 sched_process_fork, 2 sched_wakeup_new,
// 2 sched_process_exit.
func TestFtraceText(t *testing.T) {
	path := filepath.Join(testtraces.Shared(t), "pipe-ftrace.ftrace.txt")
	evs, md := readFile(t, path)
	if md.Format != FormatFtrace {
		t.Errorf("format %q, want %q", md.Format, FormatFtrace)
	}
	if len(evs) != 6835 {
		t.Errorf("%d events, want 6835", len(evs))
	}
	want := map[string]int{"sched_switch": 2939, "sched_waking": 1942, "sched_wakeup": 1942,
		"sched_migrate_task": 6, "sched_process_fork": 2, "sched_wakeup_new": 2, "sched_process_exit": 2}
	got := kindCounts(evs)
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d", k, got[k], n)
		}
	}
	checkOrdered(t, evs)
	if w := md.Warnings.List(); len(w) != 0 {
		t.Errorf("warnings: %+v", w)
	}
	// First lines of the file:
	//   bash-15174 [000] ..... 817.780115: sched_process_fork: comm=bash pid=15174 child_comm=bash child_pid=15177
	//   bash-15174 [000] d..2. 817.780236: sched_switch: prev_comm=bash prev_pid=15174 prev_prio=120 prev_state=S ==> next_comm=kworker/0:0 next_pid=9 next_prio=120
	//   <idle>-0   [001] d.s4. 817.780444: sched_waking: comm=bash pid=15177 prio=120 target_cpu=001
	f := evs[0]
	if f.Kind != trace.KindFork || f.Time != 817_780_115_000 || f.CPU != 0 || f.CurTID != 15174 ||
		f.TID != 15174 || f.Comm != "bash" || f.ChildTID != 15177 || f.ChildComm != "bash" {
		t.Errorf("first event %+v", f)
	}
	s := evs[2]
	if s.Kind != trace.KindSwitch || s.Time != 817_780_236_000 || s.TID != 15174 || s.Prio != 120 ||
		s.PrevState != trace.StateInterruptible || s.NextTID != 9 || s.NextComm != "kworker/0:0" || s.NextPrio != 120 {
		t.Errorf("third event %+v", s)
	}
	w := evs[5]
	if w.Kind != trace.KindWaking || w.CPU != 1 || w.CurTID != 0 || w.TID != 15177 || w.TargetCPU != 1 || w.FromIRQ != trace.Yes {
		t.Errorf("sixth event %+v", w)
	}
	// States in the file (grep -o 'prev_state=[^ ]*' | sort | uniq -c):
	// 994 R, 1918 S, 18 D, 7 I, 2 Z.
	states := map[string]int{}
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			states[e.PrevState.String()]++
		}
	}
	wantStates := map[string]int{"R": 994, "S": 1918, "D": 18, "I": 7, "Z": 2}
	for k, n := range wantStates {
		if states[k] != n {
			t.Errorf("prev_state %s: %d, want %d (all: %v)", k, states[k], n, states)
		}
	}
}

// TestTraceCmdReport reads trace-cmd's own report of the shared trace.dat:
// 2484 events (meta file), "cpus=2" on its first line. The sched plugin
// prints states with its "SDTtZXxW" table: the file's 59 "W" are idle
// kworkers (kernel I = 0x80) and its 80 "X" exiting tasks (kernel Z = 0x20).
func TestTraceCmdReport(t *testing.T) {
	path := filepath.Join(testtraces.Shared(t), "messaging-tracecmd.report.txt")
	evs, md := readFile(t, path)
	if md.Format != FormatTraceCmd {
		t.Errorf("format %q, want %q", md.Format, FormatTraceCmd)
	}
	if len(evs) != 2484 || md.NrCPUs != 2 {
		t.Errorf("%d events on %d CPUs, want 2484 on 2", len(evs), md.NrCPUs)
	}
	checkOrdered(t, evs)
	states := map[trace.TaskState]int{}
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			states[e.PrevState]++
		}
	}
	if states[trace.StateIdle] != 59 || states[trace.StateZombie] != 80 || states[trace.StateDead] != 1 {
		t.Errorf("states %v: want 59 I, 80 Z, 1 X", states)
	}
	// Last line: kworker/1:0-23 [001] 799.267936: sched_switch: kworker/1:0:23 [120] W ==> swapper/1:0 [120]
	l := evs[len(evs)-1]
	if l.Time != 799_267_936_000 || l.TID != 23 || l.Comm != "kworker/1:0" || l.PrevState != trace.StateIdle ||
		l.NextTID != 0 || l.NextComm != "swapper/1" || l.NextPrio != 120 {
		t.Errorf("last event %+v", l)
	}
}

// drain reads src to the end and returns the events and the final error
// (nil at io.EOF).
func drain(src trace.Source) ([]trace.Event, error) {
	var out []trace.Event
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// countLines counts the lines of a file (for benchmarks).
func countLines(t testing.TB, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
	}
	return n
}
