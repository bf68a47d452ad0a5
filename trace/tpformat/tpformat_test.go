package tpformat

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/traceview/traceview/trace"
)

// The *.format files of testdata were cut out of the tracing-data section of
// ../shared/traces/messaging.wk.perf.data (Linux 6.18.44, x86_64), except
// sched_switch-4.9.format and sched_process_exec.format, written by hand
// after the Linux 4.9 and 6.x include/trace/events/sched.h definitions.
func loadFormat(t *testing.T, name string) *Format {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name+".format"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	f.System = "sched"
	return f
}

func TestParseSwitch(t *testing.T) {
	f := loadFormat(t, "sched_switch")
	if f.Name != "sched_switch" || f.ID != 372 || f.FullName() != "sched:sched_switch" {
		t.Fatalf("name/id = %q/%d", f.Name, f.ID)
	}
	want := []Field{
		{Name: "common_type", Type: "unsigned short", Offset: 0, Size: 2, Common: true},
		{Name: "common_flags", Type: "unsigned char", Offset: 2, Size: 1, Common: true},
		{Name: "common_preempt_count", Type: "unsigned char", Offset: 3, Size: 1, Common: true},
		{Name: "common_pid", Type: "int", Offset: 4, Size: 4, Signed: true, Common: true},
		{Name: "prev_comm", Type: "char", Offset: 8, Size: 16, ArrayLen: 16},
		{Name: "prev_pid", Type: "pid_t", Offset: 24, Size: 4, Signed: true},
		{Name: "prev_prio", Type: "int", Offset: 28, Size: 4, Signed: true},
		{Name: "prev_state", Type: "long", Offset: 32, Size: 8, Signed: true},
		{Name: "next_comm", Type: "char", Offset: 40, Size: 16, ArrayLen: 16},
		{Name: "next_pid", Type: "pid_t", Offset: 56, Size: 4, Signed: true},
		{Name: "next_prio", Type: "int", Offset: 60, Size: 4, Signed: true},
	}
	if d := cmp.Diff(want, f.Fields); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	if _, ok := f.Field("nope"); ok {
		t.Error("Field(nope) found")
	}
	fd, ok := f.Field("next_pid")
	if !ok || fd.Offset != 56 {
		t.Errorf("Field(next_pid) = %+v, %v", fd, ok)
	}
}

func TestParseDataLoc(t *testing.T) {
	f := loadFormat(t, "sched_process_fork")
	fd, _ := f.Field("child_comm")
	if !fd.DataLoc || fd.Size != 4 || fd.Offset != 16 {
		t.Errorf("child_comm = %+v", fd)
	}
}

