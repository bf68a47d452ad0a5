package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

type exportOptions struct {
	input  string
	format string
	out    string
}

func init() {
	addCommand(func() *cobra.Command {
		var o exportOptions
		cmd := &cobra.Command{
			Use:   "export --format pprof|perfetto [-i FILE] [-o OUT]",
			Short: "Export scheduling delay to pprof, or the schedule to Perfetto",
			Long: `Export a trace into the tools people already use.

--format pprof writes a gzipped pprof profile (github.com/google/pprof)
with three sample types: delay (scheduling delay, nanoseconds; the default),
runtime (nanoseconds) and switches (count). Each delay sample's stack is
[process; thread; reason], reason being "woken by <waker comm>" or
"preempted", so pprof shows where time waited and behind whom. Thread
frames are named comm:tid; their cumulative delay equals the Sum delay of
'traceview latency -p'.

--format perfetto writes Chrome trace-event JSON for ui.perfetto.dev or
chrome://tracing: one track per CPU with the tasks it ran, one track per task
with its states (Running, Runnable (preempted), Runnable (woken), Sleeping,
Uninterruptible) and flow arrows from each waker to the task it woke.

Example:
  traceview export --format pprof -i perf.data -o delay.pb.gz
  go tool pprof -top -cum delay.pb.gz        # threads by scheduling delay
  go tool pprof -http=: delay.pb.gz          # flame graph of delay by waker
  traceview export --format perfetto -i perf.data -o sched.json`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runExport(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", "perf.data", "trace file to read (any format; - for stdin)")
		f.StringVar(&o.format, "format", "", "export format: pprof or perfetto (required)")
		f.StringVarP(&o.out, "output", "o", "-", "file to write (- for stdout)")
		return cmd
	})
}

func runExport(cmd *cobra.Command, o exportOptions) error {
	switch o.format {
	case "pprof":
		if o.out == "-" {
			if f, ok := cmd.OutOrStdout().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				return usageErrorf("export: a pprof profile is binary; give a file with -o FILE")
			}
		}
	case "perfetto":
	case "":
		return usageErrorf("export: --format is required (pprof or perfetto)")
	default:
		return usageErrorf("export: unknown format %q (want pprof or perfetto)", o.format)
	}
	return writeFromTrace(cmd, "export "+o.format, o.input, o.out, func(w io.Writer, src trace.Source) error {
		if o.format == "pprof" {
			return report.WritePprof(w, src)
		}
		return report.WritePerfetto(w, src)
	})
}

// writeFromTrace is the shared body of the commands that turn a whole trace
// into one output file (export, report): it opens input and out ("-":
// stdout), runs write over the events, closes the file (reporting its close
// error), refuses a trace without sched_switch events, and prints the reader's counted warnings. Errors are prefixed by
// what ("export pprof", "report"). On failure the output file is removed
// only if this run created it (see outputFile).
func writeFromTrace(cmd *cobra.Command, what, input, out string, write func(io.Writer, trace.Source) error) error {
	src, err := openInputProgress(input)
	if err != nil {
		return err
	}
	defer src.Close()
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
		return readFailed(cmd, src.Meta(), err)
	}
	cs := &switchCountingSource{Source: src}
	if err := write(w, cs); err != nil {
		return fail(fmt.Errorf("%s: %s: %w", what, input, err))
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fail(fmt.Errorf("%s: %w", what, err))
		}
	}
	if err := cs.check(what, input); err != nil {
		return fail(err)
	}
	printWarnings(cmd.ErrOrStderr(), src.Meta())
	return nil
}

// switchCountingSource counts the sched_switch events read through it, so
// that a command whose output would be empty (export, report) can say the
// trace had none, as latency does, instead of writing an empty file.
type switchCountingSource struct {
	trace.Source
	events, switches int64
}

func (s *switchCountingSource) Next() (trace.Event, error) {
	e, err := s.Source.Next()
	if err == nil {
		s.events++
		if e.Kind == trace.KindSwitch {
			s.switches++
		}
	}
	return e, err
}

// check returns the error for a trace without sched_switch events (the
// caller discards the output file).
func (s *switchCountingSource) check(cmd, input string) error {
	if s.switches > 0 {
		return nil
	}
	return fmt.Errorf("%s: %s: no sched_switch events in %d events read (record with 'perf sched record')", cmd, input, s.events)
}
