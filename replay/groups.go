// Task groups in a replay: which cgroup (or autogroup) each task runs in,
// the groups' weights and CPU quotas as recorded or stated, and the
// what-ifs that change them (--cpu-weight, --cpu-max, --cpu-burst,
// --cgroup). The simulator builds a policies.Group tree from them for a
// policy that schedules groups (policies.GroupScheduler).

package replay

import (
	"cmp"
	"fmt"
	"github.com/traceview/traceview/internal/termsafe"
	"sort"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// CgroupChange is a what-if on one task group; zero fields keep the
// recorded value. Weight is cpu.weight (1..10000); Quota and Period are
// cpu.max in ns, Quota -1 for "max" (no limit); Burst is cpu.max.burst in
// ns (-1: set it to 0).
type CgroupChange struct {
	Path          string
	Weight        int
	Quota, Period int64
	Burst         int64
}

// GroupInfo is one task group of a replay as the simulator sets it up.
type GroupInfo struct {
	trace.CgroupSettings
	// Source says where the settings come from: "recorded" (the trace),
	// "stated" (--recorded-cgroup), "what-if" (a change), "default"
	// (weight 100, no quota: nothing said).
	Source string `json:"source"`
	// WeightSource and QuotaSource, once a what-if changed the group, are
	// where its weight and its bandwidth settings (quota, period, burst)
	// came from: "what-if" for the one changed, the earlier Source for
	// the other (new-user pass 29 F6: both read "what-if"); "" before.
	WeightSource string `json:"weight_source,omitempty"`
	QuotaSource  string `json:"quota_source,omitempty"`
	Tasks        int    `json:"tasks"` // model tasks in the group itself
	// Changed, for a group whose recorded settings changed during the
	// trace, says how, and what the replay does (heldReading): with the
	// changes dated (Changes), it applies each from when it was read;
	// else it holds one setting for the whole trace.
	Changed string `json:"changed,omitempty"`
	// Changes are the group's recorded settings after its first, each to
	// apply at its Time (ns, trace clock; the reading that saw it, within
	// 100 ms of the write), in time order: a policy that schedules groups
	// (policies.GroupUpdater) gets them as the simulated clock reaches
	// each. A what-if on the weight or the quota replaces that setting in
	// each; stated settings (--recorded-cgroup) drop them.
	Changes []trace.CgroupSettings `json:"changes,omitempty"`
}

// normPath cleans a cgroup path: a leading "/", no trailing one; "" and
// "/" are the root.
func normPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || p == "/" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return strings.TrimRight(p, "/")
}

// taskCgroup is the cgroup path model task tk runs in under cfg: the last
// override with a Cgroup that selects it, else the recorded one.
func taskCgroup(tk *Task, cfg *Config) string {
	path := tk.Cgroup
	switch {
	case tk.Autogroup != "" && normPath(path) == "/":
		path = tk.Autogroup // recorded
	case tk.Session != 0 && normPath(path) == "/":
		path = sessionPath(tk.Session) // autogroup only outside cpu cgroups
	}
	for _, o := range cfg.Overrides {
		if o.Cgroup != nil && o.Sel.Match(tk) {
			path = *o.Cgroup
		}
	}
	path = normPath(path)
	if cfg.NoAutogroup && strings.HasPrefix(path, "/autogroup-") {
		return "/"
	}
	return path
}

