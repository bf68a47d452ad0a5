package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestReplayJSONReaderWarnings: replay -o json's observed table carries
// the input's reader warnings as latency -o json does (it had the
// schedule's only: a cut file's "truncated" warning was on stderr but not
// in the JSON). stress-fork.2cpu.tv cut at 80000 bytes ends inside its
// second block (offset 62523, 17449 of 32663 bytes: 15214 missing), whose
// 4401 events are lost (TestInfoLostInCutFile); both commands give the
// same warning keys, the truncated one first. The text output is as
// before: the warning on stderr.
func TestReplayJSONReaderWarnings(t *testing.T) {
	cut := cutStressFork(t)
	const msg = "traceview format: file ends inside the frame at offset 62523 (17449 of 32663 bytes: 15214 bytes missing; 4401 events lost)"
	keys := func(ws []trace.Warning) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Key)
		}
		return out
	}
	out, errs, code := runCLI(t, "latency", "-o", "json", "-i", cut)
	if code != 0 {
		t.Fatalf("latency: exit %d: %s", code, errs)
	}
	var lat struct {
		Warnings []trace.Warning `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &lat); err != nil {
		t.Fatal(err)
	}
	out, errs, code = runCLI(t, "replay", "--no-self-replay", "--policy", "eevdf", "-o", "json", "-i", cut)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	var rep struct {
		Observed struct {
			Warnings []trace.Warning `json:"warnings"`
		} `json:"observed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	ws := rep.Observed.Warnings
	if len(ws) == 0 || ws[0].Key != "truncated" || ws[0].Count != 1 || !strings.HasPrefix(ws[0].Message, msg) {
		t.Errorf("replay -o json: observed.warnings %+v, want first the truncated warning %q", ws, msg)
	}
	if got, want := strings.Join(keys(ws), " "), strings.Join(keys(lat.Warnings), " "); got != want {
		t.Errorf("replay -o json: observed warning keys\n%s\nlatency -o json's\n%s", got, want)
	}
	// On stderr the reader's "traceview format: " is the file's name.
	if !strings.Contains(errs, "warning: "+cut+": "+strings.TrimPrefix(msg, "traceview format: ")) {
		t.Errorf("replay: stderr lacks the truncated warning:\n%s", errs)
	}
}