func TestParseErrors(t *testing.T) {
	for name, text := range map[string]string{
		"empty":      "",
		"no id":      "name: x\nformat:\n",
		"bad id":     "name: x\nID: abc\n",
		"bad offset": "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:zz;\tsize:4;\tsigned:1;\n",
		"no size":    "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\n",
		"no type":    "name: x\nID: 1\nformat:\n\tfield:a;\toffset:0;\tsize:4;\n",
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestIntAndString(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := make([]byte, 24)
		order.PutUint16(raw[0:], 0xfffe)
		order.PutUint32(raw[4:], 0xfffffffd) // -3 as int32
		order.PutUint64(raw[8:], 1<<40+5)
		copy(raw[16:], "ab\x00cd")
		s16 := Field{Offset: 0, Size: 2, Signed: true}
		u16 := Field{Offset: 0, Size: 2}
		s32 := Field{Offset: 4, Size: 4, Signed: true}
		u64 := Field{Offset: 8, Size: 8}
		str := Field{Offset: 16, Size: 8, ArrayLen: 8}
		out := Field{Offset: 20, Size: 8}
		if got := s16.Int(raw, order); got != -2 {
			t.Errorf("%v s16 = %d, want -2", order, got)
		}
		if got := u16.Int(raw, order); got != 0xfffe {
			t.Errorf("%v u16 = %d, want 65534", order, got)
		}
		if got := s32.Int(raw, order); got != -3 {
			t.Errorf("%v s32 = %d, want -3", order, got)
		}
		if got := u64.Uint(raw, order); got != 1<<40+5 {
			t.Errorf("%v u64 = %d", order, got)
		}
		if got := str.String(raw, order); got != "ab" {
			t.Errorf("%v string = %q, want ab", order, got)
		}
		if got := out.Int(raw, order); got != 0 {
			t.Errorf("out of range Int = %d, want 0", got)
		}
		if got := out.Bytes(raw, order); got != nil {
			t.Errorf("out of range Bytes = %q, want nil", got)
		}
	}
}

func TestDataLocBounds(t *testing.T) {
	fd := Field{Offset: 0, Size: 4, DataLoc: true}
	raw := make([]byte, 12)
	binary.LittleEndian.PutUint32(raw, 5<<16|4) // 5 bytes at offset 4
	copy(raw[4:], "hello")
	if got := fd.String(raw, binary.LittleEndian); got != "hello" {
		t.Errorf("data_loc = %q", got)
	}
	binary.LittleEndian.PutUint32(raw, 50<<16|4)
	if got := fd.Bytes(raw, binary.LittleEndian); got != nil {
		t.Errorf("overlong data_loc = %q, want nil", got)
	}
	rel := Field{Offset: 0, Size: 4, RelLoc: true}
	binary.LittleEndian.PutUint32(raw, 5<<16|0) // relative to offset 4
	if got := rel.String(raw, binary.LittleEndian); got != "hello" {
		t.Errorf("rel_loc = %q", got)
	}
}

func TestEvalConst(t *testing.T) {
	for expr, want := range map[string]int64{
		// TASK_REPORT_MAX of Linux 6.x: ((0x7f)+1)<<1 = 0x100.
		"(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1)":       0x100,
		"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)": 0xff,
		"(2048-1)":      2047,
		"2048":          2048,
		"1UL << 3":      8,
		"~0 & 0xf":      15,
		"7 % 4 * 2":     6,
		"-(3) + 10 / 2": 2,
	} {
		got, err := evalConst(expr)
		if err != nil || got != want {
			t.Errorf("evalConst(%q) = %d, %v; want %d", expr, got, err, want)
		}
	}
	for _, bad := range []string{"", "(1", "1 +", "1 << 99", "1 / 0", "x y"} {
		if _, err := evalConst(bad); err == nil {
			t.Errorf("evalConst(%q): no error", bad)
		}
	}
}

func TestStateDecoder(t *testing.T) {
	modern := NewStateDecoder(loadFormat(t, "sched_switch").PrintFmt)
	old := NewStateDecoder(loadFormat(t, "sched_switch-4.9").PrintFmt)
	if !modern.Derived || !old.Derived {
		t.Fatal("print fmt not understood")
	}
	if modern.Preempt != 0x100 || modern.Mask != 0xff {
		t.Errorf("6.18: preempt %#x mask %#x, want 0x100 0xff", modern.Preempt, modern.Mask)
	}
	if old.Preempt != 2048 || old.Mask != 2047 {
		t.Errorf("4.9: preempt %d mask %d, want 2048 2047", old.Preempt, old.Mask)
	}
	cases := []struct {
		d    *StateDecoder
		raw  uint64
		want trace.TaskState
		str  string
	}{
		{modern, 0, trace.StateRunning, "R"},
		{modern, 0x100, trace.StatePreempted, "R+"},
		{modern, 0x01, trace.StateInterruptible, "S"},
		{modern, 0x02, trace.StateUninterruptible, "D"},
		{modern, 0x80, trace.StateIdle, "I"},
		{modern, 0x10, trace.StateDead, "X"},
		{modern, 0x20, trace.StateZombie, "Z"},
		// Linux 4.9 numbering: Z=16, X=32, x(TASK_DEAD)=64, K=128 (dropped), P=512, preempted=2048.
		{old, 0, trace.StateRunning, "R"},
		{old, 2048, trace.StatePreempted, "R+"},
		{old, 1, trace.StateInterruptible, "S"},
		{old, 16, trace.StateZombie, "Z"},
		{old, 32, trace.StateDead, "X"},
		{old, 64, trace.StateDead, "X"},
		{old, 128 | 2, trace.StateUninterruptible, "D"},
		{old, 512, trace.StateParked, "P"},
	}
	for _, c := range cases {
		got := c.d.Decode(c.raw)
		if got != c.want || got.String() != c.str {
			t.Errorf("Decode(%#x) = %v (%#x), want %s (%#x)", c.raw, got, uint16(got), c.str, uint16(c.want))
		}
	}
	if d := NewStateDecoder(`"no flags", REC->prev_state`); d.Derived || d.Preempt != 0x100 {
		t.Errorf("fallback decoder = %+v", d)
	}
}

// put builds a payload for f from named values: ints and strings (char
// arrays; __data_loc strings are appended after the fixed fields).
func put(t *testing.T, f *Format, order binary.ByteOrder, vals map[string]any) []byte {
	t.Helper()
	end := 0
	for _, fd := range f.Fields {
		end = max(end, fd.End())
	}
	raw := make([]byte, end)
	order.PutUint16(raw, uint16(f.ID))
	for name, v := range vals {
		fd, ok := f.Field(name)
		if !ok {
			t.Fatalf("no field %s", name)
		}
		switch v := v.(type) {
		case int:
			switch fd.Size {
			case 1:
				raw[fd.Offset] = byte(v)
			case 2:
				order.PutUint16(raw[fd.Offset:], uint16(v))
			case 4:
				order.PutUint32(raw[fd.Offset:], uint32(v))
			case 8:
				order.PutUint64(raw[fd.Offset:], uint64(v))
			}
		case string:
			if fd.DataLoc {
				order.PutUint32(raw[fd.Offset:], uint32(len(v)+1)<<16|uint32(len(raw)))
				raw = append(raw, v...)
				raw = append(raw, 0)
			} else {
				copy(raw[fd.Offset:fd.End()], v)
			}
		}
	}
	return raw
}

func TestSchedDecoder(t *testing.T) {
	type tc struct {
		format string
		vals   map[string]any
		want   func(e *trace.Event)
	}
	cases := []tc{
		{"sched_switch", map[string]any{"common_pid": 7, "prev_comm": "sched-pipe", "prev_pid": 7, "prev_prio": 120,
			"prev_state": 0x100, "next_comm": "swapper/1", "next_pid": 0, "next_prio": 120},
			func(e *trace.Event) {
				e.CurTID, e.TID, e.Comm, e.Prio, e.PrevState = 7, 7, "sched-pipe", 120, trace.StatePreempted
				e.NextTID, e.NextPID, e.NextComm, e.NextPrio = 0, 0, "swapper/1", 120
			}},
		{"sched_switch-4.9", map[string]any{"common_pid": 0, "prev_comm": "swapper/0", "prev_pid": 0, "prev_prio": 120,
			"prev_state": 2048 | 0, "next_comm": "a", "next_pid": 9, "next_prio": 100},
			func(e *trace.Event) {
				e.CurTID, e.TID, e.PID, e.Comm, e.Prio, e.PrevState = 0, 0, 0, "swapper/0", 120, trace.StatePreempted
				e.NextTID, e.NextComm, e.NextPrio = 9, "a", 100
			}},
		{"sched_waking", map[string]any{"common_pid": 3, "common_flags": 0x08, "comm": "b", "pid": 5, "prio": 139, "target_cpu": 1},
			func(e *trace.Event) {
				e.CurTID, e.TID, e.Comm, e.Prio, e.TargetCPU, e.FromIRQ = 3, 5, "b", 139, 1, trace.Yes
			}},
		{"sched_wakeup", map[string]any{"common_pid": 3, "comm": "b", "pid": 5, "prio": 120, "target_cpu": 0},
			func(e *trace.Event) {
				e.CurTID, e.TID, e.Comm, e.Prio, e.TargetCPU, e.FromIRQ = 3, 5, "b", 120, 0, trace.No
			}},
		{"sched_wakeup_new", map[string]any{"common_pid": 3, "comm": "b", "pid": 6, "prio": 120, "target_cpu": 1},
			func(e *trace.Event) { e.CurTID, e.TID, e.Comm, e.Prio, e.TargetCPU = 3, 6, "b", 120, 1 }},
		{"sched_migrate_task", map[string]any{"common_pid": 3, "comm": "kworker/1:0", "pid": 6, "prio": 120, "orig_cpu": 1, "dest_cpu": 0},
			func(e *trace.Event) {
				e.CurTID, e.TID, e.Comm, e.Prio, e.OrigCPU, e.DestCPU = 3, 6, "kworker/1:0", 120, 1, 0
			}},
		{"sched_process_fork", map[string]any{"common_pid": 3, "parent_comm": "sh", "parent_pid": 3, "child_comm": "sh", "child_pid": 4},
			func(e *trace.Event) { e.CurTID, e.TID, e.Comm, e.ChildTID, e.ChildComm = 3, 3, "sh", 4, "sh" }},
		{"sched_stat_runtime", map[string]any{"common_pid": 3, "comm": "hog", "pid": 3, "runtime": 4000123},
			func(e *trace.Event) { e.CurTID, e.TID, e.Comm, e.Runtime = 3, 3, "hog", 4000123 }},
		{"sched_process_exec", map[string]any{"common_pid": 3, "filename": "/usr/bin/a-very-long-program-name", "pid": 3, "old_pid": 3},
			func(e *trace.Event) { e.CurTID, e.TID, e.Comm = 3, 3, "a-very-long-pro" }},
	}
	for _, c := range cases {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			t.Run(c.format+"/"+order.String(), func(t *testing.T) {
				f := loadFormat(t, c.format)
				d, err := NewSchedDecoder(f, order, nil)
				if err != nil {
					t.Fatal(err)
				}
				raw := put(t, f, order, c.vals)
				got := trace.NewEvent(100, 1, trace.KindInvalid)
				if err := d.Decode(raw, &got); err != nil {
					t.Fatal(err)
				}
				want := trace.NewEvent(100, 1, d.Kind)
				c.want(&want)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
				// The kinds of most events have a fixed layout on
				// little-endian machines (decodeFast): the general path
				// gives the same event.
				switch d.Kind {
				case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindRuntime:
					if d.fast.ok != (order == binary.LittleEndian) {
						t.Errorf("fast layout %v for %s", d.fast.ok, order)
					}
					// These formats are the kernels' own layouts
					// (constant offsets).
					if d.fast.ok && d.fast.std == stdNone {
						t.Errorf("%s: not read at constant offsets: %+v", c.format, d.fast)
					}
				}
				if d.fast.ok {
					d.fast.ok = false
					slow := trace.NewEvent(100, 1, trace.KindInvalid)
					if err := d.Decode(raw, &slow); err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(slow, got); d != "" {
						t.Errorf("fast layout (-general +fast):\n%s", d)
					}
				}
				if err := d.Decode(raw[:len(raw)/3], &got); err == nil {
					t.Error("short payload: no error")
				}
			})
		}
	}
}

