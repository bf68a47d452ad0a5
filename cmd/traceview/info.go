package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

type infoOptions struct {
	input  string
	output string
}

// infoReport is what `traceview info` prints; its JSON form is the -o json
// output (times in ns).
type infoReport struct {
	File        string   `json:"file"`
	Format      string   `json:"format"`
	Mode        string   `json:"mode,omitempty"`       // perf.data: "file" or "pipe"
	ByteOrder   string   `json:"byte_order,omitempty"` // perf.data: "little-endian" or "big-endian"
	Hostname    string   `json:"hostname,omitempty"`
	OSRelease   string   `json:"os_release,omitempty"`
	Arch        string   `json:"arch,omitempty"`
	Tool        string   `json:"tool,omitempty"`
	Cmdline     []string `json:"cmdline,omitempty"`
	NrCPUs      int      `json:"nr_cpus,omitempty"`
	NrCPUsAvail int      `json:"nr_cpus_avail,omitempty"`
	LLCs        []string `json:"llcs,omitempty"` // CPU lists sharing a last-level cache
	// CPUsWithEvents lists, ascending, the CPUs with at least one
	// scheduler event (onCPUKind);
	// PartialCPUs says they are fewer than the machine's online CPUs
	// (NrCPUs): the capture covered only some CPUs (record --cpu, perf
	// record -C) or the others had no scheduler event.
	CPUsWithEvents []int `json:"cpus_with_events"`
	PartialCPUs    bool  `json:"partial_cpus,omitempty"`
	// RecordedCPUs are the CPUs the capture was limited to, ascending
	// (trace.RecordedCPUs: the header of record --cpu's files, or perf
	// record -C's command line); absent when it covered every CPU. Then
	// PartialCPUs is set too.
	RecordedCPUs []int  `json:"recorded_cpus,omitempty"`
	Clock        string `json:"clock,omitempty"`
	// FirstSample and LastSample are the trace's time span as its file
	// states it, in its header or (traceview record's files) its trailer:
	// SampleSpanFrom says which. They are absent when the reader took them
	// from the events it read (a .tv cut short, perfetto): FirstEvent and
	// LastEvent say that.
	FirstSample    int64             `json:"first_sample_ns,omitempty"`
	LastSample     int64             `json:"last_sample_ns,omitempty"`
	SampleSpanFrom string            `json:"sample_span_from,omitempty"` // "header" or "trailer"
	FirstEvent     int64             `json:"first_event_ns"`             // from the events read
	LastEvent      int64             `json:"last_event_ns"`
	EventNames     []string          `json:"recorded_events,omitempty"`
	Samples        map[string]uint64 `json:"samples,omitempty"` // perf.data samples per event name
	Events         map[string]uint64 `json:"events"`            // events delivered per kind
	TotalEvents    uint64            `json:"total_events"`
	// Synthesized counts the task records of time 0 for the threads
	// already running when the recording started (trace.Synthesized:
	// perf's, and the /proc names traceview record writes first), or for
	// the threads of a Perfetto trace's process tree, apart from Events
	// and TotalEvents.
	Synthesized uint64      `json:"synthesized_task_records,omitempty"`
	Lost        lostWindows `json:"lost"`
	// LostTotal is LostRecorder + LostInFile: the recorder's losses (the
	// lost windows' counts and those of no window, Meta.LostUnplaced) and
	// the events the file held but could not be read (a cut or damaged
	// block, Meta.LostInFile). LostMore says the file is cut short and
	// may have held more events after the cut, which nothing counts.
	// LostUnread says the file holds bytes after the trace that were
	// not read (another perf.data appended: damaged-trailing-bytes),
	// whose events nothing counts either; LostSkipped that event blocks
	// lay in bytes of a .tv skipped as damaged, whose events only the
	// trailer the file lacks would count (tvf.SkippedBlocksKey).
	LostTotal    uint64          `json:"lost_total"`
	LostRecorder uint64          `json:"lost_recorder"`
	LostInFile   uint64          `json:"lost_in_file"`
	LostMore     bool            `json:"lost_more_unknown,omitempty"`
	LostUnread   bool            `json:"lost_unread_unknown,omitempty"`
	LostSkipped  bool            `json:"lost_skipped_unknown,omitempty"`
	Warnings     []trace.Warning `json:"warnings"`
	// Autogroup is kernel.sched_autogroup_enabled when recorded: 1 on,
	// -1 off, absent unknown (trace.Meta.Autogroup).
	Autogroup int8 `json:"autogroup,omitempty"`
	// Policies counts the tasks by the scheduling policy the trace
	// recorded for them last (trace.SchedPolicy's names: "other", "batch",
	// "idle", "fifo", "rr", "deadline"); absent when the source records
	// none (perf.data, trace.dat: sched_switch shows SCHED_BATCH and
	// SCHED_IDLE at prio 120, SCHED_RR as SCHED_FIFO).
	Policies map[string]int `json:"policies,omitempty"`
	// CgroupSettings and CgroupStats are the trace's task-group settings
	// and cpu.stat readings (trace.Meta's); Throttling is, per group, what
	// the kernel counted over the trace (report.KernelCgroupStats: the
	// rule of latency's group table).
	CgroupSettings []trace.CgroupSettings `json:"cgroup_settings,omitempty"`
	CgroupStats    []trace.CgroupStat     `json:"cgroup_stats,omitempty"`
	Throttling     []trace.CgroupStat     `json:"cgroup_throttling,omitempty"`
	// ThrottlingPredicted: the trace is a prediction (replay -w), whose
	// cpu.stat readings the replay counted, not the kernel.
	ThrottlingPredicted bool   `json:"cgroup_throttling_predicted,omitempty"`
	Error               string `json:"error,omitempty"`
}

