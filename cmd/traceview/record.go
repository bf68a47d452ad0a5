package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

type recordOptions struct {
	output     string
	all        bool
	cpus       string
	duration   time.Duration
	bufferSize string
	classic    bool
	stacks     bool
}

func init() {
	addCommand(func() *cobra.Command {
		var o recordOptions
		cmd := &cobra.Command{
			Use:   "record [-o FILE] [-a] [--cpu LIST] [--duration D] [--buffer-size SIZE] [-- COMMAND ARGS...]",
			Short: "Capture scheduler events with eBPF (like 'perf sched record', cheaper)",
			Long: `Capture the scheduler events of the whole system with eBPF into traceview's
own compact format (docs/format.md), like 'perf sched record': sched_switch,
sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task and process
fork, exec and exit, sched_stat_runtime (CPU time charged, the Runtime of
'traceview latency') and task renames. Beyond perf, every wakeup records its waker (thread id
and CPU) and whether it came from interrupt context.

Recording is system-wide (-a is the default and accepted for perf's sake).
It runs COMMAND and stops when it exits, or stops after --duration, or on
SIGINT (Ctrl-C) or SIGTERM; in every case every record already drained is
written and the file is closed properly (a second Ctrl-C stops at once,
keeping what was written). It exits with COMMAND's status, as perf record
does; if the capture fails (say, the disk fills up) COMMAND gets SIGTERM. At the end it prints the events,
bytes and losses: records the kernel could not queue because a CPU's perf
buffer was full are counted per CPU, stored in the file and reported by
every command that reads it (raise --buffer-size if any are lost).

Needs root and a kernel with BTF (/sys/kernel/btf/vmlinux); on kernels
without BTF-enabled tracepoints (or BPF task storage, Linux < 5.11) it uses
classic tracepoints, which need tracefs mounted
(mount -t tracefs nodev /sys/kernel/tracing).

--stacks (-g) records, at each switch-out, the kernel and user stack of the
task leaving the CPU (a BPF stack map, up to 127 frames each); kernel frames
are named at the end through /proc/kallsyms, user frames keep their
addresses. 'traceview timehist' prints them after each row and 'traceview
export --format pprof' gives off-CPU time by stack (blocked, runqueue).

-o - writes the trace to standard output (the format streams), for a pipe
into another command; COMMAND's standard output then goes to standard error
so that it does not mix with the trace. Without -o (and without -i), the
commands that read a trace read perf.data if there is one, else the newest
*.tv in the directory, and say which on stderr.

Example:
  sudo traceview record -o t.tv -- perf bench sched messaging
  traceview latency -i t.tv
  sudo traceview record -o - -- perf bench sched pipe -l 2000 | traceview latency -i -
  sudo traceview record --stacks -o g.tv -- perf bench sched pipe -l 2000 && traceview timehist -i g.tv | head
  sudo traceview record --cpu 0-1 --duration 5s -o idle.tv`,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runRecord(cmd, o, args)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.output, "output", "o", "trace.tv", "file to write (- for standard output)")
		f.BoolVarP(&o.all, "all-cpus", "a", true, "record system-wide (the default)")
		f.StringVarP(&o.cpus, "cpu", "C", "", "record only events on these CPUs, e.g. 0,2-3")
		f.DurationVarP(&o.duration, "duration", "d", 0, "stop after this long, e.g. 10s (0: until COMMAND exits or a signal)")
		f.StringVarP(&o.bufferSize, "buffer-size", "m", "32M", "total size of the per-CPU buffers in bytes, with K, M or G suffix (each CPU's share rounded up to a power of two, at least 256K)")
		f.BoolVar(&o.classic, "classic", false, "use classic tracepoints even where BTF-enabled ones exist")
		f.BoolVarP(&o.stacks, "stacks", "g", false, "record the kernel and user stack of each task leaving a CPU (kernel frames named at the end through /proc/kallsyms)")
		return cmd
	})
}

// parseSize parses "16M", "512K", "1G", "65536" (binary units, optional
// "B"/"iB") into bytes.
func parseSize(s string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := 1
	switch {
	case strings.HasSuffix(t, "K"):
		mult = 1 << 10
	case strings.HasSuffix(t, "M"):
		mult = 1 << 20
	case strings.HasSuffix(t, "G"):
		mult = 1 << 30
	}
	if mult > 1 {
		t = t[:len(t)-1]
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n > (4<<30)/mult {
		return 0, fmt.Errorf("bad size %q (want e.g. 16M, at most 4G)", s)
	}
	return n * mult, nil
}

func recordHeader(mode string) tvf.Header {
	h := tvf.Header{
		Tool:      "traceview record (" + mode + ")",
		Cmdline:   os.Args,
		NrCPUs:    runtime.NumCPU(),
		Clock:     "CLOCK_MONOTONIC (bpf_ktime_get_ns)",
		StartWall: time.Now().UnixNano(),
	}
	if n, err := onlineCPUs(); err == nil {
		h.NrCPUs = n
	}
	h.NrCPUsAvail = h.NrCPUs
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Hostname = unix.ByteSliceToString(u.Nodename[:])
		h.OSRelease = unix.ByteSliceToString(u.Release[:])
		h.Arch = unix.ByteSliceToString(u.Machine[:])
	}
	return h
}

