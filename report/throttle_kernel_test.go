package report

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// metaKernelStat reads the delta of a cpu.stat field from a meta file's "FIELD
// A -> B (delta N)" line.
func metaKernelStat(t *testing.T, meta, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + field + ` \d+ -> \d+ \(delta (\d+)\)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no %s delta", meta, field)
	}
	v, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return v
}

// TestThrottleAgainstKernel: the inferred throttling of real recordings
// against the kernel's cpu.stat of the group, read around each recording
// (the oracle; the files' meta say how they were made). Within ±25 %, the
// issue's bound. grpq.q30 (two CPUs: the idle rule alone) kernel 17
// periods, 1024.7 ms; grpq1.q25 (one CPU, the hog fills the throttled
// waits: only the quota rule, with the quota stated) kernel 15 periods,
// 275.4 ms.
func TestThrottleAgainstKernel(t *testing.T) {
	for _, c := range []struct {
		name   string
		stated []trace.CgroupSettings
	}{
		{"grpq.q30", nil},
		{"grpq1.q25", []trace.CgroupSettings{{Path: "/tvt-svc", QuotaNS: 25_000_000, PeriodNS: 100_000_000}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := trace.Open("../testdata/traces/" + c.name + ".perf.data.gz")
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			res, err := ComputeLatency(src, LatencyOptions{Cgroups: c.stated})
			if err != nil {
				t.Fatal(err)
			}
			meta := "../testdata/traces/" + c.name + ".meta.txt"
			wantN, wantT := metaKernelStat(t, meta, "nr_throttled"), metaKernelStat(t, meta, "throttled_time")
			var g *CgroupThrottle
			for i := range res.Cgroups {
				if res.Cgroups[i].Path == "/tvt-svc" {
					g = &res.Cgroups[i]
				}
			}
			if g == nil {
				t.Fatalf("no /tvt-svc in %+v", res.Cgroups)
			}
			within := func(got, want int64) bool {
				return float64(got) >= 0.75*float64(want) && float64(got) <= 1.25*float64(want)
			}
			if !within(g.ThrottledPeriods, wantN) || !within(g.Throttled, wantT) {
				t.Errorf("throttled %d periods, %.3f ms; kernel %d, %.3f ms", g.ThrottledPeriods, float64(g.Throttled)/1e6, wantN, float64(wantT)/1e6)
			}
			t.Logf("throttled %d periods, %.3f ms; kernel %d, %.3f ms", g.ThrottledPeriods, float64(g.Throttled)/1e6, wantN, float64(wantT)/1e6)
			// The rows' throttled parts add up to the group's.
			var sum int64
			for _, r := range res.TaskRows {
				if r.Cgroup == g.Cgroup {
					sum += r.Throttled
					if r.Throttled > r.SumDelay {
						t.Errorf("%s: throttled %d > sum delay %d", r.Comm, r.Throttled, r.SumDelay)
					}
				}
			}
			if sum != g.ThrottledDelay {
				t.Errorf("rows' throttled sum %d != group's %d", sum, g.ThrottledDelay)
			}
		})
	}
}
