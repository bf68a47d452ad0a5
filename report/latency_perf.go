package report

import (
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// perfLatency runs perf's own state machine (perfcompat.Latency): perf
// 6.12's numbers with PerfCompat; with CPUGiven alone, perf's -C with this
// package's corrections (no 0 ns first-seen delays, recovered delays).
func perfLatency(src trace.Source, opts LatencyOptions) (*latencyRun, error) {
	keep := opts.Percentiles || opts.KeepSamples
	m, err := perfcompat.Latency(src, perfcompat.LatencyOptions{
		CPUGiven: opts.CPUGiven, Corrected: !opts.PerfCompat,
		Wakeups: schedule.WakeupSource(opts.Wakeups), KeepSamples: keep,
	})
	if err != nil {
		return nil, err
	}
	d := trackerDiag(&m.Tracker)
	if md := src.Meta(); opts.PerfCompat && md != nil && md.Records > 0 {
		// perf's "out of" counts every record read (nr_events[0]), not
		// the events decoded.
		d.Events = md.Records
	}
	d.Recovered, d.Dropped, d.Unwoken, d.Wakeups = m.Recovered, m.Dropped, m.Unwoken, m.Wakeups
	d.PerfTimestamps, d.PerfUnordered = m.Timestamps, m.Unordered
	res := &LatencyResult{Options: opts, Diag: d}
	atoms := m.Tracker.AtomRoot()
	res.TaskRows = make([]LatencyRow, 0, len(atoms))
	for _, t := range atoms {
		res.TaskRows = append(res.TaskRows, taskRow(t, keep, opts.PerfCompat))
	}
	res.Rows, res.Total = groupRows(res.TaskRows, opts)
	res.Diag.RuntimeNone = d.Switches > 0 && res.Total.Runtime == 0
	// The warnings are ours, not perf's: they name a task as the trace
	// knows it, as the default mode does, where perf's table prints
	// ":81:81" for a thread with no COMM record (new-user pass 70 F4).
	return &latencyRun{res: res, name: trackerName(&m.Tracker, false), warns: m.Tracker.Warnings.List()}, nil
}
