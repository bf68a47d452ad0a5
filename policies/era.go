package policies

import (
	"fmt"
	"sort"
	"strings"
)

// Era is a named preset of one policy's parameters: the defaults of a
// kernel release, selected with --policy NAME:era=RELEASE. A preset only
// sets parameter values (parameters the user gives explicitly win, in any
// order), so the policy's own defaults, and every replay without era=, are
// unchanged. HZ is the tick rate the era's configurations used; replay's
// --hz is separate, and the experiments set it from here.
type Era struct {
	Policy  string // registered policy name ("cfs")
	Name    string // release ("2.6.31")
	Summary string // one line: what the preset changes
	Values  Values // parameter values, by Param.Name; features "on"/"off"
	HZ      int    // CONFIG_HZ of the era's usual configs (0: say nothing)
	Source  string // kernel files and versions of the values
}

// eras are the presets, by policy, with the source of every value in
// Source. A preset names only values that differ from the policy's
// defaults. Sysctls the kernel scales by 1 + ilog2(ncpus) are given
// unscaled (unscaled_latency, unscaled_base_slice, ...): the policy scales
// them from the simulated CPU count, as sched_init_granularity did.
var eras = []Era{
	{
		Policy: "cfs", Name: "2.6.31",
		Summary: "CFS of Linux 2.6.31 on a multi-core machine: sched_latency 20 ms, min_granularity 4 ms, " +
			"wakeup_granularity 5 ms, nr_latency 5 (each × 1+ilog2(ncpus)); a full sched_latency of sleeper credit (no " +
			"GENTLE_FAIR_SLEEPERS); the tick preempts only after sched_slice (no TICK_LEFTMOST); NEXT_BUDDY and LB_BIAS on; balancing " +
			"on the cpu_load[] history (busy_idx 2; idle_idx 1 across the package, 0 within a shared cache) every 1 to 4 ms (× 64 " +
			"when busy); no newly idle " +
			"balancing; wake_affine without an idle-sibling search; wakeups and balancing on the queued weights and that history, " +
			"not PELT (NO_WA_PELT: per-entity load tracking came with 3.8); tickless idle (NOHZ_LOAD: an idle CPU's cpu_load[] " +
			"keeps its last busy tick, the idle load balancer balances for it); HZ 1000",
		Values: Values{"unscaled_latency": "20ms", "unscaled_min_granularity": "4ms", "unscaled_wakeup_granularity": "5ms", "nr_latency": "5",
			"GENTLE_FAIR_SLEEPERS": "off", "TICK_LEFTMOST": "off", "NEXT_BUDDY": "on", "LB_BIAS": "on", "CACHE_HOT_BUDDY": "on", "busy_idx": "2", "newidle_idx": "2", "idle_idx": "1", "llc_idle_idx": "0",
			"SD_BALANCE_NEWIDLE": "off", "SD_WAKE_IDLE": "off", "WA_PELT": "off", "NOHZ_LOAD": "on"},
		HZ: 1000,
		Source: "kernel/sched_fair.c v2.6.31(.14) (sysctl_sched_latency 20 ms, sysctl_sched_min_granularity 4 ms, " +
			"sysctl_sched_wakeup_granularity 5 ms, sched_nr_latency 5; place_entity subtracts the whole sysctl_sched_latency " +
			"with NEW_FAIR_SLEEPERS; check_preempt_tick compares the time run with sched_slice only; sched_init_granularity in kernel/sched.c scales them by " +
			"1 + ilog2(num_online_cpus())); kernel/sched_features.h v2.6.32-tip of the x264 postings (NEXT_BUDDY, LB_BIAS, CACHE_HOT_BUDDY on; task_hot and " +
			"can_migrate_task in kernel/sched.c v2.6.31); " +
			"include/linux/topology.h v2.6.31 SD_CPU_INIT (busy_idx 2, idle_idx 1, newidle_idx 2) and SD_MC_INIT (busy_idx 2, no idle_idx), " +
			"neither with SD_BALANCE_NEWIDLE nor SD_WAKE_IDLE (2.6.32's topology.h has SD_BALANCE_NEWIDLE and newidle_idx 0, " +
			"and select_idle_sibling, commit a1f84a3ab8e0), min_interval 1, max_interval 4, busy_factor 64; CONFIG_HZ_1000 and CONFIG_NO_HZ " +
			"in the era's configs (arch/x86/configs/x86_64_defconfig, \"Linux kernel version: 2.6.30-rc2\")",
	},
	{
		Policy: "cfs", Name: "2.6.23",
		Summary: "CFS as first merged (Linux 2.6.23), in the vruntime model: sched_latency 20 ms, min_granularity 2 ms, " +
			"wakeup_granularity 1 ms (each × 1+ilog2(ncpus)), a slice of max(sched_latency/nr, min_granularity) " +
			"(nr_latency 10), a full sched_latency of sleeper credit (2.6.23 credited sleep as wait_runtime, bounded, " +
			"which this approximates); wakeups and balancing on the queued weights, not PELT (NO_WA_PELT: per-entity load " +
			"tracking came with 3.8); HZ 250",
		Values: Values{"unscaled_latency": "20ms", "unscaled_min_granularity": "2ms", "unscaled_wakeup_granularity": "1ms", "nr_latency": "10",
			"GENTLE_FAIR_SLEEPERS": "off", "WA_PELT": "off"},
		HZ: 250,
		Source: "kernel/sched_fair.c v2.6.23(.17) (sysctl_sched_latency 20 ms, sysctl_sched_min_granularity 2 ms, " +
			"sysctl_sched_wakeup_granularity 1 ms; __check_preempt_curr_fair: ideal_runtime = max(latency/nr_running, " +
			"min_granularity); sleepers credited through wait_runtime and sleeper_bonus, not vruntime); kernel/sched.c v2.6.23 " +
			"sched_init_granularity (factor 1 + ilog2(num_online_cpus())); CONFIG_HZ_250 the Kconfig default (kernel/Kconfig.hz)",
	},
	{
		Policy: "cfs", Name: "6.2",
		Summary: "CFS of Linux 6.2, the last release before the EEVDF series: the cfs defaults (v5.10 semantics: " +
			"6 ms, 0.75 ms, 1 ms × 1+ilog2(min(ncpus,8))), wakeups and balancing on PELT loads (WA_PELT, the default), HZ 1000",
		Values: Values{},
		HZ:     1000,
		Source: "kernel/sched/fair.c and features.h v6.2 (same defaults as v5.10; wake_affine_weight on cpu_load and task_h_load " +
			"with WA_BIAS, wake_wide, the load balance of commit 0b0695f2b34a, v5.5); CONFIG_HZ_1000 of the distribution configs of the EEVDF postings' era (Fedora, openSUSE Tumbleweed)",
	},
	{
		Policy: "eevdf", Name: "6.3",
		Summary: "the EEVDF series as posted against 6.3-rc (March 2023): base_slice 0.75 ms × 1+ilog2(min(ncpus,8)), " +
			"the tick preempting whenever pick_eevdf prefers another task (TICK_PICK), " +
			"no RUN_TO_PARITY, PREEMPT_SHORT, DELAY_DEQUEUE, DELAY_ZERO or PLACE_REL_DEADLINE (all later), HZ 1000",
		Values: Values{"unscaled_base_slice": "750us", "RUN_TO_PARITY": "off", "PREEMPT_SHORT": "off", "DELAY_DEQUEUE": "off",
			"DELAY_ZERO": "off", "PLACE_REL_DEADLINE": "off", "TICK_PICK": "on", "PROTECT_RESCHED": "off"},
		HZ: 1000,
		Source: "the EEVDF patch series (Peter Zijlstra, LKML, 2023-03-06, \"sched: EEVDF using latency-nice\"): " +
			"sysctl_sched_base_slice 0.75 ms scaled by update_sysctl; RUN_TO_PARITY came with commit 63304558ba5d (v6.6), " +
			"PLACE_REL_DEADLINE, PREEMPT_SHORT, DELAY_DEQUEUE and DELAY_ZERO with v6.12 (kernel/sched/features.h v6.12); " +
			"check_preempt_tick of the series (resched when pick_eevdf(cfs_rq) != curr) as removed by the fix in " +
			"<20230420150537.GC4253@hirez.programming.kicks-ass.net> (LKML, 2023-04-20), merged with the 2023-05-31 posting",
	},
	{
		Policy: "bfs", Name: "2.6.31",
		Summary: "BFS as posted for Linux 2.6.31 (2009): deadlines in jiffies, expired deadlines taken first in queue order, " +
			"sync wakeups preempting nothing while no CPU is idle, rr_interval 6 ms × (1 + ilog2(ncpus)), HZ 1000",
		Values: Values{"JIFFY_DEADLINE": "on", "EXPIRED_FIFO": "on", "SYNC_NO_PREEMPT": "on", "RR_SCALE": "on"},
		HZ:     1000,
		Source: "kernel/sched_bfs.c of the jiffies-deadline BFS of 2009 (prio_deadline_diff, earliest_deadline_task, " +
			"try_to_wake_up, sched_init_smp, sched_fork; as carried by erasmux/hero-2.6.29-flykernel commit 146e67f6, a " +
			"backport of the 2.6.31 patch); HZ 1000 as the CFS 2.6.31 preset it is compared with",
	},
	{
		Policy: "goodness24", Name: "2.4",
		Summary: "the 2.4 SMP scheduler as the 2001 multi-queue postings measured it: schedule() and the epoch " +
			"recalculation run under the global runqueue_lock (another CPU's decision waits for it), HZ 100",
		Values: Values{"RUNQUEUE_LOCK": "on"},
		HZ:     100,
		Source: "kernel/sched.c v2.4.x: schedule() takes spin_lock_irq(&runqueue_lock) around the goodness() scan and " +
			"drops it only around the recalculation, which holds read_lock(&tasklist_lock) over every task and then " +
			"retakes runqueue_lock; include/asm-i386/param.h v2.4: HZ 100",
	},
}

