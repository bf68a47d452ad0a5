//go:build linux

package ebpf

import (
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/internal/cpulist"
)

// KickComm is the name of the threads kickCPUs runs (at most 15 bytes,
// TASK_COMM_LEN - 1): what their sched_switch events show.
const KickComm = "traceview-kick"

// kickTime is how long each kicker sleeps on its CPU: long enough that
// the task it displaced runs again before the kicker leaves (it wakes on
// another CPU's timer interrupt only if it must), short enough to cost
// nothing a workload notices. Chosen, not measured: 50 us.
const kickTime = 50_000 // ns

// kickCPUs makes each CPU of cpus (nil: every online CPU) switch once,
// at the start of a file: a thread pinned to it (sched_setaffinity of
// itself, which moves it there) runs, sleeps kickTime and ends, so the
// capture records a sched_switch out of whatever ran on the CPU and one
// back into it. Without it, a task that ran on a CPU for the whole file
// (a busy loop alone on its CPU never switches) left no event there: no
// row, and the CPU's time unknown; and each file of a rotated series,
// read alone, lost such a task's run. Each kicker is a thread of the
// recorder, named KickComm while it kicks, locked to its goroutine and
// ended with it (a thread whose affinity was changed never goes back to
// Go's pool). It returns the CPUs it could not kick (a cpuset that
// excludes them).
func kickCPUs(cpus []int) []int {
	if cpus == nil {
		b, err := os.ReadFile("/sys/devices/system/cpu/online")
		if err != nil {
			return nil
		}
		if cpus, err = cpulist.Parse(string(b)); err != nil {
			return nil
		}
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []int
	)
	for _, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			// Named KickComm while it kicks (the switch into it on the
			// CPU shows the name), then back to its own name: the thread
			// is one of the recorder's, whose earlier runs in the file are
			// its work, not the kick's.
			var old [16]byte
			unix.Prctl(unix.PR_GET_NAME, uintptr(unsafe.Pointer(&old[0])), 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&old[0])), 0, 0, 0)
			if name, err := unix.BytePtrFromString(KickComm); err == nil {
				unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0)
				runtime.KeepAlive(name)
			}
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				mu.Lock()
				failed = append(failed, cpu)
				mu.Unlock()
				return
			}
			ts := unix.NsecToTimespec(kickTime)
			unix.Nanosleep(&ts, nil)
		}()
	}
	wg.Wait()
	return failed
}
