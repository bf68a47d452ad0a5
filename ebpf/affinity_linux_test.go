//go:build linux

package ebpf

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPinProcess: after PinProcess([]int{c}) every thread of the process
// (each /proc/self/task entry) may run on c only; the function it returns
// gives them back the old mask. Needs two CPUs or more in the test's mask.
func TestPinProcess(t *testing.T) {
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	if mask.Count() < 2 {
		t.Skip("one CPU: nothing to pin away from")
	}
	c := -1
	for i := 0; i < 1024 && c < 0; i++ {
		if mask.IsSet(i) {
			c = i
		}
	}
	restore, err := PinProcess([]int{c})
	if err != nil {
		t.Fatal(err)
	}
	threads := func(check func(tid int, m unix.CPUSet)) {
		ents, _ := os.ReadDir("/proc/self/task")
		for _, e := range ents {
			tid, _ := strconv.Atoi(e.Name())
			var m unix.CPUSet
			if unix.SchedGetaffinity(tid, &m) == nil {
				check(tid, m)
			}
		}
	}
	threads(func(tid int, m unix.CPUSet) {
		if m.Count() != 1 || !m.IsSet(c) {
			t.Errorf("thread %d: %d CPUs allowed, want only CPU %d", tid, m.Count(), c)
		}
	})
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	threads(func(tid int, m unix.CPUSet) {
		if m != mask {
			t.Errorf("thread %d: mask not restored", tid)
		}
	})
}
