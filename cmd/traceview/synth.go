package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/synth"
)

func init() { addCommand(newSynthCmd) }

type synthOptions struct {
	policy string
	cpus   int
	hz     int
	write  string
	list   bool
	// maxBursts bounds the workload's estimated CPU bursts
	// (synth.MaxBursts unless --max-bursts).
	maxBursts int
}

func newSynthCmd() *cobra.Command {
	var o synthOptions
	cmd := &cobra.Command{
		Use:   "synth WORKLOAD [NAME=VALUE...] -w FILE",
		Short: "Generate a classic benchmark workload as a trace, to replay under any policy",
		Long:  helpText("synth"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.list {
				return listSynth(cmd.OutOrStdout())
			}
			if len(args) == 0 {
				return usageErrorf("synth: name a workload (see 'traceview synth --list')")
			}
			return runSynth(cmd.OutOrStdout(), args[0], args[1:], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "eevdf", "policy that schedules the generated workload (see 'traceview policies')")
	f.IntVar(&o.cpus, "cpus", 0, "CPUs (default: the workload's classic experiment setting)")
	f.IntVar(&o.hz, "hz", 250, "scheduler tick rate in Hz")
	f.IntVar(&o.maxBursts, "max-bursts", synth.MaxBursts, fmt.Sprintf("refuse parameters estimated to make more CPU bursts than this (each takes about %d bytes of memory)", synth.BytesPerBurst))
	f.StringVarP(&o.write, "write", "w", "", "write the trace to FILE (traceview format)")
	f.BoolVar(&o.list, "list", false, "list the workloads and their parameters")
	return cmd
}

func listSynth(w io.Writer) error {
	for _, g := range synth.List() {
		fmt.Fprintf(w, "%s: %s (%d CPUs)\n  source: %s\n", g.Name, g.Summary, g.CPUs, g.Source)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, p := range g.Params {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Name, p.Default, p.Doc)
		}
		tw.Flush()
	}
	return nil
}

func runSynth(out io.Writer, name string, args []string, o synthOptions) error {
	g, ok := synth.Lookup(name)
	if !ok {
		var names []string
		for _, g := range synth.List() {
			names = append(names, g.Name)
		}
		hint := ""
		if name == "hackbench" {
			hint = "; hackbench is the workload messaging"
		}
		return usageErrorf("synth: unknown workload %q (workloads: %s%s)", name, strings.Join(names, ", "), hint)
	}
	if o.write == "" {
		return usageErrorf("synth: -w FILE is required")
	}
	if o.hz <= 0 || o.hz > 10000 {
		return usageErrorf("synth: --hz %d: want 1..10000", o.hz)
	}
	if o.cpus < 0 || o.cpus > policies.MaxCPUs {
		return usageErrorf("synth: --cpus %d: want 1..%d, or 0 for the workload's own count", o.cpus, policies.MaxCPUs)
	}
	v, err := g.ParseMax(args, o.maxBursts)
	if err != nil {
		return usageErrorf("%w", err)
	}
	specs, err := policies.ParseSpecs(o.policy)
	if err != nil {
		return usageErrorf("synth: %w", err)
	}
	m := g.Model(v)
	cpus := o.cpus
	if cpus == 0 {
		cpus = m.NrCPUs
	}
	pol, err := specs[0].New(cpus)
	if err != nil {
		return fmt.Errorf("synth: %s: %w", specs[0], err)
	}
	cfg := replay.DefaultConfig()
	cfg.CPUs, cfg.HZ = cpus, o.hz
	res, err := replay.Simulate(m, pol, cfg)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	res.Meta.Tool = "traceview synth " + strings.Join(append([]string{name}, args...), " ") + " --policy " + specs[0].String()
	fh, err := createOutput(o.write)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	n, _, err := convertTrace(res.Source(), fh, "")
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fh.discard()
		return fmt.Errorf("synth: write %s: %w", o.write, err)
	}
	fmt.Fprintf(out, "%s: %d tasks, %d bursts, %d blocking points; under %s on %d CPUs makespan %.3f ms; %d events written to %s\n",
		name, m.Stats.Tasks, m.Stats.Bursts, m.Stats.BlockingPoints, specs[0], cpus, float64(synth.Makespan(m, res))/1e6, n, o.write)
	return nil
}
