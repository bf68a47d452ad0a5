package perfdata

import (
	"encoding/binary"
	"testing"
)

// perProcessTrace: `perf record -e sched:sched_switch -e sched:sched_waking
// -p PID` of sched-pipe (see its meta file); its header's sample times are
// 687.550136366 s to 687.562824612 s.
const perProcessTrace = "../../testdata/traces/per-process.data"

// warningCounts returns the count of each warning key of r.
func warningCounts(r *Reader) map[string]int {
	n := map[string]int{}
	for _, w := range r.Meta().Warnings.List() {
		n[w.Key] = w.Count
	}
	return n
}

// TestSampleTimeOutlierDropped is the regression test for a damaged sample
// time of the damage sweep (bench/damage: per-process.data, bit flip at
// offset 99446, seed 2): bit 53 of a sched_switch's time set made it
// 9,007,886.8 s in a 12 ms recording. The reader took it for CPU 0's
// latest record and dropped the 1350 records after it as earlier, and the
// replay ticked through the 104 days between. Now that one record lies
// outside the header's sample times and is dropped alone.
func TestSampleTimeOutlierDropped(t *testing.T) {
	orig := readFile(t, perProcessTrace)
	want, r, err := drain(orig, false)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Meta(); m.FirstTime != 687550136366 || m.LastTime != 687562824612 {
		t.Fatalf("header sample times %d..%d, want 687550136366..687562824612", m.FirstTime, m.LastTime)
	}
	b := append([]byte(nil), orig...)
	b[99446] ^= 0x20
	got, r, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want)-1 {
		t.Errorf("%d events from the damaged file, want %d (all but the damaged one)", len(got), len(want)-1)
	}
	w := warningCounts(r)
	if w["outside-sample-times"] != 1 || w["time-backwards"] != 0 {
		t.Errorf("warnings %v, want outside-sample-times 1 and no time-backwards", w)
	}
	for _, ev := range got {
		if ev.Time > r.Meta().LastTime {
			t.Fatalf("event after the last sample time delivered: %v", ev)
		}
	}
}

// TestDamagedSampleTimesIgnored: when the header's sample times are
// themselves damaged (the first moved past every record), the reader
// drops MaxOutsideSampleTimes+1 records, then takes the header for the
// damaged part, says so, and delivers the rest.
func TestDamagedSampleTimesIgnored(t *testing.T) {
	orig := readFile(t, perProcessTrace)
	want, r, err := drain(orig, false)
	if err != nil {
		t.Fatal(err)
	}
	first := r.Meta().FirstTime
	// Find the feature's 16 bytes (first, last) and move both a day on.
	b := append([]byte(nil), orig...)
	at := -1
	for i := 0; i+16 <= len(b); i++ {
		if int64(binary.LittleEndian.Uint64(b[i:])) == first && int64(binary.LittleEndian.Uint64(b[i+8:])) == r.Meta().LastTime {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no HEADER_SAMPLE_TIME section found")
	}
	binary.LittleEndian.PutUint64(b[at:], uint64(first+86400e9))
	binary.LittleEndian.PutUint64(b[at+8:], uint64(r.Meta().LastTime+86400e9))
	got, r, err := drain(b, false)
	if err != nil {
		t.Fatal(err)
	}
	w := warningCounts(r)
	if w["outside-sample-times"] != MaxOutsideSampleTimes || w["sample-times-ignored"] != 1 {
		t.Errorf("warnings %v, want outside-sample-times %d and sample-times-ignored 1", w, MaxOutsideSampleTimes)
	}
	// The dropped records: the first MaxOutsideSampleTimes timed ones.
	timed := 0
	for _, ev := range want {
		if ev.Time != 0 {
			timed++
		}
	}
	if len(got) != len(want)-MaxOutsideSampleTimes {
		t.Errorf("%d events, want %d (all but %d of the %d timed)", len(got), len(want)-MaxOutsideSampleTimes, MaxOutsideSampleTimes, timed)
	}
}