func init() {
	addCommand(func() *cobra.Command {
		var o infoOptions
		cmd := &cobra.Command{
			Use:   "info [-i FILE|-] [-o text|json]",
			Short: "Describe a trace: recording host, kernel, CPUs, event counts, losses",
			Long:  helpText("info"),
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, _ []string) error { return runInfo(cmd, o) },
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.StringVarP(&o.output, "output", "o", "text", "output format: text or json")
		return cmd
	})
}

func runInfo(cmd *cobra.Command, o infoOptions) error {
	if o.output != "text" && o.output != "json" {
		return usageErrorf("info: unknown output format %q (want text or json)", o.output)
	}
	src, err := openInput(o.input)
	if err != nil {
		return fmt.Errorf("info: %w", namedError(o.input, err))
	}
	defer src.Close()
	rep, readErr := collectInfo(src)
	rep.File = o.input
	// A perf.data without sched tracepoints is a fact to report, not a
	// failure of this command.
	if errors.Is(readErr, trace.ErrNoSchedEvents) {
		rep.Warnings = append(rep.Warnings, trace.Warning{Key: "no-sched-tracepoints", Count: 1, Message: readErr.Error()})
		readErr = nil
	}
	if readErr != nil {
		rep.Error = namedError(o.input, readErr).Error()
	}
	out := cmd.OutOrStdout()
	if o.output == "json" {
		js := *rep
		js.Warnings = namedWarnings(o.input, "", rep.Warnings)
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&js); err != nil {
			return err
		}
		// The counted line on stderr as well (README; new-user pass 41
		// F5: nothing there with -o json).
		writeWarnings(cmd.ErrOrStderr(), o.input, "", rep.Warnings)
	} else {
		printInfo(out, rep)
	}
	if readErr != nil {
		return fmt.Errorf("info: %w", namedError(o.input, readErr))
	}
	if damaged(rep.Warnings) {
		return fmt.Errorf("info: %s: the trace is damaged or truncated (its warnings say where)", o.input)
	}
	return nil
}

// damaged reports whether a warning says the file itself is damaged or cut
// short (cutOrDamaged).
func damaged(ws []trace.Warning) bool {
	for _, w := range ws {
		// Every warning of the damaged-input kind, not only those whose
		// key says "damaged" or "truncated" (new-user pass 40 F3: a
		// sample skipped for a damaged field, bad-tracepoint, exited 0).
		if strings.HasPrefix(w.Key, "replay-input-partial-") {
			continue // (a prediction's input's damage, not the file's: carrySourceDamage)
		}
		if cutOrDamaged(w.Key) || slices.Contains(damagedRecordKeys, w.Key) {
			return true
		}
	}
	return false
}

