package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traceview/traceview/internal/duration"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
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
	until    []string
	hz       int
	wide     bool
	noTrust  bool
	output   string
	write    string
	ctxSw    string
	remote   string
	wakee    string
	idle     string
	migrate  string
	decide   string
	scan     string
	rows     int
	topology string
	groups   groupFlags
}

func init() {
	addCommand(newReplayCmd)
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay [-i FILE] [-p] [--policy P[,P...]] [--cpus N] [--affinity SEL=CPULIST] [--nice SEL=N] [--class SEL=fifo:PRIO|rr:PRIO|normal|batch|idle] [--slice SEL=DURATION] [--until SEL=DURATION|work|count|deadline] [--cpu-weight PATH=W] [--cpu-max PATH=Q/P] [--cgroup SEL=PATH] [--hz N] [-o table|json|csv] [-w FILE]",
		Short: "Re-schedule a captured workload under a modelled policy and compare",
		Long:  helpText("replay"),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("one trace at a time (got %d arguments: %s)", len(args), strings.Join(args, " "))
			}
			return nil
		},
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
	f.StringArrayVar(&o.policies, "policy", nil, "policy list P[:PARAMS][,P...] (repeatable; see 'traceview policies'; default: the recording kernel's own, eevdf from Linux 6.6, cfs before)")
	f.IntVar(&o.cpus, "cpus", 0, "simulated CPUs (default: the trace's)")
	f.StringArrayVar(&o.affinity, "affinity", nil, "SEL=CPULIST: pin tasks, e.g. sched-messaging=0 (repeatable)")
	f.StringArrayVar(&o.nice, "nice", nil, "SEL=N: set the nice level (repeatable)")
	f.StringArrayVar(&o.class, "class", nil, "SEL=fifo:PRIO, SEL=rr:PRIO, SEL=normal, SEL=batch (SCHED_BATCH: its wakeups never preempt) or SEL=idle (SCHED_IDLE) (repeatable)")
	f.StringArrayVar(&o.slice, "slice", nil, "SEL=DURATION: custom slice request (sched_attr.sched_runtime, eevdf; 100us..100ms, the range the kernel accepts)")
	f.StringArrayVar(&o.until, "until", nil, "SEL=DURATION|work|count|deadline: how tasks end (deadline DURATION after their start, e.g. hog=1s, or deadline: when they ended in the trace; repeatable)")
	f.IntVar(&o.hz, "hz", 0, "scheduler tick rate in Hz (CONFIG_HZ; default: inferred from the trace's tick, else 250)")
	f.BoolVar(&o.wide, "wide", false, "all columns (Sum delay, p99 delay)")
	f.BoolVar(&o.noTrust, "no-self-replay", false, "skip the self-replay that says how far to trust the prediction")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv (one line per policy and task: observed and predicted run time, switches, delays in ns)")
	f.StringVarP(&o.write, "write", "w", "", "write the (last) policy's predicted trace to FILE (traceview format; with several policies a note says which)")
	f.StringVar(&o.ctxSw, "context-switch-cost", "", "context-switch cost per switch, e.g. 2us, at most 1s (default: measured in the trace)")
	// The flag's earlier name, still read: one name per cost across Go
	// (ContextSwitchCost), flags and JSON (context_switch_cost_ns).
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "ctx-switch-cost" {
			name = "context-switch-cost"
		}
		return pflag.NormalizedName(name)
	})
	f.StringVar(&o.remote, "remote-wakeup-cost", "", "extra CPU time a waker spends when its wakee goes to another CPU, e.g. 20us, at most 1s (default: measured in the trace)")
	f.StringVar(&o.wakee, "remote-wakee-cost", "", "extra CPU time a task spends in a burst woken from another CPU, e.g. 50us, at most 1s (default: measured in the trace)")
	f.StringVar(&o.idle, "idle-start-cost", "", "extra CPU time a burst costs when it starts within 100us of its CPU leaving idle, e.g. 7us, at most 1s (default: measured in the trace)")
	f.StringVar(&o.migrate, "migration-cost", "0", "cache-cold cost when a task changes CPU (e.g. 50us, at most 1s)")
	f.StringVar(&o.decide, "decision-cost", "0", "CPU time each scheduling decision costs (e.g. 1us, at most 1s)")
	f.StringVar(&o.scan, "scan-cost", "0", "extra cost per runqueue entry a policy scans (O(n) pickers such as goodness24; at most 1s)")
	f.IntVar(&o.rows, "rows", 20, "table rows per policy (0: all)")
	f.StringVar(&o.topology, "topology", "policy", topologyUsage)
	o.groups.register(f)
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
	if o.rows < 0 {
		return cfg, usageErrorf("replay: --rows %d: want 0 (all) or more", o.rows)
	}
	if o.hz < 0 || o.hz > 10000 {
		return cfg, usageErrorf("replay: --hz %d: want 1..10000", o.hz)
	}
	if o.cpus < 0 || o.cpus > policies.MaxCPUs {
		return cfg, usageErrorf("replay: --cpus %d: want 1..%d", o.cpus, policies.MaxCPUs)
	}
	for _, d := range []struct {
		name, v string
		dst     *int64
	}{{"context-switch-cost", o.ctxSw, &cfg.ContextSwitchCost}, {"remote-wakeup-cost", o.remote, &cfg.RemoteWakeupCost},
		{"remote-wakee-cost", o.wakee, &cfg.RemoteWakeeCost}, {"idle-start-cost", o.idle, &cfg.IdleStartCost},
		{"migration-cost", o.migrate, &cfg.Migration},
		{"decision-cost", o.decide, &cfg.DecisionCost}, {"scan-cost", o.scan, &cfg.ScanCost}} {
		if d.v == "" {
			continue // keep the default (measured)
		}
		v, err := duration.ParseNS(d.v)
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
		d, err := duration.ParseNS(val)
		if err != nil || d < 100_000 || d > 100_000_000 {
			// kernel/sched/syscalls.c v6.12 clamps sched_attr.sched_runtime
			// to 0.1-100 ms; a value outside is refused, not clamped.
			return cfg, usageErrorf("replay: --slice %q: want a duration 100us..100ms (the range the kernel allows a custom slice)", a)
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Slice: &d})
	}
	for _, a := range o.until {
		sel, val, err := parseSelArg("until", a)
		if err != nil {
			return cfg, err
		}
		u, err := replay.ParseUntil(val)
		if err != nil {
			return cfg, usageErrorf("replay: --until %q: %w", a, err)
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Until: &u})
	}
	for _, a := range o.class {
		sel, val, err := parseSelArg("class", a)
		if err != nil {
			return cfg, err
		}
		name, prio, _ := strings.Cut(val, ":")
		var c policies.Class
		batch := false
		switch name {
		case "fifo":
			c = policies.ClassFIFO
		case "rr":
			c = policies.ClassRR
		case "normal", "other":
			c = policies.ClassFair
		case "batch":
			c, batch = policies.ClassFair, true
		case "idle":
			c = policies.ClassIdle
		default:
			return cfg, usageErrorf("replay: --class %q: want fifo:PRIO, rr:PRIO, normal, batch or idle", a)
		}
		p := 0
		if c.RealTime() {
			var err error
			if p, err = strconv.Atoi(prio); err != nil || p < 1 || p > 99 {
				return cfg, usageErrorf("replay: --class %q: want %s:PRIO with PRIO an RT priority 1..99 (%s=%s:50)", a, name, strings.SplitN(a, "=", 2)[0], name)
			}
		}
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Class: &c, RTPrio: p, Batch: batch})
	}
	return cfg, nil
}

// replayJSON is the -o json document.
type replayJSON struct {
	Observed report.LatencyJSON `json:"observed"`
	Makespan int64              `json:"observed_makespan_ns"`
	// Span is the trace's, first to last event of every task in it (the
	// makespan is the traced command's tasks' only, when one was found):
	// the observed run times add up to at most Span x the trace's CPUs.
	Span  int64           `json:"observed_span_ns"`
	Runs  []replayRunJSON `json:"runs"`
	Model replayModelJSON `json:"model"`
}

