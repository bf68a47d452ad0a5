package report

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestDiagWarningsSingular: a count of one reads "1 scheduling delay had",
// not "1 scheduling delays had" (issue 28, the new-user pass); a count of
// two keeps the plural.
func TestDiagWarningsSingular(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int64
		want []string
	}{
		{"one", 1, []string{
			"1 scheduling delay had no recorded switch-in",
			"1 scheduling delay was started",
			"1 time a task ran again",
			"1 scheduling delay began with a sched_waking",
			"1 time a task already waiting",
			"1 scheduling delay overlapped lost events",
			"1 sched_stat_runtime event (0.000 ms) overlapped",
			"1 task was first seen being switched in",
		}},
		{"two", 2, []string{
			"2 scheduling delays had no recorded switch-in",
			"2 scheduling delays were started",
			"2 times a task ran again",
			"2 scheduling delays began with a sched_waking",
			"2 times a task already waiting",
			"2 scheduling delays overlapped lost events",
			"2 sched_stat_runtime events (0.000 ms) overlapped",
			"2 tasks were first seen being switched in",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &LatencyDiagnostics{Recovered: tc.n, Dropped: tc.n, Unwoken: tc.n, Wakeups: 1, Raced: tc.n, Rewoken: tc.n,
				LossyDelays: tc.n, LossyRuntime: tc.n, FirstSeen: tc.n}
			var msgs []string
			for _, w := range diagWarnings(d, LatencyOptions{}, func(trace.TID) string { return "" }) {
				msgs = append(msgs, w.Message)
			}
			all := strings.Join(msgs, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("no %q in the warnings:\n%s", w, all)
				}
			}
		})
	}
}
