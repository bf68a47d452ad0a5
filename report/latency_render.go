package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/traceview/traceview/internal/termsafe"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

// The default table's layout follows perf 6.12's (perf_sched__lat and
// output_lat_thread in tools/perf/builtin-sched.c; perf's own table is
// perfcompat.WriteLatency), built from LatencyColumns, which add a "Sum
// delay ms" column after "Max delay ms" and the total delay to the TOTAL
// line, "%12.3f ms" wide (a sum of 100000 ms and more, common on a loaded
// machine, keeps its space).

// usecStamp renders ns as perf's timestamp__scnprintf_usec: seconds and
// microseconds, truncated.
func usecStamp(ns int64) string { return perfcompat.UsecStamp(ns) }

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// rowLabel is perf's "comm:tid" or "comm:(nr_tasks)" (perfcompat.LatencyLabel)
// with the name as the tables print it (termsafe.Name: a backslash
// doubled, where perf's own table keeps it).
func rowLabel(r *LatencyRow) string {
	return perfcompat.LatencyLabel(termsafe.Name(r.Comm), int64(r.TID), r.NrTasks)
}

// recoveredOver returns, over rows, the delays whose switch-in the trace
// lacks (LatencyRow.Recovered, in Count; all of them, as the -v warning
// counts them) and how many rows they lift above their recorded switch-ins
// (Count > Switches), which a reader takes for an impossible count; 0, 0
// when they lift none.
func recoveredOver(rows []LatencyRow) (n int64, over int) {
	for i := range rows {
		r := &rows[i]
		n += r.Recovered // (all of them: the -v warning's count, new-user pass 120 F5)
		if r.Recovered > 0 && r.Count > r.Switches {
			over++
		}
	}
	if over == 0 {
		return 0, 0
	}
	return n, over
}

// WriteLatencyTable prints res as the latency table. perfStyle prints
// exactly perf 6.12's layout and its INFO lines (no Sum column; perf's own
// fixed layout, writePerfLatencyTable); otherwise the table has the
// LatencyColumns with a TableCell (the Sum delay column, and the
// percentiles with LatencyOptions.Percentiles) and warnings are left to the
// caller (they go to stderr in the CLI).
func WriteLatencyTable(w io.Writer, res *LatencyResult, perfStyle bool) error {
	if perfStyle {
		return writePerfLatencyTable(w, res)
	}
	bw := bufio.NewWriter(w)
	cols := latencyColumns(&res.Options, func(c *LatencyColumn) bool { return c.Table != nil })
	// perf's 24 columns for the name, wider when an escaped name needs
	// more (a name of 15 control bytes is 60 columns: it shifted its row;
	// new-user pass 28 F9).
	nameWidth := 24
	for i := range res.Rows {
		nameWidth = max(nameWidth, termsafe.Width(rowLabel(&res.Rows[i])))
	}
	var hb strings.Builder
	hb.WriteString(termsafe.PadRight("  Task", nameWidth))
	for i, c := range cols {
		width := c.Table.Width
		if i == len(cols)-1 {
			width--
		}
		cell := "|" + c.Table.Head
		hb.WriteString(cell + strings.Repeat(" ", max(0, width-len(cell))))
	}
	hb.WriteString("|")
	header := hb.String()
	dashes := " " + strings.Repeat("-", len(header)-2) + "\n"
	bw.WriteString("\n" + dashes + header + "\n" + dashes)
	for i := range res.Rows {
		r := &res.Rows[i]
		bw.WriteString(termsafe.PadRight(rowLabel(r), nameWidth))
		for j, c := range cols {
			cell := c.Table.Format(c.Int(r))
			if unknownIn(c, r) && !res.Options.PerfCompat {
				cell = dashNumber(cell)
			}
			bw.WriteString("|" + cell)
			if j < len(cols)-1 {
				bw.WriteString(" ")
			}
		}
		bw.WriteString("\n")
	}
	// The TOTAL line stops after the last column with a total; the cells
	// before it without one are blank.
	last := -1
	for j, c := range cols {
		if c.Total != nil {
			last = j
		}
	}
	var tb strings.Builder
	tb.WriteString(termsafe.PadRight("  TOTAL:", nameWidth))
	for _, c := range cols[:last+1] {
		if c.Total == nil {
			tb.WriteString("|" + strings.Repeat(" ", c.Table.Width-1))
		} else {
			tb.WriteString("|" + c.Table.Format(c.Total(&res.Total)) + " ")
		}
	}
	tb.WriteString("|")
	dashes2 := " " + strings.Repeat("-", tb.Len()-1) + "\n"
	bw.WriteString(dashes2 + tb.String() + "\n" + dashes2)
	if n, rows := recoveredOver(res.Rows); rows > 0 {
		// (new-user pass 118 F4: 2502 delays beside 2494 switch-ins,
		// explained in the JSON only.)
		fmt.Fprintf(bw, "  Count includes %s the trace lacks (closed at the task's first event on its CPU): %s more delays than switch-ins\n",
			plural(int(n), "delay whose switch-in", "delays whose switch-ins"), plural(rows, "row counts", "rows count"))
	}
	if res.DeadlineThrottled {
		bw.WriteString("  Throttled ms of a SCHED_DEADLINE task (prio -1): switched out runnable with its runtime used, it waited\n" +
			"  for its replenishment (the next period), not for a CPU.\n")
	}
	if len(res.IdleTasks) > 0 {
		bw.WriteString("  SCHED_IDLE (weight 3, behind every other runnable task by design): " + namesList(res.IdleTasks) + "\n")
	}
	if len(res.BatchTasks) > 0 {
		bw.WriteString("  SCHED_BATCH (its wakeups do not preempt the running task): " + namesList(res.BatchTasks) + "\n")
	}
	if len(res.Cgroups) > 0 {
		bw.WriteString("\n")
		if f := res.Options.Filter; f != nil && (f.PIDs != nil || f.TIDs != nil || f.Comms != nil) {
			// (new-user pass 85 F6: the whole trace's groups under a
			// filtered, or empty, task table, said only in docs/filters.md.)
			bw.WriteString("  Task groups: every task of each group, not only the rows above (--pid, --tid and --comm select task rows; --cgroup selects groups)\n")
		}
		WriteCgroupTable(bw, res.Cgroups)
		for _, l := range res.WhatIfGroups {
			bw.WriteString("  " + l + "\n")
		}
	}
	return bw.Flush()
}