// onlineCPUs counts /sys/devices/system/cpu/online ("0-1,4").
func onlineCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 0, err
	}
	l, err := cpulist.Parse(string(b))
	return len(l), err
}

// taskCommLen is the kernel's TASK_COMM_LEN (16, include/linux/sched.h):
// task names are at most taskCommLen-1 = 15 bytes, as the sched
// tracepoints and perf's COMM records give them.
const taskCommLen = 16

// procComm turns the content of /proc/PID/task/TID/comm into a task name
// of at most 15 bytes, without the newline, as perf's synthesized COMM
// records hold it. The kernel's /proc comm of a kworker adds its workqueue
// ("kworker/u8:0-events_unbound", fs/proc/array.c proc_task_name via
// wq_worker_comm); cut, it becomes "kworker/u8:0-ev" like perf's, while
// the sched tracepoints give the task's own comm, "kworker/u8:0".
func procComm(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	if len(s) > taskCommLen-1 {
		s = s[:taskCommLen-1]
	}
	return s
}

// addProcTasks names every thread of proc (the /proc mount) at the start of
// the capture, as perf's synthesized COMM records do: a comm event (time 0,
// CPU -1, the convention of perf.data's synthesized records) per thread,
// and an entry in the task table. Threads that never rename during the
// capture (task names set by prctl before it started) get their names this
// way. Names are cut to 15 bytes (procComm).
func addProcTasks(w *tvf.Writer, proc string) error {
	comms, _ := filepath.Glob(filepath.Join(proc, "[0-9]*", "task", "[0-9]*", "comm"))
	type entry struct {
		tid  trace.TID
		pid  trace.PID
		comm string
	}
	var list []entry
	for _, p := range comms {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		taskDir := filepath.Dir(p) // proc/PID/task/TID
		tid, err1 := strconv.Atoi(filepath.Base(taskDir))
		pid, err2 := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(taskDir))))
		if err1 == nil && err2 == nil {
			list = append(list, entry{trace.TID(tid), trace.PID(pid), procComm(b)})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].tid < list[j].tid })
	for _, t := range list {
		w.AddTask(t.tid, t.pid, t.comm)
		e := trace.NewEvent(0, -1, trace.KindComm)
		e.TID, e.PID, e.Comm = t.tid, t.pid, t.comm
		if err := w.Write(e); err != nil {
			return err
		}
	}
	return nil
}

