package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/duration"
)

type recordOptions struct {
	output     string
	all        bool
	cpus       string
	duration   time.Duration
	bufferSize string
	backlog    string
	classic    bool
	stacks     bool
	wakeups    bool
	runtime    bool
	rotate     string
	ring       string
	post       time.Duration
	trigger    string
	control    string
}

func init() {
	addCommand(func() *cobra.Command {
		var o recordOptions
		cmd := &cobra.Command{
			Use:   "record [-o FILE] [-a] [--cpu LIST] [--duration D] [--buffer-size SIZE] [--wakeups] [--runtime] [-g] [--rotate SIZE|D] [--ring D|SIZE [--post D] [--trigger COND] [--control SOCKET]] [-- COMMAND ARGS...]",
			Short: "Capture scheduler events with eBPF (like 'perf sched record', cheaper)",
			Long:  helpText("record"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runRecord(cmd, o, args)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.output, "output", "o", "trace.tv", "file to write (- for standard output)")
		f.BoolVarP(&o.all, "all-cpus", "a", true, "record system-wide (the default)")
		f.StringVarP(&o.cpus, "cpu", "C", "", "record only events on these CPUs, e.g. 0,2-3 (the recorder itself then runs on the other CPUs, if any)")
		f.DurationVarP(&o.duration, "duration", "d", 0, "stop after this long, e.g. 10s (0: until COMMAND exits or a signal)")
		f.StringVarP(&o.bufferSize, "buffer-size", "m", "32M", "total size of the per-CPU buffers in bytes, with K, M or G suffix (each CPU's share rounded up to a power of two, at least 256K)")
		f.StringVar(&o.backlog, "backlog", "", "raw records held back while recording, decoded and encoded only when the capture stops or beyond this size (16M in memory, the rest in an unnamed file beside the output), e.g. 64M (default 512M); a recorder killed hard loses them: 64K writes nearly all as it goes")
		f.BoolVar(&o.classic, "classic", false, "use classic tracepoints even where BTF-enabled ones exist")
		f.StringVar(&o.rotate, "rotate", "", "write a numbered series (FILE.001.tv, ...), a new file after this much trace time or this many bytes (at least 64K), e.g. 1m or 256M")
		f.StringVar(&o.ring, "ring", "", "flight recorder: keep the last DURATION (or SIZE of compressed records) in memory and write it only when triggered (SIGUSR1, SIGHUP, --control, --trigger), e.g. 10s")
		f.DurationVar(&o.post, "post", 0, "with --ring: go on recording this long after a trigger before writing the dump, e.g. 2s")
		f.StringVar(&o.trigger, "trigger", "", "with --ring: dump on a scheduling delay over a threshold, e.g. 'delay>20ms' or 'delay>5ms,comm=nginx' or 'delay>5ms,cgroup=/system.slice/x.service'")
		f.StringVar(&o.control, "control", "", "with --ring: listen on this Unix socket (mode 0600); a connection sending \"dump\" gets a dump and the reply \"wrote FILE\"")
		f.BoolVar(&o.wakeups, "wakeups", false, "record sched_wakeup as well as sched_waking (by default, as perf sched record, a wakeup is its sched_waking alone: one record instead of two)")
		f.BoolVar(&o.runtime, "runtime", false, "record sched_stat_runtime, perf's source of latency's Runtime column (by default the run time comes from the switches: one record fewer about every switch)")
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

// recordHeapLimit is the Go memory limit (runtime/debug.SetMemoryLimit)
// while recording: 48 MiB, the 100 MiB resident target less the perf
// buffers (32 MiB by default) and the binary's mapped pages (about 20 MiB).
// Under stress-ng --switch 4 (bench/capture/soak.sh) the recorder's RSS
// peaked at 229 MiB without a limit, 102 MiB with 64 MiB, 82 MiB with this
// one, recording as many events a second.
const recordHeapLimit = 48 << 20

// ringHeapMargin is the Go memory limit of a ring above its bound: the
// drain's batches (10 MiB), the zstd encoder and the decoding of a dump.
const ringHeapMargin = 24 << 20

// parseSizeOrDuration parses the value of --ring and --rotate: a duration
// ("10s") or a size ("64M").
func parseSizeOrDuration(s string) (time.Duration, int64, error) {
	if d, err := duration.Parse(s); err == nil || errors.Is(err, duration.ErrNegative) {
		if err != nil || d == 0 {
			return 0, 0, fmt.Errorf("bad duration %q (want it positive)", s)
		}
		return d, 0, nil
	}
	n, err := parseSize(s)
	if err != nil {
		return 0, 0, fmt.Errorf("bad value %q (want a duration such as 10s or a size such as 64M)", s)
	}
	return 0, int64(n), nil
}

func runRecord(cmd *cobra.Command, o recordOptions, args []string) error {
	opts, cfg, reqs, err := recordPlan(cmd, o, args)
	if err != nil {
		return err
	}
	toStdout := o.output == "-"
	stderr := cmd.ErrOrStderr()
	// Catch SIGINT/SIGTERM from here on: one that arrives while the
	// programs load waits in the channel and stops the capture at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	defer catchSIGPIPE(toStdout)()
	if reqs != nil {
		defer dumpOnSignals(reqs)()
	}
	capture, err := ebpf.Open(opts)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer capture.Close()
	for _, w := range capture.Warnings() {
		fmt.Fprintf(stderr, "traceview: record: warning: %s\n", w.Message)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(recordHeapLimitOf(cfg)))
	if o.control != "" {
		// Once the capture runs: the socket's existence says so.
		ln, err := listenControl(o.control)
		if err != nil {
			return fmt.Errorf("record: --control: %w", err)
		}
		defer ln.Close()
		go ebpf.ServeControl(ln, reqs)
	}
	cfg.Header = ebpf.RecordHeader(capture.Mode())
	cfg.Header.RecordedCPUs = opts.CPUs // --cpu: ascending (cpulist.Parse)
	abort := make(chan struct{})
	cfg.Abort = abort
	rec, err := ebpf.NewRecorder(capture, cfg)
	if err != nil {
		return usageErrorf("%v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if o.duration > 0 {
		// From the moment the probes were attached, not from now: the
		// recorder's set-up since (the task table, the groups' settings)
		// took about 0.1-0.2 s, which -d 10ms overran 20 times.
		ctx, cancel = context.WithDeadline(ctx, capture.Attached().Add(o.duration))
		defer cancel()
	}
	child, childDone, err := startRecordChild(args, toStdout)
	if err != nil {
		return err
	}
	if o.duration > 0 && child != nil {
		rec.SetCloseWarnings(commandRunningWarning(ctx, args[0], child))
	}
	finished := make(chan struct{})
	defer close(finished)
	outName := o.output
	if toStdout {
		outName = "standard output"
	}
	watchDone := watchRecord(stderr, sigs, child, childDone, ctx, cancel, abort, finished, outName)

	if len(opts.CPUs) > 0 {
		// The recorder's own work goes to the CPUs the capture does not
		// watch, if there are any (after COMMAND started: it keeps its
		// mask).
		if others := otherCPUs(opts.CPUs); len(others) > 0 {
			if restore, err := ebpf.PinProcess(others); err == nil {
				defer restore()
			} else {
				fmt.Fprintf(stderr, "traceview: record: could not move the recorder off CPUs %s: %v\n", o.cpus, err)
			}
		}
	}
	sum, err := rec.Run(ctx)
	cancel() // the watcher returns if it still waits
	res := <-watchDone
	childErr, childExited, forwarded := res.childErr, res.exited, res.forwarded
	if errors.Is(err, ebpf.ErrAborted) {
		return statusError{fmt.Errorf("record: stopped by a second signal: %s holds what was written before it", outName), 130}
	}
	if err != nil && child != nil && !childExited && child.Process != nil {
		// The capture failed (e.g. the output filled up): the command
		// must not go on untraced as if nothing happened.
		child.Process.Signal(syscall.SIGTERM)
		fmt.Fprintf(stderr, "traceview: record: sent SIGTERM to %s (pid %d): the capture failed\n", args[0], child.Process.Pid)
	}
	if child != nil && !childExited {
		childErr = noteCommandAfterCapture(stderr, args[0], child, childDone, childErr, res.running, err == nil)
	}
	if err != nil {
		if cw, ok := cfg.Out.(*countingWriter); ok && errors.Is(err, syscall.EPIPE) {
			printPipeClosedSummary(stderr, cw.n, sum)
			return errPipeClosed
		}
		return err
	}
	printRecordSummary(stderr, outName, sum, cfg.Ring)
	// A --duration that ended before the drain's first pass (the
	// recorder's start-up after the probes were attached: the output's
	// header and task table, the groups' settings, the command) stopped
	// the capture there. Once the drain runs it stops at the deadline
	// (it waits on it), within a few ms (2.7 ms to detach the probes,
	// measured here): 25 ms more is not said.
	if held := capture.Stopped().Sub(capture.Attached()); o.duration > 0 && !capture.Stopped().IsZero() && held > o.duration+25*time.Millisecond {
		fmt.Fprintf(stderr, "[ traceview record: the capture holds %.3f s, more than --duration %v: starting the recorder took that long after the probes were attached ]\n", held.Seconds(), o.duration)
	}
	return recordExitStatus(stderr, args, childErr, forwarded != nil)
}

// catchSIGPIPE, for a capture written to standard output (on), makes a
// write to a pipe whose reader went away (| head -c N) fail with EPIPE, a
// failed capture (COMMAND stopped, the summary printed, errPipeClosed),
// instead of the runtime's SIGPIPE exit without a word (Go's os/signal
// doc: with SIGPIPE notified, a write to a broken pipe on fd 1 returns
// EPIPE; new-user pass 87 F1). It returns the function that undoes it.
func catchSIGPIPE(on bool) func() {
	if !on {
		return func() {}
	}
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	return func() { signal.Stop(pipes) }
}

// printPipeClosedSummary is record's summary when the reader of standard
// output went away: the bytes the pipe took (its reader read at most
// those), not the capture's encoded total, which the summary would call
// written (new-user pass 88 F1: "wrote 270170 bytes" to a head -c 1000),
// and the kernel's losses as such.
func printPipeClosedSummary(out io.Writer, took int64, sum ebpf.Summary) {
	var lost uint64
	for _, l := range sum.Lost {
		lost += l
	}
	fmt.Fprintf(out, "[ traceview record: standard output took %d bytes (%.2f MiB) before its reader closed it; the capture had %d events in %.3f s (%d lost in the kernel's buffers): the rest never reached the reader ]\n",
		took, float64(took)/(1<<20), sum.Events, sum.Elapsed.Seconds(), lost)
}

// errPipeClosed is record's error when the reader of its standard output
// went away.
var errPipeClosed = errors.New("record: the reader of standard output closed it (broken pipe): the capture stopped there, and what the reader took is a capture cut short")

// recordHeapLimitOf is the Go heap's soft limit for a capture with cfg:
// the heap is kept near its live size (the drain's batches, the backlog's
// part in memory, a ring) rather than the collector's default of twice
// it, so that with the perf buffers (32 MiB by default, mapped) the
// recorder stays under 100 MiB resident; a --ring capture holds its ring
// besides.
func recordHeapLimitOf(cfg ebpf.RecordConfig) int64 {
	heapLimit := int64(recordHeapLimit)
	if cfg.Ring != nil {
		ring := cfg.Ring.Bytes
		if ring <= 0 {
			ring = ebpf.DefaultRingBytes
		}
		heapLimit = max(heapLimit, ring+ringHeapMargin)
	}
	return heapLimit
}

// noteCommandAfterCapture handles the traced command (name, started as
// child) when the capture stopped before it ended: by a signal (the
// command was signalled) or by --duration (like perf, it is left running,
// and said so: record's status is then not the command's). A command
// running when --duration stopped the capture (running) that ended while
// the backlog was written out (a busy capture can take seconds) ended
// after the capture: the same note, and record's status. It returns the
// command's end for recordExitStatus (nil when record's status stands);
// captured says the capture itself succeeded (no note otherwise).
func noteCommandAfterCapture(stderr io.Writer, name string, child *exec.Cmd, childDone <-chan error, childErr error, running, captured bool) error {
	select {
	case childErr = <-childDone:
		if running && captured {
			fmt.Fprintf(stderr, "traceview: record: %s (pid %d) was still running when --duration stopped the capture, and ended while the capture wrote out its buffers: the trace does not hold its end (the exit status is record's, not its)\n", name, child.Process.Pid)
			childErr = nil
		}
	case <-time.After(100 * time.Millisecond):
		if captured {
			fmt.Fprintf(stderr, "traceview: record: %s (pid %d) is still running: the capture stopped before it ended and left it running (the exit status is record's, not its)\n", name, child.Process.Pid)
		}
	}
	return childErr
}

// recordExitStatus maps the traced command's end to record's exit status,
// as perf record does: the command's own status, 128 + the signal that
// killed it, or 0 when the signal was one record passed on (forwarded:
// the user stopped both).
func recordExitStatus(stderr io.Writer, args []string, childErr error, forwarded bool) error {
	var exitErr *exec.ExitError
	if !errors.As(childErr, &exitErr) {
		return nil
	}
	if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		if forwarded {
			fmt.Fprintf(stderr, "note: %s stopped by %s\n", args[0], signalText(ws.Signal()))
			return nil
		}
		return statusError{fmt.Errorf("record: %s was killed by %s", args[0], signalText(ws.Signal())), 128 + int(ws.Signal())}
	}
	// Like perf record: the command's own status.
	return statusError{fmt.Errorf("record: %s exited with status %d", args[0], exitErr.ExitCode()), exitErr.ExitCode()}
}

// otherCPUs returns the online CPUs not in cpus.
func otherCPUs(cpus []int) []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil
	}
	online, err := cpulist.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return nil
	}
	var out []int
	for _, c := range online {
		if !slices.Contains(cpus, c) {
			out = append(out, c)
		}
	}
	return out
}

// listenControl listens on the Unix socket path (record --control), mode
// 0600: only root may ask for dumps. A stale socket file left by an
// earlier recorder is replaced; any other file is an error.
func listenControl(path string) (net.Listener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		os.Remove(path)
	}
	old := unix.Umask(0o077)
	ln, err := net.Listen("unix", path)
	unix.Umask(old)
	return ln, err
}

