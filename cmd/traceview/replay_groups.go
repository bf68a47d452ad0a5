package main

// The task-group flags of replay: the settings a trace does not carry
// (--recorded-cgroup), the what-ifs (--cpu-weight, --cpu-max, --cpu-burst,
// --cgroup, --autogroup) and their model line.

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// groupFlags holds the task-group flags as typed.
type groupFlags struct {
	recorded  []string
	weight    []string
	max       []string
	burst     []string
	cgroup    []string
	autogroup []string
}

func (g *groupFlags) register(f *pflag.FlagSet) {
	f.StringArrayVar(&g.recorded, "recorded-cgroup", nil, "PATH:weight=W[,max=QUOTA/PERIOD][,burst=DURATION]: a group's settings when recorded, where the trace does not carry them (perf.data); shares=S for a v1 cpu.shares (repeatable)")
	f.StringArrayVar(&g.weight, "cpu-weight", nil, "PATH=W: what if the cgroup had cpu.weight W (1..10000, 100 = default; repeatable)")
	f.StringArrayVar(&g.max, "cpu-max", nil, "PATH=QUOTA/PERIOD or PATH=max: what if the cgroup had this CPU quota (cpu.max; durations such as 25ms/100ms, or µs as cpu.max takes them, 25000 100000; repeatable)")
	f.StringArrayVar(&g.burst, "cpu-burst", nil, "PATH=DURATION: what if the cgroup had this cpu.max.burst (repeatable)")
	f.StringArrayVar(&g.cgroup, "cgroup", nil, "SEL=PATH: what if the selected tasks ran in cgroup PATH (/ the root; repeatable)")
	f.StringArrayVar(&g.autogroup, "autogroup", nil, "off, or SEL=NAME: what if autogroup were off (tasks in /autogroup-N go to the root), or the selected tasks formed session NAME (an existing one as the task-group lines name it, 578 or /autogroup-578, or a new name)")
}

// apply adds the flags' settings and what-ifs to cfg.
func (g *groupFlags) apply(cfg *replay.Config) error {
	for _, a := range g.recorded {
		s, err := trace.ParseCgroupSettings(a)
		if err != nil {
			return usageErrorf("replay: %w", err)
		}
		cfg.Cgroups = append(cfg.Cgroups, s)
	}
	cut := func(flag, a string) (string, string, error) {
		p, v, ok := strings.Cut(a, "=")
		if !ok || p == "" {
			return "", "", usageErrorf("replay: --%s %q: want PATH=VALUE", flag, a)
		}
		return p, v, nil
	}
	for _, a := range g.weight {
		p, v, err := cut("cpu-weight", a)
		if err != nil {
			return err
		}
		w, err := strconv.Atoi(v)
		if err != nil || w < 1 || w > 10000 {
			return usageErrorf("replay: --cpu-weight %q: want a weight 1..10000 (cpu.weight; 100 is the default)", a)
		}
		cfg.CgroupChanges = append(cfg.CgroupChanges, replay.CgroupChange{Path: p, Weight: w})
	}
	for _, a := range g.max {
		p, v, err := cut("cpu-max", a)
		if err != nil {
			return err
		}
		q, per, err := trace.ParseCPUMax(v)
		if err != nil {
			return usageErrorf("replay: --cpu-max %q: %w", a, err)
		}
		cfg.CgroupChanges = append(cfg.CgroupChanges, replay.CgroupChange{Path: p, Quota: q, Period: per})
	}
	for _, a := range g.burst {
		p, v, err := cut("cpu-burst", a)
		if err != nil {
			return err
		}
		b, err := trace.ParseCgroupTime(v)
		if err != nil || b < 0 {
			return usageErrorf("replay: --cpu-burst %q: want a duration such as 10ms", a)
		}
		if b == 0 {
			b = -1
		}
		cfg.CgroupChanges = append(cfg.CgroupChanges, replay.CgroupChange{Path: p, Burst: b})
	}
	for _, a := range g.cgroup {
		sel, val, err := parseSelArg("cgroup", a)
		if err != nil {
			return err
		}
		if val == "" {
			return usageErrorf("replay: --cgroup %q: want SEL=PATH", a)
		}
		path := val
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Cgroup: &path})
	}
	for _, a := range g.autogroup {
		if a == "off" {
			cfg.NoAutogroup = true
			continue
		}
		sel, val, err := parseSelArg("autogroup", a)
		// NAME as the reports print a session, "/autogroup-578", or
		// without its slash or prefix: one session (new-user pass 26 F9:
		// "autogroup-578" made /autogroup-autogroup-578, a new one).
		name := strings.TrimPrefix(strings.TrimPrefix(val, "/"), "autogroup-")
		if err != nil || name == "" || strings.Contains(name, "/") {
			return usageErrorf("replay: --autogroup %q: want off or SEL=NAME, NAME a session's name or number as the task-group lines print it (578, or /autogroup-578); a new name makes a new session", a)
		}
		path := "/autogroup-" + name
		cfg.Overrides = append(cfg.Overrides, replay.Override{Sel: sel, Cgroup: &path})
	}
	return nil
}

