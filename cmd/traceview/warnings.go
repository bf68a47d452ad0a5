package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

// verbose is the command line's -v/--verbose: every warning on its own line
// instead of one summary line per input. newRootCmd resets it.
var verbose bool

// warningKinds groups the warnings' keys into what a reader of the summary
// line needs to know ("3 about missing switches"), in the order the summary
// names kinds of equal counts. A key ending in "*" is a prefix. A key that
// no kind names is counted as "other"; TestWarningKindsCoverKeys finds the
// keys the code adds and fails on one missing here.
var warningKinds = []struct {
	about string
	keys  []string
}{
	{"missing switches", []string{"sched-switch-chain-cpu*", "delay-switch-in-inferred", "delay-unmeasured",
		"delay-first-switch-in", "wait-before-first-wakeup", report.UnknownRunsKey, "switch-records", "switch-record-per-task", "top-runtime-unmeasured", "top-waits-unseen", "not-system-wide", partialCPUsKey, "delay-unrecorded-cpu", "capture-kick-failed"}},
	{"missing wakeups", []string{"delay-no-wakeup", "delay-woken-twice", "no-wakeups"}},
	{"lost events", []string{lostWindowKey, "lost-samples-total", "tracedat-lost", "tracedat-lost-unknown",
		"text-lost-events", "text-overwritten", "perfetto-overrun", "delay-lossy", report.LossyMostKey, "runtime-lossy", "lossy-excluded",
		"damaged-block-events", "ring-dump-gap", "tracedat-cut-cpus", "tracedat-skipped-cpus", "bpf-recursion-misses", "cpu-offline", "cpu-online", "cpu-offline-end", "replay-input-partial-*"}},
	// (A text or trace.dat event dropped for a time before its CPU's
	// previous one, or repeated, is damage, said in full: new-user pass
	// 54 F2 found 100 such drops only in "2 about event order".)
	{"event order", []string{"out-of-order", "replay-late-move", "time-backwards",
		"text-out-of-order", "reorder-window-full", "latency-switch-order", "delay-woken-before-switch-out",
		"duplicate-event", "duplicate-input", "same-host-name", "series-order"}},
	{damagedInput, []string{"truncated", "damaged-record-size", "damaged-record-type", "truncated-file", "truncated-round", "truncated-options", "truncated-compressed", "damaged-compressed", "series-missing-file", "series-cut-file", "series-empty-file", "damaged-frame", "damaged-header", "damaged-footer", "damaged-packet", "damaged-packet-span", "damaged-event", "damaged-time", "truncated-cpus", "damaged-block-repeated", "damaged-block-reread", "damaged-trailing-bytes", "damaged-text-span", "truncated-stacks", "damaged-block-missing", "damaged-skipped-blocks", "damaged-block-order", "damaged-count-over", "truncated-cgroups", "damaged-block", "damaged-block-span", "damaged-skipped", "damaged-time-backwards", "damaged-time-ahead", "text-time-backwards", "text-duplicate", "tracedat-time-backwards", "damaged-runtime", "damaged-runtime-inconsistent", "unknown-frame",
		"unknown-record-type", "unknown-sample-id", "bad-*", "text-malformed-line", "text-long-line",
		"text-pid-out-of-range", "text-cpu-out-of-range", "text-garbled-line", "text-time-outlier", "text-entries-short", "tracedat-corrupt-data", "tracedat-corrupt-page", "tracedat-damaged-page", "tracedat-unknown-id", "tracedat-short-record",
		"tracedat-bad-record", "unfinished", "capture-aborted", "record-command-running", "outside-sample-times", "cpu-out-of-range", "sample-times-ignored", "replay-skipped",
		"perfetto-compressed", "no-sched-tracepoints"}},
	{"event formats", []string{"sched-format", "prev-state-format", "local-formats", "text-numeric-state",
		"tracedat-clock", "tracedat-metadata", "text-latency-format"}},
	{"what the trace records", []string{"runtime-from-switches", "compare-runtime-source", "cgroup-no-path",
		"cgroup-v1-unattributed", "cgroup-v1-moves-sampled", "duplicate-attr-*", "no-migrations", "replay-cgroup-moved", "text-other-event", "text-other-line", "text-entries-extra", "text-entries-per-cpu", "tracedat-other-event", "tracedat-instances", "irq-context-unknown",
		"no-task-pt-regs", "ring-dump", "ring-dump-overlap", "timehist-open-runs", "top-renamed", "renamed-tasks"}},
}

