package export

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// Options are what the command line gives a writer. A format reads only the
// options it names in Format.Options; the command refuses the others.
type Options struct {
	// Filter, when not nil, selects what is written (see schedule.Filter);
	// only formats with Format.Filters set get one.
	Filter *schedule.Filter
	// KernelSymbols names the kernel frames of callchains (OptKallsyms).
	KernelSymbols interface {
		Lookup(addr uint64) (string, bool)
	}
	Compact bool   // OptCompact
	TraceID string // OptTraceID: the trace_id of every row
	Source  string // the input's name, as the tables record it
	// WarningText, when set, rewrites the message of each warning of the
	// source that a format carries in the file it writes (perfetto: see
	// perfettopb.Options.WarningText).
	WarningText func(message string) string
	// Schedule, when set, is called with the counters of the schedule a
	// format rebuilds (pprof, chrome-json) once it has read the trace:
	// what its runs and delays leave out (switches and wakeups missing),
	// for the command to say as latency does (report.ScheduleWarnings).
	Schedule func(*schedule.Counters)
	// Warnings, when set, is called with the warnings of the latency
	// report a format computes (parquet's task_latency and delay_hist:
	// report.LatencyResult.ReportWarnings, switches and wakeups missing,
	// delays left out), for the command to say as latency does.
	Warnings func([]trace.Warning)
}

// The format-specific options, by flag name.
const (
	OptCompact  = "compact"
	OptKallsyms = "kallsyms"
	OptTraceID  = "trace-id"
)

// Format is one export format.
type Format struct {
	Name        string // the --format value, e.g. "pprof"
	Description string // one line
	// Binary: the output is not text; writing it to a terminal is refused.
	Binary bool
	// Filters: the format honours the filters (--time, --cpu, --pid, --tid,
	// --comm); else NoFilters says why it refuses them.
	Filters   bool
	NoFilters string
	// Options lists the format-specific options it takes (Opt*).
	Options []string
	// Loses, when not "", says what of a trace that records task groups
	// the format does not carry, for a warning when it does (a format that
	// traceview reads back, whose latency would otherwise differ in
	// silence).
	Loses string
	// LosesIf, when set, narrows Loses to the traces it holds for (nil:
	// every trace that records task groups).
	LosesIf func(m *trace.Meta) bool
	// Write writes src to w (stream formats); WriteDir writes the files of
	// src into the new directory dir (Dir formats, e.g. parquet), leaving
	// nothing behind on failure. Exactly one is set.
	Write    func(w io.Writer, src trace.Source, o Options) error
	WriteDir func(dir string, src trace.Source, o Options) error
}

// Takes reports whether f takes the format-specific option opt.
func (f Format) Takes(opt string) bool { return slices.Contains(f.Options, opt) }

// ErrUnknown is wrapped by Lookup's error for a name no format has.
var ErrUnknown = errors.New("unknown format")

var (
	mu      sync.Mutex
	formats = map[string]Format{}
)

// Register adds f; a second format of the same name replaces the first.
// Writers register from init (see formats.go).
func Register(f Format) {
	mu.Lock()
	defer mu.Unlock()
	formats[f.Name] = f
}

// Names returns the registered format names, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range formats {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the format named name; the error (wrapping ErrUnknown)
// lists the registered names.
func Lookup(name string) (Format, error) {
	mu.Lock()
	f, ok := formats[name]
	mu.Unlock()
	if !ok {
		return Format{}, fmt.Errorf("%w %q (want %s)", ErrUnknown, name, List())
	}
	return f, nil
}

// List renders the names for a message: "chrome-json, parquet, perfetto or
// pprof".
func List() string { return or(Names()) }

// Taking renders the names of the formats that take option opt (an Opt*)
// for a message, as List.
func Taking(opt string) string {
	var names []string
	for _, n := range Names() {
		if f, _ := Lookup(n); f.Takes(opt) {
			names = append(names, n)
		}
	}
	return or(names)
}

func or(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