type replayRunJSON struct {
	Policy     string             `json:"policy"`
	CPUs       int                `json:"cpus"`
	Predicted  report.LatencyJSON `json:"predicted"`
	MakespanNs int64              `json:"makespan_ns"`
	// SimulatedNs is how long the simulation ran, from the trace's start
	// to its last predicted event of any task: the predicted run times add
	// up to at most SimulatedNs x cpus. It exceeds the makespan when the
	// traced command's tasks (replay.Model.WorkloadRoot) are not all of
	// the trace's and the others work on after them (new-user pass 117 F1:
	// 2785 ms of run time predicted on 1 CPU beside a makespan of 1991 ms).
	SimulatedNs int64 `json:"simulated_ns"`
	// MakespanCensored: workload tasks were still running when the
	// capture ended (replay.Task.Censored), so the observed makespan is
	// only the capture's and MakespanNs only how long the simulation ran
	// them, not a prediction of when the workload ends.
	MakespanCensored bool         `json:"makespan_censored,omitempty"`
	Stats            replay.Stats `json:"stats"`
	// SelfReplay is the error of the source trace replayed under its
	// recording kernel's policy (the same for every run; null with
	// --no-self-replay); Assumptions counts what the model inferred.
	SelfReplay  *report.ReplayTrust `json:"self_replay"`
	Assumptions replayAssumptions   `json:"assumptions"`
	// KindSensitivity is the same run with the tasks inferred
	// deadline-bound taken as work-bound instead (null when no task was
	// inferred deadline-bound or --until set them all).
	KindSensitivity *predict.KindSensitivity `json:"kind_sensitivity"`
	// KillSensitivity is the same run with the spinners that exited
	// mid-spin (replayed work-bound) taken as killed at a wall-clock time,
	// deadline-bound at their end in the trace (null when there are none,
	// or --until set them all).
	KillSensitivity *predict.KindSensitivity `json:"kill_sensitivity"`
	// TogetherSensitivity is the same run with the tasks of one command
	// that ended together (replay.Model.TogetherExits), replayed count-
	// or work-bound, taken as looping until a wall-clock time; nil when
	// there are none.
	TogetherSensitivity *predict.KindSensitivity `json:"together_sensitivity"`
	// Groups are the task groups of the run with their settings and
	// where those come from; GroupsModelled is false when the policy
	// schedules every task as a peer; GroupStats are the predicted
	// cpu.stat counts of the groups with a quota.
	Groups         []replay.GroupInfo    `json:"groups,omitempty"`
	GroupsModelled bool                  `json:"groups_modelled"`
	GroupStats     []policies.GroupStats `json:"group_stats,omitempty"`
	// Interrupted: Ctrl-C stopped the simulation; the prediction covers
	// the trace up to its end only.
	Interrupted bool `json:"interrupted"`
}

// replayAssumptions counts the model's inferred causes and semantics by
// kind, and the tasks' termination kinds (each listed in model.tasks).
type replayAssumptions struct {
	InferredCauses int `json:"inferred_causes"`
	InferredWakers int `json:"dependencies"`
	PingPongs      int `json:"ping_pongs"`
	AbsoluteTimers int `json:"absolute_timers"`
	// RecoveredArrivals counts open-loop arrivals the recording handled
	// without sleeping (each a wakeup of the generator by itself while
	// it ran).
	RecoveredArrivals int `json:"recovered_arrivals"`
	// QueuedRequests counts the requests of worker pools rebuilt as one
	// request per arrival of their generator (the recording served a
	// backlog in long bursts).
	QueuedRequests   int `json:"queued_requests"`
	External         int `json:"external"`
	WorkBound        int `json:"work_bound"`
	CountBound       int `json:"count_bound"`
	DeadlineBound    int `json:"deadline_bound"`
	DeadlineInferred int `json:"deadline_inferred"`
	PinnedTasks      int `json:"pinned_tasks"`
	UpdatePoints     int `json:"update_points"`
}

// replayTaskJSON is a workload task's termination kind.
type replayTaskJSON struct {
	TID        int32  `json:"tid"`
	PID        int32  `json:"pid"`
	Comm       string `json:"comm"`
	Until      string `json:"until"`
	Inferred   bool   `json:"until_inferred"`
	DeadlineNs int64  `json:"deadline_ns,omitempty"`
	Spinner    bool   `json:"spinner,omitempty"`
	SetByUntil bool   `json:"set_by_until,omitempty"`
	// LoopsUntilExitOf is the tid of the task whose exit ends this task's
	// timer loop (replay.Task.LoopsUntilExitOf; inferred, until count or
	// work; omitted when none or --until set how it ends).
	LoopsUntilExitOf int32 `json:"loops_until_exit_of,omitempty"`
}

type replayModelJSON struct {
	replay.ModelStats
	InferredShare       float64 `json:"inferred_share"`
	IdleExitNs          int64   `json:"idle_exit_ns"`
	WakePreemptNs       int64   `json:"wake_preempt_ns"`
	ContextSwitchCostNs int64   `json:"context_switch_cost_ns"`
	// RemoteWakeupNs is the measured extra cost of a cross-CPU wakeup to
	// its waker (replay.Model.RemoteWakeupCost), over RemoteWakeupSamples
	// bursts (0: not measurable in the trace).
	RemoteWakeupNs      int64 `json:"remote_wakeup_cost_ns"`
	RemoteWakeupSamples int   `json:"remote_wakeup_cost_samples"`
	// RemoteWakeeNs is the measured extra cost to a task of a burst that
	// a task on another CPU woke it for (replay.Model.RemoteWakeeCost);
	// IdleStartNs that of a burst starting on an idle CPU
	// (replay.Model.IdleStartCost); each over its samples (0: not
	// measurable).
	RemoteWakeeNs      int64 `json:"remote_wakee_cost_ns"`
	RemoteWakeeSamples int   `json:"remote_wakee_cost_samples"`
	IdleStartNs        int64 `json:"idle_start_cost_ns"`
	IdleStartSamples   int   `json:"idle_start_cost_samples"`
	HZ                 int   `json:"hz_inferred"`
	// Unmeasured lists the costs measured beyond what the trace can show
	// (replay.UnmeasuredCost), taken as none.
	Unmeasured []replay.UnmeasuredCost `json:"unmeasured_costs,omitempty"`
	// Tasks lists the workload's tasks with how each ends.
	Tasks []replayTaskJSON `json:"workload_tasks"`
	// TracedSession is the autogroup session the replay put the traced
	// command in and the delays that showed it (replay.SessionEvidence,
	// ns); absent when none was inferred.
	TracedSession *replay.SessionEvidence `json:"traced_session,omitempty"`
}

// replayGCPercent is the collector's GOGC while replay runs: most of its
// heap is the model and the recorded schedule, which live to the end, so
// the default 100 (the heap grows to twice what is live before the next
// collection) doubled its peak memory. At 50, on the 234 MB messaging file
// of bench/replaymem (2.3 M events): peak RSS 308 -> 242 MiB for 0.3 s more
// CPU time (3.25 -> 3.57 s). At 25 (issue 29), on the 218 MB, 2.02 M-event
// recording of the same command, with the chunked bursts and the drained
// recorded schedule: peak RSS 205-212 -> 181-184 MiB in three alternating
// runs each, CPU time 3.3-4.3 s against 3.9-4.7 s at 50 (user+sys, on a
// machine a fuzz run kept busy: no cost above that noise). The model's
// bursts held pointers then (their actions and update points), so each
// collection marked them all: lower still (10) cost about 0.5 s more CPU
// for 5-8 MiB less (two runs each); bursts hold none now (replay.Burst). With the compact model (80-byte bursts, the schedule
// read again instead of kept), 15 measured 126-128 MiB against 131-133 at
// 25 for 0.2-0.3 s more CPU (2.9-3.2 s against 2.6-3.0, three alternating
// runs each, load 2): not taken, the CPU time is the scarcer target.
const replayGCPercent = 25

func runReplay(out, errw io.Writer, o replayOptions) error {
	defer debug.SetGCPercent(debug.SetGCPercent(replayGCPercent))
	specs, cfg, err := o.plan()
	if err != nil {
		return err
	}
	m, meta, err := loadReplayModel(errw, o.input, asTraced(specs))
	if errors.Is(err, trace.ErrStopped) {
		// Ctrl-C stopped the copy of its input (a file-mode perf.data
		// from a pipe): the error says how much had come (new-user
		// pass 115 F2: "the warning above", which was not there).
		return interruptedError("replay", err)
	}
	if readInterrupted() {
		// Ctrl-C while reading: no prediction of part of a trace (its
		// warning, printed above, says where the reading stopped;
		// new-user pass 112 F3: the process died without a word).
		return interruptedError("replay", errReadInterrupted)
	}
	// From here the simulations' own Ctrl-C (simWatch) labels a run cut
	// short.
	if endReadInterrupt() {
		// Ctrl-C once the trace was read, before the simulations catch
		// their own: the user asked to stop, and the readers after this
		// one would stop at their first event.
		return interruptedErr{errors.New("replay: interrupted (Ctrl-C) once the trace was read, before any simulation: nothing predicted")}
	}
	if err != nil {
		return err
	}
	if meta != nil && len(m.Meta.Lost) == 0 {
		m.Meta.Lost = meta.Lost // (for the workload line: writeModelLines)
	}
	if meta != nil && m.Meta.LostInFile == 0 {
		m.Meta.LostInFile = meta.LostInFile // (and the model line's: lostModelNote)
	}
	if len(specs) == 0 {
		if specs, err = recordingPolicy(errw, m); err != nil {
			return err
		}
	}
	if specs, err = withTopology(specs, o.topology, o.input, meta, errw); err != nil {
		return err
	}
	if err := replay.CheckConfig(m, cfg); err != nil {
		return usageErrorf("%w", err)
	}
	warnCPUsSeen(errw, o.input, m)
	renamedSelectionNotes(errw, m, o)
	untilSet := untilOverrides(errw, m, cfg)
	if cfg.HZ == 0 && m.HZ > 0 {
		cfg.HZ = m.HZ
	}
	eraHZNotes(errw, specs, cfg.HZ, o.hz != 0)
	watch := newSimWatch()
	defer watch.close()
	var sim *predict.SelfRun
	if !o.noTrust {
		sim = predict.StartSelfReplay(m, cfg.Cgroups, watch.of(m), o.tables(), o.write != "") // meanwhile, the observed table
	}
	rec, err := recordedOnce(m, specs, o.input)
	if err != nil {
		sim.Wait()
		return err
	}
	obs, err := predict.ObservedTable(rec, o.tables(), cfg.Cgroups)
	rec.Close()
	if err != nil {
		sim.Wait()
		return fmt.Errorf("replay: observed latency: %w", err)
	}
	// The observed table's own warnings (missing switches and wakeups,
	// dropped delays: what its figures leave out), as latency says them:
	// one summary line, each with -v (new-user pass 111 F1: only -o json
	// held them).
	writeWarnings(errw, o.input, "", observedWarnings(obs))
	warnUnrecorded(errw, o.input, obs)
	warnUnstatedThrottles(errw, o.input, obs, cfg.Cgroups)
	r := &replayRuns{out: out, errw: errw, o: o, m: m, cfg: cfg, watch: watch, obs: obs, srcMeta: meta,
		doc: replayJSON{Observed: withReaderWarnings(obs.JSON(), meta), Makespan: m.ObservedMakespan(), Span: max(m.End-m.Start, 0), Model: replayModelDoc(m, cfg)},
		asm: replayAssumptionsOf(m.Stats)}
	if r.trust, r.self, err = modelAndTrust(out, errw, o, m, cfg, sim, specs, obs); err != nil {
		return err
	}
	for _, sp := range specs {
		stop, err := r.run(sp)
		if err != nil {
			return err
		}
		if stop {
			break // the rest of the runs too: the user asked to stop
		}
	}
	writeAssumptions(out, o, m, cfg, len(untilSet))
	return r.finish()
}