// namesList joins task names for a note under the table, each made safe
// for a terminal (termsafe.Name: a name may hold control characters or
// commas): the first 8, then how many more.
func namesList(names []string) string {
	var out []string
	for _, n := range names[:min(len(names), 8)] {
		out = append(out, termsafe.Name(n))
	}
	if len(names) > 8 {
		return strings.Join(out, ", ") + fmt.Sprintf(" and %d more", len(names)-8)
	}
	return strings.Join(out, ", ")
}

// WriteCgroupTable prints one line per task group: its CPU use, its tasks'
// delays and its inferred throttling (see throttle.go), with the quota as
// known and where it came from.
func WriteCgroupTable(w io.Writer, groups []CgroupThrottle) {
	width := len("Task group")
	for _, g := range groups {
		width = max(width, termsafe.Width(termsafe.Label(g.Path)))
	}
	wwidth := len("Weight")
	for i := range groups {
		wwidth = max(wwidth, len(groups[i].WeightText()))
	}
	fmt.Fprintf(w, "  %-*s | %12s | %9s | %12s | %12s | %11s | %13s | %*s | %s\n", width, "Task group",
		"Runtime ms", "CPUs used", "Avg delay ms", "Max delay ms", "Throttled", "Throttled ms", wwidth, "Weight", "Quota")
	unknown := false
	for i := range groups {
		g := &groups[i]
		avg := int64(0)
		if g.Delays > 0 {
			avg = g.SumDelay / g.Delays
		}
		// No delay measured: "-", as the task rows print it, not 0.000
		// (new-user pass 23 F5).
		avgCell, maxCell := fmt.Sprintf("%12.3f", ms(avg)), fmt.Sprintf("%12.3f", ms(g.MaxDelay))
		if g.Delays == 0 {
			avgCell, maxCell = fmt.Sprintf("%12s", "-"), fmt.Sprintf("%12s", "-")
		}
		thrCell, thrMsCell := fmt.Sprintf("%3d periods", g.ThrottledPeriods), fmt.Sprintf("%13.3f", ms(g.Throttled))
		if g.Settings == AutogroupSettings || g.NotModelled() {
			thrCell, thrMsCell = fmt.Sprintf("%11s", "-"), fmt.Sprintf("%13s", "-") // never throttled
		}
		fmt.Fprintf(w, "  %s | %12.3f | %9.3f | %s | %s | %s | %s | %*s | %s\n", termsafe.PadRight(termsafe.Label(g.Path), width),
			ms(g.Runtime), g.CPUs, avgCell, maxCell, thrCell, thrMsCell, wwidth, g.WeightText(), quotaText(g))
		unknown = unknown || g.Settings == "unknown"
	}
	fmt.Fprintln(w, "  Throttled: periods the group spent throttled (cpu.stat nr_throttled) and throttled time summed over")
	fmt.Fprintln(w, "  CPUs (cpu.stat throttled_time), inferred from the schedule. A task's Throttled ms is the part of its own")
	fmt.Fprintln(w, "  delays spent throttled: tasks queued together through one throttle each count all of it.")
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.ThrottledCounted }) {
		fmt.Fprintln(w, "  Of a prediction: the groups' Throttled figures are the replay's own count of the throttles it simulated (its")
		fmt.Fprintln(w, "  cpu.stat), not inferred; its tasks' Throttled ms are still inferred.")
	}
	fmt.Fprintln(w, "  Weight: cpu.weight (100 the default; v1 cpu.shares in parentheses, 1024 = weight 100); \"-\": not recorded or stated.")
	// (new-user pass 76 F1: the rows' 4115.323 ms against TOTAL's 4138.098,
	// the root's kernel threads nowhere said.)
	fmt.Fprintln(w, "  The root group, /, where kernel threads and tasks of no other group run, is not a row (it has no quota): the")
	fmt.Fprintln(w, "  rows' run times need not add up to TOTAL; 'traceview latency --by cgroup' shows it.")
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.Subtree }) {
		fmt.Fprintln(w, "  \"with the groups below it\": a parent group's line counts its whole subtree (they share its weight and quota),")
		fmt.Fprintln(w, "  which its children's lines count again.")
	}
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.Predicted }) {
		// (new-user pass 29 F10: 0.952 CPUs predicted beside 1.449
		// recorded for the same run time.)
		// (new-user pass 39 F2: "spans its input's trace" was untrue of
		// one whose tasks outside the workload ran on 0.8 s past it.)
		fmt.Fprintln(w, "  A prediction's span is its own, first to last event (its input's trace, or longer where a task ran on past it):")
		fmt.Fprintln(w, "  CPUs used is over that span, not over the predicted makespan that replay printed.")
	}
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.Autogroup && !g.inferredSession() }) {
		fmt.Fprintln(w, "  /autogroup-N: a session's autogroup (kernel.sched_autogroup_enabled), which traceview record read for each process")
		fmt.Fprintln(w, "  of the root cpu group; its nice sets its weight (nice 0 = 100) and it has no quota, so it is never throttled.")
	}
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.Autogroup && g.inferredSession() }) {
		fmt.Fprintln(w, "  /autogroup-N, nice assumed: a session the replay inferred from setsid in the recording's process tree (the")
		fmt.Fprintln(w, "  recording read no autogroup) and scheduled as an autogroup, at nice 0; its source's reports show no such group.")
	}
	if slices.ContainsFunc(groups, func(g CgroupThrottle) bool { return g.Partial }) {
		fmt.Fprintln(w, "  Of a --time window or some CPUs: the throttles are inferred from the whole trace and counted for their part")
		fmt.Fprintln(w, "  inside the window on those CPUs' runqueues (a period by its boundary there); a CPU the recording left out is not seen.")
	}
	for i := range groups {
		if k := groups[i].Kernel; k != nil {
			over := "between the trace's first and last reading"
			if groups[i].KernelWholeTrace {
				// (new-user pass 23 F10: read as the window's.)
				over += ": the whole trace, not this window or these CPUs"
			}
			if of := groups[i].KernelOf; of != "" {
				over = "in the " + of + " that hold its readings (the throttling above is of all of them), " + over
			}
			fmt.Fprintf(w, "  %s: %s's cpu.stat counted %d throttled periods of %d, %.3f ms throttled, %s\n",
				termsafe.Label(groups[i].Path), groups[i].CPUStatBy(), k.NrThrottled, k.NrPeriods, ms(k.ThrottledNS), over)
			if note := groups[i].KernelNote; note != "" {
				fmt.Fprintf(w, "  %s: %s\n", termsafe.Label(groups[i].Path), note)
			}
		}
	}
	// The groups whose note is one every such group has (noKernelNote,
	// noReadingNote, nestedUnknownNote) alone: one line for them all.
	bare := map[string][]string{}
	for i := range groups {
		switch note := groups[i].QuotaNote; note {
		case "":
		case noKernelNote, noReadingNote, nestedUnknownNote:
			bare[note] = append(bare[note], termsafe.Label(groups[i].Path))
		default:
			fmt.Fprintf(w, "  %s: %s\n", termsafe.Label(groups[i].Path), note)
		}
	}
	for _, note := range []string{noKernelNote, noReadingNote, nestedUnknownNote} {
		if len(bare[note]) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(bare[note], ", "), note)
		}
	}
	for i := range groups {
		if g := &groups[i]; g.LostWindows > 0 {
			lost := fmt.Sprintf("%d events", g.LostEvents)
			if g.LostEvents == 0 {
				lost = "events (number unknown)"
			}
			fmt.Fprintf(w, "  %s: the recording lost %s in %s while the group ran: a throttle there does not show, so its throttled periods and ms are a lower bound\n",
				termsafe.Label(g.Path), lost, plural(g.LostWindows, "window", "windows"))
		}
	}
	if unknown {
		fmt.Fprintln(w, "  Quota unknown: throttles inferred only where runnable tasks were left for an idle CPU;")
		fmt.Fprintln(w, "  --recorded-cgroup PATH:max=QUOTA/PERIOD states it (PATH:max=max: no quota) and also finds throttles where the CPU ran other groups.")
	}
}

