package tvf

import (
	"bytes"
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/perfdata"
)

// metaTimes reads file to the end (seekable or as a pipe) and returns the
// Meta's FirstTime and LastTime.
func metaTimes(t *testing.T, file []byte, seek bool) (int64, int64) {
	t.Helper()
	var r io.Reader = bytes.NewReader(file)
	if !seek {
		r = onlyReader{r}
	}
	_, tr := decodeAll(t, r)
	return tr.Meta().FirstTime, tr.Meta().LastTime
}

// TestFirstTimeSkipsSynthesized is the regression test for "samples
// (header): 0.000000 s": a capture starts with synthesized comm records at
// time 0 (record's /proc names, perf's COMM records), which used to become
// the trailer's first_time_ns. The first sample time is the first nonzero
// event time: 100 ns here, the last 250 ns.
func TestFirstTimeSkipsSynthesized(t *testing.T) {
	comm := trace.NewEvent(0, -1, trace.KindComm)
	comm.TID, comm.PID, comm.Comm = 7, 7, "kworker/u8:0"
	evs := []trace.Event{comm, comm, trace.NewEvent(100, 0, trace.KindSwitch), trace.NewEvent(250, 1, trace.KindWaking)}
	file := encode(t, Header{}, evs, nil)
	for _, seek := range []bool{true, false} {
		if first, last := metaTimes(t, file, seek); first != 100 || last != 250 {
			t.Errorf("seek=%v: Meta times %d..%d ns, want 100..250", seek, first, last)
		}
	}
}

// TestFirstTimeFromHeader: a converted file carries the source's own
// sample times (perf.data's HEADER_SAMPLE_TIME) in its header; Meta
// reports them (50..300 ns here, although the events span 100..250) known
// at open for a seekable file.
func TestFirstTimeFromHeader(t *testing.T) {
	evs := []trace.Event{trace.NewEvent(0, -1, trace.KindComm), trace.NewEvent(100, 0, trace.KindSwitch), trace.NewEvent(250, 1, trace.KindWaking)}
	file := encode(t, Header{FirstTime: 50, LastTime: 300}, evs, nil)
	tr, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if m := tr.Meta(); m.FirstTime != 50 || m.LastTime != 300 {
		t.Errorf("at open: Meta times %d..%d ns, want 50..300", m.FirstTime, m.LastTime)
	}
	for _, seek := range []bool{true, false} {
		if first, last := metaTimes(t, file, seek); first != 50 || last != 300 {
			t.Errorf("seek=%v: Meta times %d..%d ns, want 50..300", seek, first, last)
		}
	}
}

// TestFirstTimeOldFile: files written before this fix have
// first_time_ns 0 in the trailer (and no times in the header); they still
// read, and Meta.FirstTime is the first nonzero event time (100 ns) once
// the stream has ended.
func TestFirstTimeOldFile(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []trace.Event{trace.NewEvent(0, -1, trace.KindComm), trace.NewEvent(100, 0, trace.KindSwitch), trace.NewEvent(250, 1, trace.KindWaking)} {
		w.Write(e)
	}
	w.tr.FirstTime = 0 // what the old writer stored after a time-0 record
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"first_time_ns":0,`)) {
		t.Fatal("test file lacks the old trailer's first_time_ns 0")
	}
	for _, seek := range []bool{true, false} {
		if first, last := metaTimes(t, buf.Bytes(), seek); first != 100 || last != 250 {
			t.Errorf("seek=%v: Meta times %d..%d ns, want 100..250", seek, first, last)
		}
	}
}

// TestConvertKeepsSampleTimes converts testdata/traces/pipe.perf.data (a
// copy of the shared pipe trace): `perf report --header-only` and
// `traceview info` on it give sample times 754.328751694 s to
// 754.364705932 s; the .tv file must give the same, not 0.
func TestConvertKeepsSampleTimes(t *testing.T) {
	file := gConvert(t, "../../testdata/traces/pipe.perf.data")
	for _, seek := range []bool{true, false} {
		if first, last := metaTimes(t, file, seek); first != 754328751694 || last != 754364705932 {
			t.Errorf("seek=%v: Meta times %d..%d ns, want 754328751694..754364705932", seek, first, last)
		}
	}
}