// writeGroupLine prints the task groups of a replay on the model lines.
func writeGroupLine(out io.Writer, m *replay.Model, cfg replay.Config) {
	groups, _, err := replay.Groups(m, cfg)
	if err != nil {
		return // CheckConfig said it already
	}
	if line := replay.GroupsLine(groups); line != "" {
		fmt.Fprintln(out, line+"; "+strings.Join(policies.GroupPolicies(), " and ")+" schedule them hierarchically (cgroup weights and CFS bandwidth), other policies as peers")
		return
	}
	if len(groups) <= 1 && (cfg.NoAutogroup || len(cfg.Overrides) > 0) {
		// The recording had groups (the what-ifs emptied them) or not.
		if rec, _, err := replay.Groups(m, replay.Config{}); err == nil && len(rec) > 1 {
			fmt.Fprintln(out, "task groups: none left by the what-ifs (--autogroup off, --cgroup): every task in the root group")
		}
		return
	}
	if n := busyOutsideWorkload(m); len(groups) <= 1 && n > 0 && m.Meta.Autogroup >= 0 && m.Meta.TaskAutogroups == nil {
		// A recorder that does not read autogroups (perf.data):
		// processes started before the trace in sessions of their own
		// are all in / here (new-user pass 26 F13: sessions 2:1 on one
		// CPU, self-replay 0.30x on switches, with no word why).
		fmt.Fprintf(out, "task groups: none known: the trace records no autogroup sessions (perf.data does not), so the %s outside the traced command that ran a tenth of the trace or more run in the root group here, peers of the rest; with autogroup on, each session (setsid: a login, a terminal, a service) is a group of its own: --autogroup SEL=NAME places them\n",
			plural(n, "task"))
	}
}

// busyOutsideWorkload counts the tasks outside the traced command (all
// of them in a capture of the whole system) that ran a tenth of the
// trace's span or more.
func busyOutsideWorkload(m *replay.Model) int {
	first, last := int64(-1), m.End
	for i := range m.Tasks {
		if first < 0 || m.Tasks[i].Start < first {
			first = m.Tasks[i].Start
		}
		last = max(last, m.Tasks[i].Last)
	}
	span := last - first
	n := 0
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Workload || tk.TID <= 0 {
			continue
		}
		var run int64
		for _, b := range tk.Bursts {
			run += b.Len
		}
		if span > 0 && run*10 >= span {
			n++
		}
	}
	return n
}

