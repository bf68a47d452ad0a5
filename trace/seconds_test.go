package trace

import (
	"math"
	"testing"
)

// TestFormatSeconds: positive and negative times, truncated toward zero;
// the out-of-order warning printed -1 ns as "0.-00000001 s".
func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		ns     int64
		digits int
		want   string
	}{
		{0, 9, "0.000000000"},
		{1, 9, "0.000000001"},
		{-1, 9, "-0.000000001"},
		{1500000000, 6, "1.500000"},
		{-1500000000, 6, "-1.500000"},
		{754328751999, 6, "754.328751"}, // truncated, as perf prints
		{-754328751999, 6, "-754.328751"},
		{-999, 6, "-0.000000"},
		{2999999999, 0, "2"},
		{1234567891, 12, "1.234567891"}, // digits clamped to 9
		{math.MaxInt64, 9, "9223372036.854775807"},
		{math.MinInt64, 9, "-9223372036.854775808"},
	} {
		if got := FormatSeconds(c.ns, c.digits); got != c.want {
			t.Errorf("FormatSeconds(%d, %d) = %q, want %q", c.ns, c.digits, got, c.want)
		}
	}
}