// KernelAgreement is how far the inferred throttled time of a group may
// lie from its cpu.stat's, either way, before the table says so: 5%. The
// recordings that carry cpu.stat agree within 2% where the quota'd group
// ran beside idle CPUs (quota-siblings.tv 1.02, issue 28's cg.tv 1.00,
// grpq1.q25 0.96); one where the group also lost CPU to a heavier group
// on both CPUs found half (0.50), which the table gave without a word.
// It was 20% until new-user passes 34 and 35: a prediction's table read
// 11% above (F1) and 9-14% below (pass 35 F2) the replay's own cpu.stat
// printed under it, and said nothing.
const KernelAgreement = 0.05

// kernelPeriodsAgreement is the same for the throttled periods: 20%, as
// they are few (12 of the kernel's 15 on grpq1.q25, with the time 0.96x).
const kernelPeriodsAgreement = 0.20

// CPUStatBy names who counted Kernel: "the kernel", or "the replay" for a
// prediction's (KernelPredicted).
func (g *CgroupThrottle) CPUStatBy() string {
	if g.KernelPredicted {
		return "the replay"
	}
	return "the kernel"
}

// kernelDisagrees returns the note for a group whose inferred throttled
// time lies more than KernelAgreement (or its periods more than
// kernelPeriodsAgreement) from what its cpu.stat counted over the trace
// (Kernel), or "" when it does not or the kernel's is unknown.
func kernelDisagrees(g *CgroupThrottle) string {
	k := g.Kernel
	if k == nil {
		return ""
	}
	by := g.CPUStatBy()
	off := func(got, want int64, by float64) bool {
		return math.Abs(float64(got-want)) > by*float64(max(want, 1))
	}
	if !off(g.Throttled, k.ThrottledNS, KernelAgreement) && !off(g.ThrottledPeriods, int64(min(k.NrThrottled, math.MaxInt64)), kernelPeriodsAgreement) {
		return ""
	}
	if k.ThrottledNS == 0 && k.NrThrottled > 0 {
		// (A percentage of nothing again, "4808528200%": new-user pass 34
		// F4, a replay on 1 CPU whose throttled group was never picked
		// while throttled.)
		return fmt.Sprintf("%s's cpu.stat counted %d throttled periods with no throttled time: from v6.18 a CPU's throttled time starts only when a task of the group is throttled (picked, then held on its way back to user space: \"task based throttle time accounting\", kernel/sched/fair.c), and in those periods none was picked before the refill; the %s ms the inference found were waits for CPUs that other groups held",
			by, k.NrThrottled, fmt.Sprintf("%.3f", ms(g.Throttled)))
	}
	if k.ThrottledNS == 0 && k.NrThrottled == 0 {
		// (A percentage of nothing: "287183382600%".)
		why := "its waits were contention, or a throttle of a parent group's quota that the trace does not record (state it with --recorded-cgroup PARENT:max=QUOTA/PERIOD)"
		switch {
		case g.KernelPredicted:
			// The replay counts every throttle of every quota it
			// models (new-user pass 72 F4: a parent's quota advised for
			// a group under the root, whose own quota was recorded).
			why = "its waits were for CPUs other groups held, which the inference took for throttles; the replay's counts are exact"
		case !strings.Contains(strings.Trim(g.Path, "/"), "/") && g.QuotaNS < 0:
			why = "the group has no quota of its own and no parent group but the root: its waits were contention"
		case !strings.Contains(strings.Trim(g.Path, "/"), "/"):
			why = "its waits were contention (the group's parent is the root, which has no quota)"
		case g.QuotaNS < 0:
			why = "the group has no quota of its own: its waits were contention, or a throttle of a parent group's quota that the trace does not record (state it with --recorded-cgroup PARENT:max=QUOTA/PERIOD)"
		}
		return fmt.Sprintf("the inference found %d throttled periods, %s ms, where %s counted none: %s", g.ThrottledPeriods, fmt.Sprintf("%.3f", ms(g.Throttled)), by, why)
	}
	if g.QuotaChange() != "" {
		// (Not contention: new-user pass 28 F5 found 0 of the
		// kernel's 14 under the last of two quotas, no limit.)
		how := "applied each quota from the reading that saw it (within 100 ms of the change)"
		if !g.QuotaDated {
			how = "held the start's quota for every event: the change was read only as the recording ended, when it came is not recorded"
		}
		return fmt.Sprintf("the inference found %.0f%% of that throttled time (%d periods): the quota changed during the trace and the analysis %s; take %s's figures",
			100*float64(g.Throttled)/float64(max(k.ThrottledNS, 1)), g.ThrottledPeriods, how, by)
	}
	if g.Throttled < k.ThrottledNS {
		return fmt.Sprintf("the inference found %.0f%% of that throttled time (%d periods): the schedule shows a throttle only where the group's tasks wait with its quota used up, and where other groups kept its CPUs busy a throttle can hide in that contention; take %s's figures, and each task's Throttled ms as a lower bound",
			100*float64(g.Throttled)/float64(max(k.ThrottledNS, 1)), g.ThrottledPeriods, by)
	}
	// (Over the kernel's: waits taken for throttles that were contention,
	// or a CPU's group runqueue counted from its first throttled wait to
	// the throttle's end where the kernel counted a shorter stretch: a
	// pipeline's blocked stages, new-user pass 20 F1, 188 % with nothing
	// else running.)
	return fmt.Sprintf("the inference found %.0f%% of that throttled time (%d periods): it took some waits for throttles that were contention, or counted a CPU's part of a throttle longer than %s did; take %s's figures",
		100*float64(g.Throttled)/float64(max(k.ThrottledNS, 1)), g.ThrottledPeriods, by, by)
}

