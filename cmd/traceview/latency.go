package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
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
			Long:    helpText("latency"),
			Args:    cobra.ArbitraryArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runLatency(cmd, o, args)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.sort, "sort", "s", report.DefaultLatencySort, "sort keys, most significant first: pid (highest first), runtime, switch, avg, max, sum (not with --perf)")
		f.IntVarP(&o.cpu, "CPU", "C", -1, "--cpu CPU; with --perf, perf's -C: profile this CPU (-1: all)")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		f.BoolVarP(&o.pids, "pids", "p", false, "one row per task instead of per command name")
		f.BoolVar(&o.percentiles, "percentiles", false, "add "+percentileTitles()+" delay per row (json/csv; table adds columns)")
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv")
		f.BoolVar(&o.keepLossy, "keep-lossy", false, "keep delays and runtime that overlap lost events (default: left out and counted)")
		f.BoolVar(&o.perf, "perf", false, "reproduce perf 6.12's numbers and output exactly (its INFO lines included)")
		f.StringVar(&o.by, "by", "", "one table per group: trace, host, comm or cgroup (default: all merged)")
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "PATH:max=QUOTA/PERIOD|max[,weight=W|shares=S][,burst=DURATION]: a group's settings when recorded, where the trace does not carry them (perf.data); max=max for no quota: its quota lets the throttling inference find throttles where the CPU ran other groups (repeatable)")
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
		CPUGiven: perfCPU, CPU: trace.CPU(o.cpu), KeepLossy: o.keepLossy, ByCgroup: o.by == "cgroup",
	}
	stated, err := statedCgroups("latency", o.recorded, o.perf)
	if err != nil {
		return err
	}
	opts.Cgroups = stated
	if err := report.CheckLatencySort(opts.Sort, opts.PerfCompat); err != nil {
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
	var names func() nameRuns
	in := trace.Source(src)
	if !o.perf {
		// (--comm's hint, and the renamed tasks' note.)
		in, names = watchNames(src, opts.Filter)
	}
	res, err := report.ComputeLatency(in, opts)
	if err != nil {
		if errors.Is(err, report.ErrSortKey) {
			return usageError{err}
		}
		return readFailed(cmd, o.input, src.Meta(), fmt.Errorf("latency: %s: %w", o.input, err))
	}
	if res.Diag.Switches == 0 {
		return readFailed(cmd, o.input, src.Meta(), noSwitchesError("latency", o.input, int64(res.Diag.Events), src.Meta()))
	}
	if err := checkStatedCgroups("latency", opts.Cgroups, res.Cgroups); err != nil {
		return err
	}
	var runs nameRuns
	if names != nil {
		runs = names()
	}
	if opts.Filter != nil {
		if h := commRenameHint(opts.Filter.Comms, res.TaskRows, runs); h != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), h)
		}
	}
	// (The rename note comes after the warnings, below.)
	out := cmd.OutOrStdout()
	switch o.output {
	case "json":
		writeWarnings(cmd.ErrOrStderr(), o.input, "", append(metaWarnings(res.Meta), res.ReportWarnings...))
		named := *res
		named.Warnings = namedWarnings(o.input, "", res.Warnings)
		if wn, ok := renamedWarning(res, opts.Filter, runs); ok {
			fmt.Fprintln(cmd.ErrOrStderr(), "note: "+wn.Message)
			named.Warnings = append(named.Warnings, wn)
		}
		return report.WriteLatencyJSON(out, &named)
	case "csv":
		printLatencyWarnings(cmd.ErrOrStderr(), o.input, res)
		printRenamed(cmd.ErrOrStderr(), res, opts.Filter, runs)
		csvCgroupsNote(cmd.ErrOrStderr(), "latency", len(res.Cgroups), "cgroups")
		return report.WriteLatencyCSV(out, res)
	}
	printLatencyWarnings(cmd.ErrOrStderr(), o.input, res)
	printRenamed(cmd.ErrOrStderr(), res, opts.Filter, runs)
	return report.WriteLatencyTable(out, res, o.perf)
}