func runRecord(cmd *cobra.Command, o recordOptions, args []string) error {
	// The backlog (records kept raw until the capture stops, so the
	// decoding and encoding do not compete with the traced workload) goes
	// in an unnamed file beside the output.
	toStdout := o.output == "-"
	opts := ebpf.Options{Classic: o.classic, SpillDir: filepath.Dir(o.output), Stacks: o.stacks}
	if toStdout {
		opts.SpillDir = os.TempDir()
		if f, ok := cmd.OutOrStdout().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usageErrorf("record: -o -: the trace is binary; pipe it into a command (traceview latency -i -) or give a file")
		}
	}
	var err error
	if o.cpus != "" {
		if opts.CPUs, err = cpulist.Parse(o.cpus); err != nil {
			return usageErrorf("record: --cpu: %v", err)
		}
		if n, err := ebpf.PossibleCPUs(); err == nil {
			for _, c := range opts.CPUs {
				if c >= n {
					return usageErrorf("record: --cpu: CPU %d does not exist (this machine's CPUs are 0-%d)", c, n-1)
				}
			}
		}
	}
	if opts.BufferSize, err = parseSize(o.bufferSize); err != nil {
		return usageErrorf("record: --buffer-size: %v", err)
	}
	if o.duration < 0 {
		return usageErrorf("record: --duration must be positive, got %v", o.duration)
	}
	if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
		return usageErrorf("record: put the command after --, e.g. traceview record -- %s", strings.Join(args, " "))
	}
	if len(args) > 0 {
		// Before anything is loaded or the output truncated: a command
		// that cannot start must not cost the user an existing file.
		if _, err := exec.LookPath(args[0]); err != nil {
			return fmt.Errorf("record: start %s: %w", args[0], err)
		}
	}
	stderr := cmd.ErrOrStderr()
	// Catch SIGINT/SIGTERM from here on: one that arrives while the
	// programs load waits in the channel and stops the capture at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	capture, err := ebpf.Open(opts)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer capture.Close()
	var out io.Writer
	outName := o.output
	closeOut := func() error { return nil }
	if toStdout {
		out, outName = cmd.OutOrStdout(), "standard output"
	} else {
		f, err := os.Create(o.output)
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		defer f.Close()
		out, closeOut = f, f.Close
	}
	w, err := tvf.NewWriter(out, recordHeader(capture.Mode()))
	if err != nil {
		return fmt.Errorf("record: %s: %w", o.output, err)
	}
	if err := addProcTasks(w, "/proc"); err != nil {
		return fmt.Errorf("record: %s: %w", o.output, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if o.duration > 0 {
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	var child *exec.Cmd
	childDone := make(chan error, 1)
	if len(args) > 0 {
		child = exec.Command(args[0], args[1:]...)
		child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
		if toStdout {
			child.Stdout = os.Stderr // the trace has standard output
		}
		if err := child.Start(); err != nil {
			return fmt.Errorf("record: start %s: %w", args[0], err)
		}
		go func() { childDone <- child.Wait() }()
	}
	// The watcher stops the capture when the command exits or a signal
	// comes (passed on to the command), and reports what it saw once the
	// capture is over.
	type watched struct {
		childErr  error
		exited    bool      // the command exited (childErr is its status)
		forwarded os.Signal // the signal passed on to the command, if any
	}
	watchDone := make(chan watched, 1)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		var res watched
		select {
		case s := <-sigs:
			res.forwarded = s
			if child != nil && child.Process != nil {
				child.Process.Signal(s)
			}
			cancel()
			watchDone <- res
			// A second signal while the rest is drained and written: stop
			// at once; the file holds every frame written so far.
			select {
			case <-sigs:
				fmt.Fprintf(stderr, "traceview: record: second %v: stopping without draining; %s keeps what was written so far\n", s, outName)
				os.Exit(130)
			case <-finished:
			}
			return
		case res.childErr = <-childDone:
			res.exited = true
			cancel()
		case <-ctx.Done():
		}
		watchDone <- res
	}()

	start := time.Now()
	lastOnCPU := map[trace.CPU]int64{}
	var windows []trace.LostWindow
	cgroups := map[uint64]bool{}
	err = capture.Run(ctx, func(e trace.Event) error {
		if e.Cgroup != 0 {
			cgroups[e.Cgroup] = true
		}
		if e.Kind == trace.KindLost {
			from, ok := lastOnCPU[e.CPU]
			if !ok {
				from = e.Time
			}
			windows = append(windows, trace.LostWindow{CPU: e.CPU, Count: e.Count, Start: from, End: e.Time})
		} else {
			lastOnCPU[e.CPU] = e.Time
		}
		return w.Write(e)
	})
	elapsed := time.Since(start)
	cancel() // the watcher returns if it still waits
	res := <-watchDone
	childErr, childExited, forwarded := res.childErr, res.exited, res.forwarded
	if err != nil && child != nil && !childExited && child.Process != nil {
		// The capture failed (e.g. the output filled up): the command
		// must not go on untraced as if nothing happened.
		child.Process.Signal(syscall.SIGTERM)
		fmt.Fprintf(stderr, "traceview: record: sent SIGTERM to %s: the capture failed\n", args[0])
	}
	if child != nil && !childExited {
		// Stopped by a signal or --duration: the command was signalled (or
		// is still running after --duration, like perf we leave it).
		select {
		case childErr = <-childDone:
		case <-time.After(100 * time.Millisecond):
		}
	}
	w.SetLost(windows)
	w.SetCgroups(ebpf.ResolveCgroups(ebpf.CgroupRoot(), cgroups))
	w.SetStacks(capture.Stacks())
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := closeOut(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record: %s: %w", outName, err)
	}
	printRecordSummary(stderr, outName, w, elapsed)
	var exitErr *exec.ExitError
	if errors.As(childErr, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if forwarded != nil {
				fmt.Fprintf(stderr, "note: %s stopped by %v\n", args[0], ws.Signal())
				return nil
			}
			return statusError{fmt.Errorf("record: %s was killed by %v", args[0], ws.Signal()), 128 + int(ws.Signal())}
		}
		// Like perf record: the command's own status.
		return statusError{fmt.Errorf("record: %s exited with status %d", args[0], exitErr.ExitCode()), exitErr.ExitCode()}
	}
	return nil
}

func printRecordSummary(out io.Writer, path string, w *tvf.Writer, elapsed time.Duration) {
	n, size := w.Events(), w.Bytes()
	var total uint64
	var per []string
	for cpu, l := range w.Lost() {
		total += l
		if l > 0 {
			per = append(per, fmt.Sprintf("CPU %d: %d", cpu, l))
		}
	}
	fmt.Fprintf(out, "[ traceview record: %d events in %.3f s, wrote %d bytes (%.2f MiB, %.1f bytes/event) to %s ]\n",
		n, elapsed.Seconds(), size, float64(size)/(1<<20), perEvent(size, n), path)
	if total == 0 {
		fmt.Fprintf(out, "[ traceview record: 0 events lost ]\n")
	} else {
		fmt.Fprintf(out, "[ traceview record: %d events LOST (%s): raise --buffer-size ]\n", total, strings.Join(per, ", "))
	}
}
