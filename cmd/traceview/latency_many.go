package main

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// latencyInputs returns the traces of a several-trace latency run: -i when
// given explicitly, then each argument, globs expanded (sorted). A glob
// that matches nothing or is malformed is a usage error; a plain path is
// kept, so that a missing file gets the reader's own error.
func latencyInputs(cmd *cobra.Command, o latencyOptions, args []string) ([]string, error) {
	var out []string
	if cmd.Flags().Changed("input") || len(args) == 0 {
		out = append(out, o.input)
	}
	for _, a := range args {
		m, err := expandTraces("latency", a)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	if err := sameInputTwice("latency", out); err != nil {
		return nil, err
	}
	return out, nil
}

// sameInputTwice returns a usage error of command cmd naming the first
// trace of inputs given twice: the same path (after filepath.Clean, "-"
// standard input) or the same file under two paths (os.SameFile: a link,
// "./a.tv" and "a.tv"). A merge would count its events twice.
func sameInputTwice(cmd string, inputs []string) error {
	stats := make([]os.FileInfo, len(inputs))
	for i, in := range inputs {
		if in != "-" {
			stats[i], _ = os.Stat(in) // a missing file: the reader's error
		}
		for j := range i {
			same := filepath.Clean(inputs[j]) == filepath.Clean(in)
			if !same && stats[i] != nil && stats[j] != nil {
				same = os.SameFile(stats[i], stats[j])
			}
			if !same {
				continue
			}
			if inputs[j] == in {
				return usageErrorf("%s: %s is given twice: its events would be counted twice (give each trace once)", cmd, in)
			}
			return usageErrorf("%s: %s and %s are the same file: its events would be counted twice (give each trace once)", cmd, inputs[j], in)
		}
	}
	return nil
}

// dropSameRecordings returns parts without those that hold the same events
// as an earlier part (a trace and its convert copy: the same host, CPU
// count, span and numbers of events and sched_switch events read), which
// a merge would count twice; the earlier part gets a warning naming each
// dropped one ("duplicate-input").
func dropSameRecordings(parts []latencyPart) []latencyPart {
	type identity struct {
		host             string
		cpus             int
		first, last      int64
		events, switches uint64
	}
	seen := map[identity]int{}
	out := parts[:0:0]
	for _, p := range parts {
		if p.meta == nil || p.res == nil || p.meta.FirstTime <= 0 || p.res.Diag.Events == 0 {
			out = append(out, p)
			continue
		}
		id := identity{p.meta.Hostname, p.meta.NrCPUs, p.meta.FirstTime, p.meta.LastTime, uint64(p.res.Diag.Events), uint64(p.res.Diag.Switches)}
		k, dup := seen[id]
		if !dup {
			seen[id] = len(out)
			out = append(out, p)
			continue
		}
		w := trace.Warning{Key: "duplicate-input", Count: 1, Message: fmt.Sprintf(
			"%s holds the same events as this trace (host %s, %d CPUs, span %.6f-%.6f s, %d events): read once",
			p.path, id.host, id.cpus, float64(id.first)/1e9, float64(id.last)/1e9, id.events)}
		kept := out[k].res
		kept.ReportWarnings = append(kept.ReportWarnings, w)
		kept.Warnings = append(kept.Warnings, w)
	}
	return out
}

// SameMachineShare is the share of the smaller trace's task ids that two
// overlapping traces of one host name and kernel must have in common to be
// taken for one machine recorded twice (sameMachineSameTime). Measured on
// this VM: a perf record and a traceview record of one cyclictest run
// (issue 28's cyc.perf.data, cyc.tv) share 100% (25 of 25; by tid, as
// perf's kworker names carry a workqueue suffix that the capture's lack);
// 780 pairs of recordings taken at different times share 2% to 61% (95th
// percentile 47%), their kernel threads' fixed tids and long-lived
// daemons, as machines of one image sharing a host name would. 0.8 lies
// between.
const SameMachineShare = 0.8

// sameMachineSameTime returns a usage error when two of parts are
// recordings of one machine over the same time (a perf record and a
// traceview record run together): the same host name and kernel, spans
// that overlap, and at least SameMachineShare of the smaller one's task
// ids in both. Merged, every task they share would count twice. Overlapping
// traces of one host name with different tasks (machines of one image)
// get a warning instead ("same-host-name").
func sameMachineSameTime(parts []latencyPart) error {
	tasks := func(p *latencyPart) map[trace.TID]bool {
		m := map[trace.TID]bool{}
		for _, r := range p.res.TaskRows {
			if r.TID > 0 {
				m[r.TID] = true
			}
		}
		return m
	}
	sets := make([]map[trace.TID]bool, len(parts))
	// span is a part's time span: its header's, else (a file cut before
	// its header's feature sections) its schedule's.
	span := func(p *latencyPart) (int64, int64) {
		if p.meta.FirstTime > 0 {
			return p.meta.FirstTime, p.meta.LastTime
		}
		if p.res.Schedule != nil {
			return p.res.Schedule.Span()
		}
		return 0, 0
	}
	// same says whether two hosts' names (or kernels) may be one machine's:
	// equal, or one unknown (a perf.data cut before its host section).
	same := func(x, y string) bool { return x == y || x == "" || y == "" }
	for i := range parts {
		a := &parts[i]
		if a.meta == nil || a.res == nil {
			continue
		}
		for j := range i {
			b := &parts[j]
			if b.meta == nil || b.res == nil || !same(a.meta.Hostname, b.meta.Hostname) || !same(a.meta.OSRelease, b.meta.OSRelease) {
				continue
			}
			af, al := span(a)
			bf, bl := span(b)
			over := min(al, bl) - max(af, bf)
			if af <= 0 || bf <= 0 || over <= 0 {
				continue
			}
			for _, k := range []int{i, j} {
				if sets[k] == nil {
					sets[k] = tasks(&parts[k])
				}
			}
			small, big := sets[j], sets[i]
			if len(small) > len(big) {
				small, big = big, small
			}
			shared := 0
			for t := range small {
				if big[t] {
					shared++
				}
			}
			share := float64(shared) / float64(max(len(small), 1))
			if share >= SameMachineShare {
				host, kernel := cmp.Or(a.meta.Hostname, b.meta.Hostname, "host unknown"), cmp.Or(a.meta.OSRelease, b.meta.OSRelease, "kernel unknown")
				return usageErrorf("latency: %s and %s record one machine (%s, %s) over the same time (%.3f s in common; %.0f%% of the smaller one's task ids are in both): merged, each task would count twice; read one of them, or see them side by side with --by trace",
					b.path, a.path, host, kernel, float64(over)/1e9, 100*share)
			}
			if a.meta.Hostname == "" || b.meta.Hostname == "" {
				continue // no name in common to warn about
			}
			w := trace.Warning{Key: "same-host-name", Count: 1, Message: fmt.Sprintf(
				"%s has this trace's host name (%s) and kernel and overlaps it in time (%.3f s), but only %.0f%% of the smaller one's task ids are in both: merged as two machines",
				a.path, a.meta.Hostname, float64(over)/1e9, 100*share)}
			b.res.ReportWarnings = append(b.res.ReportWarnings, w)
			b.res.Warnings = append(b.res.Warnings, w)
		}
	}
	return nil
}

// isPattern reports whether a trace argument is a glob.
func isPattern(arg string) bool { return strings.ContainsAny(arg, "*?[") }

// expandTraces returns the traces a command-line argument names: itself,
// or a glob's matches (sorted). A glob that matches nothing or is malformed
// is a usage error of command cmd.
func expandTraces(cmd, arg string) ([]string, error) {
	if !isPattern(arg) {
		return []string{arg}, nil
	}
	m, err := filepath.Glob(arg)
	if err != nil {
		return nil, usageErrorf("%s: bad pattern %q: %v", cmd, arg, err)
	}
	if len(m) == 0 {
		return nil, usageErrorf("%s: %s: no trace matches the pattern", cmd, arg)
	}
	return m, nil
}

// latencyPart is one trace's report in a several-trace run.
type latencyPart struct {
	path string
	res  *report.LatencyResult
	err  error
	meta *trace.Meta
	// runs are its tasks' switch-ins by name (watchNames) and filter the
	// filter it was read with, for the rename note and --comm's hint.
	runs   nameRuns
	filter *schedule.Filter
}

// runLatencyMany reads inputs in parallel (at most GOMAXPROCS at a time),
// merges their reports exactly (report.MergeLatency) per group of o.by and
// prints one table per group. The first trace that fails fails the run,
// after its reader's warnings.
func runLatencyMany(cmd *cobra.Command, o latencyOptions, opts report.LatencyOptions, inputs []string) error {
	switch o.by {
	case "", "trace", "host", "comm", "cgroup":
	default:
		return usageErrorf("latency: unknown --by %q (want trace, host, comm or cgroup)", o.by)
	}
	if o.perf && len(inputs) > 1 {
		return usageErrorf("latency: --perf reproduces perf, which reads one trace; drop --perf or give one trace")
	}
	if o.perf {
		return usageErrorf("latency: --perf reproduces perf's table, which has no --by %s grouping; drop --perf or --by", o.by)
	}
	parts, err := readRecordings(cmd, inputs, opts, &o.filter, o.by)
	if err != nil {
		return err
	}
	if o.by != "trace" {
		parts = dropSameRecordings(parts) // each file its own table
		if err := sameMachineSameTime(parts); err != nil {
			return err
		}
	}
	w := cmd.ErrOrStderr()

	type group struct {
		key   string
		parts []*report.LatencyResult
	}
	var groups []*group
	idx := map[string]*group{}
	add := func(key string, r *report.LatencyResult) {
		g := idx[key]
		if g == nil {
			g = &group{key: key}
			idx[key] = g
			groups = append(groups, g)
		}
		g.parts = append(g.parts, r)
	}
	warnings := partWarnings(parts)
	for i := range parts {
		p := &parts[i]
		switch o.by {
		case "comm", "cgroup":
			// Per task: the trace's rows of each group form one part.
			byKey := map[string]*report.LatencyResult{}
			for _, tr := range p.res.TaskRows {
				key := tr.Comm
				if o.by == "cgroup" {
					key = cgroupName(p.meta, tr.Cgroup)
				}
				r := byKey[key]
				if r == nil {
					r = &report.LatencyResult{Options: p.res.Options}
					byKey[key] = r
					add(key, r)
				}
				r.TaskRows = append(r.TaskRows, tr)
			}
		case "host":
			add(hostKey(p.meta), p.res)
		case "trace":
			add(p.path, p.res)
		default:
			add("", p.res)
		}
	}
	if o.by == "comm" || o.by == "cgroup" {
		sort.SliceStable(groups, func(i, j int) bool { return groups[i].key < groups[j].key })
	}
	// The task groups of every trace, merged by path (--by cgroup shows
	// each beside its table).
	var cgParts [][]report.CgroupThrottle
	for i := range parts {
		cgParts = append(cgParts, parts[i].res.Cgroups)
	}
	cgroups := map[string]*report.CgroupThrottle{}
	allGroups := report.MergeCgroupThrottles(cgParts...)
	if err := checkStatedCgroups("latency", opts.Cgroups, allGroups); err != nil {
		return err
	}
	for i := range allGroups {
		cgroups[allGroups[i].Path] = &allGroups[i]
	}
	var metas []*trace.Meta
	for i := range parts {
		metas = append(metas, parts[i].meta)
	}
	// A record --rotate series: a task in several files is one task.
	opts.OneCapture = trace.OneCapture(metas...)
	var merged []*report.LatencyResult
	var keys []string
	for _, g := range groups {
		m, err := report.MergeLatency(g.parts, opts)
		if err != nil {
			return err
		}
		if len(m.Rows) == 0 && (o.by == "comm" || o.by == "cgroup") {
			continue // only the idle task, or tasks without delays
		}
		m.Warnings = warnings
		merged = append(merged, m)
		keys = append(keys, g.key)
	}
	// "warning: PATH: ...", as a single trace's, with -o json too (the
	// warnings are in the document as well).
	for _, p := range parts {
		writeWarnings(w, p.path, p.path+": ", append(metaWarnings(p.res.Meta), p.res.ReportWarnings...))
	}
	if len(parts) == 1 && o.by == "" {
		// One recording (a --rotate series, copies of one file): its
		// names as one file's (new-user pass 33 F3 lost the notes),
		// with -o json in the document too.
		renameNotes(w, parts[0].res, parts[0].filter, parts[0].runs)
		if wn, ok := renamedWarning(parts[0].res, parts[0].filter, parts[0].runs); ok && o.output == "json" {
			warnings = append(warnings, wn)
		}
	}
	return writeLatencyGroups(cmd, o, merged, keys, cgroups, warnings)
}

// hostKey is the --by host key of a trace: its recording machine's name,
// "(unknown host)" when it has none.
func hostKey(m *trace.Meta) string {
	if m == nil || m.Hostname == "" {
		return "(unknown host)"
	}
	return m.Hostname
}

// writeLatencyGroups prints runLatencyMany's merged tables, one per group
// key (all merged when o.by is ""), as o.output says; --by cgroup adds each
// group's CPU use and throttling (cgroups, by path).
func writeLatencyGroups(cmd *cobra.Command, o latencyOptions, merged []*report.LatencyResult, keys []string, cgroups map[string]*report.CgroupThrottle, warnings []trace.Warning) error {
	out := cmd.OutOrStdout()
	if o.by == "" {
		switch o.output {
		case "json":
			return report.WriteLatencyJSON(out, merged[0])
		case "csv":
			csvCgroupsNote(cmd.ErrOrStderr(), "latency", len(merged[0].Cgroups), "cgroups")
			return report.WriteLatencyCSV(out, merged[0])
		}
		return report.WriteLatencyTable(out, merged[0], false)
	}
	switch o.output {
	case "json":
		doc := latencyGroupsJSON{By: o.by, Groups: []latencyGroupJSON{}, Warnings: answerFirst(slices.Clone(warnings))}
		if doc.Warnings == nil {
			doc.Warnings = []trace.Warning{}
		}
		for i, m := range merged {
			j := m.JSON()
			gj := latencyGroupJSON{Key: keys[i], Tasks: j.Tasks, Total: j.Total}
			if o.by == "cgroup" {
				gj.Cgroup = cgroups[keys[i]]
				if c := gj.Cgroup; c != nil && c.ThrottledBy != "" {
					// Its tasks' throttled delays: its rows' (the
					// throttles are the ancestor's).
					cp := *c
					cp.ThrottledDelay = m.Total.Throttled
					gj.Cgroup = &cp
				}
			}
			doc.Groups = append(doc.Groups, gj)
		}
		for _, g := range quotaAncestorLines(o.by, keys, cgroups) {
			// Its line, no tasks (they are in the groups below).
			doc.Groups = append(doc.Groups, latencyGroupJSON{Key: g.Path, Tasks: []report.LatencyJSONRow{}, Cgroup: g})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "csv":
		if o.by == "cgroup" {
			csvCgroupsNote(cmd.ErrOrStderr(), "latency", len(cgroups), "groups[].cgroup")
		}
		cw := csv.NewWriter(out)
		for i, m := range merged {
			var buf bytes.Buffer
			if err := report.WriteLatencyCSV(&buf, m); err != nil {
				return err
			}
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				return err
			}
			for j, rec := range recs {
				if j == 0 && i > 0 {
					continue // one header
				}
				head := termsafe.ValidUTF8(keys[i]) // (as the rows' comm: a cgroup path or a file name is any bytes)
				if j == 0 {
					head = "by_" + o.by // "comm" alone would name two columns
				}
				cw.Write(append([]string{head}, rec...))
			}
		}
		cw.Flush()
		return cw.Error()
	}
	above := quotaAncestorLines(o.by, keys, cgroups)
	for i, m := range merged {
		for len(above) > 0 && above[0].Path < keys[i] {
			writeAncestorSection(out, above[0], cgroups)
			above = above[1:]
		}
		// The group's name escaped, as the rows' (termsafe): a comm, a
		// cgroup path or a file name is any bytes.
		fmt.Fprintf(out, "\n%s: %s\n", o.by, termsafe.Label(keys[i]))
		if g := cgroups[keys[i]]; o.by == "cgroup" && g != nil {
			fmt.Fprintf(out, "  %s\n", cgroupSummary(g, merged[i], cgroups))
		}
		if err := report.WriteLatencyTable(out, m, false); err != nil {
			return err
		}
	}
	for _, g := range above {
		writeAncestorSection(out, g, cgroups)
	}
	return nil
}

// quotaAncestorLines are, with --by cgroup, the group lines of ancestors
// whose quota throttles groups below them and that have no section of
// their own (no task ran in them directly: report.CgroupThrottle.Cgroup
// 0), by path: the only line that counts those throttles (new-user pass
// 16 F1: --by cgroup had no /t16p, and its children's lines 0 ms).
func quotaAncestorLines(by string, keys []string, cgroups map[string]*report.CgroupThrottle) []*report.CgroupThrottle {
	if by != "cgroup" {
		return nil
	}
	var out []*report.CgroupThrottle
	for p, g := range cgroups {
		if g.Cgroup == 0 && !slices.Contains(keys, p) {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b *report.CgroupThrottle) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// writeAncestorSection prints a quotaAncestorLines group: its name and
// line, no table (its tasks' rows are in the sections below it).
func writeAncestorSection(out io.Writer, g *report.CgroupThrottle, cgroups map[string]*report.CgroupThrottle) {
	what := "the groups below it, whose sections follow, share its weight" // (new-user pass 105 F2: "its quota" of a group with none)
	if g.QuotaNS > 0 {
		what = "its quota throttles the groups below it, whose sections follow"
	}
	fmt.Fprintf(out, "\ncgroup: %s (no task of its own: %s)\n  %s\n", termsafe.Label(g.Path), what, cgroupSummary(g, nil, cgroups))
}

// cgroupSummary is the line --by cgroup prints under a group's name: its
// CPU use, its inferred throttling (as cpu.stat counts it) and its quota.
// Its runtime is on-CPU time between switches; where table (the group's
// rows) took its Runtime from sched_stat_runtime instead, the line says
// both (they differ by the run time of a switch that moved a task between
// groups, and before the trace's first switch).
func cgroupSummary(g *report.CgroupThrottle, table *report.LatencyResult, cgroups map[string]*report.CgroupThrottle) string {
	// With its quota unknown, how its throttles are found and how to give
	// the quota, on every such group (new-user pass 115 F5: only a group
	// with none found had the hint, the one throttled had none).
	q := "quota unknown (throttles inferred only where its runnable tasks were left for an idle CPU, unseen on busy CPUs: give a quota with --recorded-cgroup " + termsafe.Label(g.Path) + ":max=QUOTA/PERIOD)"
	switch {
	case g.Settings == "unknown":
	case g.QuotaNS < 0:
		q = "no quota (" + g.Settings + ")"
	default:
		q = fmt.Sprintf("quota %.3f ms per %.3f ms (%s)", float64(g.QuotaNS)/1e6, float64(g.PeriodNS)/1e6, g.Settings)
	}
	if d := g.QuotaDiffers(); d != "" {
		q = "quota " + d + " (" + g.Settings + ")"
	}
	if c := g.QuotaChange(); c != "" {
		// (A quota removed during the trace too: "no quota" alone
		// hid the one the kernel throttled under, new-user pass 20 F2.)
		q += "; quota " + c
	}
	if g.Weight > 0 {
		w := "weight " + g.WeightText()
		if g.WeightChange != "" {
			// (As the default group table says it: new-user pass 31
			// F2 read "weight 11 (nice 10)" beside 0.51 CPUs used, the
			// session having run at 100 for half the trace.)
			w += " (" + g.WeightChange + ")"
		}
		q = w + "; " + q
	}
	avg := int64(0)
	if g.Delays > 0 {
		avg = g.SumDelay / g.Delays
	}
	runtime := fmt.Sprintf("%.3f ms", float64(g.Runtime)/1e6)
	if table != nil && table.Total.Runtime != g.Runtime && slices.ContainsFunc(table.Rows, func(r report.LatencyRow) bool {
		return r.RuntimeSource != report.RuntimeFromSwitches
	}) {
		runtime += fmt.Sprintf(" on CPU between its switches (%.3f ms of sched_stat_runtime in its rows)", float64(table.Total.Runtime)/1e6)
	}
	if g.Subtree && g.Cgroup != 0 {
		limits := "they share its weight"
		if g.QuotaNS > 0 {
			limits = "its quota limits them too"
		}
		runtime += " with the groups below it (" + limits + "; its own tasks' rows follow)"
	}
	thr := fmt.Sprintf("throttled %d periods, %.3f ms summed over CPUs (%.3f ms of its tasks' delays)", g.ThrottledPeriods, float64(g.Throttled)/1e6, float64(g.ThrottledDelay)/1e6)
	if g.Settings == "unknown" && g.ThrottledPeriods == 0 && g.Kernel == nil {
		// With no quota recorded, a throttle is inferred only where the
		// group's runnable tasks were left for an idle CPU: on CPUs busy
		// throughout, a group held to 0.30 CPU by a 30 ms/100 ms quota
		// read "throttled 0 periods" where the kernel counted 30, as if
		// it were never throttled (new-user pass 114 F6).
		// (The quota's words, q, say how they are inferred.)
		thr = "no throttle found (0 periods)"
	}
	if g.AlsoUnder != "" && g.ThrottledBy == "" {
		if a := cgroups[g.AlsoUnder]; a != nil && a.Throttled == 0 && (a.Kernel == nil || a.Kernel.NrThrottled == 0) {
			// (new-user pass 105 F3: "waited through" throttles the
			// ancestor's line and its cpu.stat counted none of.)
			thr += fmt.Sprintf("; also under %s's quota (no throttle of it found)", g.AlsoUnder)
		} else {
			// (Its tasks' delays spent throttled, ThrottledDelay, hold
			// both levels', as its rows' Throttled ms do.)
			thr = fmt.Sprintf("throttled %d periods, %.3f ms summed over CPUs; its tasks also waited through %s's throttles, counted on %s's line (%.3f ms of its tasks' delays in these and those)",
				g.ThrottledPeriods, float64(g.Throttled)/1e6, g.AlsoUnder, g.AlsoUnder, float64(g.ThrottledDelay)/1e6)
		}
	}
	if g.ThrottledBy != "" {
		// Its throttles are the ancestor's (counted on the ancestor's
		// line, as only its cpu.stat counts them); its tasks' share is
		// in its rows.
		d := g.ThrottledDelay
		if table != nil {
			d = table.Total.Throttled
		}
		by, lines := g.ThrottledBy+"'s quota", g.ThrottledBy+"'s line"
		if g.AlsoUnder != "" {
			by = fmt.Sprintf("%s's and %s's quotas", g.ThrottledBy, g.AlsoUnder)
			lines = fmt.Sprintf("%s's and %s's lines", g.ThrottledBy, g.AlsoUnder)
		}
		thr = fmt.Sprintf("throttled by %s: %.3f ms of its tasks' delays (its rows' Throttled ms; the periods and throttled time are on %s)", by, float64(d)/1e6, lines)
	}
	if g.QuotaNote != "" {
		q += ": " + g.QuotaNote
	}
	if g.Settings == report.AutogroupSettings {
		thr = "never throttled" // (no quota, nor the root above it)
	}
	line := fmt.Sprintf("runtime %s, %.3f CPUs used; delays avg %.3f ms, max %.3f ms; %s; %s",
		runtime, g.CPUs, float64(avg)/1e6, float64(g.MaxDelay)/1e6, thr, q)
	if k := g.Kernel; k != nil && g.KernelWholeTrace {
		line += fmt.Sprintf("; %s's cpu.stat over the whole trace, not this window or these CPUs: %d throttled periods of %d, %.3f ms", g.CPUStatBy(), k.NrThrottled, k.NrPeriods, float64(k.ThrottledNS)/1e6)
	} else if k != nil {
		line += fmt.Sprintf("; %s's cpu.stat over the trace: %d throttled periods of %d, %.3f ms", g.CPUStatBy(), k.NrThrottled, k.NrPeriods, float64(k.ThrottledNS)/1e6)
		if g.KernelNote != "" {
			line += "; " + g.KernelNote
		}
	}
	return line
}

// cgroupName returns the path of cgroup id in m ("(no cgroup recorded)"
// for 0, the id in hex when the trace did not resolve it).
func cgroupName(m *trace.Meta, id uint64) string {
	if id == 0 {
		return "(no cgroup recorded)"
	}
	if m != nil {
		if p, ok := m.Cgroups[id]; ok {
			return p
		}
	}
	return "cgroup id " + strconv.FormatUint(id, 10) // as the group table names it
}

// readLatencyParts computes the latency report of every input in parallel
// (at most GOMAXPROCS at a time) under one progress bar. The error is the
// first failing trace's (in input order), after its reader's warnings.
func readLatencyParts(cmd *cobra.Command, inputs []string, opts report.LatencyOptions, filter *filterFlags) ([]latencyPart, error) {
	parts := make([]latencyPart, len(inputs))
	stop := filesProgress(inputs, fmt.Sprintf("reading %d traces", len(inputs)))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			parts[i] = readLatencyPart(in, opts, filter)
		}()
	}
	wg.Wait()
	stop()
	for _, p := range parts {
		if p.err != nil {
			var buf bytes.Buffer
			printAllWarnings(&buf, "", p.meta) // in full, as readFailed; each line prefixed with the path
			cmd.ErrOrStderr().Write(prefixLines(buf.Bytes(), p.path+": "))
			return nil, p.err
		}
	}
	return parts, nil
}

// partWarnings returns the parts' warnings, each message prefixed with its
// trace's path.
func partWarnings(parts []latencyPart) []trace.Warning {
	var out []trace.Warning
	for i := range parts {
		// "x.data: the input ends ...", not "x.data: perf.data: ...".
		out = append(out, namedWarnings(parts[i].path, parts[i].path+": ", parts[i].res.Warnings)...)
	}
	return out
}

// readLatencyPart reads one trace of a several-trace run, with the filters
// resolved against that trace (its CPUs, its span for percentages). Its
// error says which trace failed.
func readLatencyPart(path string, opts report.LatencyOptions, filter *filterFlags) latencyPart {
	src, err := openInput(path)
	if err != nil {
		return latencyPart{path: path, err: argTrace(err)}
	}
	defer src.Close()
	return computeLatencyPart(path, src, opts, filter)
}

// readRecordings is readLatencyParts, except that inputs that are the
// files of one recording (seriesPart) are read as one part.
func readRecordings(cmd *cobra.Command, inputs []string, opts report.LatencyOptions, filter *filterFlags, by string) ([]latencyPart, error) {
	seen := map[string]*trace.Meta{}
	p, ok := seriesPart(inputs, opts, filter, by, seen)
	if !ok {
		// The files of each recording among other traces are read as
		// one too (new-user pass 64 F3: a series given with another
		// trace was read file by file, ring dumps refused as two
		// recordings of one time).
		var parts []latencyPart
		var rest []string
		for _, g := range recordingGroups(inputs, by, seen) {
			if len(g) > 1 && len(g) < len(inputs) {
				if p, ok := seriesPart(g, opts, filter, by, nil); ok {
					if p.err != nil {
						printAllWarnings(cmd.ErrOrStderr(), p.path, p.meta)
						return nil, p.err
					}
					parts = append(parts, p)
					continue
				}
			}
			rest = append(rest, g...)
		}
		if len(parts) == 0 {
			return readLatencyParts(cmd, inputs, opts, filter)
		}
		more, err := readLatencyParts(cmd, rest, opts, filter)
		if err != nil {
			return nil, err
		}
		return append(parts, more...), nil
	}
	if p.err != nil {
		printAllWarnings(cmd.ErrOrStderr(), p.path, p.meta)
		return nil, p.err
	}
	return []latencyPart{p}, nil
}

// recordingGroups groups inputs by the traceview recording they are files
// of (the identity trace.OneRecording compares: recorder, host, clock,
// command line), in the order of each group's first file; other traces,
// standard input, files that do not open, and every file with --by trace
// are groups of one. seen holds the descriptions already read (seriesPart),
// the others are opened.
func recordingGroups(inputs []string, by string, seen map[string]*trace.Meta) [][]string {
	var groups [][]string
	index := map[string]int{}
	for _, in := range inputs {
		key := ""
		if by != "trace" && in != "-" {
			m, ok := seen[in]
			if !ok {
				if s, err := readOptions.Open(in); err == nil {
					m = s.Meta()
					s.Close()
				}
			}
			if m != nil && strings.HasPrefix(m.Tool, "traceview record") {
				key = strings.Join(append([]string{m.Tool, m.Hostname, m.Clock}, m.Cmdline...), "\x00")
			}
		}
		if i, ok := index[key]; ok && key != "" {
			groups[i] = append(groups[i], in)
			continue
		}
		if key != "" {
			index[key] = len(groups)
		}
		groups = append(groups, []string{in})
	}
	return groups
}

// seriesPart reads inputs as the one recording they are parts of, when
// they are (trace.OneRecording: a record --rotate series, or the dumps of
// one flight-recorder ring), through trace.Concat in time order: one part,
// named after the first and last files, where a task and a delay that
// cross a file boundary are one, and ring dumps' overlaps are read once
// (ok true). Otherwise, or with --by trace (each file its own table), or
// when an input cannot be opened (the parallel path says why) or is
// standard input, it reads nothing (ok false). The descriptions it read
// go into seen when not nil, for recordingGroups (which would otherwise
// open every input again: a compressed one decompressed again).
func seriesPart(inputs []string, opts report.LatencyOptions, filter *filterFlags, by string, seen map[string]*trace.Meta) (p latencyPart, ok bool) {
	if len(inputs) < 2 || by == "trace" || slices.Contains(inputs, "-") {
		return latencyPart{}, false
	}
	srcs := make([]trace.Source, 0, len(inputs))
	closeAll := func() {
		for _, s := range srcs {
			s.Close()
		}
	}
	metas := make([]*trace.Meta, 0, len(inputs))
	// Empty files (0 bytes: a recorder killed with SIGKILL leaves the file
	// it had opened so, its records still in memory) are left out of the
	// series with a warning; the others are read (they made the whole
	// series unreadable: new-user pass 15 F6).
	var empty []string
	inputs = slices.DeleteFunc(slices.Clone(inputs), func(in string) bool {
		if st, err := os.Stat(in); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			empty = append(empty, in)
			return true
		}
		return false
	})
	if len(inputs) < 2 {
		return latencyPart{}, false
	}
	for _, in := range inputs {
		s, err := readOptions.Open(in)
		if err != nil {
			closeAll()
			return latencyPart{}, false
		}
		srcs, metas = append(srcs, s), append(metas, s.Meta())
		if seen != nil {
			seen[in] = s.Meta()
		}
	}
	ring := trace.RingDumps(metas...)
	if !trace.OneRecording(metas...) || !ring && !trace.OneCapture(metas...) {
		closeAll()
		return latencyPart{}, false
	}
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(metas[a].FirstTime, metas[b].FirstTime) })
	sorted, names := make([]trace.Source, len(order)), make([]string, len(order))
	for k, i := range order {
		sorted[k], names[k] = srcs[i], inputs[i]
	}
	name := fmt.Sprintf("%s ... %s (%d files of one recording)", names[0], names[len(names)-1], len(names))
	src := watchCPUs(trace.Concat(sorted, names, ring))
	defer src.Close()
	for _, e := range empty {
		src.Meta().Warnings.Add("series-empty-file", "%s is empty (0 bytes), left out of the series: a recorder killed before it wrote that file (SIGKILL) leaves it so; what it would have held is missing, not idle", e)
	}
	return computeLatencyPart(name, src, opts, filter), true
}

