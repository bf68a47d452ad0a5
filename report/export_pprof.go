package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// Sample types of the pprof export, in Sample.Value order.
const (
	PprofDelay    = "delay"    // scheduling delay, nanoseconds
	PprofRuntime  = "runtime"  // CPU time, nanoseconds
	PprofSwitches = "switches" // times switched in, count
)

// PprofPreempted is the reason frame of delays that followed a preemption.
const PprofPreempted = "preempted"

// PprofIRQ is the reason frame of delays that followed a wakeup from
// interrupt context (trace.Event.FromIRQ).
const PprofIRQ = "woken by <irq>"

// ExportPprof reads src to the end (it does not close it) and returns a
// pprof profile (github.com/google/pprof/profile) of where the trace's tasks
// waited for a CPU and behind whom.
//
// Sample types: delay (scheduling delay, nanoseconds; the default),
// runtime (nanoseconds) and switches (count). Stacks, root first, are
// [process; thread] for each thread's runtime and switches, and
// [process; thread; reason] for its delays, where reason is "woken by
// <waker comm>" for a delay that began with a wakeup (the waker is the task
// current on the CPU that emitted the sched_waking, or the recorded waker
// when the source has it; "woken by <irq>" when the trace says the wakeup
// ran in interrupt context, whoever it interrupted; "woken by <idle or
// irq>" when it came from an idle CPU) or "preempted" for a delay that
// began with a switch-out while runnable. Frames are named like perf's
// latency rows: a thread "comm:tid", a process "comm (pid N)".
//
// Delays follow perf sched latency's rules as the schedule reconstruction
// (trace/schedule) applies them, so a thread's delay total equals its Sum
// delay in `traceview latency -p`. Runtime is the sum of sched_stat_runtime
// when the trace has that event (perf's Runtime column), else the time
// between switch-in and switch-out.
func ExportPprof(src trace.Source) (*profile.Profile, error) {
	type reasonKey struct {
		t      *schedule.Task
		reason string
	}
	delays := map[reasonKey]int64{}
	var order []reasonKey
	p := schedule.New(schedule.Options{}, schedule.Hooks{
		Delay: func(d *schedule.Delay) {
			if d.Excluded {
				return
			}
			k := reasonKey{d.Task, PprofPreempted}
			if d.Cause != schedule.CausePreempted {
				k.reason = pprofWakerFrame(d.Waker, d.FromIRQ)
			}
			if _, ok := delays[k]; !ok {
				order = append(order, k)
			}
			delays[k] += d.End - d.Start
		},
	})
	if err := p.Run(src); err != nil {
		return nil, err
	}
	p.Finish()

	prof := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: PprofDelay, Unit: "nanoseconds"},
			{Type: PprofRuntime, Unit: "nanoseconds"},
			{Type: PprofSwitches, Unit: "count"},
		},
		DefaultSampleType: PprofDelay,
		PeriodType:        &profile.ValueType{Type: PprofDelay, Unit: "nanoseconds"},
		Period:            1,
		// TimeNanos stays 0: trace times are on the recorder's clock
		// (monotonic, not wall time), which pprof would print as a 1970
		// date. The span is in a comment instead.
		DurationNanos: p.Last() - p.First(),
		Comments: []string{
			"traceview: scheduling delay by process, thread and reason (waker or preempted)",
			fmt.Sprintf("trace from %.6f s to %.6f s on the trace clock", float64(p.First())/1e9, float64(p.Last())/1e9),
		},
	}
	if m := src.Meta(); m != nil && m.Hostname != "" {
		prof.Comments = append(prof.Comments, fmt.Sprintf("recorded on %s, Linux %s", m.Hostname, m.OSRelease))
	}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: name, SystemName: name}
		prof.Function = append(prof.Function, fn)
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Line: []profile.Line{{Function: fn}}}
		prof.Location = append(prof.Location, l)
		locs[name] = l
		return l
	}
	stack := func(t *schedule.Task) []*profile.Location {
		return []*profile.Location{loc(fmt.Sprintf("%s:%d", t.Comm, t.TID)), loc(fmt.Sprintf("%s (pid %d)", p.ProcessName(t), t.PID))}
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
			rt = t.StatRuntime
		}
		if rt == 0 && t.Switches == 0 {
			continue
		}
		prof.Sample = append(prof.Sample, &profile.Sample{
			Location: stack(t),
			Value:    []int64{0, rt, t.Switches},
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
			Value:    []int64{delays[k], 0, 0},
			NumLabel: labels(k.t),
		})
	}
	if err := prof.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof export: %w", err)
	}
	return prof, nil
}

// pprofWakerFrame names the reason frame of a delay after a wakeup: the
// waker's comm, or "<irq>" for a wakeup from interrupt context (the task
// current on that CPU was only interrupted; it is not blamed).
func pprofWakerFrame(w *schedule.Task, fromIRQ bool) string {
	switch {
	case fromIRQ:
		return PprofIRQ
	case w == nil:
		return "woken by <unknown>"
	case w.TID == 0:
		return "woken by <idle or irq>"
	case w.Comm == "":
		return fmt.Sprintf("woken by :%d", w.TID)
	}
	return "woken by " + w.Comm
}

// WritePprof exports src as a gzipped pprof profile to w (see
// ExportPprof).
func WritePprof(w io.Writer, src trace.Source) error {
	prof, err := ExportPprof(src)
	if err != nil {
		return err
	}
	return prof.Write(w)
}
