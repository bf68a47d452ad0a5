//go:build linux

package ebpf

import (
	"context"
	"testing"
	"time"

	"github.com/traceview/traceview/trace"
)

// TestCaptureOverflowNote (new-user pass 86 F1): a CPU's buffer that fills
// while the drain cannot read it gets an overflow note (a KindLost of
// Count 0, Runtime trace.OpenLoss) right after its last record before
// the gap, well before perf's loss record with the count, which comes
// with the CPU's next record. The consumer here blocks at its first event
// until the workload is over, so the drain stops once its batches wait
// (maxBatches, 2 MiB or so), and a ping-pong of 60,000 round trips (some
// 240,000 records, 8 MB) overflows the 256 KiB buffers (about 6,500
// records each). Each CPU's
// loss record must come after a note of that CPU with no record of the
// CPU between them, and the note at the time of the CPU's record before
// it.
func TestCaptureOverflowNote(t *testing.T) {
	requireBPF(t, false)
	c, err := Open(Options{BufferSize: 1}) // (the 256 KiB minimum per CPU)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var evs []trace.Event
	done := make(chan error)
	worked := make(chan struct{})
	go func() {
		first := true
		done <- c.Run(ctx, func(e trace.Event) error {
			if first {
				// Until the workload is over and 1.5 s at least (a
				// fixed 1.5 s alone let a ping-pong slowed by a loaded
				// CI machine spread its records thinly enough for the
				// drain to keep up).
				first = false
				min := time.After(1500 * time.Millisecond)
				select {
				case <-worked:
				case <-time.After(30 * time.Second):
				}
				<-min
			}
			evs = append(evs, e)
			return nil
		})
	}()
	_, _, err = pingPong(60000)
	close(worked)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	type cpuState struct {
		last     int64 // the time of the CPU's last record
		noteAt   int64 // an unsettled note's time (0: none)
		settled  int   // losses that followed a note directly
		unnoted  int   // losses with no note before them
		notes    int
		falseRun int // notes the CPU's next record settled (nothing lost)
	}
	st := map[trace.CPU]*cpuState{}
	for _, e := range evs {
		if e.CPU < 0 {
			continue
		}
		s := st[e.CPU]
		if s == nil {
			s = &cpuState{}
			st[e.CPU] = s
		}
		switch {
		case e.Kind == trace.KindLost && e.Runtime == trace.OpenLoss:
			s.notes++
			if e.Time != s.last {
				t.Errorf("CPU %d: note at %d, its last record at %d", e.CPU, e.Time, s.last)
			}
			s.noteAt = e.Time
		case e.Kind == trace.KindLost && e.Count > 0:
			if s.noteAt > 0 {
				s.settled++
			} else {
				s.unnoted++
			}
			s.noteAt = 0
		case e.Kind != trace.KindLost:
			if s.noteAt > 0 {
				s.falseRun++
			}
			s.noteAt = 0
			s.last = e.Time
		}
	}
	losses := 0
	for cpu, s := range st {
		t.Logf("CPU %d: %d notes, %d losses after one, %d without, %d notes nothing lost followed", cpu, s.notes, s.settled, s.unnoted, s.falseRun)
		losses += s.settled + s.unnoted
		if s.unnoted > 0 {
			t.Errorf("CPU %d: %d loss records with no overflow note before them", cpu, s.unnoted)
		}
	}
	if lost := c.Lost(); losses == 0 {
		// (The consumer's first event can come after the workload's end,
		// when the machine is loaded: then nothing blocked the drain.)
		t.Skipf("no loss: the workload did not overflow the buffers (lost %v), nothing to check", lost)
	}
}