// inferredSession reports whether the group is an autogroup a replay
// inferred from setsid (replay.inferSessions: its weight's source says
// so), not one a recording read.
func (g *CgroupThrottle) inferredSession() bool {
	return g.Autogroup && strings.Contains(g.WeightSettings, "inferred from setsid")
}

// WeightText is the group's weight cell: "200", "200 (shares 2048)" for a
// v1 group, "-" unknown; "stated" is added for a --recorded-cgroup one.
func (g *CgroupThrottle) WeightText() string {
	if g.Weight <= 0 {
		return "-"
	}
	s := strconv.Itoa(g.Weight)
	switch {
	case g.Autogroup && g.Weight == trace.AutogroupWeight(g.Nice) && g.inferredSession():
		// Its nice is not recorded (new-user pass 72 F2: "nice 0"
		// read as read).
		s += fmt.Sprintf(" (nice %d assumed)", g.Nice)
	case g.Autogroup && g.Weight == trace.AutogroupWeight(g.Nice):
		s += fmt.Sprintf(" (nice %d)", g.Nice)
	case g.Autogroup:
		// (A weight no nice gives: a replay's what-if.)
	case g.Shares > 0:
		s += fmt.Sprintf(" (shares %d)", g.Shares)
	}
	switch {
	case g.WeightSettings == "stated":
		s += ", stated"
	case strings.HasPrefix(g.WeightSettings, "what-if"):
		s += ", what-if"
	}
	return s
}

