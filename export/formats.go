package export

import (
	"io"

	"github.com/traceview/traceview/export/chromejson"
	"github.com/traceview/traceview/export/pprof"
	"github.com/traceview/traceview/report/tables"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/perfettopb"
)

func init() {
	Register(Format{
		Name:        "pprof",
		Description: "gzipped pprof profile of scheduling delay, runtime and switches by command, process, thread and waker (pprof.Write)",
		Binary:      true,
		Filters:     true,
		Options:     []string{OptKallsyms},
		// (New-user pass 27 F2: a quota'd service's waits read 96 %
		// "preempted", where latency put 84 % of them down to
		// throttling.)
		Loses:   "its delays are labelled by how they began (woken by a task, preempted), and a wait that the task's cgroup spent throttled by its CPU quota is not told apart: 'latency' splits each task's delay into waited and Throttled ms",
		LosesIf: MayThrottle,
		Write: func(w io.Writer, src trace.Source, o Options) error {
			return pprof.Write(w, src, pprof.Options{Filter: o.Filter, KernelSymbols: o.KernelSymbols, Counters: o.Schedule})
		},
	})
	Register(Format{
		Name:        "perfetto",
		Description: "native Perfetto protobuf trace of every event (perfettopb.Write)",
		Binary:      true,
		NoFilters:   "the native Perfetto trace holds every event (select in Perfetto's UI, or use --format chrome-json)",
		Options:     []string{OptCompact},
		Loses: "each task's cgroup is written as a label of its track (its last one), not at each sched_switch, and the groups' quota settings and cpu.stat readings are not written: " +
			"traceview reads each task back in its last group (a task that moved counts there throughout), with no quota (its throttling inferred as of a quota unknown) and no cpu.stat",
		Write: func(w io.Writer, src trace.Source, o Options) error {
			_, err := perfettopb.Write(w, src, perfettopb.Options{Compact: o.Compact, WarningText: o.WarningText})
			return err
		},
	})
	Register(Format{
		Name:        "chrome-json",
		Description: "Chrome trace-event JSON: per-CPU and per-task tracks, wakeup flows (chromejson.Write)",
		Filters:     true,
		Write: func(w io.Writer, src trace.Source, o Options) error {
			return chromejson.Write(w, src, chromejson.Options{Filter: o.Filter, Counters: o.Schedule})
		},
	})
	Register(Format{
		Name:        "parquet",
		Description: "a directory of Parquet tables (sched_slice, thread_state, thread, process, trace, task_latency, delay_hist; tables.Write)",
		NoFilters:   "the Parquet tables hold every event (select with SQL: WHERE ts, cpu, tid ...)",
		Options:     []string{OptTraceID},
		WriteDir: func(dir string, src trace.Source, o Options) error {
			sum, err := tables.Write(dir, src, tables.Options{TraceID: o.TraceID, Source: o.Source})
			if err == nil && o.Warnings != nil && sum != nil && sum.Latency != nil {
				o.Warnings(sum.Latency.ReportWarnings)
			}
			return err
		},
	})
}

// MayThrottle reports whether the groups of a trace (m; nil: none) may
// have been throttled: one has a recorded CPU quota, or a cpu cgroup's
// settings are not recorded (a perf.data: latency infers its throttles).
// Autogroups have no quota. pprof's Format.LosesIf.
func MayThrottle(m *trace.Meta) bool {
	if m == nil {
		return false
	}
	for _, s := range m.CgroupSettings {
		if s.QuotaNS > 0 {
			return true
		}
	}
	if len(m.CgroupSettings) > 0 {
		return false // recorded, none with a quota
	}
	for _, p := range m.Cgroups {
		if p != "/" && !trace.IsAutogroupPath(p) {
			return true
		}
	}
	return false
}