func printRecordSummary(out io.Writer, path string, sum ebpf.Summary, ring *ebpf.RingConfig) {
	var total uint64
	var per []string
	for cpu, l := range sum.Lost {
		total += l
		if l > 0 {
			per = append(per, fmt.Sprintf("CPU %d: %d", cpu, l))
		}
	}
	switch {
	case ring != nil:
		// What the ring held, then how long it ran: "ring of 6.964 s"
		// was the run's length, the ring 3 s (new-user pass 76 F2).
		held := fmt.Sprintf("the last %.2f MiB of records", float64(cmp.Or(ring.Bytes, ebpf.DefaultRingBytes))/(1<<20))
		if ring.Span > 0 {
			held = fmt.Sprintf("the last %s", ring.Span)
		}
		fmt.Fprintf(out, "[ traceview record: flight recorder of %s, ran %.3f s: %d dumps, %d events, %d bytes (%.2f MiB) written ]\n",
			held, sum.Elapsed.Seconds(), sum.Dumps, sum.Events, sum.Bytes, float64(sum.Bytes)/(1<<20))
	case len(sum.Files) > 1:
		fmt.Fprintf(out, "[ traceview record: %d events in %.3f s, wrote %d bytes (%.2f MiB, %.1f bytes/event) to %d files %s ... %s ]\n",
			sum.Events, sum.Elapsed.Seconds(), sum.Bytes, float64(sum.Bytes)/(1<<20), perEvent(sum.Bytes, sum.Events), len(sum.Files), sum.Files[0], sum.Files[len(sum.Files)-1])
	default:
		if len(sum.Files) == 1 && sum.Files[0] != "" {
			// A series of one file is named as a series (rs.001.tv),
			// not as -o gave it (new-user pass 113 F8).
			path = sum.Files[0]
		}
		fmt.Fprintf(out, "[ traceview record: %d events in %.3f s, wrote %d bytes (%.2f MiB, %.1f bytes/event) to %s ]\n",
			sum.Events, sum.Elapsed.Seconds(), sum.Bytes, float64(sum.Bytes)/(1<<20), perEvent(sum.Bytes, sum.Events), path)
	}
	// Writing out the backlog after the capture stopped: said when it
	// took long enough to be noticed (a quarter of a second).
	if sum.Stopped > 0 && sum.Elapsed-sum.Stopped > 250*time.Millisecond {
		fmt.Fprintf(out, "[ traceview record: the capture stopped after %.3f s; writing out what its buffers held took %.3f s more ]\n",
			sum.Stopped.Seconds(), (sum.Elapsed - sum.Stopped).Seconds())
	}
	if total == 0 {
		fmt.Fprintf(out, "[ traceview record: 0 events lost ]\n")
	} else {
		fmt.Fprintf(out, "[ traceview record: %d events LOST (%s): raise --buffer-size ]\n", total, strings.Join(per, ", "))
	}
	for _, w := range sum.Hotplug {
		fmt.Fprintf(out, "[ traceview record: %s ]\n", w.String())
	}
	if sum.RecursionMisses > 0 {
		fmt.Fprintf(out, "[ traceview record: %d scheduler events MISSED: the kernel skipped the recorder's programs while another BPF program ran on their CPU; the file says so ]\n", sum.RecursionMisses)
	}
}

