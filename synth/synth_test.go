package synth

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

func run(t *testing.T, m *replay.Model, spec string, cpus int) *replay.Result {
	t.Helper()
	specs, err := policies.ParseSpecs(spec)
	if err != nil {
		t.Fatal(err)
	}
	if cpus == 0 {
		cpus = m.NrCPUs
	}
	pol, err := specs[0].New(cpus)
	if err != nil {
		t.Fatal(err)
	}
	cfg := replay.DefaultConfig()
	cfg.CPUs = cpus
	res, err := replay.Simulate(m, pol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestPipelineMakespan(t *testing.T) {
	// 2 threads, 3 frames of 1 ms, dist 1, on 2 CPUs: thread 0 runs its
	// frames 0-3 ms on CPU 0 without waiting; thread 1 may start frame f
	// once thread 0 finished frame f, at f+1 ms, and runs it on the idle
	// CPU 1: frames at 1-2, 2-3, 3-4. Makespan 4 ms under any policy.
	m := Pipeline(2, 3, 1_000_000, 1, 2)
	for _, p := range []string{"eevdf", "bfs", "o1", "fifo"} {
		if got := Makespan(m, run(t, m, p, 0)); got != 4_000_000 {
			t.Errorf("%s: makespan %d ns, want 4000000", p, got)
		}
	}
	// On one CPU the same work is serialized: 6 ms.
	if got := Makespan(m, run(t, m, "eevdf", 1)); got != 6_000_000 {
		t.Errorf("1 CPU: makespan %d ns, want 6000000", got)
	}
}

func TestPipePingPong(t *testing.T) {
	// 3 round trips of 1 ms passes on one CPU: A, B, A, B, A, B, then A's
	// empty last burst: 6 ms, 7 switch-ins of the two tasks (A's final
	// zero-length run included), strictly alternating.
	m := Pipe(1, 3, 1_000_000)
	res := run(t, m, "eevdf", 0)
	if got := Makespan(m, res); got != 6_000_000 {
		t.Errorf("makespan %d ns, want 6000000", got)
	}
	var order []trace.TID
	for _, ev := range res.Events() {
		if ev.Kind == trace.KindSwitch && ev.NextTID != 0 {
			order = append(order, ev.NextTID)
		}
	}
	if len(order) != 7 {
		t.Fatalf("switch-ins %v, want 7", order)
	}
	for i := 1; i < len(order); i++ {
		if order[i] == order[i-1] {
			t.Errorf("switch-ins %v do not alternate", order)
		}
	}
}

func TestGeneratorsRun(t *testing.T) {
	// Every generator at a small size runs to completion under eevdf:
	// all CPU time of the model handed out, no task left waiting.
	small := map[string][]string{
		"pipeline":      {"frames=20"},
		"massive_intr":  {"loops=3", "probe_loops=20"},
		"messaging":     {"groups=1", "loops=2"},
		"pipe":          {"loops=20"},
		"manytasks":     {"tasks=100", "runnable=10", "loops=2"},
		"latt":          {"loops=10"},
		"x264":          {"frames=12"},
		"latt_make":     {"loops=30"},
		"massive_video": {"frames=10"},
	}
	for _, g := range List() {
		v, err := g.Parse(small[g.Name])
		if err != nil {
			t.Fatal(err)
		}
		m := g.Model(v)
		var cpu int64
		for _, tk := range m.Tasks {
			for _, b := range tk.Bursts {
				cpu += b.Len
			}
		}
		res := run(t, m, "eevdf", 0)
		var ran int64
		for _, ev := range res.Events() {
			if ev.Kind == trace.KindRuntime {
				ran += ev.Runtime
			}
		}
		if ran != cpu || res.Stats.Unfinished != 0 {
			t.Errorf("%s: ran %d of %d ns, %d unfinished", g.Name, ran, cpu, res.Stats.Unfinished)
		}
	}
	if _, err := gens["pipe"].Parse([]string{"loops=x"}); err == nil {
		t.Error("pipe loops=x: no error")
	}
	if _, err := gens["pipe"].Parse([]string{"bogus=1"}); err == nil {
		t.Error("pipe bogus=1: no error")
	}
}

// TestX264OneThread: with one encoder thread everything is serial: the
// main thread's 300 µs, then the 45 rows of (1e9/130 − 300000)/45 =
// 164273 ns (integer division), 7692285 ns per frame, 10 frames 76922850
// ns (130.0 fps) on 1 CPU or 4. With 2 threads on 2 CPUs frame 1's rows
// wait for frame 0 to be 7 rows ahead: the two frames overlap.
func TestX264OneThread(t *testing.T) {
	m := X264(4, 1, 10, 130, 45, 7, 300_000)
	for _, cpus := range []int{1, 4} {
		if got := Makespan(m, run(t, m, "cfs", cpus)); got != 76_922_850 {
			t.Errorf("%d CPUs: makespan %d ns, want 76922850", cpus, got)
		}
	}
	m2 := X264(2, 2, 10, 130, 45, 7, 300_000)
	if got := Makespan(m2, run(t, m2, "bfs", 2)); got >= 76_922_850*3/4 {
		t.Errorf("2 threads on 2 CPUs: makespan %d ns, want well under one thread's 76922850", got)
	}
}

// TestParseBounds: integer parameters above MaxIntParam are refused before
// anything is built; the bound itself and durations are accepted.
func TestParseBounds(t *testing.T) {
	g, ok := Lookup("manytasks")
	if !ok {
		t.Fatal("manytasks not registered")
	}
	if _, err := g.Parse([]string{"tasks=100000000"}); err == nil || !strings.Contains(err.Error(), "at most 1000000") {
		t.Errorf("tasks=100000000: err %v, want the bound", err)
	}
	// The bound itself, with 1 loop: 1000000 bursts, MaxBursts.
	v, err := g.Parse([]string{"tasks=1000000", "loops=1"})
	if err != nil || v["tasks"] != "1000000" {
		t.Errorf("tasks=1000000 loops=1: %v %v", v, err)
	}
	// With the default 10 loops, 1e7 bursts: above MaxBursts.
	if _, err := g.Parse([]string{"tasks=1000000"}); err == nil || !strings.Contains(err.Error(), "synth manytasks: tasks=1000000 make about 1e+07 CPU bursts, above the limit of 1000000") {
		t.Errorf("tasks=1000000: err %v, want the bursts bound", err)
	}
	if _, err := g.Parse([]string{"tasks=-1"}); err == nil {
		t.Error("tasks=-1 accepted")
	}
}

// TestParseEmptyWorkload: a count of 0 that leaves a task without a CPU
// burst is refused with the settings that did it. 'synth latt loops=0
// jobs=0 -w F' panicked in the simulator (index out of range in sim.arm:
// latt and latt-client had no burst). latt jobs=0 (no build beside the
// probe: latt and latt-client, loops=200 each) and massive_intr procs=0
// (the probe alone) stay valid; messaging groups=0 (no task at all) would
// write an empty trace, which says nothing, and is refused as groups=-1 is.
func TestParseEmptyWorkload(t *testing.T) {
	for _, c := range []struct {
		gen  string
		args []string
		want string // "" for no error
	}{
		{"latt", []string{"loops=0", "jobs=0"}, "synth latt: jobs=0 loops=0: task latt has no CPU burst (each task needs some work)"},
		{"messaging", []string{"groups=0"}, "synth messaging: groups=0 make no CPU burst: nothing to simulate (raise the counts)"},
		// Tasks that only start and exit (no message, no round trip).
		{"messaging", []string{"loops=0"}, "synth messaging: loops=0: want 1..1000000"},
		{"pipe", []string{"loops=0"}, "synth pipe: loops=0: want 1..1000000"},
		{"latt", []string{"jobs=0"}, ""},
		{"massive_intr", []string{"procs=0"}, ""},
	} {
		t.Run(c.gen+" "+strings.Join(c.args, " "), func(t *testing.T) {
			g, _ := Lookup(c.gen)
			_, err := g.Parse(c.args)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestMessagingReadOrder(t *testing.T) {
	// One group of 2 senders and 2 receivers, 2 loops, 1 µs per write: a
	// sender's writes go to receiver 0, 1, 0, 1 (loop 0, then loop 1), so
	// receiver 0's messages are that sender's writes 1 and 3 (at 1 and
	// 3 µs into its burst). In sender order receiver 0 reads sender 0's
	// two (1, 3 µs) and then sender 1's (1, 3 µs); by loop, sender 0's
	// first, sender 1's first, then both seconds (1, 1, 3, 3 µs).
	for _, tc := range []struct {
		byLoop bool
		want   [][2]int64 // (sender index, offset) per read of receiver 0
	}{
		{false, [][2]int64{{0, 1000}, {0, 3000}, {1, 1000}, {1, 3000}}},
		{true, [][2]int64{{0, 1000}, {1, 1000}, {0, 3000}, {1, 3000}}},
	} {
		m := Messaging(1, 1, 2, 2, 1000, 1000, tc.byLoop)
		// Tasks: receivers 0 and 1, then senders 2 and 3.
		var got [][2]int64
		for j := 0; j < 4; j++ {
			for s := 2; s <= 3; s++ {
				for _, a := range m.Tasks[s].ActionsOf(&m.Tasks[s].Bursts[0]) {
					if a.Kind == replay.ActWake && a.Target == 0 && int(a.Block) == j {
						got = append(got, [2]int64{int64(s - 2), a.At})
					}
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("by loop %v: receiver 0 reads %v, want %v", tc.byLoop, got, tc.want)
		}
	}
}

// TestLattMakeDriver pins the compiler-driver layer of latt_make: with
// driver=2ms each job slot forks "gcc", which runs 1 ms, forks "cc1",
// waits for it, runs 1 ms more and exits. One slot (jobs=1) of one server
// period: 10 ms × 2 CPUs of probe time; the slot forks jobs while its CPU
// time × jobs is below 20 ms: the first job counts 2 ms of driver plus its
// cc1's bursts and I/O (job_burst 4 ms cycling 50 %, 100 %, 150 %: 2 ms + 1
// ms, 4 ms + 1 ms) = 10 ms, the second 2 + (4 + 1) + (2 + 1) = 10 ms more,
// reaching 20 ms: two gcc and two cc1, each cc1 forked by a gcc.
func TestLattMakeDriver(t *testing.T) {
	m := LattMake(2, 10_000_000, 1, 1000, 1000, 1, 1, 4_000_000, 1_000_000, 2, 500_000, 2_000_000)
	var gccs, cc1s int
	for _, tk := range m.Tasks {
		switch tk.Comm {
		case "gcc":
			gccs++
			if len(tk.Bursts) != 2 || tk.Bursts[0].Len != 1_000_000 || tk.Bursts[1].Len != 1_000_000 {
				t.Errorf("gcc bursts %+v, want two of 1 ms", tk.Bursts)
			}
		case "cc1":
			cc1s++
			if p := m.Tasks[tk.Parent].Comm; p != "gcc" {
				t.Errorf("cc1 forked by %q, want gcc", p)
			}
		}
	}
	if gccs != 2 || cc1s != 2 {
		t.Errorf("%d gcc and %d cc1, want 2 and 2", gccs, cc1s)
	}
}

// TestZeroIsNotOne: no parameter silently turns a 0 into 1. For every
// integer parameter of every generator, value 0 is either refused with the
// parameter's allowed range or builds a model that differs from the one
// value 1 builds; the counts and the duration below are refused. Pipeline, x264, massive_video
// and latt_make clamped their counts (threads, frames, dist, rows, fps1,
// fps, decoders, clients, loops, job_bursts) and latt_make's write to 1:
// 'synth x264 threads=0' wrote the 1-thread encoder.
func TestZeroIsNotOne(t *testing.T) {
	dump := func(g Generator, v Values) string {
		var b strings.Builder
		if err := g.Model(v).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// 0 means something here and builds the model 1 does: by_loop is a
	// switch (the read order, which the model text does not show), lead
	// a row count whose waits are already satisfied at 0 and 1.
	meaningful := map[string]bool{"messaging by_loop": true, "x264 lead": true}
	refused := map[string]string{}
	for _, g := range List() {
		for _, p := range g.Params {
			zero, one := "0", "1"
			if isDuration(p.Default) {
				zero, one = "0s", "1ns"
			}
			v0, err := g.Parse([]string{p.Name + "=" + zero})
			if err != nil {
				refused[g.Name+" "+p.Name] = err.Error()
				continue
			}
			if isDuration(p.Default) || meaningful[g.Name+" "+p.Name] {
				continue
			}
			v1, err := g.Parse([]string{p.Name + "=" + one})
			if err != nil {
				continue // 1 is refused (a burst-less task): 0 cannot be read as 1
			}
			if dump(g, v0) == dump(g, v1) {
				t.Errorf("synth %s %s=%s builds the model of %s=%s", g.Name, p.Name, zero, p.Name, one)
			}
		}
	}
	want := map[string]string{
		"pipeline threads":       "synth pipeline: threads=0: want 1..1000000",
		"pipeline frames":        "synth pipeline: frames=0: want 1..1000000",
		"pipeline dist":          "synth pipeline: dist=0: want 1..1000000",
		"x264 threads":           "synth x264: threads=0: want 1..1000000",
		"x264 frames":            "synth x264: frames=0: want 1..1000000",
		"x264 fps1":              "synth x264: fps1=0: want 1..1000000",
		"x264 rows":              "synth x264: rows=0: want 1..1000000",
		"massive_video frames":   "synth massive_video: frames=0: want 1..1000000",
		"massive_video fps":      "synth massive_video: fps=0: want 1..1000000",
		"massive_video decoders": "synth massive_video: decoders=0: want 1..1000000",
		"latt_make clients":      "synth latt_make: clients=0: want 1..1000000",
		"latt_make loops":        "synth latt_make: loops=0: want 1..1000000",
		"latt_make job_bursts":   "synth latt_make: job_bursts=0: want 1..1000000",
		"latt_make write":        "synth latt_make: write=0s: want a duration of at least 1ns",
	}
	for k, w := range want {
		if refused[k] != w {
			t.Errorf("%s=0: error %q, want %q", k, refused[k], w)
		}
	}
}

// Every workload's Bursts estimate is within 25 % of the bursts of the
// model Build returns, at the defaults and with the counts doubled (the
// estimate is what 'traceview synth' refuses an oversized run by).
func TestBurstEstimates(t *testing.T) {
	for _, g := range List() {
		t.Run(g.Name, func(t *testing.T) {
			if g.Bursts == nil {
				t.Fatal("no Bursts estimate")
			}
			for _, scale := range []bool{false, true} {
				v := Values{}
				for _, p := range g.Params {
					v[p.Name] = p.Default
					if n, err := strconv.Atoi(p.Default); scale && err == nil && n > 1 && p.Name != "fds" && p.Name != "lead" && p.Name != "dist" {
						v[p.Name] = strconv.Itoa(2 * n)
					}
				}
				est, got := g.Bursts(v), float64(g.Build(v).Stats.Bursts)
				if est < 0.75*got || est > 1.25*got {
					t.Errorf("%v: estimate %.0f bursts, model %.0f", v, est, got)
				}
			}
		})
	}
}
