package main

// The task-group flags of replay: the settings a trace does not carry
// (--recorded-cgroup), the what-ifs (--cpu-weight, --cpu-max, --cpu-burst,
// --cgroup, --autogroup) and their model line.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/traceview/traceview/internal/duration"
	"github.com/traceview/traceview/replay"
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
	f.StringArrayVar(&g.autogroup, "autogroup", nil, "off, or SEL=NAME: what if autogroup were off (tasks in /autogroup-N go to the root), or the selected tasks formed session NAME")
}

// parseCgroupTime parses a time of cpu.max or cpu.max.burst: a duration
// with its unit ("25ms") or a bare number of µs, as the cgroup files take.
func parseCgroupTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > 1e12 {
			return 0, fmt.Errorf("%q: out of range", s)
		}
		return n * 1000, nil
	}
	return duration.ParseNS(s)
}

// parseCPUMax parses a cpu.max value: "max", "max PERIOD", "QUOTA",
// "QUOTA/PERIOD" or "QUOTA PERIOD"; quota -1 means no limit, period 0 the
// default.
func parseCPUMax(v string) (quota, period int64, err error) {
	v = strings.TrimSpace(v)
	q, p, _ := strings.Cut(strings.ReplaceAll(v, " ", "/"), "/")
	if q == "max" {
		quota = -1
	} else if quota, err = parseCgroupTime(q); err != nil || quota <= 0 {
		return 0, 0, fmt.Errorf("cpu.max %q: want max or QUOTA/PERIOD such as 25ms/100ms (bare numbers are µs)", v)
	}
	if p != "" {
		if period, err = parseCgroupTime(p); err != nil || period <= 0 {
			return 0, 0, fmt.Errorf("cpu.max %q: bad period %q", v, p)
		}
	}
	return quota, period, nil
}

// parseRecordedCgroup parses PATH:key=value[,key=value...] with keys
// weight (cpu.weight 1..10000), shares (v1 cpu.shares 2..262144, kept as
// weight trace.WeightFromShares), max (cpu.max) and burst.
func parseRecordedCgroup(a string) (trace.CgroupSettings, error) {
	path, kv, ok := strings.Cut(a, ":")
	var s trace.CgroupSettings
	if !ok || path == "" || kv == "" {
		return s, fmt.Errorf("--recorded-cgroup %q: want PATH:weight=W[,max=QUOTA/PERIOD][,burst=DURATION]", a)
	}
	s.Path = path
	for _, item := range strings.Split(kv, ",") {
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return s, fmt.Errorf("--recorded-cgroup %q: %q: want KEY=VALUE (weight, shares, max, burst)", a, item)
		}
		switch k {
		case "weight":
			w, err := strconv.Atoi(v)
			if err != nil || w < 1 || w > 10000 {
				return s, fmt.Errorf("--recorded-cgroup %q: weight %q: want 1..10000 (cpu.weight)", a, v)
			}
			s.Weight, s.Shares = w, 0
		case "shares":
			n, err := strconv.Atoi(v)
			if err != nil || n < 2 || n > 262144 {
				return s, fmt.Errorf("--recorded-cgroup %q: shares %q: want 2..262144 (v1 cpu.shares)", a, v)
			}
			s.Weight, s.Shares = trace.WeightFromShares(n), n
		case "max":
			q, p, err := parseCPUMax(v)
			if err != nil {
				return s, fmt.Errorf("--recorded-cgroup %q: %w", a, err)
			}
			s.QuotaNS, s.PeriodNS = q, p
		case "burst":
			b, err := parseCgroupTime(v)
			if err != nil || b < 0 {
				return s, fmt.Errorf("--recorded-cgroup %q: burst %q: want a duration", a, v)
			}
			s.BurstNS = b
		default:
			return s, fmt.Errorf("--recorded-cgroup %q: unknown key %q (weight, shares, max, burst)", a, k)
		}
	}
	return s, nil
}

// apply adds the flags' settings and what-ifs to cfg.
func (g *groupFlags) apply(cfg *replay.Config) error {
	for _, a := range g.recorded {
		s, err := parseRecordedCgroup(a)
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
		q, per, err := parseCPUMax(v)
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
		b, err := parseCgroupTime(v)
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
		if err != nil || val == "" || strings.Contains(val, "/") {
			return usageErrorf("replay: --autogroup %q: want off or SEL=NAME", a)
		}
		path := "/autogroup-" + val
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
		fmt.Fprintln(out, line+"; eevdf schedules them hierarchically (cgroup weights and CFS bandwidth), other policies as peers")
	}
}