// Groups returns the task groups a replay of m under cfg schedules, the
// root first and parents before children, with their settings: the
// recorded ones (the first snapshot of each path in Meta.CgroupSettings),
// then those cfg states (Config.Cgroups), then cfg's what-ifs; a group
// nothing is said of gets cpu.weight 100 and no quota. taskGroup[i] is
// the index of model task i's group. Errors wrap ErrConfig: a what-if or
// stated path that names no group of the replay.
func Groups(m *Model, cfg Config) (groups []GroupInfo, taskGroup []int, err error) {
	index := map[string]int{"/": 0}
	groups = []GroupInfo{{CgroupSettings: trace.CgroupSettings{Path: "/"}, Source: "root"}}
	var add func(path string) int
	add = func(path string) int {
		if i, ok := index[path]; ok {
			return i
		}
		parent := path[:strings.LastIndex(path, "/")]
		if parent != "" {
			add(parent)
		}
		index[path] = len(groups)
		groups = append(groups, GroupInfo{CgroupSettings: trace.CgroupSettings{Path: path, Weight: 100, QuotaNS: -1}, Source: "default"})
		return len(groups) - 1
	}
	taskGroup = make([]int, len(m.Tasks))
	paths := make([]string, len(m.Tasks))
	for i := range m.Tasks {
		paths[i] = taskCgroup(&m.Tasks[i], &cfg)
	}
	// Parents before children, in path order, so group indexes do not
	// depend on task order.
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	for _, p := range sorted {
		add(p)
	}
	for i, p := range paths {
		taskGroup[i] = index[p]
		groups[index[p]].Tasks++
	}
	apply := func(s trace.CgroupSettings, source string) {
		g, ok := index[normPath(s.Path)]
		if !ok || g == 0 {
			return
		}
		gi := &groups[g]
		mergeSettings(&gi.CgroupSettings, s)
		gi.Source = source
	}
	readings := map[string][]trace.CgroupSettings{}
	var order []string
	for _, s := range m.Meta.CgroupSettings {
		p := normPath(s.Path)
		if readings[p] == nil {
			order = append(order, p)
		}
		readings[p] = append(readings[p], s)
	}
	agReading := map[string]trace.CgroupSettings{}
	changed := map[string]string{}
	changes := map[string][]trace.CgroupSettings{}
	for _, p := range order {
		s, later, note := settingsTimeline(readings[p], m.Start, m.End)
		if note != "" {
			changed[p] = note
		}
		changes[p] = later
		if strings.HasPrefix(p, "/autogroup-") {
			// A recorded autogroup is named by the kernel's sequence
			// number, an inferred session by its leader's TID
			// (inferSessions): only tasks the recording placed in it
			// (Task.Autogroup) are in a group of that path.
			agReading[p] = s
			for i := range later {
				later[i].Shares = autogroupShares(later[i])
			}
			continue
		}
		apply(s, "recorded")
	}
	for p, note := range changed {
		if g, ok := index[p]; ok && g > 0 {
			groups[g].Changed = note
			groups[g].Changes = changes[p]
		}
	}
	for i := range m.Tasks {
		if p := m.Tasks[i].Autogroup; p != "" {
			if s, ok := agReading[p]; ok {
				s.Shares = autogroupShares(s)
				apply(s, "recorded")
				delete(agReading, p)
			}
		}
	}
	// The recording's own groups: a stated setting names one of them even
	// when a what-if (--cgroup, --autogroup off) moves every task out.
	recorded := map[string]bool{}
	for i := range m.Tasks {
		for p := normPath(m.Tasks[i].Cgroup); p != "" && p != "/"; p = p[:strings.LastIndex(p, "/")] {
			recorded[p] = true
		}
		if m.Tasks[i].Session != 0 {
			recorded[sessionPath(m.Tasks[i].Session)] = true
		}
		if m.Tasks[i].Autogroup != "" {
			recorded[m.Tasks[i].Autogroup] = true
		}
	}
	for _, s := range cfg.Cgroups {
		if _, ok := index[normPath(s.Path)]; !ok && recorded[normPath(s.Path)] {
			continue // no task left in it: nothing to apply
		} else if !ok {
			return nil, nil, fmt.Errorf("%w: --recorded-cgroup %s: no task of the trace runs in that cgroup (%s)", ErrConfig, s.Path, groupList(groups, m))
		}
		apply(s, "stated")
		if g := index[normPath(s.Path)]; g > 0 && groups[g].Changes != nil {
			// Stated settings hold for the whole trace.
			groups[g].Changes = nil
			groups[g].Changed = "changed during the trace; the stated settings (--recorded-cgroup) replace the recorded ones for the whole trace"
		}
	}
	for _, c := range cfg.CgroupChanges {
		g, ok := index[normPath(c.Path)]
		if !ok || g == 0 {
			return nil, nil, fmt.Errorf("%w: cgroup %s: no task of the replay runs in it (%s)", ErrConfig, c.Path, groupList(groups, m))
		}
		gi := &groups[g]
		gi.WeightSource, gi.QuotaSource = cmp.Or(gi.WeightSource, gi.Source), cmp.Or(gi.QuotaSource, gi.Source)
		if c.Weight > 0 {
			// (An autogroup's nice no longer sets it: new-user pass
			// 28 F7 read "weight 100 (nice 5)".)
			gi.Weight, gi.Shares, gi.Nice = c.Weight, 0, 0
			gi.WeightSource = "what-if"
		}
		if c.Quota != 0 || c.Period > 0 || c.Burst != 0 {
			gi.QuotaSource = "what-if"
		}
		if c.Quota != 0 {
			gi.QuotaNS = c.Quota
		}
		if c.Period > 0 {
			gi.PeriodNS = c.Period
		}
		switch {
		case c.Burst > 0:
			gi.BurstNS = c.Burst
		case c.Burst < 0:
			gi.BurstNS = 0
		}
		gi.Source = "what-if"
	}
	for i := range groups {
		// A what-if sets its setting for the whole trace: the recorded
		// changes keep only the other one.
		gi := &groups[i]
		if gi.Changes == nil || gi.WeightSource != "what-if" && gi.QuotaSource != "what-if" {
			continue
		}
		kept := gi.Changes[:0]
		prev := gi.CgroupSettings
		for _, c := range gi.Changes {
			if gi.WeightSource == "what-if" {
				c.Weight, c.Shares, c.Nice = gi.Weight, gi.Shares, gi.Nice
			}
			if gi.QuotaSource == "what-if" {
				c.QuotaNS, c.PeriodNS, c.BurstNS = gi.QuotaNS, gi.PeriodNS, gi.BurstNS
			}
			next := prev
			mergeSettings(&next, c)
			if next != prev {
				kept = append(kept, c)
			}
			prev = next
		}
		if len(kept) == 0 {
			gi.Changes = nil
			gi.Changed, _, _ = strings.Cut(gi.Changed, ": the replay applies")
			gi.Changed += ": the what-if sets what changed for the whole trace"
		} else {
			gi.Changes = kept
			gi.Changed += "; the what-if's setting holds throughout"
		}
	}
	for i := range groups {
		if gi := &groups[i]; gi.Source == "default" && m.TracedSession.Leader != 0 && gi.Path == sessionPath(m.TracedSession.Leader) {
			gi.Source = "the traced command's session, inferred from delays"
		} else if gi.Source == "default" && strings.HasPrefix(gi.Path, "/autogroup-") && !recorded[gi.Path] {
			gi.Source = "new session, made by --autogroup"
		} else if gi.Source == "default" && strings.HasPrefix(gi.Path, "/autogroup-") {
			gi.Source = inferredSessionSource
		} else if gi.Source == "default" && !inTrace(m, gi.Path) {
			// Made by a --cgroup move: it has no recorded settings to state.
			gi.Source = newGroupSource
		}
		if gi := &groups[i]; gi.QuotaNS > 0 && gi.PeriodNS <= 0 {
			gi.PeriodNS = trace.DefaultCfsPeriod
		}
	}
	return groups, taskGroup, nil
}

