package textfmt

import (
	"fmt"
	"strings"
	"testing"
)

// TestParsePrefixBracketedNames: a task name may hold a "[digits]" token
// (prctl allows "job [3]"); the CPU column is the first such token after
// which the line reads on. Lines of perf 6.12's perf script (default
// fields) and of ftrace's trace file. Until 2026-12-05 the first token was
// taken and the line rejected as damaged (new-user pass 10).
func TestParsePrefixBracketedNames(t *testing.T) {
	for line, want := range map[string]string{
		"         job [3]   28471 [000] 67577.889792: sched:sched_stat_runtime: comm=job [3] pid=28471 runtime=186348 [ns]":  `"job [3]" tid 28471 cpu 0 t 67577889792000 sched_stat_runtime`,
		"      w 12 [001]   28474 [001] 67577.889800: sched:sched_waking: comm=w 12 [001] pid=28474 prio=120 target_cpu=001": `"w 12 [001]" tid 28474 cpu 1 t 67577889800000 sched_waking`,
		"            a[1]   28472 [000] 67577.889900: sched:sched_switch: a[1]:28472 [120] S ==> swapper/0:0 [120]":          `"a[1]" tid 28472 cpu 0 t 67577889900000 sched_switch`,
		"            a[1]-28472   [001] d..2. 100.000001: sched_switch: prev_comm=a[1] prev_pid=28472":                       `"a[1]" tid 28472 cpu 1 t 100000001000 sched_switch`,
		"          perf   28467 [001] 67577.884246: sched:sched_switch: perf:28467 [120] S ==> swapper/1:0 [120]":            `"perf" tid 28467 cpu 1 t 67577884246000 sched_switch`,
	} {
		var p prefix
		got := "no parse"
		if parsePrefix([]byte(line), &p) {
			got = fmt.Sprintf("%q tid %d cpu %d t %d %s", p.comm, p.tid, p.cpu, p.time, p.event)
		}
		if got != want {
			t.Errorf("%q:\n got %s\nwant %s", line, got, want)
		}
	}
}

// TestParsePrefixManyBrackets: a line of thousands of "[1] " tokens is
// refused after maxCPUCandidates tries, not parsed once per token (which
// made a 1 MB line cost about 10^10 steps).
func TestParsePrefixManyBrackets(t *testing.T) {
	line := []byte(strings.Repeat("[1] ", 250_000) + "x 1 [000] 1.000000: sched:sched_switch: a")
	var p prefix
	if parsePrefix(line, &p) {
		t.Errorf("parsed a line whose CPU column comes after 250000 others")
	}
}
