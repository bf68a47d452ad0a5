package ebpf

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// rotateStream is a synthetic capture of n events: switches and wakings
// among 400 tasks on 2 CPUs, every 10th task a new one (a fork), 5-50 µs
// apart, from a fixed seed.
func rotateStream(n int) []trace.Event {
	rng := rand.New(rand.NewSource(28))
	evs := make([]trace.Event, 0, n)
	at, newTID := int64(1e9), trace.TID(10_000)
	tid := func() trace.TID {
		if rng.Intn(10) == 0 {
			newTID++
			return newTID
		}
		return trace.TID(1000 + rng.Intn(400))
	}
	for i := 0; i < n; i++ {
		at += 5000 + rng.Int63n(45_000)
		cpu := trace.CPU(i % 2)
		if i%3 == 0 {
			e := trace.NewEvent(at, cpu, trace.KindWaking)
			e.TID, e.PID, e.Comm, e.Prio, e.TargetCPU = tid(), 1, "worker", 120, cpu
			evs = append(evs, e)
			continue
		}
		e := trace.NewEvent(at, cpu, trace.KindSwitch)
		e.TID, e.PID, e.Comm, e.Prio, e.PrevState = tid(), 1, "worker", 120, trace.StateInterruptible
		e.NextTID, e.NextPID, e.NextComm, e.NextPrio = tid(), 1, "worker", 120
		evs = append(evs, e)
	}
	return evs
}

// writeRotated writes evs into a series cut by sizeCut at limit bytes, as
// Recorder.runFiles does (each file starting with the names of 300 tasks
// alive, as addProcTasks writes them), and returns the files. With
// syncEach > 0 the writer is synced after every syncEach events, as the
// recorder syncs about once a second (Writer.Sync ends a block early).
func writeRotated(t *testing.T, evs []trace.Event, limit int64, syncEach int) [][]byte {
	t.Helper()
	var files [][]byte
	var buf *bytes.Buffer
	var w *tvf.Writer
	open := func() {
		buf = &bytes.Buffer{}
		var err error
		if w, err = tvf.NewWriter(buf, tvf.Header{Tool: "test", NrCPUs: 2}); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 300; k++ {
			w.AddTask(trace.TID(1000+k), 1, fmt.Sprintf("proc-%d", k))
		}
	}
	cut := newSizeCut(limit)
	open()
	full := false
	for i, e := range evs {
		if syncEach > 0 && i%syncEach == syncEach-1 {
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		if full {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			at := w.Bytes()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			cut.closed(w.Bytes(), at)
			cut.start()
			files = append(files, buf.Bytes())
			open()
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
		var err error
		if full, err = cut.wrote(w); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return append(files, buf.Bytes())
}

// TestRotateBySize: a series rotated at SIZE (16 KiB, 64 KiB, 1 MiB) of a
// synthetic 200,000-event capture: every file but the last ends at most
// SIZE + SIZE/blockShare bytes (one block over, the bound sizeCut
// documents) and above SIZE/2 (cut at SIZE, not long before), each reads
// back whole, and together they hold every event in order. Before sizeCut
// the files were SIZE plus up to one 8192-event block plus the closing
// task table: 1.7-3x SIZE at 16-64 KiB.
//
// With a Sync every 997 events (the recorder's each second, a block ended
// early) the same bound holds: the rate measured around the cut's Flush
// alone took the synced block's events without its bytes, and the next
// block ran to 8192 events past SIZE (a 64K series' file of 79,882
// bytes; new-user pass 114 F5).
func TestRotateBySize(t *testing.T) {
	evs := rotateStream(200_000)
	for _, c := range []struct {
		limit int64
		sync  int
	}{{16 << 10, 0}, {64 << 10, 0}, {1 << 20, 0}, {64 << 10, 997}, {16 << 10, 997}} {
		limit := c.limit
		t.Run(fmt.Sprint(limit, "/sync", c.sync), func(t *testing.T) {
			files := writeRotated(t, evs, limit, c.sync)
			if len(files) < 2 {
				t.Fatalf("%d file; want a series", len(files))
			}
			n, lo, hi := 0, int64(1<<62), int64(0)
			for k, f := range files {
				size := int64(len(f))
				if k < len(files)-1 {
					lo, hi = min(lo, size), max(hi, size)
					if size > limit+limit/blockShare || size <= limit/2 {
						t.Errorf("file %d: %d bytes; want (%d, %d]", k+1, size, limit/2, limit+limit/blockShare)
					}
				}
				r, err := tvf.NewReader(bytes.NewReader(f))
				if err != nil {
					t.Fatalf("file %d: %v", k+1, err)
				}
				got, err := trace.ReadAll(r)
				if err != nil {
					t.Fatalf("file %d: %v", k+1, err)
				}
				for _, e := range got {
					if e.Kind == trace.KindComm {
						continue // the names of the tasks alive
					}
					if e.Time != evs[n].Time || e.TID != evs[n].TID {
						t.Fatalf("file %d: event at %d ns tid %d; want the stream's #%d, %d ns tid %d", k+1, e.Time, e.TID, n, evs[n].Time, evs[n].TID)
					}
					n++
				}
			}
			if n != len(evs) {
				t.Errorf("%d events in the files, want %d", n, len(evs))
			}
			t.Logf("SIZE %d: %d files of %d-%d bytes (the last %d)", limit, len(files), lo, hi, len(files[len(files)-1]))
		})
	}
}
