package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// writeCPU1Only writes a capture of CPU 1 of a 2-CPU machine: task 10
// sleeps at 200, is woken at 300 targeting CPU 0 (unrecorded), migrates
// 0 -> 1 at 5300 and is switched in on CPU 1 at 5400.
func writeCPU1Only(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu1.tv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := tvf.NewWriter(f, tvf.Header{Tool: "test", NrCPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	put := func(e trace.Event) {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	sw := func(at int64, prev, next trace.TID, ps trace.TaskState) {
		e := trace.NewEvent(at, 1, trace.KindSwitch)
		e.CurTID, e.TID, e.PID, e.Comm, e.PrevState, e.NextTID, e.NextPID, e.NextComm = prev, prev, trace.PID(prev), "t", ps, next, trace.PID(next), "t"
		put(e)
	}
	sw(1_000_000_100, 20, 10, trace.StateInterruptible)
	sw(1_000_000_200, 10, 20, trace.StateInterruptible)
	wk := trace.NewEvent(1_000_000_300, 1, trace.KindWaking)
	wk.CurTID, wk.TID, wk.PID, wk.Comm, wk.TargetCPU = 20, 10, 10, "t", 0
	put(wk)
	m := trace.NewEvent(1_000_005_300, 1, trace.KindMigrate)
	m.TID, m.PID, m.Comm, m.OrigCPU, m.DestCPU = 10, 10, "t", 0, 1
	put(m)
	sw(1_000_005_400, 20, 10, trace.StateInterruptible)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPartialCPUsWarning: every command that reads the trace says, once,
// that it holds switches of CPU 1 only of the machine's 2; latency does not
// count the 5100 ns "delay" of task 10 (it may have run on CPU 0).
func TestPartialCPUsWarning(t *testing.T) {
	in := writeCPU1Only(t)
	const want = "the trace holds sched_switch events of 1 CPU only (CPU 1) of the machine's 2"
	out := filepath.Join(t.TempDir(), "o")
	for _, args := range [][]string{
		{"latency", "-i", in},
		{"stats", "-i", in},
		{"timehist", "-i", in},
		{"map", "-i", in},
		{"report", "-i", in, "-o", out + ".html"},
		{"export", "--format", "chrome-json", "-i", in, "-o", out + ".json"},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, stderr, code := runCLI(t, append([]string{"-v"}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := strings.Count(stderr, want); n != 1 {
				t.Errorf("stderr has the warning %d times, want 1:\n%s", n, stderr)
			}
		})
	}
	// -o json carries the warnings in the output.
	stdout, stderr, _ := runCLI(t, "latency", "-i", in, "-o", "json")
	if !strings.Contains(stdout, `"key": "delay-unrecorded-cpu"`) || !strings.Contains(stdout, `"max_delay_ns": 0,`) {
		t.Errorf("latency: the 5100 ns delay is counted, or no delay-unrecorded-cpu warning:\n%s\n%s", stdout, stderr)
	}
}

// TestPartialCPUsHTMLInBrowser: the HTML report of a capture of CPU 1 only
// (writeCPU1Only) says so where a reader looks first, as rendered by
// headless Chromium: the partial-cpus warning in the warning list under the
// trace summary, above the first plot, and CPU 0's summary row "unknown",
// not an idle CPU.
func TestPartialCPUsHTMLInBrowser(t *testing.T) {
	bin := testsched.Chromium(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if _, stderr, code := runCLI(t, "report", "-i", writeCPU1Only(t), "-o", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	dom, console := testsched.RunChromium(t, bin, "--dump-dom", "file://"+page)
	testsched.CheckConsole(t, console)
	const warn = "<li>the trace holds sched_switch events of 1 CPU only (CPU 1) of the machine's 2: what ran on the others is missing"
	list := strings.Index(dom, `<ul class="warn">`)
	li := strings.Index(dom, warn)
	top := strings.Index(dom, `<h2 id="top">`)
	if list < 0 || li < list || top < 0 || li > top || strings.Contains(dom[list:li], "</ul>") {
		t.Errorf("rendered page: warning list at %d, partial-cpus warning at %d, first plot's heading at %d; want the warning in the list, above the plot:\n%s", list, li, top, dom)
	}
	if !strings.Contains(dom, "<tr><th>CPU 0</th><td>unknown: no recorded sched_switch") {
		t.Errorf("CPU 0's summary row does not say it is unknown:\n%s", dom)
	}
}

// TestPartialCPUsAdvice: a trace with the switches of CPU 0 only of a
// 2-CPU machine is advised to record all CPUs, unless the input was cut
// short (perf writes each CPU's buffer in turn: a cut file can lack
// CPU 1's), where that advice would blame the recording.
func TestPartialCPUsAdvice(t *testing.T) {
	seen := []bool{true}
	const head = "the trace holds sched_switch events of 1 CPU only (CPU 0) of the machine's 2: what ran on the others is missing; a delay is not measured where the trace shows the task elsewhere, but another CPU's load balancer can pull a waiting task without an event here, so a delay ending in a switch-in here is an upper bound "
	if got, want := partialCPUsMessage(seen, 2, false, false, "perf.data", false), head+"(record all CPUs)"; got != want {
		t.Errorf("whole input:\n got %q\nwant %q", got, want)
	}
	// What a cut can take depends on the format (an ftrace text file was
	// told perf's layout).
	if got, want := partialCPUsMessage(seen, 2, true, false, "ftrace", false), head+"(the input is cut short: the others' events may be in the part cut off)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := partialCPUsMessage(seen, 2, true, false, "perf.data", false), head+"(the input is cut short: perf writes each CPU's buffer in turn, and the others' may be in the part cut off)"; got != want {
		t.Errorf("cut input:\n got %q\nwant %q", got, want)
	}
	// traceview record --cpu's files keep the migrations off their CPUs
	// from every CPU: a pull is seen, and such a delay left out.
	if got, want := partialCPUsMessage(seen, 2, false, false, "traceview", true), "the trace holds sched_switch events of 1 CPU only (CPU 0) of the machine's 2: what ran on the others is missing; a delay during which the task was on one of them is not measured (the recording holds every migration off its CPUs) (record all CPUs)"; got != want {
		t.Errorf("record --cpu:\n got %q\nwant %q", got, want)
	}
	// A capture of every CPU (traceview record without --cpu) whose CPU 0
	// had no switch: one task ran there throughout, or it idled; not
	// "record all CPUs" (new-user pass 14 F3).
	if got, want := quietCPUsMessage([]bool{false, true}, 2), "1 CPU of the machine's 2 had no sched_switch in the trace (CPU 0), though the capture recorded every CPU: one task ran there throughout, or the CPU was idle; what ran there, and for how long, is not known"; got != want {
		t.Errorf("all CPUs recorded:\n got %q\nwant %q", got, want)
	}
	m := &trace.Meta{}
	if m.Cut() {
		t.Error("Meta.Cut of a Meta without a cut or truncation warning")
	}
	m.Warnings.Add("truncated", "perf.data: the input ends inside a record")
	if !m.Cut() {
		t.Error("Meta.Cut ignores a truncated warning")
	}
	if !(&trace.Meta{CutAt: 100}).Cut() {
		t.Error("Meta.Cut ignores CutAt")
	}
}

// TestPartialCPUsDamaged: when the reader skipped records as damaged (a
// flipped attr id made perf.data's CPU 0 samples "unknown sample id", 1546
// of them), the CPUs without switches may be in what it skipped: the
// warning says so instead of advising to record all CPUs (new-user pass 16
// F7). Switches of CPU 1 only, on a machine of 2.
func TestPartialCPUsDamaged(t *testing.T) {
	e := trace.NewEvent(1000, 1, trace.KindSwitch)
	e.TID, e.NextTID = 0, 5
	meta := &trace.Meta{Format: "perf.data", NrCPUs: 2}
	meta.Warnings.Add("unknown-sample-id", "perf.data: sample at offset 25328 with an unknown sample id skipped")
	src := watchCPUs(trace.NewSliceSource([]trace.Event{e}, meta))
	for {
		if _, err := src.Next(); err != nil {
			break
		}
	}
	var got string
	for _, w := range meta.Warnings.List() {
		if w.Key == partialCPUsKey {
			got = w.Message
		}
	}
	if !strings.HasSuffix(got, "(the reader skipped damaged records, the warnings say which: the others' events may have been among them)") {
		t.Errorf("partial-cpus warning %q, want the damage as the cause", got)
	}
}