// Eras returns the presets of policy, sorted by name.
func Eras(policy string) []Era {
	var out []Era
	for _, e := range eras {
		if e.Policy == policy {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupEra returns the preset name of policy.
func LookupEra(policy, name string) (Era, bool) {
	for _, e := range eras {
		if e.Policy == policy && e.Name == name {
			return e, true
		}
	}
	return Era{}, false
}

// EraOf returns the preset a spec selects (era=NAME), if any.
func (s Spec) EraOf() (Era, bool) {
	name, ok := s.Values["era"]
	if !ok {
		return Era{}, false
	}
	return LookupEra(s.Info.Name, name)
}

// eraParam is the era parameter of a policy that has presets.
func eraParam(policy string) (Param, bool) {
	es := Eras(policy)
	if len(es) == 0 {
		return Param{}, false
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return Param{Name: "era", Kind: ParamEra, Default: "",
		Doc:    "a kernel release's defaults (" + strings.Join(names, ", ") + "; see the presets below); explicit parameters win",
		Source: "each preset's sources ('traceview policies')"}, true
}

// withEra adds the era parameter to in when its policy has presets.
func withEra(in Info) Info {
	if p, ok := eraParam(in.Name); ok {
		in.Params = append(append([]Param(nil), in.Params...), p)
	}
	return in
}

// expand returns v with the values of its era preset under those set
// explicitly; v itself when it names no era.
func (v Values) expand(policy string) (Values, error) {
	name, ok := v["era"]
	if !ok {
		return v, nil
	}
	e, ok := LookupEra(policy, name)
	if !ok {
		return nil, fmt.Errorf("policy %s: unknown era %q", policy, name)
	}
	out := Values{}
	for k, x := range e.Values {
		out[k] = x
	}
	for k, x := range v {
		if k != "era" {
			out[k] = x
		}
	}
	return out, nil
}
