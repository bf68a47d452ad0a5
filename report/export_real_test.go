package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// gRealTraces lists the perf.data files of this repo's testdata/traces and
// of ../shared/traces (the shared oracle set, next to the repository).
func gRealTraces(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"../testdata/traces", "../../shared/traces"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.perf.data"))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skip("no *.perf.data in testdata/traces or ../shared/traces")
	}
	return out
}

func gOpen(t *testing.T, path string) trace.Source {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// gLatencyByTID returns ComputeLatency's per-task Sum delay summed by TID
// (a reused TID has one row per identity; pprof frames name the TID).
func gLatencyByTID(t *testing.T, path string) map[int64]int64 {
	t.Helper()
	res, err := ComputeLatency(gOpen(t, path), LatencyOptions{PerTask: true})
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
	for _, path := range gAllShared(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := gLatencyByTID(t, path)
			var buf bytes.Buffer
			if err := WritePprof(&buf, gOpen(t, path), ExportOptions{}); err != nil {
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
	for _, p := range gRealTraces(t) {
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

// gAllShared lists every trace file of ../shared/traces that a reader
// takes (perf.data, trace.dat, ftrace text) plus this repo's perf.data
// files.
func gAllShared(t *testing.T) []string {
	t.Helper()
	out := gRealTraces(t)
	for _, pat := range []string{"*.trace.dat", "*.ftrace.txt"} {
		m, _ := filepath.Glob(filepath.Join("../../shared/traces", pat))
		out = append(out, m...)
	}
	return out
}

// TestWriteChromeJSONRealTraces exports every shared trace and checks the
// document's invariants: it decodes; slices on one track never overlap;
// each CPU track's busy time equals ComputeStats' busy time of that CPU;
// every flow has a start and an end 1 ns later.
func TestWriteChromeJSONRealTraces(t *testing.T) {
	for _, path := range gAllShared(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteChromeJSON(&buf, gOpen(t, path), ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			evs := gDecodePerfetto(t, buf.Bytes())
			st, err := ComputeStats(gOpen(t, path), StatsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			type key struct{ pid, tid int64 }
			last := map[key]float64{}
			busy := map[int64]float64{}
			flows := map[int64][]float64{}
			var nx int
			for _, e := range evs {
				switch e.Ph {
				case "X":
					nx++
					k := key{e.Pid, e.Tid}
					// Times are us with ns decimals: allow float rounding.
					if end, ok := last[k]; ok && e.Ts < end-1e-3 {
						t.Fatalf("track %d/%d: slice %q at %.3f us overlaps the previous one ending at %.3f us", e.Pid, e.Tid, e.Name, e.Ts, end)
					}
					last[k] = e.Ts + e.Dur
					if e.Pid == PerfettoCPUPid {
						busy[e.Tid-PerfettoCPUPid] += e.Dur
					}
				case "s", "f":
					flows[e.ID] = append(flows[e.ID], e.Ts)
				}
			}
			if nx == 0 {
				t.Fatal("no slices")
			}
			for _, c := range st.CPUs {
				if got, want := busy[int64(c.CPU)], float64(c.Busy)/1e3; got < want-1 || got > want+1 {
					t.Errorf("CPU %d: Perfetto busy %.3f us, stats busy %.3f us", c.CPU, got, want)
				}
			}
			for id, ts := range flows {
				if len(ts) != 2 || ts[1]-ts[0] < 0.0005 || ts[1]-ts[0] > 0.0015 {
					t.Errorf("flow %d: events at %v", id, ts)
				}
			}
		})
	}
}

// TestStatsRealTraces: on every shared trace, each CPU's utilization is
// within 0..1, its busy time within its observed time, and the delay
// histogram holds exactly the delays the latency table counts (Count).
func TestStatsRealTraces(t *testing.T) {
	for _, path := range gAllShared(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			st, err := ComputeStats(gOpen(t, path), StatsOptions{Buckets: 50})
			if err != nil {
				t.Fatal(err)
			}
			lat, err := ComputeLatency(gOpen(t, path), LatencyOptions{PerTask: true})
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
	for _, path := range gAllShared(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHTMLReport(&buf, gOpen(t, path), HTMLOptions{Name: path}); err != nil {
				t.Fatal(err)
			}
			lat, err := ComputeLatency(gOpen(t, path), LatencyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if n := strings.Count(page, "<svg"); n != HTMLPlots {
				t.Errorf("%d plots, want %d", n, HTMLPlots)
			}
			// The stats see every event although ComputeLatency asks the
			// reader to skip sched_migrate_task.
			st, err := ComputeStats(gOpen(t, path), StatsOptions{})
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
			res, err := Compare(gOpen(t, a), gOpen(t, b), CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range []string{a, b} {
				lat, err := ComputeLatency(gOpen(t, p), LatencyOptions{})
				if err != nil {
					t.Fatal(err)
				}
				side := res.Total.A
				if i == 1 {
					side = res.Total.B
				}
				if side.Runtime != lat.Total.Runtime || side.Count != lat.Total.Count || side.SumDelay != lat.Total.SumDelay || side.Switches != lat.Total.Switches {
					t.Errorf("%s: TOTAL %+v, latency total %+v", p, *side, lat.Total)
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