// damagedRecordKeys are the warnings of records or lines skipped or
// dropped as damaged whose keys do not say so; with those whose keys say
// "damaged" or "truncated", info exits 1. Not among them: a format the
// file's header gives that the reader cannot parse (bad-tracepoint-format),
// settings that contradict themselves (bad-cgroup-settings), a malformed
// line skipped with --lenient (the user asked for it: TestLenientFlag).
var damagedRecordKeys = []string{"bad-tracepoint", "bad-sample", "unknown-sample-id", "bad-record", "bad-record-type", "bad-cgroup-record", "bad-feature-table",
	"text-garbled-line", "text-entries-short", "text-pid-out-of-range", "text-cpu-out-of-range",
	"text-time-outlier", "outside-sample-times", "cpu-out-of-range", "tracedat-bad-record", "tracedat-corrupt-data", "tracedat-corrupt-page", "tracedat-unknown-id", "tracedat-short-record",
	// Events dropped for a time before their CPU's previous one, or
	// repeated (new-user pass 54 F2: info said the file was clean).
	"text-time-backwards", "text-duplicate", "tracedat-time-backwards"}

// collectInfo reads src to its end, counting events by kind.
func collectInfo(src trace.Source) (*infoReport, error) {
	var counts [len(trace.Kinds)]uint64
	rep := &infoReport{Events: map[string]uint64{}, FirstEvent: -1, LastEvent: -1}
	var readErr error
	var seen []bool // by CPU: has an event
	policy := map[trace.TID]trace.SchedPolicy{}
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
		// A lost marker is no event of the trace: the lost line and the
		// lost windows say what was lost (a count-0 marker is a span a
		// cut perf.data never showed, not a record of the file).
		switch {
		case trace.Synthesized(&ev):
			rep.Synthesized++
		case int(ev.Kind) < len(counts) && trace.Counted(&ev):
			counts[ev.Kind]++
		}
		if c := int(ev.CPU); c >= 0 && c < 1<<16 && onCPUKind(ev.Kind) {
			for len(seen) <= c {
				seen = append(seen, false)
			}
			seen[c] = true
		}
		// perf synthesizes records for threads that existed before the
		// recording at time 0: they do not bound the trace's time span;
		// a scheduler event at 0 (a synthetic trace's first switches)
		// does, as stats takes it (new-user pass 37 F2).
		if !trace.Synthesized(&ev) && (rep.FirstEvent < 0 || ev.Time < rep.FirstEvent) {
			rep.FirstEvent = ev.Time
		}
		rep.LastEvent = max(rep.LastEvent, ev.Time)
		if ev.Kind == trace.KindSwitch {
			if ev.Policy != trace.PolicyUnknown && ev.TID > 0 {
				policy[ev.TID] = ev.Policy
			}
			if ev.NextPolicy != trace.PolicyUnknown && ev.NextTID > 0 {
				policy[ev.NextTID] = ev.NextPolicy
			}
		}
	}
	if len(policy) > 0 {
		rep.Policies = map[string]int{}
		for _, p := range policy {
			rep.Policies[p.String()]++
		}
	}
	for k, n := range counts {
		if n > 0 {
			rep.Events[trace.Kind(k).String()] = n
			rep.TotalEvents += n
		}
	}
	m := src.Meta()
	if m == nil {
		m = &trace.Meta{}
	}
	rep.Format, rep.Hostname, rep.OSRelease, rep.Arch, rep.Tool = m.Format, m.Hostname, m.OSRelease, m.Arch, m.Tool
	rep.Cmdline, rep.NrCPUs, rep.NrCPUsAvail, rep.Clock = m.Cmdline, m.NrCPUs, m.NrCPUsAvail, m.Clock
	switch {
	case m.FirstTime <= 0 && m.LastTime <= 0:
	case m.SpanFrom == trace.SpanFromHeader:
		rep.FirstSample, rep.LastSample, rep.SampleSpanFrom = m.FirstTime, m.LastTime, "header"
	case m.SpanFrom == trace.SpanFromTrailer:
		rep.FirstSample, rep.LastSample, rep.SampleSpanFrom = m.FirstTime, m.LastTime, "trailer"
	}
	rep.LLCs = m.LLCs
	rep.CPUsWithEvents = []int{}
	for c, ok := range seen {
		if ok {
			rep.CPUsWithEvents = append(rep.CPUsWithEvents, c)
		}
	}
	for _, c := range trace.RecordedCPUs(m) {
		rep.RecordedCPUs = append(rep.RecordedCPUs, int(c))
	}
	rep.PartialCPUs = m.NrCPUs > 0 && len(rep.CPUsWithEvents) > 0 && len(rep.CPUsWithEvents) < m.NrCPUs ||
		len(rep.RecordedCPUs) > 0 && (m.NrCPUs == 0 || len(rep.RecordedCPUs) < m.NrCPUs)
	rep.Lost = append([]trace.LostWindow{}, m.Lost...)
	for _, l := range m.Lost {
		rep.LostRecorder += l.Count
	}
	rep.LostRecorder += m.LostUnplaced
	rep.LostInFile, rep.LostMore = m.LostInFile, m.Cut()
	rep.LostUnread = slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == "damaged-trailing-bytes" })
	rep.LostSkipped = slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == tvf.SkippedBlocksKey })
	rep.LostTotal = rep.LostRecorder + rep.LostInFile
	rep.Warnings = append([]trace.Warning{}, m.Warnings.List()...)
	rep.Autogroup, rep.CgroupSettings, rep.CgroupStats = m.Autogroup, m.CgroupSettings, m.CgroupStats
	rep.Throttling = report.KernelCgroupStats(m, rep.FirstEvent, rep.LastEvent)
	rep.ThrottlingPredicted = len(rep.Throttling) > 0 && m.Predicted()
	if d, ok := trace.Describe(src); ok {
		rep.Mode, rep.ByteOrder, rep.EventNames, rep.Samples = d.Mode, d.ByteOrder, d.Recorded, d.Samples
	}
	return rep, readErr
}