// computeLatencyPart is readLatencyPart's report of src, the trace named
// path.
func computeLatencyPart(path string, src trace.Source, opts report.LatencyOptions, filter *filterFlags) latencyPart {
	p := latencyPart{path: path, meta: src.Meta()}
	var err error
	if filter != nil && filter.given() {
		if opts.Filter, err = filter.resolve("latency: "+path, src.Meta()); err != nil {
			p.err = err
			return p
		}
	}
	in, names := watchNames(src, opts.Filter)
	res, err := report.ComputeLatency(in, opts)
	switch {
	case err != nil:
		p.err = fmt.Errorf("latency: %s: %w", path, err)
	case res.Diag.Switches == 0:
		p.err = noSwitchesError("latency", path, int64(res.Diag.Events), res.Meta)
	}
	p.res, p.runs, p.filter = res, names(), opts.Filter
	return p
}

// latencyGroupsJSON is the -o json document of latency --by: one
// LatencyJSON body per group, the warnings of every trace (prefixed with
// its path) once.
type latencyGroupsJSON struct {
	By       string             `json:"by"`
	Groups   []latencyGroupJSON `json:"groups"`
	Warnings []trace.Warning    `json:"warnings"`
}

// latencyGroupJSON is one group: its key (a trace path, a host name or a
// command name), its rows and total.
type latencyGroupJSON struct {
	Key   string                  `json:"key"`
	Tasks []report.LatencyJSONRow `json:"tasks"`
	Total report.LatencyJSONTotal `json:"total"`
	// Cgroup: with --by cgroup, the group's CPU use and inferred
	// throttling (throttled_periods, throttled_ns as cpu.stat counts
	// them), when the trace records groups.
	Cgroup *report.CgroupThrottle `json:"cgroup,omitempty"`
}

