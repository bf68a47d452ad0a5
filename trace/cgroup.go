package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// CgroupSettings is a snapshot of one task group's CPU-controller settings,
// as read from its cgroup directory (cgroup v2 cpu.weight, cpu.max,
// cpu.max.burst; v1 cpu.shares, cpu.cfs_quota_us, cpu.cfs_period_us,
// cpu.cfs_burst_us) or stated by the user (--recorded-cgroup). Units are the
// kernel's: Weight is cpu.weight (1..10000, 100 = nice 0), times are ns.
type CgroupSettings struct {
	// Path is the group's path relative to the cgroup mount, as
	// Meta.Cgroups names it ("/tv-a", "/kubepods/burstable/pod-x/ctr");
	// an autogroup is "/autogroup-N".
	Path string `json:"path"`
	// Time is when the settings were read, ns on the trace clock; 0 for
	// settings read before the first event or stated by the user.
	Time int64 `json:"time_ns,omitempty"`
	// Weight is the cpu.weight of the group, 1..10000; 0 unknown. A v1
	// cpu.shares value S is stored as WeightFromShares(S).
	Weight int `json:"weight,omitempty"`
	// Shares is the v1 cpu.shares as read (2..262144), 0 when the group is
	// v2 or the value unknown; kept so a report can show what was set.
	Shares int `json:"shares,omitempty"`
	// QuotaNS is the CFS bandwidth quota per period in ns; -1 no limit
	// ("max", v1 -1), 0 unknown.
	QuotaNS int64 `json:"quota_ns,omitempty"`
	// PeriodNS is the CFS bandwidth period in ns (default 100 ms); 0 unknown.
	PeriodNS int64 `json:"period_ns,omitempty"`
	// BurstNS is cpu.max.burst (v1 cpu.cfs_burst_us) in ns; 0 none.
	BurstNS int64 `json:"burst_ns,omitempty"`
	// Nice is an autogroup's nice (/proc/PID/autogroup "nice N"); only for
	// autogroups, whose Weight is then the nice's load weight / 1024 × 100.
	Nice int `json:"nice,omitempty"`
}

// Limits CFS bandwidth control puts on cpu.max (kernel/sched/core.c v6.18,
// tg_set_cfs_bandwidth: max_cfs_quota_period 1 s, min_cfs_quota_period
// 1 ms; the quota at least min_cfs_quota_period).
const (
	MinCfsPeriod = 1_000_000     // ns
	MaxCfsPeriod = 1_000_000_000 // ns
	MinCfsQuota  = 1_000_000     // ns
	// DefaultCfsPeriod is the default cpu.max period, 100 ms
	// (default_cfs_period(), kernel/sched/fair.c).
	DefaultCfsPeriod = 100_000_000
)

// WeightFromShares maps a cgroup v1 cpu.shares value to the cgroup v2
// cpu.weight of the same kernel load weight: the kernel stores shares S as
// load S (scale_load) and reports a load L as weight
// DIV_ROUND_CLOSEST(L·100, 1024) clamped to 1..10000
// (sched_weight_to_cgroup, kernel/sched/sched.h v6.12+), so 1024 -> 100,
// 2048 -> 200, 128 -> 13.
func WeightFromShares(shares int) int {
	w := (shares*100 + 512) / 1024
	return min(max(w, 1), 10000)
}

// LoadFromWeight is the load weight (NICE_0_LOAD = 1024 scale) of a
// cpu.weight W: DIV_ROUND_CLOSEST(W·1024, 100) (sched_weight_from_cgroup,
// kernel/sched/sched.h v6.12+): 100 -> 1024, 1 -> 10, 10000 -> 102400.
func LoadFromWeight(w int) int64 { return (int64(w)*1024 + 50) / 100 }

// String renders the settings as the model line shows them:
// "/tv-a weight 100 max 25ms/100ms".
func (s CgroupSettings) String() string {
	var b strings.Builder
	b.WriteString(s.Path)
	if s.Weight > 0 {
		fmt.Fprintf(&b, " weight %d", s.Weight)
		if s.Shares > 0 {
			fmt.Fprintf(&b, " (shares %d)", s.Shares)
		}
	}
	switch {
	case s.QuotaNS < 0:
		b.WriteString(" max unlimited")
	case s.QuotaNS > 0:
		fmt.Fprintf(&b, " max %s/%s", fmtMS(s.QuotaNS), fmtMS(s.PeriodNS))
	}
	if s.BurstNS > 0 {
		fmt.Fprintf(&b, " burst %s", fmtMS(s.BurstNS))
	}
	return b.String()
}

func fmtMS(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e6, 'f', -1, 64) + "ms"
}
