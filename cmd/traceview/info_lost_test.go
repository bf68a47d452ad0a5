package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestInfoLostInCutFile: info's lost count includes the events its
// warning says a cut .tv file lost, in text and JSON (it said "lost: 0
// events" above "6167 events lost"). stress-fork.2cpu.tv holds 12593
// events in two blocks, 8192 and 4401 (`info` of the whole file); cut at
// 80000 bytes, inside the second block's frame (offset 62523, 32663 bytes),
// none of its 4401 events is whole: 8192 read, 4401 lost in the file, none
// lost by the recorder, and the file may have gone on after the cut.
func TestInfoLostInCutFile(t *testing.T) {
	cut := cutStressFork(t)
	out, errs, code := runCLI(t, "info", "-i", cut)
	out = regexp.MustCompile(` +`).ReplaceAllString(out, " ")
	for _, want := range []string{
		"lost: 4401 events and more: 0 reported lost by the recorder, 4401 in the file's cut or damaged part, and an unknown number after the cut\n",
		"events by kind (8192 in all)",
		"(17449 of 32663 bytes: 15214 bytes missing; 4401 events lost)",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("info: exit %d (want 1), stderr %q, output lacks %q:\n%s", code, errs, want, out)
		}
	}
	out, _, _ = runCLI(t, "info", "-o", "json", "-i", cut)
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.LostTotal != 4401 || rep.LostRecorder != 0 || rep.LostInFile != 4401 || !rep.LostMore || rep.TotalEvents != 8192 {
		t.Errorf("info -o json: lost_total %d, lost_recorder %d, lost_in_file %d, lost_more_unknown %v, %d events; want 4401, 0, 4401, true, 8192",
			rep.LostTotal, rep.LostRecorder, rep.LostInFile, rep.LostMore, rep.TotalEvents)
	}
	// The whole file: nothing lost, the line as before.
	out, _, _ = runCLI(t, "info", "-i", "../../testdata/traces/stress-fork.2cpu.tv")
	if !regexp.MustCompile(`\nlost: +0 events\n`).MatchString(out) {
		t.Errorf("info of the whole file:\n%s", out)
	}
}

// cutStressFork writes stress-fork.2cpu.tv cut at 80000 bytes, inside its
// second events block, to a temporary file and returns its path.
func cutStressFork(t *testing.T) string {
	t.Helper()
	return cutCopy(t, "../../testdata/traces/stress-fork.2cpu.tv", "cut.tv", 80000)
}
