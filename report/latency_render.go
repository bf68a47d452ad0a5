package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/traceview/traceview/trace"
)

// The table layout of perf sched latency, perf 6.12 (perf_sched__lat and
// output_lat_thread in tools/perf/builtin-sched.c): the name padded to 24
// columns, runtime as "%11.3f ms", Count as "%9u", delays as "%8.3f ms"
// (milliseconds with microsecond digits), max delay start/end as
// seconds.microseconds (timestamp__scnprintf_usec, truncated) right-aligned
// in 12 columns. traceview adds a "Sum delay ms" column after "Max delay ms"
// and the total delay to the TOTAL line, "%12.3f ms" wide (a sum of
// 100000 ms and more, common on a loaded machine, keeps its space).
const (
	perfDashes  = " -------------------------------------------------------------------------------------------------------------------------------------------\n"
	perfHeader  = "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n"
	perfDashes2 = " -----------------------------------------------------------------------------------------------------------------\n"
	perfDashes3 = " ---------------------------------------------------\n"
	ourDashes   = " -----------------------------------------------------------------------------------------------------------------------------------------------------------------\n"
	ourHeader   = "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Sum delay ms        | Max delay start           | Max delay end          |\n"
	ourDashes2  = " -------------------------------------------------------------------------------------------------------------\n"
)

// usecStamp renders ns as perf's timestamp__scnprintf_usec: seconds and
// microseconds, truncated.
func usecStamp(ns int64) string {
	return fmt.Sprintf("%d.%06d", ns/1e9, ns%1e9/1e3)
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// rowName is perf's "comm:tid" or "comm:(nr_tasks)", padded to 24 columns.
func rowName(r *LatencyRow) string {
	var s string
	if r.NrTasks > 1 {
		s = fmt.Sprintf("  %s:(%d) ", r.Comm, r.NrTasks)
	} else {
		s = fmt.Sprintf("  %s:%d ", r.Comm, r.TID)
	}
	if n := 24 - len(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// WriteLatencyTable prints res as the latency table. perfStyle prints
// exactly perf 6.12's layout and its INFO lines (no Sum column); otherwise
// the Sum delay column is added and warnings are left to the caller (they
// go to stderr in the CLI).
func WriteLatencyTable(w io.Writer, res *LatencyResult, perfStyle bool) error {
	bw := bufio.NewWriter(w)
	dashes, header := ourDashes, ourHeader
	pct := res.Options.Percentiles && !perfStyle
	if perfStyle {
		dashes, header = perfDashes, perfHeader
	} else if pct {
		dashes = strings.TrimSuffix(dashes, "\n") + strings.Repeat("-", 4*18+1) + "\n"
		header = strings.TrimSuffix(header, "|\n") + " | p50 delay ms    | p95 delay ms    | p99 delay ms    | p99.9 delay ms  |\n"
	}
	bw.WriteString("\n" + dashes + header + dashes)
	for i := range res.Rows {
		r := &res.Rows[i]
		bw.WriteString(rowName(r))
		fmt.Fprintf(bw, "|%11.3f ms |%9d | avg:%8.3f ms | max:%8.3f ms ", ms(r.Runtime), r.Count, ms(r.AvgDelay), ms(r.MaxDelay))
		if !perfStyle {
			fmt.Fprintf(bw, "| sum:%12.3f ms ", ms(r.SumDelay))
		}
		fmt.Fprintf(bw, "| max start: %12s s | max end: %12s s", usecStamp(r.MaxDelayStart), usecStamp(r.MaxDelayEnd))
		if pct {
			fmt.Fprintf(bw, " | p50:%8.3f ms | p95:%8.3f ms | p99:%8.3f ms | p99.9:%7.3f ms", ms(r.P50), ms(r.P95), ms(r.P99), ms(r.P999))
		}
		bw.WriteString("\n")
	}
	if perfStyle {
		bw.WriteString(perfDashes2)
		fmt.Fprintf(bw, "  TOTAL:                |%11.3f ms |%9d |\n", ms(res.Total.Runtime), res.Total.Count)
		bw.WriteString(perfDashes3)
		writePerfInfo(bw, &res.Diag)
		bw.WriteString("\n")
	} else {
		bw.WriteString(ourDashes2)
		fmt.Fprintf(bw, "  TOTAL:                |%11.3f ms |%9d |                 |                 | sum:%12.3f ms |\n",
			ms(res.Total.Runtime), res.Total.Count, ms(res.Total.SumDelay))
		bw.WriteString(ourDashes2)
	}
	return bw.Flush()
}

// writePerfInfo prints perf's print_bad_events lines.
func writePerfInfo(w io.Writer, d *LatencyDiagnostics) {
	if d.PerfUnordered > 0 && d.PerfTimestamps > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% unordered timestamps (%d out of %d)\n",
			float64(d.PerfUnordered)/float64(d.PerfTimestamps)*100, d.PerfUnordered, d.PerfTimestamps)
	}
	if d.LostEvents > 0 && d.Events > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% lost events (%d out of %d, in %d chunks)\n",
			float64(d.LostEvents)/float64(d.Events)*100, d.LostEvents, d.Events, d.LostChunks)
	}
	if d.PerfSwitchBugs > 0 && d.PerfTimestamps > 0 {
		fmt.Fprintf(w, "  INFO: %.3f%% context switch bugs (%d out of %d)",
			float64(d.PerfSwitchBugs)/float64(d.PerfTimestamps)*100, d.PerfSwitchBugs, d.PerfTimestamps)
		if d.LostEvents > 0 {
			fmt.Fprint(w, " (due to lost events?)")
		}
		fmt.Fprint(w, "\n")
	}
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

