package chromejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// gChromeEvent is one decoded trace event.
type gChromeEvent struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Pid  int64          `json:"pid"`
	Tid  int64          `json:"tid"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	ID   int64          `json:"id"`
	Bp   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

func gDecodePerfetto(t *testing.T, data []byte) []gChromeEvent {
	t.Helper()
	var doc struct {
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		TraceEvents     []gChromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return doc.TraceEvents
}

func TestWriteChromeJSONHand(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, trace.NewSliceSource(testsched.Scenario(), nil), Options{}); err != nil {
		t.Fatal(err)
	}
	evs := gDecodePerfetto(t, buf.Bytes())
	// Render slices as "track: name start-end" in us, flows as
	// "flow ph id track at".
	track := func(pid, tid int64) string {
		if pid == CPUPid && tid == 0 {
			return "CPUs"
		}
		if pid == CPUPid {
			return fmt.Sprintf("CPU%d", tid-CPUPid)
		}
		return fmt.Sprintf("%d/%d", pid, tid)
	}
	var slices, flows []string
	names := map[string]string{}
	for _, e := range evs {
		switch e.Ph {
		case "X":
			s := fmt.Sprintf("%s: %s %g-%g", track(e.Pid, e.Tid), e.Name, e.Ts, e.Ts+e.Dur)
			if w, ok := e.Args["waker"]; ok {
				s += fmt.Sprintf(" waker=%v", w)
			}
			slices = append(slices, s)
		case "s", "f":
			flows = append(flows, fmt.Sprintf("%s %d %s %g %s", e.Ph, e.ID, track(e.Pid, e.Tid), e.Ts, e.Bp))
		case "M":
			if n, ok := e.Args["name"]; ok {
				names[e.Name+" "+track(e.Pid, e.Tid)] = n.(string)
			}
		}
	}
	sort.Strings(slices)
	// By hand from gScenario (us):
	want := []string{
		// CPU tracks: who ran when.
		"10/10: Running 0-300", "10/10: Running 500-2000",
		"10/10: Runnable (preempted) 300-500",
		"20/20: Running 0-400", "20/20: Running 1000-1500",
		"20/20: Runnable (woken) 600-1000 waker=C:30",
		"20/20: Sleeping 1500-2000", "20/20: Sleeping 400-600",
		"30/30: Running 300-1000",
		"30/30: Runnable (woken) 100-300 waker=A:10",
		"30/30: Sleeping 1000-2000",
		"CPU0: A 0-300", "CPU0: B 1000-1500", "CPU0: C 300-1000",
		"CPU1: A 500-2000", "CPU1: B 0-400",
	}
	sort.Strings(want)
	if d := cmp.Diff(want, slices); d != "" {
		t.Errorf("slices (-want +got):\n%s", d)
	}
	// A wakes C at 100 us, C wakes B at 600 us.
	// The end sits 1 ns (0.001 us) inside the wakee's Runnable slice.
	wantFlows := []string{"s 1 10/10 100 ", "f 1 30/30 100.001 e", "s 2 30/30 600 ", "f 2 20/20 600.001 e"}
	if d := cmp.Diff(wantFlows, flows); d != "" {
		t.Errorf("flows (-want +got):\n%s", d)
	}
	wantNames := map[string]string{
		"process_name CPUs": "CPUs",
		"thread_name CPU0":  "CPU 0", "thread_name CPU1": "CPU 1",
		"process_name 10/0": "A", "process_name 20/0": "B", "process_name 30/0": "C",
		"thread_name 10/10": "A", "thread_name 20/20": "B", "thread_name 30/30": "C",
	}
	delete(names, "process_sort_index CPUs")
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("track names (-want +got):\n%s", d)
	}
}

// TestWriteChromeJSONEscapes: a comm with a quote and a backslash stays valid
// JSON and reads back as the other machine outputs write it
// (termsafe.ValidUTF8: the backslash doubled); two comms of different
// invalid bytes stay two names (new-user pass 31 F4: both were
// "bad\ufffdutf").
func TestWriteChromeJSONEscapes(t *testing.T) {
	evs := []trace.Event{
		testsched.Switch(0, 0, 0, "swapper/0", 0, 7, `we"ird\name`),
		testsched.Switch(5*testsched.Us, 0, 7, `we"ird\name`, trace.StateUninterruptible, 0, "swapper/0"),
		testsched.Switch(9*testsched.Us, 0, 0, "swapper/0", 0, 8, "x"),
	}
	var buf bytes.Buffer
	if err := Write(&buf, trace.NewSliceSource(evs, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range gDecodePerfetto(t, buf.Bytes()) {
		if e.Ph == "X" {
			got = append(got, fmt.Sprintf("%s %g+%g", e.Name, e.Ts, e.Dur))
		}
	}
	// The task ran 0-5 us, then slept in D until the trace's end at 9 us;
	// x, switched in at the last event, ran for no time: nothing to draw.
	want := []string{`we"ird\\name 0+5`, "Running 0+5", "Uninterruptible 5+4"}
	if d := cmp.Diff(want, got); d != "" || !strings.Contains(buf.String(), `we\"ird\\\\name`) {
		t.Errorf("slices (-want +got):\n%s", d)
	}
	bad := []trace.Event{
		testsched.Switch(0, 0, 0, "swapper/0", 0, 9, "bad\xfeutf"),
		testsched.Switch(1*testsched.Us, 0, 9, "bad\xfeutf", trace.StateInterruptible, 10, "bad\xffutf"),
		testsched.Switch(3*testsched.Us, 0, 10, "bad\xffutf", trace.StateInterruptible, 0, "swapper/0"),
	}
	buf.Reset()
	if err := Write(&buf, trace.NewSliceSource(bad, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, e := range gDecodePerfetto(t, buf.Bytes()) {
		if e.Ph == "X" && strings.HasPrefix(e.Name, "bad") {
			got = append(got, fmt.Sprintf("%s %g+%g", e.Name, e.Ts, e.Dur))
		}
	}
	if want := []string{`bad\xfeutf 0+1`, `bad\xffutf 1+2`}; !cmp.Equal(want, got) {
		t.Errorf("names of invalid UTF-8: %q, want %q", got, want)
	}
}

// TestWriteChromeJSONCgroup (issue 14 item 2): a Running slice carries the
// task's cgroup (the last switch-out that said one) as its cgroup arg,
// the path of Meta.Cgroups or "id N" for an id the table lacks; a task
// whose cgroup is not known has none.
func TestWriteChromeJSONCgroup(t *testing.T) {
	evs := testsched.Scenario()
	for i := range evs {
		if evs[i].Kind == trace.KindSwitch {
			switch evs[i].TID {
			case 10:
				evs[i].Cgroup = 7
			case 20:
				evs[i].Cgroup = 99
			}
		}
	}
	meta := &trace.Meta{Cgroups: map[uint64]string{7: "/system.slice/a.service"}}
	var buf bytes.Buffer
	if err := Write(&buf, trace.NewSliceSource(evs, meta), Options{}); err != nil {
		t.Fatal(err)
	}
	got := map[string][]any{} // "pid/tid start" of each Running slice -> its cgroup arg
	for _, e := range gDecodePerfetto(t, buf.Bytes()) {
		if e.Ph == "X" && e.Name == SliceRunning {
			got[fmt.Sprintf("%d/%d %g", e.Pid, e.Tid, e.Ts)] = []any{e.Args["cgroup"]}
		}
	}
	// The hand scenario's Running slices (see TestWriteChromeJSONHand); a
	// slice's cgroup is the task's as of its end, its switch-out.
	want := map[string][]any{
		"10/10 0": {"/system.slice/a.service"}, "10/10 500": {"/system.slice/a.service"},
		"20/20 0": {"id 99"}, "20/20 1000": {"id 99"},
		"30/30 300": {nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cgroup args of the Running slices (-want +got):\n%s", d)
	}
}

// TestScheduleWakeupFromIRQ (issue 16 item 12): irq.txt of
// report/testdata/schedule.txtar in the Chrome JSON export. S's Runnable (woken) slice, 10.001-10.0015 s
// (10001000-10001500 us), names the waker "<irq>", and no flow arrow leaves
// H for it; T's, 10.002-10.003 s, names H:100, with one arrow (s at 10002000
// us on H's track, f 1 ns later on T's).
func TestScheduleWakeupFromIRQ(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, testsched.Case(t, "irq"), Options{}); err != nil {
		t.Fatal(err)
	}
	var woken, flows []string
	for _, e := range gDecodePerfetto(t, buf.Bytes()) {
		switch {
		case e.Ph == "X" && e.Name == SliceRunnableWoken:
			woken = append(woken, fmt.Sprintf("%d %g-%g %v", e.Tid, e.Ts, e.Ts+e.Dur, e.Args["waker"]))
		case e.Ph == "s" || e.Ph == "f":
			flows = append(flows, fmt.Sprintf("%s %d %.3f", e.Ph, e.Tid, e.Ts))
		}
	}
	sort.Strings(woken)
	if d := cmp.Diff([]string{"200 1.0001e+07-1.00015e+07 <irq>", "300 1.0002e+07-1.0003e+07 H:100"}, woken); d != "" {
		t.Errorf("woken slices (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"s 100 10002000.000", "f 300 10002000.001"}, flows); d != "" {
		t.Errorf("flows (-want +got):\n%s", d)
	}
}