// renameNotes writes --comm's hint (commRenameHint) and the renamed
// tasks' note (printRenamed) of res, read with filter f, to w.
func renameNotes(w io.Writer, res *report.LatencyResult, f *schedule.Filter, runs nameRuns) {
	if f != nil {
		if h := commRenameHint(f.Comms, res.TaskRows, runs); h != "" {
			fmt.Fprintln(w, h)
		}
	}
	printRenamed(w, res, f, runs)
}

// printRenamed writes renamedNote after the warnings, when rows matched
// and no --comm filter gave its own hint (commRenameHint).
func printRenamed(w io.Writer, res *report.LatencyResult, f *schedule.Filter, runs nameRuns) {
	if wn, ok := renamedWarning(res, f, runs); ok {
		fmt.Fprintln(w, "note: "+wn.Message)
	}
}

// renamedWarning is printRenamed's note as a warning for -o json
// ("renamed-tasks", Count the tasks it names), ok false when there is none
// (new-user pass 52 F4: the JSON had no trace of it).
func renamedWarning(res *report.LatencyResult, f *schedule.Filter, runs nameRuns) (trace.Warning, bool) {
	if res.Unmatched != nil || f != nil && f.Comms != nil {
		return trace.Warning{}, false
	}
	rows := res.TaskRows
	if f.Active() {
		// Only the rows the filters leave (the table's): a note about
		// other tasks came before the one row --tid asked for (new-user
		// pass 87 F6).
		rows = slices.DeleteFunc(slices.Clone(rows), func(r report.LatencyRow) bool {
			return r.Count == 0 && r.Switches == 0 && r.Runtime == 0 && r.Lossy == 0
		})
	}
	text, n := renamedText(rows, runs)
	if text == "" {
		return trace.Warning{}, false
	}
	return trace.Warning{Key: "renamed-tasks", Count: n, CountInMessage: true, Message: text}, true
}

// checkStatedCgroups rejects (exit 2) a --recorded-cgroup PATH that no task
// group of the trace has: a typo would otherwise silently change nothing.
func checkStatedCgroups(cmdName string, stated []trace.CgroupSettings, groups []report.CgroupThrottle) error {
	for _, s := range stated {
		if !hasCgroup(groups, s.Path) {
			return usageErrorf("%s: --recorded-cgroup %s: no task of the trace ran in that cgroup; %s", cmdName, s.Path, groupsHeld(groups))
		}
	}
	return nil
}

// hasCgroup reports whether groups holds path.
func hasCgroup(groups []report.CgroupThrottle, path string) bool {
	return slices.ContainsFunc(groups, func(g report.CgroupThrottle) bool { return g.Path == path })
}

// groupsHeld says which task groups a trace holds, for an error about a
// group it lacks: "its groups: /a, /b", or why it records none.
func groupsHeld(groups []report.CgroupThrottle) string {
	if len(groups) == 0 {
		// (perf's cgroup ids are cgroup v2 ones: with the cpu controller
		// on a v1 hierarchy a v1 cpu group is in none, and a user who
		// recorded with --all-cgroups was told to: new-user pass 14 F4.)
		return "the trace records no task groups outside the root (perf record --all-cgroups records cgroup v2 groups only; traceview record also records cgroup v1 cpu groups)"
	}
	paths := make([]string, len(groups))
	for i, g := range groups {
		paths[i] = g.Path
	}
	return "its groups: " + strings.Join(paths, ", ")
}

// printLatencyWarnings writes the warnings of the report of input: the
// reader's lost windows and warnings and the report's own, as
// writeWarnings does (one summary line without -v).
//
// "Nothing matched the filters" comes first and always in full (answerKey):
// it is the answer, and the other warnings explain the trace rather than it.
func printLatencyWarnings(w io.Writer, input string, res *report.LatencyResult) {
	writeWarnings(w, input, "", append(metaWarnings(res.Meta), res.ReportWarnings...))
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
