package report

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

	"github.com/traceview/traceview/trace"
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
	if err := WritePprof(&buf, trace.NewSliceSource(gScenario(), nil), ExportOptions{}); err != nil {
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
	if prof.DefaultSampleType != "delay" || prof.DurationNanos != 2000*gUs {
		t.Errorf("default type %q, duration %d ns; want delay, 2000000", prof.DefaultSampleType, prof.DurationNanos)
	}
	// From gScenario by hand:
	//   A: runtime 300+1500 us (sched_stat_runtime), switched in at 0 and 500 us;
	//      waited 200 us after its preemption at 300 us.
	//   B: runtime 400+500 us, switched in at 0 and 1000 us; waited 400 us, woken by C.
	//   C: runtime 700 us, switched in once; waited 200 us, woken by A.
	want := map[string][]int64{
		"comm A;A (pid 10);A:10":            {0, 1800 * gUs, 2},
		"comm B;B (pid 20);B:20":            {0, 900 * gUs, 2},
		"comm C;C (pid 30);C:30":            {0, 700 * gUs, 1},
		"comm A;A (pid 10);A:10;preempted":  {200 * gUs, 0, 0},
		"comm B;B (pid 20);B:20;woken by C": {400 * gUs, 0, 0},
		"comm C;C (pid 30);C:30;woken by A": {200 * gUs, 0, 0},
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
	for _, e := range gScenario() {
		if e.Kind != trace.KindRuntime {
			evs = append(evs, e)
		}
	}
	prof, err := ExportPprof(trace.NewSliceSource(evs, nil), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := gPprofFlat(t, prof)
	for k, rt := range map[string]int64{"comm A;A (pid 10);A:10": 1800 * gUs, "comm B;B (pid 20);B:20": 900 * gUs, "comm C;C (pid 30);C:30": 700 * gUs} {
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
	if err := WritePprof(f, trace.NewSliceSource(gScenario(), nil), ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := gPprofTopCum(t, goBin, path)
	want := map[string]int64{"A:10": 200 * gUs, "B:20": 400 * gUs, "C:30": 200 * gUs}
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
		if strings.HasPrefix(name, "woken by") || name == PprofPreempted || strings.Contains(name, "(pid ") || strings.HasPrefix(name, PprofCommFrame) {
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
	const path = "../testdata/traces/messaging.2cpu.perf.data"
	res, err := ComputeLatency(gOpen(t, path), LatencyOptions{})
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
	out := filepath.Join(t.TempDir(), "delay.pb.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePprof(f, gOpen(t, path), ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
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
