// What a simulation is asked to do: task selectors and overrides, the
// configuration with its costs, and the checks that refuse a configuration
// before any simulation (CheckConfig).

package replay

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/duration"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// Selector picks tasks for an override: a command name, "pid:N", "tid:N",
// or "workload" (the traced command's process tree, Task.Workload).
type Selector struct {
	Workload bool
	// Comm is the name as the tables print it, read back
	// (termsafe.Unescape: "evil\ttab" is a name with a TAB), and Raw the
	// name as given when that differs: a name typed with its raw bytes,
	// or with a lone backslash, selects as it is too (new-user pass 39
	// F3: the printed form of a name matched no task).
	Comm string
	Raw  string
	PID  trace.PID // -1 unless pid:N
	TID  trace.TID // -1 unless tid:N
}

// ParseSelector parses "comm", "pid:N", "tid:N" or "workload".
func ParseSelector(s string) (Selector, error) {
	sel := Selector{PID: -1, TID: -1}
	if s == "workload" {
		sel.Workload = true
		return sel, nil
	}
	if v, ok := strings.CutPrefix(s, "pid:"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return sel, fmt.Errorf("selector %q: bad pid", s)
		}
		sel.PID = trace.PID(n)
		return sel, nil
	}
	if v, ok := strings.CutPrefix(s, "tid:"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return sel, fmt.Errorf("selector %q: bad tid", s)
		}
		sel.TID = trace.TID(n)
		return sel, nil
	}
	if s == "" {
		return sel, errors.New("empty selector (want workload, a command name, pid:N or tid:N)")
	}
	sel.Comm = termsafe.Unescape(s)
	if sel.Comm != s {
		sel.Raw = s
	}
	return sel, nil
}

// Match reports whether the model task t is selected.
func (s Selector) Match(t *Task) bool {
	switch {
	case s.Workload:
		return t.Workload
	case s.PID >= 0:
		return t.PID == s.PID
	case s.TID >= 0:
		return t.TID == s.TID
	}
	// The kernel keeps a task's name in TASK_COMM_LEN (16) bytes with
	// its NUL (include/linux/sched.h): a longer name given in full
	// ("stress-ng-cyclic") selects the task the trace names by its first
	// 15 bytes ("stress-ng-cycli").
	// A name the task had before a rename selects it too (a worker named
	// "cons-0" until prctl renamed it "cR-0"; latency --comm and map show
	// it under both).
	for _, name := range [2]string{s.Comm, s.Raw} {
		if name == "" {
			continue
		}
		if len(name) > maxComm {
			name = name[:maxComm]
		}
		if t.Comm == name || slices.Contains(t.Earlier, name) {
			return true
		}
	}
	return false
}

// maxComm is the longest task name the kernel keeps, in bytes:
// TASK_COMM_LEN (16) less the NUL (include/linux/sched.h, Linux 6.18).
const maxComm = 15

// Override changes tasks the selector matches; nil fields keep the traced
// value. Later overrides win.
type Override struct {
	Sel      Selector
	Affinity *policies.CPUSet
	Nice     *int
	Class    *policies.Class
	RTPrio   int    // with Class FIFO or RR
	Batch    bool   // with Class fair: SCHED_BATCH (policies.Task.Batch)
	Slice    *int64 // custom slice request in ns (sched_attr.sched_runtime; EEVDF 6.12+)
	// Cgroup moves the tasks to another task group (--cgroup SEL=PATH), a
	// path as latency --by cgroup shows it; "/" is the root group.
	Cgroup *string
	// Until replaces the inferred termination kind (--until): Kind
	// UntilDeadline with Deadline ns after the task's start, or
	// UntilWork/UntilCount to replay the recorded bursts as they are.
	Until *UntilOverride
}

// UntilOverride is a termination kind set by the user.
type UntilOverride struct {
	Kind UntilKind
	// Deadline is ns after the task's start (UntilDeadline); 0 there is
	// `--until SEL=deadline`: the time the task ended in the trace
	// (Task.EndDeadline), for a task a kill ended at a wall-clock time.
	Deadline int64
}

