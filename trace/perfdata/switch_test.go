package perfdata

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// pipeBuilder writes a little-endian pipe-mode perf.data by hand: one
// software event whose records carry a sample_id_all trailer of {pid,
// tid}, time and {cpu, res} (sample_type TID|TIME|CPU).
type pipeBuilder struct{ b bytes.Buffer }

func newPipeBuilder() *pipeBuilder {
	p := &pipeBuilder{}
	p.b.WriteString("PERFILE2")
	p.u64(16) // header size
	attr := make([]byte, 64)
	binary.LittleEndian.PutUint32(attr[0:], 1)             // PERF_TYPE_SOFTWARE
	binary.LittleEndian.PutUint32(attr[4:], 64)            // PERF_ATTR_SIZE_VER0
	binary.LittleEndian.PutUint64(attr[8:], 9)             // PERF_COUNT_SW_DUMMY
	binary.LittleEndian.PutUint64(attr[24:], 2|4|128)      // TID|TIME|CPU
	binary.LittleEndian.PutUint64(attr[40:], 1<<18|1<<9|1) // sample_id_all, comm, disabled
	p.record(recHeaderAttr, 0, append(attr, 1, 0, 0, 0, 0, 0, 0, 0))
	return p
}

func (p *pipeBuilder) u64(v uint64) { binary.Write(&p.b, binary.LittleEndian, v) }

func (p *pipeBuilder) record(typ uint32, misc uint16, body []byte) {
	binary.Write(&p.b, binary.LittleEndian, typ)
	binary.Write(&p.b, binary.LittleEndian, misc)
	binary.Write(&p.b, binary.LittleEndian, uint16(8+len(body)))
	p.b.Write(body)
}

// kernel writes a kernel record: body, then the trailer of task tid (its
// own process) at time ns on cpu.
func (p *pipeBuilder) kernel(typ uint32, misc uint16, body []byte, tid int32, ns uint64, cpu uint32) {
	tr := make([]byte, 24)
	binary.LittleEndian.PutUint32(tr[0:], uint32(tid))
	binary.LittleEndian.PutUint32(tr[4:], uint32(tid))
	binary.LittleEndian.PutUint64(tr[8:], ns)
	binary.LittleEndian.PutUint32(tr[16:], cpu)
	p.record(typ, misc, append(append([]byte(nil), body...), tr...))
}

func (p *pipeBuilder) comm(tid int32, name string) {
	body := make([]byte, 16)
	binary.LittleEndian.PutUint32(body[0:], uint32(tid))
	binary.LittleEndian.PutUint32(body[4:], uint32(tid))
	copy(body[8:], name)
	p.kernel(recComm, 0, body, tid, 0, 0) // time 0: synthesized at record start
}

// switchOut writes the OUT and IN records of one context switch on CPU 0
// at ns: prev leaves (preempted or not), next enters 1 us later.
func (p *pipeBuilder) switchOut(ns uint64, prev, next int32, preempt bool) {
	body := func(tid int32) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b[0:], uint32(tid))
		binary.LittleEndian.PutUint32(b[4:], uint32(tid))
		return b
	}
	misc := uint16(miscSwitchOut)
	if preempt {
		misc |= miscSwitchOutPreempt
	}
	p.kernel(recSwitchCPUWide, misc, body(next), prev, ns, 0)
	p.kernel(recSwitchCPUWide, 0, body(prev), next, ns+1000, 0)
}

// feature writes a HEADER_FEATURE record for the cmdline feature.
func (p *pipeBuilder) cmdline(args ...string) {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(featCmdline))
	binary.Write(&b, binary.LittleEndian, uint32(len(args)))
	for _, a := range args {
		n := (len(a) + 1 + 7) &^ 7
		binary.Write(&b, binary.LittleEndian, uint32(n))
		s := make([]byte, n)
		copy(s, a)
		b.Write(s)
	}
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	p.record(recHeaderFeature, 0, b.Bytes())
}

func hasWarning(m *trace.Meta, key string) bool {
	for _, w := range m.Warnings.List() {
		if w.Key == key {
			return true
		}
	}
	return false
}

