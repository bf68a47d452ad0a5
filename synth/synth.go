package synth

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traceview/traceview/internal/duration"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

// Param describes one generator parameter.
type Param struct {
	Name    string
	Default string // a Go duration ("8ms") or an integer
	Doc     string
}

// Generator is a registered workload.
type Generator struct {
	Name    string
	Summary string
	Source  string // the original benchmark or program
	Params  []Param
	CPUs    int // CPU count of the classic experiment (the model's NrCPUs)
	// Min is the smallest value of the parameters that have one above 0
	// (a count in units, a duration in ns); Parse refuses less, since
	// Build has no meaning for it (0 threads, frames or rows).
	Min   map[string]int64
	Build func(v Values) *replay.Model
	// Bursts estimates, from the parameters alone and before Build
	// allocates anything, the CPU bursts of the model Build returns
	// (replay.Model.Stats.Bursts; within 25 %, see
	// TestBurstEstimates), so that a caller can refuse a size that would
	// not fit in memory. A float64: the parameters' products overflow int.
	Bursts func(v Values) float64
}

var gens = map[string]Generator{}

func register(g Generator) { gens[g.Name] = g }

// List returns the generators sorted by name.
func List() []Generator {
	out := make([]Generator, 0, len(gens))
	for _, g := range gens {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the generator called name.
func Lookup(name string) (Generator, bool) { g, ok := gens[name]; return g, ok }

// MaxIntParam bounds every integer parameter (task, process, frame and loop
// counts): the whole model is built in memory, so a typo such as
// tasks=100000000 must be an error, not an out-of-memory kill.
const MaxIntParam = 1_000_000

// MaxBursts is the most CPU bursts (Generator.Bursts, estimated from the
// parameters before anything is built) a workload may have: the model, its
// simulation and the trace written are all held in memory, and 'traceview
// synth messaging groups=100000 loops=100000' (each count within
// MaxIntParam) grew to 23 GB before the kernel killed it. BytesPerBurst is
// the peak RSS per burst of 'traceview synth' measured on the hungriest
// workload, pipe (3 events a burst): 'synth pipe loops=200000', 400002
// bursts, peaked at 873 MB (/usr/bin/time, 2026-12-04; messaging with
// 3.2 M bursts took 634 MB, 198 bytes a burst). At the limit a run stays
// near 2.2 GB.
const (
	MaxBursts     = 1_000_000
	BytesPerBurst = 2200
)

// Values are parameter settings by name, validated by Parse.
type Values map[string]string

// Parse checks "key=value" settings against g's parameters.
func (g Generator) Parse(args []string) (Values, error) { return g.ParseMax(args, MaxBursts) }

// ParseMax is Parse with maxBursts in place of MaxBursts (a caller that
// knows it has the memory).
func (g Generator) ParseMax(args []string, maxBursts int) (Values, error) {
	v := Values{}
	for _, a := range args {
		k, val, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("synth %s: %q: want NAME=VALUE", g.Name, a)
		}
		p, found := g.param(k)
		if !found {
			var names []string
			for _, p := range g.Params {
				names = append(names, p.Name)
			}
			return nil, fmt.Errorf("synth %s: unknown parameter %q (parameters: %s)", g.Name, k, strings.Join(names, ", "))
		}
		low, hasMin := g.Min[k]
		if isDuration(p.Default) {
			if d, err := duration.ParseNS(val); err != nil {
				return nil, fmt.Errorf("synth %s: %s=%s: want a duration such as 8ms", g.Name, k, val)
			} else if hasMin && d < low {
				return nil, fmt.Errorf("synth %s: %s=%s: want a duration of at least %s", g.Name, k, val, time.Duration(low))
			}
		} else if n, err := strconv.Atoi(val); err != nil || n < 0 {
			return nil, fmt.Errorf("synth %s: %s=%s: want a non-negative integer", g.Name, k, val)
		} else if n > MaxIntParam {
			return nil, fmt.Errorf("synth %s: %s=%s: at most %d (the model is built in memory)", g.Name, k, val, MaxIntParam)
		} else if hasMin && int64(n) < low {
			return nil, fmt.Errorf("synth %s: %s=%s: want %d..%d", g.Name, k, val, low, MaxIntParam)
		}
		v[k] = val
	}
	est := g.Bursts(g.full(v))
	if est > float64(maxBursts) {
		return nil, fmt.Errorf("synth %s: %s make about %.3g CPU bursts, above the limit of %d (about %.1f GB of memory at %d bytes a burst): lower them, or raise --max-bursts",
			g.Name, settingsOrDefaults(v), est, maxBursts, float64(maxBursts)*BytesPerBurst/1e9, BytesPerBurst)
	}
	if err := g.check(v); err != nil {
		return nil, err
	}
	if est < 1 {
		// A count of 0 (groups=0): an empty trace says nothing.
		return nil, fmt.Errorf("synth %s: %s make no CPU burst: nothing to simulate (raise the counts)", g.Name, settingsOrDefaults(v))
	}
	return v, nil
}

// settingsOrDefaults is settings(v), or "the defaults" when v is empty.
func settingsOrDefaults(v Values) string {
	if len(v) == 0 {
		return "the defaults"
	}
	return settings(v)
}

// check builds the workload with v and refuses settings that leave a task
// without a CPU burst (a loop count of 0): the simulator schedules bursts,
// and 'synth latt loops=0 jobs=0' panicked in it (index out of range). A
// workload of no task (manytasks tasks=0) stays: it writes an empty trace,
// which the tests of the commands' empty-trace errors use.
//
// Only a count of 0 can do that: without one the model is not built here.
func (g Generator) check(v Values) error {
	zero := false
	for k, x := range v {
		if p, _ := g.param(k); !isDuration(p.Default) {
			n, _ := strconv.Atoi(x)
			zero = zero || n == 0
		}
	}
	if !zero {
		return nil
	}
	m := g.Model(v)
	for i := range m.Tasks {
		if len(m.Tasks[i].Bursts) == 0 {
			return fmt.Errorf("synth %s: %s: task %s has no CPU burst (each task needs some work)", g.Name, settings(v), m.Tasks[i].Comm)
		}
	}
	return nil
}

// settings renders v as the command line gave it, sorted by name.
func settings(v Values) string {
	var kv []string
	for k, x := range v {
		kv = append(kv, k+"="+x)
	}
	sort.Strings(kv)
	return strings.Join(kv, " ")
}

func (g Generator) param(name string) (Param, bool) {
	for _, p := range g.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func isDuration(s string) bool {
	_, err := strconv.Atoi(s)
	return err != nil
}

// Model builds the workload with v (unset parameters take their defaults).
func (g Generator) Model(v Values) *replay.Model {
	m := g.Build(g.full(v))
	if m.NrCPUs == 0 {
		m.NrCPUs = g.CPUs
	}
	return m
}

// full returns v with the defaults of the parameters it does not set.
func (g Generator) full(v Values) Values {
	full := Values{}
	for _, p := range g.Params {
		full[p.Name] = p.Default
	}
	for k, x := range v {
		full[k] = x
	}
	return full
}

// Int returns an integer parameter.
func (v Values) Int(name string) int { n, _ := strconv.Atoi(v[name]); return n }

// Dur returns a duration parameter in ns.
func (v Values) Dur(name string) int64 {
	d, _ := duration.ParseNS(v[name]) // validated by the generator's parse
	return d
}

// builder assembles a model.
type builder struct{ m *replay.Model }

func newBuilder(cpus int) *builder {
	return &builder{m: &replay.Model{NrCPUs: cpus, WorkloadRoot: -1}}
}

// task adds a task and returns its index. Tasks of one process share pid
// (0: a process of its own).
func (b *builder) task(comm string, pid int, nice int, cpu int, start int64, sleeping bool) int {
	i := len(b.m.Tasks)
	tid := trace.TID(1000 + i)
	p := trace.PID(tid)
	if pid > 0 {
		p = trace.PID(pid)
	}
	init := replay.InitRunnable
	var bursts []replay.Burst
	if sleeping {
		init = replay.InitSleeping
		bursts = []replay.Burst{{End: replay.EndBlock}}
	}
	b.m.Tasks = append(b.m.Tasks, replay.Task{TID: tid, PID: p, Comm: comm, Prio: int32(120 + nice), Parent: -1,
		Init: init, CPU: cpu, Start: start, Last: start, Bursts: bursts})
	return i
}

// burst appends a burst of length ns to task i, ending in a block that
// wake ends (EndExit when wake.Kind is CauseNever and exit is true), and
// returns its index.
func (b *builder) burst(i int, length int64, wake replay.Cause, exit bool) int {
	t := &b.m.Tasks[i]
	end := replay.EndBlock
	if exit {
		end = replay.EndExit
	}
	t.Bursts = append(t.Bursts, replay.Burst{Len: length, End: end, Wake: wake})
	return len(t.Bursts) - 1
}

// setWake makes the block after burst j of task i end by a dependency on
// waker.
func (b *builder) setWake(i, j, waker int) {
	b.m.Tasks[i].Bursts[j].Wake = replay.Cause{Kind: replay.CauseDependency, Waker: int32(waker)}
}

// wakeAt adds to burst j of task w an action at ns into it that ends the
// block after burst block of task target.
func (b *builder) wakeAt(w, j int, at int64, target, block int) {
	t := &b.m.Tasks[w]
	t.AddAction(&t.Bursts[j], replay.Action{At: at, Kind: replay.ActWake, Target: int32(target), Block: int32(block)})
}

func timer(d int64) replay.Cause { return replay.Cause{Kind: replay.CauseTimer, Delay: d} }

// finish sorts actions, counts the model's statistics and bounds.
func (b *builder) finish() *replay.Model {
	m := b.m
	st := &m.Stats
	st.Tasks = len(m.Tasks)
	for i := range m.Tasks {
		t := &m.Tasks[i]
		t.Pack()
		for j := range t.Bursts {
			bu := &t.Bursts[j]
			acts := t.ActionsOf(bu)
			sort.SliceStable(acts, func(x, y int) bool { return acts[x].At < acts[y].At })
			st.Bursts++
			if bu.End == replay.EndExit {
				st.Exits++
				continue
			}
			st.BlockingPoints++
			switch bu.Wake.Kind {
			case replay.CauseDependency:
				st.Dependencies++
			case replay.CauseTimer:
				st.Timers++
			case replay.CauseExternal:
				st.External++
			default:
				st.Never++
			}
		}
		if i == 0 || t.Start < m.Start {
			m.Start = t.Start
		}
	}
	return m
}

// Makespan returns the ns from the model's start to the last event of a
// prediction: the run time of a synthetic workload, all of whose tasks
// belong to it and exit.
func Makespan(m *replay.Model, res *replay.Result) int64 {
	evs := res.Events()
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Time - m.Start
}

// f is v's count name as a float64, for Bursts.
func (v Values) f(name string) float64 { return float64(v.Int(name)) }

// fd is v's duration name in ns as a float64 (at least 1), for Bursts.
func (v Values) fd(name string) float64 { return max(float64(v.Dur(name)), 1) }
