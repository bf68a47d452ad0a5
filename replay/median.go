package replay

// median returns the upper median of v (the element at len(v)/2 of v
// sorted), 0 for none; v is left as it was.
func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	return nth(append([]int64(nil), v...), len(v)/2)
}

// nth returns the element at index k of s sorted ascending, reordering s:
// a quickselect (Hoare's FIND), linear on average where a sort was
// n log n (the medians of measureSlope were a tenth of a large replay).
func nth(s []int64, k int) int64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot; Hoare partition.
		mid := lo + (hi-lo)/2
		a, b, c := s[lo], s[mid], s[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for s[j] > p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k] // between the parts: equal to the pivot
		}
	}
	return s[k]
}

// mad returns the median of v and the median absolute deviation from it.
func mad(v []int64) (med, dev int64) {
	if len(v) == 0 {
		return 0, 0
	}
	med = median(v)
	d := make([]int64, len(v))
	for k, x := range v {
		d[k] = max(x-med, med-x)
	}
	return med, median(d)
}

// medianInto is median using buf (returned, grown as needed) for its
// copy of v instead of a new slice.
func medianInto(v, buf []int64) (int64, []int64) {
	if len(v) == 0 {
		return 0, buf
	}
	buf = append(buf[:0], v...)
	return nth(buf, len(v)/2), buf
}

// madInto is mad using buf (returned, grown as needed) for its copies of
// v instead of new slices.
func madInto(v, buf []int64) (med, dev int64, _ []int64) {
	if len(v) == 0 {
		return 0, 0, buf
	}
	med, buf = medianInto(v, buf)
	buf = buf[:0]
	for _, x := range v {
		buf = append(buf, max(x-med, med-x))
	}
	return med, nth(buf, len(buf)/2), buf
}
