package predict

import (
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// KindSensitivity says how far a prediction rests on how some tasks end:
// the makespan (unless the capture ended before its workload) and the rows
// that move beyond their fidelity bound when they end the other way. From
// CheckKinds: the tasks Extract inferred deadline-bound
// (replay.UntilDeadline with UntilInferred) replayed work-bound instead
// (ending after the CPU work they did in the trace); from CheckKills: the
// spinners that exited mid-spin, replayed work-bound, taken as killed at a
// wall-clock time instead; from CheckTogether: the tasks of one command
// that ended together, replayed count- or work-bound, taken as looping
// until a wall-clock time instead.
type KindSensitivity struct {
	Tasks       []string             `json:"tasks"` // command names of the tasks whose end the check changes
	TIDs        []trace.TID          `json:"tids"`  // those tasks' TIDs (a name may select others too)
	MakespanNs  int64                `json:"makespan_ns"`
	Changes     []report.ReplayCheck `json:"changes"` // observed = the prediction, predicted = the run with the other end
	Conclusions bool                 `json:"changes_conclusion"`
}

// CheckKinds replays m under sp and cfg again with every task whose
// deadline-bound termination was inferred, and that no --until override of
// cfg settles (replay.Termination), taken as work-bound, and scores that
// run (report.ScoreReplay) against the prediction res and its table pred
// (per task with perTask). It returns nil when no task's termination was
// so inferred. Errors are Simulate's and Table's.
func CheckKinds(m *replay.Model, sp policies.Spec, cfg replay.Config, res *replay.Result, pred *report.LatencyResult, perTask bool) (*KindSensitivity, error) {
	var idx []int
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; tk.Until == replay.UntilDeadline && tk.UntilInferred {
			idx = append(idx, i)
		}
	}
	return sensitivity(m, sp, cfg, res, pred, perTask, idx, replay.UntilOverride{Kind: replay.UntilWork})
}

// CheckKills replays m under sp and cfg again with each workload spinner
// that exited mid-spin and was replayed work-bound (replay.Model.SpinExits;
// no --until of cfg settles it) taken as killed at a wall-clock time:
// deadline-bound at the end of its spin in the trace (--until SEL=deadline,
// replay.Task.EndDeadline). It scores that run as CheckKinds does
// (Observed = the prediction, Predicted = the run with the kill); nil when
// there is no such task. Errors are Simulate's and Table's.
func CheckKills(m *replay.Model, sp policies.Spec, cfg replay.Config, res *replay.Result, pred *report.LatencyResult, perTask bool) (*KindSensitivity, error) {
	return sensitivity(m, sp, cfg, res, pred, perTask, m.SpinExits(), replay.UntilOverride{Kind: replay.UntilDeadline})
}

// CheckTogether replays m under sp and cfg again with the workload's
// tasks that ended together and were replayed count- or work-bound
// (replay.Model.TogetherExits; no --until of cfg settles them) taken as
// looping until a wall-clock time: deadline-bound at their end in the
// trace (--until SEL=deadline, replay.Task.EndDeadline). It scores that
// run as CheckKinds does (Observed = the prediction, Predicted = the run
// with the deadline); nil when there is no such task. Errors are
// Simulate's and Table's.
func CheckTogether(m *replay.Model, sp policies.Spec, cfg replay.Config, res *replay.Result, pred *report.LatencyResult, perTask bool) (*KindSensitivity, error) {
	return sensitivity(m, sp, cfg, res, pred, perTask, m.TogetherExits(), replay.UntilOverride{Kind: replay.UntilDeadline})
}

// sensitivity simulates m under sp with cfg and the tasks of indexes idx
// that no --until of cfg settles (replay.Termination) ending as u says,
// and scores it against the prediction res and its table pred; nil when
// there is no such task.
func sensitivity(m *replay.Model, sp policies.Spec, cfg replay.Config, res *replay.Result, pred *report.LatencyResult, perTask bool,
	idx []int, u replay.UntilOverride) (*KindSensitivity, error) {
	alt := cfg
	alt.Overrides = append([]replay.Override(nil), cfg.Overrides...)
	names := map[string]bool{}
	var tasks []string
	var tids []trace.TID
	for _, i := range idx {
		tk := &m.Tasks[i]
		if _, _, set := replay.Termination(tk, cfg); set {
			continue
		}
		alt.Overrides = append(alt.Overrides, replay.Override{Sel: replay.Selector{PID: -1, TID: tk.TID}, Until: &u})
		tids = append(tids, tk.TID)
		if !names[tk.Comm] {
			names[tk.Comm] = true
			tasks = append(tasks, tk.Comm)
		}
	}
	if len(tasks) == 0 {
		return nil, nil
	}
	r2, err := Simulate(m, sp, alt)
	if err != nil {
		return nil, err
	}
	p2, err := Table(r2.Source(), Tables{PerTask: perTask})
	if err != nil {
		return nil, err
	}
	ks := &KindSensitivity{Tasks: tasks, TIDs: tids, MakespanNs: r2.Makespan}
	for _, c := range report.ScoreReplay("kind", pred, p2, res.Makespan, r2.Makespan) {
		// A capture that ended before its workload has no makespan to
		// predict either way (Model.Stats.Censored; the verdict says so).
		if !c.Pass() && !(c.Metric == "makespan" && m.Stats.Censored > 0) {
			ks.Changes = append(ks.Changes, c)
		}
	}
	ks.Conclusions = len(ks.Changes) > 0
	return ks, nil
}
