package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/internal/testsched"
	_ "github.com/traceview/traceview/trace/formats"
)

// TestStatsRealTraces: on every shared trace, each CPU's utilization is
// within 0..1, its busy time within its observed time, and the delay
// histogram holds exactly the delays the latency table counts (Count).
func TestStatsRealTraces(t *testing.T) {
	for _, path := range testsched.AllTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			st, err := ComputeStats(testsched.Open(t, path), StatsOptions{Buckets: 50})
			if err != nil {
				t.Fatal(err)
			}
			lat, err := ComputeLatency(testsched.Open(t, path), LatencyOptions{PerTask: true})
			if err != nil {
				t.Fatal(err)
			}
			var sum, cnt int64
			for _, r := range lat.Rows {
				sum += r.SumDelay
				cnt += r.Count
			}
			if st.Delays.Sum != sum || st.Delays.Count != cnt {
				t.Errorf("histogram: %d delays summing %d ns; latency table: %d delays summing %d ns", st.Delays.Count, st.Delays.Sum, cnt, sum)
			}
			for _, c := range st.CPUs {
				if c.Utilization < 0 || c.Utilization > 1 || c.Busy > c.Observed || c.RunqueueAvg < 0 {
					t.Errorf("CPU %d: %+v", c.CPU, c)
				}
			}
		})
	}
}

// TestHTMLReportRealTraces: the report of every shared trace has its five
// plots and its latency table lists the latency report's rows.
func TestHTMLReportRealTraces(t *testing.T) {
	for _, path := range testsched.AllTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTMLReport(&buf, testsched.Open(t, path), HTMLOptions{Name: path}); err != nil {
				t.Fatal(err)
			}
			lat, err := ComputeLatency(testsched.Open(t, path), LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if n := strings.Count(page, "<svg"); n != HTMLPlots {
				t.Errorf("%d plots, want %d", n, HTMLPlots)
			}
			// The stats see every event although ComputeLatency asks the
			// reader to skip sched_migrate_task.
			st, err := ComputeStats(testsched.Open(t, path), StatsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("<th>Migrations</th><td>%d</td>", st.Migrations); !strings.Contains(page, want) {
				t.Errorf("summary lacks %s", want)
			}
			table := page[strings.Index(page, `id="latency"`):]
			if n := strings.Count(table, "<tr><td>"); n != len(lat.Rows) {
				t.Errorf("latency table has %d rows, the latency report %d", n, len(lat.Rows))
			}
		})
	}
}

// TestCompareWhatIfPairs compares the shared what-if pairs: each side's
// TOTAL is its own latency report's total, and every command of either
// trace has a row.
func TestCompareWhatIfPairs(t *testing.T) {
	for _, pair := range [][2]string{{"messaging.2cpu", "messaging.1cpu"}, {"pipeline.2cpu", "pipeline.1cpu"}, {"nice.nice0", "nice.2cpu"}} {
		a := filepath.Join("../../shared/traces", pair[0]+".perf.data")
		b := filepath.Join("../../shared/traces", pair[1]+".perf.data")
		if _, err := os.Stat(a); err != nil {
			t.Skip("../shared/traces missing")
		}
		t.Run(pair[0]+"-vs-"+pair[1], func(t *testing.T) {
			res, err := Compare(testsched.Open(t, a), testsched.Open(t, b), CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range []string{a, b} {
				lat, err := ComputeLatency(testsched.Open(t, p), LatencyOptions{})
				if err != nil {
					t.Fatal(err)
				}
				side := res.Total.A
				if i == 1 {
					side = res.Total.B
				}
				// (Switches as the kernel counts them: the recorded ones
				// and those the trace lacks, new-user pass 122 F1.)
				var unrec int64
				for _, r := range lat.Rows {
					unrec += r.Unrecorded
				}
				if side.Runtime != lat.Total.Runtime || side.Count != lat.Total.Count || side.SumDelay != lat.Total.SumDelay || side.Switches != lat.Total.Switches+unrec {
					t.Errorf("%s: TOTAL %+v, latency total %+v and %d unrecorded switch-ins", p, *side, lat.Total, unrec)
				}
				names := map[string]bool{}
				for _, r := range res.Rows {
					if (i == 0 && r.A != nil) || (i == 1 && r.B != nil) {
						names[r.Comm] = true
					}
				}
				if len(names) != len(lat.Rows) {
					t.Errorf("%s: %d rows with this side, latency has %d", p, len(names), len(lat.Rows))
				}
			}
			if res.Total.Ratio.SumDelay == nil || *res.Total.Ratio.SumDelay != float64(res.Total.B.SumDelay)/float64(res.Total.A.SumDelay) {
				t.Errorf("sum delay ratio %v", res.Total.Ratio.SumDelay)
			}
		})
	}
}
