package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// TestLatencySeriesCgroupsByPath is the regression test for new-user pass
// 52 F2: each file of a record --rotate series numbered the cgroup v1
// groups its own way, and the series read as one named every id as its
// last file did. seriesEvents cut after the wakeup at 2200 µs (files
// x.001.tv, x.002.tv), with a (10) in /ga and b (20) in /gb throughout:
// x.001.tv numbers /ga 1 and /gb 2 (V1CgroupIDBit|n), x.002.tv the other
// way round; a switch carries the id of the task it switches out. By hand
// (seriesEvents' comment): /ga is a's runs 1000-2000, 3000-4000 and
// 5000-6000 µs, 3000 µs, and its delays 2200-3000 and 4600-5000, 2 of
// 1200 µs; /gb is b's runs 2000-3000 and 4000-5000, 2000 µs, and its
// delays 1500-2000 and 3100-4000, 2 of 1400 µs. The old read named
// x.001.tv's ids as x.002.tv does: a's first run and its delay from 2200
// went to /gb (/ga 2000 µs and 1 delay of 400 µs, /gb 3000 µs and 3 of
// 2200 µs).
func TestLatencySeriesCgroupsByPath(t *testing.T) {
	const v = trace.V1CgroupIDBit
	dir := t.TempDir()
	evs := seriesEvents()
	write := func(name string, evs []trace.Event, ids map[trace.TID]uint64, table map[uint64]string) string {
		evs = append([]trace.Event(nil), evs...)
		for i := range evs {
			if evs[i].Kind == trace.KindSwitch {
				evs[i].Cgroup = ids[evs[i].TID]
			}
		}
		path := dir + "/" + name
		writeTV(t, path, tvf.Header{Hostname: "box", NrCPUs: 1, Tool: "traceview record (tp_btf) --rotate 1s", Cmdline: []string{"traceview", "record"}, Clock: "CLOCK_MONOTONIC"},
			evs, func(w *tvf.Writer) {
				w.AddTask(10, 10, "a")
				w.AddTask(20, 20, "b")
			}, func(w *tvf.Writer) { w.SetCgroups(table) })
		return path
	}
	p1 := write("x.001.tv", evs[:4], map[trace.TID]uint64{0: trace.RootCgroupID, 10: v | 1, 20: v | 2},
		map[uint64]string{trace.RootCgroupID: "/", v | 1: "/ga", v | 2: "/gb"})
	p2 := write("x.002.tv", evs[4:], map[trace.TID]uint64{0: trace.RootCgroupID, 10: v | 2, 20: v | 1},
		map[uint64]string{trace.RootCgroupID: "/", v | 1: "/gb", v | 2: "/ga"})
	doc := cliJSON[latencyGroupsJSON](t, "latency", "-o", "json", "--by", "cgroup", p1, p2)
	got := map[string]groupTotal{}
	for _, g := range doc.Groups {
		got[g.Key] = groupTotal{g.Total.RuntimeNs, g.Total.Count, g.Total.SumDelayNs}
	}
	want := map[string]groupTotal{
		"/ga": {3_000_000, 2, 1_200_000},
		"/gb": {2_000_000, 2, 1_400_000},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per group: runtime ns, delays, sum of delays ns (-want +got):\n%s", diff)
	}
}

// groupTotal is a group's runtime (ns), number of delays and their sum
// (ns).
type groupTotal struct{ RuntimeNS, Count, SumDelayNS int64 }
