package pprof

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// gPprofFlat flattens a decoded profile into "frame;frame;..." (root first)
// -> values, so tests compare content, not encoding.
func gPprofFlat(t *testing.T, p *profile.Profile) map[string][]int64 {
	t.Helper()
	out := map[string][]int64{}
	for _, s := range p.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		k := strings.Join(names, ";")
		if _, dup := out[k]; dup {
			t.Errorf("stack %q appears twice", k)
		}
		out[k] = s.Value
	}
	return out
}

func TestExportPprofHand(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, trace.NewSliceSource(testsched.Scenario(), nil), Options{}); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("decoding our output: %v", err)
	}
	var types []string
	for _, st := range prof.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if d := cmp.Diff([]string{"delay/nanoseconds", "runtime/nanoseconds", "switches/count"}, types); d != "" {
		t.Errorf("sample types (-want +got):\n%s", d)
	}
	if prof.DefaultSampleType != "delay" || prof.DurationNanos != 2000*testsched.Us {
		t.Errorf("default type %q, duration %d ns; want delay, 2000000", prof.DefaultSampleType, prof.DurationNanos)
	}
	// From gScenario by hand:
	//   A: runtime 300+1500 us (sched_stat_runtime), switched in at 0 and 500 us;
	//      waited 200 us after its preemption at 300 us.
	//   B: runtime 400+500 us, switched in at 0 and 1000 us; waited 400 us, woken by C.
	//   C: runtime 700 us, switched in once; waited 200 us, woken by A.
	want := map[string][]int64{
		"comm A;A (pid 10);A:10":            {0, 1800 * testsched.Us, 2},
		"comm B;B (pid 20);B:20":            {0, 900 * testsched.Us, 2},
		"comm C;C (pid 30);C:30":            {0, 700 * testsched.Us, 1},
		"comm A;A (pid 10);A:10;preempted":  {200 * testsched.Us, 0, 0},
		"comm B;B (pid 20);B:20;woken by C": {400 * testsched.Us, 0, 0},
		"comm C;C (pid 30);C:30;woken by A": {200 * testsched.Us, 0, 0},
	}
	if d := cmp.Diff(want, gPprofFlat(t, prof)); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
}

