package textfmt

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestLatencyFormatPair reads one capture made twice at once on this VM
// (hackbench -g 1 -l 20): the top-level tracefs instance in the default
// format (ns times) and a second instance, instances/lat, with
// options/latency-format on; the second was enabled after the first and
// stopped before it, so its events are a run of the first's. On every
// CPU the latency-format sched_switch events must be that run, field for
// field, at the same times to within the format's 1 µs: its times are
// floor((t - buffer start) / 1 µs) µs, so t(ns file) - t(lat file) is one
// offset (the buffer start, rounded) plus [0, 1000) ns for every event.
func TestLatencyFormatPair(t *testing.T) {
	nsEvs, _ := readAll(t, "testdata/latpair-ns.txt.gz")
	latEvs, meta := readAll(t, "testdata/latpair-lat.txt.gz")
	n := 0
	for _, w := range meta.Warnings.List() {
		if w.Key == "text-latency-format" {
			n += w.Count
		}
	}
	if n != 1 {
		t.Errorf("text-latency-format warnings: %d, want 1", n)
	}
	// Its header: "# nop latency trace v1.1.5 on 6.18.44-fc-v1272" and
	// "# latency: 0 us, #2255/2255, CPU#0 | (M:PREEMPT(none) ... #P:2)".
	if meta.OSRelease != "6.18.44-fc-v1272" || meta.NrCPUs != 2 {
		t.Errorf("header: kernel %q, %d CPUs; want 6.18.44-fc-v1272, 2", meta.OSRelease, meta.NrCPUs)
	}
	switches := func(evs []trace.Event) map[trace.CPU][]trace.Event {
		m := map[trace.CPU][]trace.Event{}
		for _, e := range evs {
			if e.Kind == trace.KindSwitch {
				m[e.CPU] = append(m[e.CPU], e)
			}
		}
		return m
	}
	ns, lat := switches(nsEvs), switches(latEvs)
	if len(lat) != 2 {
		t.Fatalf("latency-format switches on %d CPUs, want 2", len(lat))
	}
	same := func(a, b trace.Event) bool {
		return a.TID == b.TID && a.NextTID == b.NextTID && a.PrevState == b.PrevState && a.Comm == b.Comm && a.NextComm == b.NextComm
	}
	total := 0
	for cpu, l := range lat {
		n := ns[cpu]
		k := -1
		for i := 0; i+len(l) <= len(n) && k < 0; i++ {
			ok := true
			for j := range l {
				if !same(n[i+j], l[j]) {
					ok = false
					break
				}
			}
			if ok {
				k = i
			}
		}
		if k < 0 {
			t.Fatalf("CPU %d: the %d latency-format switches are not a run of the %d ns-format ones", cpu, len(l), len(n))
		}
		ds := make([]int64, len(l))
		for j := range l {
			ds[j] = n[k+j].Time - l[j].Time
		}
		slices.Sort(ds)
		off := ds[len(ds)/2]
		near := 0
		for _, d := range ds {
			if d-off >= -1000 && d-off <= 1000 {
				near++
			}
		}
		if 100*near < 98*len(ds) || off-ds[0] > 50_000 || ds[len(ds)-1]-off > 50_000 {
			t.Errorf("CPU %d: t(ns) - t(lat) within 1 µs of its median for %d of %d switches (want 98 %%), range %d..%d ns from it (want within 50 µs)",
				cpu, near, len(ds), ds[0]-off, ds[len(ds)-1]-off)
		}
		total += len(l)
	}
	if total < 500 {
		t.Errorf("%d switches compared, want the capture's (over 500)", total)
	}
}
