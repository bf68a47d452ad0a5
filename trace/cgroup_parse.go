package trace

// Parsers of the cgroup settings a user states on the command line
// (--recorded-cgroup, --cpu-max, --cpu-burst of replay and latency).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traceview/traceview/internal/duration"
)

// ParseCgroupTime parses a time of cpu.max or cpu.max.burst: a duration
// with its unit ("25ms") or a bare number of µs, as the cgroup files take.
func ParseCgroupTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > 1e12 {
			return 0, fmt.Errorf("%q: out of range", s)
		}
		return n * 1000, nil
	}
	return duration.ParseNS(s)
}

// ParseCPUMax parses a cpu.max value: "max", "max PERIOD", "QUOTA",
// "QUOTA/PERIOD" or "QUOTA PERIOD"; quota -1 means no limit, period 0 the
// default.
func ParseCPUMax(v string) (quota, period int64, err error) {
	v = strings.TrimSpace(v)
	q, p, _ := strings.Cut(strings.ReplaceAll(v, " ", "/"), "/")
	if q == "max" {
		quota = -1
	} else if quota, err = ParseCgroupTime(q); err != nil {
		return 0, 0, fmt.Errorf("cpu.max %q: want max or QUOTA/PERIOD such as 25ms/100ms (bare numbers are µs)", v)
	} else if quota <= 0 {
		// (The kernel refuses a quota under min_cfs_quota_period, 1 ms:
		// tg_set_cfs_bandwidth, kernel/sched/core.c v6.18.)
		return 0, 0, fmt.Errorf("cpu.max %q: a quota of %s gives the group no CPU time: give one of at least 1ms (the kernel's least), or max for no limit", v, q)
	}
	if p != "" {
		if period, err = ParseCgroupTime(p); err != nil || period <= 0 {
			return 0, 0, fmt.Errorf("cpu.max %q: bad period %q", v, p)
		}
	}
	return quota, period, nil
}

// ParseCgroupSettings parses a --recorded-cgroup value,
// PATH:key=value[,key=value...], with keys
// weight (cpu.weight 1..10000), shares (v1 cpu.shares 2..262144, kept as
// weight WeightFromShares), max (cpu.max) and burst.
func ParseCgroupSettings(a string) (CgroupSettings, error) {
	path, kv, ok := strings.Cut(a, ":")
	var s CgroupSettings
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
			s.Weight, s.Shares = WeightFromShares(n), n
		case "max":
			q, p, err := ParseCPUMax(v)
			if err != nil {
				return s, fmt.Errorf("--recorded-cgroup %q: %w", a, err)
			}
			if p != 0 && (p < MinCfsPeriod || p > MaxCfsPeriod) {
				return s, fmt.Errorf("--recorded-cgroup %q: period %s: the kernel takes 1ms..1s", a, fmtMS(p))
			}
			if q > 0 && q < MinCfsQuota {
				return s, fmt.Errorf("--recorded-cgroup %q: quota %s: the kernel takes at least 1ms", a, fmtMS(q))
			}
			s.QuotaNS, s.PeriodNS = q, p
		case "burst":
			b, err := ParseCgroupTime(v)
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
