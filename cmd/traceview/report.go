package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type reportOptions struct {
	input    string
	out      string
	top      int
	buckets  int
	perf     bool
	recorded []string // --recorded-cgroup
	filter   filterFlags
}

func init() {
	addCommand(func() *cobra.Command {
		var o reportOptions
		cmd := &cobra.Command{
			Use:   "report [-i FILE] -o report.html",
			Short: "Write a self-contained HTML report with plots",
			Long:  helpText("report"),
			Args:  cobra.NoArgs,
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
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "PATH:max=QUOTA/PERIOD|max[,weight=W|shares=S][,burst=DURATION]: a group's settings when recorded, where the trace does not carry them (perf.data); max=max for no quota, as 'latency' takes them (repeatable)")
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
	stated, err := statedCgroups("report", o.recorded, o.perf)
	if err != nil {
		return err
	}
	return writeFromTrace(cmd, "report", o.input, o.out, &o.filter, func(w io.Writer, src trace.Source, f *schedule.Filter) error {
		opts := report.HTMLOptions{
			Name: o.input, Top: o.top, Buckets: o.buckets,
			Latency: report.LatencyOptions{PerfCompat: o.perf, Filter: f, Cgroups: stated},
		}
		if !o.perf {
			// The renamed tasks' note, as latency's (renamedWarning).
			var names func() nameRuns
			src, names = watchNames(src, f)
			opts.Notes = func(rows []report.LatencyRow) []string {
				res := &report.LatencyResult{TaskRows: rows}
				if wn, ok := renamedWarning(res, f, names()); ok {
					return []string{wn.Message}
				}
				return nil
			}
		}
		// Its latency's own warnings, with the reader's (writeFromTrace
		// prints them): the no-match and window notes it says itself.
		opts.Warnings = func(ws []trace.Warning) { addReportWarnings(src.Meta(), ws) }
		return report.WriteHTMLReport(w, src, opts)
	})
}

// addReportWarnings adds ws, a report's own warnings, to meta's, for
// printWarnings to say with the reader's (one summary line; each with -v),
// less those a command prints in its own words: the no-match message and
// the --time window's note (writeFromTrace's, the views').
func addReportWarnings(meta *trace.Meta, ws []trace.Warning) {
	if meta == nil {
		return
	}
	for _, w := range ws {
		if emptyKey(w.Key) || w.Key == report.TimeOutsideKey {
			continue
		}
		meta.Warnings.AddScoped("", w)
	}
}