// quotaText says a group's quota and where it came from.
func quotaText(g *CgroupThrottle) string {
	var q string
	switch {
	case g.Settings == "unknown":
		q = "unknown"
	case g.Settings == AutogroupSettings:
		q = "none (autogroup)"
	case g.NotModelled():
		q = "not modelled (the replay's policy ran every task as a peer)"
	case g.QuotaNS < 0:
		q = "max (no limit), " + g.Settings
	default:
		q = fmt.Sprintf("%s/%s, %s", durText(g.QuotaNS), durText(g.PeriodNS), g.Settings)
	}
	if c := g.QuotaChange(); c != "" {
		q += "; " + c
	}
	if g.WeightChange != "" {
		q += "; " + g.WeightChange
	}
	if d := g.QuotaDiffers(); d != "" {
		// (In place of the first trace's, before the notes.)
		q = d + ", " + g.Settings + strings.TrimPrefix(q, strings.SplitN(q, ";", 2)[0])
	}
	if g.ThrottledBy != "" {
		q += "; under " + g.ThrottledBy + "'s quota"
	}
	if g.AlsoUnder != "" {
		q += "; also under " + g.AlsoUnder + "'s quota"
	}
	if g.Subtree {
		q += "; with the groups below it"
	}
	if g.MixedBasis {
		q += "; its traces count it with the groups below it in some, its own tasks in others: the figures mix the two"
	}
	return q
}

