package perfettopb

import (
	"bytes"
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
)

// FuzzReader feeds arbitrary bytes to NewReader: it must never panic nor
// hang, and what it reads must hold together: events in time order, every
// lost window with its start at or before its end. The seeds are small
// compact and full exports (two CPUs' switches, wakings, a fork and a
// rename: the kinds a bundle holds) and their damaged copies come from
// the fuzzer (TestDamageSweep covers a real trace's).
func FuzzReader(f *testing.F) {
	var evs []trace.Event
	add := func(e trace.Event) { evs = append(evs, e) }
	for i := int64(0); i < 40; i++ {
		cpu := trace.CPU(i % 2)
		w := trace.NewEvent(1000+i*100, cpu, trace.KindWaking)
		w.TID, w.PID, w.Comm, w.Prio, w.TargetCPU = trace.TID(10+i%3), trace.PID(10+i%3), "w", 120, cpu
		add(w)
		s := trace.NewEvent(1050+i*100, cpu, trace.KindSwitch)
		s.TID, s.PID, s.Comm, s.Prio, s.PrevState = trace.TID(20+i%2), trace.PID(20+i%2), "s", 120, trace.TaskState(i%2)
		s.NextTID, s.NextPID, s.NextComm, s.NextPrio = trace.TID(10+i%3), trace.PID(10+i%3), "w", 120
		add(s)
	}
	fk := trace.NewEvent(1500, 0, trace.KindFork)
	fk.TID, fk.PID, fk.ChildTID, fk.Comm = 10, 10, 30, "w"
	add(fk)
	for _, compact := range []bool{false, true} {
		var buf bytes.Buffer
		if _, err := Write(&buf, trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 2}), Options{Compact: compact, BundleEvents: 16}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		last := int64(-1 << 63)
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Time < last {
				t.Fatalf("event at %d after one at %d", e.Time, last)
			}
			last = e.Time
		}
		for _, w := range r.Meta().Lost {
			if w.End < w.Start {
				t.Fatalf("lost window %+v ends before it starts", w)
			}
		}
	})
}
