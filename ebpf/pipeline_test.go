package ebpf

import (
	"encoding/binary"
	"io"
	"math"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// BenchmarkPipeline measures the user-space cost per record of a capture:
// decoding, the reorder window and writing the traceview format, on a
// ping-pong-like mix of records (switch, waking, runtime) of a few tasks on
// two CPUs, each named once per CPU by a task record.
func BenchmarkPipeline(b *testing.B) {
	const n = 1 << 16
	recs := make([][]byte, 0, n)
	ts := uint64(1_000_000_000)
	for i := 0; len(recs) < n; i++ {
		a, c := int32(1000+i%7), int32(2000+i%5)
		cpu := uint16(i % 2)
		ts += 1500
		if i < 14 {
			recs = append(recs, task(cpu, a, a, 120, "sched-messaging", 0), task(cpu, c, c, 120, "sched-messaging", 0))
		}
		recs = append(recs,
			ev(ts, cpu, trace.KindRuntime, 0, a, a, 2500, 0),
			ev(ts+100, cpu, trace.KindSwitch, 0, a, a, uint32(c), 1),
			ev(ts+300, cpu, trace.KindWaking, flagWaker|flagIRQKnown, c, a, uint32(cpu), uint32(cpu)))
	}
	d := newDecoder(false, false)
	b.ReportAllocs()
	b.SetBytes(RecordSize)
	w, _ := tvf.NewWriter(io.Discard, tvf.Header{})
	var ro reorder
	emit := func(e trace.Event) error { return w.Write(e) }
	i := 0
	span := ts - 1_000_000_000 + 2000 // time covered by recs
	for b.Loop() {
		r := recs[i%n]
		if i%n == 0 && i > 0 {
			// Next lap: later times, as a capture would have.
			for _, r := range recs {
				binary.LittleEndian.PutUint64(r, binary.LittleEndian.Uint64(r)+span)
			}
		}
		if e, ok := d.decode(r); ok {
			ro.add(e)
		}
		i++
		if i%10000 == 0 {
			// A watermark: everything older than the last record's
			// time minus the margin has been read.
			ro.flush(int64(binary.LittleEndian.Uint64(r))-ReorderWindow, emit)
		}
	}
	ro.flush(math.MaxInt64, emit)
	w.Close()
}