// tables are the latency tables o's output needs: per task with -p, and
// the delay percentiles for the p99 column of --wide and the p50 to
// p99.9 of -o json only (the table and CSV show none).
func (o replayOptions) tables() predict.Tables {
	return predict.Tables{PerTask: o.perTask, Percentiles: o.wide || o.output == "json"}
}

// recordedOnce returns the model's recorded schedule for the observed
// table, which is read once: read again from input when the model left it
// out (loadReplayModel, Model.RecordedFrom), else released as it is read
// (Model.DrainRecorded, about 10 bytes an input event) unless a run of
// specs replays it as-traced.
func recordedOnce(m *replay.Model, specs []policies.Spec, input string) (trace.Source, error) {
	switch {
	case asTraced(specs):
		return m.RecordedSource(), nil
	case m.Recorded.Released():
		src, err := openInput(input)
		if err != nil {
			return nil, fmt.Errorf("replay: reading %s again for the observed schedule: %w", input, err)
		}
		return m.RecordedFrom(src), nil
	}
	return m.DrainRecorded(), nil
}

// asTraced reports whether a run of specs replays the recorded schedule.
func asTraced(specs []policies.Spec) bool {
	for _, sp := range specs {
		if sp.Info.Name == "as-traced" {
			return true
		}
	}
	return false
}

// rereadable reports whether input names a regular file, which a second
// reader can read as the first did (not standard input or a pipe).
func rereadable(input string) bool {
	if input == "" {
		input = defaultTrace
	}
	if input == "-" {
		return false
	}
	st, err := os.Stat(input)
	return err == nil && st.Mode().IsRegular()
}

// replayCSVHeader names the columns of replay -o csv: times in ns,
// switches as the kernel counts them (recorded + unrecorded); interrupted
// is true on the rows of a run Ctrl-C cut short, which count the
// simulation up to there only and have no predicted makespan (new-user
// pass 115 F4: nothing in the CSV told them from a whole run's).
var replayCSVHeader = []string{"policy", "cpus", "task", "makespan_obs_ns", "makespan_pred_ns",
	"runtime_obs_ns", "runtime_pred_ns", "switches_obs", "switches_pred",
	"avg_delay_obs_ns", "avg_delay_pred_ns", "max_delay_obs_ns", "max_delay_pred_ns", "interrupted"}

// replayCSVRows is one run's lines of replay -o csv, one per task row
// (PairRows, as the table).
func replayCSVRows(policy string, res *replay.Result, obs, pred *report.LatencyResult, obsMakespan int64, censored bool) [][]string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	predMakespan := i(res.Makespan)
	if censored || res.Interrupted {
		// Workload tasks ran to the capture's end: no makespan can be
		// predicted (the table says so, the JSON's makespan_censored);
		// empty, unknown, not the simulation's end (new-user pass 51 F4).
		// Nor of a run cut short.
		predMakespan = ""
	}
	var rows [][]string
	for _, p := range report.PairRows(obs, pred) {
		a, b := p.Observed, p.Pred
		rows = append(rows, []string{policy, strconv.Itoa(res.CPUs), termsafe.ValidUTF8(p.Key), i(obsMakespan), predMakespan,
			i(a.Runtime), i(b.Runtime), i(a.Switches + a.Unrecorded), i(b.Switches + b.Unrecorded),
			i(a.AvgDelay), i(b.AvgDelay), i(a.MaxDelay), i(b.MaxDelay), strconv.FormatBool(res.Interrupted)})
	}
	return rows
}

func msf(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) }

func ratio(p, o int64) string {
	if o == 0 {
		if p == 0 {
			return "-"
		}
		return "new"
	}
	return strconv.FormatFloat(report.PredRatio(p, o), 'f', 3, 64)
}

// spinExitNote is what the workload line adds to its work-bound count
// when spinners among them ended mid-spin (Model.SpinExits) and no
// --until settles how they end: their work done, or a kill the trace does
// not show, which --until SEL=deadline models. "" when there is none.
func spinExitNote(m *replay.Model, cfg replay.Config) string {
	spins, kept := m.SpinExits(), m.KeptWorkBound()
	spun := map[int]bool{}
	for _, i := range spins {
		spun[i] = true
	}
	var mid []int
	for _, i := range spins {
		if !slices.Contains(kept, i) {
			mid = append(mid, i)
		}
	}
	note := ""
	if sels, more := spinSelectors(m, cfg, mid, spun); len(sels) > 0 {
		note += fmt.Sprintf(" (%s%s exited mid-spin: its work done, or a kill the trace cannot show; killed at a wall-clock time, it is deadline-bound: --until %s)",
			namesText(sels), more, termsafe.ShellWord(sels[0]+"=deadline"))
	}
	if sels, more := spinSelectors(m, cfg, kept, spun); len(sels) > 0 {
		note += fmt.Sprintf(" (%s%s kept to its recorded work while its siblings were inferred deadline-bound, ending with them: the trace does not show it self-paced; if it looped until the same time: --until %s)",
			namesText(sels), more, termsafe.ShellWord(sels[0]+"=deadline"))
	}
	return note
}

// spinSelectors are the selectors that name the tasks idx (their command
// name, or tid:N when the name also selects workload tasks outside spun),
// leaving out tasks whose end a --until already sets, at most three, and
// " and N more".
func spinSelectors(m *replay.Model, cfg replay.Config, idx []int, spun map[int]bool) (sels []string, more string) {
	seen := map[string]bool{}
	for _, i := range idx {
		tk := &m.Tasks[i]
		if _, _, set := replay.Termination(tk, cfg); set {
			continue
		}
		sel := tk.Comm
		for j := range m.Tasks {
			if o := &m.Tasks[j]; o.Workload && o.Comm == tk.Comm && (!spun[j] || !slices.Contains(idx, j)) {
				sel = fmt.Sprintf("tid:%d", tk.TID) // the name selects other tasks too
				break
			}
		}
		if !seen[sel] {
			seen[sel] = true
			sels = append(sels, sel)
		}
	}
	if len(sels) > 3 {
		more = fmt.Sprintf(" and %d more", len(sels)-3)
		sels = sels[:3]
	}
	return sels, more
}

// censoredNames names the model's censored tasks (Task.Censored) for the
// workload line, by command, the most numerous first: "stress-ng-cpu ×3,
// rcu_preempt", at most four commands and "N more".
func censoredNames(m *replay.Model) string {
	var idx []int
	for i := range m.Tasks {
		if m.Tasks[i].Censored {
			idx = append(idx, i)
		}
	}
	return commNames(m, idx)
}

