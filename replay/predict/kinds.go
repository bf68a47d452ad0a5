package predict

import (
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
)

// KindSensitivity says how far a prediction rests on the deadline-bound
// termination Extract inferred (replay.UntilDeadline with UntilInferred):
// the makespan (unless the capture ended before its workload) and the rows
// that move beyond their fidelity bound when those tasks are replayed
// work-bound instead (ending after the CPU work they did in the trace).
type KindSensitivity struct {
	Tasks       []string             `json:"tasks"` // command names of the tasks inferred deadline-bound
	MakespanNs  int64                `json:"makespan_ns"`
	Changes     []report.ReplayCheck `json:"changes"` // observed = the prediction, predicted = the work-bound one
	Conclusions bool                 `json:"changes_conclusion"`
}

// CheckKinds replays m under sp and cfg again with every task whose
// deadline-bound termination was inferred, and that no --until override of
// cfg settles (replay.Termination), taken as work-bound, and scores that
// run (report.ScoreReplay) against the prediction res and its table pred
// (per task with perTask). It returns nil when no task's termination was
// so inferred. Errors are Simulate's and Table's.
func CheckKinds(m *replay.Model, sp policies.Spec, cfg replay.Config, res *replay.Result, pred *report.LatencyResult, perTask bool) (*KindSensitivity, error) {
	alt := cfg
	alt.Overrides = append([]replay.Override(nil), cfg.Overrides...)
	names := map[string]bool{}
	var tasks []string
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if _, _, set := replay.Termination(tk, cfg); tk.Until != replay.UntilDeadline || !tk.UntilInferred || set {
			continue
		}
		alt.Overrides = append(alt.Overrides, replay.Override{Sel: replay.Selector{PID: -1, TID: tk.TID},
			Until: &replay.UntilOverride{Kind: replay.UntilWork}})
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
	p2, err := Table(r2.Source(), perTask)
	if err != nil {
		return nil, err
	}
	ks := &KindSensitivity{Tasks: tasks, MakespanNs: r2.Makespan}
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