// lostWindowKey is the key of a trace.LostWindow turned into a warning by
// metaWarnings (the readers keep lost windows apart from their warnings).
const lostWindowKey = "lost-window"

// warningKind returns the kind of warnings key belongs to (an index into
// warningKinds), or -1 for a key that no kind names.
func warningKind(key string) int {
	for i, k := range warningKinds {
		for _, p := range k.keys {
			if p == key || strings.HasSuffix(p, "*") && strings.HasPrefix(key, strings.TrimSuffix(p, "*")) {
				return i
			}
		}
	}
	return -1
}

// metaWarnings returns a source's lost windows and counted warnings, in the
// order printWarnings has always printed them (lost windows first).
func metaWarnings(m *trace.Meta) []trace.Warning {
	if m == nil {
		return nil
	}
	var out []trace.Warning
	for _, lw := range m.Lost {
		// Count: the events lost (the message says how many).
		out = append(out, trace.Warning{Key: lostWindowKey, Count: int(min(lw.Count, 1<<31)), CountInMessage: true, Message: lw.String()})
	}
	return append(out, m.Warnings.List()...)
}

// writeWarnings writes one input's warnings to w: a report's answer
// (answerKey) first and in full; then, with -v or when there is only one, each is a line "warning: PREFIX MESSAGE" (prefix is "" or
// "NAME: "); otherwise the warnings that say the file is cut short or
// damaged (inFull) are printed in full and the lost windows take one
// line of the events lost in all (lostWindowsLine), as every number of the
// answer misses what was cut or lost; one summary line for the rest names the input
// (when name is not ""), how many warnings it gave and of which kinds, most
// numerous first:
//
//	warning: t.perf.data: 5 warnings: 3 about missing switches, 1 about missing wakeups, 1 about event order; -v for detail
//
// The counts are of warning lines (what -v prints), not of the occurrences
// each line counts.
func writeWarnings(w io.Writer, name, prefix string, ws []trace.Warning) {
	// The answer first and in full: the other warnings explain the trace
	// rather than it.
	// "Nothing matched" before the other answer warnings: a recording of
	// some CPUs put its partial-cpus line above latency's.
	// Then what says the file is cut short or damaged, in full, before
	// the answers that follow from it: a cut perf.data's first line read
	// as a recording of one CPU, its cut second (new-user pass 18 F5).
	var others []trace.Warning
	switchRecords := slices.ContainsFunc(ws, func(wn trace.Warning) bool { return wn.Key == "switch-records" })
	for _, empty := range []bool{true, false} {
		if !empty {
			for _, wn := range ws {
				if cutOrDamaged(wn.Key) && !answerKey(wn.Key) {
					fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, wn))
				}
			}
		}
		for _, wn := range ws {
			if wn.Key == "no-wakeups" && switchRecords || emptyKey(wn.Key) != empty {
				continue
			}
			switch {
			case answerKey(wn.Key):
				fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, wn))
			case !cutOrDamaged(wn.Key):
				others = append(others, wn)
			}
		}
	}
	ws = others
	if verbose || len(ws) == 1 {
		for _, wn := range ws {
			fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, wn))
		}
		return
	}
	var rest, lost []trace.Warning
	for _, wn := range ws {
		switch {
		case wn.Key == lostWindowKey:
			lost = append(lost, wn)
		case inFull(wn.Key):
			fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, wn))
		default:
			rest = append(rest, wn)
		}
	}
	switch {
	case len(lost) == 1:
		fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, lost[0]))
	case len(lost) > 1:
		counts := make([]uint64, len(lost))
		for i, wn := range lost {
			counts[i] = uint64(wn.Count)
		}
		named := ""
		if name != "" {
			named = name + ": "
		}
		fmt.Fprintf(w, "warning: %s%s\n", named, lostWindowsLine(counts))
	}
	switch {
	case len(rest) == 0:
	case len(rest) == 1:
		fmt.Fprintf(w, "warning: %s\n", namedWarning(name, prefix, rest[0]))
	default:
		fmt.Fprintf(w, "warning: %s\n", warningSummary(name, rest, len(rest) < len(ws)))
	}
}

