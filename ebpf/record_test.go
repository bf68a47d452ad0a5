package ebpf

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// TestReportedState: raw (preempt, __state, exit_state) -> the prev_state the
// classic sched_switch tracepoint prints, worked out by hand from
// __trace_sched_switch_state / __task_state_index (Linux 6.18).
func TestReportedState(t *testing.T) {
	cases := []struct {
		name      string
		preempt   bool
		state     uint32
		exitState uint32
		want      trace.TaskState
		wantStr   string
	}{
		{"running (yield)", false, 0, 0, 0, "R"},
		{"preempted", true, 0, 0, trace.StatePreempted, "R+"},
		{"preempted while going to sleep", true, 0x1, 0, trace.StatePreempted, "R+"},
		{"interruptible sleep", false, 0x1, 0, trace.StateInterruptible, "S"},
		{"uninterruptible", false, 0x2, 0, trace.StateUninterruptible, "D"},
		{"TASK_KILLABLE = D|WAKEKILL(0x100)", false, 0x102, 0, trace.StateUninterruptible, "D"},
		{"TASK_IDLE = D|NOLOAD(0x400)", false, 0x402, 0, trace.StateIdle, "I"},
		{"stopped", false, 0x4, 0, trace.StateStopped, "T"},
		{"traced = __TASK_TRACED(0x8)", false, 0x8, 0, trace.StateTraced, "t"},
		{"dead: TASK_DEAD(0x80) with EXIT_ZOMBIE(0x20)", false, 0x80, 0x20, trace.StateZombie, "Z"},
		{"dead: EXIT_DEAD(0x10)", false, 0x80, 0x10, trace.StateDead, "X"},
		{"parked", false, 0x40, 0, trace.StateParked, "P"},
		{"RT lock wait (0x1000) reads as D", false, 0x1000, 0, trace.StateUninterruptible, "D"},
		{"frozen (0x8000) reads as D", false, 0x8001, 0, trace.StateUninterruptible, "D"},
		{"S|D: highest bit wins (fls)", false, 0x3, 0, trace.StateUninterruptible, "D"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ReportedState(c.preempt, c.state, c.exitState)
			if got != c.want || got.String() != c.wantStr {
				t.Errorf("ReportedState(%v, %#x, %#x) = %#x %q, want %#x %q", c.preempt, c.state, c.exitState, uint16(got), got, uint16(c.want), c.wantStr)
			}
		})
	}
}

// rec builds a record as sched.c lays it out.
func rec(ts uint64, cpu uint32, kind trace.Kind, flags byte, cur, curPID, tid, pid, prio, tid2, pid2, prio2 int32, arg1, arg2 uint32, waker int32, comm, comm2 string) []byte {
	b := make([]byte, RecordSize)
	le := binary.LittleEndian
	le.PutUint64(b[offTs:], ts)
	le.PutUint32(b[offCPU:], cpu)
	b[offKind], b[offFlags] = byte(kind), flags
	for off, v := range map[int]int32{offCurTID: cur, offCurPID: curPID, offTID: tid, offPID: pid, offPrio: prio, offTID2: tid2, offPID2: pid2, offPrio2: prio2, offWakerTID: waker, offKStack: -1, offUStack: -1} {
		le.PutUint32(b[off:], uint32(v))
	}
	le.PutUint32(b[offArg1:], arg1)
	le.PutUint32(b[offArg2:], arg2)
	copy(b[offComm:offComm+commLen], comm)
	copy(b[offComm2:offComm2+commLen], comm2)
	return b
}

