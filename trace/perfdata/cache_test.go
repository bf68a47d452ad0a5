package perfdata

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace"
)

// cacheSection builds a HEADER_CACHE section of version v: level, type and
// map of each cache (line size, sets, ways and size are filler).
func cacheSection(v uint32, caches ...[3]string) []byte {
	o := binary.LittleEndian
	b := o.AppendUint32(nil, v)
	b = o.AppendUint32(b, uint32(len(caches)))
	str := func(s string) {
		n := (len(s) + 1 + 7) &^ 7
		b = o.AppendUint32(b, uint32(n))
		b = append(b, s...)
		b = append(b, make([]byte, n-len(s))...)
	}
	for _, c := range caches {
		b = o.AppendUint32(b, uint32(c[0][0]-'0'))
		b = o.AppendUint32(b, 64)
		b = o.AppendUint32(b, 1024)
		b = o.AppendUint32(b, 8)
		str(c[1])
		str("32K")
		str(c[2])
	}
	return b
}

func TestParseCaches(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want []string
		bad  bool
	}{
		{"one L3 of two CPUs (this VM)", cacheSection(1, [3]string{"1", "Data", "0"}, [3]string{"1", "Instruction", "0"},
			[3]string{"2", "Unified", "0"}, [3]string{"2", "Unified", "1"}, [3]string{"3", "Unified", "0-1"}), []string{"0-1"}, false},
		{"two L3s", cacheSection(1, [3]string{"2", "Unified", "0"}, [3]string{"3", "Unified", "0-3"},
			[3]string{"3", "Unified", "4-7"}, [3]string{"3", "Unified", "0-3"}), []string{"0-3", "4-7"}, false},
		{"instruction caches only at the top", cacheSection(1, [3]string{"2", "Data", "0,1"}, [3]string{"3", "Instruction", "0-1"}), []string{"0,1"}, false},
		{"unknown version", cacheSection(2, [3]string{"3", "Unified", "0-1"}), nil, false},
		{"truncated", cacheSection(1, [3]string{"3", "Unified", "0-1"})[:30], nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur := &cursor{b: c.b, order: binary.LittleEndian, what: "feature cache"}
			got := parseCaches(cur)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("LLCs (-want +got):\n%s", d)
			}
			if bad := cur.err != nil; bad != c.bad || bad && !errors.Is(cur.err, trace.ErrCorrupt) {
				t.Errorf("error %v, want one: %v", cur.err, c.bad)
			}
		})
	}
}

// perf record writes HEADER_CACHE: the recordings of testdata (made on a
// 2-vCPU VM whose one L3 both CPUs share) say so.
func TestCacheFeature(t *testing.T) {
	r := openReader(t, "../../testdata/traces/messaging.2cpu.perf.data")
	defer r.Close()
	m := r.Meta()
	if d := cmp.Diff([]string{"0-1"}, m.LLCs); d != "" || m.LLCSize() != 2 {
		t.Errorf("LLCs %q, LLCSize %d; want [0-1], 2", m.LLCs, m.LLCSize())
	}
}
