package tracedat

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"time"
)

// BenchmarkReader decodes the repo's recording in each trace.dat shape from
// memory and reports events/s and allocations (compare with perfdata's
// BenchmarkReader and trace/formats' BenchmarkDecode on the same run).
func BenchmarkReader(b *testing.B) {
	for _, name := range []string{"pipe-multi.v7zstd.dat", "pipe-multi.v7none.dat.gz", "pipe-multi.v6.dat.gz"} {
		b.Run(name, func(b *testing.B) {
			benchDecode(b, load(b, name))
		})
	}
}

// BenchmarkSynthetic measures per-event decoding without the metadata cost
// of real files: a hand-built v6 file of 2 CPUs x 500 pages of 4096 bytes,
// alternating sched_waking and sched_switch records (about 58 per page,
// 58000 in all).
func BenchmarkSynthetic(b *testing.B) {
	old := testPage
	testPage = 4096
	defer func() { testPage = old }()
	swText, sw := testFormat(b, "sched_switch")
	wkText, wk := testFormat(b, "sched_waking")
	le := binary.LittleEndian
	swRec := evRecord(900, payload(sw, le, map[string]any{"common_pid": 7, "prev_comm": "worker", "prev_pid": 7, "prev_prio": 120,
		"prev_state": 1, "next_comm": "other", "next_pid": 8, "next_prio": 120}))
	wkRec := evRecord(100, payload(wk, le, map[string]any{"common_pid": 8, "comm": "worker", "pid": 7, "prio": 120, "target_cpu": 0}))
	var cpus [][]byte
	for c := 0; c < 2; c++ {
		var data []byte
		for p := 0; p < 500; p++ {
			var evs [][]byte
			for n := 0; n+len(swRec)+len(wkRec) <= testPage-16; n += len(swRec) + len(wkRec) {
				evs = append(evs, wkRec, swRec)
			}
			data = append(data, page(uint64(1e9+p*100000+c), -1, evs...)...)
		}
		cpus = append(cpus, data)
	}
	benchDecode(b, buildV6([]string{swText, wkText}, "", cpus))
}

// benchDecode decodes data b.N times, reporting events/s and allocations.
func benchDecode(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	events := 0
	start := time.Now()
	for b.Loop() {
		r, err := Open(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
	}
	b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
}
