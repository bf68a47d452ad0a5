package pagetouch

import (
	"testing"
	"unsafe"
)

// Touching writes zeros only: the memory stays all zero, at its ends too,
// whatever its size and element type.
func TestTouchLeavesZero(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 3 << 20} {
		b := make([]byte, n)
		Slice(b)
		for i, c := range b {
			if c != 0 {
				t.Fatalf("%d bytes: byte %d is %d", n, i, c)
			}
		}
	}
	type ev struct {
		s string
		p *int
		n int64
	}
	evs := make([]ev, 1000)
	Slice(evs)
	Bytes(unsafe.Pointer(&evs[0]), 0)
	for i, e := range evs {
		if e != (ev{}) {
			t.Fatalf("element %d: %+v", i, e)
		}
	}
}
