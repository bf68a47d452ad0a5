package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestStatsUnknownShare: stats says how much of each CPU's observed time
// the trace cannot attribute (Utilization counts it in the denominator,
// never as busy), and that a CPU with no recorded sched_switch
// has an unknown utilization rather than 0 %: in text, JSON and the HTML
// report. pipe.perf.data: CPU 0 3.722180 of 35.954238 ms unknown (10.35 %),
// CPU 1 5.427978 of 35.922718 ms (15.11 %); sched-compressed.data
// (perf record -C 0) has wakeups aimed at CPU 1 but no switch on it.
func TestStatsUnknownShare(t *testing.T) {
	const dir = "../../testdata/traces/"
	out, errs, code := runCLI(t, "stats", "-i", dir+"pipe.perf.data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	const footnote = "Unknown share of observed time (switches missing or events lost; never counted as busy, so Utilization is a lower bound): CPU 0 10.35 %, CPU 1 15.11 %\n"
	if !strings.Contains(out, footnote) {
		t.Errorf("no footnote %q:\n%s", footnote, out)
	}
	js, errs, code := runCLI(t, "stats", "-i", dir+"pipe.perf.data", "-o", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var st struct {
		CPUs []struct {
			CPU        int     `json:"cpu"`
			Share      float64 `json:"unknown_share"`
			Unobserved bool    `json:"unobserved"`
		} `json:"cpus"`
	}
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatal(err)
	}
	want := []float64{3722180.0 / 35954238, 5427978.0 / 35922718}
	if len(st.CPUs) != 2 {
		t.Fatalf("json: %d CPUs, want 2", len(st.CPUs))
	}
	for i, c := range st.CPUs {
		if math.Abs(c.Share-want[i]) > 1e-9 || c.Unobserved {
			t.Errorf("json CPU %d: unknown_share %v unobserved %v, want %v false", c.CPU, c.Share, c.Unobserved, want[i])
		}
	}
	page, errs, code := runCLI(t, "report", "-i", dir+"pipe.perf.data", "-o", "-")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	if s := "utilization 89.27 %, unknown 3.722 ms, 10.35 % of observed (not counted as busy)"; !strings.Contains(page, s) {
		t.Errorf("HTML report lacks %q", s)
	}

	out, errs, code = runCLI(t, "stats", "-i", dir+"sched-compressed.data")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if s := "\nCPU 1 has no recorded sched_switch (a CPU the capture left out, or one with no scheduler event): its utilization and runqueue are unknown (-), not 0\n"; !strings.Contains(out, s) {
		t.Errorf("no %q:\n%s", s, out)
	}
	// CPU 1's row: "-" in every measured column, not 0.
	if s := regexp.MustCompile(`(?m)^ +1 +- +- +- +- +- +- +- +\d+ +\d+ *$`); !s.MatchString(out) {
		t.Errorf("no row of dashes for CPU 1:\n%s", out)
	}
	if !strings.Contains(out, ", 1 CPU with events,") {
		t.Errorf("header does not count the one CPU with switches:\n%s", out)
	}
	if strings.Contains(out, "Unknown share") {
		t.Errorf("an unknown-share footnote with nothing unknown:\n%s", out)
	}
	js, _, _ = runCLI(t, "stats", "-i", dir+"sched-compressed.data", "-o", "json")
	st.CPUs = nil
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.CPUs) != 2 || st.CPUs[0].Unobserved || !st.CPUs[1].Unobserved || st.CPUs[1].Share != 0 {
		t.Errorf("json CPUs %+v, want CPU 1 alone unobserved", st.CPUs)
	}
	var raw struct {
		CPUs []map[string]any `json:"cpus"`
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil || len(raw.CPUs) != 2 {
		t.Fatalf("json: %v, %d CPUs", err, len(raw.CPUs))
	}
	for _, k := range []string{"runqueue_avg", "runqueue_max", "utilization", "observed_ns", "busy_ns", "switches"} {
		if v, ok := raw.CPUs[1][k]; !ok || v != nil {
			t.Errorf("json CPU 1 %s = %v (present %v), want null", k, v, ok)
		}
		// (perf record -C 0: CPU 0's runqueue is not measured either, a
		// task queued there may have run on CPU 1: StatsCPU.RunqueueUnknown.)
		if isRunqueue := strings.HasPrefix(k, "runqueue"); (raw.CPUs[0][k] == nil) != isRunqueue {
			t.Errorf("json CPU 0 %s = %v, want null only for the runqueue", k, raw.CPUs[0][k])
		}
	}
	if raw.CPUs[0]["runqueue_unknown"] != true {
		t.Errorf("json CPU 0 runqueue_unknown = %v, want true", raw.CPUs[0]["runqueue_unknown"])
	}
	if s := "\nRunqueue not measured (-): the recording left out some of the machine's CPUs"; !strings.Contains(out, s) {
		t.Errorf("no %q:\n%s", s, out)
	}
	page, _, _ = runCLI(t, "report", "-i", dir+"sched-compressed.data", "-o", "-")
	if s := "unknown: no recorded sched_switch (utilization, runqueue and switches not measured)"; !strings.Contains(page, s) {
		t.Errorf("HTML report lacks %q", s)
	}
}

// TestStatsSeriesUnobservedRunqueue: an ftrace capture whose ring was
// overwritten leaves CPU 1 unobserved until its first event at 1.2 s; c,
// woken onto CPU 1 at 1.05 s, is switched in there at 1.2 s. With 4
// buckets of 0.1 s from 1.0 s, CPU 1's buckets 0 and 1 are unknown (1),
// and its runqueue there is unknown too: 0 with its maximum (it was 0.5
// and 1.0, the wait of c counted in time the trace did not see); buckets
// 2 and 3 are observed with nothing waiting (0).
func TestStatsSeriesUnobservedRunqueue(t *testing.T) {
	const ring = `# tracer: nop
#
# entries-in-buffer/entries-written: 5/20   #P:2
#
          <idle>-0       [000] d..2. 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=100 next_prio=120
               a-100     [000] d..2. 1.050000: sched_waking: comm=c pid=102 prio=120 target_cpu=001
          <idle>-0       [001] d..2. 1.200000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=102 next_prio=120
               c-102     [001] d..2. 1.300000: sched_switch: prev_comm=c prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               a-100     [000] d..2. 1.400000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	path := filepath.Join(t.TempDir(), "ring.txt")
	if err := os.WriteFile(path, []byte(ring), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "stats", "-o", "json", "--series", "4", "-i", path)
	var doc struct {
		Series struct {
			CPUs        []int       `json:"cpus"`
			Unknown     [][]float64 `json:"unknown"`
			Runqueue    [][]float64 `json:"runqueue"`
			RunqueueMax [][]int     `json:"runqueue_max"`
		} `json:"series"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Series.CPUs) != 2 || doc.Series.CPUs[1] != 1 {
		t.Fatalf("exit %d, stderr:\n%s\nout:\n%s", code, errs, out)
	}
	s := doc.Series
	if !slices.Equal(s.Unknown[1], []float64{1, 1, 0, 0}) || !slices.Equal(s.Runqueue[1], []float64{0, 0, 0, 0}) || !slices.Equal(s.RunqueueMax[1], []int{0, 0, 0, 0}) {
		t.Errorf("CPU 1: unknown %v, runqueue %v, max %v; want [1 1 0 0], [0 0 0 0], [0 0 0 0]", s.Unknown[1], s.Runqueue[1], s.RunqueueMax[1])
	}
}

