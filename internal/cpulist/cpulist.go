// Package cpulist parses and prints CPU lists in the kernel's list format
// ("0-3,6", as /sys/devices/system/cpu/online prints it and `taskset -c`,
// `perf -C` and the kernel's bitmap_parselist in lib/bitmap-str.c accept it,
// without the stride form "0-7:2/4"). It is the one parser of such lists for
// the command line (record -C, timehist -C, map --cpus, replay --affinity),
// the capture code and the scheduling policies.
package cpulist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU is the highest CPU number a list may name: 8191, one less than the
// largest CONFIG_NR_CPUS the kernel allows (8192: arch/x86/Kconfig
// NR_CPUS_RANGE_END with MAXSMP, Linux 6.12; arm64 and powerpc stop at
// 4096 and 8192).
const MaxCPU = 8191

// Parse parses a CPU list such as "0,2-3" (surrounding white space and a
// trailing newline, as read from sysfs, are ignored) into the distinct CPU
// numbers it names, ascending. Every CPU must be in 0..MaxCPU. Errors: an
// empty list, a part that is not a number or a range, a reversed range, a
// CPU above MaxCPU; the message quotes the bad part.
func Parse(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CPU list")
	}
	cpus, err := ParseInts(s, 0, MaxCPU)
	if err != nil {
		return nil, err
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// ParseInts parses a list of integers and integer ranges "1,3,5-7" (the
// same syntax, also used for PIDs and priorities) into its values in the
// order written, ranges expanded, each within lo..hi. "" gives nil, nil.
// Errors name the bad part: `"x" is not a number`, `"3-1" is a reversed
// range (did you mean 1-3?)`, `"140" is outside 0-139`.
func ParseInts(s string, lo, hi int) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(a)
		if _, nerr := strconv.Atoi(b); a == "" && isRange && nerr == nil {
			// "-1": a negative number (new-user pass 29 F11 read "not a
			// number").
			return nil, fmt.Errorf("%q is outside %d-%d (negative)", part, lo, hi)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", part)
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(b); err != nil {
				return nil, fmt.Errorf("%q is not a range", part)
			}
		}
		if last < first {
			return nil, fmt.Errorf("%q is a reversed range (did you mean %d-%d?)", part, last, first)
		}
		if first < lo || last > hi {
			return nil, fmt.Errorf("%q is outside %d-%d", part, lo, hi)
		}
		for v := first; v <= last; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

// Format prints CPU numbers as a list with runs joined into ranges:
// {0, 1, 2, 5} gives "0-2,5". cpus must be ascending and distinct (as
// Parse returns them); nil gives "". T is int or a CPU number type such
// as trace.CPU.
func Format[T ~int | ~int32](cpus []T) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(cpus[i])))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(int(cpus[j])))
		}
		i = j + 1
	}
	return b.String()
}
