//go:build linux

package ebpf

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// PinProcess restricts every thread of this process to cpus
// (sched_setaffinity on each thread of /proc/self/task: the call sets one
// thread's mask; threads created later inherit their creator's) and
// returns a function that gives them back the mask the calling thread had.
// record uses it to keep its own work off the CPUs a --cpu capture
// watches (processes it starts afterwards would inherit the mask: start
// them first).
func PinProcess(cpus []int) (restore func() error, err error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := setAllThreads(&set); err != nil {
		setAllThreads(&old)
		return nil, err
	}
	return func() error { return setAllThreads(&old) }, nil
}

// setAllThreads sets every thread's mask to set. A thread created during
// a pass, by one not yet set, inherits the old mask and is not in the
// list read (the Go runtime starts threads at any time: a CI run saw one
// on CPU 0 through record -C 0), so the list is read again until a pass
// finds no thread it had not set (at most setPasses passes).
func setAllThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for pass := 0; pass < setPasses; pass++ {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh = true
			done[tid] = true
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("sched_setaffinity of thread %d: %w", tid, err)
			}
		}
		if !fresh {
			return nil
		}
	}
	return nil
}

// setPasses bounds setAllThreads' passes over the thread list: the
// runtime starts a handful of threads at most while a pass runs, so a
// pass finding none new comes within two or three.
const setPasses = 10
