package pprof

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// Sample types of the pprof export, in Sample.Value order. SampleBlocked
// and SampleRunqueue are there only when the trace has callchains.
const (
	SampleDelay    = "delay"    // scheduling delay, nanoseconds
	SampleRuntime  = "runtime"  // CPU time, nanoseconds
	SampleSwitches = "switches" // times switched in, count
	SampleBlocked  = "blocked"  // off-CPU asleep: switch-out to wakeup, nanoseconds, by stack
	SampleRunqueue = "runqueue" // off-CPU runnable: wakeup (or preemption) to switch-in, nanoseconds, by stack
)

// FramePreempted is the reason frame of delays that followed a preemption.
const FramePreempted = "preempted"

// FrameComm prefixes the root frame of every stack: the command name
// of the sample's thread ("comm sched-messaging").
const FrameComm = "comm "

// FrameIRQ is the reason frame of delays that followed a wakeup from
// interrupt context (trace.Event.FromIRQ). The reason frames that name no
// task are in parentheses, never angle or square brackets: pprof takes a
// name with "<>[]" or "::" for demangled C++ and cuts its "<...>" and
// "(...)" when it loads a profile (looksLikeDemangledCPlusPlus,
// internal/symbolizer/symbolizer.go), so "woken by <irq>" showed as
// "woken by " in go tool pprof -top.
const FrameIRQ = "woken by (irq)"