// durText prints ns as the shortest of ms or µs that is exact.
func durText(ns int64) string {
	if ns%1_000_000 == 0 {
		return fmt.Sprintf("%dms", ns/1_000_000)
	}
	return fmt.Sprintf("%dus", ns/1000)
}

// writePerfLatencyTable prints perf 6.12's own latency table of res, byte
// for byte (perfcompat.WriteLatency).
func writePerfLatencyTable(w io.Writer, res *LatencyResult) error {
	t := &perfcompat.LatencyTable{Rows: make([]perfcompat.LatencyLine, len(res.Rows)),
		TotalRuntime: res.Total.Runtime, TotalCount: res.Total.Count, Info: perfInfo(&res.Diag)}
	for i := range res.Rows {
		r := &res.Rows[i]
		t.Rows[i] = perfcompat.LatencyLine{Comm: r.Comm, TID: int64(r.TID), NrTasks: r.NrTasks,
			Runtime: r.Runtime, Count: r.Count, AvgDelay: r.AvgDelay, MaxDelay: r.MaxDelay,
			MaxDelayStart: r.MaxDelayStart, MaxDelayEnd: r.MaxDelayEnd}
	}
	return perfcompat.WriteLatency(w, t)
}

// perfInfo returns the counters of perf's INFO lines in d.
func perfInfo(d *LatencyDiagnostics) perfcompat.LatencyInfo {
	return perfcompat.LatencyInfo{Timestamps: d.PerfTimestamps, Unordered: d.PerfUnordered, SwitchBugs: d.PerfSwitchBugs,
		LostEvents: d.LostEvents, Events: d.Events, LostChunks: d.LostChunks}
}

// writePerfInfo prints perf's print_bad_events lines for d.
func writePerfInfo(w io.Writer, d *LatencyDiagnostics) {
	in := perfInfo(d)
	perfcompat.WriteLatencyInfo(w, &in)
}

// LatencyJSON is the -o json document: integers in ns.
type LatencyJSON struct {
	Tasks    []LatencyJSONRow `json:"tasks"`
	Total    LatencyJSONTotal `json:"total"`
	Warnings []trace.Warning  `json:"warnings"`
	// Lost: the recorder's lost-event windows (omitted when none).
	Lost []LatencyJSONLost `json:"lost,omitempty"`
	// Filter is what LatencyOptions.Filter selected, a percentage window
	// resolved to ns (omitted without a filter).
	Filter *LatencyJSONFilter `json:"filter,omitempty"`
	// Cgroups: per task group (not the root), its CPU use and inferred
	// throttling (omitted when the trace records no groups).
	Cgroups []CgroupThrottle `json:"cgroups,omitempty"`
	// WhatIfGroups: a prediction's groups a what-if set that are no row
	// of Cgroups, one line each (LatencyResult.WhatIfGroups; omitted when
	// none).
	WhatIfGroups []string `json:"what_if_groups,omitempty"`
	// DeadlineThrottled: some rows' throttled_ns are SCHED_DEADLINE waits
	// for a replenishment (LatencyResult.DeadlineThrottled; omitted when
	// none).
	DeadlineThrottled bool `json:"deadline_throttled,omitempty"`
	// SchedIdleTasks and SchedBatchTasks name the tasks recorded under
	// SCHED_IDLE and SCHED_BATCH (LatencyResult.IdleTasks, BatchTasks;
	// eBPF captures only; omitted when none).
	SchedIdleTasks  []string `json:"sched_idle_tasks,omitempty"`
	SchedBatchTasks []string `json:"sched_batch_tasks,omitempty"`
}

