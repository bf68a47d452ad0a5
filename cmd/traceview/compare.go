package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type compareOptions struct {
	output   string
	perf     bool
	filter   filterFlags
	recorded []string // --recorded-cgroup, as given
}

func init() {
	addCommand(func() *cobra.Command {
		var o compareOptions
		cmd := &cobra.Command{
			Use:   "compare A B [-o table|json|csv] [--time START,STOP] [--cpu LIST] [--pid|--tid LIST] [--comm NAMES]   (A, B: traces or globs of traces)",
			Short: "Compare two traces: runtime, switches and scheduling delay per command, as B/A",
			Long:  helpText("compare"),
			Args: func(cmd *cobra.Command, args []string) error {
				if len(args) != 2 {
					return usageErrorf("compare: want two traces A and B, got %d argument(s) (see 'traceview compare --help')", len(args))
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				return runCompare(cmd, o, args[0], args[1])
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv")
		f.BoolVar(&o.perf, "perf", false, "measure delays exactly as perf 6.12 does (see 'traceview latency --help')")
		addFilterFlags(f, &o.filter, nil)
		addCgroupFlag(f, &o.filter)
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "[A:|B:]PATH:max=QUOTA/PERIOD: a group's quota when recorded, where the trace does not carry it (perf.data), in both traces or, after A: or B:, in that one (repeatable; see 'traceview latency --help')")
		return cmd
	})
}

func runCompare(cmd *cobra.Command, o compareOptions, pathA, pathB string) error {
	switch o.output {
	case "table", "json", "csv":
	default:
		return usageErrorf("compare: unknown output format %q (want table, json or csv)", o.output)
	}
	if o.perf && o.filter.given() {
		return usageErrorf("compare: %s: perf's latency (--perf) has no filters; drop --perf or the filters", o.filter.names())
	}
	if err := o.filter.check("compare"); err != nil {
		return err
	}
	statedA, statedB, err := o.statedCgroups()
	if err != nil {
		return err
	}
	if isPattern(pathA) || isPattern(pathB) {
		return runCompareGroups(cmd, o, pathA, pathB, statedA, statedB)
	}
	a, err := openInputProgress(pathA)
	if err != nil {
		return fmt.Errorf("compare: %w", namedError(pathA, argTrace(err)))
	}
	defer a.Close()
	b, err := openInputProgress(pathB)
	if err != nil {
		return fmt.Errorf("compare: %w", namedError(pathB, argTrace(err)))
	}
	defer b.Close()
	fa, err := o.filter.resolve("compare: "+pathA, a.Meta())
	if err != nil {
		return err
	}
	fb, err := o.filter.resolve("compare: "+pathB, b.Meta())
	if err != nil {
		return err
	}
	// (The renamed tasks' notes, as latency's: compareRenamed.)
	var inA, inB trace.Source = a, b
	var namesA, namesB func() nameRuns
	if !o.perf {
		inA, namesA = watchNames(a, fa)
		inB, namesB = watchNames(b, fb)
	}
	res, err := report.Compare(inA, inB, report.CompareOptions{Latency: report.LatencyOptions{PerfCompat: o.perf, Filter: fa, Cgroups: statedA}, FilterB: fb, CgroupsB: statedB})
	if err != nil {
		// The readers' warnings first, in full (as readFailed), each line
		// naming its trace.
		for _, side := range []struct {
			name string
			src  trace.Source
		}{{pathA, a}, {pathB, b}} {
			for _, wn := range metaWarnings(side.src.Meta()) {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", namedWarning(side.name, side.name+": ", wn))
			}
		}
		// The error names the trace it is about, not its side or its
		// format ("trace A: after 32 events: perf.data: ...").
		var side *report.CompareReadError
		if errors.As(err, &side) {
			name := pathA
			if side.Side == "B" {
				name = pathB
			}
			err = namedError(name, side.Err)
		}
		return fmt.Errorf("compare: %w", err)
	}
	if err := checkComparedCgroups(res, o); err != nil {
		return err
	}
	if namesA != nil {
		compareRenamed(res, fa, fb, namesA(), namesB())
	}
	return writeCompare(cmd, o, res, pathA, pathB, true)
}

// compareRenamed adds to each trace's warnings latency's note on the tasks
// renamed during it (renamedWarning: "renamed-tasks", printed in full), whose
// rows compare shows under their last names (new-user pass 52 F4: a row
// flipEnd of 2008 ms where flipEnd itself ran 0.5 ms, and no note).
func compareRenamed(res *report.CompareResult, fa, fb *schedule.Filter, runsA, runsB nameRuns) {
	if wn, ok := renamedWarning(&report.LatencyResult{TaskRows: res.TaskRowsA, Unmatched: res.UnmatchedA}, fa, runsA); ok {
		res.WarningsA = append(res.WarningsA, wn)
	}
	if wn, ok := renamedWarning(&report.LatencyResult{TaskRows: res.TaskRowsB, Unmatched: res.UnmatchedB}, fb, runsB); ok {
		res.WarningsB = append(res.WarningsB, wn)
	}
}

// statedCgroups parses --recorded-cgroup: a value with no side prefix
// states the group's settings in both traces, one after "A:" or "B:" in
// that trace only (a path starts with "/", so the prefix cannot be part of
// it).
func (o compareOptions) statedCgroups() (a, b []trace.CgroupSettings, err error) {
	for _, v := range o.recorded {
		side, rest := recordedSide(v)
		cs, err := trace.ParseCgroupSettings(rest)
		if err != nil {
			return nil, nil, usageErrorf("compare: %w", err)
		}
		if o.perf {
			return nil, nil, usageErrorf("compare: --recorded-cgroup: perf's latency table (--perf) has no task groups; drop --perf")
		}
		if side != "B" {
			a = append(a, cs)
		}
		if side != "A" {
			b = append(b, cs)
		}
	}
	return a, b, nil
}

// recordedSide splits a --recorded-cgroup value into its trace ("A",
// "B", or "" for both) and the settings.
func recordedSide(v string) (side, rest string) {
	if s, r, ok := strings.Cut(v, ":"); ok && (s == "A" || s == "B") {
		return s, r
	}
	return "", v
}

// checkComparedCgroups rejects (exit 2), as latency does
// (checkStatedCgroups), a group stated for one trace that has no task of
// it, or stated for both that neither has: a typo would change nothing.
func checkComparedCgroups(res *report.CompareResult, o compareOptions) error {
	sides := [2][]report.CgroupThrottle{}
	for _, c := range res.Cgroups {
		for i, g := range []*report.CgroupThrottle{c.A, c.B} {
			if g != nil {
				sides[i] = append(sides[i], *g)
			}
		}
	}
	for _, v := range o.recorded {
		side, rest := recordedSide(v)
		cs, _ := trace.ParseCgroupSettings(rest) // (parsed before)
		inA, inB := hasCgroup(sides[0], cs.Path), hasCgroup(sides[1], cs.Path)
		switch {
		case side == "A" && !inA, side == "B" && !inB:
			held := groupsHeld(sides[0])
			if side == "B" {
				held = groupsHeld(sides[1])
			}
			return usageErrorf("compare: --recorded-cgroup %s: no task of trace %s ran in that cgroup; %s", v, side, held)
		case side == "" && !inA && !inB:
			return usageErrorf("compare: --recorded-cgroup %s: no task of either trace ran in that cgroup; A: %s; B: %s", v, groupsHeld(sides[0]), groupsHeld(sides[1]))
		}
	}
	return nil
}

// runCompareGroups compares two groups of traces (globs), each merged by
// report.MergeLatency.
func runCompareGroups(cmd *cobra.Command, o compareOptions, argA, argB string, statedA, statedB []trace.CgroupSettings) error {
	if o.perf {
		return usageErrorf("compare: --perf reproduces perf, which reads one trace a side; give two traces, not globs")
	}
	a, err := expandTraces("compare", argA)
	if err != nil {
		return err
	}
	b, err := expandTraces("compare", argB)
	if err != nil {
		return err
	}
	opts := report.LatencyOptions{Percentiles: true, KeepSamples: true}
	// Each side's files of one recording (a record --rotate series, ring
	// dumps) are read as the one capture they are.
	optsA, optsB := opts, opts
	optsA.Cgroups, optsB.Cgroups = statedA, statedB
	pa, err := readRecordings(cmd, a, optsA, &o.filter, "")
	if err != nil {
		return fmt.Errorf("compare: %w", argTrace(err))
	}
	pb, err := readRecordings(cmd, b, optsB, &o.filter, "")
	if err != nil {
		return fmt.Errorf("compare: %w", argTrace(err))
	}
	// A copy of a trace within a side (a convert copy, the same file
	// under two names) is read once, as latency reads it (new-user pass
	// 125 F1: its events counted twice in A, every A/B ratio wrong).
	pa, pb = dropSameRecordings(pa), dropSameRecordings(pb)
	parts := append(pa, pb...)
	side := func(ps []latencyPart) (*report.LatencyResult, error) {
		rs := make([]*report.LatencyResult, len(ps))
		for i := range ps {
			rs[i] = ps[i].res
		}
		m, err := report.MergeLatency(rs, opts)
		if err != nil {
			return nil, err
		}
		m.Warnings = partWarnings(ps)
		return m, nil
	}
	ma, err := side(parts[:len(pa)])
	if err != nil {
		return err
	}
	mb, err := side(parts[len(pa):])
	if err != nil {
		return err
	}
	res := report.CompareLatency(ma, mb, false)
	if err := checkComparedCgroups(res, o); err != nil {
		return err
	}
	// A side that is one recording (one file, a --rotate series) gets
	// the rename note a two-file compare gives it (compareRenamed), as
	// latency's several-trace run does for one recording.
	for _, s := range []struct {
		ps []latencyPart
		to *[]trace.Warning
	}{{pa, &res.WarningsA}, {pb, &res.WarningsB}} {
		if len(s.ps) != 1 {
			continue
		}
		if wn, ok := renamedWarning(s.ps[0].res, s.ps[0].filter, s.ps[0].runs); ok {
			*s.to = append(*s.to, wn)
		}
	}
	return writeCompare(cmd, o, res, argA, argB, false)
}

// writeCompare prints res in o's format; the table's warnings go to stderr,
// named by nameA and nameB when named (their messages name their trace
// otherwise).
func writeCompare(cmd *cobra.Command, o compareOptions, res *report.CompareResult, pathA, pathB string, named bool) error {
	out := cmd.OutOrStdout()
	switch o.output {
	case "json":
		writeWarnings(cmd.ErrOrStderr(), pathA, "", res.WarningsA)
		writeWarnings(cmd.ErrOrStderr(), pathB, "", res.WarningsB)
		if named {
			js := *res
			js.WarningsA = namedWarnings(pathA, "", res.WarningsA)
			js.WarningsB = namedWarnings(pathB, "", res.WarningsB)
			res = &js
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	case "csv":
		n := map[string]bool{}
		for _, g := range res.Cgroups {
			n[g.Path] = true
		}
		// (The traces' warnings too, as the table's and every other
		// command's CSV: new-user pass 122 F3, none even with -v.)
		compareWarnings(cmd.ErrOrStderr(), res, pathA, pathB, named)
		csvCgroupsNote(cmd.ErrOrStderr(), "compare", len(n), "cgroups")
		return report.WriteCompareCSV(out, res)
	}
	compareWarnings(cmd.ErrOrStderr(), res, pathA, pathB, named)
	return report.WriteCompareTable(out, res, pathA, pathB)
}

// compareWarnings writes the table's and the CSV's lines on stderr: the
// no-match message first, then each trace's warnings (named by pathA and
// pathB when named).
func compareWarnings(stderr io.Writer, res *report.CompareResult, pathA, pathB string, named bool) {
	// Filters that matched nothing, in one trace or both: one message
	// first, as every command's no-match message, instead of one per
	// trace among its warnings.
	msg, unmatched := report.CompareNoMatch(res.UnmatchedA, res.UnmatchedB, pathA, pathB)
	if unmatched {
		fmt.Fprintf(stderr, "warning: %s\n", msg)
	}
	for _, side := range []struct {
		name string
		ws   []trace.Warning
	}{{pathA, res.WarningsA}, {pathB, res.WarningsB}} {
		prefix := ""
		if named {
			prefix = side.name + ": "
		}
		if unmatched {
			side.ws = slices.DeleteFunc(slices.Clone(side.ws), func(w trace.Warning) bool { return w.Key == "latency-empty" })
		}
		writeWarnings(stderr, side.name, prefix, side.ws)
	}
}
