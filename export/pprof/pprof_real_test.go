package pprof

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// gLatencyByTID returns ComputeLatency's per-task Sum delay summed by TID
// (a reused TID has one row per identity; pprof frames name the TID).
func gLatencyByTID(t *testing.T, path string) map[int64]int64 {
	t.Helper()
	res, err := report.ComputeLatency(testsched.Open(t, path), report.LatencyOptions{PerTask: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]int64{}
	for _, r := range res.Rows {
		out[int64(r.TID)] += r.SumDelay
	}
	return out
}

// TestExportPprofMatchesLatency: on every real trace (every format), each
// thread's delay in the profile equals its Sum delay in the latency table
// (-p), to the ns.
func TestExportPprofMatchesLatency(t *testing.T) {
	for _, path := range testsched.AllTraces(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := gLatencyByTID(t, path)
			var buf bytes.Buffer
			if err := Write(&buf, testsched.Open(t, path), Options{}); err != nil {
				t.Fatal(err)
			}
			prof, err := profile.Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]int64{}
			for _, s := range prof.Sample {
				if s.Value[0] != 0 {
					got[s.NumLabel["tid"][0]] += s.Value[0]
				}
			}
			for tid, w := range want {
				if got[tid] != w {
					t.Errorf("tid %d: profile delay %d ns, latency Sum delay %d ns", tid, got[tid], w)
				}
			}
			for tid, g := range got {
				if _, ok := want[tid]; !ok {
					t.Errorf("tid %d: profile delay %d ns, not in the latency table", tid, g)
				}
			}
		})
	}
}

// TestExportPprofGoToolReal runs `go tool pprof -top -cum` on the export of
// a real trace: every thread frame's cum equals the latency table's Sum
// delay of that TID, and the first thread listed is the one with the most
// delay.
func TestExportPprofGoToolReal(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not in PATH")
	}
	path := ""
	for _, p := range testsched.RealTraces(t) {
		if strings.HasSuffix(p, "pipe.perf.data") || strings.HasSuffix(p, "nice.2cpu.perf.data") {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("neither pipe.perf.data nor nice.2cpu.perf.data found")
	}
	want := gLatencyByTID(t, path)
	out := gPprofFile(t, path)
	rows := gPprofTopCum(t, goBin, out)
	var top string
	var topV int64
	for name, v := range rows {
		tid, err := strconv.ParseInt(name[strings.LastIndex(name, ":")+1:], 10, 64)
		if err != nil {
			t.Fatalf("thread frame %q: %v", name, err)
		}
		if v != want[tid] {
			t.Errorf("%s: pprof cum %d ns, latency Sum delay %d ns", name, v, want[tid])
		}
		if v > topV {
			top, topV = name, v
		}
	}
	var wantTop int64
	for _, v := range want {
		wantTop = max(wantTop, v)
	}
	if topV != wantTop || len(rows) == 0 {
		t.Errorf("most delayed thread in pprof: %s %d ns; latency table's largest Sum delay: %d ns", top, topV, wantTop)
	}
}

// BenchmarkWrite writes the export of testsched.BenchTrace.
func BenchmarkWrite(b *testing.B) {
	testsched.Bench(b, func(src trace.Source) error { return Write(io.Discard, src, Options{}) })
}
