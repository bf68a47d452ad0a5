package replay

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSimulateProgress: Config.Progress sees the simulated time grow to
// the model's span and changes nothing while it returns true; when it
// returns false the run stops there, Interrupted, and its events are the
// first ones of the whole run's.
func TestSimulateProgress(t *testing.T) {
	m := ringModel(8, 40_000, 20_000) // 0.8 s of ring work, ~100 k steps
	m.Start, m.End = 0, 1_000_000_000
	whole := simulate(t, m, "eevdf", DefaultConfig())
	if whole.Interrupted {
		t.Fatal("a run without Progress is interrupted")
	}

	cfg := DefaultConfig()
	var calls int
	var last, span int64 = -1, 0
	cfg.Progress = func(done, sp int64) bool {
		if done < last {
			t.Errorf("progress went back from %d to %d ns", last, done)
		}
		calls, last, span = calls+1, done, sp
		return true
	}
	watched := simulate(t, m, "eevdf", cfg)
	if calls < 2 || span != m.End-m.Start || last <= 0 {
		t.Errorf("Progress called %d times, last at %d ns of %d: want at least 2, up the span %d", calls, last, span, m.End-m.Start)
	}
	if watched.Interrupted || watched.End != whole.End || watched.Stats != whole.Stats {
		t.Errorf("watched run differs: interrupted %v, end %d, stats %+v; want end %d, stats %+v",
			watched.Interrupted, watched.End, watched.Stats, whole.End, whole.Stats)
	}

	calls = 0
	cfg.Progress = func(done, sp int64) bool {
		calls++
		return calls < 2 // stop at the second call
	}
	cut := simulate(t, m, "eevdf", cfg)
	if !cut.Interrupted || cut.End >= whole.End || cut.Stats.Events == 0 {
		t.Fatalf("stopped run: interrupted %v, end %d (whole run %d), %d events", cut.Interrupted, cut.End, whole.End, cut.Stats.Events)
	}
	all, part := whole.Events(), cut.Events()
	if d := cmp.Diff(all[:len(part)], part); d != "" {
		t.Errorf("the stopped run's events are not the whole run's first ones (-whole +stopped):\n%s", d)
	}
}

// TestDropEvents: a Result keeps its stats without its events, and its
// Source says they are gone instead of streaming nothing.
func TestDropEvents(t *testing.T) {
	m := ringModel(4, 400, 20_000)
	res := simulate(t, m, "eevdf", DefaultConfig())
	st := res.Stats
	res.DropEvents()
	if res.Stats != st {
		t.Errorf("stats changed: %+v, want %+v", res.Stats, st)
	}
	if _, err := res.Source().Next(); !errors.Is(err, ErrEventsDropped) {
		t.Errorf("Source after DropEvents: %v, want ErrEventsDropped", err)
	}
}