// recordPlan turns record's command line into the capture's options and
// the recorder's configuration (reqs: the ring's dump requests, nil
// without --ring), before anything is loaded or the output truncated.
// Errors are usage errors (exit 2), or a command that cannot start.
func recordPlan(cmd *cobra.Command, o recordOptions, args []string) (opts ebpf.Options, cfg ebpf.RecordConfig, reqs chan ebpf.DumpRequest, err error) {
	// The backlog (records kept raw until the capture stops, so the
	// decoding and encoding do not compete with the traced workload) goes
	// in an unnamed file beside the output.
	toStdout := o.output == "-"
	opts = ebpf.Options{Classic: o.classic, SpillDir: filepath.Dir(o.output), Stacks: o.stacks, Wakeups: o.wakeups, Runtime: o.runtime, Prefault: o.ring == ""}
	if toStdout {
		opts.SpillDir = os.TempDir()
		if isTerminal(cmd.OutOrStdout()) {
			return opts, cfg, nil, usageErrorf("record: -o -: the trace is binary; pipe it into a command (traceview latency -i -) or give a file")
		}
	}
	cfg = ebpf.RecordConfig{Path: o.output, Log: cmd.ErrOrStderr()}
	if toStdout {
		cfg.Path, cfg.Out = "", &countingWriter{w: cmd.OutOrStdout()}
	}
	if o.cpus != "" {
		if opts.CPUs, err = cpulist.Parse(o.cpus); err != nil {
			return opts, cfg, nil, usageErrorf("record: --cpu: %v", err)
		}
		if n, err := ebpf.PossibleCPUs(); err == nil {
			for _, c := range opts.CPUs {
				if c >= n {
					return opts, cfg, nil, usageErrorf("record: --cpu: CPU %d does not exist (this machine's CPUs are 0-%d)", c, n-1)
				}
			}
		}
	}
	if opts.BufferSize, err = parseSize(o.bufferSize); err != nil {
		return opts, cfg, nil, usageErrorf("record: --buffer-size: %v", err)
	}
	if o.backlog != "" {
		n, err := parseSize(o.backlog)
		if err != nil || n == 0 {
			return opts, cfg, nil, usageErrorf("record: --backlog: want a size > 0, e.g. 64M, got %q", o.backlog)
		}
		opts.Backlog = int64(n)
	}
	if o.duration < 0 {
		return opts, cfg, nil, usageErrorf("record: --duration must be positive, got %v", o.duration)
	}
	if o.rotate != "" {
		d, n, err := parseSizeOrDuration(o.rotate)
		if err != nil {
			return opts, cfg, nil, usageErrorf("record: --rotate: %v", err)
		}
		if n > 0 && n < ebpf.MinRotateBytes {
			return opts, cfg, nil, usageErrorf("record: --rotate %s: a file of a series by size holds at least %dK (its task table and trailer take several KB), e.g. --rotate 64M", o.rotate, ebpf.MinRotateBytes>>10)
		}
		cfg.RotateEvery, cfg.RotateBytes = d, n
		// A series is written as it goes: events are decoded and
		// encoded as they come instead of at the end.
		opts.Backlog = -1
	}
	if o.ring != "" {
		d, n, err := parseSizeOrDuration(o.ring)
		if err != nil {
			return opts, cfg, nil, usageErrorf("record: --ring: %v", err)
		}
		if o.rotate != "" {
			return opts, cfg, nil, usageErrorf("record: --ring and --rotate do not go together (a ring writes a numbered file per dump)")
		}
		reqs = make(chan ebpf.DumpRequest, 4)
		cfg.Ring = &ebpf.RingConfig{Span: d, Bytes: n, Post: o.post, Requests: reqs}
		if o.trigger != "" {
			if cfg.Ring.Trigger, err = ebpf.ParseTrigger(o.trigger, ebpf.CgroupRoot(), ebpf.FindCgroupMounts("/proc/self/mountinfo").V1CPU); err != nil {
				return opts, cfg, nil, usageErrorf("record: --trigger: %v", err)
			}
		}
	} else if o.trigger != "" || o.control != "" || o.post != 0 {
		return opts, cfg, nil, usageErrorf("record: --trigger, --post and --control need --ring")
	}
	if o.post < 0 {
		return opts, cfg, nil, usageErrorf("record: --post must be positive, got %v", o.post)
	}
	if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
		return opts, cfg, nil, usageErrorf("record: put the command after --, e.g. traceview record -- %s", strings.Join(args, " "))
	}
	if !toStdout {
		// Before COMMAND starts: an output that cannot be created would
		// fail the capture only once COMMAND ran (its side effects done)
		// and got SIGTERM, the reason printed last.
		if err := checkOutputPath(o.output); err != nil {
			return opts, cfg, nil, fmt.Errorf("record: -o %s: %w", o.output, err)
		}
	}
	if len(args) > 0 {
		// Before anything is loaded or the output truncated: a command
		// that cannot start must not cost the user an existing file.
		if _, err := exec.LookPath(args[0]); err != nil {
			return opts, cfg, nil, fmt.Errorf("record: start %s: %w", args[0], err)
		}
	}
	return opts, cfg, reqs, nil
}

