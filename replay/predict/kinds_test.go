package predict

import (
	"slices"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

// niceOneCPU is nice.2cpu's model and its eevdf prediction on 1 CPU, with
// the spec and configuration of it.
func niceOneCPU(t *testing.T) (*replay.Model, policies.Spec, replay.Config, *Prediction) {
	t.Helper()
	return oneCPU(t, "nice.2cpu.perf.data")
}

// oneCPU is a trace's model and its eevdf prediction on 1 CPU, with the
// spec and configuration of it.
func oneCPU(t *testing.T, name string) (*replay.Model, policies.Spec, replay.Config, *Prediction) {
	t.Helper()
	return predictOneCPU(t, load(t, name))
}

// predictOneCPU is m's eevdf prediction on 1 CPU, with the spec and
// configuration of it.
func predictOneCPU(t *testing.T, m *replay.Model) (*replay.Model, policies.Spec, replay.Config, *Prediction) {
	t.Helper()
	cfg := replay.DefaultConfig()
	cfg.CPUs = 1
	sp := spec(t, "eevdf")
	p, err := Predict(m, sp, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, sp, cfg, p
}

// TestCheckKinds: nice.2cpu's three hogs are inferred deadline-bound; the
// check replays them work-bound and names their command once. An --until
// override for them settles it: no check. 1 CPU, so that the work-bound
// replay ends later than the deadline-bound one and the makespan moves.
func TestCheckKinds(t *testing.T) {
	m, sp, cfg, p := niceOneCPU(t)
	ks, err := CheckKinds(m, sp, cfg, p.Result, p.Predicted, false)
	if err != nil {
		t.Fatal(err)
	}
	if ks == nil || len(ks.Tasks) != 1 || ks.MakespanNs <= 0 || ks.MakespanNs == p.Result.Makespan {
		t.Fatalf("kind sensitivity %+v (prediction's makespan %d ns): want one command and another makespan", ks, p.Result.Makespan)
	}
	sel, err := replay.ParseSelector(ks.Tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	cfg.Overrides = []replay.Override{{Sel: sel, Until: &replay.UntilOverride{Kind: replay.UntilDeadline, Deadline: 1_000_000_000}}}
	if ks, err := CheckKinds(m, sp, cfg, p.Result, p.Predicted, false); err != nil || ks != nil {
		t.Errorf("with --until set for %s: %+v, %v; want nil", sel.String(), ks, err)
	}
}

// TestCheckKindsCensored: a capture that ended before its workload
// (Model.Stats.Censored) has no makespan to predict, so the work-bound
// replay's makespan is no changed conclusion. Before, `replay --policy eevdf
// --cpus 1` of a 3 s capture of `stress-ng --cpu 3 --timeout 6` said "the
// makespan cannot be predicted" and then, in its note, "makespan 3000.625
// ms -> 5720.710 ms". Here nice.2cpu on 1 CPU, whose makespan moves when
// the hogs are work-bound (TestCheckKinds), marked censored as a cut
// capture of it would be.
func TestCheckKindsCensored(t *testing.T) {
	m, sp, cfg, p := niceOneCPU(t)
	ks, err := CheckKinds(m, sp, cfg, p.Result, p.Predicted, false)
	if err != nil || ks == nil {
		t.Fatalf("%+v, %v", ks, err)
	}
	moved := false
	for _, c := range ks.Changes {
		moved = moved || c.Metric == "makespan"
	}
	if !moved {
		t.Fatalf("uncensored: no makespan change in %+v", ks.Changes)
	}
	m.Stats.Censored = 1
	if ks, err = CheckKinds(m, sp, cfg, p.Result, p.Predicted, false); err != nil || ks == nil {
		t.Fatalf("%+v, %v", ks, err)
	}
	for _, c := range ks.Changes {
		if c.Metric == "makespan" {
			t.Errorf("censored: a makespan change %+v", c)
		}
	}
}

// TestCheckKills: grpq.q25's hog (`hog 2` beside reqsrv, a spinner that
// exited mid-spin with no timer in the trace to say why) is replayed
// work-bound; on 1 CPU the check takes it as killed at the end of its spin
// (2014.4 ms after its start) and the makespan moves: from 2833.6 ms
// (work-bound) to 2034.0 ms. --until for it settles it: no check.
func TestCheckKills(t *testing.T) {
	m, sp, cfg, p := oneCPU(t, "grpq.q25.perf.data")
	kk, err := CheckKills(m, sp, cfg, p.Result, p.Predicted, false)
	if err != nil {
		t.Fatal(err)
	}
	if kk == nil || len(kk.Tasks) != 1 || kk.Tasks[0] != "hog" || !kk.Conclusions || kk.MakespanNs < 2_030_000_000 || kk.MakespanNs > 2_040_000_000 {
		t.Fatalf("kill sensitivity %+v (prediction's makespan %d ns); want hog, a changed conclusion, makespan 2.03-2.04 s", kk, p.Result.Makespan)
	}
	cfg.Overrides = []replay.Override{{Sel: replay.Selector{Comm: "hog", PID: -1, TID: -1}, Until: &replay.UntilOverride{Kind: replay.UntilWork}}}
	if kk, err := CheckKills(m, sp, cfg, p.Result, p.Predicted, false); err != nil || kk != nil {
		t.Errorf("with --until hog=work: %+v, %v; want nil", kk, err)
	}
}

// togetherModel is two count-bound tasks of one command ("w", parent
// 50) of the traced workload, each 30 bursts of 10 ms with a 1 µs timer
// sleep after each, then exiting: on 2 CPUs both end 300 ms after their
// start, together; and a third task "solo" of the same shape.
func togetherModel() *replay.Model {
	m := &replay.Model{NrCPUs: 2, WorkloadRoot: -1}
	for i, comm := range []string{"w", "w", "solo"} {
		tk := replay.Task{TID: trace.TID(100 + i), PID: trace.PID(100 + i), Comm: comm, Prio: 120, Parent: 50, Repeat: -1,
			Init: replay.InitRunnable, CPU: i % 2, Workload: true, Until: replay.UntilCount, Last: 300_030_000}
		for k := 0; k < 30; k++ {
			tk.Bursts = append(tk.Bursts, replay.Burst{Len: 10_000_000, End: replay.EndBlock, Slept: 1000,
				Wake: replay.Cause{Kind: replay.CauseTimer, Delay: 1000}})
		}
		tk.Bursts = append(tk.Bursts, replay.Burst{Len: 1000, End: replay.EndExit})
		m.Tasks = append(m.Tasks, tk)
	}
	return m
}

// TestCheckTogether: the two "w" tasks ended together (TogetherExits; the
// lone "solo" is no group) and were replayed count-bound. On 1 CPU the
// three tasks' 900 ms of work take 900 ms. Taken as looping until 300 ms
// after their start (their end in the trace), the three share the CPU
// until then (about 100 ms each: 10 bursts), each "w" runs the 11th burst
// it began before its deadline and stops: 2 × 110 ms, then solo's 300 ms,
// 520.003 ms of CPU with the exit bursts, the CPU never idle but in the
// 1 µs sleeps: a makespan of 520.003-520.1 ms. An --until for w settles
// it: no check.
func TestCheckTogether(t *testing.T) {
	m := togetherModel()
	if got := m.TogetherExits(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("TogetherExits %v, want [0 1]", got)
	}
	// Threads of one process (pid 99, not its leader) named apart
	// (prctl: w0 and w1) made by one task are a group too; processes of
	// two names are not (new-user pass 12 F6: ss0 to ss3 looping until
	// one wall-clock time had no note).
	named := togetherModel()
	named.Tasks[0].Comm, named.Tasks[1].Comm, named.Tasks[0].PID, named.Tasks[1].PID = "w0", "w1", 99, 99
	if got := named.TogetherExits(); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("threads w0, w1 of process 99: TogetherExits %v, want [0 1]", got)
	}
	named.Tasks[0].PID, named.Tasks[1].PID = 100, 101
	if got := named.TogetherExits(); len(got) != 0 {
		t.Errorf("processes w0, w1: TogetherExits %v, want none", got)
	}
	// 31 ms apart over 300 ms lives: more than deadlineSpread (3 %) apart.
	far := togetherModel()
	far.Tasks[1].Last -= 31_000_000
	if got := far.TogetherExits(); len(got) != 0 {
		t.Errorf("exits 31 ms apart: TogetherExits %v, want none", got)
	}
	// The workload goes on to 10 s (solo's end): the w pair ended 9.7 s
	// before it, more than deadlineSpread (3 %) of its 10 s span, as one
	// process of a build does. Solo ending 9 ms after the pair instead
	// (3 % of the 309.03 ms span is 9.27 ms), the pair counts.
	early := togetherModel()
	early.Tasks[2].Last = 10_000_000_000
	if got := early.TogetherExits(); len(got) != 0 {
		t.Errorf("pair ending 9.7 s before the workload: TogetherExits %v, want none", got)
	}
	early.Tasks[2].Last = 309_030_000
	if got := early.TogetherExits(); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("pair ending 9 ms before the workload: TogetherExits %v, want [0 1]", got)
	}
	m, sp, cfg, p := predictOneCPU(t, m)
	kt, err := CheckTogether(m, sp, cfg, p.Result, p.Predicted, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Result.Makespan < 900_003_000 || p.Result.Makespan > 900_100_000 {
		t.Errorf("count-bound makespan %d ns, want 900.003-900.1 ms", p.Result.Makespan)
	}
	if kt == nil || !slices.Equal(kt.Tasks, []string{"w"}) || !kt.Conclusions || kt.MakespanNs < 520_003_000 || kt.MakespanNs > 520_100_000 {
		t.Fatalf("together sensitivity %+v; want w, a changed conclusion and a makespan of 520.003-520.1 ms", kt)
	}
	cfg.Overrides = []replay.Override{{Sel: replay.Selector{Comm: "w", PID: -1, TID: -1}, Until: &replay.UntilOverride{Kind: replay.UntilCount}}}
	if kt, err := CheckTogether(m, sp, cfg, p.Result, p.Predicted, false); err != nil || kt != nil {
		t.Errorf("with --until w=count: %+v, %v; want nil", kt, err)
	}
}
