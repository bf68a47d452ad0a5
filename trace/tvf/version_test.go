package tvf

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestVersionCheck: a header's format version above Version by at most
// maxVersionAhead (16) is a newer traceview's file (upgrade); 0, or one far
// above (2917007363 = 0xadde0003: version 3 with header bytes 10 and 11
// overwritten by de ad, as in a new-user test's mix.c10.tv), is a corrupt
// header that wraps trace.ErrCorrupt and gives no upgrade advice.
func TestVersionCheck(t *testing.T) {
	for _, c := range []struct {
		version uint32
		want    string
		corrupt bool
	}{
		{Version + 1, "format version 5, this traceview reads 1..4 (upgrade traceview)", false},
		{Version + 16, "format version 20, this traceview reads 1..4 (upgrade traceview)", false},
		{Version + 17, "corrupt header (format version 21: no traceview writes it; this one reads 1..4)", true},
		{2917007363, "corrupt header (format version 2917007363: no traceview writes it; this one reads 1..4)", true},
		{0, "corrupt header (format version 0: no traceview writes it; this one reads 1..4)", true},
	} {
		head := make([]byte, 12)
		copy(head, Magic)
		binary.LittleEndian.PutUint32(head[8:], c.version)
		_, err := NewReader(strings.NewReader(string(head)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("version %d: error %v, want %q", c.version, err, c.want)
			continue
		}
		if errors.Is(err, trace.ErrCorrupt) != c.corrupt {
			t.Errorf("version %d: errors.Is(err, trace.ErrCorrupt) = %v, want %v", c.version, !c.corrupt, c.corrupt)
		}
		if c.corrupt && strings.Contains(err.Error(), "upgrade") {
			t.Errorf("version %d: %v advises an upgrade", c.version, err)
		}
	}
}
