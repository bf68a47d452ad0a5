package replay

import (
	"errors"
	"reflect"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// newPolicy returns a fresh instance of policy for ncpus CPUs.
func newPolicy(t testing.TB, policy string, ncpus int) policies.Policy {
	t.Helper()
	specs, err := policies.ParseSpecs(policy)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := specs[0].New(ncpus)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// TestSimulateIntoSameEvents: the events SimulateInto streams to its
// reader while the simulation runs are the events of Simulate's Result,
// field for field and in order, and so are those the Result keeps with
// keepEvents; without it the Result keeps none (ErrEventsDropped). The
// simulation of stress-fork.2cpu under eevdf emits 18,821 events (on the
// model of the day), at about 12 bytes an event 3 to 4 chunks of 64 KiB
// (recChunkBytes), so chunks are handed over while it runs and the last
// one at its end.
func TestSimulateIntoSameEvents(t *testing.T) {
	m := extractFile(t, "../testdata/traces/stress-fork.2cpu.tv")
	want := simulate(t, m, "eevdf", DefaultConfig()).Events()
	if len(want) < 15_000 {
		t.Fatalf("the simulation emitted %d events; the test needs 15,000 or more (several chunks)", len(want))
	}
	for _, keep := range []bool{true, false} {
		var got []trace.Event
		res, err := SimulateInto(m, newPolicy(t, "eevdf", m.NrCPUs), DefaultConfig(), keep, func(src trace.Source) error {
			var err error
			got, err = trace.ReadAll(src)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("keep %v: streamed %d events, Simulate's %d; they differ", keep, len(got), len(want))
		}
		kept, err := trace.ReadAll(res.Source())
		switch {
		case keep && (err != nil || !reflect.DeepEqual(kept, want)):
			t.Errorf("keepEvents: the Result keeps %d events (%v), want Simulate's %d", len(kept), err, len(want))
		case !keep && !errors.Is(err, ErrEventsDropped):
			t.Errorf("without keepEvents: the Result's Source gave %d events and %v, want ErrEventsDropped", len(kept), err)
		}
	}
}

// TestSimulateIntoReaderStops: a reader that stops after 10 events and
// fails does not stall the simulation (it runs to its end and the rest of
// its events are let go), and SimulateInto returns the reader's error.
func TestSimulateIntoReaderStops(t *testing.T) {
	m := extractFile(t, "../testdata/traces/stress-fork.2cpu.tv")
	stop := errors.New("stop")
	n := 0
	_, err := SimulateInto(m, newPolicy(t, "eevdf", m.NrCPUs), DefaultConfig(), false, func(src trace.Source) error {
		for ; n < 10; n++ {
			if _, err := src.Next(); err != nil {
				return err
			}
		}
		return stop
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Errorf("after %d events: %v, want the reader's error after 10", n, err)
	}
	// as-traced simulates nothing: the reader gets the recording.
	m = extractFile(t, "../testdata/traces/messaging.2cpu.perf.data", ExtractOptions{})
	var got int
	res, err := SimulateInto(m, newPolicy(t, "as-traced", m.NrCPUs), DefaultConfig(), true, func(src trace.Source) error {
		evs, err := trace.ReadAll(src)
		got = len(evs)
		return err
	})
	if err != nil || int64(got) != res.Stats.Events {
		t.Errorf("as-traced: read %d events (%v), the recording holds %d", got, err, res.Stats.Events)
	}
}
