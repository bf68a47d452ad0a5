package policies

import "slices"

// Task groups (cgroups with the cpu controller, autogroups) as the fair
// class schedules them: a tree of groups, each with a weight (tg->shares)
// and optionally a CFS bandwidth limit (quota per period, burst). The
// simulator builds the tree from the model and hands it to a policy that
// implements GroupScheduler before Init; Task.Group indexes it.

// Group is one task group. Groups[0] is the root group, which has no
// weight and no limit of its own.
type Group struct {
	Path   string // "/" for the root, "/tv-a", "/kubepods/pod-x/ctr"
	Parent int    // index of the parent group, -1 for the root
	// Shares is the group's weight as a load weight, NICE_0_LOAD = 1024
	// (tg->shares scaled down: cpu.weight 100 = 1024, v1 cpu.shares S = S;
	// trace.LoadFromWeight).
	Shares int64
	// Quota and Period are the CFS bandwidth limit in ns (cpu.max); Quota
	// <= 0 means no limit. Burst is cpu.max.burst in ns.
	Quota, Period, Burst int64
}

// GroupScheduler is implemented by policies that schedule task groups
// hierarchically. SetGroups is called once, before Init, with the group
// tree (parents before children); tasks then name their group in
// Task.Group. SetGroups returns false when the policy will schedule every
// task as a peer anyway (a Stack whose fair class has no groups); the
// simulator says so on the model line.
type GroupScheduler interface {
	SetGroups(groups []Group) bool
}

// Timers is implemented by simulators that run a policy's timers (the
// kernel's hrtimers, such as CFS bandwidth's period and slack timers).
// AddTimer calls fn at simulated time at (not before the current time);
// Sync charges cpu's running task the time it ran up to now (update_curr),
// so that fn sees current vruntimes.
type Timers interface {
	AddTimer(at int64, fn func())
	Sync(cpu int)
}

// GroupStats is what a policy's bandwidth control did to one group, in the
// terms of the group's cpu.stat (kernel/sched/core.c cpu_cfs_stat_show,
// v6.18): NrPeriods periods elapsed with the period timer running,
// NrThrottled of them with some runqueue of the group throttled,
// ThrottledNS the time the group's per-CPU runqueues spent throttled,
// summed over CPUs (so it can exceed wall time).
type GroupStats struct {
	Path        string `json:"path"`
	NrPeriods   int64  `json:"nr_periods"`
	NrThrottled int64  `json:"nr_throttled"`
	ThrottledNS int64  `json:"throttled_ns"`
}

// GroupReporter is implemented by policies with bandwidth control: the
// per-group throttling statistics of the run, for groups with a quota.
type GroupReporter interface {
	GroupStats() []GroupStats
}

// GroupUpdater is implemented by group schedulers whose groups' settings
// can change while the simulation runs (a cgroup's cpu.weight or cpu.max
// written during the recording, an autogroup's nice): UpdateGroup gives
// group g (an index of the SetGroups tree, >= 1) gr's Shares, Quota,
// Period and Burst at the current simulated time, as the kernel applies a
// write (sched_group_set_shares and tg_set_cfs_bandwidth,
// kernel/sched/core.c v6.18). The simulator calls it from a timer.
type GroupUpdater interface {
	UpdateGroup(g int, gr Group)
}

// UpdateGroup implements GroupUpdater through the fair class.
func (s *Stack) UpdateGroup(g int, gr Group) {
	if u, ok := s.Fair.(GroupUpdater); ok {
		u.UpdateGroup(g, gr)
	}
}

