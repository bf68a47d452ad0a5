package replay

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/policies"
)

// ErrConfig marks a replay configuration that cannot run on the model: an
// override whose selector matches no task, an affinity to CPUs the
// simulation does not have, a cost or latency out of range. Callers test it
// with errors.Is (the CLI exits 2 on it, before simulating).
var ErrConfig = errors.New("replay")

// CheckConfig reports, before any simulation, the first reason cfg cannot
// run on m (wrapping ErrConfig): a cost out of range (Config.Check), more
// CPUs than the simulator models, an override whose selector matches no
// task, an affinity that leaves no simulated CPU, a deadline (--until) not
// in 1 ns..MaxDeadline.
func CheckConfig(m *Model, cfg Config) error {
	if err := cfg.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	n := cfg.CPUs
	if n <= 0 {
		n = m.NrCPUs
	}
	if n > policies.MaxCPUs {
		return fmt.Errorf("%w: %d CPUs: at most %d can be simulated", ErrConfig, n, policies.MaxCPUs)
	}
	all := policies.AllCPUs(max(n, 1))
	for _, o := range cfg.Overrides {
		if o.Affinity != nil && *o.Affinity&all == 0 {
			return fmt.Errorf("%w: affinity %s for %s: no such CPU among %d", ErrConfig, o.Affinity, o.Sel.String(), n)
		}
		if o.Until != nil && o.Until.Kind == UntilDeadline && (o.Until.Deadline <= 0 || o.Until.Deadline > MaxDeadline) {
			return fmt.Errorf("%w: deadline %d ns for %s: want 1 ns..%d ns (1 h)", ErrConfig, o.Until.Deadline, o.Sel.String(), MaxDeadline)
		}
		matched := false
		for i := range m.Tasks {
			if o.Sel.Match(&m.Tasks[i]) {
				matched = true
				break
			}
		}
		if !matched {
			return fmt.Errorf("%w: selector %q matches no task of the trace (a command name, pid:N, tid:N or workload)", ErrConfig, o.Sel.String())
		}
	}
	return nil
}

// MaxDeadline bounds an --until deadline: 1 h in ns. Traces replayed here
// span seconds to minutes, and an hour of simulated spinning takes seconds
// already (measured: --until workload=1h on nice3.2cpu, three hogs on 2
// CPUs, 611 k switches, 2.6 s of CPU); a larger value is a typo.
const MaxDeadline = int64(3600 * 1e9)

// ParseUntil parses an --until value: "work", "count", or a duration
// ("2s", "1500ms", see policies.ParseDuration) for UntilDeadline.
func ParseUntil(v string) (UntilOverride, error) {
	switch v {
	case "work":
		return UntilOverride{Kind: UntilWork}, nil
	case "count":
		return UntilOverride{Kind: UntilCount}, nil
	}
	d, err := policies.Values{"until": v}.Parse("until")
	if err != nil {
		return UntilOverride{}, fmt.Errorf("until %q: want work, count or a duration such as 2s", v)
	}
	if d <= 0 || d > MaxDeadline {
		return UntilOverride{}, fmt.Errorf("until %q: a deadline must be in 1ns..1h", v)
	}
	return UntilOverride{Kind: UntilDeadline, Deadline: d}, nil
}

// RecordingPolicy returns the policy spec of the kernel that recorded a
// trace of the given release: "eevdf" from Linux 6.6 (the EEVDF fair
// class, commit 147f3efaa241, v6.6), "cfs" before; "eevdf" when the
// release is unknown (the shared traces' 6.18).
func RecordingPolicy(release string) string {
	var maj, min int
	if _, err := fmt.Sscanf(release, "%d.%d", &maj, &min); err != nil {
		return "eevdf"
	}
	if maj < 6 || maj == 6 && min < 6 {
		return "cfs"
	}
	return "eevdf"
}