// groupList names the groups of a replay for an error message.
func groupList(groups []GroupInfo, m *Model) string {
	if len(groups) <= 1 {
		if un := trace.UnattributedV1Groups(&m.Meta); len(un) > 0 {
			return "the trace lists cgroups " + strings.Join(un, ", ") + " but no task is attributed to them (cgroup v1 groups were recorded but tasks could not be attributed to them)"
		}
		return "the trace shows no cgroups: every task is in the root group"
	}
	var names []string
	for _, g := range groups[1:] {
		names = append(names, g.Path)
	}
	return "its cgroups: " + strings.Join(names, ", ")
}

// policyGroups converts groups to the policy's tree.
func policyGroups(groups []GroupInfo) []policies.Group {
	index := map[string]int{}
	out := make([]policies.Group, len(groups))
	for i, g := range groups {
		index[g.Path] = i
		pg := policies.Group{Path: g.Path, Parent: -1}
		if i > 0 {
			parent := g.Path[:strings.LastIndex(g.Path, "/")]
			if parent == "" {
				parent = "/"
			}
			pg = policyGroup(g.CgroupSettings)
			pg.Parent = index[parent]
		}
		out[i] = pg
	}
	return out
}

// policyGroup converts settings s of a non-root group to the policy's
// terms (Parent left to the caller): its load weight (v1 cpu.shares is the
// load weight itself; a cpu.weight W is trace.LoadFromWeight(W)) and its
// bandwidth limit, none for a quota <= 0.
func policyGroup(s trace.CgroupSettings) policies.Group {
	pg := policies.Group{Path: s.Path, Shares: trace.LoadFromWeight(s.Weight)}
	if s.Shares > 0 {
		pg.Shares = int64(s.Shares)
	}
	if s.QuotaNS > 0 {
		pg.Quota, pg.Period, pg.Burst = s.QuotaNS, cmp.Or(s.PeriodNS, trace.DefaultCfsPeriod), s.BurstNS
	}
	return pg
}