// LatencyJSONFilter is the filter of a latency report (schedule.Filter):
// the window in trace ns, both ends inclusive (0: open), and the CPU,
// process, thread and command-name lists (omitted: all).
type LatencyJSONFilter struct {
	StartNs int64       `json:"start_ns"`
	EndNs   int64       `json:"end_ns"`
	CPUs    []trace.CPU `json:"cpus,omitempty"`
	PIDs    []trace.PID `json:"pids,omitempty"`
	TIDs    []trace.TID `json:"tids,omitempty"`
	Comms   []string    `json:"comms,omitempty"`
}

// LatencyJSONLost is one lost-event window: Count events lost on CPU (-1:
// unknown) between StartNs and EndNs.
type LatencyJSONLost struct {
	CPU     int    `json:"cpu"`
	Count   uint64 `json:"count"`
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
}

// LatencyJSONRow is one row of LatencyJSON; pid is perf's: the task's TID,
// 0 for a merged row. Percentiles appear with --percentiles only.
type LatencyJSONRow struct {
	Comm            string `json:"comm"`
	PID             int64  `json:"pid"`
	NrTasks         int    `json:"nr_tasks"`
	RuntimeNs       int64  `json:"runtime_ns"`
	Count           int64  `json:"count"`
	Switches        int64  `json:"switches"`
	AvgDelayNs      int64  `json:"avg_delay_ns"`
	MaxDelayNs      int64  `json:"max_delay_ns"`
	SumDelayNs      int64  `json:"sum_delay_ns"`
	MaxDelayStartNs int64  `json:"max_delay_start_ns"`
	MaxDelayEndNs   int64  `json:"max_delay_end_ns"`
	P50DelayNs      *int64 `json:"p50_delay_ns,omitempty"`
	P95DelayNs      *int64 `json:"p95_delay_ns,omitempty"`
	P99DelayNs      *int64 `json:"p99_delay_ns,omitempty"`
	P999DelayNs     *int64 `json:"p999_delay_ns,omitempty"`
	// RuntimeSource says where runtime_ns comes from: "sched_stat_runtime"
	// or, when the trace has none, "switches" (on-CPU time between the
	// task's switch-in and switch-out). Omitted with --perf.
	RuntimeSource string `json:"runtime_source,omitempty"`
	// LossyDelays: the row's delays left out because they overlapped lost
	// events (with --keep-lossy: kept, and still counted here);
	// LossyRuntimeEvents: its sched_stat_runtime events left out of
	// runtime_ns. Omitted with --perf.
	LossyDelays        *int64 `json:"lossy_delays,omitempty"`
	LossyRuntimeEvents *int64 `json:"lossy_runtime_events,omitempty"`
	// Extra holds the integer fields of the LatencyColumns that have no
	// field above, by key (JSON: after the fields above, in column order).
	// A column added to LatencyColumns appears here without a change to
	// this type.
	Extra map[string]int64 `json:"-"`
}

// LatencyJSONTotal is the total of LatencyJSON.
type LatencyJSONTotal struct {
	RuntimeNs  int64 `json:"runtime_ns"`
	Count      int64 `json:"count"`
	Switches   int64 `json:"switches"`
	SumDelayNs int64 `json:"sum_delay_ns"`
}

func rowTID(r *LatencyRow) int64 {
	if r.NrTasks > 1 {
		return 0
	}
	return int64(r.TID)
}