// onCPUKind reports whether events of kind k are recorded only on the
// CPUs the capture covers: the sched tracepoints. perf's task records
// (COMM, FORK, EXIT) come from every CPU even under -C (sched-compressed.data,
// recorded -C 0, has them on CPU 1).
func onCPUKind(k trace.Kind) bool {
	switch k {
	case trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime:
		return true
	}
	return false
}

// secs renders a trace time in ns as seconds with microseconds, perf's way.
func secs(ns int64) string { return trace.FormatSeconds(ns, 6) + " s" }

func printInfo(w io.Writer, r *infoReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(k, format string, args ...any) {
		fmt.Fprintf(tw, "%s:\t"+format+"\n", append([]any{k}, args...)...)
	}
	format := r.Format
	if r.Mode != "" {
		format += fmt.Sprintf(" (%s mode, %s)", r.Mode, r.ByteOrder)
	}
	line("file", "%s", r.File)
	line("format", "%s", format)
	if r.Hostname != "" {
		line("host", "%s", r.Hostname)
	} else if slices.ContainsFunc(r.Warnings, func(w trace.Warning) bool { return w.Key == "damaged-header" }) {
		// Said where the host lines would be, not only at the end.
		line("host", "unknown: the file's header frame is damaged (host, kernel, recorder, command line and CPUs lost; the warnings below)")
	}
	if r.OSRelease != "" || r.Arch != "" {
		line("kernel", "%s", strings.TrimSpace(r.OSRelease+" "+r.Arch))
	}
	if r.Tool != "" {
		line("recorder", "%s", r.Tool)
	}
	if len(r.Cmdline) > 0 {
		// Each argument one shell word, so that the line can be pasted
		// back (bash -c 'for i in ...; done' lost its quotes).
		line("command line", "%s", termsafe.ShellLine(r.Cmdline))
	}
	switch {
	case r.NrCPUs > 0 && r.NrCPUsAvail > 0:
		line("CPUs", "%d online, %d available", r.NrCPUs, r.NrCPUsAvail)
	case r.NrCPUs > 0:
		// ftrace text and trace.dat say how many CPUs traced, not how
		// many the machine had.
		line("CPUs", "%d", r.NrCPUs)
	}
	switch {
	case len(r.RecordedCPUs) > 0:
		which := "CPU"
		if len(r.RecordedCPUs) > 1 {
			which = "CPUs"
		}
		line("CPUs recorded", "%d of the machine's %d (%s %s): the capture covered only these (record --cpu, perf record -C); a task's time on the others is unknown",
			len(r.RecordedCPUs), r.NrCPUs, which, cpulist.Format(r.RecordedCPUs))
	case r.PartialCPUs:
		which := "CPU"
		if len(r.CPUsWithEvents) > 1 {
			which = "CPUs"
		}
		line("CPUs with events", "%d of the machine's %d (%s %s): the capture covered only some CPUs (record --cpu, perf record -C), or the others had no scheduler event",
			len(r.CPUsWithEvents), r.NrCPUs, which, cpulist.Format(r.CPUsWithEvents))
	}
	if len(r.LLCs) > 0 {
		line("last-level caches", "CPUs %s (replay --topology trace)", strings.Join(r.LLCs, "; CPUs "))
	}
	if r.Clock != "" {
		line("clock", "%s", r.Clock)
	}
	switch {
	case r.FirstSample <= 0 && r.LastSample <= 0:
	case r.SampleSpanFrom == "trailer":
		line("events (trailer)", "%s to %s (%.3f ms)", secs(r.FirstSample), secs(r.LastSample), float64(r.LastSample-r.FirstSample)/1e6)
	default:
		line("samples (header)", "%s to %s (%.3f ms)", secs(r.FirstSample), secs(r.LastSample), float64(r.LastSample-r.FirstSample)/1e6)
	}
	if r.FirstEvent >= 0 {
		line("events (read)", "%s to %s (%.3f ms)", secs(r.FirstEvent), secs(r.LastEvent), float64(r.LastEvent-r.FirstEvent)/1e6)
	}
	switch r.Autogroup {
	case 1:
		line("autogroup", "on (kernel.sched_autogroup_enabled)")
	case -1:
		line("autogroup", "off (kernel.sched_autogroup_enabled)")
	}
	if len(r.Policies) > 0 {
		line("policies", "%s", policySummary(r.Policies))
	}
	line("lost", "%s", lostSummary(r))
	tw.Flush()
	printGroups(w, r)
	printEventCounts(w, r)
	printInfoWarnings(w, r)
}

