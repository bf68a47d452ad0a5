package report

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
)

// gFuzzEvents turns bytes into a time-ordered event stream over 3 CPUs and
// 6 TIDs (0 = idle) with every kind the pass reads, 4 bytes per event:
// kind, tid, other tid or cpu, time step and state.
func gFuzzEvents(data []byte) []trace.Event {
	var evs []trace.Event
	var t int64
	kinds := []trace.Kind{trace.KindSwitch, trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew,
		trace.KindMigrate, trace.KindFork, trace.KindExec, trace.KindExit, trace.KindComm, trace.KindRuntime, trace.KindLost}
	for i := 0; i+4 <= len(data); i += 4 {
		b := data[i : i+4]
		t += int64(b[3]>>2) * 1000
		cpu := trace.CPU(b[2] % 3)
		e := trace.NewEvent(t, cpu, kinds[int(b[0])%len(kinds)])
		tid := trace.TID(b[1] % 6)
		other := trace.TID(b[2] / 3 % 6)
		e.CurTID, e.TID, e.PID, e.Comm = tid, tid, trace.PID(tid), string(rune('a'+tid))
		switch e.Kind {
		case trace.KindSwitch:
			e.NextTID, e.NextPID, e.NextComm = other, trace.PID(other), string(rune('a'+other))
			e.PrevState = []trace.TaskState{0, trace.StatePreempted, trace.StateInterruptible, trace.StateUninterruptible, trace.StateDead, trace.StateIdle}[b[3]%6]
		case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
			e.CurTID = other
			e.TargetCPU = trace.CPU(b[3] % 3)
		case trace.KindMigrate:
			e.OrigCPU, e.DestCPU = cpu, trace.CPU(b[3]%3)
		case trace.KindFork:
			e.ChildTID, e.ChildPID = other, trace.PID(other)
		case trace.KindRuntime:
			e.Runtime = int64(b[3]) * 500
		case trace.KindLost:
			e.Count = uint64(b[3])
		}
		evs = append(evs, e)
	}
	return evs
}

// FuzzStatsPass: no event stream makes stats, the exports or the HTML
// report panic, produce an invalid profile or invalid JSON, or a negative
// delay or busy time.
func FuzzStatsPass(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 2, 3, 0, 4, 1, 3, 4, 8, 0, 2, 9, 1, 10, 1, 0, 40})
	f.Add(bytes.Repeat([]byte{0, 1, 5, 4, 2, 2, 3, 8, 1, 2, 6, 1, 5, 2, 0, 4}, 8))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs := gFuzzEvents(data)
		st, err := ComputeStats(trace.NewSliceSource(evs, nil), StatsOptions{Buckets: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range st.CPUs {
			if c.Busy < 0 || c.Busy > c.Observed || c.RunqueueAvg < 0 {
				t.Fatalf("CPU %d: %+v", c.CPU, c)
			}
		}
		if st.Delays.Sum < 0 {
			t.Fatalf("negative delay sum %d", st.Delays.Sum)
		}
		if _, err := ExportPprof(trace.NewSliceSource(evs, nil), ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteChromeJSON(&buf, trace.NewSliceSource(evs, nil), ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatalf("invalid JSON:\n%s", buf.String())
		}
		if err := WriteHTMLReport(io.Discard, trace.NewSliceSource(evs, nil), HTMLOptions{Buckets: 5}); err != nil {
			t.Fatal(err)
		}
	})
}