// checkGroupChanges validates what-ifs before any simulation: weight
// 1..10000 (cpu.weight's range, kernel/sched/core.c cpu_weight_write_u64),
// period 1 ms..1 s, quota at least 1 ms and at most period × CPUs, burst
// at most the quota (tg_set_cfs_bandwidth, kernel/sched/core.c v6.18).
func checkGroupChanges(cfg *Config, cpus int) error {
	check := func(what, path string, weight int, quota, period, burst int64) error {
		if weight != 0 && (weight < 1 || weight > 10000) {
			return fmt.Errorf("%w: %s %s: weight %d: want 1..10000 (cpu.weight)", ErrConfig, what, path, weight)
		}
		if period != 0 && (period < trace.MinCfsPeriod || period > trace.MaxCfsPeriod) {
			return fmt.Errorf("%w: %s %s: period %s: want 1ms..1s", ErrConfig, what, path, fmtNS(period))
		}
		p := period
		if p <= 0 {
			p = trace.DefaultCfsPeriod
		}
		if quota > 0 && quota < trace.MinCfsQuota {
			return fmt.Errorf("%w: %s %s: quota %s: want at least 1ms", ErrConfig, what, path, fmtNS(quota))
		}
		if quota > 0 && quota > p*int64(cpus) {
			return fmt.Errorf("%w: %s %s: quota %s per %s period is more than %d CPUs can use (at most %s)", ErrConfig, what, path, fmtNS(quota), fmtNS(p), cpus, fmtNS(p*int64(cpus)))
		}
		if burst > 0 && quota > 0 && burst > quota {
			return fmt.Errorf("%w: %s %s: burst %s above the quota %s", ErrConfig, what, path, fmtNS(burst), fmtNS(quota))
		}
		return nil
	}
	for _, c := range cfg.CgroupChanges {
		if err := check("cgroup", c.Path, c.Weight, c.Quota, c.Period, c.Burst); err != nil {
			return err
		}
	}
	for _, s := range cfg.Cgroups {
		if err := check("--recorded-cgroup", s.Path, s.Weight, s.QuotaNS, s.PeriodNS, s.BurstNS); err != nil {
			return err
		}
	}
	return nil
}