// policySummary is info's "policies" line: tasks per recorded policy, in
// chrt(1)'s order ("3 other, 1 batch, 1 idle (tasks, as recorded)").
func policySummary(n map[string]int) string {
	var parts []string
	for _, p := range []trace.SchedPolicy{trace.PolicyNormal, trace.PolicyBatch, trace.PolicyIdle, trace.PolicyFIFO, trace.PolicyRR, trace.PolicyDeadline} {
		if k := n[p.String()]; k > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k, p))
		}
	}
	return strings.Join(parts, ", ") + " (tasks, by the policy the capture recorded last)"
}

// lostSummary is info's "lost" line: the events the recorder reported
// lost, those in the file's cut or damaged part (a number when the reader
// counted them, as traceview's blocks say how many events they hold;
// "an unknown number" when it could not, as a perf.data's unread records:
// new-user pass 34 F2 read "0 in the file's cut or damaged part" beside
// 3.4 MB of records unread), and whether CPU windows of unknown loss
// follow (the warnings list them).
func lostSummary(r *infoReport) string {
	unobserved := 0
	for _, l := range r.Lost {
		if l.Count == 0 {
			unobserved++
		}
	}
	if r.LostInFile == 0 && !r.LostMore && !r.LostUnread && !r.LostSkipped && unobserved == 0 {
		return fmt.Sprintf("%d events", r.LostTotal)
	}
	parts := []string{fmt.Sprintf("%d reported lost by the recorder", r.LostRecorder)}
	switch {
	case r.LostInFile > 0 && r.LostMore:
		parts = append(parts, fmt.Sprintf("%d in the file's cut or damaged part", r.LostInFile), "an unknown number after the cut")
	case r.LostInFile > 0:
		parts = append(parts, fmt.Sprintf("%d in the file's damaged or missing blocks", r.LostInFile))
	case r.LostMore:
		parts = append(parts, "an unknown number in the file's cut or damaged part (its reader cannot count them)")
	}
	if r.LostSkipped {
		parts = append(parts, "an unknown number in event blocks skipped as damaged (the warnings below)")
	}
	if unobserved > 0 {
		parts = append(parts, fmt.Sprintf("an unknown number in %s (the warnings below)", plural(unobserved, "unobserved CPU window")))
	}
	if r.LostUnread {
		parts = append(parts, "an unknown number in the bytes after the trace, not read (the warnings below)")
	}
	head := fmt.Sprintf("%d events", r.LostTotal)
	if r.LostMore || r.LostUnread || r.LostSkipped || unobserved > 0 {
		head += " and more"
	}
	if len(parts) > 2 {
		parts[len(parts)-1] = "and " + parts[len(parts)-1]
		return head + ": " + strings.Join(parts, ", ")
	}
	return head + ": " + strings.Join(parts, " and ")
}

