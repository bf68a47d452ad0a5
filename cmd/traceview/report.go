package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type reportOptions struct {
	input   string
	out     string
	top     int
	buckets int
	perf    bool
	filter  filterFlags
}

func init() {
	addCommand(func() *cobra.Command {
		var o reportOptions
		cmd := &cobra.Command{
			Use:   "report [-i FILE] -o report.html",
			Short: "Write a self-contained HTML report with plots",
			Long: `Write one self-contained HTML file (no scripts, nothing loaded from the
network) about a trace: the trace summary, the top tasks by sum and by p99
scheduling delay, a histogram of scheduling delays in log2 microsecond
buckets (as bcc's runqlat), per-CPU utilization and runqueue length over
time, and the latency table of 'traceview latency' with a p99 column.
Plots are inline SVG.

Example:
  traceview report -i testdata/traces/nice.2cpu.perf.data -o report.html
  xdg-open report.html
  traceview report -i testdata/traces/messaging.2cpu.perf.data --time 0%-50% -o first-half.html

` + filterHelp + `
The statistics, plots and table then cover only what the filters select.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runReport(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.out, "output", "o", "report.html", "HTML file to write (- for stdout)")
		f.IntVar(&o.top, "top", 10, "rows in the top-task lists")
		f.IntVar(&o.buckets, "buckets", 200, "time buckets of the utilization and runqueue plots")
		f.BoolVar(&o.perf, "perf", false, "measure delays exactly as perf 6.12 does (see 'traceview latency --help')")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		return cmd
	})
}

func runReport(cmd *cobra.Command, o reportOptions) error {
	if o.top <= 0 || o.buckets <= 0 || o.buckets > maxSeriesBuckets {
		return usageErrorf("report: --top must be positive and --buckets 1..%d, got %d and %d", maxSeriesBuckets, o.top, o.buckets)
	}
	if o.perf && o.filter.given() {
		return usageErrorf("report: %s: perf's latency (--perf) has no filters; drop --perf or the filters", o.filter.names())
	}
	return writeFromTrace(cmd, "report", o.input, o.out, &o.filter, func(w io.Writer, src trace.Source, f *schedule.Filter) error {
		return report.WriteHTMLReport(w, src, report.HTMLOptions{
			Name: o.input, Top: o.top, Buckets: o.buckets,
			Latency: report.LatencyOptions{PerfCompat: o.perf, Filter: f},
		})
	})
}