// Trust is how far a prediction can be trusted: the error of the
// self-replay, the source trace replayed under its recording kernel's
// policy on its own CPU count, per command name with at least MinRuntime
// of observed run time, and the makespan.
type Trust struct {
	Policy string  `json:"policy"`
	CPUs   int     `json:"cpus"`
	Rows   []Check `json:"rows"`
	// MaxErr is the largest |pred/obs − 1| over Rows; Within is whether
	// every row is within its bound (BoundRuntime, BoundSwitches,
	// BoundAvgDelay, BoundMakespan).
	MaxErr float64 `json:"max_error"`
	Within bool    `json:"within_bounds"`
}

// SelfReplay replays m under its recording kernel's policy (RecordingPolicy
// of the trace's release) on its own CPU count, with the measured costs and
// no override, and scores it against the observed schedule as the
// fidelity suite does. Errors are the simulator's.
func SelfReplay(m *Model) (*Trust, error) {
	spec := RecordingPolicy(m.Meta.OSRelease)
	specs, err := policies.ParseSpecs(spec)
	if err != nil {
		return nil, err
	}
	pol, err := specs[0].New(m.NrCPUs)
	if err != nil {
		return nil, err
	}
	res, err := Simulate(m, pol, DefaultConfig())
	if err != nil {
		return nil, err
	}
	obs, err := m.ObservedLatency(false)
	if err != nil {
		return nil, err
	}
	pred, err := Latency(res.Source(), false)
	if err != nil {
		return nil, err
	}
	tr := &Trust{Policy: spec, CPUs: res.CPUs, Within: true}
	tr.Rows = append(tr.Rows, Check{Case: "self", Metric: "makespan", Observed: m.ObservedMakespan(), Predicted: res.Makespan, Bound: BoundMakespan})
	for _, p := range Pair(obs, pred) {
		if p.Observed.Runtime < MinRuntime {
			continue
		}
		tr.Rows = append(tr.Rows,
			Check{"self", p.Key, "runtime", p.Observed.Runtime, p.Pred.Runtime, BoundRuntime},
			Check{"self", p.Key, "switches", p.Observed.Switches, p.Pred.Switches, BoundSwitches},
			Check{"self", p.Key, "avg_delay", p.Observed.AvgDelay, p.Pred.AvgDelay, BoundAvgDelay})
	}
	for _, c := range tr.Rows {
		if e := c.Err(); !math.IsInf(e, 0) {
			tr.MaxErr = max(tr.MaxErr, e)
		}
		tr.Within = tr.Within && c.Pass()
	}
	return tr, nil
}

// Verdict is the one-line summary of t, e.g. "self-replay under eevdf on 2
// CPUs within 12 % on every row: trust the prediction to about that", or,
// when a row misses its bound, the misses (at most three, worst first).
func (t *Trust) Verdict() string {
	cpus := "CPUs"
	if t.CPUs == 1 {
		cpus = "CPU"
	}
	head := fmt.Sprintf("self-replay under %s on %d %s", t.Policy, t.CPUs, cpus)
	if t.Within {
		return fmt.Sprintf("%s within %.0f %% on every row: trust the prediction to about that", head, 100*t.MaxErr)
	}
	var miss []Check
	for _, c := range t.Rows {
		if !c.Pass() {
			miss = append(miss, c)
		}
	}
	sort.SliceStable(miss, func(i, j int) bool { return miss[i].Err() > miss[j].Err() })
	var parts []string
	for k, c := range miss {
		if k == 3 {
			parts = append(parts, "and "+strconv.Itoa(len(miss)-3)+" more")
			break
		}
		who := c.Comm
		if who == "" {
			who = "workload"
		}
		parts = append(parts, fmt.Sprintf("%s %s %.2fx (bound ±%.0f %%)", who, c.Metric, Ratio(c.Predicted, c.Observed), 100*c.Bound))
	}
	return fmt.Sprintf("%s misses its bounds: %s; read the prediction's deltas with that error in mind", head, strings.Join(parts, ", "))
}
