//go:build linux

package ebpf

import (
	"testing"
	"unsafe"
)

// TestRecordLayout: every offset decode reads at is the offset of that
// field in struct record as the compiler laid it out (schedRecord, which
// bpf2go -type record generated from sched_bpfel.o's BTF), and the record
// is RecordSize bytes.
func TestRecordLayout(t *testing.T) {
	var r schedRecord
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size", RecordSize, unsafe.Sizeof(r)},
		{"ts", offTs, unsafe.Offsetof(r.Ts)},
		{"cpu", offCPU, unsafe.Offsetof(r.Cpu)},
		{"kind", offKind, unsafe.Offsetof(r.Kind)},
		{"flags", offFlags, unsafe.Offsetof(r.Flags)},
		{"cur_tid", offCurTID, unsafe.Offsetof(r.CurTid)},
		{"cur_pid", offCurPID, unsafe.Offsetof(r.CurPid)},
		{"tid", offTID, unsafe.Offsetof(r.Tid)},
		{"pid", offPID, unsafe.Offsetof(r.Pid)},
		{"prio", offPrio, unsafe.Offsetof(r.Prio)},
		{"tid2", offTID2, unsafe.Offsetof(r.Tid2)},
		{"pid2", offPID2, unsafe.Offsetof(r.Pid2)},
		{"prio2", offPrio2, unsafe.Offsetof(r.Prio2)},
		{"arg1", offArg1, unsafe.Offsetof(r.Arg1)},
		{"arg2", offArg2, unsafe.Offsetof(r.Arg2)},
		{"waker_tid", offWakerTID, unsafe.Offsetof(r.WakerTid)},
		{"kstack", offKStack, unsafe.Offsetof(r.Kstack)},
		{"comm", offComm, unsafe.Offsetof(r.Comm)},
		{"comm len", commLen, unsafe.Sizeof(r.Comm)},
		{"comm2", offComm2, unsafe.Offsetof(r.Comm2)},
		{"cgroup", offCgroup, unsafe.Offsetof(r.Cgroup)},
		{"ustack", offUStack, unsafe.Offsetof(r.Ustack)},
	} {
		if c.got != c.want {
			t.Errorf("%s: record.go says %d, struct record has %d", c.name, c.got, c.want)
		}
	}
}
