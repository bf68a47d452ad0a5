package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/export"
	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/kallsyms"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/report/tables"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type exportOptions struct {
	input    string
	format   string
	out      string
	compact  bool
	traceID  string
	filter   filterFlags
	kallsyms string
}

func init() {
	addCommand(func() *cobra.Command {
		var o exportOptions
		cmd := &cobra.Command{
			Use:   "export --format pprof|perfetto|chrome-json|parquet [-i FILE] [-o OUT]",
			Short: "Export scheduling delay to pprof, the schedule to Perfetto, or tables to Parquet",
			Long:  helpText("export"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runExport(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVar(&o.format, "format", "", "export format: "+export.List()+" (required)")
		f.BoolVar(&o.compact, "compact", false, "perfetto: write sched_switch and sched_waking in the compact_sched encoding")
		f.StringVarP(&o.out, "output", "o", "-", "file to write (- for stdout); for parquet the directory to create")
		f.StringVar(&o.traceID, "trace-id", "", "parquet: the trace_id of every row (default: SHA-256 of the input, 16 hex digits)")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		f.StringVar(&o.kallsyms, "kallsyms", "", "pprof: kallsyms file naming the kernel frames of callchains (gzip allowed; default: /proc/kallsyms when the trace is from the running kernel)")
		return cmd
	})
}

func runExport(cmd *cobra.Command, o exportOptions) error {
	if o.format == "" {
		return usageErrorf("export: --format is required (%s)", export.List())
	}
	fm, err := export.Lookup(o.format)
	if err != nil {
		return usageErrorf("export: %v", err)
	}
	for _, opt := range []struct {
		name  string
		given bool
	}{{export.OptCompact, o.compact}, {export.OptKallsyms, o.kallsyms != ""}, {export.OptTraceID, o.traceID != ""}} {
		if opt.given && !fm.Takes(opt.name) {
			return usageErrorf("export: --%s is for --format %s", opt.name, export.Taking(opt.name))
		}
	}
	if !fm.Filters && o.filter.given() {
		return usageErrorf("export: %s: %s", o.filter.names(), fm.NoFilters)
	}
	if fm.WriteDir != nil {
		return runExportDir(cmd, fm, o)
	}
	if fm.Binary && o.out == "-" {
		if isTerminal(cmd.OutOrStdout()) {
			return usageErrorf("export: a %s trace is binary; give a file with -o FILE", o.format)
		}
	}
	var ksyms *kallsyms.Table
	if o.kallsyms != "" {
		if ksyms, err = loadKallsyms(o.kallsyms); err != nil {
			return usageErrorf("export: --kallsyms: %v", err)
		}
	}
	// The format's own caveats go after the answer: writeFromTrace says
	// first when the filters matched nothing (new-user pass 118 F3: the
	// task-group caveat of pprof came before it).
	var notes bytes.Buffer
	defer func() {
		if notes.Len() > 0 {
			cmd.ErrOrStderr().Write(notes.Bytes())
		}
	}()
	return writeFromTrace(cmd, "export "+o.format, o.input, o.out, &o.filter, func(w io.Writer, in trace.Source, f *schedule.Filter) error {
		// switches: the export is of a trace with some (writeFromTrace
		// refuses one without, after this), so its warnings apply.
		var switches int64
		src := &trace.Tap{Source: in, Observe: func(e *trace.Event) {
			if e.Kind == trace.KindSwitch {
				switches++
			}
		}}
		opts := export.Options{Filter: f, Compact: o.compact, Source: o.input,
			// The source's warnings as the file carries them, naming it
			// as convert's do.
			WarningText: func(m string) string { return "exported from " + namedMessage(o.input, "", m) },
			// What the schedule it rebuilt lacks, with the reader's
			// warnings (new-user pass 111 F1: said by none).
			Schedule: func(c *schedule.Counters) { addReportWarnings(src.Meta(), report.ScheduleWarnings(c)) }}
		if ksyms != nil {
			opts.KernelSymbols = ksyms
		} else if fm.Takes(export.OptKallsyms) {
			opts.KernelSymbols = &runningKallsyms{meta: src.Meta()}
		}
		err := fm.Write(w, src, opts)
		if err == nil && fm.Loses != "" && recordsGroups(src) && (fm.LosesIf == nil || fm.LosesIf(src.Meta())) {
			fmt.Fprintf(&notes, "warning: export %s: %s records task groups; %s\n", fm.Name, o.input, fm.Loses)
		}
		if m := src.Meta(); err == nil && fm.Name == "perfetto" && switches > 0 {
			if lost := perfettoLosses(m); lost != "" {
				fmt.Fprintf(&notes, "warning: export perfetto: %s lost events (%s); Perfetto's UI shows which CPUs lost data and how many events each (lost_events, ftrace_stats) and a cut as a failed final flush, not the unobserved windows, per-window counts nor the events of a damaged or cut file: those are kept as traceview trace attributes, which traceview reads back\n",
					o.input, lost)
			}
		}
		if m := src.Meta(); err == nil && fm.Name == "perfetto" && m != nil {
			if recorded := trace.RecordedCPUs(m); len(recorded) > 0 {
				cpus := make([]int, len(recorded))
				for i, c := range recorded {
					cpus[i] = int(c)
				}
				// (The Perfetto trace has no place for perf's command
				// line, which is where readers learn the CPU list.)
				fmt.Fprintf(&notes, "warning: export perfetto: %s was recorded on some CPUs only (perf record -C %s); the Perfetto trace cannot say so, so a report on it measures delays a task may have spent running on the others\n",
					o.input, cpulist.Format(cpus))
			}
		}
		return err
	})
}

// perfettoLosses summarizes the losses of a trace (m, read to its end)
// for export perfetto's warning: "33969 in 276 windows", "8192 in its
// damaged or cut part; cut short"; "" when it lost nothing. The Perfetto
// trace marks each CPU's losses (a lost_events bundle where each was
// noticed), counts them per CPU (FtraceStats overrun) and says the source
// was cut (TraceStats final_flush_outcome), which trace processor reads;
// the rest goes in trace attributes that only traceview reads
// (trace/perfettopb/loss.go).
func perfettoLosses(m *trace.Meta) string {
	if m == nil {
		return ""
	}
	var parts []string
	var n uint64
	for _, l := range m.Lost {
		n += l.Count
	}
	if len(m.Lost) > 0 {
		parts = append(parts, fmt.Sprintf("%d in %s", n, plural(len(m.Lost), "window")))
	}
	if m.LostUnplaced > 0 {
		parts = append(parts, fmt.Sprintf("%d on no CPU", m.LostUnplaced))
	}
	if m.LostInFile > 0 {
		parts = append(parts, fmt.Sprintf("%d in its damaged or cut part", m.LostInFile))
	}
	if m.Cut() {
		parts = append(parts, "cut short")
	}
	return strings.Join(parts, "; ")
}

// recordsGroups reports whether src, read to its end, recorded task
// groups: cgroup paths (the readers name every cgroup id their events
// carry there) or CPU-controller settings in its Meta (a traceview
// capture, perf record --all-cgroups).
func recordsGroups(src trace.Source) bool {
	m := src.Meta()
	return m != nil && (len(m.Cgroups) > 0 || len(m.CgroupSettings) > 0)
}

// writeFromTrace is the shared body of the commands that turn a whole trace
// into one output file (export, report): it opens input and out ("-":
// stdout), runs write over the events, closes the file (reporting its close
// error), refuses a trace without sched_switch events, and prints the reader's counted warnings. Errors are prefixed by
// what ("export pprof", "report"). On failure the output file is removed
// only if this run created it (see outputFile). filter (may be nil) is
// checked before the trace is opened and resolved against it before the
// output is created; write gets the result (nil: no filter).
func writeFromTrace(cmd *cobra.Command, what, input, out string, filter *filterFlags, write func(io.Writer, trace.Source, *schedule.Filter) error) error {
	name := subcommandName(cmd)
	if filter == nil {
		filter = &filterFlags{}
	}
	if err := filter.check(name); err != nil {
		return err
	}
	if err := refuseOverInput(name, "-o", out, input); err != nil {
		return err
	}
	src, err := openInputProgress(input)
	if err != nil {
		return err
	}
	defer src.Close()
	flt, err := filter.resolve(name, src.Meta())
	if err != nil {
		return err
	}
	var w io.Writer = cmd.OutOrStdout()
	var f *outputFile
	if out != "-" {
		if f, err = createOutput(out); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		defer f.Close()
		w = f
	}
	// fail removes the output file if this run created it (see outputFile).
	fail := func(err error) error {
		if f != nil {
			f.discard()
		}
		return readFailed(cmd, input, src.Meta(), err)
	}
	cs := switchCount{filter: flt, ext: newTraceExtent()}
	cs.ext.meta, cs.ext.filter = src.Meta(), flt
	if err := write(w, &trace.Tap{Source: src, Observe: cs.observe}, flt); err != nil {
		return fail(fmt.Errorf("%s: %s: %w", what, input, err))
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
	}
	if err := cs.check(what, input, src.Meta()); err != nil {
		return fail(err)
	}
	if flt.Active() && cs.matched == 0 {
		// The answer first, in every command's words (it named neither
		// the CPUs nor the closest names).
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", cs.ext.noMatch(flt.String(), flt.Comms, flt.PIDs))
	} else {
		cs.ext.addWindowNote(src.Meta(), flt)
	}
	printWarnings(cmd.ErrOrStderr(), input, src.Meta())
	return nil
}

// switchCount counts the events and sched_switch events read through a
// trace.Tap, so that a command whose output would be empty (export,
// report) can say the trace had none, as latency does, instead of writing
// an empty file; and, with a filter, the sched_switch events in its window
// and CPUs that switch out or in a task it selects and the
// sched_stat_runtime events of one (matched), so that such a command can
// say when the filter matched nothing.
type switchCount struct {
	filter                    *schedule.Filter
	events, switches, matched int64
	ext                       *traceExtent // for the no-match message
}

func (s *switchCount) observe(e *trace.Event) {
	s.ext.observe(e)
	s.events++
	f := s.filter
	if e.Kind == trace.KindRuntime && e.TID > 0 && f.Time(e.Time) && f.CPU(e.CPU) && f.TaskIDs(e.TID, e.PID, e.Comm, e.Cgroup) {
		// A selected task ran here (perf --all-cgroups samples its
		// cgroup at each tick: one that left the group before any
		// switch-out there has only these).
		s.matched++
	}
	if e.Kind != trace.KindSwitch {
		return
	}
	s.switches++
	if f.Time(e.Time) && f.CPU(e.CPU) && (e.TID > 0 && f.TaskIDs(e.TID, e.PID, e.Comm, e.Cgroup) ||
		e.NextTID > 0 && f.TaskIDs(e.NextTID, e.NextPID, e.NextComm, 0)) {
		s.matched++
	}
}

// check returns the error for a trace without sched_switch events (the
// caller discards the output file).
func (s *switchCount) check(cmd, input string, m *trace.Meta) error {
	if s.switches > 0 {
		return nil
	}
	return noSwitchesError(cmd, input, int64(s.events), m)
}

// runExportDir writes the files of o.input into the new directory o.out
// with a directory format (parquet: see tables.Write, nothing is left
// behind on failure).
func runExportDir(cmd *cobra.Command, fm export.Format, o exportOptions) error {
	if o.out == "-" || o.out == "" {
		return usageErrorf("export: --format %s writes a directory of files; give it with -o DIR", fm.Name)
	}
	if o.input == "-" && o.traceID == "" {
		return usageErrorf("export: reading stdin, --format %s needs --trace-id (the default hashes the input file)", fm.Name)
	}
	what := "export " + fm.Name
	if err := refuseOverInput("export", "-o", o.out, o.input); err != nil {
		return err
	}
	if err := tables.CheckTarget(o.out); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	id := o.traceID
	if id == "" {
		var err error
		if id, err = tables.FileID(o.input); err != nil {
			if _, oerr := openInput(o.input); oerr != nil {
				return oerr // the missing-trace error every command gives
			}
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	// What its latency tables lack, with the reader's warnings, as the
	// other formats say it (new-user pass 111: said by none).
	opts := export.Options{TraceID: id, Source: o.input, Warnings: func(ws []trace.Warning) { addReportWarnings(src.Meta(), ws) }}
	if err := fm.WriteDir(o.out, src, opts); err != nil {
		if ns := (*tables.NoSwitchesError)(nil); errors.As(err, &ns) {
			// (The cut-short error as every command gives it: new-user
			// pass 29 F8 read "record with 'perf sched record'".)
			err = noSwitchesError(what, o.input, ns.Events, src.Meta())
		} else {
			err = fmt.Errorf("%s: %s: %w", what, o.input, err)
		}
		return readFailed(cmd, o.input, src.Meta(), err)
	}
	printWarnings(cmd.ErrOrStderr(), o.input, src.Meta())
	return nil
}
