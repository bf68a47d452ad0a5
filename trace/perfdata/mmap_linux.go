//go:build linux

package perfdata

import (
	"os"
	"syscall"
)

// mapSection maps n bytes of f from offset off read-only (mmap(2)), so that
// records are decoded in place: no read(2) copy into a buffer, no buffer
// copy into a record. The mapping m starts at the page boundary below off:
// the section is m[skew:]. ok is false when the file cannot be mapped (the
// caller then reads it). Release m with unmapSection; nothing may use its
// bytes after that.
func mapSection(f *os.File, off, n int64) (m []byte, skew int, ok bool) {
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	size := off - start + n
	if n <= 0 || int64(int(size)) != size {
		return nil, 0, false
	}
	m, err := syscall.Mmap(int(f.Fd()), start, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, 0, false
	}
	// The reader goes through the file once, front to back.
	_ = syscall.Madvise(m, syscall.MADV_SEQUENTIAL)
	return m, int(off - start), true
}

func unmapSection(m []byte) { _ = syscall.Munmap(m) }

// dropMapped tells the kernel that the pages of the mapping m from offset
// from (a page boundary) to upto (rounded down to a page) will not be read
// again (madvise(2)
// MADV_DONTNEED): they leave the process's resident set while the page cache
// keeps them (a later read faults them back in), so reading a large file
// costs no more resident memory than reading it through a buffer. It
// returns the offset dropped up to.
func dropMapped(m []byte, from, upto int) int {
	upto &^= os.Getpagesize() - 1
	if upto <= from {
		return from
	}
	_ = syscall.Madvise(m[from:upto], syscall.MADV_DONTNEED)
	return upto
}

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14,
// include/uapi/asm-generic/mman-common.h): map the pages of a range in
// one call, as reading them would fault them in.
const madvPopulateRead = 22

// populateMapped maps the pages of m from offset from up to upto (both
// rounded down to a page) ahead of the reader: one madvise call instead of
// a page fault per 16 pages (the kernel's fault-around), about 13,000 faults
// on a 222 MB file. It returns the offset populated up to; an old kernel's
// EINVAL leaves the faults to the reads.
func populateMapped(m []byte, from, upto int) int {
	page := os.Getpagesize()
	from &^= page - 1
	upto = min(upto, len(m)) &^ (page - 1)
	if upto <= from {
		return from
	}
	_ = syscall.Madvise(m[from:upto], madvPopulateRead)
	return upto
}