// pinnedNames names the workload's pinned tasks with their CPUs, for the
// workload line: " (hog:10664 on CPU 1, hog:10665 on CPU 1)", four at
// most and then by command (commNames); "" for none. By TID, as tasks of
// one name may be pinned or not (new-user pass 84 F3: two hogs, one kept
// pinned, the line gave a bare count).
func pinnedNames(m *replay.Model) string {
	var idx []int
	for i := range m.Tasks {
		if m.Tasks[i].Workload && m.Tasks[i].Affinity != 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return ""
	}
	if len(idx) > 4 {
		return " (" + commNames(m, idx) + ")"
	}
	var parts []string
	for _, i := range idx {
		tk := &m.Tasks[i]
		parts = append(parts, fmt.Sprintf("%s:%d on CPU %s", termsafe.Label(tk.Comm), tk.TID, tk.Affinity))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// censoredAsleep counts the censored tasks of m asleep at the capture's
// end (the traced command, censorLiveRoot): their last burst ends in a
// block, not with the trace.
func censoredAsleep(m *replay.Model) int {
	n := 0
	for i := range m.Tasks {
		if bs := m.Tasks[i].Bursts; m.Tasks[i].Censored && len(bs) > 0 && bs[len(bs)-1].End != replay.EndTrace {
			n++
		}
	}
	return n
}

// commNames names the tasks of m at indexes idx by command, the most
// numerous first, each with its count ("sched-messaging ×19"), four at
// most and "N more", escaped for the terminal.
func commNames(m *replay.Model, idx []int) string {
	n := map[string]int{}
	for _, i := range idx {
		n[m.Tasks[i].Comm]++
	}
	comms := slices.Collect(maps.Keys(n))
	slices.SortFunc(comms, func(a, b string) int { return cmp.Or(cmp.Compare(n[b], n[a]), cmp.Compare(a, b)) })
	var parts []string
	for k, c := range comms {
		if k == 4 {
			parts = append(parts, fmt.Sprintf("%d more", len(comms)-k))
			break
		}
		name := termsafe.Label(c)
		if c == "" {
			name = "(no name)" // (a task the trace never names: it read "(; censored")
		}
		if n[c] > 1 {
			name += fmt.Sprintf(" ×%d", n[c])
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}

// writeModelLines prints what the model rests on: its tasks and blocking
// points by cause, how the workload's tasks end, the tick, and the measured
// latencies.
// classNotes is the model line's account of the tasks whose priority or
// class the trace qualified: a prio that changed, SCHED_DEADLINE (prio -1)
// and, where the capture recorded policies, SCHED_BATCH and SCHED_IDLE.
// Each part starts with "; "; "" when there is none.
func classNotes(m *replay.Model) string {
	st := m.Stats
	names := func(f func(*replay.Task) bool) string {
		var idx []int
		for i := range m.Tasks {
			if f(&m.Tasks[i]) {
				idx = append(idx, i)
			}
		}
		return commNames(m, idx)
	}
	var b strings.Builder
	if st.PrioChanges > 0 {
		fmt.Fprintf(&b, "; %s changed priority during the trace (%s): each replayed at the prio of most of its switch-ins",
			plural(st.PrioChanges, "task"), names(func(t *replay.Task) bool { return t.PrioChanged }))
	}
	if st.SchedDeadline > 0 {
		fmt.Fprintf(&b, "; %s ran under SCHED_DEADLINE (%s): replayed above the real-time class (as FIFO 99), "+
			"each throttle kept until its recorded replenishment, as the trace has no runtime, deadline or period",
			plural(st.SchedDeadline, "task"), names(func(t *replay.Task) bool { return t.SchedDeadline }))
	}
	if st.SchedBatch > 0 {
		fmt.Fprintf(&b, "; %s ran under SCHED_BATCH (%s): replayed as fair tasks whose wakeups never preempt",
			plural(st.SchedBatch, "task"), names(func(t *replay.Task) bool { return t.Policy == trace.PolicyBatch }))
	}
	if st.SchedIdle > 0 {
		fmt.Fprintf(&b, "; %s ran under SCHED_IDLE (%s): replayed at weight 3 (WEIGHT_IDLEPRIO), never preempting",
			plural(st.SchedIdle, "task"), names(func(t *replay.Task) bool { return t.Policy == trace.PolicyIdle }))
	}
	return b.String()
}

func writeModelLines(out io.Writer, m *replay.Model, cfg replay.Config, untilSet int) {
	hz := cfg.HZ
	st := m.Stats
	yields := ""
	if st.Yields > 0 {
		yields = fmt.Sprintf("; %s (a switch-out still runnable with nothing to preempt it: replayed as sched_yield)", plural(st.Yields, "yield"))
	}
	yields += classNotes(m) + lostModelNote(&m.Meta)
	fmt.Fprintf(out, "model: %s, %s, %s (%d ended by another task, %d of them inferred from ping-pong preemptions; %d by a timer, %d at an absolute time (%d absolute timers); %d never woken); %.1f %% of the blocking points with an inferred cause%s\n",
		plural(st.Tasks, "task")+" (in a scheduler event)", plural(st.Bursts, "CPU burst"), plural(st.BlockingPoints, "blocking point"),
		st.Dependencies, st.PingPongs, st.Timers, st.External, st.AbsoluteTimers, st.Never, 100*st.InferredShare(), yields)
	how := "inferred"
	if st.DeadlineInferred < st.DeadlineBound {
		how = fmt.Sprintf("%d inferred, %d set", st.DeadlineInferred, st.DeadlineBound-st.DeadlineInferred)
	}
	if st.TimerKills > 0 {
		how += fmt.Sprintf("; %d of them exited just after another task's timer that ran their whole life fired: killed at a wall-clock deadline, as by timeout", st.TimerKills)
	}
	work := spinExitNote(m, cfg)
	set := ""
	if untilSet > 0 {
		set = fmt.Sprintf("; --until then sets how %s end, over what the trace showed", plural(untilSet, "task"))
	}
	pools := "no worker pools"
	if len(m.Pools) > 0 {
		pools = fmt.Sprintf("%s (%s sharing a queue)", plural(len(m.Pools), "worker pool"), plural(st.PoolMembers, "thread"))
	}
	if st.RecoveredArrivals > 0 {
		pools += fmt.Sprintf("; %s recovered (open-loop arrivals the generator handled without a sleep, where it woke itself while running)", plural(st.RecoveredArrivals, "arrival"))
	}
	if st.QueuedRequests > 0 {
		pools += fmt.Sprintf("; the workers' backlog split into %s, one per arrival (they served most requests without blocking in between)", plural(st.QueuedRequests, "request"))
	}
	censored := ""
	if st.Censored > 0 {
		lost := ""
		if slices.ContainsFunc(m.Meta.Lost, func(w trace.LostWindow) bool { return w.Count > 0 }) {
			// Or their exits are among the lost events (new-user pass 65
			// F3: the traced command, whose exit ended the capture, said
			// to be running at its end).
			lost = ", or ended with their exits among the events the recording lost"
		}
		how := "each runs at least to the capture's end"
		if asleep := censoredAsleep(m); asleep > 0 {
			// The traced command asleep at the end (in wait(), say): it
			// stays asleep in the replay (new-user pass 69 F1).
			how = fmt.Sprintf("%d asleep there, never woken, stays asleep; the others run at least to the capture's end", asleep)
			if asleep == st.Censored {
				how = "asleep there, never woken, it stays asleep"
				if asleep > 1 {
					how = "asleep there, never woken, they stay asleep"
				}
			}
		}
		censored = fmt.Sprintf("; %d still alive when the capture ended%s (%s; censored: %s; no makespan can be predicted)", st.Censored, lost, censoredNames(m), how)
	}
	if st.BoundKthreads > 0 {
		pools += fmt.Sprintf("; %s kept on their CPU (ksoftirqd/N, kworker/N:M, ...)", plural(st.BoundKthreads, "per-CPU kernel thread"))
	}
	if m.WorkloadRoot < 0 {
		// No fork from perf or traceview record (a generated trace, a
		// capture of the whole system): there is no command's tree to
		// count, where the line said "0 tasks" of a 6-task workload.
		why := "no task forked by the recorder"
		switch {
		case m.NoCommand():
			why = "a capture of the whole system: the recorder's command line has no command"
		case m.CommandBefore:
			why = "the traced command started before the trace did, as in a later file of a record --rotate series or a --ring dump: its process tree cannot be told"
		}
		pinned := ""
		if st.PinnedTasks > 0 {
			// (inferIdlePinning: new-user pass 25 F3.)
			pinned = fmt.Sprintf("; %s pinned to the one CPU they ran on (inferred: they waited for it while the other CPUs idled)", plural(st.PinnedTasks, "task"))
		}
		fmt.Fprintf(out, "workload: no traced command in the trace (%s): the makespan spans every task%s%s%s%s; %s\n", why, set, censored, pinned, recordedAffinityText(st), pools)
	} else {
		fmt.Fprintf(out, "workload (the traced command's process tree): %s: %d ending after their work%s, %d after their iterations, %d at a wall-clock deadline (%s)%s%s; %d pinned to the CPUs they ran on%s (taskset: inferred where they ran on no other CPU while one idled, or read by the recording)%s; %s\n",
			plural(st.WorkBound+st.CountBound+st.DeadlineBound, "task"), st.WorkBound, work, st.CountBound, st.DeadlineBound, how, set+loopsText(m), censored, st.PinnedTasks, pinnedNames(m), recordedAffinityText(st), pools)
	}
	tick := "inferred from the trace"
	if m.HZ == 0 || hz != m.HZ {
		tick = "not seen in the trace"
		if m.HZ > 0 {
			tick = fmt.Sprintf("set; the trace shows %d Hz", m.HZ)
		}
	}
	if hz == 0 {
		hz = 250
	}
	cost := func(v int64, n int) string {
		if n == 0 {
			return "not measurable"
		}
		return fmt.Sprintf("%s (over %d bursts)", usf(v), n)
	}
	measured := func(name string, v int64) string {
		for _, u := range m.Unmeasured {
			if u.Name == name {
				return u.String()
			}
		}
		return usf(v)
	}
	remote := fmt.Sprintf("%s to the waker and %s to the wakee", cost(m.RemoteWakeupCost, m.WakeupCostSamples), cost(m.RemoteWakeeCost, m.WakeeCostSamples))
	if m.WakeupCostSamples == 0 && m.WakeeCostSamples == 0 {
		remote = "not measurable (to the waker or the wakee)"
	}
	fmt.Fprintf(out, "measured: idle exit %s, wakeup preemption %s, context switch %s, remote wakeup %s, start from idle %s; tick %d Hz (%s); %s where the task itself accounted its run time\n",
		measured("idle exit", m.IdleExit), measured("wakeup preemption", m.WakePreempt), measured("context switch", m.ContextSwitchCost), remote,
		cost(m.IdleStartCost, m.IdleStartCostSamples), hz, tick, plural(st.UpdatePoints, "mid-burst update point"))
}

// observedWarnings are the observed table's own warnings the replay
// prints with writeWarnings: all but the run-time gap replay notes under a
// self-replay that missed (report.UnknownRunsKey) and the empty table's.
func observedWarnings(obs *report.LatencyResult) []trace.Warning {
	var ws []trace.Warning
	for _, w := range obs.ReportWarnings {
		if w.Key != report.UnknownRunsKey && !emptyKey(w.Key) {
			ws = append(ws, w)
		}
	}
	return ws
}

// warnUnrecorded says, when the observed table's tasks have switch-ins
// the trace lacks (LatencyRow.Unrecorded: a task's own event on a CPU
// whose last recorded sched_switch switched in another; on some VMs perf
// records no switch out of an idle vCPU), how many, and what that means
// for the comparison: they count in the observed switches, as the kernel
// counted them, but the delays of the wakeups the trace lacks are not
// measured, so the observed delays are those of the recorded wakeups.
// Silent below 1 % of the switch-ins.
func warnUnrecorded(errw io.Writer, input string, obs *report.LatencyResult) {
	var unrec, sw int64
	for i := range obs.Rows {
		unrec += obs.Rows[i].Unrecorded
		sw += obs.Rows[i].Switches
	}
	if unrec == 0 || 100*unrec < sw+unrec {
		return
	}
	fmt.Fprintf(errw, "warning: %s: the trace lacks %d of its %d switch-ins (%.0f %%: a task ran with no recorded switch-in, as when perf records no switch out of an idle vCPU); the observed switches count them, as the kernel did, but the delays of the wakeups it lacks are not measured: the observed delays are those of the recorded wakeups only\n",
		input, unrec, sw+unrec, 100*float64(unrec)/float64(sw+unrec))
}

// warnUnstatedThrottles warns, per task group that the observed trace
// shows throttled (latency's inference: its tasks left runnable beside an
// idle CPU) but whose quota the trace does not record (a perf.data holds
// no cgroup settings), that the replay assumes no quota for it: its
// tasks' predictions then miss by the throttled time, and the self-replay's
// worst ratio named another task; a quota stated (--recorded-cgroup) for
// the group or one above it silences it (new-user pass 16 F8: "python3 avg_delay
// 5.56x" led, the hogs of a throttled group 1.5x over).
func warnUnstatedThrottles(errw io.Writer, input string, obs *report.LatencyResult, stated []trace.CgroupSettings) {
	for _, g := range obs.Cgroups {
		if g.Settings != "unknown" || g.ThrottledPeriods == 0 || g.ThrottledBy != "" || slices.ContainsFunc(stated, func(s trace.CgroupSettings) bool {
			return s.QuotaNS != 0 && schedule.CgroupBelow(g.Path, s.Path) // stated here or above
		}) {
			continue
		}
		fmt.Fprintf(errw, "warning: %s: the trace shows %s throttled (%d periods, %.3f ms inferred from its waits beside idle CPUs) but records no quota for it: the replay assumes none, so it predicts that group's tasks unthrottled; state the quota with --recorded-cgroup %s:max=QUOTA/PERIOD (or a parent's, where the quota is a parent group's)\n",
			input, termsafe.Label(g.Path), g.ThrottledPeriods, float64(g.Throttled)/1e6, termsafe.ShellWord(g.Path))
	}
	for _, g := range obs.Cgroups {
		// A stated quota that replaces the recorded one makes the
		// self-replay a what-if; latency says the same (quotaContradicted;
		// new-user pass 30 F7: the replay said nothing).
		if g.QuotaNote != "" && strings.Contains(g.QuotaNote, "the trace recorded") {
			fmt.Fprintf(errw, "note: %s: %s: %s; the self-replay runs under the stated one, so it is a what-if, not a check of the model against the recording\n",
				input, termsafe.Label(g.Path), g.QuotaNote)
		}
	}
}

// eraHZNotes says, for each policy given an era preset whose kernels ticked
// at another rate than the replay's (hz, 250 when 0: the trace's tick or
// the default), that the tick is the replay's and how to change it, unless
// --hz was given (hzSet).
func eraHZNotes(errw io.Writer, specs []policies.Spec, hz int, hzSet bool) {
	if hzSet {
		return
	}
	if hz == 0 {
		hz = 250
	}
	for _, sp := range specs {
		era := sp.Values["era"]
		if era == "" {
			continue
		}
		for _, e := range policies.Eras(sp.Info.Name) {
			if e.Name == era && e.HZ > 0 && e.HZ != hz {
				fmt.Fprintf(errw, "note: %s:era=%s: that era's kernels ticked at %d Hz; this replay ticks at %d Hz for every policy (give --hz %d to match the era)\n",
					sp.Info.Name, era, e.HZ, hz, e.HZ)
			}
		}
	}
}

// whatIfs renders the replay that made a prediction as a command line:
// the source trace, the policy, the CPU count (0: the trace's) and every
// override and cost given.
func (o *replayOptions) whatIfs(policy string, cpus int) []string {
	in := o.input
	if in == "" {
		in = defaultTrace
	}
	args := []string{"traceview", "replay", "-i", in, "--policy", policy}
	if cpus > 0 {
		args = append(args, "--cpus", strconv.Itoa(cpus))
	}
	if o.hz > 0 {
		args = append(args, "--hz", strconv.Itoa(o.hz))
	}
	for _, f := range []struct {
		name string
		vals []string
	}{{"--affinity", o.affinity}, {"--nice", o.nice}, {"--class", o.class}, {"--slice", o.slice}, {"--until", o.until},
		{"--recorded-cgroup", o.groups.recorded}, {"--cpu-weight", o.groups.weight}, {"--cpu-max", o.groups.max},
		{"--cpu-burst", o.groups.burst}, {"--cgroup", o.groups.cgroup}, {"--autogroup", o.groups.autogroup}} {
		for _, v := range f.vals {
			args = append(args, f.name, v)
		}
	}
	for _, f := range []struct{ name, val string }{
		{"--context-switch-cost", o.ctxSw}, {"--remote-wakeup-cost", o.remote}, {"--remote-wakee-cost", o.wakee},
		{"--idle-start-cost", o.idle}, {"--migration-cost", o.migrate}, {"--decision-cost", o.decide},
		{"--scan-cost", o.scan}, {"--topology", o.topology},
	} {
		if f.val != "" && f.val != "0" && !(f.name == "--topology" && f.val == "policy") {
			args = append(args, f.name, f.val)
		}
	}
	return args
}

// groupWhatIfs lists the task-group what-if flags given (--cpu-weight,
// --cpu-max, --cpu-burst, --cgroup, --autogroup), each once.
func (o *replayOptions) groupWhatIfs() []string {
	var out []string
	for _, f := range []struct {
		name string
		vals []string
	}{{"--cpu-weight", o.groups.weight}, {"--cpu-max", o.groups.max}, {"--cpu-burst", o.groups.burst},
		{"--cgroup", o.groups.cgroup}, {"--autogroup", o.groups.autogroup}} {
		if len(f.vals) > 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// whatIfText is what the policy line says of the what-ifs given beside
// the policy and the CPU count (which it names already): " with --nice
// hog=0 --until hog=1s", or "" for none.
func (o *replayOptions) whatIfText(policy string) string {
	args := o.whatIfs(policy, 0)[6:] // after traceview replay -i IN --policy P
	if len(args) == 0 {
		return ""
	}
	for i, a := range args {
		args[i] = termsafe.Name(a)
	}
	return " with " + strings.Join(args, " ")
}

// plural renders "1 task" or "n tasks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// restsOn says, for the policy line, when the predicted makespan rests on
// an inferred end of some tasks that the sensitivity checks (ks, kk, kt:
// each may be nil) found would move it past its bounds: the tasks and
// the makespan the other way, which the note after the table details
// (new-user pass 24 F3: a 30 % swing, 5687 against 4365 ms, was said
// only in that note, below the table). "" otherwise.
func restsOn(checks ...*predict.KindSensitivity) string {
	for _, k := range checks {
		if k == nil || !k.Conclusions {
			continue
		}
		for _, c := range k.Changes {
			if c.Metric == "makespan" && c.Comm == "" {
				return fmt.Sprintf("; the makespan rests on how %s ended (inferred): %s ms the other way, see the note below", namesText(k.Tasks), msf(c.Predicted))
			}
		}
	}
	return ""
}

// simulatedSpan is how long res's simulation ran in ns: from the trace's
// start (its Meta's first time) to its last predicted event; 0 when it
// predicted none.
func simulatedSpan(res *replay.Result) int64 {
	if res.Meta == nil || res.End == 0 {
		return 0
	}
	return max(res.End-res.Meta.FirstTime, 0)
}

func writeReplayTable(w io.Writer, name, with string, res *replay.Result, obs, pred *report.LatencyResult, obsMakespan int64, censored, rows int, wide bool, rests string) {
	cpus := plural(res.CPUs, "CPU")
	span := fmt.Sprintf("makespan %s ms observed, %s ms predicted (ratio %s)", msf(obsMakespan), msf(res.Makespan), ratio(res.Makespan, obsMakespan))
	if censored > 0 {
		// The capture ended first (Task.Censored): neither number is the
		// workload's makespan.
		span = fmt.Sprintf("makespan not predictable (%s still alive when the capture ended): %s ms captured, %s ms simulated",
			plural(censored, "task"), msf(obsMakespan), msf(res.Makespan))
	}
	if sim := simulatedSpan(res); !res.Interrupted && sim-res.Makespan > max(sim/100, 1_000_000) {
		// The makespan is the traced command's tasks'; the others' work
		// runs the simulation on (new-user pass 117 F1: on 1 CPU 2785 ms
		// of predicted run time beside "1991.461 ms simulated").
		span += fmt.Sprintf("; the simulation spans %s ms with the trace's other tasks", msf(sim))
	}
	if res.Interrupted {
		// Ctrl-C cut it (the line above the table says where): no ratio
		// of a part to the whole (new-user pass 111 F2: "ratio 0.392"
		// read as a 2.5x speed-up).
		span = fmt.Sprintf("interrupted: %s ms observed, %s ms simulated before Ctrl-C (no makespan predicted)", msf(obsMakespan), msf(res.Makespan))
	}
	fmt.Fprintf(w, "\npolicy %s on %s%s: %s; %s, %s, %s%s\n", name, cpus, with, span,
		pluralES(int(res.Stats.Switches), "switch"), plural(int(res.Stats.Migrations), "migration"), plural(int(res.Stats.Decisions), "decision"), rests)
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', tabwriter.AlignRight)
	head := "Task\t Runtime ms obs\t pred\t ratio\t Switches obs\t pred\t ratio\t Avg delay ms obs\t pred\t ratio\t Max delay ms obs\t pred\t ratio\t"
	if wide {
		head += " Sum delay ms obs\t pred\t ratio\t p99 delay ms obs\t pred\t ratio\t"
	}
	fmt.Fprintln(tw, head)
	pairs := report.PairRows(obs, pred)
	// The trace's switch-ins it lacks, over every row, not only those
	// shown (new-user pass 65 F4: 12 with --rows 0, 9 with --rows 6).
	var unrec int64
	for _, p := range pairs {
		unrec += p.Observed.Unrecorded
	}
	for i, p := range pairs {
		if rows > 0 && i >= rows {
			fmt.Fprintf(tw, "(%d more rows; --rows 0 shows all)\t\n", len(pairs)-rows)
			break
		}
		a, b := p.Observed, p.Pred
		// Switches as the kernel counts them, as the self-replay check
		// scores them (report.ScoreReplay): with the unrecorded ones.
		aSw, bSw := a.Switches+a.Unrecorded, b.Switches+b.Unrecorded
		key := termsafe.Label(p.Key)
		if len(key) > 24 && !wide {
			key = key[:23] + "…"
		}
		// A side with no delay measured prints "-", as latency does, and
		// no ratio (new-user pass 78 F2: an observed 0.000 ms where every
		// delay was left out as unmeasurable, its prediction "new").
		delay := func(r *report.LatencyRow, ns int64) string {
			if r.Count == 0 {
				return "-"
			}
			return msf(ns)
		}
		dratio := func(p, o int64) string {
			if a.Count == 0 || b.Count == 0 {
				return "-"
			}
			return ratio(p, o)
		}
		// An observed run time every run of which ended unseen is
		// unknown, as latency prints it (new-user pass 117 F2).
		aRun, runRatio := msf(a.Runtime), ratio(b.Runtime, a.Runtime)
		if a.Runtime == 0 && a.RunsUnended > 0 {
			aRun, runRatio = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t %s\t %s\t %s\t %d\t %d\t %s\t %s\t %s\t %s\t %s\t %s\t %s\t", key,
			aRun, msf(b.Runtime), runRatio,
			aSw, bSw, ratio(bSw, aSw),
			delay(&a, a.AvgDelay), delay(&b, b.AvgDelay), dratio(b.AvgDelay, a.AvgDelay),
			delay(&a, a.MaxDelay), delay(&b, b.MaxDelay), dratio(b.MaxDelay, a.MaxDelay))
		if wide {
			fmt.Fprintf(tw, " %s\t %s\t %s\t %s\t %s\t %s\t", msf(a.SumDelay), msf(b.SumDelay), ratio(b.SumDelay, a.SumDelay), msf(a.P99), msf(b.P99), ratio(b.P99, a.P99))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if unrec > 0 {
		fmt.Fprintf(w, "(observed switches include %s the trace lacks, as the kernel counted them: a task's own event on a CPU whose last recorded sched_switch switched in another)\n", plural(int(unrec), "switch-in"))
	}
}

// pluralES renders "1 switch" or "n switches".
func pluralES(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "es"
}

// recordedAffinityText says, for the workload line, how many tasks took
// the CPU affinity the recording read ("" when none).
func recordedAffinityText(st replay.ModelStats) string {
	text := ""
	if st.AffinityRecorded > 0 {
		// Of the whole trace, not only the workload this line counts (new-
		// user pass 65 F5: "4 tasks ...; 6 tasks with the CPU affinity").
		text = fmt.Sprintf("; %s of the trace (in the workload or not) with the CPU affinity the recording read (Cpus_allowed_list)", plural(st.AffinityRecorded, "task"))
	}
	if st.UnpinnedByRecord > 0 {
		// (new-user pass 82 F1: a workload that ran on one CPU while
		// another job held the other, "4 pinned (taskset)".)
		text += fmt.Sprintf("; %s ran on one CPU but may run on every CPU, as the recording read: not pinned", plural(st.UnpinnedByRecord, "task"))
	}
	return text
}

// namesText joins task names (or selectors) for a line of text, each
// escaped for the terminal (termsafe.Name): a name may hold an escape
// sequence (new-user pass 26 F5: one that clears the screen was printed raw
// on the policy, note and workload lines).
func namesText(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = termsafe.Name(n)
	}
	return strings.Join(out, ", ")
}

// kindNote is the line a run whose conclusion depends on the inferred
// deadline-bound termination prints on stderr.
func kindNote(k *predict.KindSensitivity, policy string, m *replay.Model) string {
	return sensitivityNote(k, fmt.Sprintf("note: %s: the prediction rests on %s being deadline-bound (inferred: looping until a wall-clock time); taken as work-bound (ending after the CPU work they did in the trace) it changes:",
		policy, namesText(k.Tasks)), untilAdvice(m, k, "work", "DURATION"))
}

// killNote is the line a run whose conclusion depends on whether the
// spinners that exited mid-spin were killed prints on stderr.
func killNote(k *predict.KindSensitivity, policy string, m *replay.Model) string {
	return sensitivityNote(k, fmt.Sprintf("note: %s: %s exited mid-spin and the prediction takes that for the end of its work (work-bound); if a kill at a wall-clock time ended it (timeout, a signal from outside the trace) it changes:",
		policy, namesText(k.Tasks)), untilAdvice(m, k, "deadline", "work"))
}

// togetherNote is the line a run whose conclusion depends on whether the
// tasks of one command that ended together looped until a wall-clock time
// prints on stderr.
func togetherNote(k *predict.KindSensitivity, policy string, m *replay.Model) string {
	idx := m.TogetherExits()
	// The widest spread of exits in one group (command and parent).
	type span struct{ first, last int64 }
	spans := map[[2]any]span{}
	var spread int64
	for _, i := range idx {
		tk := &m.Tasks[i]
		k := [2]any{tk.Comm, tk.Parent}
		sp, ok := spans[k]
		if !ok {
			sp = span{tk.Last, tk.Last}
		}
		sp.first, sp.last = min(sp.first, tk.Last), max(sp.last, tk.Last)
		spans[k] = sp
		spread = max(spread, sp.last-sp.first)
	}
	return sensitivityNote(k, fmt.Sprintf("note: %s: %s (%s) ended within %s ms of each other and the prediction takes that for the end of their iterations (count- or work-bound); if they looped until a wall-clock time (a --time or --timeout option) it changes:",
		policy, namesText(k.Tasks), plural(len(idx), "task"), msf(spread)), untilAdvice(m, k, "deadline", "count"))
}

// untilAdvice is the end of a sensitivity note: the --until selectors
// that settle it, " --until NAME=a or NAME=b says which", when NAME selects
// exactly the tasks the note's other run changed (k.TIDs); else those
// tasks by tid (up to maxAdviceTIDs of them), as the note's figures are
// theirs: pipeline's main thread, renamed from traceview, was selected by
// pipeline=deadline too and gave other figures than the note quoted
// (new-user pass 56 F2).
func untilAdvice(m *replay.Model, k *predict.KindSensitivity, a, b string) string {
	byName := len(k.Tasks) == 1 && len(k.TIDs) > 0
	if byName {
		in := map[trace.TID]bool{}
		for _, t := range k.TIDs {
			in[t] = true
		}
		sel := replay.Selector{Comm: k.Tasks[0], PID: -1, TID: -1}
		n := 0
		for i := range m.Tasks {
			if sel.Match(&m.Tasks[i]) {
				n++
				byName = byName && in[m.Tasks[i].TID]
			}
		}
		byName = byName && n == len(k.TIDs)
	}
	if byName || len(k.TIDs) == 0 || len(k.TIDs) > maxAdviceTIDs {
		return fmt.Sprintf(" --until %s or %s says which", termsafe.ShellWord(k.Tasks[0]+"="+a), termsafe.ShellWord(k.Tasks[0]+"="+b))
	}
	var sa []string
	for _, t := range k.TIDs {
		sa = append(sa, fmt.Sprintf("--until tid:%d=%s", t, a))
	}
	return fmt.Sprintf(" %s (or each =%s) says which; %s selects other tasks too", strings.Join(sa, " "), b, termsafe.Name(k.Tasks[0]))
}

// maxAdviceTIDs bounds the tid selectors untilAdvice lists: a longer
// command line is no advice (a name selector, with the note's task count,
// says more).
const maxAdviceTIDs = 8

// forkLoopNote is the stderr line of a what-if run (what: its " with ..."
// text, "" for none) when the workload ran loops of commands
// (replay.Model.ForkLoops): the replay keeps each loop's recorded count,
// which a loop bounded by a wall-clock time would not (new-user pass 29
// F4). "" otherwise.
func forkLoopNote(m *replay.Model, policy, what string) string {
	loops := m.ForkLoops()
	if what == "" || len(loops) == 0 {
		return ""
	}
	var parts []string
	for _, l := range loops {
		tk := &m.Tasks[l.Task]
		parts = append(parts, fmt.Sprintf("%s:%d ran %d commands one after another over %s ms", termsafe.Name(tk.Comm), tk.TID, l.Children, msf(l.Span)))
	}
	return fmt.Sprintf("note: %s%s: %s; the replay runs the recorded commands, so each loop keeps its count: if it loops until a wall-clock time (while [ $(date +%%s) -lt $end ]), with more CPU it would run more of them and with less fewer, and its rows and its session's or group's share rest on that (--until cannot change a loop of commands)",
		policy, what, strings.Join(parts, "; "))
}

// sensitivityNote is head, the check's first three changes (" makespan
// 1.000 ms -> 2.000 ms;") with how many more there are, and tail.
func sensitivityNote(k *predict.KindSensitivity, head, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for n, c := range k.Changes {
		if n == 3 {
			fmt.Fprintf(&b, " and %d more;", len(k.Changes)-3)
			break
		}
		what := c.Metric
		if c.Comm != "" {
			what = termsafe.Name(c.Comm) + " " + c.Metric
		}
		if c.Unit() == "ns" {
			fmt.Fprintf(&b, " %s %s ms -> %s ms;", what, msf(c.Observed), msf(c.Predicted))
		} else {
			fmt.Fprintf(&b, " %s %d -> %d;", what, c.Observed, c.Predicted)
		}
	}
	b.WriteString(tail)
	return b.String()
}

// selfReplay scores the self-replay sim against the trace, whose latency
// table (rows as the output shows them, as sim's: per task with -p) is
// obs. It returns the verdict and the self-replay itself when a run of one
// of specs with runCfg can take it instead of simulating again (else nil);
// its events are kept only when sim was started to keep them (-w). hint
// is idleClassHint's line ("" none).
func selfReplay(m *replay.Model, sim *predict.SelfRun, obs *report.LatencyResult,
	specs []policies.Spec, runCfg replay.Config) (trust *report.ReplayTrust, reuse *predict.Self, hint string, err error) {
	res, err := sim.Wait()
	if err != nil {
		return nil, nil, "", err
	}
	if res.Interrupted {
		return nil, nil, "", fmt.Errorf("interrupted (Ctrl-C) at %s, before any prediction (--no-self-replay skips it)", reached(res, m))
	}
	self, err := sim.Score(obs)
	if err != nil {
		return nil, nil, "", err
	}
	hint = idleClassHint(m, obs, self.Predicted, self.Policy)
	for _, sp := range specs {
		if self.Reusable(sp, runCfg) {
			return self.Trust, self, hint, nil
		}
	}
	return self.Trust, nil, hint, nil // nothing reuses it: let it go
}

// usf renders a measured latency in ns as µs with one decimal ("12.5
// µs"), "< 0.1 µs" below that, "none measured" for 0 (the trace held no
// such case, or the runtime covers it).
func usf(ns int64) string {
	switch {
	case ns <= 0:
		return "none measured"
	case ns < 100:
		return "< 0.1 µs"
	}
	return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) + " µs"
}

// checkReplayWrite rejects a -w the run could not write, before the
// simulation rather than after it: no such directory, or the input itself.
func checkReplayWrite(o replayOptions) error {
	if o.write == "" {
		return nil
	}
	if dir := filepath.Dir(o.write); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usageErrorf("replay: -w %s: no directory %s to write it in", o.write, dir)
		}
	}
	in := o.input
	if in == "" {
		in = defaultTrace
	}
	return refuseOverInput("replay", "-w", o.write, in)
}

// untilOverrides returns the workload tasks whose termination --until set,
// and warns of a deadline given to tasks that do not exit in the trace.
func untilOverrides(errw io.Writer, m *replay.Model, cfg replay.Config) map[int]bool {
	untilSet := map[int]bool{} // workload tasks whose termination --until set
	for _, ov := range cfg.Overrides {
		if ov.Until == nil {
			continue
		}
		matched, ends := 0, 0
		for i := range m.Tasks {
			if tk := &m.Tasks[i]; ov.Sel.Match(tk) {
				matched++
				untilSet[i] = true
				if bs := tk.Bursts; len(bs) > 0 && bs[len(bs)-1].End == replay.EndExit {
					ends++
				}
			}
		}
		if ov.Until.Kind == replay.UntilDeadline && ends < matched {
			fmt.Fprintf(errw, "warning: --until %s: %d of the %s it selects do not exit in the trace, and a deadline does not change them\n",
				ov.Sel.String(), matched-ends, plural(matched, "task"))
		}
	}
	return untilSet
}

// replayModelDoc is the model part of replay's JSON: the extraction's
// counts and measured costs, and each workload task's termination (as
// inferred, or as --until set it: the last matching override wins, as in
// the simulation).
func replayModelDoc(m *replay.Model, cfg replay.Config) replayModelJSON {
	model := replayModelJSON{ModelStats: m.Stats, InferredShare: m.Stats.InferredShare(), IdleExitNs: m.IdleExit,
		WakePreemptNs: m.WakePreempt, ContextSwitchCostNs: m.ContextSwitchCost,
		RemoteWakeupNs: m.RemoteWakeupCost, RemoteWakeupSamples: m.WakeupCostSamples,
		RemoteWakeeNs: m.RemoteWakeeCost, RemoteWakeeSamples: m.WakeeCostSamples,
		IdleStartNs: m.IdleStartCost, IdleStartSamples: m.IdleStartCostSamples, Unmeasured: m.Unmeasured}
	model.HZ = m.HZ
	if m.TracedSession.Leader != 0 {
		ev := m.TracedSession
		model.TracedSession = &ev
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		until, deadline, set := replay.Termination(tk, cfg)
		tj := replayTaskJSON{TID: int32(tk.TID), PID: int32(tk.PID), Comm: termsafe.ValidUTF8(tk.Comm), Until: until.String(), Inferred: tk.UntilInferred && !set, Spinner: tk.Spinner, SetByUntil: set}
		if until == replay.UntilDeadline {
			tj.DeadlineNs = deadline
		}
		if h := int(tk.LoopsUntilExitOf) - 1; h >= 0 && h < len(m.Tasks) && !set {
			tj.LoopsUntilExitOf = int32(m.Tasks[h].TID)
		}
		model.Tasks = append(model.Tasks, tj)
	}
	return model
}

// writePrediction writes the last policy's predicted trace to -w's file.
func writePrediction(o replayOptions, last *replay.Result, lastSpec string, cfg replay.Config) error {
	if o.write == "" || last == nil {
		return nil
	}
	// The prediction says what it predicts: the source trace and every
	// what-if (info shows it as the command line).
	last.Meta.Cmdline = o.whatIfs(lastSpec, cfg.CPUs)
	f, err := createOutput(o.write)
	if err != nil {
		return fmt.Errorf("replay: -w: %w", err)
	}
	_, _, err = convertTrace(last.Source(), f, "")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.discard()
		return fmt.Errorf("replay: -w %s: %w", o.write, err)
	}
	return nil
}

// modelAndTrust runs the self-replay (unless --no-self-replay) and prints
// its verdict once: with the table output as the one line before the
// tables (writeAssumptions prints the model after them), else on stderr
// when a row misses its bound (-o json and csv carry it in full); nil trust
// without a self-replay.
func modelAndTrust(out, errw io.Writer, o replayOptions, m *replay.Model, cfg replay.Config,
	sim *predict.SelfRun, specs []policies.Spec, obs *report.LatencyResult) (*report.ReplayTrust, *predict.Self, error) {
	if o.noTrust {
		return nil, nil, nil
	}
	trust, self, hint, err := selfReplay(m, sim, obs, specs, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("replay: self-replay: %w", err)
	}
	switch {
	case o.output == "table":
		fmt.Fprintln(out, trust.Verdict())
	case !trust.Within:
		fmt.Fprintf(errw, "warning: %s\n", trust.Verdict())
	}
	if hint != "" {
		fmt.Fprintln(errw, hint)
	}
	if !trust.Within {
		// The self-replay's groups: the recorded and stated settings,
		// without the what-ifs (new-user pass 30 F3: a what-if on the
		// weight of an autogroup whose dated nice change the self-replay
		// applied gave the note for an undated one).
		selfCfg := cfg
		selfCfg.CgroupChanges = nil
		if note := changedGroupsNote(m, selfCfg); note != "" {
			fmt.Fprintln(errw, note)
		}
		if obs == nil {
			return trust, self, nil
		}
		for _, w := range obs.ReportWarnings {
			if w.Key == report.UnknownRunsKey {
				// (The observed column's own gap: new-user pass 28 F6,
				// a hog's self-replay 1.44x of a run time 30 % short.)
				fmt.Fprintln(errw, "note: the observed column's "+w.Message)
			}
		}
	}
	return trust, self, nil
}

// changedGroupsNote is the stderr line, under a self-replay that missed,
// naming the task groups whose recorded settings changed during the
// trace when the replay could not follow the change: it was read only as
// the recording ended, so the replay holds one setting for the whole
// trace (replay.GroupInfo Changed, the model line says which), and the
// recording's other stretch cannot match (new-user pass 28 F1). A change
// the recording dated is applied from then (GroupInfo.Changes): no note.
// "" when none.
func changedGroupsNote(m *replay.Model, cfg replay.Config) string {
	groups, _, err := replay.Groups(m, cfg)
	if err != nil {
		return ""
	}
	var names []string
	for _, g := range groups {
		if g.Changed != "" && len(g.Changes) == 0 {
			names = append(names, termsafe.Name(g.Path))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("note: the settings of %s changed during the trace, when is not recorded, and a replay holds one setting for the whole trace (the model line says which): the self-replay cannot match the stretch under the other; --cpu-weight, --cpu-max state one", strings.Join(names, ", "))
}

// idleClassHint is the stderr line for workload commands of nice 0 whose
// longest scheduling delay in the trace is 100 ms or more and more than ten
// times the self-replay's: a SCHED_IDLE task (weight 3 against nice 0's
// 1024, WEIGHT_IDLEPRIO in kernel/sched/sched.h v6.18) beside a busy nice-0
// task waits that long, and sched_switch gives it the same prio (120) as a
// SCHED_NORMAL or SCHED_BATCH one, so the model replays it as
// SCHED_NORMAL. 100 ms is about 70 base slices on 2 CPUs (1.4 ms), far over
// a nice-0 task's wait beside a few others; the tenth leaves out the
// self-replay's ordinary misses (the 20-group messaging file's longest
// delay 0.36x, with 800 tasks). When nice-0 tasks outside the workload
// (kernel threads, other programs) waited as disproportionately, the
// recorded scheduler held back tasks of every kind and no class of the
// workload's explains it (stress-ng --pipe and --futex on 2 CPUs starved a
// kworker 1.6 s and the fork stressor 1.75 s, 13 ms self-replayed): the
// hint says that instead. "" when there is none.
func idleClassHint(m *replay.Model, obs, self *report.LatencyResult, policy string) string {
	if obs == nil || self == nil {
		return ""
	}
	nice0, outside := map[string]bool{}, map[string]bool{}
	for i := range m.Tasks {
		// A recorded policy (eBPF captures) is replayed as it was:
		// only tasks of unknown policy may be SCHED_IDLE unseen.
		if tk := &m.Tasks[i]; tk.Prio == 120 && tk.Policy == trace.PolicyUnknown {
			if tk.Workload {
				nice0[tk.Comm] = true
			} else {
				outside[tk.Comm] = true
			}
		}
	}
	var names, others []string
	var first report.RowPair
	for _, p := range report.PairRows(obs, self) {
		a, b := p.Observed, p.Pred
		if a.MaxDelay < 100_000_000 || 10*b.MaxDelay >= a.MaxDelay {
			continue
		}
		switch {
		case nice0[a.Comm]:
			if names == nil {
				first = p
			}
			names = append(names, termsafe.Label(p.Key))
		case outside[a.Comm]:
			others = append(others, termsafe.Label(p.Key))
		}
	}
	if names == nil {
		return ""
	}
	if others != nil {
		if len(others) > 3 {
			others = append(others[:3], fmt.Sprintf("%d more", len(others)-3))
		}
		return fmt.Sprintf("hint: %s waited far longer in the trace than under the %s self-replay (longest delay %s ms observed, %s ms self-replayed), and so did tasks outside the workload (%s): the recorded scheduler held back tasks of every kind, which the model does not reproduce, so these long delays are not a sign of SCHED_IDLE and the replayed delays of these tasks are not predictions",
			strings.Join(names, ", "), policy, msf(first.Observed.MaxDelay), msf(first.Pred.MaxDelay), strings.Join(others, ", "))
	}
	return fmt.Sprintf("hint: %s waited far longer in the trace than a nice-0 task does under %s (longest delay %s ms observed, %s ms self-replayed): SCHED_IDLE and SCHED_BATCH do not show in sched_switch (prio 120, as SCHED_NORMAL), so the model replays them as SCHED_NORMAL; if %s ran as SCHED_IDLE, --class %s=idle replays it so",
		strings.Join(names, ", "), policy, msf(first.Observed.MaxDelay), msf(first.Pred.MaxDelay), names[0], termsafe.ShellWord(first.Observed.Comm))
}

// writeAssumptions prints, after the tables, what the model rests on (the
// model, workload, measured and task-groups lines): the answer comes
// first, these explain it.
func writeAssumptions(out io.Writer, o replayOptions, m *replay.Model, cfg replay.Config, untilSet int) {
	if o.output != "table" {
		return
	}
	fmt.Fprintln(out)
	writeModelLines(out, m, cfg, untilSet)
	writeGroupLine(out, m, cfg)
}

// lostModelNote is the model line's clause on the time the trace did not
// observe (lost-event windows, with the events lost in damaged or missing
// blocks counted in): the model has no events there, so a burst or a
// block that spans such a window is as long as the events around it make
// it, whatever happened inside (new-user pass 120 F3: a damaged file's
// model line read as an intact one's). "" when nothing was lost.
func lostModelNote(meta *trace.Meta) string {
	if meta == nil || len(meta.Lost) == 0 && meta.LostInFile == 0 {
		return ""
	}
	var n uint64
	var span int64
	for _, w := range meta.Lost {
		n += w.Count
		span += max(w.End-w.Start, 0)
	}
	var parts []string
	if len(meta.Lost) > 0 {
		parts = append(parts, fmt.Sprintf("%d events in %s (%s ms unobserved, summed over CPUs)", n, plural(len(meta.Lost), "lost window"), msf(span)))
	}
	if meta.LostInFile > 0 {
		parts = append(parts, fmt.Sprintf("%d events in damaged or missing blocks of the file (its warnings say when)", meta.LostInFile))
	}
	return "; the trace lost " + strings.Join(parts, " and ") + ": a burst or block across that time is as long as the events around it make it, what happened inside is not modelled"
}

// loopsText is the workload line's clause on the tasks that loop on a
// timer until another task exits (replay.Task.LoopsUntilExitOf): "" when
// none does.
func loopsText(m *replay.Model) string {
	var names []string
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if h := int(tk.LoopsUntilExitOf) - 1; h >= 0 && h < len(m.Tasks) {
			o := &m.Tasks[h]
			names = append(names, fmt.Sprintf("%s:%d until %s:%d", termsafe.Label(tk.Comm), tk.TID, termsafe.Label(o.Comm), o.TID))
		}
	}
	if len(names) == 0 {
		return ""
	}
	n := len(names)
	if n > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", n-3))
	}
	return fmt.Sprintf("; %s looping on a timer until another task exits (inferred: %s; --until SEL=count keeps the recorded cycles)",
		plural(n, "task"), strings.Join(names, ", "))
}

// warnCPUsSeen warns when the trace shows switches on fewer CPUs than it
// names.
func warnCPUsSeen(errw io.Writer, input string, m *replay.Model) {
	if seen := m.CPUsSeen.Count(); seen > 0 && seen < m.NrCPUs {
		fmt.Fprintf(errw, "warning: %s: the trace holds sched_switch events of %s only (CPU %s) of the %d it names: what ran on the others is missing, and the replay simulates %d CPUs unless --cpus says otherwise\n",
			input, plural(seen, "CPU"), m.CPUsSeen, m.NrCPUs, m.NrCPUs)
	}
}

// recordingPolicy is the policy a replay with no --policy runs: the
// recording kernel's own (replay.RecordingPolicy, from the trace's
// release), said on errw (new-user pass 117 F3: "replay --cpus 1" was a
// usage error).
func recordingPolicy(errw io.Writer, m *replay.Model) ([]policies.Spec, error) {
	name := replay.RecordingPolicy(m.Meta.OSRelease)
	specs, err := policies.ParseSpecs(name)
	if err != nil {
		return nil, err
	}
	kernel := "a kernel the trace does not name"
	if m.Meta.OSRelease != "" {
		kernel = "Linux " + termsafe.Label(m.Meta.OSRelease)
	}
	fmt.Fprintf(errw, "note: no --policy given: replaying under %s, the recording kernel's (%s); --policy names others ('traceview policies')\n", name, kernel)
	return specs, nil
}

// plan checks the command line before anything is read: the policies
// (--policy), the output format, the simulation's configuration with its
// task-group flags, and -w's file.
func (o *replayOptions) plan() ([]policies.Spec, replay.Config, error) {
	if o.output != "table" && o.output != "json" && o.output != "csv" {
		return nil, replay.Config{}, usageErrorf("replay: -o %q: want table, json or csv", o.output)
	}
	var specs []policies.Spec
	for _, p := range o.policies {
		s, err := policies.ParseSpecs(p)
		if err != nil {
			return nil, replay.Config{}, usageErrorf("replay: --policy: %w", err)
		}
		specs = append(specs, s...)
	}
	cfg, err := o.config()
	if err != nil {
		return nil, cfg, err
	}
	if err := o.groups.apply(&cfg); err != nil {
		return nil, cfg, err
	}
	return specs, cfg, checkReplayWrite(*o)
}
