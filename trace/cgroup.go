package trace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
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
	// Source, in a replay's prediction (Meta.Predicted), is where the
	// replay took the settings from (replay.GroupInfo.Source: "recorded",
	// "stated", "what-if", "default"); empty in a recording. At most
	// MaxSettingsSource bytes of printable text (Check). NotModelledSource
	// in a prediction of a policy that schedules every task as a peer.
	Source string `json:"source,omitempty"`
	// WeightSource, in a prediction, is where the weight came from when
	// it differs from Source (a what-if on the quota only); the same
	// bounds as Source.
	WeightSource string `json:"weight_source,omitempty"`
}

// RootCgroupID is the cgroup v2 id (Event.Cgroup, the kernfs node id that
// bpf_get_current_cgroup_id and perf --all-cgroups record) of the root
// cgroup, "/": the root kernfs node is 1 (kernfs_create_root, fs/kernfs/dir.c),
// so a trace that lost its id-to-path table still names it.
const RootCgroupID = 1

// V1CgroupIDBit marks the cgroup ids (Event.Cgroup) that traceview record
// gives cgroup v1 cpu-controller groups: a kernfs node id never has bit 63
// set (it is an inode number, allocated upwards from 1).
const V1CgroupIDBit = uint64(1) << 63

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
	ag := IsAutogroupPath(s.Path)
	if s.Weight > 0 {
		fmt.Fprintf(&b, " weight %d", s.Weight)
		switch {
		case ag && s.Weight == AutogroupWeight(s.Nice):
			fmt.Fprintf(&b, " (nice %d)", s.Nice)
		case ag:
		case s.Shares > 0:
			fmt.Fprintf(&b, " (shares %d)", s.Shares)
		}
	}
	switch {
	case s.QuotaNS < 0 && ag:
		// (An autogroup has no quota to set: no word for it.)
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

// CgroupStat is one reading of a task group's CFS bandwidth counters, its
// cpu.stat file (kernel/sched/core.c cpu_cfs_stat_show, v1, and
// cpu_extra_stat_show, v2). The counters count from the group's creation,
// so what happened in a window is the difference of two readings of the
// same Path (see CgroupStatDelta).
type CgroupStat struct {
	// Path names the group as CgroupSettings.Path does.
	Path string `json:"path"`
	// Time is when the file was read, ns on the trace clock (0 unknown).
	Time int64 `json:"time_ns,omitempty"`
	// NrPeriods counts the bandwidth periods in which the group had
	// runnable tasks (nr_periods).
	NrPeriods uint64 `json:"nr_periods"`
	// NrThrottled counts the periods at whose end part of the group was
	// throttled (nr_throttled): periods, not throttle events.
	NrThrottled uint64 `json:"nr_throttled"`
	// ThrottledNS is the time the group's per-CPU queues spent throttled,
	// summed over CPUs, so it can exceed wall time: v1 throttled_time (ns),
	// v2 throttled_usec × 1000.
	ThrottledNS int64 `json:"throttled_ns"`
	// NrBursts and BurstNS count the periods that used burst runtime and
	// the runtime used beyond the quota (v1 burst_time ns, v2 burst_usec
	// × 1000; Linux 5.14+, 0 before).
	NrBursts uint64 `json:"nr_bursts,omitempty"`
	BurstNS  int64  `json:"burst_ns,omitempty"`
}

// CgroupStatDelta returns what the counters of b add to those of a (a
// reading of the same group taken before b): the periods, throttled
// periods and throttled time of the window between them. ok is false when
// the paths differ or a counter went backwards (the group was removed and
// made again).
func CgroupStatDelta(a, b CgroupStat) (d CgroupStat, ok bool) {
	if a.Path != b.Path || b.NrPeriods < a.NrPeriods || b.NrThrottled < a.NrThrottled ||
		b.ThrottledNS < a.ThrottledNS || b.NrBursts < a.NrBursts || b.BurstNS < a.BurstNS {
		return CgroupStat{}, false
	}
	return CgroupStat{
		Path: b.Path, Time: b.Time,
		NrPeriods: b.NrPeriods - a.NrPeriods, NrThrottled: b.NrThrottled - a.NrThrottled,
		ThrottledNS: b.ThrottledNS - a.ThrottledNS,
		NrBursts:    b.NrBursts - a.NrBursts, BurstNS: b.BurstNS - a.BurstNS,
	}, true
}

// Check says what makes s contradict itself or the kernel's limits (nil
// when nothing does), for readers to turn into a warning: a path that is
// not absolute, cpu.weight outside 1..10000 (0 is unknown), cpu.shares
// outside 2..262144, a quota below -1 or positive without a period, a
// period outside MinCfsPeriod..MaxCfsPeriod, a negative burst, or a nice
// outside -20..19.
func (s CgroupSettings) Check() error {
	switch {
	case !strings.HasPrefix(s.Path, "/"):
		return fmt.Errorf("cgroup settings: path %q is not absolute", s.Path)
	case s.Weight < 0 || s.Weight > 10000:
		return fmt.Errorf("cgroup settings %s: cpu.weight %d outside 1..10000", s.Path, s.Weight)
	case s.Shares != 0 && (s.Shares < 2 || s.Shares > 262144):
		return fmt.Errorf("cgroup settings %s: cpu.shares %d outside 2..262144", s.Path, s.Shares)
	case s.Shares != 0 && s.Weight != 0 && s.Weight != WeightFromShares(s.Shares):
		return fmt.Errorf("cgroup settings %s: cpu.weight %d is not that of cpu.shares %d (%d)", s.Path, s.Weight, s.Shares, WeightFromShares(s.Shares))
	case s.QuotaNS < -1:
		return fmt.Errorf("cgroup settings %s: quota %d ns (want -1 for no limit, or > 0)", s.Path, s.QuotaNS)
	case s.QuotaNS > 0 && s.PeriodNS <= 0:
		return fmt.Errorf("cgroup settings %s: quota %d ns without a period", s.Path, s.QuotaNS)
	case s.PeriodNS < 0 || (s.PeriodNS > 0 && (s.PeriodNS < MinCfsPeriod || s.PeriodNS > MaxCfsPeriod)):
		return fmt.Errorf("cgroup settings %s: period %d ns outside %d..%d", s.Path, s.PeriodNS, MinCfsPeriod, MaxCfsPeriod)
	case s.BurstNS < 0:
		return fmt.Errorf("cgroup settings %s: burst %d ns is negative", s.Path, s.BurstNS)
	case s.Nice < -20 || s.Nice > 19:
		return fmt.Errorf("cgroup settings %s: nice %d outside -20..19", s.Path, s.Nice)
	case s.Time < 0:
		return fmt.Errorf("cgroup settings %s: time %d ns is negative", s.Path, s.Time)
	case !sourceText(s.Source) || !sourceText(s.WeightSource):
		return fmt.Errorf("cgroup settings %s: source %.40q or %.40q is not a short printable text", s.Path, s.Source, s.WeightSource)
	}
	return nil
}

// sourceText reports whether s is a CgroupSettings source: at most
// MaxSettingsSource bytes of printable text.
func sourceText(s string) bool {
	return len(s) <= MaxSettingsSource && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

// MaxSettingsSource bounds CgroupSettings.Source: the replay writes its
// sources up to their first ";", at most 60 bytes ("the traced command's
// session, inferred from delays").
const MaxSettingsSource = 200

// Check says what makes st contradict itself (nil when nothing does): a
// path that is not absolute, more throttled periods than periods, or a
// negative time.
func (st CgroupStat) Check() error {
	switch {
	case !strings.HasPrefix(st.Path, "/"):
		return fmt.Errorf("cgroup cpu.stat: path %q is not absolute", st.Path)
	case st.NrThrottled > st.NrPeriods:
		return fmt.Errorf("cgroup cpu.stat %s: %d throttled periods of %d", st.Path, st.NrThrottled, st.NrPeriods)
	case st.ThrottledNS < 0 || st.BurstNS < 0 || st.Time < 0:
		return fmt.Errorf("cgroup cpu.stat %s: negative time", st.Path)
	case st.NrThrottled == 0 && st.ThrottledNS > 0:
		return fmt.Errorf("cgroup cpu.stat %s: throttled %d ns in no throttled period", st.Path, st.ThrottledNS)
	}
	return nil
}

// String renders the reading: "/tv-a periods 10 throttled 7 (312.5ms)".
func (st CgroupStat) String() string {
	s := fmt.Sprintf("%s periods %d throttled %d (%s)", st.Path, st.NrPeriods, st.NrThrottled, fmtMS(st.ThrottledNS))
	if st.NrBursts > 0 || st.BurstNS > 0 {
		s += fmt.Sprintf(" bursts %d (%s)", st.NrBursts, fmtMS(st.BurstNS))
	}
	return s
}

// AutogroupWeight is the cpu.weight equivalent of an autogroup of nice n:
// writing /proc/PID/autogroup sets the group's shares to
// sched_prio_to_weight[n+20] (kernel/sched/autogroup.c
// proc_sched_autogroup_set_nice), reported as WeightFromShares of that
// load: nice 0 -> 100, -20 -> 8668, 19 -> 1. n is clamped to -20..19.
func AutogroupWeight(n int) int { return WeightFromShares(int(NiceWeight(n))) }

// NiceWeight returns the load weight of nice level n (clamped to -20..19)
// from sched_prio_to_weight, kernel/sched/core.c (Linux 2.6.32 through
// 6.18, unchanged): nice 0 is 1024 (NICE_0_LOAD after scale_load_down)
// and each level is about 1.25 times the next ("10% effect").
func NiceWeight(n int) int64 { return prioToWeight[min(max(n, -20), 19)+20] }

var prioToWeight = [40]int64{
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
}

// UnattributedV1Groups returns the cgroup v1 groups (settings with
// Shares) of m.CgroupSettings that no cgroup of the events names, nor any
// group below them: the file describes the groups, but it does not say
// which tasks ran in them (a traceview record file written before tasks
// were attributed to their v1 cpu groups, or a perf.data whose cgroup ids
// are cgroup v2 ones). Sorted, without duplicates.
func UnattributedV1Groups(m *Meta) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, s := range m.CgroupSettings {
		if s.Shares == 0 || s.Path == "" || s.Path == "/" || slices.Contains(out, s.Path) {
			continue
		}
		named := false
		for _, p := range m.Cgroups {
			if p == s.Path || strings.HasPrefix(p, strings.TrimSuffix(s.Path, "/")+"/") {
				named = true
				break
			}
		}
		if !named {
			out = append(out, s.Path)
		}
	}
	slices.Sort(out)
	return out
}

// UnattributedV1Warning is the warning of a file whose v1 groups
// (UnattributedV1Groups) have no task: ok false when there are none.
func UnattributedV1Warning(m *Meta) (Warning, bool) {
	g := UnattributedV1Groups(m)
	if len(g) == 0 {
		return Warning{}, false
	}
	return Warning{Key: "cgroup-v1-unattributed", Count: len(g), CountInMessage: true,
		Message: fmt.Sprintf("cgroup v1 groups were recorded but tasks could not be attributed to them: %s; the file's cgroup ids name cgroup v2 groups, so their tasks count in those (record again with this traceview, which attributes each task to its v1 cpu group)", strings.Join(g, ", "))}, true
}

// AutogroupIDBit marks the cgroup ids (Event.Cgroup) that a reader gives
// the autogroups of a recording that read them (Meta.TaskAutogroups): an
// autogroup is a task group but no cgroup, so it has no kernfs node id; the
// id is this bit with the autogroup's number, bit 63 being
// V1CgroupIDBit's, and a kernfs node id never reaching bit 62 either.
const AutogroupIDBit = uint64(1) << 62

// AutogroupCgroupID returns the cgroup id (AutogroupIDBit with the number)
// that stands for the autogroup path names ("/autogroup-24"); false when
// path is no autogroup path or its number does not fit below bit 62.
func AutogroupCgroupID(path string) (uint64, bool) {
	if !IsAutogroupPath(path) {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(path, "/autogroup-"), 10, 64)
	if err != nil || n >= AutogroupIDBit {
		return 0, false
	}
	return AutogroupIDBit | n, true
}

// IsAutogroupPath reports whether path names an autogroup as
// /proc/PID/autogroup does: "/autogroup-" and a decimal id
// (kernel/sched/autogroup.c autogroup_path, v6.18).
func IsAutogroupPath(path string) bool {
	id, ok := strings.CutPrefix(path, "/autogroup-")
	if !ok || id == "" || len(id) > 20 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// NotModelledSource is the CgroupSettings.Source of every task group of a
// replay's prediction made by a policy that does not model task groups
// (bfs, sd, o1, ...: every task a peer in one runqueue, no cgroup weight
// and no CFS bandwidth): no quota or weight was in force in it, whatever
// the recording's (new-user pass 53 F1: a bfs prediction's group table
// showed the recorded 30ms/100ms quota as the replay's, 0.6 CPUs used
// under it and throttles inferred).
const NotModelledSource = "not modelled"
