package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// overwrittenRing is an ftrace text capture whose ring buffer was
// overwritten (7 of 20 entries kept), so each CPU is unobserved before its
// first event: CPU 1 until 1.200000 s. a (100), preempted on CPU 0 at
// 1.000000 s, is next seen running on CPU 1 at 1.200000 s: its 200 ms
// wait overlaps CPU 1's unobserved window, so latency leaves it out. b
// (101) runs 1.0-1.3 s and 1.4001-1.5 s (399.9 ms) after a wakeup from a
// at 1.4 s that it waited 0.1 ms for; a runs 1.2-1.5 s (300 ms).
const overwrittenRing = `# tracer: nop
#
# entries-in-buffer/entries-written: 7/20   #P:2
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
               a-100     [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=b next_pid=101 next_prio=120
          <idle>-0       [001] d..2. 1.200000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
               b-101     [000] d..2. 1.300000: sched_switch: prev_comm=b prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
               a-100     [001] d..2. 1.400000: sched_waking: comm=b pid=101 prio=120 target_cpu=000
          <idle>-0       [000] d..2. 1.400100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=101 next_prio=120
               a-100     [001] d..2. 1.500000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               b-101     [000] d..2. 1.500000: sched_switch: prev_comm=b prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`

// TestReplayObservedLossy: replay's observed table is latency's, lost
// windows included: 699.9 ms of run time and one delay of 0.1 ms (b's).
// Before, the model's recorded schedule dropped the lost markers and the
// observed table counted a's 200 ms wait in time the trace did not see (2
// delays, 200.1 ms), and the fidelity verdict was scored against it.
func TestReplayObservedLossy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ow.txt")
	if err := os.WriteFile(path, []byte(overwrittenRing), 0o644); err != nil {
		t.Fatal(err)
	}
	type total struct {
		Runtime  int64 `json:"runtime_ns"`
		Count    int64 `json:"count"`
		SumDelay int64 `json:"sum_delay_ns"`
	}
	want := total{699_900_000, 1, 100_000}
	out, errs, code := runCLI(t, "latency", "-o", "json", "-i", path)
	var lat struct{ Total total }
	if code != 0 || json.Unmarshal([]byte(out), &lat) != nil || lat.Total != want {
		t.Fatalf("latency: exit %d, total %+v, want %+v; stderr:\n%s", code, lat.Total, want, errs)
	}
	out, errs, code = runCLI(t, "replay", "--policy", "eevdf", "-o", "json", "-i", path)
	var rep struct{ Observed struct{ Total total } }
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Observed.Total != want {
		t.Errorf("replay: exit %d, observed total %+v, want latency's %+v; stderr:\n%s", code, rep.Observed.Total, want, errs)
	}
}

// TestReplayLossyCarried: a prediction of lossy-messaging.perf.data (its
// recorder lost 33969 events in 276 windows, info's count) says so in the
// prediction, as a cut or damaged input is said (new-user pass 65 F2: "lost:
// 0 events" and no word); and the replay table's note on the switch-ins the
// trace lacks counts the trace's 284 (latency's unrecorded_switches), with
// --rows 3 as with every row (F4: it counted the rows shown).
func TestReplayLossyCarried(t *testing.T) {
	const in = "../../testdata/traces/lossy-messaging.perf.data"
	w := filepath.Join(t.TempDir(), "p.tv")
	out, errs, code := runCLI(t, "replay", "-i", in, "--policy", "eevdf", "--no-self-replay", "--rows", "3", "-w", w)
	if code != 0 || !strings.Contains(out, "(observed switches include 284 switch-ins the trace lacks") {
		t.Errorf("exit %d, %s\n%s", code, errs, out)
	}
	_, errs, _ = runCLI(t, "latency", "-i", w)
	if !strings.Contains(errs, "predicted from "+in+", whose recording lost events: 33969 events lost in 276 windows (the model holds none of the tasks' work there") {
		t.Errorf("latency of the prediction: %s", errs)
	}
}

// TestReplayAffinityOfTrace: autogroups.tv's recorder read the affinity of
// 9 tasks of the trace (model affinity_recorded), more than the traced
// command's 5 the workload line counts: the line says the 9 are of the
// whole trace (new-user pass 65 F5: "4 tasks ...; 6 tasks with the CPU
// affinity").
func TestReplayAffinityOfTrace(t *testing.T) {
	out, errs, code := runCLI(t, "replay", "-i", "../../testdata/traces/autogroups.tv", "--policy", "eevdf", "--no-self-replay")
	if code != 0 || !strings.Contains(out, "workload (the traced command's process tree): 5 tasks:") ||
		!strings.Contains(out, "; 9 tasks of the trace (in the workload or not) with the CPU affinity the recording read") {
		t.Errorf("exit %d, %s\n%s", code, errs, out)
	}
}

// TestModelLineSaysLost (new-user pass 120 F3): the model line of a trace
// that lost events says what it could not model: lossy-messaging.perf.data
// lost 33969 events in 276 windows (its meta file; the same counts as
// latency's warnings); nice.2cpu lost none and says nothing of it.
func TestModelLineSaysLost(t *testing.T) {
	out, errs, code := runCLI(t, "replay", "--policy", "eevdf", "--no-self-replay", "../../testdata/traces/lossy-messaging.perf.data")
	if code != 0 || !strings.Contains(out, "; the trace lost 33969 events in 276 lost windows (") || !strings.Contains(out, "what happened inside is not modelled") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
	out, _, _ = runCLI(t, "replay", "--policy", "eevdf", "--no-self-replay", "../../testdata/traces/nice.2cpu.perf.data")
	if strings.Contains(out, "the trace lost") {
		t.Errorf("a trace that lost nothing:\n%s", out)
	}
}
