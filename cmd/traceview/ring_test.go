package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/trace"
)

// delayedThread starts a thread named comm at nice 19 that sleeps 1 ms at
// a time, pinned with a nice-0 spinning thread to one CPU: each time it
// wakes, the spinner holds the CPU, and a nice-19 task weighs 15 against
// the spinner's 1024 (kernel/sched/core.c sched_prio_to_weight), so it
// waits for its turn far longer than it would on an idle CPU. It returns
// the thread's TID and stop, which ends both threads and waits until they
// are gone (also run at the test's end). Only a thread of that name left
// over from before can put its delay into a dump before the test starts
// the thread (a delay does not join a pending dump): seen as dump 2 of a
// TestRecordRing run holding a delay of tv-delayed, under -count on a
// loaded machine, where a closed stop left the nice-19 thread (pinned to
// a busy CPU) to exit whenever it next ran: under stress-ng --cpu 4, a
// build loop and SCHED_FIFO hogs, 54 s later.
func delayedThread(t *testing.T, comm string) (trace.TID, func()) {
	t.Helper()
	var set unix.CPUSet
	set.Set(0)
	stopc := make(chan struct{})
	tids := make(chan int, 2)
	go func() { // the spinner
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		unix.SchedSetaffinity(0, &set)
		tids <- unix.Gettid()
		for {
			select {
			case <-stopc:
				return
			default:
			}
			for i := 0; i < 1_000_000; i++ {
			}
		}
	}()
	tidc := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // and never unlocked: the thread dies with its name and nice
		unix.SchedSetaffinity(0, &set)
		name := append([]byte(comm), 0)
		unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0)
		unix.Setpriority(unix.PRIO_PROCESS, 0, 19)
		tid := unix.Gettid()
		tids <- tid
		tidc <- tid
		for {
			select {
			case <-stopc:
				return
			default:
			}
			time.Sleep(time.Millisecond)
		}
	}()
	tid := <-tidc
	var once sync.Once
	stop := func() {
		once.Do(func() {
			close(stopc)
			// Back to nice 0 on any CPU, so that it runs to its end soon:
			// at nice 19 on a CPU busy with others it took 54 s to exit
			// (under stress-ng --cpu 4, a build loop and SCHED_FIFO hogs).
			var all unix.CPUSet
			for c := 0; c < runtime.NumCPU(); c++ {
				all.Set(c)
			}
			unix.Setpriority(unix.PRIO_PROCESS, tid, 0)
			unix.SchedSetaffinity(tid, &all)
			began := time.Now()
			defer func() {
				t.Logf("the delayed pair was gone %v after its stop", time.Since(began).Round(time.Millisecond))
			}()
			for _, id := range []int{<-tids, <-tids} {
				if id == os.Getpid() {
					// The goroutine ran on the main thread, which the Go
					// runtime parks for good instead of ending when a
					// locked goroutine exits (runtime.LockOSThread: the
					// main thread cannot exit): it no longer runs the
					// loop, and its task entry stays.
					continue
				}
				task := fmt.Sprintf("/proc/self/task/%d", id)
				for i := 0; ; i++ {
					if _, err := os.Stat(task); os.IsNotExist(err) {
						break
					}
					if i > 600 {
						t.Errorf("thread %d of the delayed pair still runs 30 s after its stop", id)
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	t.Cleanup(stop)
	return trace.TID(tid), stop
}

// readDump reads a ring dump: its events and the messages of its
// "ring-dump" warnings.
func readDump(t *testing.T, path string) ([]trace.Event, []string) {
	t.Helper()
	evs, m := readAllEvents(t, path)
	var why []string
	for _, w := range m.Warnings.List() {
		if w.Key == "ring-dump" {
			why = append(why, w.Message)
		}
	}
	return evs, why
}

// firstTime is the time of the first timed event (the /proc names have 0).
func firstTime(evs []trace.Event) int64 {
	for _, e := range evs {
		if e.Time > 0 {
			return e.Time
		}
	}
	return 0
}

// TestRecordRing: record --ring 1s --post 200ms writes a dump on each of
// its three triggers, each a normal trace holding the second before its
// trigger and the 200 ms after it (checkSpan):
//   - a request on the --control socket, answered "wrote FILE" once the
//     dump is written;
//   - SIGUSR1;
//   - --trigger 'delay>3ms,comm=tv-delayed': a nice-19 thread of that name
//     sharing a CPU with a spinner (delayedThread) waits more than 3 ms
//     for the CPU; the dump holds that delay: the switch-in its warning
//     names, at least 3 ms after the thread became runnable (a wakeup, or
//     a switch-out while runnable).
//
// Files are 0600. Between the triggers the test's ping-pong threads keep
// events coming.
func TestRecordRing(t *testing.T) {
	requireCapture(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.tv")
	sock := filepath.Join(dir, "ctl.sock")
	stopPP := make(chan struct{})
	defer close(stopPP)
	go pingPongUntil(stopPP, 200*time.Microsecond)
	done := make(chan string)
	go func() {
		_, stderr, code := runCLI(t, "record", "--ring", "1s", "--post", "200ms", "--control", sock,
			"--trigger", "delay>3ms,comm=tv-delayed", "-o", out, "--duration", "60s")
		done <- fmt.Sprintf("exit %d: %s", code, stderr)
	}()
	// The socket is created once the capture runs, after the signal
	// handlers.
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i > 200 {
			t.Fatal("record did not create its control socket within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // loaded, and a ring of more than 1 s

	// 1. The socket.
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	asked := ebpf.Now()
	fmt.Fprintln(c, "dump")
	reply, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if want := "wrote " + ebpf.NumberedPath(out, 1) + "\n"; reply != want {
		t.Fatalf("control socket replied %q, want %q", reply, want)
	}
	evs, why := readDump(t, ebpf.NumberedPath(out, 1))
	if len(why) != 1 || !strings.Contains(why[0], "request on the control socket at ") {
		t.Fatalf("dump 1: reasons %q", why)
	}
	checkSpan(t, "dump 1", evs, triggerTime(t, why[0]), asked)
	// Every CPU ran the recorder's kicker inside the dump (the ring kicks
	// them every half --ring span: 500 ms here): a switch into it, or out
	// of it (the switch in can precede the window or be the one event of
	// its CPU the dump's start cut).
	kicked := map[trace.CPU]bool{}
	for _, e := range evs {
		if e.Kind == trace.KindSwitch && (e.NextComm == ebpf.KickComm || e.Comm == ebpf.KickComm) {
			kicked[e.CPU] = true
		}
	}
	if len(kicked) != runtime.NumCPU() {
		t.Errorf("dump 1: switches into or out of %s on CPUs %v, want all %d", ebpf.KickComm, kicked, runtime.NumCPU())
	}

	// 2. SIGUSR1.
	time.Sleep(300 * time.Millisecond)
	signalled := ebpf.Now()
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	waitFile(t, ebpf.NumberedPath(out, 2))

	// 3. The delay trigger.
	tid, stopD := delayedThread(t, "tv-delayed")
	waitFile(t, ebpf.NumberedPath(out, 3))
	stopD()

	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case res := <-done:
		// A 4th dump is a later delay of the thread (one a second at
		// most) before it stopped.
		var n int
		if i := strings.Index(res, " dumps,"); i > 0 {
			fmt.Sscan(res[strings.LastIndex(res[:i], " ")+1:i], &n)
		}
		if !strings.HasPrefix(res, "exit 0:") || n < 3 {
			t.Fatalf("record: %s", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("record did not stop on SIGINT")
	}

	evs, why = readDump(t, ebpf.NumberedPath(out, 2))
	if len(why) != 1 || !strings.HasPrefix(why[0], "flight-recorder dump: signal SIGUSR1 at ") {
		t.Fatalf("dump 2: reasons %q", why)
	}
	checkSpan(t, "dump 2", evs, triggerTime(t, why[0]), signalled)

	evs, why = readDump(t, ebpf.NumberedPath(out, 3))
	var at int64
	if len(why) != 1 || !strings.Contains(why[0], fmt.Sprintf("of tv-delayed:%d (> 3ms)", tid)) {
		t.Fatalf("dump 3: reasons %q, want the delay trigger on tv-delayed:%d", why, tid)
	}
	at = triggerTime(t, why[0])
	var runnable int64 = -1
	found := false
	for _, e := range evs {
		if e.Time > at {
			break
		}
		switch {
		case (e.Kind == trace.KindWaking || e.Kind == trace.KindWakeupNew) && e.TID == tid && runnable < 0:
			runnable = e.Time
		case e.Kind == trace.KindSwitch && e.TID == tid:
			runnable = -1
			if e.PrevState == trace.StateRunning || e.PrevState == trace.StatePreempted {
				runnable = e.Time
			}
		}
		if e.Kind == trace.KindSwitch && e.NextTID == tid && e.Time == at {
			found = runnable >= 0 && at-runnable > int64(3*time.Millisecond)
			runnable = -1
		}
	}
	if !found {
		t.Errorf("dump 3 lacks the triggering delay: no switch-in of %d at %d ns more than 3 ms after it became runnable", tid, at)
	}
	checkSpan(t, "dump 3", evs, at, at)
	for n := 1; n <= 3; n++ {
		if st, err := os.Stat(ebpf.NumberedPath(out, n)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("dump %d: %v, mode %v; want 0600", n, err, st.Mode().Perm())
		}
	}
}

// triggerTime reads the trigger time of a dump's reason ("... at S.NNNNNNNNN
// s" or "... ending at S.NNNNNNNNN s", seconds with 9 decimals) in ns.
func triggerTime(t *testing.T, why string) int64 {
	t.Helper()
	var sec, frac int64
	if i := strings.LastIndex(why, " at "); i < 0 {
		t.Fatalf("no trigger time in %q", why)
	} else if _, err := fmt.Sscanf(why[i+4:], "%d.%9d s", &sec, &frac); err != nil || !strings.HasSuffix(why, " s") || len(why)-i-4 < 12 {
		t.Fatalf("trigger time of %q: %v", why, err)
	}
	return sec*1_000_000_000 + frac
}

// checkSpan checks that a dump triggered at `at` (asked for at `asked`,
// CLOCK_MONOTONIC ns) holds the second before it and the 200 ms after:
// its first event at most one drain pass (50 ms) after at - 1 s (the ring
// evicts a batch only when its newest record is older than that), its
// last after at + 200 ms; the trigger itself within 2 s of the request.
func checkSpan(t *testing.T, name string, evs []trace.Event, at, asked int64) {
	t.Helper()
	const span, post, pass = int64(time.Second), int64(200 * time.Millisecond), int64(50 * time.Millisecond)
	if at < asked || at-asked > 2*span {
		t.Errorf("%s: triggered at %d ns, asked for at %d", name, at, asked)
	}
	if first, last := firstTime(evs), evs[len(evs)-1].Time; first == 0 || first > at-span+pass || last < at+post {
		t.Errorf("%s: events from %d to %d ns; want from <= %d (1 s before the trigger at %d) to >= %d (200 ms after)", name, first, last, at-span+pass, at, at+post)
	}
}

// waitFile waits up to 20 s for path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 400; i++ {
		if _, err := os.Stat(path); err == nil {
			time.Sleep(200 * time.Millisecond) // being written
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s not written within 20 s", path)
}
