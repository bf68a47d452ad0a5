package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/kallsyms"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type timehistFlags struct {
	input       string
	output      string
	opt         perfcompat.TimehistOptions
	filter      filterFlags
	prios       string
	withSummary bool
	kallsyms    string
	throttled   bool
	recorded    []string
}

func init() {
	addCommand(func() *cobra.Command {
		var o timehistFlags
		cmd := &cobra.Command{
			Use:   "timehist [-i FILE] [-o table|json|csv] [-w] [-M] [-n] [--state] [-s|-S] [-C CPUS] [-p PIDS] [-t TIDS] [--comm NAMES] [--time START,STOP] [--throttled]",
			Short: "One row per context switch: wait time, scheduling delay and run time (perf sched timehist)",
			Long:  helpText("timehist"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runTimehist(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or csv (one row per switch, wakeup with -w, migration with -M; times in ns, -1 not measured)")
		f.BoolVarP(&o.opt.Wakeups, "wakeups", "w", false, "show a row per wakeup")
		f.BoolVarP(&o.opt.Migrations, "migrations", "M", false, "show a row per migration")
		f.BoolVarP(&o.opt.Next, "next", "n", false, "show the next task of each switch")
		f.BoolVar(&o.opt.State, "state", false, "show the state the task left the CPU in")
		f.BoolVarP(&o.opt.SummaryOnly, "summary", "s", false, "print only the per-task summary")
		f.BoolVarP(&o.withSummary, "with-summary", "S", false, "print the rows and then the summary")
		f.BoolVarP(&o.opt.IdleHist, "idle-hist", "I", false, "only switches to and from idle; idle time is charged to the task that ran before")
		f.BoolVar(&o.opt.ShowPrio, "show-prio", false, "show the task's kernel priority")
		f.BoolVarP(&o.opt.CPUVisual, "cpu-visual", "V", false, "add a column per CPU marking the CPU of each row")
		addFilterFlags(f, &o.filter, map[string]string{"cpu": "C", "pid": "p", "tid": "t"})
		f.StringVar(&o.prios, "prio", "", "only tasks with these kernel priorities, e.g. 0,120-129")
		f.BoolVar(&o.opt.Exact, "exact", false, "reproduce perf 6.12's output exactly, including its thread-identity errors")
		f.BoolVarP(&o.opt.CallGraph, "call-graph", "g", true, "show the callchain of each switch-out when the trace has them (--call-graph=false: never)")
		f.IntVar(&o.opt.MaxStack, "max-stack", 5, "callchain frames shown per row")
		f.BoolVar(&o.throttled, "throttled", false, "end rows whose sch delay was partly throttled (the cgroup out of CPU quota) with its throttled time")
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "PATH:max=QUOTA/PERIOD: a group's quota when recorded, where the trace does not carry it (implies --throttled; repeatable)")
		f.StringVar(&o.kallsyms, "kallsyms", "", "kallsyms file naming the kernel frames (gzip allowed; default: /proc/kallsyms when the trace is from the running kernel)")
		return cmd
	})
}

func runTimehist(cmd *cobra.Command, o timehistFlags) error {
	raiseGCFloor()
	opt := o.opt
	if opt.SummaryOnly && (opt.Wakeups || opt.Next) {
		return usageErrorf("timehist: -s/--summary cannot be combined with -w or -n")
	}
	if o.withSummary {
		opt.Summary = true
	}
	if err := o.checkOutput(); err != nil {
		return err
	}
	var err error
	if err := o.filter.check("timehist"); err != nil {
		return err
	}
	if err := exactFilters(o.opt.Exact, &o.filter); err != nil {
		return err
	}
	if opt.Prios, err = cpulist.ParseInts(o.prios, 0, perfcompat.TimehistMaxPrio-1); err != nil {
		return usageErrorf("timehist: --prio %q: %v", o.prios, err)
	}
	if o.opt.MaxStack < 1 || o.opt.MaxStack > 1024 {
		return usageErrorf("timehist: --max-stack must be 1..1024, got %d", o.opt.MaxStack)
	}
	var ksyms *kallsyms.Table
	if o.kallsyms != "" {
		if ksyms, err = loadKallsyms(o.kallsyms); err != nil {
			return usageErrorf("timehist: --kallsyms: %v", err)
		}
	}
	if o.throttled || len(o.recorded) > 0 {
		if opt.Exact {
			return usageErrorf("timehist: --throttled: perf's exact output (--exact) has no throttling; drop one of them")
		}
		res, groups, err := throttlePass(cmd, "timehist", o.input, o.recorded)
		if err != nil {
			return err
		}
		opt.Throttled = res.ThrottledWithin(groups)
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	running := &runningKallsyms{meta: src.Meta()}
	if ksyms != nil {
		opt.KernelSymbols = ksyms
	} else if opt.CallGraph {
		opt.KernelSymbols = running
	}
	flt, err := o.filter.resolve("timehist", src.Meta())
	if err != nil {
		return err
	}
	cutHeadsUp(cmd.ErrOrStderr(), "timehist", o.input, src.Meta())
	if flt != nil {
		opt.Start, opt.End = flt.Start, flt.End
		opt.CPUs, opt.PIDs, opt.TIDs, opt.Comms = ints(flt.CPUs), ints(flt.PIDs), ints(flt.TIDs), flt.Comms
	}
	// -s prints nothing before its summary: all of it waits, so that a
	// no-match warning comes first there too.
	out := &firstRowWriter{w: cmd.OutOrStdout(), holdAll: opt.SummaryOnly}
	var rows *timehistRows
	if o.output != "table" {
		rows = newTimehistRows(cmd.OutOrStdout(), o.output == "csv")
		opt.Rows = rows.add
	}
	var result perfcompat.TimehistResult
	opt.Result = &result
	// Filtered, the events the view skips are counted too, for a
	// no-match message in latency's shape (traceExtent).
	ext := newTraceExtent()
	tap := &trace.Tap{Source: src, Observe: ext.observe, KeepKinds: flt.Active() || opt.Prios != nil}
	if err := perfcompat.Timehist(out, tap, opt); err != nil {
		// Whatever is still held (the header alone) is dropped.
		return readFailed(cmd, o.input, src.Meta(), viewError("timehist", o.input, err, src.Meta()))
	}
	// "No row matched" first, before the header held back: it is the
	// answer (as latency's). With -s, an empty summary.
	empty := !out.hasRow() || result.Rows == 0 // (a "lost N events" line is no row)
	if rows != nil {
		empty = rows.n == 0 || result.Rows == 0
	}
	if opt.SummaryOnly {
		empty = result.SummaryTasks == 0
	}
	if (flt.Active() || opt.Prios != nil) && empty {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", timehistNoMatch(ext, flt, o.prios))
	} else {
		ext.addWindowNote(src.Meta(), flt)
	}
	if m := src.Meta(); len(result.OpenRuns) > 0 && m != nil {
		// Named with the trace's other warnings, first and in full
		// (answerKey): it says what the summary's run times leave out.
		m.Warnings.Add("timehist-open-runs", "%s", openRunsWarning(result.OpenRuns, flt != nil && flt.End != 0))
	}
	if err := out.flush(); err != nil {
		return err
	}
	if m := src.Meta(); m != nil {
		timehistWarnings(m, &result, opt.Exact)
	}
	if rows != nil {
		// After the warnings the view adds: the JSON holds them all.
		if err := rows.finish(src.Meta()); err != nil {
			return err
		}
	}
	printWarnings(cmd.ErrOrStderr(), o.input, src.Meta())
	if opt.CallGraph && ksyms == nil && running.missed {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: kernel frames of the callchains are unnamed ([unknown]): %s; give --kallsyms FILE (its /proc/kallsyms)\n", running.unnamedWhy())
	}
	return nil
}

// firstRowWriter passes output through and keeps the start of its fourth
// line, the first row after timehist's three header lines. It holds the
// output back until something follows the header (or flush), so that a
// timehist that fails without a row (no sched_switch in a damaged trace)
// prints nothing on stdout.
type firstRowWriter struct {
	w     io.Writer
	lines int
	row   []byte
	held  []byte // output not yet passed on: the header so far
	hdr   int    // newlines held
	open  bool   // output passes straight through
	// holdAll: hold everything until flush (timehist -s).
	holdAll bool
}

func (f *firstRowWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && f.lines <= 3 && len(f.row) < 32; i++ {
		switch {
		case f.lines == 3 && p[i] != '\n':
			f.row = append(f.row, p[i])
		case p[i] == '\n':
			f.lines++
		}
	}
	if f.open {
		return f.w.Write(p)
	}
	f.held = append(f.held, p...)
	if f.holdAll {
		return len(p), nil
	}
	for _, b := range p {
		if f.hdr == 3 { // a byte after the header's three lines
			if b == '\n' {
				// No row: the summary of -S follows; it waits too, so
				// that a no-match warning comes before it.
				f.holdAll = true
				break
			}
			if err := f.flush(); err != nil {
				return 0, err
			}
			break
		}
		if b == '\n' {
			f.hdr++
		}
	}
	return len(p), nil
}

// flush passes on the held output; from then on output passes straight
// through.
func (f *firstRowWriter) flush() error {
	f.open = true
	held := f.held
	f.held = nil
	_, err := f.w.Write(held)
	return err
}

// hasRow reports whether the fourth line is a row (a time stamp after the
// padding), not the blank line before a summary or nothing.
func (f *firstRowWriter) hasRow() bool {
	r := strings.TrimLeft(string(f.row), " ")
	return r != "" && r[0] >= '0' && r[0] <= '9'
}

// checkCPUList returns a usage error naming flag when one of cpus is not a
// CPU of the trace (Meta.NrCPUs and NrCPUsAvail, when the header gives
// them), so that a filter that can match nothing is not a silently empty
// table.
func checkCPUList(flag string, cpus []int, meta *trace.Meta) error {
	n := max(meta.NrCPUs, meta.NrCPUsAvail)
	if n <= 0 {
		return nil
	}
	for _, c := range cpus {
		if c >= n {
			return usageErrorf("%s: CPU %d: the trace has CPUs 0-%d", flag, c, n-1)
		}
	}
	return nil
}

// loadKallsyms parses a kallsyms file, gunzipped when it is compressed.
func loadKallsyms(path string) (*kallsyms.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	br := bufio.NewReader(f)
	r = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	t, err := kallsyms.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// runningKallsyms names kernel addresses through this machine's
// /proc/kallsyms, read at the first lookup (a trace without callchains
// costs nothing), when the trace was recorded on the running kernel (same
// release; another kernel's addresses would be named wrongly). Not safe for
// concurrent use.
type runningKallsyms struct {
	meta   *trace.Meta
	loaded bool
	t      *kallsyms.Table
	// missed: a kernel frame asked for was left unnamed (the warning
	// about --kallsyms is for it only: a traceview capture's frames carry
	// their names and are never looked up; new-user pass 40 F1).
	missed bool
}

// Lookup implements perfcompat.TimehistOptions.KernelSymbols.
func (r *runningKallsyms) Lookup(addr uint64) (string, bool) {
	if !r.loaded {
		r.loaded = true
		rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
		if err == nil && r.meta != nil && r.meta.OSRelease != "" && strings.TrimSpace(string(rel)) == r.meta.OSRelease {
			r.t, _ = kallsyms.Load("/proc/kallsyms")
		}
	}
	name, ok := r.t.Lookup(addr)
	r.missed = r.missed || !ok
	return name, ok
}

// unnamedWhy says why the running kernel's symbols did not name r's
// frames: another kernel's trace, or this one's /proc/kallsyms unread.
func (r *runningKallsyms) unnamedWhy() string {
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil || r.meta == nil || strings.TrimSpace(string(rel)) != r.meta.OSRelease {
		return fmt.Sprintf("the trace is from kernel %q, not the running one", r.meta.OSRelease)
	}
	return "this machine's /proc/kallsyms could not be read or does not hold their addresses"
}

// throttlePass reads the trace a first time for the throttling inference
// (report.ComputeLatency, with the --recorded-cgroup settings stated) that
// timehist and map mark their rows with. Standard input cannot be read
// twice: a usage error.
func throttlePass(cmd *cobra.Command, name, input string, recorded []string) (*report.LatencyResult, report.DelayCgroups, error) {
	if input == "-" {
		return nil, nil, usageErrorf("%s: --throttled reads the trace twice (its throttles need the whole trace first): give a file, not -", name)
	}
	stated, err := statedCgroups(name, recorded, false)
	if err != nil {
		return nil, nil, err
	}
	first, err := openInput(input)
	if err != nil {
		return nil, nil, err
	}
	hooks, groups := report.CollectDelayCgroups()
	res, err := report.ComputeLatency(first, report.LatencyOptions{Cgroups: stated, Hooks: hooks})
	first.Close()
	if err != nil {
		return nil, nil, readFailed(cmd, input, nil, fmt.Errorf("%s: %s: %w", name, input, err))
	}
	if err := checkStatedCgroups(name, stated, res.Cgroups); err != nil {
		return nil, nil, err
	}
	return res, groups, nil
}

// openRunsWarning says which runs the summary leaves out because they had
// not ended: "1 task was still running when the trace ended: its last run
// is not in the summary's run times (a run counts at its switch-out, as
// perf counts it): hog[2927] on CPU 0 since 10868.201813 s, 313.679 ms".
func openRunsWarning(runs []perfcompat.TimehistOpenRun, window bool) string {
	ended := "the trace ended"
	if window {
		ended = "the --time window ended"
	}
	var sum int64
	var each []string
	for _, r := range runs {
		sum += r.End - r.Start
		each = append(each, fmt.Sprintf("%s on CPU %d since %s s, %.3f ms", r.Task, r.CPU, trace.FormatSeconds(r.Start, 6), float64(r.End-r.Start)/1e6))
	}
	if len(runs) == 1 {
		return fmt.Sprintf("1 task was still running when %s: its last run is not in the summary's run times (a run counts at its switch-out, as perf counts it): %s", ended, each[0])
	}
	return fmt.Sprintf("%d tasks were still running when %s: their last runs, %.3f ms in all, are not in the summary's run times (a run counts at its switch-out, as perf counts it): %s",
		len(runs), ended, float64(sum)/1e6, strings.Join(each, "; "))
}

// unchainedWarnings adds to m, per CPU, the switches timehist saw switch
// out a task the CPU's previous switch had not switched in (the key and
// the first words are latency's, sched-switch-chain-cpuN): the run time
// perf's rule charges to the switched-out task may be another's. Outside
// exact, those rows print their run time '-' and the summary leaves it
// out.
func unchainedWarnings(m *trace.Meta, r *perfcompat.TimehistResult, exact bool) {
	for cpu, n := range r.Unchained {
		if n > 0 && !exact {
			m.Warnings.Add(fmt.Sprintf("sched-switch-chain-cpu%d", cpu), // the message states the count
				"CPU %d: %d of %d sched_switch events switched out a task that the CPU's previous sched_switch had not switched in (the trace lacks a switch between them): such a row's run began at a time the trace does not show, so its run time, wait time and sch delay print - and its run is left out of the summary's run times (%s, %.3f ms in all on every CPU by perf's rule, which charges the time since the CPU's previous switch to the task switched out, as --exact does)",
				cpu, n, r.Switches[cpu], plural(int(r.UnchainedRuns), "row"), float64(r.UnchainedRunNs)/1e6)
		} else if n > 0 {
			m.Warnings.Add(fmt.Sprintf("sched-switch-chain-cpu%d", cpu), // the message states the count
				"CPU %d: %d of %d sched_switch events switched out a task that the CPU's previous sched_switch had not switched in (the trace lacks a switch between them); as perf, the run time is charged to the task switched out, %.3f ms in all on every CPU, which may have been another task's; the wait time and sch delay of such a row are not known and print -",
				cpu, n, r.Switches[cpu], float64(r.UnchainedNs)/1e6)
		}
	}
}

// checkOutput rejects -o values and the text-only options that -o json and
// csv cannot carry.
func (o *timehistFlags) checkOutput() error {
	switch o.output {
	case "table":
		return nil
	case "json", "csv":
	default:
		return usageErrorf("timehist: unknown output format %q (want table, json or csv)", o.output)
	}
	switch {
	case o.opt.SummaryOnly || o.withSummary:
		return usageErrorf("timehist: -o %s gives the rows; the summary (-s, -S) is text only ('traceview latency -o %s' has the per-task totals)", o.output, o.output)
	case o.opt.Exact:
		return usageErrorf("timehist: --exact reproduces perf's text; drop it with -o %s", o.output)
	case o.opt.IdleHist:
		return usageErrorf("timehist: -I/--idle-hist is text only; drop it with -o %s (the rows of TID 0 are the idle task's)", o.output)
	}
	return nil
}

// timehistRows writes timehist's rows as CSV (a header line, then
// perfcompat.TimehistColumns per row) or as one JSON object {"rows": [...],
// "warnings": [...]}, streamed row by row.
type timehistRows struct {
	w   *bufio.Writer
	csv *csv.Writer
	enc *json.Encoder // writes into buf: "<idle>" kept as it is, not \u003c
	buf bytes.Buffer
	n   int
}

func newTimehistRows(w io.Writer, asCSV bool) *timehistRows {
	r := &timehistRows{w: bufio.NewWriterSize(w, 256<<10)}
	if asCSV {
		r.csv = csv.NewWriter(r.w)
		r.csv.Write(perfcompat.TimehistColumns)
	} else {
		r.enc = json.NewEncoder(&r.buf)
		r.enc.SetEscapeHTML(false)
		r.w.WriteString("{\n  \"rows\": [")
	}
	return r
}

func (r *timehistRows) add(row *perfcompat.TimehistRow) error {
	r.n++
	// JSON cannot carry bytes that are not UTF-8 (encoding/json writes
	// each as U+FFFD, so two names became one): written \xHH, with a
	// backslash doubled, as latency's JSON and CSV do (termsafe.ValidUTF8);
	// CSV the same, so that one name is one string in every output
	// (new-user pass 30 F5).
	jr := *row
	jr.Comm, jr.NextComm, jr.TargetComm = termsafe.ValidUTF8(jr.Comm), termsafe.ValidUTF8(jr.NextComm), termsafe.ValidUTF8(jr.TargetComm)
	if r.csv != nil {
		return r.csv.Write(jr.Record())
	}
	r.buf.Reset()
	if err := r.enc.Encode(&jr); err != nil {
		return err
	}
	if r.n > 1 {
		r.w.WriteByte(',')
	}
	r.w.WriteString("\n    ")
	_, err := r.w.Write(bytes.TrimSuffix(r.buf.Bytes(), []byte{'\n'}))
	return err
}

// finish ends the output: with JSON, the trace's warnings (all of them,
// as every command's JSON holds them).
func (r *timehistRows) finish(m *trace.Meta) error {
	if r.csv != nil {
		r.csv.Flush()
		if err := r.csv.Error(); err != nil {
			return err
		}
		return r.w.Flush()
	}
	warns := []trace.Warning{}
	if m != nil {
		warns = answerFirst(append(warns, m.Warnings.List()...))
	}
	r.buf.Reset()
	r.enc.SetIndent("  ", "  ")
	if err := r.enc.Encode(warns); err != nil {
		return err
	}
	b := bytes.TrimSuffix(r.buf.Bytes(), []byte{'\n'})
	if r.n > 0 {
		r.w.WriteString("\n  ")
	}
	r.w.WriteString("],\n  \"warnings\": ")
	r.w.Write(b)
	r.w.WriteString("\n}\n")
	return r.w.Flush()
}

// timehistNoMatch is the no-match message for the filters given (flt and
// --prio PRIOS), in latency's shape (traceExtent.noMatch).
func timehistNoMatch(ext *traceExtent, flt *schedule.Filter, prios string) string {
	given := flt.String()
	if prios != "" {
		given = strings.TrimSpace(given + " --prio " + prios)
	}
	var comms []string
	var pids []trace.PID
	if flt != nil {
		comms, pids = flt.Comms, flt.PIDs
	}
	return ext.noMatch(given, comms, pids)
}

// exactFilters refuses, with --exact (exact), the filters perf's timehist
// lacks, as latency --perf refuses those of perf's latency: --exact is
// perf's output, and perf has none for them.
func exactFilters(exact bool, f *filterFlags) error {
	if !exact {
		return nil
	}
	switch {
	case f.comm != "":
		return usageErrorf("timehist: --exact reproduces perf's timehist, which has no --comm (its filters: --pid, --tid, --cpu, --time START,STOP); drop --exact or --comm")
	case strings.Contains(f.time, "%"):
		return usageErrorf("timehist: --exact reproduces perf's timehist, whose --time takes seconds only (perf says \"Invalid time string\" to %q); drop --exact or give START,STOP", f.time)
	}
	return nil
}

// timehistWarnings adds to m the warnings of a timehist run's result:
// latency's delay-unrecorded-cpu and delay-lossy, for the rows whose wait
// time and sch delay are "-", and the chain breaks (unchainedWarnings).
func timehistWarnings(m *trace.Meta, result *perfcompat.TimehistResult, exact bool) {
	if result.UnrecordedDelays > 0 {
		m.Warnings.AddN("delay-unrecorded-cpu", int(result.UnrecordedDelays), "scheduling delay and wait time not measured, shown as -: the task was queued meanwhile on a CPU that had recorded no event yet (one the capture left out, or one whose first event came later), so it may have run there")
	}
	if result.LossyDelays > 0 {
		m.Warnings.AddN("delay-lossy", int(result.LossyDelays), "scheduling delay not measured, shown as -: events were lost meanwhile on some CPU, where the task may have been pulled and run (the wait time too, shown as -) or its wakeup recorded")
	}
	if result.LossyRuns > 0 {
		m.Warnings.AddN("runtime-lossy", int(result.LossyRuns), "run time not measured, shown as - and left out of the summary: events were lost on the task's CPU during the run, so it may have begun or ended among them")
	}
	if result.NoWakeups > 0 {
		m.Warnings.AddN("delay-no-wakeup", int(result.NoWakeups), "sch delay not known, shown as -: the task ran again after a sleep with no recorded wakeup (the wait time is printed; latency does not count these delays)")
	}
	if result.FirstSeen > 0 {
		m.Warnings.AddN("delay-first-switch-in", int(result.FirstSeen), "wait time and sch delay not known, shown as -: the task's first switch-in is before the trace or is its first event (and the run time too on a CPU's first sched_switch)")
	}
	if result.WaitUnknown > 0 {
		m.Warnings.AddN("wait-before-first-wakeup", int(result.WaitUnknown), "wait time not known, shown as -: the task's first event is its wakeup, so its sleep began before the trace (or before a loss that took its earlier events); the sch delay is printed (perf prints 0.000 for the wait)")
	}
	unchainedWarnings(m, result, exact)
}
