package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

type convertOptions struct {
	input  string // -i, as every other command takes its trace; or IN
	output string
}

func init() {
	addCommand(func() *cobra.Command {
		var o convertOptions
		cmd := &cobra.Command{
			Use:         "convert IN|-i IN -o OUT",
			Annotations: map[string]string{noDefaultInput: "yes"},
			Short:       "Convert any readable trace into traceview's compact format",
			Long:        helpText("convert"),
			Args:        cobra.MaximumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				switch {
				case len(args) == 1 && o.input != "":
					return usageErrorf("convert: the trace twice: %s and -i %s (give one; see 'traceview convert --help')", args[0], o.input)
				case len(args) == 1:
					o.input = args[0]
				case o.input == "":
					return usageErrorf("convert: missing the trace to convert: give it as IN or with -i IN (see 'traceview convert --help')")
				}
				return runConvert(cmd, o.input, o)
			},
		}
		cmd.Flags().StringVarP(&o.input, "input", "i", "", "trace file to convert (or give it as IN; - for standard input)")
		cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (required; - for standard output)")
		return cmd
	})
}

func runConvert(cmd *cobra.Command, in string, o convertOptions) error {
	if o.output == "" {
		return usageErrorf("convert: missing -o OUT (the file to write)")
	}
	if err := refuseOverInput("convert", "-o", o.output, in); err != nil {
		return err
	}
	src, err := openInput(in)
	if err != nil {
		return fmt.Errorf("convert: %w", argTrace(err))
	}
	defer src.Close()
	var out io.Writer
	var f *outputFile
	report := cmd.OutOrStdout()
	if o.output == "-" {
		out, report = os.Stdout, cmd.ErrOrStderr()
	} else {
		if f, err = createOutput(o.output); err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		out = f
	}
	n, size, err := convertTrace(src, out, in)
	if f != nil {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			f.discard()
		}
	}
	if err != nil {
		return readFailed(cmd, in, src.Meta(), fmt.Errorf("convert: %s: %w", in, err))
	}
	printWarnings(cmd.ErrOrStderr(), in, src.Meta())
	inSize := int64(-1)
	if st, err := os.Stat(in); err == nil && st.Mode().IsRegular() {
		inSize = st.Size()
	}
	fmt.Fprintf(report, "converted %d events from %s to %s: %d bytes (%.1f bytes/event)", n, src.Meta().Format, o.output, size, perEvent(size, n))
	if inSize > 0 {
		fmt.Fprintf(report, ", input %d bytes (%.1f bytes/event; %s)", inSize, perEvent(inSize, n), sizeChange(inSize, size))
	}
	fmt.Fprintln(report)
	return nil
}

// sizeChange says how the output's size (bytes) compares with the
// input's: "14.2x smaller", "1.3x larger", or within 5 % "about the same
// size (+0.2 %)" (a .tv converted again printed "1.0x smaller" for a file
// 46 bytes larger).
func sizeChange(in, out int64) string {
	in, out = max(in, 1), max(out, 1)
	switch r := float64(in) / float64(out); {
	case r >= 1.05:
		return fmt.Sprintf("%.1fx smaller", r)
	case r <= 1/1.05:
		return fmt.Sprintf("%.1fx larger", 1/r)
	}
	return fmt.Sprintf("about the same size (%+.1f %%)", 100*(float64(out)/float64(in)-1))
}

func perEvent(bytes int64, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return float64(bytes) / float64(n)
}

// convertTrace writes every event of src to w in traceview's format and
// returns the number of events and bytes written. The header comes from the
// source's metadata; its loss windows and counts, warnings, cgroup and stack tables,
// complete only once the source is drained, go in the trailer. from names
// the input converted: its warnings are stored as "converted from FROM:
// ...", as they tell of that file (offsets, sizes), not of the one
// written; "" stores them as they are (a trace traceview made itself).
func convertTrace(src trace.Source, w io.Writer, from string) (uint64, int64, error) {
	tw, err := tvf.NewWriter(w, tvf.HeaderFromMeta(src.Meta()))
	if err != nil {
		return 0, 0, err
	}
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tw.Events(), tw.Bytes(), err
		}
		if err := tw.Write(ev); err != nil {
			return tw.Events(), tw.Bytes(), err
		}
	}
	if m := src.Meta(); m != nil {
		tw.SetLost(m.Lost)
		tw.SetLostCounts(m.LostUnplaced, m.LostInFile)
		ws := m.Warnings.List()
		if from != "" {
			for i := range ws {
				ws[i].Message = "converted from " + namedMessage(from, "", ws[i].Message)
			}
		}
		tw.SetWarnings(ws)
		tw.SetCgroups(m.Cgroups)
		tw.SetStacks(m.Stacks)
		tw.SetCgroupSettings(m.CgroupSettings)
		tw.SetCgroupStats(m.CgroupStats)
		tw.SetTaskAutogroups(m.TaskAutogroups)
		if len(m.TaskAffinity) > 0 {
			aff := map[trace.PID]string{}
			for pid, cpus := range m.TaskAffinity {
				aff[pid] = cpulist.Format(cpus)
			}
			tw.SetTaskAffinity(aff)
		}
	}
	err = tw.Close()
	return tw.Events(), tw.Bytes(), err
}