// writeGroupThrottle prints, under a run's table, each quota'd group's
// predicted throttling (the policy's cpu.stat counts, stats) beside the
// recording's (obs: its cpu.stat over the trace when recorded, else the
// figures inferred from the schedule) and their ratio, so that a what-if
// on --cpu-max reads against what the recording had.
func writeGroupThrottle(w io.Writer, stats []policies.GroupStats, groups []replay.GroupInfo, obs *report.LatencyResult, modelled bool) {
	if !modelled {
		return
	}
	var gone []string
	for i := range obs.Cgroups {
		g := &obs.Cgroups[i]
		if thr, _ := report.ObservedThrottled(g); g.QuotaNS > 0 && thr > 0 && !slices.ContainsFunc(stats, func(st policies.GroupStats) bool { return st.Path == g.Path }) {
			why := "not in the replay (its tasks are replayed in the groups they ran longest in: a replay keeps a task in one group), so its throttling is not predicted"
			if k := slices.IndexFunc(groups, func(r replay.GroupInfo) bool { return r.Path == g.Path }); k >= 0 && groups[k].QuotaNS <= 0 {
				// (new-user pass 23 F3: a quota removed by --cpu-max
				// PATH=max read as a group left out.)
				why = fmt.Sprintf("replayed with no quota (%s), so not throttled", groups[k].Source)
			}
			thr, src := report.ObservedThrottled(g)
			what := "recorded %s ms throttled (its cpu.stat)"
			if src != "cpu.stat" {
				// (Not "recorded": new-user pass 121 F1 read an
				// inference at 2.2x the kernel's as the recording's.)
				what = "the recording's %s ms throttled, inferred from the schedule (an estimate)"
			}
			gone = append(gone, fmt.Sprintf("  %s: %s; "+what, termsafe.Name(g.Path), why, msf(thr)))
		}
	}
	if len(stats) == 0 && len(gone) == 0 {
		return
	}
	fmt.Fprintln(w, "task groups with a quota: predicted throttling against the recording's (throttled time is summed over CPUs, as cpu.stat's)")
	for _, l := range gone {
		fmt.Fprintln(w, l)
	}
	for _, st := range stats {
		line := fmt.Sprintf("  %s: predicted %d throttled periods of %d, %s ms throttled", termsafe.Name(st.Path), st.NrThrottled, st.NrPeriods, msf(st.ThrottledNS))
		if st.NrThrottled > 0 && st.ThrottledNS == 0 {
			// (new-user pass 34 F4 read "6 throttled periods, 0.000 ms"
			// as a contradiction.)
			line += " (out of quota in those periods, but no task of the group was picked before the refill: from v6.18 throttled time counts only once a task is throttled, kernel/sched/fair.c; its tasks waited for CPUs other groups held)"
		}
		i := slices.IndexFunc(obs.Cgroups, func(g report.CgroupThrottle) bool { return g.Path == st.Path })
		if i < 0 {
			fmt.Fprintln(w, line+"; recorded: none (the group has no task in the recording)")
			continue
		}
		g := &obs.Cgroups[i]
		unlimited := ""
		if g.QuotaNS < 0 {
			unlimited = " with no quota"
		}
		if k := g.Kernel; k != nil && !g.KernelWholeTrace {
			line += fmt.Sprintf("; recorded%s %d of %d, %s ms (its cpu.stat); ratio %s", unlimited, k.NrThrottled, k.NrPeriods, msf(k.ThrottledNS), ratio(st.ThrottledNS, k.ThrottledNS))
		} else {
			how := "inferred from the schedule and the " + g.Settings + " quota"
			switch {
			case unlimited != "":
				how = "inferred from the schedule"
			case g.Settings == "unknown":
				how = "inferred from the schedule; the recording's quota unknown: --recorded-cgroup " + termsafe.Name(g.Path) + ":max=QUOTA/PERIOD states it"
			}
			// (Not "recorded": new-user pass 85 F4 read an inference 17 %
			// below the kernel's count as the recording's.)
			line += fmt.Sprintf("; the recording's%s %d throttled periods, %s ms (%s: an estimate, no cpu.stat reading to check it); ratio %s", unlimited, g.ThrottledPeriods, msf(g.Throttled), how, ratio(st.ThrottledNS, g.Throttled))
		}
		fmt.Fprintln(w, line)
	}
}
