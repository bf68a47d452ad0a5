// Package pagetouch writes every page of freshly allocated memory once, so
// that the kernel backs it with a page of its own at the first touch.
//
// Memory fresh from the kernel that is read before it is written (the Go
// garbage collector scans a pointer-holding buffer that nothing has filled
// yet) is mapped to the shared zero page; the first write to each such page
// then costs a copy-on-write fault, and replacing the zero page's entry
// flushes the TLB of every CPU running the process: an inter-processor
// interrupt per page, on a VM a hypervisor exit (do_wp_page ->
// flush_tlb_mm_range, 6% of a `traceview latency` run on the bench file of
// docs/latency.md). A write first costs an ordinary fault and no flush.
package pagetouch

import "unsafe"

// pageSize is the smallest page size of the platforms Go runs on; touching
// more often than the real page size costs a few stores, not faults.
const pageSize = 4096

// Slice writes a zero into every page of s, which must be all zero (fresh
// from make or new).
func Slice[T any](s []T) {
	if len(s) == 0 {
		return
	}
	Bytes(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*unsafe.Sizeof(s[0]))
}

// Bytes writes a zero into every page of the n bytes at p, which must be
// zero.
func Bytes(p unsafe.Pointer, n uintptr) {
	b := unsafe.Slice((*byte)(p), n)
	for i := 0; i < len(b); i += pageSize {
		b[i] = 0
	}
	if n > 0 {
		b[n-1] = 0
	}
}