// TestSchedDecoderFieldRange: a payload whose field the kernel cannot have
// written (new-user pass 30 F8: 8 bytes of 0xdeadbeef over a sched_waking
// gave pid -1095901457 and prio 239, taken as a real wakeup) is an
// ErrFieldRange naming the field, on the fast and the general path; the
// edges of the ranges decode (prio -1 is SCHED_DEADLINE, 139 nice 19, pid
// 4194304 PID_MAX_LIMIT, CPU 8191). With the recording's CPU count set
// (NrCPUs 2: new-user pass 101 F3), target_cpu 2 is out of range and 1
// decodes.
func TestSchedDecoderFieldRange(t *testing.T) {
	waking := func(pid, prio, cpu int) map[string]any {
		return map[string]any{"common_pid": 3, "comm": "b", "pid": pid, "prio": prio, "target_cpu": cpu}
	}
	for _, c := range []struct {
		format string
		vals   map[string]any
		field  string // "" decodes
		nrCPUs int
	}{
		{"sched_waking", waking(5, 120, 2), "target_cpu 2", 2},
		{"sched_waking", waking(5, 120, 1), "", 2},
		{"sched_waking", waking(-1095901457, 120, 0), "pid -1095901457", 0},
		{"sched_waking", waking(5, 239, 0), "prio 239", 0},
		{"sched_waking", waking(5, 120, 9000), "target_cpu 9000", 0},
		{"sched_waking", waking(4194305, 120, 0), "pid 4194305", 0},
		{"sched_waking", waking(4194304, -1, 8191), "", 0},
		{"sched_waking", waking(5, 139, 0), "", 0},
		{"sched_switch", map[string]any{"common_pid": 7, "prev_comm": "a", "prev_pid": 7, "prev_prio": 120,
			"prev_state": 0, "next_comm": "b", "next_pid": -2, "next_prio": 120}, "next_pid -2", 0},
		{"sched_switch", map[string]any{"common_pid": 7, "prev_comm": "a", "prev_pid": 7, "prev_prio": 120,
			"prev_state": 0, "next_comm": "b", "next_pid": 8, "next_prio": 140}, "next_prio 140", 0},
		{"sched_process_fork", map[string]any{"common_pid": 3, "parent_comm": "sh", "parent_pid": 3, "child_comm": "sh", "child_pid": -5}, "child_pid -5", 0},
	} {
		for _, fast := range []bool{true, false} {
			f := loadFormat(t, c.format)
			d, err := NewSchedDecoder(f, binary.LittleEndian, nil)
			if err != nil {
				t.Fatal(err)
			}
			d.fast.ok = d.fast.ok && fast
			d.NrCPUs = c.nrCPUs
			ev := trace.NewEvent(100, 1, trace.KindInvalid)
			err = d.Decode(put(t, f, binary.LittleEndian, c.vals), &ev)
			switch {
			case c.field == "" && err != nil:
				t.Errorf("%s %v (fast %v): %v, want it decoded", c.format, c.vals, fast, err)
			case c.field != "" && (!errors.Is(err, ErrFieldRange) || !strings.Contains(err.Error(), c.field)):
				t.Errorf("%s %v (fast %v): %v, want ErrFieldRange naming %q", c.format, c.vals, fast, err, c.field)
			}
		}
	}
}

