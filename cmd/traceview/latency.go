package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

type latencyOptions struct {
	input       string
	sort        string
	cpu         int
	pids        bool
	percentiles bool
	output      string
	perf        bool
	keepLossy   bool
}

func init() {
	addCommand(func() *cobra.Command {
		var o latencyOptions
		cmd := &cobra.Command{
			Use:     "latency [-i FILE|-] [-s KEYS] [-C CPU] [-p|--pids] [--percentiles] [-o table|json|csv]",
			Aliases: []string{"lat"},
			Short:   "Per-task scheduling delays, like 'perf sched latency'",
			Long: `Print the per-task scheduling-latency table of 'perf sched latency' (perf 6.12
layout) for any trace traceview reads. A scheduling delay is the time a
runnable task waits for a CPU, up to its next switch-in (sched_switch). What
starts it:
  - sched_waking of a sleeping task: the first tracepoint of a wakeup
    (try_to_wake_up emits it on the waker's CPU before the task is queued),
    so the whole wait is counted; sched_wakeup (emitted once the task is on
    a runqueue, possibly later and on another CPU) only when the trace has
    no sched_waking, as perf does; sched_wakeup_new for a new task;
  - a switch-out while still runnable (prev_state R or R+): a preemption;
  - the task's own switch-out to sleep when its sched_waking came first:
    try_to_wake_up emits sched_waking before it waits for the task to leave
    its CPU, so the waking can precede the switch-out by a few us. The task
    cannot run before it is off its CPU, so the delay starts there (perf
    loses these delays; --perf keeps perf's behaviour).
A 'perf record --switch-events -a' trace has switch records and no wakeup
events: there delays start only at preemptions (a warning says so).
For each command name (or each task with -p) the table shows:

  Runtime ms       CPU time, the sum of sched_stat_runtime (milliseconds);
                   when the trace has none (trace.dat, ftrace text or a
                   recording of sched_switch only), the on-CPU time between
                   each switch-in and switch-out, said once on stderr and per
                   row in JSON (runtime_source)
  Count            scheduling delays measured
  Avg/Max delay ms average and largest delay (milliseconds)
  Sum delay ms     total delay (traceview's addition, after Mike Galbraith's
                   EEVDF reports on LKML)
  Max delay start/end  wakeup and switch-in time of the largest delay
                   (trace clock, seconds.microseconds)

Rows with the same command name are merged ("comm:(N)" = N tasks) unless -p
is given. Sort keys: runtime, switch (the Count column), avg, max, sum;
default "avg, max, switch, runtime" like perf. -C CPU reproduces perf's -C
(trust every wakeup, reset delays at migrations; perf does not filter events
by CPU and neither does this).

Where perf is wrong traceview differs, and says so on stderr:
  - perf counts a 0 ns delay for the first switch-in of every task it had not
    seen before; traceview counts none (the wakeup is unknown);
  - when the trace lacks a switch-in (e.g. nothing recorded while a CPU idles)
    perf silently drops that delay; traceview recovers it from the task's
    first sched_stat_runtime on that CPU;
  - a delay or sched_stat_runtime that overlaps lost events on a CPU it
    involves (where it started, waited or ended) is left out and counted
    ("N scheduling delays overlapped lost events"; JSON lossy_delays per
    row); --keep-lossy keeps them;
  - a second wakeup of a task already waiting is counted (only possible
    when events are missing) and restarts its delay;
  - perf's "INFO: x% context switch bugs (n out of m)" divides by the number
    of wakeups; traceview reports, per CPU, how many sched_switch events broke
    the chain and which task's switches are missing.
--perf prints perf's exact numbers, layout and INFO lines instead.

Examples:
  traceview latency -i testdata/traces/pipe.perf.data
  traceview latency -i perf.data -p -s max --percentiles
  perf sched record -o - -- sleep 1 | traceview latency -i - -o json`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runLatency(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", "perf.data", "trace file to read (any format; - for stdin)")
		f.StringVarP(&o.sort, "sort", "s", report.DefaultLatencySort, "sort keys, most significant first: runtime, switch, avg, max, sum")
		f.IntVarP(&o.cpu, "CPU", "C", -1, "perf's -C: profile this CPU (-1: all)")
		f.BoolVarP(&o.pids, "pids", "p", false, "one row per task instead of per command name")
		f.BoolVar(&o.percentiles, "percentiles", false, "add p50, p95, p99 and p99.9 delay per row (json/csv; table adds columns)")
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv")
		f.BoolVar(&o.keepLossy, "keep-lossy", false, "keep delays and runtime that overlap lost events (default: left out and counted)")
		f.BoolVar(&o.perf, "perf", false, "reproduce perf 6.12's numbers and output exactly (its INFO lines included)")
		return cmd
	})
}

func runLatency(cmd *cobra.Command, o latencyOptions) error {
	switch o.output {
	case "table", "json", "csv":
	default:
		return usageErrorf("latency: unknown output format %q (want table, json or csv)", o.output)
	}
	if o.perf && o.percentiles && o.output == "table" {
		return usageErrorf("latency: --percentiles adds columns that perf's table (--perf) does not have; drop one of them, or use -o json|csv")
	}
	if o.cpu < -1 {
		return usageErrorf("latency: -C must be a CPU number or -1, got %d", o.cpu)
	}
	opts := report.LatencyOptions{
		PerTask: o.pids, Sort: []string{o.sort}, Percentiles: o.percentiles, PerfCompat: o.perf,
		CPUGiven: o.cpu >= 0, CPU: trace.CPU(o.cpu), KeepLossy: o.keepLossy,
	}
	if err := report.CheckLatencySort(opts.Sort); err != nil {
		return usageError{err} // before reading: a typo should not cost a pass over a big trace
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	res, err := report.ComputeLatency(src, opts)
	if err != nil {
		if errors.Is(err, report.ErrSortKey) {
			return usageError{err}
		}
		return readFailed(cmd, src.Meta(), fmt.Errorf("latency: %s: %w", o.input, err))
	}
	if res.Diag.Switches == 0 {
		return readFailed(cmd, src.Meta(), fmt.Errorf("latency: %s: no sched_switch events in %d events read (record with 'perf sched record')", o.input, res.Diag.Events))
	}
	out := cmd.OutOrStdout()
	switch o.output {
	case "json":
		return report.WriteLatencyJSON(out, res)
	case "csv":
		printLatencyWarnings(cmd, res)
		return report.WriteLatencyCSV(out, res)
	}
	printLatencyWarnings(cmd, res)
	return report.WriteLatencyTable(out, res, o.perf)
}

// printLatencyWarnings writes the reader's lost windows and warnings and the
// report's own warnings to stderr, one line each.
func printLatencyWarnings(cmd *cobra.Command, res *report.LatencyResult) {
	w := cmd.ErrOrStderr()
	printWarnings(w, res.Meta)
	for _, wn := range res.ReportWarnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
}