// startRecordChild starts the command record traces (none without args),
// its output on record's (stderr when the trace goes to standard output),
// and returns a channel that receives its end.
func startRecordChild(args []string, toStdout bool) (*exec.Cmd, chan error, error) {
	childDone := make(chan error, 1)
	if len(args) == 0 {
		return nil, childDone, nil
	}
	child := exec.Command(args[0], args[1:]...)
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, os.Stderr
	if toStdout {
		child.Stdout = os.Stderr // the trace has standard output
	}
	if err := child.Start(); err != nil {
		return nil, nil, fmt.Errorf("record: start %s: %w", args[0], err)
	}
	go func() { childDone <- child.Wait() }()
	return child, childDone, nil
}

// commandRunningWarning returns the file warning of a capture that
// --duration ended (ctx's deadline) while the traced command (name,
// child) still ran: the trace does not hold its end. record says so on
// stderr too (noteCommandAfterCapture), but only the file reaches info and
// latency (new-user pass 85 F3: `record -d 1s -- hog 2` read as a whole
// capture there, while replay found the command alive).
func commandRunningWarning(ctx context.Context, name string, child *exec.Cmd) func() []trace.Warning {
	return func() []trace.Warning {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) || child.Process == nil || child.ProcessState != nil ||
			child.Process.Signal(syscall.Signal(0)) != nil {
			return nil
		}
		return []trace.Warning{{Key: "record-command-running", Count: 1,
			Message: fmt.Sprintf("traceview record: %s (pid %d) was still running when --duration ended the capture: the trace does not hold its end", termsafe.Name(name), child.Process.Pid)}}
	}
}