// Profile reads src to the end (it does not close it) and returns a
// pprof profile (github.com/google/pprof/profile) of where the trace's tasks
// waited for a CPU and behind whom.
//
// Sample types: delay (scheduling delay, nanoseconds; the default),
// runtime (nanoseconds) and switches (count). Stacks, root first, are
// [process; thread] for each thread's runtime and switches, and
// [process; thread; reason] for its delays, where reason is "woken by
// <waker comm>" for a delay that began with a wakeup (the waker is the task
// current on the CPU that emitted the sched_waking, or the recorded waker
// when the source has it; "woken by (irq)" when the trace says the wakeup
// ran in interrupt context, whoever it interrupted; "woken by (idle or
// irq)" when it came from an idle CPU) or "preempted" for a delay that
// began with a switch-out while runnable. Frames are named like perf's
// latency rows: a thread "comm:tid", a process "comm (pid N)".
//
// Above the process frame, every stack has a root frame "comm NAME", the
// thread's command name, so that a workload of many processes (161
// sched-messaging processes of 1 % each, all under pprof's 0.5 % node
// threshold once split) still shows as one node whose cumulative delay is
// the Sum delay of its merged latency row ("sched-messaging:(161)").
//
// Delays follow perf sched latency's rules as the schedule reconstruction
// (trace/schedule) applies them, so a thread's delay total equals its Sum
// delay in `traceview latency -p`.
// Runtime is the sum of sched_stat_runtime when the trace has that event
// (perf's Runtime column), else the time between switch-in and switch-out.
//
// When the trace has callchains (perf sched record -g: Event.Stack of each
// switch-out), two more sample types give off-CPU time by the stack where
// the task left the CPU, as BCC's offcputime does: blocked (asleep, from
// the switch-out to the wakeup; sleeps the trace ends in are left out) and
// runqueue (from the wakeup or preemption to the switch-in: the delay
// again, by stack instead of by reason). Their stacks are [comm NAME;
// process; thread; outermost frame; ...; leaf frame], frames named by
// Frame.Func, else opts.KernelSymbols for kernel frames, else "[unknown]"
// (each Location keeps the address), so `go tool pprof -sample_index=blocked
// -top` names where tasks blocked.
//
// opts.Filter selects the delays, runtime and switches exported (see
// schedule.Filter); the profile's duration is then the window's, and the
// parts of delays and sched_stat_runtime periods before the window's start
// are left out, so that no task shows more than the window (more than 100 %
// of a CPU): a delay ending in the window counts from the window's start,
// a sched_stat_runtime (which covers the Runtime ns before its time) for
// its part in the window. (latency --time counts both whole, as perf does.)
func Profile(src trace.Source, opts Options) (*profile.Profile, error) {
	type reasonKey struct {
		t      *schedule.Task
		reason string
	}
	type stackKey struct {
		t     *schedule.Task
		stack trace.StackID
	}
	delays := map[reasonKey]int64{}
	// statRuntime is Task.StatRuntime clipped to the filter's window.
	statRuntime := map[*schedule.Task]int64{}
	var order []reasonKey
	offcpu := map[stackKey]*[2]int64{} // blocked, runqueue ns
	var offOrder []stackKey
	addOff := func(t *schedule.Task, id trace.StackID, i int, ns int64) {
		k := stackKey{t, id}
		v := offcpu[k]
		if v == nil {
			v = new([2]int64)
			offcpu[k] = v
			offOrder = append(offOrder, k)
		}
		v[i] += ns
	}
	p := schedule.New(schedule.Options{Filter: opts.Filter}, schedule.Hooks{
		State: func(iv *schedule.Interval) {
			if iv.State == schedule.StateSleeping && !iv.Open && iv.Task.TID != 0 {
				addOff(iv.Task, iv.Stack, 0, iv.End-iv.Start)
			}
		},
		Delay: func(d *schedule.Delay) {
			if d.Excluded {
				return
			}
			start, end, _ := opts.Filter.Clip(d.Start, d.End)
			ns := max(end-start, 0)
			addOff(d.Task, d.Stack, 1, ns)
			k := reasonKey{d.Task, FramePreempted}
			if d.Cause != schedule.CausePreempted {
				k.reason = wakerFrame(d.Waker, d.FromIRQ)
			}
			if _, ok := delays[k]; !ok {
				order = append(order, k)
			}
			delays[k] += ns
		},
		Runtime: func(t *schedule.Task, e *trace.Event, lossy bool) {
			if lossy {
				return // left out of Task.StatRuntime too (KeepLossy is off)
			}
			start, end, _ := opts.Filter.Clip(e.Time-max(e.Runtime, 0), e.Time)
			statRuntime[t] += max(end-start, 0)
		},
	})
	if err := p.Run(src); err != nil {
		return nil, err
	}
	p.Finish()
	if opts.Counters != nil {
		opts.Counters(&p.C)
	}

	var stacks []trace.Stack
	if m := src.Meta(); m != nil {
		stacks = m.Stacks
	}
	withStacks := len(stacks) > 0
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: SampleDelay, Unit: "nanoseconds"},
			{Type: SampleRuntime, Unit: "nanoseconds"},
			{Type: SampleSwitches, Unit: "count"},
		},
		DefaultSampleType: SampleDelay,
		PeriodType:        &profile.ValueType{Type: SampleDelay, Unit: "nanoseconds"},
		Period:            1,
		// TimeNanos stays 0: trace times are on the recorder's clock
		// (monotonic, not wall time), which pprof would print as a 1970
		// date. The span is in a comment instead.
		DurationNanos: span(p),
		Comments: []string{
			"traceview: scheduling delay by process, thread and reason (waker or preempted)",
			fmt.Sprintf("trace from %.6f s to %.6f s on the trace clock", float64(p.First())/1e9, float64(p.Last())/1e9),
		},
	}
	if opts.Filter.Active() {
		prof.Comments = append(prof.Comments, "filtered: "+opts.Filter.String())
	}
	if m := src.Meta(); m != nil && m.Hostname != "" {
		prof.Comments = append(prof.Comments, fmt.Sprintf("recorded on %s, Linux %s", m.Hostname, m.OSRelease))
	}
	if withStacks {
		prof.SampleType = append(prof.SampleType, &profile.ValueType{Type: SampleBlocked, Unit: "nanoseconds"}, &profile.ValueType{Type: SampleRunqueue, Unit: "nanoseconds"})
	}
	// values returns a sample's values: delay, runtime, switches, and the
	// two off-CPU types when the profile has them.
	values := func(v ...int64) []int64 {
		out := make([]int64, len(prof.SampleType))
		copy(out, v)
		return out
	}
	locs := map[string]*profile.Location{}
	fns := map[string]*profile.Function{}
	function := func(name string) *profile.Function {
		if fn, ok := fns[name]; ok {
			return fn
		}
		fn := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: name, SystemName: name}
		prof.Function = append(prof.Function, fn)
		fns[name] = fn
		return fn
	}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Line: []profile.Line{{Function: function(name)}}}
		prof.Location = append(prof.Location, l)
		locs[name] = l
		return l
	}
	stack := func(t *schedule.Task) []*profile.Location {
		// Names as the other machine outputs write them (termsafe.ValidUTF8):
		// a profile's strings are UTF-8, and two names of different
		// invalid bytes were one "comm bad\ufffdutf" frame each (new-user
		// pass 31 F4).
		comm := FrameName(t.Comm)
		return []*profile.Location{loc(fmt.Sprintf("%s:%d", comm, t.TID)), loc(fmt.Sprintf("%s (pid %d)", FrameName(p.ProcessName(t)), t.PID)), loc(FrameComm + comm)}
	}
	labels := func(t *schedule.Task) map[string][]int64 {
		return map[string][]int64{"tid": {int64(t.TID)}, "pid": {int64(t.PID)}}
	}
	for _, t := range p.Tasks() {
		if t.TID == 0 {
			continue
		}
		rt := t.OnCPU
		if p.HaveRuntime() {
			rt = statRuntime[t]
		}
		if rt == 0 && t.Switches == 0 {
			continue
		}
		prof.Sample = append(prof.Sample, &profile.Sample{
			Location: stack(t),
			Value:    values(0, rt, t.Switches),
			NumLabel: labels(t),
		})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].t.TID < order[j].t.TID })
	for _, k := range order {
		if delays[k] == 0 {
			continue
		}
		prof.Sample = append(prof.Sample, &profile.Sample{
			Location: append([]*profile.Location{loc(k.reason)}, stack(k.t)...),
			Value:    values(delays[k], 0, 0),
			NumLabel: labels(k.t),
		})
	}
	if withStacks {
		frameLocs := map[trace.Frame]*profile.Location{}
		frame := func(f trace.Frame) *profile.Location {
			if l, ok := frameLocs[f]; ok {
				return l
			}
			name := f.Func
			if name == "" && f.Kernel && opts.KernelSymbols != nil {
				name, _ = opts.KernelSymbols.Lookup(f.Addr)
			}
			if name == "" {
				name = "[unknown]"
			}
			l := &profile.Location{ID: uint64(len(prof.Location) + 1), Address: f.Addr, Line: []profile.Line{{Function: function(name)}}}
			prof.Location = append(prof.Location, l)
			frameLocs[f] = l
			return l
		}
		sort.SliceStable(offOrder, func(i, j int) bool { return offOrder[i].t.TID < offOrder[j].t.TID })
		for _, k := range offOrder {
			v := offcpu[k]
			if v[0] == 0 && v[1] == 0 {
				continue
			}
			var ls []*profile.Location
			if k.stack > 0 && int(k.stack) <= len(stacks) {
				for _, f := range stacks[k.stack-1].Frames {
					ls = append(ls, frame(f))
				}
			}
			prof.Sample = append(prof.Sample, &profile.Sample{
				Location: append(ls, stack(k.t)...),
				Value:    values(0, 0, 0, v[0], v[1]),
				NumLabel: labels(k.t),
			})
		}
	}
	if err := prof.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof export: %w", err)
	}
	return prof, nil
}

