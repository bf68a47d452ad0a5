package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
)

func compareNote(r *CompareRow) string {
	switch {
	case r.A == nil:
		return "only in B"
	case r.B == nil:
		return "only in A"
	}
	return ""
}

// compareValue renders the figure of column c of s; times in ms (the unit
// is in the column header).
func compareValue(s *CompareSide, c *LatencyColumn) string {
	if s == nil || unmeasuredDelays(s, c) {
		return "-"
	}
	v := s.value(c)
	if c.Kind != ColumnDuration {
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprintf("%.3f", float64(v)/1e6)
}

// unmeasuredDelays reports whether c is a figure of the delays
// (LatencyColumn.OfDelays: average, maximum, percentiles) of a side with
// none measured: "-" (empty in CSV), as latency prints it, not a 0.000 ms
// that reads as a measured delay (new-user pass 46 F3).
func unmeasuredDelays(s *CompareSide, c *LatencyColumn) bool { return c.OfDelays && s.Count == 0 }

func compareRatioText(r *float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *r)
}

// WriteCompareTable prints the comparison for people: per command name the
// A and B values and B/A of each figure (times in ms), rows found in one
// trace only marked as such, then the TOTAL row and a one-line summary of
// the total ratios in the style of mailing-list reports.
func WriteCompareTable(w io.Writer, res *CompareResult, nameA, nameB string) error {
	fmt.Fprintf(w, "A: %s%s\nB: %s%s\n\n", nameA, res.SpanA.text(), nameB, res.SpanB.text())
	// The table goes through a buffer so that each line loses the
	// padding of the note column, right-aligned and empty on most rows.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	hdr := []string{"Task"}
	for _, c := range compareFigures {
		u := ""
		if c.Kind == ColumnDuration {
			u = " ms"
		}
		hdr = append(hdr, c.Compare.Name+" A"+u, "B"+u, "B/A")
	}
	hdr = append(hdr, "")
	fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
	row := func(r *CompareRow) {
		cells := []string{termsafe.Label(r.Comm)}
		for _, c := range compareFigures {
			cells = append(cells, compareValue(r.A, c), compareValue(r.B, c), compareRatioText(r.Ratio.ratio(c)))
		}
		cells = append(cells, compareNote(r))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	for i := range res.Rows {
		row(&res.Rows[i])
	}
	row(&res.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	var parts []string
	for _, c := range compareFigures {
		parts = append(parts, c.Compare.Name+" "+compareRatioText(res.Total.Ratio.ratio(c)))
	}
	if _, err := fmt.Fprintf(w, "\nB/A: %s\n", strings.Join(parts, ", ")); err != nil {
		return err
	}
	if len(res.Cgroups) == 0 {
		return nil
	}
	return writeCompareCgroups(w, res.Cgroups)
}

// oneSidedAutogroups reports whether both traces have autogroups but
// some autogroup is in one trace only: their numbers are the kernel's
// counter, not the session's.
func oneSidedAutogroups(groups []CompareCgroup) bool {
	var a, b, one bool
	for _, c := range groups {
		if !trace.IsAutogroupPath(c.Path) {
			continue
		}
		a, b = a || c.A != nil, b || c.B != nil
		one = one || c.A == nil || c.B == nil
	}
	return a && b && one
}

// writeCompareCgroups prints the task groups of a comparison: per group
// the run time and sum delay of its tasks (ms) in A and B with B/A, its
// inferred throttled time (ms, summed over CPUs: cpu.stat throttled_time)
// in each, and each side's quota; then, for a group whose tasks waited
// throttled in either trace, how much of their delay that was.
func writeCompareCgroups(w io.Writer, groups []CompareCgroup) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Task group\tRuntime A ms\tB ms\tB/A\tSum delay A ms\tB ms\tB/A\tThrottled A ms\tB ms\tWeight A\tWeight B\tQuota A\tQuota B\t")
	figure := func(g *CgroupThrottle, f func(*CgroupThrottle) int64) string {
		if g == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", ms(f(g)))
	}
	ratio := func(c *CompareCgroup, f func(*CgroupThrottle) int64) string {
		if c.A == nil || c.B == nil || f(c.A) == 0 || c.A.Subtree != c.B.Subtree {
			// (Not on one basis: a subtree against its group's own
			// tasks, sameBasis could not rebuild it.)
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(f(c.B))/float64(f(c.A)))
	}
	quota := func(g *CgroupThrottle) string {
		if g == nil {
			return "-"
		}
		return quotaText(g)
	}
	weight := func(g *CgroupThrottle) string {
		if g == nil {
			return "-"
		}
		return g.WeightText()
	}
	runtime := func(g *CgroupThrottle) int64 { return g.Runtime }
	sumDelay := func(g *CgroupThrottle) int64 { return g.SumDelay }
	throttled := func(g *CgroupThrottle) int64 { return g.Throttled }
	for i := range groups {
		c := &groups[i]
		fmt.Fprintln(tw, strings.Join([]string{termsafe.Label(c.Path),
			figure(c.A, runtime), figure(c.B, runtime), ratio(c, runtime),
			figure(c.A, sumDelay), figure(c.B, sumDelay), ratio(c, sumDelay),
			figure(c.A, throttled), figure(c.B, throttled), weight(c.A), weight(c.B), quota(c.A), quota(c.B)}, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A side with no group line at all records none but the root's
	// (new-user pass 110 F2: a trace.dat of the same workload, beside a
	// .tv, read "none of its tasks" for a group whose tasks it held).
	noneA := !slices.ContainsFunc(groups, func(c CompareCgroup) bool { return c.A != nil })
	noneB := !slices.ContainsFunc(groups, func(c CompareCgroup) bool { return c.B != nil })
	switch {
	case noneA || noneB:
		side := "A"
		if noneB {
			side = "B"
		}
		fmt.Fprintf(w, "\nTask groups (cgroup; \"-\": none of its tasks in that trace; %s has no task group but the root, /):\n", side)
	default:
		fmt.Fprintln(w, "\nTask groups (cgroup; \"-\": none of its tasks in that trace):")
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		fmt.Fprintln(w, "  "+strings.TrimRight(line, " "))
	}
	if noneA || noneB {
		side := "A"
		if noneB {
			side = "B"
		}
		fmt.Fprintf(w, "  %s: no task group but the root: its tasks ran in /, or the trace does not record groups (trace.dat, text,\n", side)
		fmt.Fprintln(w, "  a perf.data recorded without --all-cgroups); compare the groups' tasks by name (the table above) instead.")
	}
	fmt.Fprintln(w, "  Throttled: time the group's runqueues spent throttled by a CPU quota, summed over CPUs (cpu.stat")
	counted := func(side func(CompareCgroup) *CgroupThrottle) bool {
		return slices.ContainsFunc(groups, func(c CompareCgroup) bool { g := side(c); return g != nil && g.ThrottledCounted })
	}
	switch a, b := counted(func(c CompareCgroup) *CgroupThrottle { return c.A }), counted(func(c CompareCgroup) *CgroupThrottle { return c.B }); {
	case a && b:
		// (new-user pass 108 F2: a prediction's throttles, its replay's
		// own count, said "inferred from each schedule".)
		fmt.Fprintln(w, "  throttled_time), the predictions' own count of the throttles they simulated; 'traceview latency --by cgroup' shows each trace's in full.")
	case a || b:
		side, other := "B", "A"
		if a {
			side, other = "A", "B"
		}
		fmt.Fprintf(w, "  throttled_time): in %s the prediction's own count of the throttles it simulated, in %s inferred from its schedule;\n  'traceview latency --by cgroup' shows each trace's in full.\n", side, other)
	default:
		fmt.Fprintln(w, "  throttled_time), inferred from each schedule; 'traceview latency --by cgroup' shows each trace's in full.")
	}
	if oneSidedAutogroups(groups) {
		// (new-user pass 28 F11: two recordings of one script, every
		// session "-" on one side.)
		fmt.Fprintln(w, "  /autogroup-N: the kernel numbers autogroups as sessions start (per boot), so one session of two recordings")
		fmt.Fprintln(w, "  has two numbers: compare its tasks (--comm, --pid) instead; a replay's prediction keeps its source's numbers.")
	}
	inferredOnly := func(side func(c *CompareCgroup) *CgroupThrottle, other func(c *CompareCgroup) *CgroupThrottle) bool {
		return slices.ContainsFunc(groups, func(c CompareCgroup) bool {
			return side(&c) != nil && side(&c).inferredSession() && other(&c) == nil
		})
	}
	if inferredOnly(func(c *CompareCgroup) *CgroupThrottle { return c.B }, func(c *CompareCgroup) *CgroupThrottle { return c.A }) ||
		inferredOnly(func(c *CompareCgroup) *CgroupThrottle { return c.A }, func(c *CompareCgroup) *CgroupThrottle { return c.B }) {
		// (new-user pass 72 F2: "-" read as the group's tasks missing
		// from the recording.)
		fmt.Fprintln(w, "  /autogroup-N with nice assumed: a session a replay inferred from setsid in its recording's process tree; the")
		fmt.Fprintln(w, "  recording itself read no autogroup, so its side shows \"-\" for a group whose tasks it holds.")
	}
	for i := range groups {
		c := &groups[i]
		if (c.A == nil || c.A.ThrottledDelay == 0) && (c.B == nil || c.B.ThrottledDelay == 0) {
			continue
		}
		side := func(g *CgroupThrottle, noGroups bool) string {
			if g == nil && noGroups {
				return "no group recorded"
			}
			if g == nil {
				return "none of its tasks"
			}
			return fmt.Sprintf("%.3f ms of %.3f ms", ms(g.ThrottledDelay), ms(g.SumDelay))
		}
		fmt.Fprintf(w, "  %s: its tasks' delay spent throttled: A %s, B %s\n", termsafe.Label(c.Path), side(c.A, noneA), side(c.B, noneB))
	}
	unknown := false
	for i := range groups {
		c := &groups[i]
		for _, s := range []struct {
			name string
			g    *CgroupThrottle
		}{{"A", c.A}, {"B", c.B}} {
			if s.g == nil {
				continue
			}
			unknown = unknown || s.g.Settings == "unknown"
			if s.g.QuotaNote != "" {
				fmt.Fprintf(w, "  %s in %s: %s\n", termsafe.Label(c.Path), s.name, s.g.QuotaNote)
			}
			if s.g.KernelNote != "" {
				// (new-user pass 30 F6: a prediction's throttle, which
				// the replay's cpu.stat counts, read 0 here with no
				// word.)
				k := s.g.Kernel
				fmt.Fprintf(w, "  %s in %s: %s's cpu.stat counted %d throttled periods of %d, %.3f ms throttled; %s\n",
					termsafe.Label(c.Path), s.name, s.g.CPUStatBy(), k.NrThrottled, k.NrPeriods, ms(k.ThrottledNS), s.g.KernelNote)
			}
		}
	}
	if unknown {
		fmt.Fprintln(w, "  Quota unknown (the trace records none: a perf.data, a .tv without its trailer): throttles inferred only where runnable tasks were left for an")
		fmt.Fprintln(w, "  idle CPU; --recorded-cgroup [A:|B:]PATH:max=QUOTA/PERIOD states it and also finds them where the CPU ran others.")
	}
	return nil
}

// WriteCompareCSV writes one line per command name, and no total line
// (res.Total is in the table and JSON): comm, presence (both, only_a, only_b), then per figure A, B and B/A
// (times in ns; an empty cell when absent).
func WriteCompareCSV(w io.Writer, res *CompareResult) error {
	cw := csv.NewWriter(w)
	hdr := []string{"comm", "presence"}
	for _, c := range compareFigures {
		n := c.ratioKey()
		if c.Kind == ColumnDuration {
			hdr = append(hdr, n+"_a_ns", n+"_b_ns", n+"_ratio")
		} else {
			hdr = append(hdr, n+"_a", n+"_b", n+"_ratio")
		}
	}
	if err := cw.Write(hdr); err != nil {
		return err
	}
	line := func(r *CompareRow) error {
		pres := "both"
		switch {
		case r.A == nil:
			pres = "only_b"
		case r.B == nil:
			pres = "only_a"
		}
		rec := []string{r.Comm, pres}
		for _, c := range compareFigures {
			for _, s := range []*CompareSide{r.A, r.B} {
				if s == nil || unmeasuredDelays(s, c) {
					rec = append(rec, "")
				} else {
					rec = append(rec, strconv.FormatInt(s.value(c), 10))
				}
			}
			if x := r.Ratio.ratio(c); x != nil {
				rec = append(rec, strconv.FormatFloat(*x, 'f', 6, 64))
			} else {
				rec = append(rec, "")
			}
		}
		return cw.Write(rec)
	}
	// Rows of one kind only, as latency's CSV: no TOTAL line (a command
	// may be named TOTAL; the total is in the table and in JSON).
	for i := range res.Rows {
		if err := line(&res.Rows[i]); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// text is the span as the compare table's header gives it beside the
// trace's name: "  (3.112 s: 41102.100 s to 41105.212 s)"; empty when
// unknown (nil, or a trace with no event).
func (sp *TraceSpan) text() string {
	if sp == nil || sp.EndNs <= sp.StartNs {
		return ""
	}
	return fmt.Sprintf("  (%s s: %s s to %s s)", trace.FormatSeconds(sp.EndNs-sp.StartNs, 3), trace.FormatSeconds(sp.StartNs, 3), trace.FormatSeconds(sp.EndNs, 3))
}