// prefixLines puts prefix before every line of b.
func prefixLines(b []byte, prefix string) []byte {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	for _, l := range lines {
		if l != "" {
			out.WriteString(prefix + l)
		}
	}
	return []byte(out.String())
}

// csvCgroupsNote tells, on stderr, that -o csv left out the lines of the
// n task groups (n > 0) the table and JSON have: CSV holds one kind of
// row (tasks or commands), and a group's line (run time, throttled
// periods and time, quota, the kernel's cpu.stat) is another (new-user
// pass 21 F4: the CSV's rows summed to the tasks' throttled waits, 11241.7
// ms, not the group's 5255.8 ms of throttled time). jsonKey names where
// -o json holds them: "cgroups", or with --by cgroup "groups[].cgroup"
// (new-user pass 111 F5: the note named "cgroups" there too).
func csvCgroupsNote(w io.Writer, cmdName string, n int, jsonKey string) {
	if n == 0 {
		return
	}
	rows, whose := "tasks", "the trace's"
	if cmdName == "compare" {
		rows, whose = "commands", "the traces'"
	}
	fmt.Fprintf(w, "note: %s -o csv holds rows of %s only; the lines of %s %s (run time, throttled time summed over CPUs, quota) are under the table and in -o json's %s\n",
		cmdName, rows, whose, plural(n, "task group"), jsonKey)
}