func TestDecode(t *testing.T) {
	d := newDecoder(false)
	cases := []struct {
		name string
		in   []byte
		want func() trace.Event
	}{
		{"switch, preempted", rec(1000, 1, trace.KindSwitch, flagPreempt, 42, 40, 42, 40, 120, 0, 0, 120, 0, 0, -1, "worker", "swapper/1"), func() trace.Event {
			e := trace.NewEvent(1000, 1, trace.KindSwitch)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Prio = 42, 40, 42, 40, "worker", 120
			e.PrevState = trace.StatePreempted
			e.NextTID, e.NextPID, e.NextComm, e.NextPrio = 0, 0, "swapper/1", 120
			return e
		}},
		{"switch, sleeping", rec(1001, 0, trace.KindSwitch, 0, 42, 40, 42, 40, 120, 7, 7, 100, 0x1, 0, -1, "worker", "ksoftirqd/0"), func() trace.Event {
			e := trace.NewEvent(1001, 0, trace.KindSwitch)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Prio = 42, 40, 42, 40, "worker", 120
			e.PrevState = trace.StateInterruptible
			e.NextTID, e.NextPID, e.NextComm, e.NextPrio = 7, 7, "ksoftirqd/0", 100
			return e
		}},
		{"wakeup from irq", rec(2000, 1, trace.KindWakeup, flagWaker|flagIRQKnown|flagIRQ, 0, 0, 42, 40, 120, -1, -1, -1, 1, 0, 0, "worker", ""), func() trace.Event {
			e := trace.NewEvent(2000, 1, trace.KindWakeup)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Prio = 0, 0, 42, 40, "worker", 120
			e.TargetCPU, e.WakerTID, e.WakerCPU, e.FromIRQ = 1, 0, 0, trace.Yes
			return e
		}},
		{"waking by a task", rec(2001, 0, trace.KindWaking, flagWaker|flagIRQKnown, 43, 40, 42, 40, 120, -1, -1, -1, 1, 0, 43, "worker", ""), func() trace.Event {
			e := trace.NewEvent(2001, 0, trace.KindWaking)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Prio = 43, 40, 42, 40, "worker", 120
			e.TargetCPU, e.WakerTID, e.WakerCPU, e.FromIRQ = 1, 43, 0, trace.No
			return e
		}},
		{"migrate", rec(3000, 0, trace.KindMigrate, 0, 9, 9, 42, 40, 120, -1, -1, -1, 1, 0, -1, "worker", ""), func() trace.Event {
			e := trace.NewEvent(3000, 0, trace.KindMigrate)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm, e.Prio = 9, 9, 42, 40, "worker", 120
			e.OrigCPU, e.DestCPU = 1, 0
			return e
		}},
		{"fork", rec(4000, 0, trace.KindFork, 0, 40, 40, 40, 40, 120, 44, 40, 120, 0, 0, -1, "main", "main"), func() trace.Event {
			e := trace.NewEvent(4000, 0, trace.KindFork)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = 40, 40, 40, 40, "main"
			e.ChildTID, e.ChildPID, e.ChildComm = 44, 40, "main"
			return e
		}},
		{"sched_stat_runtime, runtime over 32 bits", rec(4500, 1, trace.KindRuntime, 0, 42, 40, 42, 40, 120, -1, -1, -1, 0x2a05f200, 0x1, -1, "worker", ""), func() trace.Event {
			e := trace.NewEvent(4500, 1, trace.KindRuntime)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = 42, 40, 42, 40, "worker"
			e.Runtime = 0x1_2a05f200 // 5000000000 ns
			return e
		}},
		{"task_rename", rec(4600, 0, trace.KindComm, 0, 42, 40, 42, 40, 120, -1, -1, -1, 0, 0, -1, "sched-messaging", ""), func() trace.Event {
			e := trace.NewEvent(4600, 0, trace.KindComm)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = 42, 40, 42, 40, "sched-messaging"
			return e
		}},
		{"comm of 16 bytes, no NUL", rec(5000, 0, trace.KindExec, 0, 40, 40, 40, 40, 120, -1, -1, -1, 0, 0, -1, "0123456789abcdef", ""), func() trace.Event {
			e := trace.NewEvent(5000, 0, trace.KindExec)
			e.CurTID, e.CurPID, e.TID, e.PID, e.Comm = 40, 40, 40, 40, "0123456789abcdef"
			return e
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := d.decode(c.in)
			if !ok {
				t.Fatal("not decoded")
			}
			if diff := cmp.Diff(c.want(), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := d.decode(rec(1, 0, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", "")); ok {
		t.Error("unknown kind 99 decoded")
	}
	if _, ok := d.decode(make([]byte, RecordSize-1)); ok {
		t.Error("short record decoded")
	}
}

// TestReorder: events arriving as two per-CPU runs come out in time order
// (ties in arrival order); a flush releases only those at or below its
// limit, and a later one the rest.
func TestReorder(t *testing.T) {
	var r reorder
	add := func(ts int64, cpu trace.CPU) { r.add(trace.NewEvent(ts, cpu, trace.KindSwitch)) }
	// CPU 0's buffer, then CPU 1's, as one drain pass reads them.
	for _, ts := range []int64{5, 10, 20, 30} {
		add(ts, 0)
	}
	for _, ts := range []int64{7, 10, 25} {
		add(ts, 1)
	}
	type out struct {
		T   int64
		CPU trace.CPU
	}
	var got []out
	emit := func(e trace.Event) error { got = append(got, out{e.Time, e.CPU}); return nil }
	if err := r.flush(20, emit); err != nil {
		t.Fatal(err)
	}
	want := []out{{5, 0}, {7, 1}, {10, 0}, {10, 1}, {20, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flush to 20 (-want +got):\n%s", diff)
	}
	// The next pass: CPU 1 has an event at 26, CPU 0 at 40.
	add(40, 0)
	add(26, 1)
	if err := r.flush(math.MaxInt64, emit); err != nil {
		t.Fatal(err)
	}
	want = append(want, out{25, 1}, out{26, 1}, out{30, 0}, out{40, 0})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("full flush (-want +got):\n%s", diff)
	}
}

func TestPerCPUBuffer(t *testing.T) {
	// 32 MiB over 2 CPUs: 16 MiB each; over 256 CPUs 128 KiB each is
	// raised to the 256 KiB minimum; 3 MiB over 2 CPUs is 1.5 MiB, rounded
	// up to 2 MiB; 0 is the default.
	for _, c := range []struct{ total, ncpu, want int }{
		{32 << 20, 2, 16 << 20}, {32 << 20, 256, 256 << 10}, {3 << 20, 2, 2 << 20}, {0, 2, 16 << 20}, {1, 0, 256 << 10},
	} {
		if got := perCPUBuffer(c.total, c.ncpu, 4096); got != c.want {
			t.Errorf("perCPUBuffer(%d, %d) = %d, want %d", c.total, c.ncpu, got, c.want)
		}
	}
}

func TestRoundBuffer(t *testing.T) {
	for _, c := range []struct{ in, want int }{{0, DefaultBufferSize}, {1, 4096}, {4096, 4096}, {4097, 8192}, {5 << 20, 8 << 20}} {
		if got := roundBuffer(c.in, 4096); got != c.want {
			t.Errorf("roundBuffer(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestAssemblerLossWindow: a loss read from CPU 1's buffer between its
// records at 20 and 30 ns becomes a KindLost event at 30 ns (the first
// record after the gap), sorted after CPU 0's record at 25 and before CPU
// 1's at 30; a loss no record follows is placed at the later of the last
// event's time and the time it was noticed. Watermark 100 ns + the margin
// releases everything at or below 100.
func TestAssemblerLossWindow(t *testing.T) {
	sw := func(ts uint64, cpu uint32) []byte {
		return rec(ts, cpu, trace.KindSwitch, 0, 1, 1, 1, 1, 120, 2, 2, 120, 1, 0, -1, "a", "b")
	}
	var b batch
	for _, r := range [][]byte{sw(10, 1), sw(20, 1), sw(30, 1), sw(25, 0)} { // CPU 1's buffer, then CPU 0's
		b.recs = append(b.recs, r...)
	}
	b.losses = []lossReport{
		{CPU: 1, At: 2, N: 5, Noticed: 1000}, // between CPU 1's records at 20 and 30
		{CPU: 0, At: 4, N: 7, Noticed: 1000}, // at the end of CPU 0's
	}
	b.watermark = 100 + ReorderWindow

	type out struct {
		T     int64
		CPU   trace.CPU
		Kind  trace.Kind
		Count uint64
	}
	var got []out
	emit := func(e trace.Event) error { got = append(got, out{e.Time, e.CPU, e.Kind, e.Count}); return nil }
	a := assembler{dec: newDecoder(false)}
	if err := a.batch(&b, emit); err != nil {
		t.Fatal(err)
	}
	if err := a.finish(emit); err != nil {
		t.Fatal(err)
	}
	want := []out{
		{10, 1, trace.KindSwitch, 0}, {20, 1, trace.KindSwitch, 0}, {25, 0, trace.KindSwitch, 0},
		{30, 1, trace.KindLost, 5}, {30, 1, trace.KindSwitch, 0},
		{1000, 0, trace.KindLost, 7}, // noticed at 1000 > the last event (30)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPairWakeups: a sched_wakeup without its waker (tp_btf records) takes
// the waker, waker CPU and interrupt flag of the task's previous
// sched_waking; a second wakeup with no waking in between keeps an unknown
// waker, and a wakeup that carries its waker (classic records) keeps it.
func TestPairWakeups(t *testing.T) {
	ev := func(ts int64, k trace.Kind, tid, waker trace.TID, wcpu trace.CPU, irq trace.Tristate) trace.Event {
		e := trace.NewEvent(ts, 0, k)
		e.TID, e.WakerTID, e.WakerCPU, e.FromIRQ = tid, waker, wcpu, irq
		return e
	}
	in := []trace.Event{
		ev(1, trace.KindWaking, 7, 5, 1, trace.Yes),
		ev(2, trace.KindWakeup, 7, -1, -1, trace.Unknown),
		ev(3, trace.KindWakeup, 7, -1, -1, trace.Unknown),
		ev(4, trace.KindWakeup, 8, 9, 0, trace.No),
	}
	want := []trace.Event{in[0], ev(2, trace.KindWakeup, 7, 5, 1, trace.Yes), in[2], in[3]}
	var got []trace.Event
	a := assembler{dec: newDecoder(false), emit: func(e trace.Event) error { got = append(got, e); return nil }}
	for _, e := range in {
		if err := a.pairEmit(e); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDecodeStacks: a switch record's (kernel, user) BPF stack ids become
// one trace.StackID per distinct pair, from 1; a record with neither
// (both -1, as without --stacks) has none.
func TestDecodeStacks(t *testing.T) {
	d := newDecoder(false)
	sw := func(k, u int32) trace.StackID {
		b := rec(1000, 0, trace.KindSwitch, 0, 42, 40, 42, 40, 120, 0, 0, 120, 0, 0, -1, "worker", "swapper/0")
		binary.LittleEndian.PutUint32(b[offKStack:], uint32(k))
		binary.LittleEndian.PutUint32(b[offUStack:], uint32(u))
		e, ok := d.decode(b)
		if !ok {
			t.Fatal("switch record not decoded")
		}
		return e.Stack
	}
	got := []trace.StackID{sw(-1, -1), sw(7, 3), sw(7, -1), sw(7, 3), sw(-1, 3)}
	if want := []trace.StackID{0, 1, 2, 1, 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stack ids %v, want %v", got, want)
	}
	if fmt.Sprint(d.stackPairs) != "[[7 3] [7 -1] [-1 3]]" {
		t.Errorf("pairs %v", d.stackPairs)
	}
}