// TestExportPprofNoRuntimeEvents: without sched_stat_runtime the runtime
// value is the on-CPU time between switches. Dropping the runtime events of
// gScenario: A ran 0-300 and 500-2000 us = 1800 us, B 0-400 and 1000-1500 us
// = 900 us, C 300-1000 us = 700 us: the same as the runtime events say.
func TestExportPprofNoRuntimeEvents(t *testing.T) {
	var evs []trace.Event
	for _, e := range testsched.Scenario() {
		if e.Kind != trace.KindRuntime {
			evs = append(evs, e)
		}
	}
	prof, err := Profile(trace.NewSliceSource(evs, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := gPprofFlat(t, prof)
	for k, rt := range map[string]int64{"comm A;A (pid 10);A:10": 1800 * testsched.Us, "comm B;B (pid 20);B:20": 900 * testsched.Us, "comm C;C (pid 30);C:30": 700 * testsched.Us} {
		if got[k] == nil || got[k][1] != rt {
			t.Errorf("%s runtime = %v, want %d ns", k, got[k], rt)
		}
	}
}

// TestExportPprofGoTool runs `go tool pprof -top -cum` on the export and
// checks that the thread frames list the delays computed by hand (B 400 us,
// then A and C 200 us each).
func TestExportPprofGoTool(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not in PATH")
	}
	path := filepath.Join(t.TempDir(), "delay.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, trace.NewSliceSource(testsched.Scenario(), nil), Options{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := gPprofTopCum(t, goBin, path)
	want := map[string]int64{"A:10": 200 * testsched.Us, "B:20": 400 * testsched.Us, "C:30": 200 * testsched.Us}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("go tool pprof -top -cum thread rows (-want +got):\n%s", d)
	}
}

// gPprofTopCum runs `go tool pprof -top -cum -unit=ns` on path and returns
// the cum column (ns) of every thread frame ("comm:tid").
func gPprofTopCum(t *testing.T, goBin, path string) map[string]int64 {
	t.Helper()
	out, err := exec.Command(goBin, "tool", "pprof", "-top", "-cum", "-nodecount=100000", "-unit=ns", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	got := map[string]int64{}
	for _, line := range strings.Split(string(out), "\n") {
		// "      flat  flat%   sum%        cum   cum%" rows:
		// "0 0% 0% 400000ns 50.00% B:20"
		fs := strings.Fields(line)
		if len(fs) < 6 || !strings.HasSuffix(fs[3], "ns") {
			continue
		}
		name := strings.Join(fs[5:], " ")
		if strings.HasPrefix(name, "woken by") || name == FramePreempted || strings.Contains(name, "(pid ") || strings.HasPrefix(name, FrameComm) {
			continue
		}
		var v int64
		for _, c := range strings.TrimSuffix(fs[3], "ns") {
			if c < '0' || c > '9' {
				t.Fatalf("cannot parse %q", line)
			}
			v = v*10 + int64(c-'0')
		}
		got[name] = v
	}
	return got
}

// gSortedKeys is a helper for stable error messages.
func gSortedKeys(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestExportPprofCommFrame: messaging.2cpu runs 161 sched-messaging
// processes, each with about 1 % of the delay, under pprof's default node
// threshold (0.5 % of the total) once the profile is split by process.
// The root frame "comm sched-messaging" keeps them together: `go tool
// pprof -top` at its default threshold lists it, with a cumulative delay
// equal to the Sum delay of latency's merged row sched-messaging:(161).
func TestExportPprofCommFrame(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not in PATH")
	}
	const path = "../../testdata/traces/messaging.2cpu.perf.data"
	res, err := report.ComputeLatency(testsched.Open(t, path), report.LatencyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, r := range res.Rows {
		if r.Comm == "sched-messaging" && r.NrTasks == 161 {
			want = r.SumDelay
		}
	}
	if want == 0 {
		t.Fatal("no sched-messaging:(161) row in the latency table")
	}
	out := gPprofFile(t, path)
	top, err := exec.Command(goBin, "tool", "pprof", "-top", "-cum", "-unit=ns", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	var got string
	for _, line := range strings.Split(string(top), "\n") {
		if strings.HasSuffix(line, " comm sched-messaging") {
			got = strings.Fields(line)[3]
		}
	}
	if got != strconv.FormatInt(want, 10)+"ns" {
		t.Errorf("comm sched-messaging: cum %q, want %dns (the merged row's Sum delay)\n%s", got, want, top)
	}
}

// pprofSyms names one kernel address, as a kallsyms table would.
type pprofSyms map[uint64]string

func (s pprofSyms) Lookup(addr uint64) (string, bool) { n, ok := s[addr]; return n, ok }

// TestExportPprofOffCPU: a hand-made trace with callchains. On CPU 0 (ns):
// A=1 runs from 1000, sleeps at 1100 in stack 1 (pipe_read <- 0x20, which
// the symbols name ksys_read), is woken by B at 1300 and switched in at
// 1400; B=2 sleeps at 1400 in stack 2 (futex_wait <- a user frame), is
// woken from idle at 1800, switched in at 1900; A sleeps again at 1600
// (stack 1) until the trace ends: that sleep's end is unknown and it is not
// counted. So, by hand: A blocked 1300-1100 = 200 ns and waited 100 ns in
// stack 1; B blocked 1800-1400 = 400 ns and waited 100 ns in stack 2.
func TestExportPprofOffCPU(t *testing.T) {
	ev := func(at int64, k trace.Kind, cur trace.TID) trace.Event {
		e := trace.NewEvent(at, 0, k)
		e.CurTID, e.CurPID = cur, trace.PID(cur)
		return e
	}
	names := map[trace.TID]string{0: "swapper", 1: "A", 2: "B"}
	sw := func(at int64, prev trace.TID, st trace.TaskState, stack trace.StackID, next trace.TID) trace.Event {
		e := ev(at, trace.KindSwitch, prev)
		e.TID, e.PID, e.Comm, e.PrevState, e.Stack = prev, trace.PID(prev), names[prev], st, stack
		e.NextTID, e.NextPID, e.NextComm = next, trace.PID(next), names[next]
		return e
	}
	wake := func(at int64, waker, wakee trace.TID) trace.Event {
		e := ev(at, trace.KindWaking, waker)
		e.TID, e.PID, e.Comm, e.TargetCPU = wakee, trace.PID(wakee), names[wakee], 0
		return e
	}
	evs := []trace.Event{
		sw(1000, 0, 0, 0, 1),
		sw(1100, 1, trace.StateInterruptible, 1, 2),
		wake(1300, 2, 1),
		sw(1400, 2, trace.StateInterruptible, 2, 1),
		sw(1600, 1, trace.StateInterruptible, 1, 0),
		wake(1800, 0, 2),
		sw(1900, 0, 0, 0, 2),
	}
	meta := &trace.Meta{Stacks: []trace.Stack{
		{ID: 1, Frames: []trace.Frame{{Addr: 0x10, Func: "pipe_read", Kernel: true}, {Addr: 0x20, Kernel: true}}},
		{ID: 2, Frames: []trace.Frame{{Addr: 0x30, Func: "futex_wait", Kernel: true}, {Addr: 0x7f00}}},
	}}
	prof, err := Profile(trace.NewSliceSource(evs, meta), Options{KernelSymbols: pprofSyms{0x20: "ksys_read"}})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, st := range prof.SampleType {
		types = append(types, st.Type)
	}
	if d := cmp.Diff([]string{"delay", "runtime", "switches", "blocked", "runqueue"}, types); d != "" {
		t.Errorf("sample types (-want +got):\n%s", d)
	}
	// Runtime from the switches: A 1000-1100 and 1400-1600, B 1100-1400.
	want := map[string][]int64{
		"comm A;A (pid 1);A:1":                        {0, 300, 2, 0, 0},
		"comm B;B (pid 2);B:2":                        {0, 300, 2, 0, 0},
		"comm A;A (pid 1);A:1;woken by B":             {100, 0, 0, 0, 0},
		"comm B;B (pid 2);B:2;woken by (idle or irq)": {100, 0, 0, 0, 0},
		"comm A;A (pid 1);A:1;ksys_read;pipe_read":    {0, 0, 0, 200, 100},
		"comm B;B (pid 2);B:2;[unknown];futex_wait":   {0, 0, 0, 400, 100},
	}
	if d := cmp.Diff(want, gPprofFlat(t, prof)); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
	for _, l := range prof.Location {
		if l.Line[0].Function.Name == "[unknown]" && l.Address != 0x7f00 {
			t.Errorf("the unnamed frame's location has address %#x, want 0x7f00", l.Address)
		}
	}
}

// gPprofFile writes the pprof export of the trace at path to a file in
// the test's temporary directory and returns its path.
func gPprofFile(t *testing.T, path string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "delay.pb.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Write(f, testsched.Open(t, path), Options{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScheduleWakeupFromIRQ (issue 16 item 12): irq.txt of
// report/testdata/schedule.txtar, with ftrace's
// irq-info column. H runs on CPU 0; an interrupt taken while H runs
// ("d.h2.") wakes S at 10.001 s, switched in on CPU 1 at 10.0015 s: 500 us,
// not H's doing. H itself ("d..2.") wakes T at 10.002 s and is preempted by
// it at 10.003 s: 1 ms woken by H. The pprof delay samples, leaf first:
// [woken by (irq), S:200, S (pid -1), comm S] 500000 ns and [woken by H,
// T:300, T (pid -1), comm T] 1000000 ns (the text has no tgid column: pid
// -1; the root frame names the command).
func TestScheduleWakeupFromIRQ(t *testing.T) {
	prof, err := Profile(testsched.Case(t, "irq"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range prof.Sample {
		if s.Value[0] == 0 {
			continue
		}
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		got[strings.Join(names, "; ")] = s.Value[0]
	}
	want := map[string]int64{
		"woken by (irq); S:200; S (pid -1); comm S": 500_000,
		"woken by H; T:300; T (pid -1); comm T":     1_000_000,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("delay samples (-want +got):\n%s", d)
	}
}

// TestReasonFramesSurvivePprof: pprof, loading a profile, takes a function
// name with any of "<>[]" or "::" for demangled C++ and cuts what is
// between "<" and ">" and between "(" and ")" (looksLikeDemangledCPlusPlus
// and removeMatching, google/pprof internal/symbolizer/symbolizer.go), so
// "woken by <irq>" showed as "woken by " in go tool pprof -top (short.perf.data:
// 55.45 ms "woken by ", the delays of rcu_preempt, kcompactd0, kworkers).
// The reason frames that name no task must not look like C++.
func TestReasonFramesSurvivePprof(t *testing.T) {
	looksCPP := func(s string) bool { return strings.ContainsAny(s, "<>[]") || strings.Contains(s, "::") }
	for _, c := range []struct {
		name  string
		waker *schedule.Task
		irq   bool
		want  string
	}{
		{"irq", &schedule.Task{TID: 5, Comm: "hog"}, true, "woken by (irq)"},
		{"unknown", nil, false, "woken by (unknown)"},
		{"idle", &schedule.Task{TID: 0, Comm: "swapper/1"}, false, "woken by (idle or irq)"},
		{"unnamed", &schedule.Task{TID: 72}, false, "woken by :72"},
		{"named", &schedule.Task{TID: 5, Comm: "hog"}, false, "woken by hog"},
		// A task named like a C++ template, and one with a newline and
		// "::" (new-user pass 49 F1: "<b>x" and "<a>x" showed as "x").
		{"angle", &schedule.Task{TID: 6, Comm: "<b>x"}, false, `woken by \x3cb\x3ex`},
		{"cpp", &schedule.Task{TID: 7, Comm: "a::b[1]\nc"}, false, `woken by a:\x3ab\x5b1\x5d\nc`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := wakerFrame(c.waker, c.irq)
			if got != c.want || looksCPP(got) {
				t.Errorf("wakerFrame = %q, want %q, which pprof keeps whole", got, c.want)
			}
		})
	}
	if looksCPP(FramePreempted) || looksCPP(FrameIRQ) {
		t.Errorf("%q or %q would be cut by pprof", FramePreempted, FrameIRQ)
	}
}

// TestExportPprofWindowWithin100: with a time window, no task's runtime or
// delay exceeds the window (the profile's duration), and runtime plus
// delay of a task never does: the parts of a delay or a sched_stat_runtime
// before the window's start are left out. The delays and sched_stat_runtime
// were counted whole when they ended in the window, so on grpq.none
// (--time 10%/2) a hog showed 204.0 ms of runtime in a 203.4 ms profile
// (100.3 % of a CPU) and pipe-multi's sched-messaging threads up to 167 ms
// of delay in 94.8 ms.
//
// testsched.Scenario with the window 800-2000 us, by hand (1200 us):
//   - A: its sched_stat_runtime at 2000 us covers 500-2000 us: 1200 us
//     in the window (was 1500); its delay 300-500 us ends before it;
//   - B: sched_stat_runtime 1000-1500 us (500 us); switched in at 1000
//     us; its delay after C woke it, 600-1000 us, is 200 us in the window
//     (was 400);
//   - C: sched_stat_runtime 300-1000 us: 200 us (was 700).
func TestExportPprofWindowWithin100(t *testing.T) {
	var buf bytes.Buffer
	f := &schedule.Filter{Start: 800 * testsched.Us, End: 2000 * testsched.Us}
	if err := Write(&buf, trace.NewSliceSource(testsched.Scenario(), nil), Options{Filter: f}); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if prof.DurationNanos != 1200*testsched.Us {
		t.Errorf("duration %d ns, want 1200000", prof.DurationNanos)
	}
	want := map[string][]int64{
		"comm A;A (pid 10);A:10":            {0, 1200 * testsched.Us, 0},
		"comm B;B (pid 20);B:20":            {0, 500 * testsched.Us, 1},
		"comm C;C (pid 30);C:30":            {0, 200 * testsched.Us, 0},
		"comm B;B (pid 20);B:20;woken by C": {200 * testsched.Us, 0, 0},
	}
	if d := cmp.Diff(want, gPprofFlat(t, prof)); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
}

// TestExportPprofInvalidNames: two tasks named with different bytes that
// are not UTF-8 (bad\xfeutf, bad\xffutf) keep two names in the profile,
// written as the other machine outputs write them (\xHH); before, both
// were "comm bad\ufffdutf" (new-user pass 31 F4). By hand: the first ran
// 0-1 µs, the second 1-3 µs, each switched in once.
func TestExportPprofInvalidNames(t *testing.T) {
	evs := []trace.Event{
		testsched.Switch(0, 0, 0, "swapper/0", 0, 9, "bad\xfeutf"),
		testsched.Switch(1*testsched.Us, 0, 9, "bad\xfeutf", trace.StateInterruptible, 10, "bad\xffutf"),
		testsched.Switch(3*testsched.Us, 0, 10, "bad\xffutf", trace.StateInterruptible, 0, "swapper/0"),
	}
	var buf bytes.Buffer
	if err := Write(&buf, trace.NewSliceSource(evs, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := gPprofFlat(t, prof)
	for stack, v := range map[string]int64{`comm bad\xfeutf;bad\xfeutf (pid 9);bad\xfeutf:9`: 1 * testsched.Us, `comm bad\xffutf;bad\xffutf (pid 10);bad\xffutf:10`: 2 * testsched.Us} {
		if s, ok := got[stack]; !ok || s[1] != v {
			t.Errorf("%s: %v, want run time %d ns; all: %v", stack, s, v, got)
		}
	}
}