func TestNewSchedDecoderRejects(t *testing.T) {
	f, err := Parse([]byte("name: sched_switch\nID: 1\nformat:\n\tfield:int prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSchedDecoder(f, binary.LittleEndian, nil); err == nil {
		t.Error("sched_switch without prev_state: no error")
	}
	f.Name = "irq_handler_entry"
	if _, err := NewSchedDecoder(f, binary.LittleEndian, nil); err == nil {
		t.Error("irq_handler_entry: no error")
	}
}

func TestSchedDecoderAllocs(t *testing.T) {
	f := loadFormat(t, "sched_switch")
	d, _ := NewSchedDecoder(f, binary.LittleEndian, nil)
	raw := put(t, f, binary.LittleEndian, map[string]any{"prev_comm": "a", "prev_pid": 1, "prev_state": 1, "next_comm": "b", "next_pid": 2})
	ev := trace.NewEvent(0, 0, 0)
	_ = d.Decode(raw, &ev)
	if n := testing.AllocsPerRun(100, func() { _ = d.Decode(raw, &ev) }); n != 0 {
		t.Errorf("Decode allocates %v times per event, want 0", n)
	}
}

// The comm cache keys on a comm field's 16 raw bytes: bytes after the NUL
// do not change the name, and a name decoded after many others (every
// slot of the cache overwritten, some colliding) is still right.
func TestSchedDecoderCommCache(t *testing.T) {
	f := loadFormat(t, "sched_switch")
	d, err := NewSchedDecoder(f, binary.LittleEndian, nil)
	if err != nil {
		t.Fatal(err)
	}
	fd, ok := f.Field("prev_comm")
	if !ok || fd.Size != 16 {
		t.Fatalf("prev_comm: %+v", fd)
	}
	off := fd.Offset
	decode := func(comm [16]byte) string {
		raw := put(t, f, binary.LittleEndian, map[string]any{"prev_pid": 1, "prev_state": 1, "next_comm": "b", "next_pid": 2})
		copy(raw[off:off+16], comm[:])
		ev := trace.NewEvent(0, 0, 0)
		if err := d.Decode(raw, &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Comm
	}
	var a, garbage [16]byte
	copy(a[:], "sched-pipe")
	copy(garbage[:], "sched-pipe\x00xyzw")
	for i := 0; i < 3; i++ {
		if got := decode(a); got != "sched-pipe" {
			t.Fatalf("round %d: %q", i, got)
		}
		if got := decode(garbage); got != "sched-pipe" {
			t.Fatalf("round %d, bytes after the NUL: %q", i, got)
		}
		// 2000 other names overwrite every slot of the 256-entry cache.
		for n := 0; n < 2000; n++ {
			var c [16]byte
			name := "task-" + strconv.Itoa(n)
			copy(c[:], name)
			if got := decode(c); got != name {
				t.Fatalf("%q decoded as %q", name, got)
			}
		}
	}
	var full [16]byte
	copy(full[:], "0123456789abcdef") // no NUL: all 16 bytes
	if got := decode(full); got != "0123456789abcdef" {
		t.Errorf("16-byte name without NUL: %q", got)
	}
}

// A __data_loc name (sched_stat_runtime's comm since Linux 6.x) goes
// through the name cache too: its length ends it, and the bytes that
// follow it in the payload are not part of it.
func TestSchedDecoderDataLocCache(t *testing.T) {
	f := loadFormat(t, "sched_stat_runtime")
	d, err := NewSchedDecoder(f, binary.LittleEndian, nil)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(loc []byte, tail string) string {
		raw := put(t, f, binary.LittleEndian, map[string]any{"pid": 1, "runtime": 5})
		binary.LittleEndian.PutUint32(raw[8:], uint32(len(loc))<<16|uint32(len(raw)))
		raw = append(append(raw, loc...), tail...)
		ev := trace.NewEvent(0, 0, 0)
		if err := d.Decode(raw, &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Comm
	}
	for i := 0; i < 2; i++ {
		for _, c := range []struct{ loc, tail, want string }{
			{"hog\x00", "xyz", "hog"},
			{"hog", "xyz", "hog"},                              // no NUL: the length ends it
			{"hogs\x00", "", "hogs"},                           // same first bytes, another name
			{"0123456789abcdef", "", "0123456789abcdef"},       // 16 bytes
			{"0123456789abcdefg\x00", "", "0123456789abcdefg"}, // longer: not cached
			{"", "xyz", ""},
		} {
			if got := decode([]byte(c.loc), c.tail); got != c.want {
				t.Errorf("round %d: %q then %q: %q, want %q", i, c.loc, c.tail, got, c.want)
			}
		}
	}
}