// TestSwitchRecords (issue 16 item 9): `perf record --switch-events -a`
// writes PERF_RECORD_SWITCH_CPU_WIDE records and no sched tracepoint. The
// stream below, on CPU 0 (a = tid 10, b = tid 20):
//
//	1.000000 idle -> a   (idle OUT, preempted)
//	1.002000 a -> b      (a OUT, preempted: runnable, R+)
//	1.005000 b -> a      (b OUT, not preempted: read as S)
//	1.006000 a -> idle   (a OUT, not preempted)
//
// each followed 1 us later by the IN record of the same switch, which is not
// used. The reader yields four sched_switch events with those tasks and
// states, names from the COMM records, and the warning that delays start
// only at preemptions.
func TestSwitchRecords(t *testing.T) {
	p := newPipeBuilder()
	p.comm(10, "a")
	p.comm(20, "b")
	p.switchOut(1_000_000_000, 0, 10, true)
	p.switchOut(1_002_000_000, 10, 20, true)
	p.switchOut(1_005_000_000, 20, 10, false)
	p.switchOut(1_006_000_000, 10, 0, false)
	evs, r, err := drain(p.b.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	type sw struct {
		Time       int64
		Prev, Next trace.TID
		State      string
	}
	var got []sw
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			got = append(got, sw{e.Time, e.TID, e.NextTID, e.PrevState.String()})
			if e.CPU != 0 || e.CurTID != e.TID || e.PID != trace.PID(e.TID) {
				t.Errorf("event %v: cpu %d cur %d pid %d", e, e.CPU, e.CurTID, e.PID)
			}
		}
	}
	want := []sw{
		{1_000_000_000, 0, 10, "R+"},
		{1_002_000_000, 10, 20, "R+"},
		{1_005_000_000, 20, 10, "S"},
		{1_006_000_000, 10, 0, "S"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
	if !hasWarning(r.Meta(), "switch-records") {
		t.Errorf("no switch-records warning in %v", r.Meta().Warnings.List())
	}
}

// TestNotSystemWide (issue 16 item 8): a perf.data whose command line
// records chosen tasks only (perf record -p/-t/-u, or a command without -a)
// carries a not-system-wide warning; perf sched record, -a and -C do not.
func TestNotSystemWide(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/bin/perf", "record", "-e", "sched:sched_switch", "-p", "19502", "-o", "x.data", "--", "sleep", "1"}, "per process (-p)"},
		{[]string{"perf", "record", "--tid=7", "-e", "sched:sched_switch"}, "per thread (-t)"},
		{[]string{"perf", "record", "-e", "sched:sched_switch", "--", "ls", "-a"}, "per command"},
		{[]string{"perf", "record", "-ag", "-e", "sched:sched_switch"}, ""},
		{[]string{"perf", "record", "-C", "0", "-e", "sched:sched_switch"}, ""},
		{[]string{"perf", "record", "--switch-events", "-a"}, ""},
		{[]string{"/usr/bin/perf", "sched", "record", "-o", "x", "--", "sleep", "1"}, ""},
		{[]string{"trace-cmd", "record", "-P", "12"}, ""},
	} {
		if got := notSystemWide(c.argv); got != c.want {
			t.Errorf("%q: %q, want %q", c.argv, got, c.want)
		}
	}

	p := newPipeBuilder()
	p.comm(10, "a")
	p.switchOut(1_000_000_000, 0, 10, true)
	p.cmdline("/usr/bin/perf", "record", "--switch-events", "-p", "10")
	_, r, err := drain(p.b.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.Meta(), "not-system-wide") {
		t.Errorf("no not-system-wide warning in %v", r.Meta().Warnings.List())
	}
}

// TestRecordedSwitchEvents reads the real recordings of
// testdata/traces/switch-events.meta.txt: one sched_switch per switch-out
// record (perf script --show-switch-events: 436 OUT lines, 196 of them
// "OUT preempt"), and the not-system-wide warning on the `perf record -p`
// one (and not on the -a one).
func TestRecordedSwitchEvents(t *testing.T) {
	evs, r, err := drain(readFile(t, "../../testdata/traces/switch-events.data"), false)
	if err != nil {
		t.Fatal(err)
	}
	var n, preempted int
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			n++
			if e.PrevState.Preempted() {
				preempted++
			}
		}
	}
	if n != 436 || preempted != 196 {
		t.Errorf("%d switches, %d preempted; want 436, 196", n, preempted)
	}
	if !hasWarning(r.Meta(), "switch-records") || hasWarning(r.Meta(), "not-system-wide") {
		t.Errorf("warnings %v", r.Meta().Warnings.List())
	}
	_, r, err = drain(readFile(t, "../../testdata/traces/per-process.data"), false)
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.Meta(), "not-system-wide") {
		t.Errorf("per-process: warnings %v", r.Meta().Warnings.List())
	}
}