// Config parameterizes a simulation. DefaultConfig gives: the model's CPU
// count, HZ 250, no context-switch, migration or decision cost, and the
// idle-exit and wakeup-preemption latencies measured in the trace. (A zero
// Config has zero latencies instead, which hand-made models use.)
type Config struct {
	CPUs int // simulated CPUs (0: the model's)
	HZ   int // scheduler tick rate (0: 250, CONFIG_HZ of the recording kernel)
	// ContextSwitchCost is ns a CPU spends switching tasks before the next one
	// runs; -1 (DefaultConfig) uses Model.ContextSwitchCost, the switch time the
	// trace shows was charged to no task (bursts contain the rest).
	ContextSwitchCost int64
	// Migration is the cache-cold penalty in ns added when a task runs on
	// another CPU than last time.
	Migration int64
	// IdleExit is ns between work arriving at an idle CPU and that CPU
	// picking it; -1 (as in DefaultConfig) uses Model.IdleExit.
	IdleExit int64
	// WakePreempt is ns between a wakeup that preempts the running task
	// and the switch; -1 uses Model.WakePreempt.
	WakePreempt int64
	// DecisionCost is ns per scheduling decision; ScanCost ns per entry a
	// policy scans (policies.DecisionCoster).
	DecisionCost, ScanCost int64
	// RemoteWakeupCost is the extra CPU time in ns a waker spends on a wakeup
	// that lands on another CPU; -1 (DefaultConfig) uses
	// Model.RemoteWakeupCost, measured in the trace.
	RemoteWakeupCost int64
	// RemoteWakeeCost is the extra CPU time in ns a task spends in a burst
	// that a task on another CPU woke it for; -1 (DefaultConfig) uses
	// Model.RemoteWakeeCost, measured in the trace.
	RemoteWakeeCost int64
	// IdleStartCost is the extra CPU time in ns a burst costs when it starts
	// on an idle CPU; -1 (DefaultConfig) uses Model.IdleStartCost.
	IdleStartCost int64
	// ColdSwitch is the ns a switched-in task spends refilling a cache
	// that lost its whole working set; CacheTasks how many other tasks'
	// runs evict it (the cache size over a task's footprint). A task
	// switched in after k other switches on its CPU pays ColdSwitch ×
	// min(k, CacheTasks) / CacheTasks (one that last ran on another CPU, or
	// never, pays it all), on top of ContextSwitchCost. 0 (the default) charges
	// nothing.
	ColdSwitch, CacheTasks int64
	Overrides              []Override
	// Cgroups states task-group settings the trace does not carry
	// (--recorded-cgroup); they win over the recorded ones. CgroupChanges
	// are what-ifs on groups (--cpu-weight, --cpu-max, --cpu-burst). See
	// Groups.
	Cgroups       []trace.CgroupSettings
	CgroupChanges []CgroupChange
	// NoGroups schedules every task as a peer in one runqueue, as if no
	// task groups existed; NoAutogroup moves the tasks of autogroups
	// ("/autogroup-N") to the root group (--autogroup off:
	// kernel.sched_autogroup_enabled=0).
	NoGroups, NoAutogroup bool
	// MaxSteps bounds the simulation's steps (events of its queue); 0 is
	// the model's step budget (MinSteps plus StepsPerEvent per recorded
	// event and burst). Past it Simulate returns ErrNoProgress. The fuzz
	// target sets a small one.
	MaxSteps int64
	// Progress, when set, is called every ProgressSteps simulation steps
	// with the simulated time reached and the model's span (ns since its
	// Start, and End - Start); when it returns false the simulation stops
	// there (Ctrl-C) and Simulate returns the prediction so far, with
	// Result.Interrupted set.
	Progress func(done, span int64) bool
}

// ProgressSteps is how many simulation steps go between two calls of
// Config.Progress (a few milliseconds of simulation).
const ProgressSteps = 1 << 15

// DefaultConfig returns the defaults described on Config.
func DefaultConfig() Config {
	return Config{HZ: 250, IdleExit: -1, WakePreempt: -1, ContextSwitchCost: -1, RemoteWakeupCost: -1, RemoteWakeeCost: -1, IdleStartCost: -1}
}

// MaxCost bounds every cost and latency of a Config (ContextSwitchCost, Migration,
// IdleExit, WakePreempt, DecisionCost, ScanCost): 1 s in ns. Measured
// context-switch costs are a few µs and scheduling decisions well under
// one; a cost of seconds per switch or decision is a typo, and a simulated
// CPU that spends it on every decision of a trace of thousands of switches
// runs for hours of simulated time (--decision-cost 1h ran for minutes).
const MaxCost = int64(1e9)

