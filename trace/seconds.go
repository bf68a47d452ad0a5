package trace

import "strconv"

// FormatSeconds prints ns nanoseconds as seconds with digits decimals (0 to
// 9, clamped), truncated toward zero as perf prints its times: 1500000000
// ns is "1.500000" with 6 digits. A negative time has a minus sign in
// front, -1 ns being "-0.000000001" with 9 digits ("%d.%09d" of ns/1e9 and
// ns%1e9 printed "0.-00000001"), and math.MinInt64 is printed exactly.
func FormatSeconds(ns int64, digits int) string {
	digits = min(max(digits, 0), 9)
	u := uint64(ns)
	sign := ""
	if ns < 0 {
		sign, u = "-", -u // two's complement: right for math.MinInt64 too
	}
	s := sign + strconv.FormatUint(u/1e9, 10)
	if digits == 0 {
		return s
	}
	frac := strconv.FormatUint(u%1e9+1e9, 10)[1:] // 9 digits, leading zeros kept
	return s + "." + frac[:digits]
}