// recordWatched is what watchRecord saw.
type recordWatched struct {
	childErr error
	exited   bool // the command exited (childErr is its status)
	// running: the command had not exited when --duration ended the
	// capture (it may end while the capture writes out its backlog).
	running   bool
	forwarded os.Signal // the signal passed on to the command, if any
}

// watchRecord stops the capture (cancel) when the command exits, a signal
// comes (passed on to the command) or ctx ends (--duration), and sends
// what it saw on the returned channel. A second signal while the rest is
// drained and written closes abort: the files keep what was written.
// finished closes when record is done.
func watchRecord(stderr io.Writer, sigs chan os.Signal, child *exec.Cmd, childDone chan error, ctx context.Context, cancel context.CancelFunc,
	abort, finished chan struct{}, outName string) <-chan recordWatched {
	watchDone := make(chan recordWatched, 1)
	go func() {
		var res recordWatched
		select {
		case s := <-sigs:
			res.forwarded = s
			if child != nil && child.Process != nil {
				child.Process.Signal(s)
			}
			cancel()
			watchDone <- res
			select {
			case <-sigs:
				fmt.Fprintf(stderr, "traceview: record: second %v: stopping without draining; %s keeps what was written so far\n", s, outName)
				close(abort)
			case <-finished:
			}
			return
		case res.childErr = <-childDone:
			res.exited = true
			cancel()
		case <-ctx.Done():
			select {
			case res.childErr = <-childDone:
				res.exited = true
			default:
				res.running = child != nil
			}
		}
		watchDone <- res
	}()
	return watchDone
}

