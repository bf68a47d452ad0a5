package policies

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traceview/traceview/internal/duration"
)

// ParamKind is the type of a policy parameter.
type ParamKind uint8

// Parameter kinds.
const (
	ParamDuration ParamKind = iota // a time: "3ms", "750us", "0" (Go duration syntax)
	ParamInt                       // an integer
	ParamFeature                   // a feature switch: NAME turns it on, NO_NAME off (as in /sys/kernel/debug/sched/features)
	ParamEra                       // a named preset of other parameters (era=2.6.31, see Era)
)

// String returns "duration", "int" or "feature".
func (k ParamKind) String() string {
	switch k {
	case ParamDuration:
		return "duration"
	case ParamInt:
		return "int"
	case ParamFeature:
		return "feature"
	case ParamEra:
		return "era"
	}
	return "?"
}

// Param describes one parameter of a policy: its default and where the
// default comes from.
type Param struct {
	Name    string // "base_slice", or a feature name in capitals "RUN_TO_PARITY"
	Kind    ParamKind
	Default string // "1.5ms", "8", "on"/"off"; for durations "" means computed (see Doc)
	Doc     string // one line: meaning and unit
	Source  string // kernel file and version, paper or patch of the default
	// Min and Max bound an int or duration parameter (ns for a duration)
	// when Max > Min; ParseSpecs rejects a value outside Min..Max instead
	// of letting a policy fall back to its default (bfs:rr_interval=-5
	// used to run with 6 while the header said -5). Max = math.MaxInt64
	// bounds only from below.
	Min, Max int64
}

// check reports a value v of p outside p.Min..p.Max as "want ...".
func (p Param) check(v int64) error {
	if p.Max <= p.Min || (v >= p.Min && v <= p.Max) {
		return nil
	}
	what := "an integer"
	lo, hi := strconv.FormatInt(p.Min, 10), strconv.FormatInt(p.Max, 10)
	if p.Kind == ParamDuration {
		what = "a duration"
		lo, hi = time.Duration(p.Min).String(), time.Duration(p.Max).String()
	}
	if p.Max == math.MaxInt64 {
		if p.Min == 1 {
			return fmt.Errorf("want a positive %s", strings.TrimPrefix(strings.TrimPrefix(what, "an "), "a "))
		}
		return fmt.Errorf("want %s of at least %s", what, lo)
	}
	return fmt.Errorf("want %s %s..%s", what, lo, hi)
}

// Info describes a registered policy.
type Info struct {
	Name    string
	Summary string // one line
	Source  string // main source (kernel version, file, paper)
	Params  []Param
	// Groups says that the policy schedules task groups hierarchically,
	// with cgroup weights and CFS bandwidth control (its SetGroups
	// returns true, see GroupScheduler); the others schedule every task
	// as a peer.
	Groups bool
	// Slices says that the policy honours a task's custom slice request
	// (Task.Slice: sched_attr.sched_runtime, which only EEVDF reads,
	// kernel/sched/syscalls.c __setscheduler_params v6.12+); the others
	// ignore it, so a what-if of it changes nothing in their runs.
	Slices bool
	// OneClass says that the policy runs every task in one real-time class
	// (fifo, rr: the traced RT priority, fair tasks at 1), so nice levels
	// and the fair classes (normal, batch, idle) change nothing in its
	// runs; an RT class and priority still do.
	OneClass bool
	// New builds a policy instance. p holds only parameters the user set
	// (validated against Params); cpus is the simulated CPU count, which
	// some defaults scale with.
	New func(p Values, cpus int) (Policy, error)
}

var (
	regMu    sync.Mutex
	registry = map[string]Info{}
)

// Register adds a policy; policy files call it from init. It panics on a
// duplicate name (a programming error).
func Register(in Info) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[in.Name]; dup {
		panic("policies: duplicate policy " + in.Name)
	}
	registry[in.Name] = in
}