// TestSampleTIDGone: the kernel reports tid -1 in the sample of a task
// already released by exit (perf script prints ":-1 29696/-1"): on
// srv.1cpu the sched_switch at 3139.488707 s (reqsrv:29701 Z ==>
// reqsrv:29696) is such a sample. The event names the payload's task and
// says the sample's tid was -1 (GoneTID, the process 29696 still alive).
func TestSampleTIDGone(t *testing.T) {
	evs, _, err := drain(sharedTrace(t, "srv.1cpu.perf.data"), false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Kind == trace.KindSwitch && e.Time/1000 == 3139_488707 && e.TID == 29701 {
			n++
			if e.CurGone != trace.GoneTID || e.CurTID != 29701 || e.CurPID != 29696 {
				t.Errorf("%v: CurGone %d cur %d/%d, want GoneTID 29701/29696", e, e.CurGone, e.CurTID, e.CurPID)
			}
		}
		if e.CurGone != 0 && e.Kind == trace.KindSwitch && e.CurTID != e.TID {
			t.Errorf("%v: tid -1 sample of another task", e)
		}
	}
	if n != 1 {
		t.Errorf("%d switches of 29701 at 3139.488707 s, want 1", n)
	}
}

// TestRepeatedRecords (issue 16 item 13): a FINISHED_ROUND region written
// twice. CPU 0 records switches at 1.000 and 1.002 s, a round mark, the
// same two records again, then a switch at 1.004 s. The repeated 1.000 s
// record is earlier than the CPU's previous one (1.002 s): dropped
// (time-backwards); the repeated 1.002 s record equals the previous one:
// dropped (duplicate-event). Three switches remain: 1.000, 1.002, 1.004 s.
func TestRepeatedRecords(t *testing.T) {
	p := newPipeBuilder()
	p.comm(10, "a")
	region := func() {
		p.switchOut(1_000_000_000, 0, 10, true)
		p.switchOut(1_002_000_000, 10, 0, false)
	}
	region()
	p.record(recFinishedRound, 0, nil)
	region()
	p.switchOut(1_004_000_000, 0, 10, true)
	evs, r, err := drain(p.b.Bytes(), true)
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			times = append(times, e.Time)
		}
	}
	if d := cmp.Diff([]int64{1_000_000_000, 1_002_000_000, 1_004_000_000}, times); d != "" {
		t.Errorf("switch times (-want +got):\n%s", d)
	}
	got := map[string]int{}
	for _, w := range r.Meta().Warnings.List() {
		got[w.Key] = w.Count
	}
	if got["damaged-time-backwards"] != 1 || got["duplicate-event"] != 1 || got["out-of-order"] != 0 {
		t.Errorf("warnings %v", r.Meta().Warnings.List())
	}
}

// The fixed sample layout: offsets counted by hand from the order of
// PERF_RECORD_SAMPLE's fields (include/uapi/linux/perf_event.h) after the
// 8-byte record header, 8 bytes per field.
func TestSampleLayout(t *testing.T) {
	cases := []struct {
		name string
		st   uint64
		want sampleLayout
	}{
		// perf sched record: IP TID TIME ID CPU PERIOD RAW (IDENTIFIER
		// when several events share the file) -> ip 8, tid 16, time 24,
		// id 32, cpu 40, period 48, raw 56.
		{"sched record", sampleIP | sampleTID | sampleTime | sampleID | sampleCPU | samplePeriod | sampleRaw,
			sampleLayout{fixed: true, tid: 16, time: 24, cpu: 40, raw: 56}},
		// IDENTIFIER first: identifier 8, tid 16, time 24, cpu 32, raw 40.
		{"identifier", sampleIdentifier | sampleTID | sampleTime | sampleCPU | sampleRaw,
			sampleLayout{fixed: true, tid: 16, time: 24, cpu: 32, raw: 40}},
		// perf sched record today (6.x, every shared trace): the layout
		// sample reads at constant offsets (schedLayout).
		{"sched record 6.x", sampleIdentifier | sampleIP | sampleTID | sampleTime | sampleCPU | samplePeriod | sampleRaw, schedLayout},
		{"no tid, no cpu", sampleTime | sampleRaw, sampleLayout{fixed: true, tid: -1, time: 8, cpu: -1, raw: 16}},
		{"callchain is variable", sampleTID | sampleTime | sampleCallchain | sampleRaw, sampleLayout{tid: -1, time: -1, cpu: -1, raw: -1}},
		{"read is variable", sampleTID | sampleRead | sampleRaw, sampleLayout{tid: -1, time: -1, cpu: -1, raw: -1}},
		{"no raw", sampleTID | sampleTime, sampleLayout{tid: -1, time: -1, cpu: -1, raw: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := layoutOf(c.st); got != c.want {
				t.Errorf("layoutOf(%#x) = %+v, want %+v", c.st, got, c.want)
			}
		})
	}
}
