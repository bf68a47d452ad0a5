package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

func TestCgroupSkip(t *testing.T) {
	// perf sched record --all-cgroups: IP|TID|TIME|CPU|PERIOD|RAW|
	// IDENTIFIER|CGROUP: the id right after RAW. WEIGHT and PHYS_ADDR
	// (u64 each) come between; REGS_INTR (variable) makes it unreadable.
	base := uint64(sampleIP | sampleTID | sampleTime | sampleCPU | samplePeriod | sampleRaw | sampleIdentifier)
	for _, c := range []struct {
		st   uint64
		want int
	}{
		{base, -1},
		{base | sampleCgroup, 0},
		{base | sampleCgroup | sampleWeight | samplePhysAddr, 16},
		{base | sampleCgroup | sampleRegsIntr, -1},
	} {
		if got := cgroupSkip(c.st); got != c.want {
			t.Errorf("cgroupSkip(%#x) = %d, want %d", c.st, got, c.want)
		}
	}
}

func TestCgroupRecord(t *testing.T) {
	// PERF_RECORD_CGROUP: header, id 1234, "/tv-a\0" padded to 8 bytes.
	rec := make([]byte, 8+8+8)
	binary.LittleEndian.PutUint32(rec, recCgroup)
	binary.LittleEndian.PutUint64(rec[8:], 1234)
	copy(rec[16:], "/tv-a\x00")
	r := &Reader{order: binary.LittleEndian, meta: &trace.Meta{}}
	r.cgroupRecord(rec, 0)
	if got := r.meta.Cgroups[1234]; got != "/tv-a" {
		t.Errorf("Cgroups[1234] = %q, want /tv-a", got)
	}
	r.cgroupRecord(rec[:12], 100) // cut inside the id
	bad := make([]byte, 24)
	copy(bad[16:], "/no-nul!")
	r.cgroupRecord(bad, 200)
	// A path overwritten (new-user pass 102 F1: seven 0xff bytes where
	// "/nu102q" was): kept as read, and the record counted damaged.
	ff := make([]byte, 24)
	binary.LittleEndian.PutUint64(ff[8:], 99)
	copy(ff[16:], "\xff\xff\xff\x00")
	r.cgroupRecord(ff, 300)
	if w := r.meta.Warnings.List(); len(w) != 1 || w[0].Key != "bad-cgroup-record" || w[0].Count != 3 {
		t.Errorf("warnings %+v, want bad-cgroup-record counted 3 times", w)
	}
	if got := r.meta.Cgroups[99]; got != "\xff\xff\xff" {
		t.Errorf("Cgroups[99] = %q, want the path as read", got)
	}
	// A path from the root with a byte that is not UTF-8 (pass 103 F1):
	// kept as read, said, not counted damaged (a group may be so named).
	copy(ff[16:], "/a\xff\x00")
	binary.LittleEndian.PutUint64(ff[8:], 98)
	r.cgroupRecord(ff, 400)
	ws := r.meta.Warnings.List()
	if len(ws) != 2 || ws[1].Key != "cgroup-path-not-utf8" || !strings.Contains(ws[1].Message, `offset 400: path "/a\xff"`) || r.meta.Cgroups[98] != "/a\xff" {
		t.Errorf("warnings %+v, Cgroups[98] %q; want a cgroup-path-not-utf8 warning and the path as read", ws, r.meta.Cgroups[98])
	}
}

// TestAllCgroupsTrace reads grpw.eq.1cpu (perf sched record --all-cgroups;
// hogs a1, a2 = pids 30061, 30062 in /tv-a and b1 = 30063 in /tv-b, its
// meta file): every sched_switch of a hog carries its cgroup's id, which
// resolves to that path, except its first one or two, while cgrun (a
// shell script, ../shared/workloads/cgrun) still ran it in the root "/"
// before moving it: 2 of 130 switch-outs of 30061 (perf script shows them
// before the exec of hog).
func TestAllCgroupsTrace(t *testing.T) {
	r := openPath(t, "../../testdata/traces/grpw.eq.1cpu.perf.data") // a copy of ../shared/traces' file
	want := map[trace.TID]string{30061: "/tv-a", 30062: "/tv-a", 30063: "/tv-b"}
	ids := map[trace.TID]map[uint64]int{}
	last := map[trace.TID]uint64{}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want[ev.TID]; ok && ev.Kind == trace.KindSwitch {
			if ids[ev.TID] == nil {
				ids[ev.TID] = map[uint64]int{}
			}
			ids[ev.TID][ev.Cgroup]++
			last[ev.TID] = ev.Cgroup
		}
	}
	cg := r.Meta().Cgroups
	for tid, path := range want {
		if id := last[tid]; cg[id] != path {
			t.Errorf("tid %d: last cgroup id %d is %q, want %s", tid, id, cg[id], path)
		}
		for id, n := range ids[tid] {
			if cg[id] != path && (cg[id] != "/" || n > 2) {
				t.Errorf("tid %d: %d switch-outs in cgroup id %d (%q), want all but at most 2 (in /) in %s", tid, n, id, cg[id], path)
			}
		}
	}
}

