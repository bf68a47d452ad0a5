package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const messaging2 = "../../testdata/traces/messaging.2cpu.perf.data"

// The "done when" command: as-traced reproduces the observed table
// (perf 6.12 prints 730.484 ms of runtime for sched-messaging in
// messaging.2cpu.latency.txt), and every policy reports a makespan.
func TestReplayCLITable(t *testing.T) {
	out, errs, code := runCLI(t, "replay", "--policy", "as-traced,cfs,eevdf", messaging2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"policy as-traced on 2 CPUs: makespan 406.339 ms observed, 406.339 ms predicted (ratio 1.000)",
		"policy cfs on 2 CPUs: makespan 406.339 ms observed,",
		"policy eevdf on 2 CPUs: makespan 406.339 ms observed,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// as-traced row: observed and predicted runtime and switches equal.
	asTraced := out[strings.Index(out, "policy as-traced"):strings.Index(out, "policy cfs")]
	if f := strings.Fields(asTraced[strings.Index(asTraced, "sched-messaging"):]); f[1] != "730.484" || f[2] != "730.484" || f[4] != "1065" || f[5] != "1065" {
		t.Errorf("as-traced sched-messaging row: %v", f[:7])
	}
}

func TestReplayCLIJSONAndWrite(t *testing.T) {
	pred := filepath.Join(t.TempDir(), "pred.tvf")
	out, errs, code := runCLI(t, "replay", "-o", "json", "--policy", "as-traced", "--policy", "eevdf:base_slice=3ms", "-w", pred, messaging2)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Observed struct {
			Total map[string]float64 `json:"total"`
		} `json:"observed"`
		Runs []struct {
			Policy    string `json:"policy"`
			CPUs      int    `json:"cpus"`
			Makespan  int64  `json:"makespan_ns"`
			Predicted struct {
				Total map[string]float64 `json:"total"`
			} `json:"predicted"`
		} `json:"runs"`
		Model map[string]float64 `json:"model"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 2 || doc.Runs[0].Policy != "as-traced" || doc.Runs[1].Policy != "eevdf:base_slice=3ms" || doc.Runs[1].CPUs != 2 {
		t.Fatalf("runs: %+v", doc.Runs)
	}
	if doc.Runs[0].Predicted.Total["runtime_ns"] != doc.Observed.Total["runtime_ns"] {
		t.Errorf("as-traced total runtime %v, observed %v", doc.Runs[0].Predicted.Total["runtime_ns"], doc.Observed.Total["runtime_ns"])
	}
	if doc.Model["tasks"] != 173 || doc.Model["inferred_share"] <= 0 || doc.Model["inferred_share"] > 1 {
		t.Errorf("model: %v", doc.Model)
	}
	// The written prediction is a trace like any other: its latency total
	// is the eevdf run's.
	lout, lerrs, lcode := runCLI(t, "latency", "-o", "json", "-i", pred)
	if lcode != 0 {
		t.Fatalf("latency on the prediction: exit %d: %s", lcode, lerrs)
	}
	var lat struct {
		Total map[string]float64 `json:"total"`
	}
	if err := json.Unmarshal([]byte(lout), &lat); err != nil {
		t.Fatal(err)
	}
	if lat.Total["runtime_ns"] != doc.Runs[1].Predicted.Total["runtime_ns"] || lat.Total["switches"] != doc.Runs[1].Predicted.Total["switches"] {
		t.Errorf("latency of -w file %v, eevdf run %v", lat.Total, doc.Runs[1].Predicted.Total)
	}
}

func TestReplayCLIErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", messaging2}, 2, "no --policy given"},
		{[]string{"replay", "--policy", "nosuch", messaging2}, 2, `policy "nosuch": unknown policy`},
		{[]string{"replay", "--policy", "eevdf:NO_SUCH", messaging2}, 2, `unknown feature "SUCH"`},
		{[]string{"replay", "--policy", "eevdf", "--affinity", "sched-messaging=9", messaging2}, 1, "no such CPU among 2"},
		{[]string{"replay", "--policy", "eevdf", "--nice", "hog=40", messaging2}, 2, "want a nice level -20..19"},
		{[]string{"replay", "--policy", "eevdf", "--class", "hog=fifo:0", messaging2}, 2, "want an RT priority 1..99"},
		{[]string{"replay", "--policy", "eevdf", "-o", "csv", messaging2}, 2, `-o "csv": want table or json`},
		{[]string{"replay", "--policy", "eevdf", "../../testdata/traces/nosuch.perf.data"}, 1, "no such file"},
		{[]string{"replay", "--policy", "eevdf", "--cpus", "0", messaging2}, 2, "--cpus 0: want 1..64"},
		{[]string{"replay", "--policy", "eevdf", "--nice", "nosuch=0", messaging2}, 1, `selector "nosuch" matches no task`},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line", c.args, code, errs, c.code, c.want)
		}
	}
}

func TestPoliciesCLI(t *testing.T) {
	out, errs, code := runCLI(t, "policies")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"as-traced:", "cfs:", "eevdf:", "fifo:", "rr:", "base_slice", "RUN_TO_PARITY", "wakeup_granularity", "llc_size"} {
		if !strings.Contains(out, want) {
			t.Errorf("policies output lacks %q", want)
		}
	}
}