// printEventCounts prints the recorded events' sample counts (perf.data)
// and the decoded events by kind, in kind order.
func printEventCounts(w io.Writer, r *infoReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(r.EventNames) > 0 {
		if readInterrupted() {
			// The reader counts a sample as it parses it; one held for
			// time order when Ctrl-C came is not delivered, so the kinds
			// below may count fewer (new-user pass 113 F3).
			fmt.Fprintln(w, "\nrecorded events (samples parsed before Ctrl-C; those still held for time order then are not in the events by kind below):")
		} else {
			fmt.Fprintln(w, "\nrecorded events (samples):")
		}
		for _, n := range r.EventNames {
			fmt.Fprintf(tw, "  %s\t%d\n", n, r.Samples[n])
		}
		tw.Flush()
	}
	var sched uint64
	for k, n := range r.Events {
		if kind, ok := trace.KindByName(k); ok && kind.Scheduler() {
			sched += n
		}
	}
	fmt.Fprintf(w, "\nevents by kind (%d in all, %d of them scheduler events):\n", r.TotalEvents, sched)
	kinds := make([]string, 0, len(r.Events))
	for k := range r.Events {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, _ := trace.KindByName(kinds[i])
		b, _ := trace.KindByName(kinds[j])
		return a < b
	})
	for _, k := range kinds {
		fmt.Fprintf(tw, "  %s\t%d\n", k, r.Events[k])
	}
	tw.Flush()
	if r.Synthesized > 0 {
		// A Perfetto trace's process tree lists the threads its writer
		// knew of, those forked later too (traceview's exports list every
		// thread of the trace by its first name: 307 records for
		// renamed-threads.tv's 142 running at its start).
		named := "the threads already running when the recording started"
		if r.Format == "perfetto" {
			named = "the threads of the trace's process tree (which may list threads forked later too)"
		}
		fmt.Fprintf(w, "  (and %d task records of time 0 naming %s, not counted)\n", r.Synthesized, named)
	}
}

