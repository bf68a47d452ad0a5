package replay

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace/perfdata"
)

// fuzzSteps bounds each simulation of FuzzReplay: the seeds take at most
// 835 steps (switch-events.data under cfs); a damaged model that would
// tick for days stops here with ErrNoProgress, as it would at its full
// budget (TestStepBudgetStops), only sooner.
const fuzzSteps = 200_000

// FuzzReplay feeds arbitrary bytes to the perf.data reader, extracts a
// model from what it reads and simulates it under eevdf and cfs: neither
// may panic, hang or grow without bound (issue 29 item 3). A simulation
// may end with ErrNoProgress or a configuration error (more CPUs than
// can be simulated); one that succeeds gives events in time order, and
// no measured cost exceeds maxMeasuredCost. The seeds are small testdata
// traces: sched-pipe-mode.data (pipe mode), switch-events.data (file mode,
// PERF_RECORD_SWITCH) and killed-record.data (perf record killed: no data
// size in the header). Crashers found are kept in testdata/fuzz/FuzzReplay.
//
// Run it with a bounded minimization: with Go's default (60 s per new
// input) a 100 KB perf.data spends most of the run minimizing (19
// executions in 90 s measured 2026-12-04, against 350-650 a second with
// 20x):
//
//	go test -run '^$' -fuzz '^FuzzReplay$' -fuzztime 35m -fuzzminimizetime 20x -parallel 1 ./replay
func FuzzReplay(f *testing.F) {
	for _, p := range []string{"sched-pipe-mode.data", "switch-events.data", "killed-record.data"} {
		b, err := os.ReadFile("../testdata/traces/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// The fuzzing worker panics, without a word, on an input that
		// takes 10 s: one that takes 5 s leaves its goroutines' stacks
		// and the input in $TMPDIR/FuzzReplay-slow-*.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				stem := filepath.Join(os.TempDir(), fmt.Sprintf("FuzzReplay-slow-%d", time.Now().UnixNano()))
				os.WriteFile(stem+".stacks", buf[:n], 0o644)
				os.WriteFile(stem+".perf.data", b, 0o644)
			}
		}()
		r, err := perfdata.NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		defer r.Close()
		m, err := Extract(r)
		if err != nil || len(m.Tasks) == 0 {
			return
		}
		if m.IdleExit > maxMeasuredCost || m.WakePreempt > maxMeasuredCost || m.ContextSwitchCost > maxMeasuredCost {
			t.Fatalf("measured costs above %d ns: idle exit %d, wakeup preemption %d, context switch %d", maxMeasuredCost, m.IdleExit, m.WakePreempt, m.ContextSwitchCost)
		}
		for _, p := range []string{"eevdf", "cfs"} {
			specs, err := policies.ParseSpecs(p)
			if err != nil {
				t.Fatal(err)
			}
			pol, err := specs[0].New(min(max(m.NrCPUs, 1), policies.MaxCPUs))
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			cfg.MaxSteps = fuzzSteps
			res, err := Simulate(m, pol, cfg)
			if errors.Is(err, ErrNoProgress) || errors.Is(err, ErrConfig) {
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			prev := int64(-1 << 63)
			for _, e := range res.Events() {
				if e.Time < prev {
					t.Fatalf("%s: events out of order at %v", p, e)
				}
				prev = e.Time
			}
		}
	})
}