// Check reports the first cost or latency of c outside 0..MaxCost ns (-1,
// "measured in the trace", is allowed where Config says so), as an error
// naming the field.
func (c *Config) Check() error {
	for _, f := range []struct {
		name     string
		v        int64
		measured bool
	}{{"context-switch cost", c.ContextSwitchCost, true}, {"migration cost", c.Migration, false},
		{"idle-exit latency", c.IdleExit, true}, {"wakeup-preemption latency", c.WakePreempt, true},
		{"decision cost", c.DecisionCost, false}, {"scan cost", c.ScanCost, false},
		{"remote-wakeup cost", c.RemoteWakeupCost, true},
		{"remote-wakee cost", c.RemoteWakeeCost, true}, {"idle-start cost", c.IdleStartCost, true}, {"cold-switch cost", c.ColdSwitch, false}} {
		if (f.v < 0 && !(f.measured && f.v == -1)) || f.v > MaxCost {
			return fmt.Errorf("replay: %s %d ns: want 0..%d ns (1 s)", f.name, f.v, MaxCost)
		}
	}
	if c.CacheTasks < 0 || c.CacheTasks > maxCacheTasks {
		return fmt.Errorf("replay: cache tasks %d: want 0..%d", c.CacheTasks, maxCacheTasks)
	}
	return nil
}

// maxCacheTasks bounds Config.CacheTasks: the task footprints a cache
// holds; a million 64-byte lines is a 64 MiB cache, beyond any CPU cache
// the experiments model.
const maxCacheTasks = 1 << 20

// String renders the selector as typed.
func (s Selector) String() string {
	switch {
	case s.Workload:
		return "workload"
	case s.PID >= 0:
		return "pid:" + strconv.Itoa(int(s.PID))
	case s.TID >= 0:
		return "tid:" + strconv.Itoa(int(s.TID))
	}
	return s.Comm
}

// ErrConfig marks a replay configuration that cannot run on the model: an
// override whose selector matches no task, an affinity to CPUs the
// simulation does not have, a cost or latency out of range. Callers test it
// with errors.Is (the CLI exits 2 on it, before simulating).
var ErrConfig = errors.New("replay")

// CheckConfig reports, before any simulation, the first reason cfg cannot
// run on m (wrapping ErrConfig): a cost out of range (Config.Check), more
// CPUs than the simulator models, an override whose selector matches no
// task, an affinity naming a CPU the simulation does not have, a deadline (--until) not
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
	if err := checkGroupChanges(&cfg, max(n, 1)); err != nil {
		return err
	}
	if _, _, err := Groups(m, cfg); err != nil {
		return err
	}
	all := policies.AllCPUs(max(n, 1))
	for _, o := range cfg.Overrides {
		if o.Affinity != nil && *o.Affinity&^all != 0 {
			// A list partly beyond the replay's CPUs was clamped in
			// silence while one wholly beyond failed: both fail.
			extra := *o.Affinity &^ all
			what := "CPU " + extra.String() + " does not exist"
			if bits.OnesCount64(uint64(extra)) > 1 {
				what = "CPUs " + extra.String() + " do not exist"
			}
			return fmt.Errorf("%w: affinity %s for %s: %s in the %d-CPU replay (CPUs %s; --cpus sets the count)", ErrConfig, o.Affinity, o.Sel.String(), what, n, all)
		}
		if o.Until != nil && o.Until.Kind == UntilDeadline && (o.Until.Deadline < 0 || o.Until.Deadline > MaxDeadline) {
			return fmt.Errorf("%w: deadline %d ns for %s: want 1 ns..%d ns (1 h), or 0 for the task's end in the trace", ErrConfig, o.Until.Deadline, o.Sel.String(), MaxDeadline)
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
// ("2s", "1500ms", see internal/duration) for UntilDeadline.
func ParseUntil(v string) (UntilOverride, error) {
	switch v {
	case "work":
		return UntilOverride{Kind: UntilWork}, nil
	case "count":
		return UntilOverride{Kind: UntilCount}, nil
	case "deadline":
		return UntilOverride{Kind: UntilDeadline}, nil
	}
	d, err := duration.ParseNS(v)
	if err != nil {
		return UntilOverride{}, fmt.Errorf("until %q: want work, count, deadline or a duration such as 2s", v)
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

// Termination is how task tk ends in a replay under cfg: the last of
// cfg's --until overrides that selects it wins over what Extract inferred
// (Task.Until, Task.Deadline). set says an override decided it. deadline
// is ns after the task's start, for UntilDeadline (an override's
// deadline 0: the task's end in the trace, Task.EndDeadline).
func Termination(tk *Task, cfg Config) (until UntilKind, deadline int64, set bool) {
	until, deadline = tk.Until, tk.Deadline
	for _, o := range cfg.Overrides {
		if o.Until != nil && o.Sel.Match(tk) {
			until, deadline, set = o.Until.Kind, o.Until.Deadline, true
		}
	}
	if set && until == UntilDeadline && deadline == 0 {
		deadline = tk.EndDeadline()
	}
	return until, deadline, set
}