// readerPrefixes are the names readers start their warnings with (they
// know the format, not the file: "perf.data: the file ends ...").
var readerPrefixes = []string{"perf.data: ", "trace.dat: ", "perfetto: ", "traceview format: "}

// namedWarning is the text of one warning line after "warning: ": prefix
// and the message, or, without a prefix, the input's name (name) and the
// message, so that every line says which input it is about: a cut
// x.perf.data says "x.perf.data: the file ends ..." as the summary line
// after it does, a text trace's "line 5255: ..." reads "x.txt: line 5255:
// ...", standard input is "-" on every line. The reader's format name
// leading the message is dropped when a name or prefix replaces it. A
// warning about the answer (answerKey: "nothing matched the filters
// ...") is about the command's filters and options rather than the
// input, and reads as every command prints it: named only where its
// reader named its format.
func namedWarning(name, prefix string, wn trace.Warning) string {
	if (wn.Key == "latency-empty" || wn.Key == "stats-empty") && prefix == "" && !readerNamed(wn.Message) {
		// "nothing matched the filters ...": the views print it so too.
		return terminalSafe(wn.String())
	}
	return terminalSafe(namedMessage(name, prefix, wn.String()))
}

// terminalSafe is s with any control character but a newline, and any
// byte that is not UTF-8, escaped (termsafe.PerfName, line by line): the
// messages escape the task names they quote (termsafe.Name), and this
// keeps one that does not from writing raw bytes to the terminal (new-user
// pass 36 F1: an ESC [2J clear-screen sequence in a task name reached it
// through a -v warning). A message already safe is returned as it is.
func terminalSafe(s string) string {
	safe := utf8.ValidString(s)
	for i := 0; safe && i < len(s); i++ {
		safe = s[i] >= 0x20 && s[i] != 0x7f || s[i] == '\n'
	}
	if safe {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = termsafe.PerfName(l)
	}
	return strings.Join(lines, "\n")
}

// readerNamed reports whether s starts with a reader's format name.
func readerNamed(s string) bool {
	for _, p := range readerPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// namedMessage is namedWarning of a warning's text s.
func namedMessage(name, prefix, s string) string {
	if name == "" && prefix == "" {
		return s
	}
	s = strings.TrimPrefix(s, name+": ")
	for _, p := range readerPrefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = rest
			break
		}
	}
	if prefix != "" {
		return prefix + s
	}
	return name + ": " + s
}

// namedWarnings returns a copy of ws whose messages name the file where
// the reader named its format, for -o json, whose warnings keep their
// counts in their own fields and belong to one input's object: a cut
// x.data's reads "x.data: the input ends ...", not the reader's
// "perf.data: the input ends ..."; other messages get the prefix only.
func namedWarnings(name, prefix string, ws []trace.Warning) []trace.Warning {
	if ws == nil {
		return nil
	}
	out := make([]trace.Warning, len(ws))
	for i, wn := range ws {
		if prefix != "" || readerNamed(wn.Message) {
			wn.Message = namedMessage(name, prefix, wn.Message)
		}
		out[i] = wn
	}
	return answerFirst(out)
}

// answerFirst orders ws, in place, as writeWarnings prints them: the
// warnings about the answer (answerKey: nothing matched, a --time window
// outside the trace, ...) first, each group in its order. A JSON reader
// taking the first warning got a remark on the trace where the text said
// the answer was empty (new-user pass 113 F4). It returns ws.
func answerFirst(ws []trace.Warning) []trace.Warning {
	slices.SortStableFunc(ws, func(a, b trace.Warning) int {
		return cmp.Compare(boolRank(!answerKey(a.Key)), boolRank(!answerKey(b.Key)))
	})
	return ws
}

