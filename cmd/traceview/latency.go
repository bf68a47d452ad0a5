package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
	by          string
	filter      filterFlags
	recorded    []string // --recorded-cgroup
}

func init() {
	addCommand(func() *cobra.Command {
		var o latencyOptions
		cmd := &cobra.Command{
			Use:     "latency [-i FILE|-] [TRACE|GLOB...] [--by trace|host|comm|cgroup] [-s KEYS] [--time START,STOP] [--cpu LIST] [--pid|--tid LIST] [--comm NAMES] [-p|--pids] [--percentiles] [-o table|json|csv]",
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
  Throttled ms     only for traces that record task groups (perf record
                   --all-cgroups, traceview's captures): the part of Sum
                   delay spent while the task's cgroup was out of CPU quota
                   (CFS bandwidth control) rather than waiting for a CPU
                   other tasks held; JSON throttled_ns and waited_ns

Throttling has no tracepoint; it is inferred from the schedule: a task
switched out runnable while its CPU goes idle, with no task of its group
running anywhere until the next period, can only be throttled. Where the CPU
runs other groups instead (one CPU, or all busy), only the group's quota
tells throttling from contention: give it with --recorded-cgroup
PATH:max=QUOTA/PERIOD when the trace does not carry it. A table of the task
groups follows the task table: runtime, CPUs used, delays, and throttled
periods and time as cgroup cpu.stat counts them (nr_throttled,
throttled_time summed over CPUs); JSON "cgroups".

Rows with the same command name are merged ("comm:(N)" = N tasks) unless -p
is given. Sort keys: runtime, switch (the Count column), avg, max, sum;
default "avg, max, switch, runtime" like perf.

` + filterHelp + `
Rows with nothing selected (no delay, switch-in or runtime) are left out.
-C CPU is --cpu CPU; with --perf it is perf's -C instead (trust every wakeup,
reset delays at migrations; perf does not filter events by CPU), and the
filters are refused (perf's latency has none).

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

Several traces (arguments or globs, besides -i) are read in parallel, with
one progress bar on stderr when it is a terminal, and merged exactly: rows
of the same command name add their runtime, counts, switches and delays,
keep the largest delay, and take percentiles over the union of the delays
(never an average of percentiles); -p rows are tasks, never merged across
traces. So 'latency X X' reports exactly twice X's counts. --by trace,
--by host (the recording machine), --by comm or --by cgroup prints one table per group
(JSON: "groups"; CSV: a first column named after the grouping); --by
cgroup groups tasks by their cgroup v2 path (traceview's own captures
record it at each switch-out; other traces are one group). Each
trace's warnings go to stderr prefixed with its path. A glob that matches
nothing is an error (exit 2).

Examples:
  traceview latency -i testdata/traces/pipe.perf.data
  traceview latency -i testdata/traces/nice.2cpu.perf.data --cpu 1 -p
  traceview latency -i testdata/traces/messaging.2cpu.perf.data --time 10%/2
  traceview latency -i testdata/traces/pipe.perf.data --comm sched-pipe -o json
  traceview latency -i testdata/traces/nice.2cpu.perf.data --comm nice,hog -p   # nice exec'd hog: name both
  traceview latency -i testdata/traces/messaging.2cpu.perf.data -p -s max --percentiles
  perf sched record -o - -- sleep 1 | traceview latency -i - -o json
  traceview latency 'testdata/traces/*.perf.data' --by trace --percentiles
  traceview latency -i testdata/traces/grpq.q25.perf.data --by cgroup
  traceview latency -i testdata/traces/grpq.q25.perf.data --recorded-cgroup /tv-svc:max=25ms/100ms -o json`,
			Args: cobra.ArbitraryArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runLatency(cmd, o, args)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.sort, "sort", "s", report.DefaultLatencySort, "sort keys, most significant first: runtime, switch, avg, max, sum")
		f.IntVarP(&o.cpu, "CPU", "C", -1, "--cpu CPU; with --perf, perf's -C: profile this CPU (-1: all)")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		f.BoolVarP(&o.pids, "pids", "p", false, "one row per task instead of per command name")
		f.BoolVar(&o.percentiles, "percentiles", false, "add "+percentileTitles()+" delay per row (json/csv; table adds columns)")
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv")
		f.BoolVar(&o.keepLossy, "keep-lossy", false, "keep delays and runtime that overlap lost events (default: left out and counted)")
		f.BoolVar(&o.perf, "perf", false, "reproduce perf 6.12's numbers and output exactly (its INFO lines included)")
		f.StringVar(&o.by, "by", "", "one table per group: trace, host, comm or cgroup (default: all merged)")
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "PATH:max=QUOTA/PERIOD[,weight=W]: a group's settings when recorded, where the trace does not carry them (perf.data): its quota lets the throttling inference find throttles where the CPU ran other groups (repeatable)")
		return cmd
	})
}

func runLatency(cmd *cobra.Command, o latencyOptions, args []string) error {
	raiseGCFloor()
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
	if o.perf && o.filter.given() {
		return usageErrorf("latency: %s: perf's latency table (--perf) has no filters; drop --perf or the filters", o.filter.names())
	}
	perfCPU := o.perf && o.cpu >= 0
	if !o.perf && o.cpu >= 0 {
		if o.filter.cpu != "" {
			return usageErrorf("latency: -C %d and --cpu %q: give one of them (-C N is --cpu N)", o.cpu, o.filter.cpu)
		}
		o.filter.cpu = strconv.Itoa(o.cpu)
	}
	if err := o.filter.check("latency"); err != nil {
		return err
	}
	opts := report.LatencyOptions{
		PerTask: o.pids, Sort: []string{o.sort}, Percentiles: o.percentiles, PerfCompat: o.perf,
		CPUGiven: perfCPU, CPU: trace.CPU(o.cpu), KeepLossy: o.keepLossy,
	}
	for _, a := range o.recorded {
		cs, err := trace.ParseCgroupSettings(a)
		if err != nil {
			return usageErrorf("latency: %w", err)
		}
		if o.perf {
			return usageErrorf("latency: --recorded-cgroup: perf's latency table (--perf) has no task groups; drop --perf")
		}
		opts.Cgroups = append(opts.Cgroups, cs)
	}
	if err := report.CheckLatencySort(opts.Sort); err != nil {
		return usageError{err} // before reading: a typo should not cost a pass over a big trace
	}
	if len(args) > 0 || o.by != "" {
		inputs, err := latencyInputs(cmd, o, args)
		if err != nil {
			return err
		}
		if len(inputs) > 1 || o.by != "" {
			return runLatencyMany(cmd, o, opts, inputs)
		}
		o.input = inputs[0] // one trace, named as an argument: as with -i
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	if perfCPU {
		if err := checkCPUList("latency: -C", []int{o.cpu}, src.Meta()); err != nil {
			return err
		}
	}
	if opts.Filter, err = o.filter.resolve("latency", src.Meta()); err != nil {
		return err
	}
	var runs nameRuns
	in := trace.Source(src)
	if opts.Filter != nil && opts.Filter.Comms != nil {
		in, runs = watchNames(src)
	}
	res, err := report.ComputeLatency(in, opts)
	if err != nil {
		if errors.Is(err, report.ErrSortKey) {
			return usageError{err}
		}
		return readFailed(cmd, src.Meta(), fmt.Errorf("latency: %s: %w", o.input, err))
	}
	if res.Diag.Switches == 0 {
		return readFailed(cmd, src.Meta(), fmt.Errorf("latency: %s: no sched_switch events in %d events read (record with 'perf sched record')", o.input, res.Diag.Events))
	}
	if err := checkStatedCgroups("latency", opts.Cgroups, res.Cgroups); err != nil {
		return err
	}
	if opts.Filter != nil {
		if h := commRenameHint(opts.Filter.Comms, res.TaskRows, runs); h != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), h)
		}
	}
	out := cmd.OutOrStdout()
	switch o.output {
	case "json":
		return report.WriteLatencyJSON(out, res)
	case "csv":
		printLatencyWarnings(cmd.ErrOrStderr(), res)
		return report.WriteLatencyCSV(out, res)
	}
	printLatencyWarnings(cmd.ErrOrStderr(), res)
	return report.WriteLatencyTable(out, res, o.perf)
}

// checkStatedCgroups rejects (exit 2) a --recorded-cgroup PATH that no task
// group of the trace has: a typo would otherwise silently change nothing.
func checkStatedCgroups(cmdName string, stated []trace.CgroupSettings, groups []report.CgroupThrottle) error {
	for _, s := range stated {
		found := false
		var paths []string
		for _, g := range groups {
			found = found || g.Path == s.Path
			paths = append(paths, g.Path)
		}
		if !found {
			have := "the trace records no task groups outside the root (perf record --all-cgroups records them)"
			if len(paths) > 0 {
				have = "its groups: " + strings.Join(paths, ", ")
			}
			return usageErrorf("%s: --recorded-cgroup %s: no task of the trace ran in that cgroup; %s", cmdName, s.Path, have)
		}
	}
	return nil
}

// printLatencyWarnings writes the reader's lost windows and warnings and the
// report's own warnings to stderr, one line each.
func printLatencyWarnings(w io.Writer, res *report.LatencyResult) {
	printWarnings(w, res.Meta)
	for _, wn := range res.ReportWarnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
}

// percentileTitles names the columns of report.LatencyColumns that
// --percentiles adds ("p50, p95, p99 and p99.9"), for the flag's help.
func percentileTitles() string {
	var names []string
	for _, c := range report.LatencyColumns {
		if c.Need != nil && c.Need(&report.LatencyOptions{Percentiles: true}) && !c.Need(&report.LatencyOptions{}) {
			names = append(names, strings.TrimSuffix(c.Title, " delay"))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