// JSON returns the -o json document of res.
func (res *LatencyResult) JSON() LatencyJSON {
	doc := LatencyJSON{Tasks: []LatencyJSONRow{}, Warnings: res.Warnings}
	if doc.Warnings == nil {
		doc.Warnings = []trace.Warning{}
	}
	for i := range res.Rows {
		r := &res.Rows[i]
		jr := LatencyJSONRow{Comm: r.Comm, PID: rowTID(r), NrTasks: r.NrTasks, RuntimeNs: r.Runtime,
			Count: r.Count, Switches: r.Switches, AvgDelayNs: r.AvgDelay, MaxDelayNs: r.MaxDelay,
			SumDelayNs: r.SumDelay, MaxDelayStartNs: r.MaxDelayStart, MaxDelayEndNs: r.MaxDelayEnd}
		if r.RuntimeSource != "" {
			jr.RuntimeSource = r.RuntimeSource
			lossy, lrt := r.Lossy, r.LossyRuntime
			jr.LossyDelays, jr.LossyRuntimeEvents = &lossy, &lrt
		}
		if res.Options.Percentiles {
			p50, p95, p99, p999 := r.P50, r.P95, r.P99, r.P999
			jr.P50DelayNs, jr.P95DelayNs, jr.P99DelayNs, jr.P999DelayNs = &p50, &p95, &p99, &p999
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
	if f := res.Options.Filter; f.Active() {
		doc.Filter = &LatencyJSONFilter{StartNs: f.Start, EndNs: f.End, CPUs: f.CPUs, PIDs: f.PIDs, TIDs: f.TIDs, Comms: f.Comms}
	}
	return doc
}

// WriteLatencyJSON writes res as indented JSON.
func WriteLatencyJSON(w io.Writer, res *LatencyResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res.JSON())
}

// WriteLatencyCSV writes res as CSV with the JSON field names as header, one
// line per row and a last line whose comm is "TOTAL" (pid, nr_tasks and the
// per-row delay columns empty). Warnings are not part of the CSV.
func WriteLatencyCSV(w io.Writer, res *LatencyResult) error {
	cw := csv.NewWriter(w)
	head := []string{"comm", "pid", "nr_tasks", "runtime_ns", "count", "switches", "avg_delay_ns",
		"max_delay_ns", "sum_delay_ns", "max_delay_start_ns", "max_delay_end_ns"}
	if res.Options.Percentiles {
		head = append(head, "p50_delay_ns", "p95_delay_ns", "p99_delay_ns", "p999_delay_ns")
	}
	cw.Write(head)
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for i := range res.Rows {
		r := &res.Rows[i]
		rec := []string{r.Comm, i64(rowTID(r)), strconv.Itoa(r.NrTasks), i64(r.Runtime), i64(r.Count),
			i64(r.Switches), i64(r.AvgDelay), i64(r.MaxDelay), i64(r.SumDelay), i64(r.MaxDelayStart), i64(r.MaxDelayEnd)}
		if res.Options.Percentiles {
			rec = append(rec, i64(r.P50), i64(r.P95), i64(r.P99), i64(r.P999))
		}
		cw.Write(rec)
	}
	tot := make([]string, len(head))
	tot[0], tot[3], tot[4], tot[5], tot[8] = "TOTAL", i64(res.Total.Runtime), i64(res.Total.Count), i64(res.Total.Switches), i64(res.Total.SumDelay)
	cw.Write(tot)
	cw.Flush()
	return cw.Error()
}