// boolRank is 1 for true, 0 for false.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// namedError is err with its message naming the file (name) where the
// reader named its format: "after 32 events: perf.data: no sched
// tracepoints ..." of x.data reads "x.data: after 32 events: no sched
// tracepoints ...", and "x.data: perf.data: file header ..." reads
// "x.data: file header ..." (as namedWarning does for warnings). The
// file's name leads the message once. err stays in the chain (errors.Is,
// errors.As); stdin ("-" or "") keeps the format's name.
func namedError(name string, err error) error {
	if err == nil || name == "" || name == "-" {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), name+": ")
	for _, p := range readerPrefixes {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			msg = rest
			break
		}
		if i := strings.Index(msg, ": "+p); i >= 0 {
			msg = msg[:i+2] + msg[i+2+len(p):]
			break
		}
	}
	if strings.HasPrefix(msg, name+" (") {
		// Already named, with how it was read ("t.zst (zstd): ..."):
		// info said "c.zst: c.zst (zstd): ..." (new-user pass 64 F7).
		return &fileError{msg: msg, err: err}
	}
	return &fileError{msg: name + ": " + msg, err: err}
}

// fileError is namedError's error: msg, wrapping err.
type fileError struct {
	msg string
	err error
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.err }

// lostWindowsLine says in one line what a trace's lost windows add up to,
// given the events each lost (0: a window whose losses the recorder did not
// count).
func lostWindowsLine(counts []uint64) string {
	var events uint64
	unknown := 0
	for _, n := range counts {
		events += n
		if n == 0 {
			unknown++
		}
	}
	if unknown == len(counts) {
		// Only unobserved windows (a ring's start, a file cut inside a
		// round, a gap between ring dumps): no count, and the cause is
		// not the kernel's full buffers.
		return fmt.Sprintf("%s where a CPU went unobserved (events lost, number unknown; the warnings above or -v say why); -v lists each window", plural(unknown, "window"))
	}
	s := fmt.Sprintf("%d events lost in %s (records the kernel could not queue: the recorder's buffers were full)", events, plural(len(counts)-unknown, "window"))
	if unknown > 0 {
		// (Those may have another cause: damage, a cut, a ring's start:
		// new-user pass 95 N3 read a damaged page's window as full
		// buffers.)
		s += fmt.Sprintf(", and %s where a CPU went unobserved (events lost, number unknown; the warnings above or -v say why)", plural(unknown, "window"))
	}
	return s + "; -v lists each window"
}

// answerKey reports whether a warning's key is about a report's answer
// rather than a remark on the trace: "nothing matched the filters"
// (latency-empty, stats-empty), a --time window that reaches outside the
// trace (report.TimeOutsideKey) or "this column is all zeros"
// (latency-runtime-none: perf's Runtime of a trace without
// sched_stat_runtime). writeWarnings prints them first and in full, never
// summarized; so is cgroup-v1-unattributed (the file lists task groups
// but puts no task in them: a report by cgroup, or a replay, is wrong
// about them), and so are the warnings that say what every number of the
// answer leaves out by how the trace was recorded: partial-cpus (record
// --cpu, perf record -C: the other CPUs' runs and the delays spent there),
// not-system-wide (perf record -p/-t: other tasks' runs) and
// switch-records (perf record --switch-events: no wakeups, so the delay
// columns hold preemptions only) and no-wakeups (the same of a trace
// whose tracepoints leave wakeups out; not printed beside switch-records,
// which says it), and duplicate-input (latency of several
// traces read one of them once: another holds the same events), and
// same-host-name (two overlapping traces of one host name merged as two
// machines).
func answerKey(key string) bool {
	switch key {
	case "latency-empty", "stats-empty", report.TimeOutsideKey, interruptedKey, "latency-runtime-none", "cgroup-v1-unattributed",
		partialCPUsKey, "not-system-wide", "switch-records", "no-wakeups", "timehist-open-runs", "duplicate-input", "same-host-name":
		return true
	}
	return false
}

