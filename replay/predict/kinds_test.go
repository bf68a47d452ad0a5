package predict

import (
	"testing"

	"github.com/traceview/traceview/replay"
)

// TestCheckKinds: nice.2cpu's three hogs are inferred deadline-bound; the
// check replays them work-bound and names their command once. An --until
// override for them settles it: no check. 1 CPU, so that the work-bound
// replay ends later than the deadline-bound one and the makespan moves.
func TestCheckKinds(t *testing.T) {
	m := load(t, "nice.2cpu.perf.data")
	cfg := replay.DefaultConfig()
	cfg.CPUs = 1
	sp := spec(t, "eevdf")
	p, err := Predict(m, sp, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
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