func fmtNS(ns int64) string {
	return fmt.Sprintf("%gms", float64(ns)/1e6)
}

// inferredSessionSource is the GroupInfo.Source of an autogroup session
// inferSessions found: a perf.data does not carry its nice, so its weight
// is the default's.
const inferredSessionSource = "session inferred from setsid in the process tree; its nice is not recorded: weight 100 assumed, --recorded-cgroup PATH:weight=W states it"

// newGroupSource is the GroupInfo.Source of a group only a what-if move
// (--cgroup SEL=PATH) makes: no task of the trace ran in it or below it.
const newGroupSource = "new, made by --cgroup"

// inTrace reports whether some task of m ran in cgroup path (normalized)
// or below it, as recorded.
func inTrace(m *Model, path string) bool {
	for i := range m.Tasks {
		p := normPath(m.Tasks[i].Cgroup)
		if p == path || path == "/" || strings.HasPrefix(p, path+"/") {
			return true
		}
	}
	return false
}

// mergeSettings sets in dst what s says of a group: its weight (with the
// v1 shares or autogroup nice behind it), quota, period and burst; what s
// leaves unknown (0) stays.
func mergeSettings(dst *trace.CgroupSettings, s trace.CgroupSettings) {
	if s.Weight > 0 {
		dst.Weight, dst.Shares, dst.Nice = s.Weight, s.Shares, s.Nice
	}
	if s.QuotaNS != 0 {
		dst.QuotaNS = s.QuotaNS
	}
	if s.PeriodNS > 0 {
		dst.PeriodNS = s.PeriodNS
	}
	if s.BurstNS > 0 {
		dst.BurstNS = s.BurstNS
	}
}

// autogroupShares is the load weight of a recorded autogroup reading: the
// kernel sets it from the nice, sched_prio_to_weight[nice+20] (autogroup.c
// proc_sched_autogroup_set_nice), taken as it is, not through the rounded
// cpu.weight (nice 19: 15, where weight 1 gave 10; new-user pass 26 F10);
// a reading with shares keeps them.
func autogroupShares(s trace.CgroupSettings) int {
	if s.Shares != 0 {
		return s.Shares
	}
	return int(trace.NiceWeight(s.Nice))
}

// settingsTimeline returns what a replay does with one group's recorded
// settings (in the order read; Time 0: at the start) over the trace (start
// to end, ns): the settings it starts with, the later ones it applies at
// their times, and how they changed ("" when they did not). When every
// change was read during the trace (traceview record reads the settings
// every 100 ms), the replay starts with the one in force at the start and
// applies each from its reading; when one was read only as the recording
// ended, when it came is not known and heldReading's one is held
// throughout (later nil).
func settingsTimeline(list []trace.CgroupSettings, start, end int64) (first trace.CgroupSettings, later []trace.CgroupSettings, note string) {
	held, note := heldReading(list, start, end)
	if note == "" {
		return held, nil, ""
	}
	distinct := distinctReadings(list)
	if distinct[len(distinct)-1].Time >= end {
		return held, nil, note
	}
	first = distinct[0]
	for _, s := range distinct[1:] {
		if s.Time <= start {
			first = s
			continue
		}
		later = append(later, s)
	}
	var parts []string
	text := func(s trace.CgroupSettings) string { return strings.TrimPrefix(s.String(), s.Path+" ") }
	parts = append(parts, text(first)+" at the start")
	for _, s := range later {
		parts = append(parts, fmt.Sprintf("%s from %.6f s", text(s), float64(s.Time)/1e9))
	}
	return first, later, fmt.Sprintf("changed during the trace (%s): the replay applies each from when it was read, within 100 ms of the change", strings.Join(parts, ", "))
}