// dumpOnSignals makes SIGUSR1 and SIGHUP ask the ring for a dump (on
// reqs; one already asked for absorbs the next) until the returned
// function is called.
func dumpOnSignals(reqs chan ebpf.DumpRequest) (stop func()) {
	dumpSigs := make(chan os.Signal, 4)
	signal.Notify(dumpSigs, syscall.SIGUSR1, syscall.SIGHUP)
	stopSigs := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-dumpSigs:
				select {
				case reqs <- ebpf.DumpRequest{Reason: "signal " + unix.SignalName(s.(syscall.Signal))}:
				default: // a dump is already asked for
				}
			case <-stopSigs:
				return
			}
		}
	}()
	return func() {
		signal.Stop(dumpSigs)
		close(stopSigs)
	}
}

// signalText names a signal as a shell user knows it: "SIGTERM (signal
// 15: terminated)".
func signalText(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return fmt.Sprintf("%s (signal %d: %v)", name, int(sig), sig)
	}
	return fmt.Sprintf("signal %d (%v)", int(sig), sig)
}

// checkOutputPath reports why a trace cannot be written at path: its
// directory missing or not a directory, or not writable (access(2), W_OK),
// or path itself a directory. It creates nothing (the recorder creates
// the file when the capture starts).
func checkOutputPath(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("its directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("is a directory")
	}
	return nil
}
