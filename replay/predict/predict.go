package predict

import (
	"fmt"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// Simulate runs m under a fresh instance of the policy sp on cfg.CPUs
// CPUs (0: the model's NrCPUs); cfg is passed to replay.Simulate as it
// is. Errors: the policy's ("replay: policy SPEC: ..."), then
// replay.Simulate's (which also begin "replay: ").
func Simulate(m *replay.Model, sp policies.Spec, cfg replay.Config) (*replay.Result, error) {
	n := cfg.CPUs
	if n <= 0 {
		n = m.NrCPUs
	}
	pol, err := sp.New(n)
	if err != nil {
		return nil, fmt.Errorf("replay: policy %s: %w", sp, err)
	}
	return replay.Simulate(m, pol, cfg)
}

// SimulateTable is Simulate and the predicted latency table of the run
// (Table, with tab's rows), computed beside the simulation from its
// events as they are made (replay.SimulateInto). Unless keepEvents, the
// Result keeps no events (the table is all a prediction needs of them).
// Errors: Simulate's, then the table's ("replay: SPEC: predicted latency:
// ...").
func SimulateTable(m *replay.Model, sp policies.Spec, cfg replay.Config, tab Tables, keepEvents bool) (*replay.Result, *report.LatencyResult, error) {
	res, pred, err, tableErr := simulateTable(m, sp, cfg, tab, keepEvents)
	if err == nil && tableErr != nil {
		err = fmt.Errorf("replay: %s: predicted latency: %w", sp, tableErr)
	}
	if err != nil {
		return nil, nil, err
	}
	return res, pred, nil
}

// simulateTable is SimulateTable with the table's error apart from the
// simulation's (then the Result is kept).
func simulateTable(m *replay.Model, sp policies.Spec, cfg replay.Config, tab Tables, keepEvents bool) (res *replay.Result, pred *report.LatencyResult, err, tableErr error) {
	n := cfg.CPUs
	if n <= 0 {
		n = m.NrCPUs
	}
	pol, err := sp.New(n)
	if err != nil {
		return nil, nil, fmt.Errorf("replay: policy %s: %w", sp, err), nil
	}
	res, err = replay.SimulateInto(m, pol, cfg, keepEvents, func(src trace.Source) error {
		pred, tableErr = Table(src, tab)
		return nil // the simulation's error first: a table of part of it is no table
	})
	return res, pred, err, tableErr
}

// Tables say which latency tables a replay computes of its schedules.
type Tables struct {
	// PerTask makes a row per task, else per command.
	PerTask bool
	// Percentiles adds the delay percentiles (p50 to p99.9: replay
	// --wide, -o json and csv). They keep every delay until the table is
	// made, 8 bytes each and their slices' growth: 9 MB of the peak heap
	// on bench/replaymem's 2 M-event file, and their sorting.
	Percentiles bool
}

// Table is the latency table of an observed or a predicted schedule, with
// tab's rows.
func Table(src trace.Source, tab Tables) (*report.LatencyResult, error) {
	return report.ComputeLatency(src, report.LatencyOptions{PerTask: tab.PerTask, Percentiles: tab.Percentiles})
}

// ObservedTable is Table of a recording with stated, the task groups'
// settings it does not carry (replay --recorded-cgroup;
// report.LatencyOptions.Cgroups), so that its groups' throttling is
// inferred against the quota the user stated, as latency does with them.
func ObservedTable(src trace.Source, tab Tables, stated []trace.CgroupSettings) (*report.LatencyResult, error) {
	return report.ComputeLatency(src, report.LatencyOptions{PerTask: tab.PerTask, Percentiles: tab.Percentiles, Cgroups: stated})
}

// Options say what Predict scores a prediction against and how.
type Options struct {
	// Name is the case the checks are of (report.ReplayCheck.Case).
	Name string
	// Target is the model whose recorded schedule is the truth: nil for
	// the simulated model's own recording; another recording of the
	// what-if for the fidelity suite's pairs.
	Target *replay.Model
	// Observed is the latency table of Target's recording (Table, with
	// PerTask's rows) when the caller has it already; nil: Predict
	// computes it.
	Observed *report.LatencyResult
	// PerTask makes the tables and the checks per task instead of per
	// command; Percentiles adds the delay percentiles to the tables
	// (Tables).
	PerTask, Percentiles bool
	// KeepEvents keeps the simulated events in Result (to write the
	// prediction out); else they are dropped once the table is made.
	KeepEvents bool
}

// Prediction is one simulated what-if beside the schedule it is scored
// against.
type Prediction struct {
	Policy string         // the policy spec, as policies.Spec.String names it
	Result *replay.Result // the simulation; Result.Makespan is the predicted makespan in ns
	// Observed and Predicted are the latency tables of the truth's
	// recording and of the simulation.
	Observed, Predicted *report.LatencyResult
	ObservedMakespan    int64 // ns: Options.Target's (replay.Model.ObservedMakespan)
	// Checks score Predicted against Observed: report.ScoreReplay, the
	// makespan first, then by row name.
	Checks []report.ReplayCheck
}

// Predict simulates m under sp with cfg (Simulate) and scores the
// predicted latency table and makespan against the recording of o.Target
// (m itself when nil). An interrupted simulation (cfg.Progress stopped
// it) is scored as far as it got; Result.Interrupted says so.
func Predict(m *replay.Model, sp policies.Spec, cfg replay.Config, o Options) (*Prediction, error) {
	target := o.Target
	if target == nil {
		target = m
	}
	p := &Prediction{Policy: sp.String(), Observed: o.Observed, ObservedMakespan: target.ObservedMakespan()}
	if p.Observed == nil {
		var err error
		if p.Observed, err = Table(target.RecordedSource(), Tables{o.PerTask, o.Percentiles}); err != nil {
			return nil, fmt.Errorf("replay: observed latency: %w", err)
		}
	}
	res, pred, err := SimulateTable(m, sp, cfg, Tables{o.PerTask, o.Percentiles}, o.KeepEvents)
	if err != nil {
		return nil, err
	}
	p.Result, p.Predicted = res, pred
	p.Checks = report.ScoreReplay(o.Name, p.Observed, p.Predicted, p.ObservedMakespan, res.Makespan)
	return p, nil
}
