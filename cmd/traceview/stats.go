package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type statsOptions struct {
	input     string
	output    string
	buckets   int
	keepLossy bool
	filter    filterFlags
}

func init() {
	addCommand(func() *cobra.Command {
		var o statsOptions
		cmd := &cobra.Command{
			Use:   "stats [-i FILE] [-o table|json|csv] [--series N] [--time START,STOP] [--cpu LIST] [--pid|--tid LIST] [--comm NAMES]",
			Short: "Per-CPU utilization, runqueue length, migrations and delay histograms",
			Long:  helpText("stats"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runStats(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv (one row per CPU)")
		f.BoolVar(&o.keepLossy, "keep-lossy", false, "keep delays and runs that overlap lost events (default: left out and counted)")
		f.IntVar(&o.buckets, "series", 0, "also compute time series over N buckets (json output)")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		return cmd
	})
}

// maxSeriesBuckets bounds --series: each bucket holds two float64 per CPU
// (utilization, runqueue length), so 100000 buckets on 64 CPUs is 100 MiB;
// an unbounded N let a typo exhaust memory (the review's --series 100000000
// was killed by the kernel).
const maxSeriesBuckets = 100000

func runStats(cmd *cobra.Command, o statsOptions) error {
	if o.output != "table" && o.output != "json" && o.output != "csv" {
		return usageErrorf("stats: unknown output format %q (want table, json or csv)", o.output)
	}
	if o.buckets < 0 || o.buckets > maxSeriesBuckets {
		return usageErrorf("stats: --series must be 0..%d, got %d", maxSeriesBuckets, o.buckets)
	}
	if o.buckets > 0 && o.output != "json" {
		return usageErrorf("stats: --series %d: the time series go into the JSON output only: add -o json (the %s output has no series)", o.buckets, o.output)
	}
	if err := o.filter.check("stats"); err != nil {
		return err
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	flt, err := o.filter.resolve("stats", src.Meta())
	if err != nil {
		return err
	}
	st, err := report.ComputeStats(src, report.StatsOptions{Buckets: o.buckets, KeepLossy: o.keepLossy, Filter: flt})
	if err != nil {
		return readFailed(cmd, o.input, src.Meta(), fmt.Errorf("stats: %s: %w", o.input, err))
	}
	switches := 0
	for _, c := range st.CPUs {
		switches += int(c.Switches)
	}
	if switches == 0 {
		// Not an all-zero table. Filters that leave no switch say so
		// first, with what the trace holds, as every command's no-match
		// message, then the trace's warnings, and exit 0 as latency,
		// timehist and map do (the filters were valid; nothing fell in
		// them): no table, and with -o json the empty stats.
		for _, w := range st.Warnings {
			if w.Key == "stats-empty" {
				writeStatsWarnings(cmd.ErrOrStderr(), o, src.Meta(), st)
				if o.output == "json" {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					st.Warnings = answerFirst(st.Warnings)
					return enc.Encode(st)
				}
				return nil
			}
		}
		return readFailed(cmd, o.input, src.Meta(), noSwitchesError("stats", o.input, st.Events, src.Meta()))
	}
	out := cmd.OutOrStdout()
	writeStatsWarnings(cmd.ErrOrStderr(), o, src.Meta(), st)
	switch o.output {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		st.Warnings = answerFirst(st.Warnings)
		return enc.Encode(st)
	case "csv":
		// What the rows leave out, as latency -o csv says of the task
		// groups (new-user pass 111 F4: the histograms went without a
		// word).
		fmt.Fprintln(cmd.ErrOrStderr(), "note: stats -o csv holds the per-CPU table only; the trace's summary line and the scheduling-delay histograms are in the table output and in -o json")
		return writeStatsCSV(out, st)
	}
	return writeStatsTable(out, st, flt)
}

// statsCSVHeader names writeStatsCSV's columns: the per-CPU table's, times
// in ns, shares 0..1, as the JSON's fields.
var statsCSVHeader = []string{"cpu", "utilization", "busy_ns", "observed_ns", "unknown_ns", "unknown_share",
	"runqueue_avg", "runqueue_max", "idle_waiting_ns", "switches", "migrations_in", "migrations_out"}

// writeStatsCSV writes one row per CPU of st (the JSON's "cpus"); a CPU
// with no recorded run has its measured columns empty (unknown, the
// JSON's null), its migrations as counted.
func writeStatsCSV(w io.Writer, st *report.Stats) error {
	cw := csv.NewWriter(w)
	cw.Write(statsCSVHeader)
	for _, c := range st.CPUs {
		row := []string{strconv.Itoa(int(c.CPU)), "", "", "", "", "", "", "", "", "",
			strconv.FormatInt(c.MigrateIn, 10), strconv.FormatInt(c.MigrateOut, 10)}
		if st.MigrationsUnknown {
			row[10], row[11] = "", "" // unknown, not 0 (the JSON's migrations_unknown)
		}
		if !c.Unobserved {
			copy(row[1:], []string{
				strconv.FormatFloat(c.Utilization, 'f', 6, 64), strconv.FormatInt(c.Busy, 10),
				strconv.FormatInt(c.Observed, 10), strconv.FormatInt(c.Unknown, 10),
				strconv.FormatFloat(c.UnknownShare, 'f', 6, 64), strconv.FormatFloat(c.RunqueueAvg, 'f', 6, 64),
				strconv.Itoa(c.RunqueueMax), strconv.FormatInt(c.IdleWaiting, 10), strconv.FormatInt(c.Switches, 10)})
			if !c.RunqueueMeasured() {
				row[6], row[7], row[8] = "", "", ""
			}
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeStatsWarnings writes to w the warnings of the stats st of input
// o.input read with meta m: the no-match message first (answerKey, as
// every command), then the reader's and the stats' own: one summary line
// whatever -o is, each with -v, as latency's (the JSON holds them all in
// its "warnings"; new-user pass 111 F3: -o json printed each in full).
func writeStatsWarnings(w io.Writer, o statsOptions, m *trace.Meta, st *report.Stats) {
	var ws []trace.Warning
	for _, wn := range st.Warnings {
		if wn.Key == "stats-empty" {
			ws = append(ws, wn)
		}
	}
	empty := len(ws) > 0 // the no-match answer: no view for the stats' own to qualify
	ws = append(ws, metaWarnings(m)...)
	reader := map[string]bool{}
	if m != nil {
		for _, wn := range m.Warnings.List() {
			reader[wn.Key] = true
		}
	}
	for _, wn := range st.Warnings {
		if wn.Key != "stats-empty" && !reader[wn.Key] && !empty { // the stats' own (answerKey's above); the reader's are in m
			ws = append(ws, wn)
		}
	}
	writeWarnings(w, o.input, "", ws)
}

// statsIdleWaitingShown is the share of a CPU's observed time from which
// its idle time with tasks waiting is printed under the table (JSON always
// has it).
const statsIdleWaitingShown = 0.01

// writeStatsUnknown prints, under the CPU table, the share of each CPU's
// observed time the trace cannot attribute (counted in Utilization's
// denominator, never as busy) and the CPUs with no recorded run, whose
// 0 % means unknown; nothing when there are none.
func writeStatsUnknown(w io.Writer, cpus []report.StatsCPU) {
	var shares []string
	var unobserved []int
	for _, c := range cpus {
		if c.Unobserved {
			unobserved = append(unobserved, int(c.CPU))
		} else if c.Unknown > 0 {
			shares = append(shares, fmt.Sprintf("CPU %d %.2f %%", c.CPU, 100*c.UnknownShare))
		}
	}
	if len(shares) > 0 {
		fmt.Fprintf(w, "Unknown share of observed time (switches missing or events lost; never counted as busy, so Utilization is a lower bound): %s\n",
			strings.Join(shares, ", "))
	}
	var waiting []string
	rqUnknown, fewer := false, false
	var rqLost []int
	for _, c := range cpus {
		rqUnknown = rqUnknown || c.RunqueueUnknown && !c.Unobserved
		if c.RunqueueLost && !c.RunqueueUnknown && !c.Unobserved {
			rqLost = append(rqLost, int(c.CPU))
		}
		if c.RunqueueMeasured() && c.Observed > 0 && float64(c.IdleWaiting) >= statsIdleWaitingShown*float64(c.Observed) {
			waiting = append(waiting, fmt.Sprintf("CPU %d %.3f ms (%.2f %%)", c.CPU, float64(c.IdleWaiting)/1e6, 100*float64(c.IdleWaiting)/float64(c.Observed)))
		} else if c.IdleWaiting > 0 {
			fewer = true
		}
	}
	if len(waiting) > 0 {
		// The first cause is the common one: each wakeup onto an idle CPU
		// waits for the CPU to leave idle, which thousands of wakeups sum
		// to a few per cent (new-user pass 41 F2: 111 ms a CPU with no
		// quota and 1 ms of missing switch-ins, read as a quota to find).
		// CPUs under the threshold are said to be left out (F3).
		if fewer {
			waiting = append(waiting, fmt.Sprintf("the other CPUs under %.0f %% (JSON idle_waiting_ns has them)", 100*statsIdleWaitingShown))
		}
		fmt.Fprintf(w, "Idle while tasks waited on its runqueue (tasks woken onto an idle CPU wait for it to leave idle, a task group out of CPU quota waits for its refill, or the trace lacks switch-ins; counted in Runqueue avg): %s\n",
			strings.Join(waiting, ", "))
	}
	if rqUnknown {
		fmt.Fprintf(w, "Runqueue not measured (-): the recording left out some of the machine's CPUs, and a task queued on a recorded one may have been pulled to one of them and run there\n")
	}
	if len(rqLost) > 0 {
		fmt.Fprintf(w, "Runqueue not measured (-) on CPU %s: its observed time lies wholly in lost-event windows, where what waited is unknown too\n", cpulist.Format(rqLost))
	}
	if len(unobserved) > 0 {
		which := "CPU " + cpulist.Format(unobserved) + " has"
		if len(unobserved) > 1 {
			which = "CPUs " + cpulist.Format(unobserved) + " have"
		}
		fmt.Fprintf(w, "%s no recorded sched_switch (a CPU the capture left out, or one with no scheduler event): its utilization and runqueue are unknown (-), not 0\n", which)
	}
}

// writeStatsTable prints Stats for people; flt (may be nil) is the run's
// filter.
func writeStatsTable(w io.Writer, st *report.Stats, flt *schedule.Filter) error {
	writeStatsHeader(w, st, flt)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CPU\tUtilization %\tBusy ms\tObserved ms\tUnknown ms\tRunqueue avg\tRunqueue max\tSwitches\tMigrations in\tMigrations out\t")
	for _, c := range st.CPUs {
		if c.Unobserved { // nothing measured: every column unknown but the migrations other CPUs recorded
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t-\t-\t%d\t%d\t\n", c.CPU, c.MigrateIn, c.MigrateOut)
			continue
		}
		rqAvg, rqMax := fmt.Sprintf("%.3f tasks", c.RunqueueAvg), fmt.Sprintf("%d tasks", c.RunqueueMax)
		if !c.RunqueueMeasured() {
			rqAvg, rqMax = "-", "-"
		}
		migIn, migOut := strconv.FormatInt(c.MigrateIn, 10), strconv.FormatInt(c.MigrateOut, 10)
		if st.MigrationsUnknown {
			migIn, migOut = "-", "-"
		}
		fmt.Fprintf(tw, "%d\t%.2f %%\t%.3f ms\t%.3f ms\t%.3f ms\t%s\t%s\t%d\t%s\t%s\t\n",
			c.CPU, 100*c.Utilization, float64(c.Busy)/1e6, float64(c.Observed)/1e6, float64(c.Unknown)/1e6,
			rqAvg, rqMax, c.Switches, migIn, migOut)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeStatsUnknown(w, st.CPUs)
	for _, h := range []struct {
		title string
		h     report.StatsHistogram
	}{
		{"Scheduling delay, all (wakeup or preemption to switch-in)", st.Delays},
		{"Scheduling delay after wakeup", st.WakeupDelays},
		{"Scheduling delay after preemption", st.PreemptDelays},
	} {
		if st.NoWakeups && h.title == "Scheduling delay after wakeup" {
			fmt.Fprintf(w, "\n%s: not measured (the trace records no wakeup)\n", h.title)
			continue
		}
		fmt.Fprintf(w, "\n%s: %s, sum %.3f ms, max %.3f ms\n", h.title, plural(int(h.h.Count), "delay"), float64(h.h.Sum)/1e6, float64(h.h.Max)/1e6)
		writeLog2Hist(w, h.h)
	}
	return nil
}

// writeStatsHeader prints the table's first line. Filtered, it says which
// figures are the window's (its duration, the migrations in it; the table
// below) and which the whole trace's (events, tasks, CPUs), which one
// "Trace:" line mixed.
func writeStatsHeader(w io.Writer, st *report.Stats, flt *schedule.Filter) {
	tasks := plural(st.Tasks, "task") + " scheduled"
	if st.TasksNamed > st.Tasks {
		tasks += fmt.Sprintf(" (%d more only named)", st.TasksNamed-st.Tasks)
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	if !flt.Active() {
		fmt.Fprintf(w, "Trace: %.3f ms (first to last scheduler event), %s, %s, %s with events, %s\n",
			ms(st.Duration), plural(int(st.Events), "event"), tasks, plural(st.ObservedCPUs(), "CPU"), statsMigrations(st))
		return
	}
	fmt.Fprintf(w, "Window (%s): %.3f ms of the trace's %.3f ms (first to last scheduler event), %s in it; the whole trace: %s, %s, %s with events\n",
		flt, ms(st.Duration), ms(st.TraceEnd-st.TraceStart), statsMigrations(st),
		plural(int(st.Events), "event"), tasks, plural(st.RecordedCPUs, "CPU"))
	if flt.PIDs != nil || flt.TIDs != nil || flt.Comms != nil || flt.Cgroups != nil {
		// (new-user pass 29 F2: read as the selected tasks' busy time.)
		fmt.Fprintln(w, "The CPU table is every task's in the window (what the CPUs did); the task filters select the migrations and the delays.")
	}
}

// writeLog2Hist draws a histogram in the layout of bcc's print_log2_hist
// ("low -> high : count |****|").
func writeLog2Hist(w io.Writer, h report.StatsHistogram) {
	if h.Count == 0 {
		return
	}
	var top int64
	for _, b := range h.Buckets {
		top = max(top, b.Count)
	}
	fmt.Fprintf(w, "%20s : %-8s %s\n", "usecs", "count", "distribution")
	const width = 40
	for _, b := range h.Buckets {
		n := int(b.Count * width / top)
		if b.Count > 0 && n == 0 {
			n = 1
		}
		fmt.Fprintf(w, "%10d -> %-7d : %-8d |%-40s|\n", b.Low, b.High, b.Count, strings.Repeat("*", n))
	}
}

// statsMigrations is the header's migration count: "N migrations", or
// "migrations not recorded" when the trace has none though tasks moved
// (Stats.MigrationsUnknown).
func statsMigrations(st *report.Stats) string {
	if st.MigrationsUnknown {
		return "migrations not recorded"
	}
	return plural(int(st.Migrations), "migration")
}