// List returns the registered policies sorted by name.
func List() []Info {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Info, 0, len(registry))
	for _, in := range registry {
		out = append(out, withEra(in))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// GroupPolicies returns the names of the registered policies that
// schedule task groups hierarchically (Info.Groups), sorted.
func GroupPolicies() []string {
	var out []string
	for _, in := range List() {
		if in.Groups {
			out = append(out, in.Name)
		}
	}
	return out
}

// Lookup returns the policy registered under name.
func Lookup(name string) (Info, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	in, ok := registry[name]
	if ok {
		in = withEra(in)
	}
	return in, ok
}

// ErrUnknownPolicy is wrapped by ParseSpecs for a name nobody registered.
var ErrUnknownPolicy = errors.New("unknown policy")

// Values are the parameters a user set for one policy, by Param.Name;
// feature values are "on" or "off".
type Values map[string]string

// Duration returns the value of a duration parameter in ns, or def when
// unset.
func (v Values) Duration(name string, def int64) int64 {
	s, ok := v[name]
	if !ok {
		return def
	}
	d, _ := parseDuration(s) // validated by ParseSpecs
	return d
}

// Int returns an integer parameter, or def when unset.
func (v Values) Int(name string, def int) int {
	s, ok := v[name]
	if !ok {
		return def
	}
	n, _ := strconv.Atoi(s)
	return n
}

// Feature returns a feature switch, or def when unset.
func (v Values) Feature(name string, def bool) bool {
	s, ok := v[name]
	if !ok {
		return def
	}
	return s == "on"
}

// parseDuration parses a duration parameter in ns (internal/duration,
// the one parser of durations).
func parseDuration(s string) (int64, error) { return duration.ParseNS(s) }

// Spec is one parsed policy request: a registered policy and the
// parameters given for it.
type Spec struct {
	Info   Info
	Values Values
}

// String renders the spec as it would be typed ("eevdf:base_slice=3ms").
func (s Spec) String() string {
	if len(s.Values) == 0 {
		return s.Info.Name
	}
	keys := make([]string, 0, len(s.Values))
	for k := range s.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		p, _ := s.Info.param(k)
		switch {
		case p.Kind == ParamFeature && s.Values[k] == "on":
			parts = append(parts, k)
		case p.Kind == ParamFeature:
			parts = append(parts, "NO_"+k)
		default:
			parts = append(parts, k+"="+s.Values[k])
		}
	}
	return s.Info.Name + ":" + strings.Join(parts, ",")
}

// New builds the policy for cpus simulated CPUs.
// A spec with era=NAME runs with the preset's values under the ones set
// explicitly (Era).
func (s Spec) New(cpus int) (Policy, error) {
	v, err := s.Values.expand(s.Info.Name)
	if err != nil {
		return nil, err
	}
	return s.Info.New(v, cpus)
}

func (in Info) param(name string) (Param, bool) {
	for _, p := range in.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ParseSpecs parses a --policy value: policies separated by commas, each
// optionally followed by ':' and its parameters, themselves separated by
// commas: "as-traced,cfs,eevdf:base_slice=3ms,NO_RUN_TO_PARITY". A comma
// item that names a registered policy starts a new policy; any other item
// is a parameter of the current one: NAME=VALUE, FEATURE or NO_FEATURE.
// Errors name the policy and parameter and list what is accepted.
func ParseSpecs(s string) ([]Spec, error) {
	var out []Spec
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, first, hasParams := strings.Cut(item, ":")
		if in, ok := Lookup(name); ok {
			out = append(out, Spec{Info: in, Values: Values{}})
			if !hasParams {
				continue
			}
			item = first
		} else if hasParams {
			return nil, fmt.Errorf("policy %q: %w (see 'traceview policies')", name, ErrUnknownPolicy)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("policy %q: %w (see 'traceview policies')", item, ErrUnknownPolicy)
		}
		if err := out[len(out)-1].set(item); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no policy given (see 'traceview policies')")
	}
	return out, nil
}

func (s *Spec) set(item string) error {
	key, val, hasVal := strings.Cut(item, "=")
	if !hasVal {
		on := "on"
		if k, ok := strings.CutPrefix(key, "NO_"); ok {
			key, on = k, "off"
		}
		p, ok := s.Info.param(key)
		if !ok || p.Kind != ParamFeature {
			return fmt.Errorf("policy %s: unknown feature %q (features: %s)", s.Info.Name, key, s.Info.names(true))
		}
		s.Values[key] = on
		return nil
	}
	p, ok := s.Info.param(key)
	if !ok || p.Kind == ParamFeature {
		return fmt.Errorf("policy %s: unknown parameter %q (parameters: %s)", s.Info.Name, key, s.Info.names(false))
	}
	switch p.Kind {
	case ParamDuration:
		d, err := parseDuration(val)
		if err != nil {
			return fmt.Errorf("policy %s: %s=%s: want a duration such as 3ms or 750us", s.Info.Name, key, val)
		}
		if err := p.check(d); err != nil {
			return fmt.Errorf("policy %s: %s=%s: %w", s.Info.Name, key, val, err)
		}
	case ParamEra:
		if _, ok := LookupEra(s.Info.Name, val); !ok {
			var names []string
			for _, e := range Eras(s.Info.Name) {
				names = append(names, e.Name)
			}
			return fmt.Errorf("policy %s: era=%s: unknown era (eras: %s)", s.Info.Name, val, strings.Join(names, ", "))
		}
	case ParamInt:
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("policy %s: %s=%s: want an integer", s.Info.Name, key, val)
		}
		if err := p.check(int64(n)); err != nil {
			return fmt.Errorf("policy %s: %s=%s: %w", s.Info.Name, key, val, err)
		}
	}
	s.Values[key] = val
	return nil
}

func (in Info) names(features bool) string {
	var out []string
	for _, p := range in.Params {
		if (p.Kind == ParamFeature) == features {
			out = append(out, p.Name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