// JSON returns the -o json document of res: per row, the LatencyColumns
// with JSON set, in their order.
func (res *LatencyResult) JSON() LatencyJSON {
	doc := LatencyJSON{Tasks: []LatencyJSONRow{}, Warnings: res.Warnings}
	if doc.Warnings == nil {
		doc.Warnings = []trace.Warning{}
	}
	cols := latencyColumns(&res.Options, func(c *LatencyColumn) bool { return c.JSON })
	for i := range res.Rows {
		r := &res.Rows[i]
		var jr LatencyJSONRow
		v := reflect.ValueOf(&jr).Elem()
		for _, c := range cols {
			if c.OmitJSON != nil && c.OmitJSON(r) {
				continue
			}
			f, ok := latencyJSONFields[c.Key]
			if !ok {
				if jr.Extra == nil {
					jr.Extra = map[string]int64{}
				}
				jr.Extra[c.Key] = c.Int(r)
				continue
			}
			setJSONField(v.Field(f), c, r)
		}
		doc.Tasks = append(doc.Tasks, jr)
	}
	if res.Meta != nil {
		for _, lw := range res.Meta.Lost {
			doc.Lost = append(doc.Lost, LatencyJSONLost{CPU: int(lw.CPU), Count: lw.Count, StartNs: lw.Start, EndNs: lw.End})
		}
	}
	doc.Total = LatencyJSONTotal{RuntimeNs: res.Total.Runtime, Count: res.Total.Count,
		Switches: res.Total.Switches, SumDelayNs: res.Total.SumDelay}
	doc.Cgroups, doc.WhatIfGroups = res.Cgroups, res.WhatIfGroups
	doc.DeadlineThrottled = res.DeadlineThrottled
	doc.SchedIdleTasks, doc.SchedBatchTasks = res.IdleTasks, res.BatchTasks
	if f := res.Options.Filter; f.Active() {
		doc.Filter = &LatencyJSONFilter{StartNs: f.Start, EndNs: f.End, CPUs: f.CPUs, PIDs: f.PIDs, TIDs: f.TIDs, Comms: f.Comms}
	}
	return doc
}

// latencyJSONFields maps a JSON key to the index of its LatencyJSONRow
// field.
var latencyJSONFields = jsonFields(reflect.TypeOf(LatencyJSONRow{}))

// MarshalJSON writes the fields, then Extra in the order of
// LatencyColumns (keys no column has last, sorted).
func (jr LatencyJSONRow) MarshalJSON() ([]byte, error) {
	type plain LatencyJSONRow
	return marshalExtra(plain(jr), jr.Extra, func(c *LatencyColumn) string { return c.Key })
}

// UnmarshalJSON reads the fields, and every other integer field into
// Extra.
func (jr *LatencyJSONRow) UnmarshalJSON(b []byte) error {
	type plain LatencyJSONRow
	var err error
	if jr.Extra, err = unmarshalExtra[int64](b, (*plain)(jr), latencyJSONFields); err != nil {
		return fmt.Errorf("latency row: %w", err)
	}
	return nil
}

// WriteLatencyJSON writes res as indented JSON.
func WriteLatencyJSON(w io.Writer, res *LatencyResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res.JSON())
}

// WriteLatencyCSV writes res as CSV: a header of the JSON keys of the
// LatencyColumns with CSV set and one line per task row, one kind of row
// only: the totals are in the table and the JSON ("total"), not here, where
// a TOTAL line could not be told from a task named TOTAL. Warnings are not
// part of the CSV.
func WriteLatencyCSV(w io.Writer, res *LatencyResult) error {
	cw := csv.NewWriter(w)
	cols := latencyColumns(&res.Options, func(c *LatencyColumn) bool { return c.CSV })
	rec := make([]string, len(cols))
	for j, c := range cols {
		rec[j] = c.Key
	}
	cw.Write(rec)
	for i := range res.Rows {
		r := &res.Rows[i]
		for j, c := range cols {
			rec[j] = c.text(r)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// dashNumber replaces the number in a formatted cell (" max:   0.000 ms")
// by a "-" right-aligned in its place (" max:       - ms"), keeping the
// cell's width.
func dashNumber(cell string) string {
	i := strings.IndexAny(cell, "0123456789")
	if i < 0 {
		return cell
	}
	j := i
	for j < len(cell) && (cell[j] >= '0' && cell[j] <= '9' || cell[j] == '.') {
		j++
	}
	return cell[:i] + strings.Repeat(" ", j-i-1) + "-" + cell[j:]
}