// printInfoWarnings prints the lost windows (one summary line unless -v)
// and the reader's warnings, each naming the file.
func printInfoWarnings(w io.Writer, r *infoReport) {
	if len(r.Lost) > 0 || len(r.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	if len(r.Lost) > 1 && !verbose {
		counts := make([]uint64, len(r.Lost))
		for i, l := range r.Lost {
			counts[i] = l.Count
		}
		fmt.Fprintf(w, "warning: %s\n", namedMessage(r.File, "", lostWindowsLine(counts)))
	} else {
		for _, l := range r.Lost {
			fmt.Fprintf(w, "warning: %s\n", namedMessage(r.File, "", l.String()))
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", namedWarning(r.File, "", wn))
	}
}

// printGroups prints the task groups' settings and their cpu.stat
// difference over the trace, when it has them.
func printGroups(w io.Writer, r *infoReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(r.CgroupSettings) > 0 {
		fmt.Fprintln(w, "\ntask groups (cpu controller):")
		// A prediction's settings say where the replay took each from
		// (new-user pass 31 F5: a what-if weight read as recorded).
		sources := slices.ContainsFunc(r.CgroupSettings, func(s trace.CgroupSettings) bool { return s.Source != "" })
		head := "  group\tread\tweight\tshares\tquota/period\tburst\tnice"
		if sources {
			head += "\tsource"
		}
		fmt.Fprintln(tw, head)
		dash := func(ok bool, s string) string {
			if !ok {
				return "-"
			}
			return s
		}
		for _, s := range r.CgroupSettings {
			at := "start"
			if s.Time != 0 {
				at = secs(s.Time)
			}
			quota := "-"
			switch {
			case s.QuotaNS < 0:
				quota = "max"
				if s.PeriodNS > 0 {
					quota += "/" + fmtMS(s.PeriodNS)
				}
			case s.QuotaNS > 0:
				quota = fmtMS(s.QuotaNS) + "/" + fmtMS(s.PeriodNS)
			}
			nice, shares := "-", dash(s.Shares > 0, fmt.Sprint(s.Shares))
			if trace.IsAutogroupPath(s.Path) {
				// An autogroup has no cpu.shares or cpu.max (a
				// prediction stores its load weight and "max"); its
				// nice only where it sets the weight (a what-if weight
				// clears it).
				shares, quota = "-", "-"
				if s.Weight == 0 || trace.AutogroupWeight(s.Nice) == s.Weight {
					nice = fmt.Sprint(s.Nice)
				}
			}
			line := fmt.Sprintf("  %s\t%s\t%s\t%s\t%s\t%s\t%s", s.Path, at,
				dash(s.Weight > 0, fmt.Sprint(s.Weight)), shares, quota, dash(s.BurstNS > 0, fmtMS(s.BurstNS)), nice)
			if sources {
				src := s.Source
				switch {
				case s.WeightSource != "" && trace.IsAutogroupPath(s.Path):
					src = s.WeightSource // (no quota to source)
				case s.WeightSource != "":
					src = "weight " + s.WeightSource + ", quota " + s.Source
				}
				line += "\t" + dash(src != "", src)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	if len(r.Throttling) > 0 {
		// cpu.stat's throttled_time adds up each CPU's runqueue throttled
		// time (unthrottle_cfs_rq): a group throttled on 2 CPUs for most
		// of a 2.1 s trace shows 2930 ms.
		by := "kernel cpu.stat"
		if r.ThrottlingPredicted {
			// (new-user pass 72 F5: the simulator's counts read as the kernel's.)
			by = "the replay's cpu.stat, counted by its simulation"
		}
		fmt.Fprintf(w, "\ncfs bandwidth over the trace (%s: last minus first reading where they bracket the trace, else the one reading of a group made during it; throttled time sums each CPU's, so it can exceed the trace's span):\n", by)
		fmt.Fprintln(tw, "  group\tperiods\tthrottled\tthrottled time\tbursts")
		for _, d := range r.Throttling {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%d\n", d.Path, d.NrPeriods, d.NrThrottled, fmt.Sprintf("%.1fms", float64(d.ThrottledNS)/1e6), d.NrBursts)
		}
		tw.Flush()
	}
}

// fmtMS renders ns as milliseconds, "20ms", "0.5ms".
func fmtMS(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', -1, 64) + "ms" }

// lostWindows are info's lost windows, in JSON as latency's are
// (report.LatencyJSONLost: cpu, count, start_ns, end_ns; a .tv trailer keeps
// trace.LostWindow's own keys, which older files have).
type lostWindows []trace.LostWindow

func (ls lostWindows) MarshalJSON() ([]byte, error) {
	out := make([]report.LatencyJSONLost, len(ls))
	for i, l := range ls {
		out[i] = report.LatencyJSONLost{CPU: int(l.CPU), Count: l.Count, StartNs: l.Start, EndNs: l.End}
	}
	return json.Marshal(out)
}