// emptyKey reports whether a warning's key says the report is empty
// (nothing matched the filters, or no delay was measured).
func emptyKey(key string) bool { return key == "latency-empty" || key == "stats-empty" }

// cutOrDamaged reports whether a warning's key says the file itself is
// damaged or cut short (a key containing "damaged" or "truncated", e.g.
// tvf's "damaged-block" and perfdata's "truncated-file"), as opposed to
// events the recorder lost or records skipped by design.
func cutOrDamaged(key string) bool {
	return strings.Contains(key, "damaged") || strings.Contains(key, "truncated")
}

// inFull reports whether writeWarnings prints a warning of key in full
// even in its summary mode: the input is cut short or damaged
// (cutOrDamaged) or the warning is of the "damaged input" kind (a
// malformed line skipped, a pid out of range, a damaged timestamp): the
// reader left out data the file held, and the user must see what.
func inFull(key string) bool {
	k := warningKind(key)
	return cutOrDamaged(key) || k >= 0 && warningKinds[k].about == damagedInput || slices.Contains(inputLostKeys, key) ||
		strings.HasPrefix(key, "duplicate-attr-") || key == "renamed-tasks" || // (latency's note, in compare: compareRenamed)
		strings.HasPrefix(key, "replay-input-partial-") // (a prediction's input's damage: carrySourceDamage)
}

// inputLostKeys are the "lost events" warnings that say the input lacks
// events it once had (a lost window, an overwritten ftrace buffer, a gap
// between ring dumps), printed in full as damage is: 9189 of 9479 events
// overwritten went into latency's summary line, where stats and timehist
// printed it. Those that count what the loss did to the answer (delays
// and runtime overlapping it) stay in the summary.
var inputLostKeys = []string{lostWindowKey, report.LossyMostKey, report.UnknownRunsKey, "tracedat-lost", "tracedat-lost-unknown", "text-lost-events",
	"text-overwritten", "perfetto-overrun", "damaged-block-events", "ring-dump-gap", "tracedat-cut-cpus", "tracedat-skipped-cpus",
	// CPUs that went offline (new-user pass 44): said in full, as are
	// the copies of a tracepoint's events skipped (duplicate-attr-NAME,
	// inFull: every event twice, pass 45).
	"cpu-offline", "cpu-online", "cpu-offline-end"}

// damagedInput is the "about" of the warning kind printed in full.
const damagedInput = "damaged input"

