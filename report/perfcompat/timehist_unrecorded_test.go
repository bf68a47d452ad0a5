package perfcompat

import (
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// timehistUnrecordedScenario: a capture of CPU 0 only on a 2-CPU machine
// (CPU 1 records nothing, unless cpu1At > 0: then an event of another
// task on CPU 1 at that time). alpha (10) and beta (20) share CPU 0:
//
//	1.000000 alpha sleeps (S), beta runs
//	1.000100 alpha is woken to CPU 1 (the kernel's target)
//	1.000300 beta is preempted (R), alpha runs on CPU 0
//	1.001000 alpha blocks (D), beta runs
//	1.001100 alpha is woken to CPU 0
//	1.001500 beta is preempted, alpha runs
//	1.002000 alpha sleeps, CPU 0 idles
func timehistUnrecordedScenario(cpu1At int64) []trace.Event {
	const s = int64(1e9)
	toCPU1 := timehistWaking(s+100_000, 0, 20, 10)
	toCPU1.TargetCPU = 1
	evs := []trace.Event{
		timehistComm(10, "alpha"),
		timehistComm(20, "beta"),
		timehistSw(s, 0, 10, trace.StateInterruptible, 20),
		toCPU1,
	}
	if cpu1At > 0 {
		w := timehistWaking(cpu1At, 1, 0, 30)
		evs = append(evs, w)
	}
	return append(evs,
		timehistSw(s+300_000, 0, 20, trace.StatePreempted, 10),
		timehistSw(s+1_000_000, 0, 10, trace.StateUninterruptible, 20),
		timehistWaking(s+1_100_000, 0, 20, 10),
		timehistSw(s+1_500_000, 0, 20, trace.StatePreempted, 10),
		timehistSw(s+2_000_000, 0, 10, trace.StateInterruptible, 0),
	)
}

// TestTimehistUnrecordedDelay: alpha's first delay (1.000100 to its
// switch-in at 1.000300, 0.200 ms) was spent queued on CPU 1, which
// recorded nothing: it may have run there, so the row prints "-" (as
// latency leaves the delay out), the --state summary's delay holds only
// the second, 1.001500 - 1.001100 = 0.400 ms, and the result counts 1.
// The row's wait time (1.000000 to 1.000300) ends with that delay, so it
// prints "-" too (it printed 0.300), and the summary's sleep keeps its
// known part, 1.000100 - 1.000000 = 0.100 ms.
// The summary's other columns: 3 switches in, run 0 + 0.700 + 0.500 =
// 1.200 ms, iowait 1.001500 - 1.001000 = 0.500 ms, no preemption.
// --exact prints perf's 0.300, 0.200, and 0.300 sleep and 0.600 delay in
// the summary. Once CPU 1 has an event (at 1.000200, before the
// switch-in) the delay and the wait are measured.
func TestTimehistUnrecordedDelay(t *testing.T) {
	rows := func(out string) []string {
		var rs []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "alpha[10]") {
				rs = append(rs, strings.Join(strings.Fields(l), " "))
			}
		}
		return rs
	}
	for _, c := range []struct {
		name   string
		cpu1At int64
		exact  bool
		want   []string // alpha's rows and summary line
		n      int64
	}{
		{"unrecorded", 0, false, []string{
			"1.000000 [0000] alpha[10] - - - S",
			"1.001000 [0000] alpha[10] - - 0.700 D",
			"1.002000 [0000] alpha[10] 0.500 0.400 0.500 S",
			"alpha[10] -1 3 1.200 0.100 0.500 0.000 0.400"}, 1},
		{"exact", 0, true, []string{
			"1.000000 [0000] alpha[10] 0.000 0.000 0.000 S",
			"1.001000 [0000] alpha[10] 0.300 0.200 0.700 D",
			"1.002000 [0000] alpha[10] 0.500 0.400 0.500 S",
			"alpha[10] -1 3 1.200 0.300 0.500 0.000 0.600"}, 0},
		{"CPU 1 recorded before the switch-in", 1e9 + 200_000, false, []string{
			"1.000000 [0000] alpha[10] - - - S",
			"1.001000 [0000] alpha[10] 0.300 0.200 0.700 D",
			"1.002000 [0000] alpha[10] 0.500 0.400 0.500 S",
			"alpha[10] -1 3 1.200 0.300 0.500 0.000 0.600"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res TimehistResult
			out := runTimehist(t, timehistUnrecordedScenario(c.cpu1At), TimehistOptions{Summary: true, State: true, Exact: c.exact, Result: &res})
			got := rows(out)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") || res.UnrecordedDelays != c.n {
				t.Errorf("alpha's rows:\n%s\nwant\n%s\nunrecorded %d, want %d; output:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"), res.UnrecordedDelays, c.n, out)
			}
		})
	}
}

// TestTimehistQueueListBounded: in a recording of some CPUs, a CPU that
// never idles does not grow its list of waiting tasks with every noting:
// a task is listed once (noted again and again while it waits, it stays
// one entry), and from 1024 entries on, at each power of two, the tasks
// that wait there no more are dropped. 5000 tasks noted twice each, 1 in
// 100 of them still waiting: the list keeps the 50 waiting ones and those
// noted since the last drop, 1008 entries when measured, under 1024
// (without the drops: 5000; without the one listing per task: 10,000).
func TestTimehistQueueListBounded(t *testing.T) {
	th := &timehist{recordedCPUs: []trace.CPU{0}}
	var waiting []*timehistThread
	for i := range 5000 {
		w := &timehistThread{tid: trace.TID(i + 1)}
		if i%100 == 0 {
			w.readyToRun = 5
			waiting = append(waiting, w)
		}
		th.queuedOn(w, 0)
		th.queuedOn(w, 0) // listed once
	}
	q := th.qList[0]
	kept := 0
	for _, w := range waiting {
		if slices.Contains(q, w) {
			kept++
		}
	}
	if len(q) >= qListCompact || kept != len(waiting) {
		t.Errorf("%d entries, %d of the %d waiting tasks; want under %d, all", len(q), kept, len(waiting), qListCompact)
	}
}
