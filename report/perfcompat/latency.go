package perfcompat

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
)

// The table layout of perf sched latency, perf 6.12 (perf_sched__lat and
// output_lat_thread in tools/perf/builtin-sched.c): the name padded to 24
// columns, runtime as "%11.3f ms", Count as "%9u", delays as "%8.3f ms"
// (milliseconds with microsecond digits), max delay start/end as
// seconds.microseconds (timestamp__scnprintf_usec, truncated) right-aligned
// in 12 columns.
const (
	latencyDashes  = " -------------------------------------------------------------------------------------------------------------------------------------------\n"
	latencyHeader  = "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n"
	latencyDashes2 = " -----------------------------------------------------------------------------------------------------------------\n"
	latencyDashes3 = " ---------------------------------------------------\n"
)

// LatencyTable is what perf sched latency prints: its rows in order, its
// TOTAL line and the counters of its INFO lines. package report builds it
// from the rows it makes of Latency's tasks (report.LatencyResult with
// LatencyOptions.PerfCompat) and WriteLatency prints it.
type LatencyTable struct {
	Rows []LatencyLine
	// TotalRuntime (ns) and TotalCount are the TOTAL line's.
	TotalRuntime, TotalCount int64
	Info                     LatencyInfo
}

// LatencyLine is one row of perf's latency table. Times are ns.
type LatencyLine struct {
	Comm    string
	TID     int64 // printed when NrTasks is 1
	NrTasks int   // tasks merged into the row
	// Runtime is the sum of sched_stat_runtime, Count the delays measured,
	// AvgDelay their integer average, MaxDelay the largest, from
	// MaxDelayStart to MaxDelayEnd (trace clock).
	Runtime, Count, AvgDelay, MaxDelay int64
	MaxDelayStart, MaxDelayEnd         int64
}

// LatencyInfo holds the counters of perf's INFO lines (print_bad_events):
// nr_timestamps, nr_unordered_timestamps, nr_context_switch_bugs,
// nr_lost_events (of Events) and nr_lost_chunks. A line is printed when its
// counter and its divisor are not 0.
type LatencyInfo struct {
	Timestamps, Unordered, SwitchBugs int64
	LostEvents, Events, LostChunks    int64
}

// UsecStamp renders ns as perf's timestamp__scnprintf_usec: seconds, '.',
// six digits of microseconds (truncated, not rounded).
func UsecStamp(ns int64) string { return string(timehistUsec(nil, ns)) }

// LatencyName is perf's row name: LatencyLabel padded to 24 bytes, as
// perf pads it (a name of multi-byte characters then ends short of the
// column: the default table pads by columns instead, termsafe.PadRight).
func LatencyName(comm string, tid int64, nrTasks int) string {
	s := LatencyLabel(comm, tid, nrTasks)
	if n := 24 - len(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// LatencyLabel is perf's row name before padding: "comm:tid", or
// "comm:(nr_tasks)" for a merged row, after two spaces and before one. A
// name with bytes that are not printable has them escaped (termsafe.Name:
// a newline split the row).
func LatencyLabel(comm string, tid int64, nrTasks int) string {
	comm = termsafe.PerfName(comm)
	if nrTasks > 1 {
		return fmt.Sprintf("  %s:(%d) ", comm, nrTasks)
	}
	return fmt.Sprintf("  %s:%d ", comm, tid)
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// WriteLatency prints t exactly as perf 6.12's perf sched latency does,
// byte for byte: its columns, its TOTAL line and dashes, its INFO lines.
func WriteLatency(w io.Writer, t *LatencyTable) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("\n" + latencyDashes + latencyHeader + latencyDashes)
	for i := range t.Rows {
		r := &t.Rows[i]
		bw.WriteString(LatencyName(r.Comm, r.TID, r.NrTasks))
		fmt.Fprintf(bw, "|%11.3f ms |%9d | avg:%8.3f ms | max:%8.3f ms ", ms(r.Runtime), r.Count, ms(r.AvgDelay), ms(r.MaxDelay))
		fmt.Fprintf(bw, "| max start: %12s s | max end: %12s s\n", UsecStamp(r.MaxDelayStart), UsecStamp(r.MaxDelayEnd))
	}
	bw.WriteString(latencyDashes2)
	fmt.Fprintf(bw, "  TOTAL:                |%11.3f ms |%9d |\n", ms(t.TotalRuntime), t.TotalCount)
	bw.WriteString(latencyDashes3)
	WriteLatencyInfo(bw, &t.Info)
	bw.WriteString("\n")
	return bw.Flush()
}

// WriteLatencyInfo prints perf's print_bad_events lines for in.
func WriteLatencyInfo(w io.Writer, in *LatencyInfo) {
	if in.Unordered > 0 && in.Timestamps > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% unordered timestamps (%d out of %d)\n",
			float64(in.Unordered)/float64(in.Timestamps)*100, in.Unordered, in.Timestamps)
	}
	if in.LostEvents > 0 && in.Events > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% lost events (%d out of %d, in %d chunks)\n",
			float64(in.LostEvents)/float64(in.Events)*100, in.LostEvents, in.Events, in.LostChunks)
	}
	if in.SwitchBugs > 0 && in.Timestamps > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% context switch bugs (%d out of %d)",
			float64(in.SwitchBugs)/float64(in.Timestamps)*100, in.SwitchBugs, in.Timestamps)
		if in.LostEvents > 0 {
			fmt.Fprint(w, " (due to lost events?)")
		}
		fmt.Fprint(w, "\n")
	}
}
