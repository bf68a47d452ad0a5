package predict

import (
	"errors"
	"reflect"
	"slices"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// Watch returns cfg with a Progress that watches a simulation described
// by desc (a progress bar, Ctrl-C), and a func to call when it ends.
type Watch func(cfg replay.Config, desc string) (replay.Config, func())

// SelfRun is a self-replay's simulation: the model replayed under the
// policy of the kernel that recorded it (replay.RecordingPolicy), with the
// task-group settings the recording had. StartSelfReplay runs it on a
// goroutine of its own (replay.Simulate only reads the model), then the
// predicted table, so that the caller computes the observed table
// meanwhile; Score waits for them.
type SelfRun struct {
	m          *replay.Model
	spec       string        // as RecordingPolicy names it
	pol        policies.Spec // spec parsed (once the run started)
	cfg        replay.Config // as simulated, without watch's Progress
	tab        Tables        // the predicted table's
	keepEvents bool          // the simulated events stay in the Result
	done       chan struct{}
	res        *replay.Result
	err        error
	pred       *report.LatencyResult // the predicted table (Table), once the simulation ended
	predErr    error
	scored     bool
}

// StartSelfReplay starts simulating m under its recording kernel's policy
// with replay.DefaultConfig and cgroups, the recording's task-group
// settings (a perf.data does not carry them; not a what-if), and the
// predicted table Score compares (Table with tab; the
// simulated events are dropped as it reads them unless keepEvents),
// computed beside the simulation from its events as they are made
// (SimulateTable), and beside whatever the caller computes meanwhile (the
// observed table): on bench/replaymem's 2 M-event file it is about 0.2 s
// of CPU. watch, when not nil, watches the simulation.
func StartSelfReplay(m *replay.Model, cgroups []trace.CgroupSettings, watch Watch, tab Tables, keepEvents bool) *SelfRun {
	s := &SelfRun{m: m, spec: replay.RecordingPolicy(m.Meta.OSRelease), cfg: replay.DefaultConfig(), done: make(chan struct{}),
		tab: tab, keepEvents: keepEvents}
	s.cfg.Cgroups = cgroups
	go func() {
		defer close(s.done)
		specs, err := policies.ParseSpecs(s.spec)
		if err != nil {
			s.err = err
			return
		}
		s.pol = specs[0]
		cfg, done := s.cfg, func() {}
		if watch != nil {
			cfg, done = watch(cfg, "self-replay under "+s.spec)
		}
		// The latency of a schedule is computed once, beside the
		// simulation, and grouped both ways (Score).
		s.res, s.pred, s.err, s.predErr = simulateTable(m, s.pol, cfg, tab, keepEvents)
		done()
	}()
	return s
}

// Wait waits for the simulation to end and returns it (nils for a nil s).
func (s *SelfRun) Wait() (*replay.Result, error) {
	if s == nil {
		return nil, nil
	}
	<-s.done
	return s.res, s.err
}

// ErrInterrupted is Score's error for a simulation that Config.Progress
// stopped before it ended.
var ErrInterrupted = errors.New("self-replay interrupted before it ended")

// Self is a scored self-replay.
type Self struct {
	// Prediction is the self-replay. Its Checks are
	// report.ScoreSelfReplay's: the rows as the tables show them and,
	// per command, each task of a merged command on its own; without the
	// makespan when the capture ended before the workload
	// (Model.Stats.Censored).
	Prediction
	Trust *report.ReplayTrust // the verdict on Checks
	m     *replay.Model
	cfg   replay.Config // as simulated
}

// Score waits for the simulation and its predicted table and scores it
// against the recording, whose latency table is obs (Table, per task as
// StartSelfReplay was told, as the output shows the rows). Errors: the
// simulation's, ErrInterrupted, the predicted table's.
func (s *SelfRun) Score(obs *report.LatencyResult) (*Self, error) {
	res, err := s.Wait()
	if err != nil {
		return nil, err
	}
	if res.Interrupted {
		return nil, ErrInterrupted
	}
	if s.predErr != nil {
		return nil, s.predErr
	}
	m, pred, perTask := s.m, s.pred, s.tab.PerTask
	var obsTasks, predTasks *report.LatencyResult
	if !perTask {
		obsTasks, predTasks = obs.Regroup(true), pred.Regroup(true)
	}
	checks := report.ScoreSelfReplay("self", obs, pred, obsTasks, predTasks, m.ObservedMakespan(), res.Makespan)
	if m.Stats.Censored > 0 {
		// The capture ended before the workload: there is no makespan to
		// score (the verdict says so).
		checks = slices.DeleteFunc(checks, func(c report.ReplayCheck) bool { return c.Metric == "makespan" })
	}
	// Each quota'd group's throttled time against the recording's (its
	// cpu.stat when recorded): the rows' run times can all be right while
	// the group's tasks shared other CPUs and the throttling, summed over
	// CPUs, differs (new-user pass 16 F3: a parent's 2275 ms predicted
	// beside its 4949 ms recorded, with no word of it).
	// A quota'd group the replay does not have (its tasks replayed in the
	// groups they ran longest in) is throttled none in it: scored at 0,
	// the verdict names it (new-user pass 18 F7: a group that throttled a
	// moved task for 1.9 s vanished from the model without a word).
	var unscored []report.ReplayCheck
	if res.GroupsModelled {
		predThr := map[string]int64{}
		for _, g := range obs.Cgroups {
			if g.QuotaNS > 0 {
				predThr[g.Path] = 0
			}
		}
		for _, g := range res.GroupStats {
			predThr[g.Path] = g.ThrottledNS
		}
		checks = append(checks, report.ScoreGroupThrottle("self", obs, predThr)...)
		unscored = report.UnscoredGroupThrottle("self", obs, predThr)
	}
	trust := report.NewReplayTrust(s.spec, res.CPUs, checks)
	trust.Unscored = unscored
	trust.Censored = m.Stats.Censored
	trust.DeadlineInferred = m.Stats.DeadlineInferred
	return &Self{
		Prediction: Prediction{Policy: s.pol.String(), Result: res, Observed: obs, Predicted: pred,
			ObservedMakespan: m.ObservedMakespan(), Checks: checks},
		Trust: trust,
		m:     m,
		cfg:   s.cfg,
	}, nil
}

// SelfReplay replays m under its recording kernel's policy with cgroups,
// the recording's task-group settings, computing the observed table
// (Table with tab) while it simulates, and scores it (SelfRun.Score).
func SelfReplay(m *replay.Model, cgroups []trace.CgroupSettings, tab Tables) (*Self, error) {
	s := StartSelfReplay(m, cgroups, nil, tab, false)
	obs, err := ObservedTable(m.RecordedSource(), tab, cgroups)
	if err != nil {
		s.Wait()
		return nil, err
	}
	return s.Score(obs)
}

// Reusable reports whether a run of sp with cfg simulates what the
// self-replay did (the simulation is deterministic: same model, policy and
// Config, same events), so that its Result and Predicted table can stand
// for that run. A nil s reuses nothing.
func (s *Self) Reusable(sp policies.Spec, cfg replay.Config) bool {
	return s != nil && sp.String() == s.Policy && SameConfig(s.m, cfg, s.cfg)
}

// SameConfig reports whether a and b configure the same simulation of m:
// equal once the defaults replay.Simulate applies are filled in (the
// model's CPUs, a 250 Hz tick), whatever their Progress (watching a run
// changes nothing in it).
func SameConfig(m *replay.Model, a, b replay.Config) bool {
	return reflect.DeepEqual(simConfig(m, a), simConfig(m, b))
}

// simConfig is cfg with the defaults replay.Simulate applies filled in
// (the model's CPUs and a 250 Hz tick), and no Progress.
func simConfig(m *replay.Model, cfg replay.Config) replay.Config {
	cfg.Progress = nil
	if cfg.CPUs <= 0 {
		cfg.CPUs = m.NrCPUs
	}
	if cfg.HZ <= 0 {
		cfg.HZ = 250
	}
	return cfg
}
