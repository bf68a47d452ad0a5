package perfdata

import (
	"bytes"
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestKeepRepeats: a region written twice (the same switch at 1.000 ms,
// then one at 0.5 ms, earlier than the CPU's previous record) is dropped
// by default, each with its warning (duplicate-event, time-backwards);
// with KeepRepeats, asked by perf's own reports (latency --perf, timehist
// and map --exact), every record is delivered as perf reads it, the
// warnings saying so: a -m 4 recording holding 6 records written twice
// differed from perf by 4 context switch bugs and 0.065 ms of runtime.
func TestKeepRepeats(t *testing.T) {
	p := newPipeBuilder()
	p.comm(10, "a")
	p.comm(11, "b")
	p.switchOut(1_000_000, 10, 11, true)
	p.switchOut(1_000_000, 10, 11, true)
	p.switchOut(500_000, 11, 10, true)
	p.record(recFinishedRound, 0, nil)
	for _, keep := range []bool{false, true} {
		r, err := NewReader(io.MultiReader(bytes.NewReader(p.b.Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			trace.KeepRepeats(r)
		}
		n := 0
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind == trace.KindSwitch {
				n++
			}
		}
		w := warningCounts(r)
		want, key := 1, "damaged-time-backwards" // dropped: data the file held, said as damage
		if keep {
			want, key = 3, "time-backwards"
		}
		if n != want || w["duplicate-event"] != 1 || w[key] != 1 {
			t.Errorf("keep %v: %d switches, want %d; warnings %v", keep, n, want, w)
		}
		r.Close()
	}
}