// wakerFrame names the reason frame of a delay after a wakeup: the
// waker's comm, or "(irq)" for a wakeup from interrupt context (the task
// current on that CPU was only interrupted; it is not blamed).
func wakerFrame(w *schedule.Task, fromIRQ bool) string {
	switch {
	case fromIRQ:
		return FrameIRQ
	case w == nil:
		return "woken by (unknown)"
	case w.TID == 0:
		return "woken by (idle or irq)"
	case w.Comm == "":
		return fmt.Sprintf("woken by :%d", w.TID)
	}
	return "woken by " + FrameName(w.Comm)
}

// FrameName is a task name as a frame writes it: as the text tables do
// (termsafe.Name: controls, bytes that are not UTF-8 and a backslash
// escaped, so a newline does not split go tool pprof -top's line), and
// the characters that make pprof take a name for demangled C++ and cut
// its "<...>" and "(...)" when it loads the profile (<, >, [, ] and a
// second colon of "::"; see FrameIRQ) written \xHH too: tasks "x", "<a>x"
// and "<b>x" were one "comm x" node of their three delays (new-user pass
// 49 F1). termsafe.Unescape reads it back.
func FrameName(comm string) string {
	s := termsafe.Name(comm)
	if !strings.ContainsAny(s, "<>[]") && !strings.Contains(s, "::") {
		return s
	}
	return strings.NewReplacer("<", `\x3c`, ">", `\x3e`, "[", `\x5b`, "]", `\x5d`, "::", `:\x3a`).Replace(s)
}

// Write exports src as a gzipped pprof profile to w (see
// Profile).
func Write(w io.Writer, src trace.Source, opts Options) error {
	prof, err := Profile(src, opts)
	if err != nil {
		return err
	}
	return prof.Write(w)
}

// Options tune Profile and Write.
type Options struct {
	// Filter, when not nil, selects what is exported (see
	// schedule.Filter): delays, runtime, runs and states of the selected
	// tasks and CPUs, clipped to its window.
	Filter *schedule.Filter
	// KernelSymbols names the kernel frames of callchains in the pprof
	// export (nil: "[unknown]"; e.g. an internal/kallsyms table).
	KernelSymbols interface {
		Lookup(addr uint64) (string, bool)
	}
	// Counters, when set, is called with the rebuilt schedule's counters
	// (schedule.Builder.C) once the trace is read: the caller's warnings
	// of what the schedule lacks.
	Counters func(*schedule.Counters)
}

// span is the profile's duration: the trace's first to last event, or the
// filter's window of it.
func span(p *schedule.Builder) int64 {
	from, to := p.First(), p.Last()
	if f := p.Filter(); f != nil {
		if f.Start != 0 {
			from = max(from, f.Start)
		}
		if f.End != 0 {
			to = min(to, f.End)
		}
	}
	return max(to-from, 0)
}
