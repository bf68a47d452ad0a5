//go:build linux

package ebpf

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestRecordLayout: every size and offset record.go decodes with is the
// one the compiler gave the C structs (sched.c), as the object's BTF
// describes them. (bpf2go's Go twins, schedRecord and the others, cannot
// say it: a packed C struct of 28 bytes is a 32-byte Go struct.)
func TestRecordLayout(t *testing.T) {
	spec, err := loadSched()
	if err != nil {
		t.Fatal(err)
	}
	// field returns the size of struct name, or the byte offset and size
	// of its member path (dotted, through nested structs).
	field := func(name, path string) (off, size uint32) {
		t.Helper()
		var s *btf.Struct
		if err := spec.Types.TypeByName(name, &s); err != nil {
			t.Fatalf("struct %s: %v", name, err)
		}
		if path == "" {
			return 0, s.Size
		}
		var typ btf.Type = s
		for _, p := range strings.Split(path, ".") {
			st, ok := btf.UnderlyingType(typ).(*btf.Struct)
			if !ok {
				t.Fatalf("%s.%s: %s is not in a struct", name, path, p)
			}
			found := false
			for _, m := range st.Members {
				if m.Name == p {
					off += uint32(m.Offset.Bytes())
					typ, found = m.Type, true
					break
				}
			}
			if !found {
				t.Fatalf("struct %s has no member %s", name, path)
			}
		}
		sz, err := btf.Sizeof(typ)
		if err != nil {
			t.Fatal(err)
		}
		return off, uint32(sz)
	}
	for _, c := range []struct {
		strct, path string
		off, size   int
	}{
		{"record", "", 0, RecordSize},
		{"record_ext", "", 0, RecordExtSize},
		{"task_record", "", 0, TaskRecordSize},
		{"record", "h.ts", offTs, 8},
		{"record", "h.kind", offKind, 1},
		{"record", "h.flags", offFlags, 1},
		{"record", "h.cpu", offCPU, 2},
		{"record", "h.cur_tid", offCurTID, 4},
		{"record", "tid", offTID, 4},
		{"record", "arg1", offArg1, 4},
		{"record", "arg2", offArg2, 4},
		{"record_ext", "r", 0, RecordSize},
		{"record_ext", "ext1", offExt1, 4},
		{"record_ext", "ext2", offExt2, 4},
		{"task_record", "h", 0, 16},
		{"task_record", "tid", offTaskTID, 4},
		{"task_record", "pid", offTaskPID, 4},
		{"task_record", "prio", offTaskPrio, 4},
		{"task_record", "policy", offTaskPolicy, 4},
		{"task_record", "comm", offTaskComm, commLen},
		{"task_record", "cgroup", offTaskCgroup, 8},
	} {
		off, size := field(c.strct, c.path)
		if int(off) != c.off || int(size) != c.size {
			t.Errorf("%s %s: record.go says offset %d size %d, the object has %d and %d", c.strct, c.path, c.off, c.size, off, size)
		}
	}
}
