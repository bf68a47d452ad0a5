package report

import "slices"

// radixMin is the length from which sortDelays sorts by radix: below it
// pdqsort (slices.Sort) is as fast and needs no second buffer.
const radixMin = 1 << 14

// sortDelays sorts s ascending, as slices.Sort does (integers: the
// result is the same whatever the algorithm). A long one (a command's
// delays merged from its tasks: a million on bench/replaymem's messaging
// file, where slices.Sort took 70-80 ms) is sorted by an LSD radix sort
// on bytes, skipping the bytes all values share (delays below 2^40 ns
// leave three of the eight), through a buffer of s's length.
func sortDelays(s []int64) {
	if len(s) < radixMin {
		slices.Sort(s)
		return
	}
	// Keys are the values with the sign bit flipped: unsigned order is
	// then the signed order.
	const flip = uint64(1) << 63
	var count [8][256]int
	for _, v := range s {
		k := uint64(v) ^ flip
		for d := range 8 {
			count[d][byte(k>>(8*d))]++
		}
	}
	src, dst := s, make([]int64, len(s))
	for d := range 8 {
		c := &count[d]
		if c[byte((uint64(s[0])^flip)>>(8*d))] == len(s) {
			continue // every value has this byte
		}
		pos := 0
		for b := range c {
			pos, c[b] = pos+c[b], pos
		}
		shift := 8 * d
		for _, v := range src {
			b := byte((uint64(v) ^ flip) >> shift)
			dst[c[b]] = v
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}