// TestStatsCutFileLossy: messaging.2cpu.perf.data cut at 77 % (531257 of
// 689945 bytes, inside CPU 1's part of perf's last round: TestCutRound)
// leaves CPU 1 unobserved from its last event, 635.409587 s, to the end
// (635.571072 s). In the window 635.42-635.50 s CPU 1's observed time is
// all lost: its runqueue is not measured ("-", null; new-user pass 60 F4
// read 0 tasks where the whole trace's is 45), though its utilization
// stays the lower bound 0 with 100 % unknown. In 635.45-635.55 s most
// delays overlap the loss: stats says so in full, as latency does (F3:
// "0 delays" with 162 left out, behind "7 more warnings").
func TestStatsCutFileLossy(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/messaging.2cpu.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut77.perf.data")
	if err := os.WriteFile(cut, b[:len(b)*77/100], 0o644); err != nil {
		t.Fatal(err)
	}
	type cpu struct {
		CPU      int      `json:"cpu"`
		Share    float64  `json:"unknown_share"`
		Lost     bool     `json:"runqueue_lost"`
		RqAvg    *float64 `json:"runqueue_avg"`
		RqMax    *int     `json:"runqueue_max"`
		IdleWait *int64   `json:"idle_waiting_ns"`
	}
	st := cliJSON[struct {
		CPUs []cpu `json:"cpus"`
	}](t, "stats", "--time", "635.42,635.50", "-i", cut, "-o", "json")
	if len(st.CPUs) != 2 || st.CPUs[1].Share != 1 || !st.CPUs[1].Lost || st.CPUs[1].RqAvg != nil || st.CPUs[1].RqMax != nil || st.CPUs[1].IdleWait != nil {
		t.Errorf("CPU 1: %+v", st.CPUs)
	}
	if c := st.CPUs[0]; c.Lost || c.RqAvg == nil || *c.RqAvg <= 0 {
		t.Errorf("CPU 0 (observed throughout): %+v", c)
	}
	out, _, _ := runCLI(t, "stats", "--time", "635.42,635.50", "-i", cut)
	if !regexp.MustCompile(`(?m)^ +1 +0\.00 % .* - +- +0 `).MatchString(out) || !strings.Contains(out, "Runqueue not measured (-) on CPU 1: its observed time lies wholly in lost-event windows") {
		t.Errorf("table:\n%s", out)
	}
	out, errs, code := runCLI(t, "stats", "--time", "635.45,635.55", "-i", cut)
	m := regexp.MustCompile(`(?m)^warning: \S+: (\d+) delays and \d+ task runs? \([0-9.]+ ms\) overlapped lost events and are not counted \(--keep-lossy keeps them\): more delays than the histogram keeps \((\d+)\)$`).FindStringSubmatch(errs)
	if code != 0 || m == nil || !strings.Contains(out, "Scheduling delay, all (wakeup or preemption to switch-in): "+m[2]+" delays") {
		t.Errorf("exit %d; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
}