// updateGroup is UpdateGroup for a policy with per-CPU group runqueues:
// each CPU's running task is charged to now (update_curr), the group's
// shares set and its entity on each CPU reweighted (update_cfs_group, by
// reweight(cpu)), then its bandwidth settings applied (setLimit) to its
// runqueues keys(cpu).
func updateGroup(groups []Group, bwc *bandwidthCtl, ncpu, g int, gr Group, reweight func(cpu int), key func(cpu int) int) {
	if g <= 0 || g >= len(groups) {
		return
	}
	groups[g].Shares, groups[g].Quota, groups[g].Period, groups[g].Burst = gr.Shares, gr.Quota, gr.Period, gr.Burst
	keys := make([]int, ncpu)
	for cpu := range ncpu {
		if bwc.timers != nil {
			bwc.timers.Sync(cpu)
		}
		reweight(cpu)
		keys[cpu] = key(cpu)
	}
	bwc.setLimit(g, groups[g], keys)
}

// SetGroups implements GroupScheduler through the fair class.
func (s *Stack) SetGroups(groups []Group) bool {
	if g, ok := s.Fair.(GroupScheduler); ok {
		return g.SetGroups(groups)
	}
	return false
}

// GroupStats implements GroupReporter through the fair class.
func (s *Stack) GroupStats() []GroupStats {
	if g, ok := s.Fair.(GroupReporter); ok {
		return g.GroupStats()
	}
	return nil
}

// calcGroupShares is calc_group_shares (kernel/sched/fair.c, the same
// formula in v6.5 and v6.18) for the entity on cpu of a group of shares
// tg whose runqueue on CPU c holds load(c), of ncpu CPUs: tg·load(cpu) /
// Σ load, clamped to [1, tg]; all of the group's load on cpu gives it tg.
// The kernel takes each load as max(the queued weight, the PELT load
// average); the policies pass the queued weights, so a group whose tasks
// sleep briefly gives up its share on that CPU at once rather than over
// PELT's 32 ms half-life.
func calcGroupShares(tg int64, cpu, ncpu int, load func(c int) int64) int64 {
	var total int64
	for c := 0; c < ncpu; c++ {
		total += load(c)
	}
	l := load(cpu)
	if total <= 0 || l >= total {
		return tg
	}
	return min(max(tg*l/total, 1), tg)
}

// groupDepth is the number of groups between g and the root.
func groupDepth(groups []Group, g int) int {
	d := 0
	for ; g > 0; g = groups[g].Parent {
		d++
	}
	return d
}

// meetGroups is find_matching_se on the group tree (kernel/sched/fair.c,
// the same in v6.5 and v6.18): the group m whose runqueue holds both the
// entity of a task of group a and that of a task of group b, and the
// groups whose entities represent them there, ca and cb, 0 where that
// entity is the task itself (a or b is m).
func meetGroups(groups []Group, a, b int) (m, ca, cb int) {
	da, db := groupDepth(groups, a), groupDepth(groups, b)
	for ; da > db; da-- {
		ca, a = a, groups[a].Parent
	}
	for ; db > da; db-- {
		cb, b = b, groups[b].Parent
	}
	for a != b {
		ca, a = a, groups[a].Parent
		cb, b = b, groups[b].Parent
	}
	return a, ca, cb
}

// pickedRq is a runqueue whose curr a hierarchical pick sets (erq, crq).
type pickedRq interface {
	comparable
	clearCurr()
}

// replacePath is put_prev_entity on the levels a pick left: curr is
// cleared on each runqueue of old, the path of the previous pick, that
// path does not hold; path is returned, copied into old's storage.
func replacePath[R pickedRq](old, path []R) []R {
	for _, o := range old {
		if !slices.Contains(path, o) {
			o.clearCurr()
		}
	}
	return append(old[:0], path...)
}

// groupSlots builds a policy's group runqueues and entities: for each
// group g >= 1 and CPU c, at (g−1)·ncpu + c, the pair mk(g, c) returns.
func groupSlots[R, E any](groups []Group, ncpu int, mk func(g, c int) (R, E)) ([]R, []E) {
	n := (len(groups) - 1) * ncpu
	rqs, ents := make([]R, n), make([]E, n)
	for g := 1; g < len(groups); g++ {
		for c := 0; c < ncpu; c++ {
			rqs[(g-1)*ncpu+c], ents[(g-1)*ncpu+c] = mk(g, c)
		}
	}
	return rqs, ents
}