// TestCgroupRecordSizeDamaged (new-user pass 102 F3): grpw.eq.1cpu's
// cgroup record of /tv-a with its size made 9999 (it holds the 8-byte
// header, the 8-byte id, path "/tv-a\0" padded to 8, and the 32-byte
// sample_id trailer of perf sched record's TID, TIME, CPU and IDENTIFIER:
// 56) is read by its fields: one damaged-record-size
// warning naming its offset, and every event of the intact file, /tv-a
// among the paths. Before, the reader went 9999 bytes on, read a header
// of no size there and ended the trace.
func TestCgroupRecordSizeDamaged(t *testing.T) {
	b := readFile(t, "../../testdata/traces/grpw.eq.1cpu.perf.data")
	at := bytes.Index(b, []byte("/tv-a\x00")) - 16
	if at < 0 || binary.LittleEndian.Uint32(b[at:]) != recCgroup {
		t.Fatalf("no cgroup record of /tv-a found (at %d)", at)
	}
	read := func(data []byte) ([]trace.Event, *Reader) {
		p := filepath.Join(t.TempDir(), "t.perf.data")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r := openPath(t, p)
		evs, err := trace.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return evs, r
	}
	want, _ := read(b)
	d := bytes.Clone(b)
	if size := binary.LittleEndian.Uint16(d[at+6:]); size != 56 {
		t.Fatalf("the record says %d bytes, want 56", size)
	}
	binary.LittleEndian.PutUint16(d[at+6:], 9999)
	got, r := read(d)
	ws := r.Meta().Warnings.List()
	if len(got) != len(want) || len(ws) == 0 || ws[0].Key != "damaged-record-size" ||
		!strings.Contains(ws[0].Message, fmt.Sprintf("type 19 at offset %d says 9999 bytes, and its fields end after 56", at)) {
		t.Errorf("%d events (intact: %d), warnings %v; want all and the damaged size named", len(got), len(want), ws)
	}
	if !slices.Contains(slices.Collect(maps.Values(r.Meta().Cgroups)), "/tv-a") {
		t.Errorf("paths %v lack /tv-a", r.Meta().Cgroups)
	}
}

// TestCommRecordSizeDamagedStream: the same in a pipe-mode stream (perf
// record -o -: read through the reader's buffer, not mapped): its first
// COMM record's size made 9999 is read by its fields, one
// damaged-record-size warning, every event of the intact stream.
func TestCommRecordSizeDamagedStream(t *testing.T) {
	b := readFile(t, pipeTrace)
	want, _, err := drain(b, true)
	if err != nil {
		t.Fatal(err)
	}
	d := bytes.Clone(b)
	at := -1
	for _, r := range records(b, pipeHeaderSize, len(b)) {
		if binary.LittleEndian.Uint32(b[r.off:]) == recComm {
			at = r.off
			break
		}
	}
	if at < 0 {
		t.Fatal("no COMM record")
	}
	binary.LittleEndian.PutUint16(d[at+6:], 9999)
	got, r, err := drain(d, true)
	ws := r.Meta().Warnings.List()
	if err != nil || len(got) != len(want) || len(ws) == 0 || ws[0].Key != "damaged-record-size" || !strings.Contains(ws[0].Message, fmt.Sprintf("type 3 at offset %d says 9999 bytes", at)) {
		t.Errorf("%d events (intact: %d), error %v, warnings %v; want all and the damaged size named", len(got), len(want), err, ws)
	}
}
