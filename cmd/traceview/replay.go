package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
)

type replayOptions struct {
	input    string
	perTask  bool
	policies []string
	cpus     int
	affinity []string
	nice     []string
	class    []string
	slice    []string
	hz       int
	output   string
	write    string
	ctxSw    string
	migrate  string
	decide   string
	scan     string
	rows     int
}

func init() {
	addCommand(newReplayCmd)
	addCommand(newPoliciesCmd)
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay [-i FILE] [-p] --policy P[,P...] [--cpus N] [--affinity SEL=CPULIST] [--nice SEL=N] [--class SEL=fifo:PRIO] [--slice SEL=DURATION] [--hz N] [-o table|json] [-w FILE]",
		Short: "Re-schedule a captured workload under a modelled policy and compare",
		Long: `Replay separates the workload of a trace from the schedule it got: per task,
CPU bursts and the blocking points between them with what ended each (a wakeup
by another task at a point of its burst, a timer, an external event). It then
plays that workload on simulated CPUs under each policy and prints, per command
name (per task with -p), the observed and predicted run time, switches and
scheduling delays (avg, max, sum, p99) with predicted/observed ratios, and the
makespan of the traced command's process tree.

Policies (see 'traceview policies'): as-traced (the recorded schedule, an
identity check), eevdf (Linux 6.6+), cfs (2.6.23-6.5), fifo, rr, and any policy
registered by other packages. Parameters follow a colon, features as in
/sys/kernel/debug/sched/features:

  --policy eevdf:base_slice=3ms,NO_RUN_TO_PARITY
  --policy cfs:wakeup_granularity=0,NEXT_BUDDY

SEL is a command name, pid:N, tid:N or "workload" (the traced command's process
tree); --affinity, --nice, --class and --slice repeat.

Example: what would the 2-CPU messaging run look like pinned to one CPU?

  traceview replay -i messaging.2cpu.perf.data --policy eevdf \
      --affinity sched-messaging=0

Times print in ms (makespan in ms); -o json gives ns.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if o.input != "" {
					return usageErrorf("replay: give the trace either with -i or as an argument, not both")
				}
				o.input = args[0]
			}
			if cmd.Flags().Changed("cpus") && o.cpus == 0 {
				return usageErrorf("replay: --cpus 0: want 1..%d (leave --cpus out for the trace's CPU count)", policies.MaxCPUs)
			}
			return runReplay(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.input, "input", "i", "", "trace file (default perf.data, - for stdin)")
	f.BoolVarP(&o.perTask, "pids", "p", false, "one row per task instead of per command name")
	f.StringArrayVar(&o.policies, "policy", nil, "policy list P[:PARAMS][,P...] (repeatable; see 'traceview policies')")
	f.IntVar(&o.cpus, "cpus", 0, "simulated CPUs (default: the trace's)")
	f.StringArrayVar(&o.affinity, "affinity", nil, "SEL=CPULIST: pin tasks, e.g. sched-messaging=0 (repeatable)")
	f.StringArrayVar(&o.nice, "nice", nil, "SEL=N: set the nice level (repeatable)")
	f.StringArrayVar(&o.class, "class", nil, "SEL=fifo:PRIO, SEL=rr:PRIO or SEL=normal (repeatable)")
	f.StringArrayVar(&o.slice, "slice", nil, "SEL=DURATION: custom slice request (sched_attr.sched_runtime, eevdf; clamped to 0.1-100 ms)")
	f.IntVar(&o.hz, "hz", 250, "scheduler tick rate in Hz (CONFIG_HZ)")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	f.StringVarP(&o.write, "write", "w", "", "write the (last) policy's predicted trace to FILE (traceview format)")
	f.StringVar(&o.ctxSw, "ctx-switch-cost", "", "context-switch cost per switch, e.g. 2us, at most 1s (default: measured in the trace)")
	f.StringVar(&o.migrate, "migration-cost", "0", "cache-cold cost when a task changes CPU (e.g. 50us, at most 1s)")
	f.StringVar(&o.decide, "decision-cost", "0", "CPU time each scheduling decision costs (e.g. 1us, at most 1s)")
	f.StringVar(&o.scan, "scan-cost", "0", "extra cost per runqueue entry a policy scans (O(n) pickers such as goodness24; at most 1s)")
	f.IntVar(&o.rows, "rows", 20, "table rows per policy (0: all)")
	return cmd
}

func parseSelArg(flag, arg string) (replay.Selector, string, error) {
	sel, val, ok := strings.Cut(arg, "=")
	if !ok {
		return replay.Selector{}, "", usageErrorf("replay: --%s %q: want SEL=VALUE", flag, arg)
	}
	s, err := replay.ParseSelector(sel)
	if err != nil {
		return s, "", usageErrorf("replay: --%s: %w", flag, err)
	}
	return s, val, nil
}

func (o *replayOptions) config() (replay.Config, error) {
	cfg := replay.DefaultConfig()
	cfg.CPUs, cfg.HZ = o.cpus, o.hz
	if o.hz <= 0 || o.hz > 10000 {
		return cfg, usageErrorf("replay: --hz %d: want 1..10000", o.hz)
	}
	if o.cpus < 0 || o.cpus > policies.MaxCPUs {
		return cfg, usageErrorf("replay: --cpus %d: want 1..%d", o.cpus, policies.MaxCPUs)
	}
	for _, d := range []struct {
		name, v string
		dst     *int64
	}{{"ctx-switch-cost", o.ctxSw, &cfg.CtxSwitch}, {"migration-cost", o.migrate, &cfg.Migration},
		{"decision-cost", o.decide, &cfg.DecisionCost}, {"scan-cost", o.scan, &cfg.ScanCost}} {
		if d.v == "" {
			continue // keep the default (measured)
		}
		v, err := policies.Values{"x": d.v}.Parse("x")
		if err != nil || v < 0 || v > replay.MaxCost {
			return cfg, usageErrorf("replay: --%s %q: want a duration 0..1s such as 2us", d.name, d.v)
		}
		*d.dst = v
	}
	for _, a := range o.affinity {
		sel, val, err := parseSelArg("affinity", a)
		if err != nil {
			return cfg, err
		}
		set, err := policies.ParseCPUList(val)
		if err != nil {
			return cfg, usageErrorf("replay: --affinity: %w", err)
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Affinity: &set})
	}
	for _, a := range o.nice {
		sel, val, err := parseSelArg("nice", a)
		if err != nil {
			return cfg, err
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < -20 || n > 19 {
			return cfg, usageErrorf("replay: --nice %q: want a nice level -20..19", a)
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Nice: &n})
	}
	for _, a := range o.slice {
		sel, val, err := parseSelArg("slice", a)
		if err != nil {
			return cfg, err
		}
		d, err := policies.Values{"x": val}.Parse("x")
		if err != nil || d <= 0 {
			return cfg, usageErrorf("replay: --slice %q: want a positive duration such as 300us", a)
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Slice: &d})
	}
	for _, a := range o.class {
		sel, val, err := parseSelArg("class", a)
		if err != nil {
			return cfg, err
		}
		name, prio, _ := strings.Cut(val, ":")
		var c policies.Class
		switch name {
		case "fifo":
			c = policies.ClassFIFO
		case "rr":
			c = policies.ClassRR
		case "normal", "other":
			c = policies.ClassFair
		case "idle":
			c = policies.ClassIdle
		default:
			return cfg, usageErrorf("replay: --class %q: want fifo:PRIO, rr:PRIO, normal or idle", a)
		}
		p := 0
		if c.RealTime() {
			var err error
			if p, err = strconv.Atoi(prio); err != nil || p < 1 || p > 99 {
				return cfg, usageErrorf("replay: --class %q: want an RT priority 1..99", a)
			}
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Class: &c, RTPrio: p})
	}
	return cfg, nil
}

// replayJSON is the -o json document.
type replayJSON struct {
	Observed report.LatencyJSON `json:"observed"`
	Makespan int64              `json:"observed_makespan_ns"`
	Runs     []replayRunJSON    `json:"runs"`
	Model    replayModelJSON    `json:"model"`
}

type replayRunJSON struct {
	Policy     string             `json:"policy"`
	CPUs       int                `json:"cpus"`
	Predicted  report.LatencyJSON `json:"predicted"`
	MakespanNs int64              `json:"makespan_ns"`
	Stats      replay.Stats       `json:"stats"`
}

type replayModelJSON struct {
	replay.ModelStats
	InferredShare float64 `json:"inferred_share"`
	IdleExitNs    int64   `json:"idle_exit_ns"`
	WakePreemptNs int64   `json:"wake_preempt_ns"`
	SwitchCostNs  int64   `json:"switch_cost_ns"`
}

func runReplay(out, errw io.Writer, o replayOptions) error {
	if len(o.policies) == 0 {
		return usageErrorf("replay: no --policy given (see 'traceview policies')")
	}
	if o.output != "table" && o.output != "json" {
		return usageErrorf("replay: -o %q: want table or json", o.output)
	}
	var specs []policies.Spec
	for _, p := range o.policies {
		s, err := policies.ParseSpecs(p)
		if err != nil {
			return usageErrorf("replay: --policy: %w", err)
		}
		specs = append(specs, s...)
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	src, err := openInput(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	m, err := replay.Extract(src)
	if err != nil {
		printWarnings(errw, src.Meta())
		return err
	}
	if len(m.Tasks) == 0 {
		printWarnings(errw, src.Meta())
		return fmt.Errorf("replay: %s: no task to replay: the trace has no sched_switch events (record with 'perf sched record')", o.input)
	}
	printWarnings(errw, src.Meta())
	obs, err := m.ObservedLatency(o.perTask)
	if err != nil {
		return fmt.Errorf("replay: observed latency: %w", err)
	}
	doc := replayJSON{Observed: obs.JSON(), Makespan: m.ObservedMakespan(),
		Model: replayModelJSON{ModelStats: m.Stats, InferredShare: m.Stats.InferredShare(), IdleExitNs: m.IdleExit,
			WakePreemptNs: m.WakePreempt, SwitchCostNs: m.SwitchCost}}
	if o.output == "table" {
		fmt.Fprintf(out, "model: %d tasks (%d pinned by inference), %d bursts, %d blocking points (%d dependencies, %d of them inferred from ping-pong preemptions, %d timers, %d external, %d never woken), %.1f %% with an inferred cause\n",
			m.Stats.Tasks, m.Stats.PinnedTasks, m.Stats.Bursts, m.Stats.BlockingPoints, m.Stats.Dependencies, m.Stats.PingPongs, m.Stats.Timers, m.Stats.External,
			m.Stats.Never, 100*m.Stats.InferredShare())
		fmt.Fprintf(out, "measured: idle exit %.3f ms, wakeup preemption %.3f ms, context switch %.3f ms\n",
			float64(m.IdleExit)/1e6, float64(m.WakePreempt)/1e6, float64(m.SwitchCost)/1e6)
	}
	var last *replay.Result
	for _, sp := range specs {
		ncpu := cfg.CPUs
		if ncpu == 0 {
			ncpu = m.NrCPUs
		}
		pol, err := sp.New(ncpu)
		if err != nil {
			return fmt.Errorf("replay: policy %s: %w", sp, err)
		}
		res, err := replay.Simulate(m, pol, cfg)
		if err != nil {
			return err
		}
		pred, err := replay.Latency(res.Source(), o.perTask)
		if err != nil {
			return fmt.Errorf("replay: %s: predicted latency: %w", sp, err)
		}
		doc.Runs = append(doc.Runs, replayRunJSON{Policy: sp.String(), CPUs: res.CPUs, Predicted: pred.JSON(),
			MakespanNs: res.Makespan, Stats: res.Stats})
		if o.output == "table" {
			writeReplayTable(out, sp.String(), res, obs, pred, doc.Makespan, o.rows)
		}
		last = res
	}
	if o.write != "" && last != nil {
		f, err := createOutput(o.write)
		if err != nil {
			return fmt.Errorf("replay: -w: %w", err)
		}
		_, _, err = convertTrace(last.Source(), f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			f.discard()
			return fmt.Errorf("replay: -w %s: %w", o.write, err)
		}
	}
	if o.output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return nil
}

func msf(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }

func ratio(p, o int64) string {
	if o == 0 {
		if p == 0 {
			return "-"
		}
		return "new"
	}
	return strconv.FormatFloat(replay.Ratio(p, o), 'f', 3, 64)
}

func writeReplayTable(w io.Writer, name string, res *replay.Result, obs, pred *report.LatencyResult, obsMakespan int64, rows int) {
	fmt.Fprintf(w, "\npolicy %s on %d CPUs: makespan %s ms observed, %s ms predicted (ratio %s); %d switches, %d migrations, %d decisions\n",
		name, res.CPUs, msf(obsMakespan), msf(res.Makespan), ratio(res.Makespan, obsMakespan),
		res.Stats.Switches, res.Stats.Migrations, res.Stats.Decisions)
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Task\t Runtime ms obs\t pred\t ratio\t Switches obs\t pred\t ratio\t Avg delay ms obs\t pred\t ratio\t Max delay ms obs\t pred\t Sum delay ms obs\t pred\t ratio\t p99 delay ms obs\t pred\t")
	pairs := replay.Pair(obs, pred)
	for i, p := range pairs {
		if rows > 0 && i >= rows {
			fmt.Fprintf(tw, "(%d more rows; --rows 0 shows all)\t\n", len(pairs)-rows)
			break
		}
		a, b := p.Observed, p.Pred
		fmt.Fprintf(tw, "%s\t %s\t %s\t %s\t %d\t %d\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t\n", p.Key,
			msf(a.Runtime), msf(b.Runtime), ratio(b.Runtime, a.Runtime),
			a.Switches, b.Switches, ratio(b.Switches, a.Switches),
			msf(a.AvgDelay), msf(b.AvgDelay), ratio(b.AvgDelay, a.AvgDelay),
			msf(a.MaxDelay), msf(b.MaxDelay),
			msf(a.SumDelay), msf(b.SumDelay), ratio(b.SumDelay, a.SumDelay),
			msf(a.P99), msf(b.P99))
	}
	tw.Flush()
}

func newPoliciesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "policies",
		Short: "List the replay policies, their parameters, defaults and sources",
		Long: `List every scheduling policy 'traceview replay --policy' accepts, with its
parameters (NAME=VALUE) and feature switches (FEATURE or NO_FEATURE), their
defaults and where each default comes from.

Example:

  traceview policies
  traceview replay --policy eevdf:base_slice=3ms,NO_RUN_TO_PARITY -i perf.data`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, in := range policies.List() {
				fmt.Fprintf(w, "%s: %s\n  source: %s\n", in.Name, in.Summary, in.Source)
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				for _, p := range in.Params {
					def := p.Default
					if def == "" {
						def = "(computed)"
					}
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t[%s]\n", p.Name, p.Kind, def, p.Doc, p.Source)
				}
				tw.Flush()
			}
			return nil
		},
	}
}
