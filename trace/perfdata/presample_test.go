package perfdata

import (
	"encoding/binary"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestSideBandLongBeforeSamples: the tracking event that writes COMM, FORK
// and EXIT records is enabled when perf record opens it, the sched
// tracepoints when perf gets to enable them; a workload that starved perf
// (chrt -f 50 stress-ng --cpu 2 beside stress-ng --cpu 1 on this 2-CPU VM)
// put an exec 2.33 s before the first sample, and the reader dropped it as
// damage (more than NonSampleSlack outside the header's sample times), so
// `latency --perf` named stress-ng ":29982" where perf printed its name.
// Here pipe.perf.data's first record of CPU 1, the FORK at 754.261473892 s
// (TestForkRecordBeforeFirstSample), is moved 2 s earlier, 2.067 s before
// the first sample: CPU 1 has no record yet, so it is kept at its time. The
// same move on a record of a CPU that already has records among the
// samples (the EXIT at 754.358808 s on CPU 0, after its samples) stays
// damage: dropped and counted.
func TestSideBandLongBeforeSamples(t *testing.T) {
	orig := readFile(t, "../../testdata/traces/pipe.perf.data")
	moved := func(at int64, by int64) []byte {
		b := append([]byte(nil), orig...)
		var key [8]byte
		binary.LittleEndian.PutUint64(key[:], uint64(at))
		n := 0
		for i := 0; i+8 <= len(b); i++ {
			if string(b[i:i+8]) == string(key[:]) {
				binary.LittleEndian.PutUint64(b[i:], uint64(at+by))
				n++
			}
		}
		if n == 0 {
			t.Fatalf("time %d not found in the file", at)
		}
		return b
	}
	const fork, shift = int64(754261473892), int64(-2e9)
	evs, r, err := drain(moved(fork, shift), false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range evs {
		if ev.Kind == trace.KindFork && ev.Time == fork+shift && ev.ChildTID == 14564 {
			found = true
		}
	}
	if !found {
		t.Errorf("the fork moved to %s s was not delivered; warnings %v", trace.FormatSeconds(fork+shift, 9), warningCounts(r))
	}
	if n := warningCounts(r)["outside-sample-times"]; n != 0 {
		t.Errorf("outside-sample-times %d, want 0", n)
	}

	var exit int64
	for _, ev := range evs {
		if ev.Kind == trace.KindExit && ev.TID == 14566 {
			exit = ev.Time
		}
	}
	if exit == 0 {
		t.Fatal("no exit of 14566 in pipe.perf.data")
	}
	evs2, r2, err := drain(moved(exit, shift), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := warningCounts(r2)["outside-sample-times"]; n != 1 {
		t.Errorf("exit moved before the samples: outside-sample-times %d, want 1 (damage)", n)
	}
	for _, ev := range evs2 {
		if ev.Time == exit+shift {
			t.Errorf("damaged exit delivered: %+v", ev)
		}
	}
}