// warningSummary is writeWarnings' summary line, without "warning: ";
// more says that other warnings of the input were printed in full
// ("N more warnings").
func warningSummary(name string, ws []trace.Warning, more bool) string {
	counts := make([]int, len(warningKinds)+1) // the last: other
	for _, wn := range ws {
		k := warningKind(wn.Key)
		if k < 0 {
			k = len(warningKinds)
		}
		counts[k]++
	}
	order := make([]int, 0, len(counts))
	for i, n := range counts {
		if n > 0 {
			order = append(order, i)
		}
	}
	// Most numerous first; ties in warningKinds order, "other" last.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && counts[order[j]] > counts[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var parts []string
	for _, i := range order {
		if i == len(warningKinds) {
			parts = append(parts, fmt.Sprintf("%d other", counts[i]))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d about %s", counts[i], warningKinds[i].about))
	}
	what := "warnings"
	if more {
		what = "more warnings"
	}
	s := fmt.Sprintf("%d %s: %s; -v for detail", len(ws), what, strings.Join(parts, ", "))
	if name != "" {
		s = name + ": " + s
	}
	return s
}

// printWarnings writes the warnings of the source read from input (its
// lost windows and counted warnings) as writeWarnings does.
func printWarnings(w io.Writer, input string, m *trace.Meta) {
	writeWarnings(w, input, "", metaWarnings(m))
}

// noSwitchesError is the error of a command (cmd) that found no
// sched_switch event in input after reading events of it. When Ctrl-C
// ended the reading (readInterrupted), that is the cause. When the input
// ended inside a record (m.CutAt: `head -c N` of a pipe-mode stream), that
// is the cause and the error says so with the byte count; otherwise the
// trace was recorded without them. events < 0: not counted (the error
// err of a view that found no switch is kept then, unless cut).
func noSwitchesError(cmd, input string, events int64, m *trace.Meta) error {
	if readInterrupted() {
		// Ctrl-C ended the reading first: the trace may well hold
		// switches (new-user pass 113 F9: export advised recording
		// with perf sched record).
		read := ""
		if events >= 0 {
			read = fmt.Sprintf(" (%d events read)", events)
		}
		return interruptedErr{fmt.Errorf("%s: %s: interrupted (Ctrl-C) before any sched_switch event was read%s: nothing to report", cmd, input, read)}
	}
	if m != nil && m.CutAt > 0 {
		read := ""
		if events >= 0 {
			read = fmt.Sprintf(": %d events read", events)
		}
		if slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return strings.Contains(w.Key, "damaged") }) {
			// A damaged record header ends the records (CutAt too), in a
			// file that goes on: not a cut.
			return fmt.Errorf("%s: %s: the records end at a damaged record after %d bytes (the warning above says where), before any sched_switch event%s", cmd, input, m.CutAt, read)
		}
		if slices.ContainsFunc(m.Warnings.List(), func(w trace.Warning) bool { return w.Key == "truncated-round" }) {
			// Cut at a record boundary (a pipe-mode stream without its
			// closing FINISHED_ROUND, or without any sample).
			return fmt.Errorf("%s: %s: the input ends early, cut after %d bytes (the warning above says where), before any sched_switch event%s", cmd, input, m.CutAt, read)
		}
		return fmt.Errorf("%s: %s: the input ends early, cut inside a record after %d bytes (truncated), before any sched_switch event%s", cmd, input, m.CutAt, read)
	}
	if cutOrDamagedMeta(m) {
		// A capture cut or damaged before its first sched_switch (a .tv
		// cut inside its first block): the warning above says where; the
		// recorder was not the problem.
		if events < 0 {
			return fmt.Errorf("%s: %s: the file is cut short or damaged before any sched_switch event could be read (the warning above says where)", cmd, input)
		}
		return fmt.Errorf("%s: %s: the file is cut short or damaged before any sched_switch event could be read (%d events read; the warning above says where)", cmd, input, events)
	}
	return fmt.Errorf("%s: %s: no sched_switch events in %d events read (record with 'perf sched record')", cmd, input, events)
}

// cutOrDamagedMeta reports whether the reader warned of a cut or damaged
// part of the file (cutOrDamaged keys).
// cutHeadsUp says on w, before a view's rows (timehist and map print their
// warnings after them, once the whole input is read), that input is known
// cut short or damaged already at open (a file-mode perf.data whose data
// section runs past the file's end, a .tv without its trailer): the rows
// stop or skip there, and the warnings after them say where (new-user pass
// 78 F3: the first word of the cut on line 625 of 628).
func cutHeadsUp(w io.Writer, cmd, input string, m *trace.Meta) {
	if m == nil || !m.Cut() && !cutOrDamagedMeta(m) {
		return
	}
	fmt.Fprintf(w, "warning: %s\n", terminalSafe(namedMessage(input, "", "the input is cut short or damaged: "+cmd+"'s rows stop or skip where it is; the warnings after them say where")))
}

func cutOrDamagedMeta(m *trace.Meta) bool {
	if m == nil {
		return false
	}
	for _, w := range m.Warnings.List() {
		if cutOrDamaged(w.Key) {
			return true
		}
	}
	return false
}

// viewError is the error of timehist or map (cmd) when drawing failed:
// err, unless it is the view's "no sched_switch events" on an input cut
// short, which noSwitchesError explains.
func viewError(cmd, input string, err error, m *trace.Meta) error {
	if errors.Is(err, perfcompat.ErrTimehistNoSwitch) && m != nil && (m.CutAt > 0 || cutOrDamagedMeta(m)) {
		return noSwitchesError(cmd, input, -1, m)
	}
	return fmt.Errorf("%s: %s: %w", cmd, input, err)
}