// distinctReadings drops from list each reading that repeats the one
// before it (whenever read).
func distinctReadings(list []trace.CgroupSettings) []trace.CgroupSettings {
	same := func(a, b trace.CgroupSettings) bool {
		a.Time, b.Time, a.Source, b.Source = 0, 0, "", ""
		return a == b
	}
	var distinct []trace.CgroupSettings
	for _, s := range list {
		if len(distinct) == 0 || !same(s, distinct[len(distinct)-1]) {
			distinct = append(distinct, s)
		}
	}
	return distinct
}

// heldReading picks, of one group's recorded settings (in the order read;
// Time 0: at the start), the one a replay holds for the whole trace
// (start to end, ns), and says how they changed ("" when they did not).
// A reading taken during the trace dates its change within the sampling
// interval (an autogroup's nice and a cgroup's settings, which traceview
// record reads every 100 ms): the one in effect longest is held (a
// session's nice set right after setsid(1), echo N > /proc/self/autogroup,
// comes after the reading that first saw it). A reading taken as the
// recording ended (an older recording read cgroup settings only at a
// file's start and end) does not say when the change came: the start's is
// held. New-user pass 28 F1: the replay held a cgroup's first settings and
// an autogroup's last, and said nothing.
func heldReading(list []trace.CgroupSettings, start, end int64) (trace.CgroupSettings, string) {
	distinct := distinctReadings(list)
	if len(distinct) <= 1 {
		if len(list) == 0 {
			return trace.CgroupSettings{}, ""
		}
		return list[0], ""
	}
	text := func(s trace.CgroupSettings) string { return strings.TrimPrefix(s.String(), s.Path+" ") }
	at := func(s trace.CgroupSettings) int64 { return max(s.Time, start) }
	var parts []string
	for i, s := range distinct {
		when := "at the start"
		switch {
		case i > 0 && s.Time >= end:
			when = "as the recording ended"
		case i > 0:
			when = fmt.Sprintf("from %.6f s", float64(s.Time)/1e9)
		}
		parts = append(parts, text(s)+" "+when)
	}
	held, why := 0, "when is not recorded): the replay holds the start's"
	if distinct[len(distinct)-1].Time < end {
		best := int64(-1)
		for i, s := range distinct {
			to := end
			if i+1 < len(distinct) {
				to = min(at(distinct[i+1]), end)
			}
			if d := to - at(s); d > best {
				held, best = i, d
			}
		}
		why = fmt.Sprintf("): the replay holds the one in effect longest (%.0f %% of the trace)", 100*float64(best)/float64(max(end-start, 1)))
	}
	if why[0] != ')' {
		why = "; " + why
	}
	return distinct[held], fmt.Sprintf("changed during the trace (%s%s for the whole trace", strings.Join(parts, ", "), why)
}

// GroupsLine summarizes the task groups of a replay for the model line:
// "task groups: /tv-a weight 100 (recorded), /tv-b weight 100 max 25ms/100ms (stated)";
// "" when every task is in the root group.
func GroupsLine(groups []GroupInfo) string {
	if len(groups) <= 1 {
		return ""
	}
	var parts []string
	defaults := 0
	for _, g := range groups[1:] {
		if g.Source == "default" {
			defaults++
		}
		tasks := fmt.Sprintf("%d tasks", g.Tasks)
		if g.Tasks == 1 {
			tasks = "1 task"
		}
		if g.Changed != "" {
			tasks += "; " + g.Changed
		}
		source := g.Source
		if len(g.Changes) > 0 {
			source += ", at the start" // (new-user pass 30 F1 read it as the setting held throughout)
		}
		named := g.CgroupSettings
		named.Path = termsafe.Name(named.Path) // (a cgroup's name may hold any byte but '/')
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", named.String(), source, tasks))
	}
	s := "task groups: " + strings.Join(parts, ", ")
	if defaults > 0 {
		s += fmt.Sprintf("; %d without recorded settings: cpu.weight 100 and no quota assumed (state them with --recorded-cgroup PATH:weight=W,max=QUOTA/PERIOD)", defaults)
	}
	return s
}
