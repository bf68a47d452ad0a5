package predict

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

func load(t *testing.T, name string) *replay.Model {
	t.Helper()
	src, err := trace.Open(filepath.Join("..", "..", "testdata", "traces", name))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m, err := replay.Extract(src)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func spec(t *testing.T, s string) policies.Spec {
	t.Helper()
	specs, err := policies.ParseSpecs(s)
	if err != nil {
		t.Fatal(err)
	}
	return specs[0]
}

// TestPredict: a prediction scores its table against the recording's,
// makespan first, and its self-replay stands for a run of the same policy
// and configuration (the simulation is deterministic).
func TestPredict(t *testing.T) {
	m := load(t, "nice.2cpu.perf.data")
	self, err := SelfReplay(m, nil, Tables{})
	if err != nil {
		t.Fatal(err)
	}
	if self.Trust == nil || len(self.Checks) == 0 {
		t.Fatalf("self-replay: trust %v, %d checks", self.Trust, len(self.Checks))
	}
	sp := spec(t, self.Policy)
	if !self.Reusable(sp, replay.DefaultConfig()) {
		t.Errorf("self-replay under %s not reusable for a run of %s with the default configuration", self.Policy, sp)
	}
	p, err := Predict(m, sp, replay.DefaultConfig(), Options{Name: "self"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Checks) == 0 || p.Checks[0].Metric != "makespan" || p.Checks[0].Case != "self" {
		t.Fatalf("checks %+v: want the makespan first, of case self", p.Checks)
	}
	if p.ObservedMakespan != m.ObservedMakespan() || p.Checks[0].Predicted != p.Result.Makespan {
		t.Errorf("makespans: observed %d predicted %d, checks %+v", p.ObservedMakespan, p.Result.Makespan, p.Checks[0])
	}
	if !reflect.DeepEqual(p.Predicted.JSON(), self.Predicted.JSON()) || p.Result.Makespan != self.Result.Makespan {
		t.Error("a run of the self-replay's policy and configuration predicts another table than the self-replay")
	}
	if len(p.Result.Events()) != 0 {
		t.Error("events kept without KeepEvents")
	}
}

func TestSameConfig(t *testing.T) {
	m := &replay.Model{NrCPUs: 2}
	def := replay.DefaultConfig()
	with := func(f func(*replay.Config)) replay.Config {
		c := replay.DefaultConfig()
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  replay.Config
		same bool
	}{
		{"default", def, true},
		{"watched", with(func(c *replay.Config) { c.Progress = func(int64, int64) bool { return true } }), true},
		{"model's CPUs", with(func(c *replay.Config) { c.CPUs = 2 }), true},
		{"250 Hz", with(func(c *replay.Config) { c.HZ = 250 }), true},
		{"1 CPU", with(func(c *replay.Config) { c.CPUs = 1 }), false},
		{"1000 Hz", with(func(c *replay.Config) { c.HZ = 1000 }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameConfig(m, def, tc.cfg); got != tc.same {
				t.Errorf("SameConfig = %v, want %v", got, tc.same)
			}
		})
	}
}
