package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

type timehistFlags struct {
	input       string
	opt         report.TimehistOptions
	cpus        string
	pids        string
	tids        string
	timeWindow  string
	prios       string
	withSummary bool
}

func init() {
	addCommand(func() *cobra.Command {
		var o timehistFlags
		cmd := &cobra.Command{
			Use:   "timehist [-i FILE] [-w] [-M] [-n] [--state] [-s|-S] [-C CPUS] [-p PIDS] [-t TIDS] [--time START,STOP]",
			Short: "One row per context switch: wait time, scheduling delay and run time (perf sched timehist)",
			Long: `Print perf sched timehist's view of a trace: one row per sched_switch for
the task switched out, with three times in milliseconds (msec.usec):

  wait time  time off the CPU before this run: from the task's previous
             switch-out to its switch-in (sleep, I/O wait or preemption)
  sch delay  scheduling delay: from its wakeup (or, when it was preempted,
             from that switch-out) to its switch-in
  run time   from its switch-in to this switch-out

Times are trace seconds with microsecond resolution; the task column is
comm[tid] or comm[tid/pid] for a thread of another process, <idle> for the
idle task. Definitions follow perf's tools/perf/builtin-sched.c (6.12).

-w adds a row per wakeup, -M a row per migration, -n the next task, --state
the state the task left in (R runnable/preempted, S sleep, D I/O wait, ...),
-V a column per CPU marking where each row happened (s switch, i idle, m
migration).
-s prints only the per-task summary (switch count, run time min/avg/max and
relative standard error), -S both. --time keeps a window (seconds, either
side may be empty), -C some CPUs, -p/-t some processes/threads, --prio some
kernel priorities (0-99 real time, 100-139 fair; 120 is nice 0).

By default traceview keeps each task's identity where perf 6.12 loses it
(after PERF_RECORD_EXIT perf prints a task's last switch as ":TID" with zeroed
statistics and drops the task from the summary; the last switch of a thread
the kernel already released shows as ":-1[-1/PID]"), and -s summarises
every incarnation of a reused tid; --exact prints perf's output byte for
byte instead, rows of the summary in perf's thread-table order.

Example:
  traceview timehist -i perf.data -w --state
  traceview timehist -i perf.data -s
  traceview timehist -i perf.data --time 754.33,754.35 -C 0 -n`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runTimehist(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", "perf.data", "trace file to read (any format; - for stdin)")
		f.BoolVarP(&o.opt.Wakeups, "wakeups", "w", false, "show a row per wakeup")
		f.BoolVarP(&o.opt.Migrations, "migrations", "M", false, "show a row per migration")
		f.BoolVarP(&o.opt.Next, "next", "n", false, "show the next task of each switch")
		f.BoolVar(&o.opt.State, "state", false, "show the state the task left the CPU in")
		f.BoolVarP(&o.opt.SummaryOnly, "summary", "s", false, "print only the per-task summary")
		f.BoolVarP(&o.withSummary, "with-summary", "S", false, "print the rows and then the summary")
		f.BoolVarP(&o.opt.IdleHist, "idle-hist", "I", false, "only switches to and from idle; idle time is charged to the task that ran before")
		f.BoolVar(&o.opt.ShowPrio, "show-prio", false, "show the task's kernel priority")
		f.BoolVarP(&o.opt.CPUVisual, "cpu-visual", "V", false, "add a column per CPU marking the CPU of each row")
		f.StringVarP(&o.cpus, "cpu", "C", "", "only these CPUs, e.g. 0,2-3")
		f.StringVarP(&o.pids, "pid", "p", "", "only these process ids (tgid), comma-separated")
		f.StringVarP(&o.tids, "tid", "t", "", "only these thread ids, comma-separated")
		f.StringVar(&o.timeWindow, "time", "", "time window START,STOP in seconds (sec.usec); either may be empty")
		f.StringVar(&o.prios, "prio", "", "only tasks with these kernel priorities, e.g. 0,120-129")
		f.BoolVar(&o.opt.Exact, "exact", false, "reproduce perf 6.12's output exactly, including its thread-identity errors")
		return cmd
	})
}

func runTimehist(cmd *cobra.Command, o timehistFlags) error {
	opt := o.opt
	if opt.SummaryOnly && (opt.Wakeups || opt.Next) {
		return usageErrorf("timehist: -s/--summary cannot be combined with -w or -n")
	}
	if o.withSummary {
		opt.Summary = true
	}
	var err error
	if opt.CPUs, err = cpulist.ParseInts(o.cpus, 0, cpulist.MaxCPU); err != nil {
		return usageErrorf("timehist: --cpu %q: %v", o.cpus, err)
	}
	if opt.PIDs, err = cpulist.ParseInts(o.pids, 0, 1<<31-1); err != nil {
		return usageErrorf("timehist: --pid %q: %v", o.pids, err)
	}
	if opt.TIDs, err = cpulist.ParseInts(o.tids, 0, 1<<31-1); err != nil {
		return usageErrorf("timehist: --tid %q: %v", o.tids, err)
	}
	if opt.Prios, err = cpulist.ParseInts(o.prios, 0, report.TimehistMaxPrio-1); err != nil {
		return usageErrorf("timehist: --prio %q: %v", o.prios, err)
	}
	if opt.Start, opt.End, err = parseTimeWindow(o.timeWindow); err != nil {
		return usageErrorf("timehist: --time %q: %v", o.timeWindow, err)
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := checkCPUList("timehist: --cpu", opt.CPUs, src.Meta()); err != nil {
		return err
	}
	out := &firstRowWriter{w: cmd.OutOrStdout()}
	if err := report.Timehist(out, src, opt); err != nil {
		// Whatever is still held (the header alone) is dropped.
		return readFailed(cmd, src.Meta(), fmt.Errorf("timehist: %s: %w", o.input, err))
	}
	if err := out.flush(); err != nil {
		return err
	}
	printWarnings(cmd.ErrOrStderr(), src.Meta())
	filtered := opt.CPUs != nil || opt.PIDs != nil || opt.TIDs != nil || opt.Prios != nil || opt.Start != 0 || opt.End != 0
	if filtered && !opt.SummaryOnly && !out.hasRow() {
		span := ""
		if m := src.Meta(); m != nil && m.FirstTime > 0 && m.LastTime >= m.FirstTime {
			span = fmt.Sprintf(" (the trace spans %.6f s to %.6f s)", float64(m.FirstTime)/1e9, float64(m.LastTime)/1e9)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: no row matched the filters (-C, -p, -t, --prio, --time)%s\n", span)
	}
	return nil
}

// firstRowWriter passes output through and keeps the start of its fourth
// line, the first row after timehist's three header lines. It holds the
// output back until something follows the header (or flush), so that a
// timehist that fails without a row (no sched_switch in a damaged trace)
// prints nothing on stdout.
type firstRowWriter struct {
	w     io.Writer
	lines int
	row   []byte
	held  []byte // output not yet passed on: the header so far
	hdr   int    // newlines held
	open  bool   // output passes straight through
}

func (f *firstRowWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && f.lines <= 3 && len(f.row) < 32; i++ {
		switch {
		case f.lines == 3 && p[i] != '\n':
			f.row = append(f.row, p[i])
		case p[i] == '\n':
			f.lines++
		}
	}
	if f.open {
		return f.w.Write(p)
	}
	f.held = append(f.held, p...)
	for _, b := range p {
		if f.hdr == 3 { // a byte after the header's three lines
			if err := f.flush(); err != nil {
				return 0, err
			}
			break
		}
		if b == '\n' {
			f.hdr++
		}
	}
	return len(p), nil
}

// flush passes on the held output; from then on output passes straight
// through.
func (f *firstRowWriter) flush() error {
	f.open = true
	held := f.held
	f.held = nil
	_, err := f.w.Write(held)
	return err
}

// hasRow reports whether the fourth line is a row (a time stamp after the
// padding), not the blank line before a summary or nothing.
func (f *firstRowWriter) hasRow() bool {
	r := strings.TrimLeft(string(f.row), " ")
	return r != "" && r[0] >= '0' && r[0] <= '9'
}

// checkCPUList returns a usage error naming flag when one of cpus is not a
// CPU of the trace (Meta.NrCPUs and NrCPUsAvail, when the header gives
// them), so that a filter that can match nothing is not a silently empty
// table.
func checkCPUList(flag string, cpus []int, meta *trace.Meta) error {
	n := max(meta.NrCPUs, meta.NrCPUsAvail)
	if n <= 0 {
		return nil
	}
	for _, c := range cpus {
		if c >= n {
			return usageErrorf("%s: CPU %d: the trace has CPUs 0-%d", flag, c, n-1)
		}
	}
	return nil
}

// parseTimeWindow parses perf's --time "start,stop" (seconds with up to 9
// decimals; either side may be empty) into nanoseconds, 0 for open.
func parseTimeWindow(s string) (start, end int64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, fmt.Errorf("want START,STOP")
	}
	if start, err = parseSeconds(a); err != nil {
		return 0, 0, err
	}
	if end, err = parseSeconds(b); err != nil {
		return 0, 0, err
	}
	if end != 0 && start > end {
		return 0, 0, fmt.Errorf("start is after stop")
	}
	return start, end, nil
}

// parseSeconds parses "sec[.frac]" into nanoseconds without rounding
// through floating point ("" is 0).
func parseSeconds(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	secStr, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secStr, 10, 64)
	if err != nil || sec < 0 {
		return 0, fmt.Errorf("%q is not a time in seconds", s)
	}
	if len(frac) > 9 {
		return 0, fmt.Errorf("%q has more than 9 decimals", s)
	}
	var ns int64
	if frac != "" {
		frac += strings.Repeat("0", 9-len(frac))
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil || ns < 0 {
			return 0, fmt.Errorf("%q is not a time in seconds", s)
		}
	}
	return sec*1e9 + ns, nil
}
