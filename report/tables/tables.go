package tables

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// SchemaVersion is the version of the table schemas described in
// docs/parquet.md; it is in the trace table and in each file's key-value
// metadata ("traceview.schema_version"). It changes when a column changes
// meaning or goes away (adding a column keeps it).
const SchemaVersion = 1

// The table names, which are also the files' base names (NAME.parquet).
const (
	TableSchedSlice  = "sched_slice"
	TableThreadState = "thread_state"
	TableThread      = "thread"
	TableProcess     = "process"
	TableTrace       = "trace"
	TableTaskLatency = "task_latency"
	TableDelayHist   = "delay_hist"
)

// Names lists the tables in the order Write writes them.
var Names = []string{TableSchedSlice, TableThreadState, TableThread, TableProcess, TableTrace, TableTaskLatency, TableDelayHist}

// SchedSlice is one row of sched_slice: CPU ran the task from TS for Dur
// (ns, the trace's clock). Quality is "known" (switch-in and switch-out
// recorded), "recovered" (start inferred from the task's sched_stat_runtime)
// or "unknown" (the trace cannot say who ran: UTID and TID are then null);
// the idle task is TID 0. EndState is the prev_state of the switch that
// ended the slice in Perfetto's letters ("S", "D", "R", "R+", "X", ...),
// null when the slice did not end at a recorded switch-out. Priority is the
// kernel prio of the switch-in (0..99 real-time, 100..139 fair), -1 unknown.
type SchedSlice struct {
	TraceID  string  `parquet:"trace_id,dict"`
	TS       int64   `parquet:"ts"`
	Dur      int64   `parquet:"dur"`
	CPU      int32   `parquet:"cpu"`
	UTID     *int32  `parquet:"utid,optional"`
	TID      *int32  `parquet:"tid,optional"`
	EndState *string `parquet:"end_state,optional,dict"`
	Priority int32   `parquet:"priority"`
	Quality  string  `parquet:"quality,dict"`
}

// ThreadState is one row of thread_state: the task was in State from TS for
// Dur (ns). State is "Running", "R" (runnable after a wakeup), "R+"
// (runnable after a preemption) or the sleep's letters ("S", "D", "I",
// ...). CPU is the CPU it ran on (Running) or whose runqueue held it
// (runnable; null when unknown), null while sleeping. WakerTID is the task
// that woke it (runnable after a wakeup; 0 = an interrupt on an idle CPU),
// IRQ whether that wakeup ran in interrupt context (the tracepoint's
// common_flags, or the capture's own flag); both null when unknown.
// Cause says what started a runnable interval ("wakeup", "wakeup_new",
// "preempted", "woken-before-switch-out"), null otherwise. Quality is
// "known"; "end_unknown" for a runnable interval the trace does not end
// (schedule.Interval.EndUnknown: the task was switched out with no
// switch-in the trace shows, or events were lost on its runqueue; it
// waited at least Dur, its delay is not in task_latency, and its run
// until the switch-out is in no row: new-user pass 53 F2 read such rows
// as measured waits); "open" for an interval the trace's end cut. Known
// runnable rows hold task_latency's delays and the runnable time before
// a wakeup that restarted a wait (docs/parquet.md).
type ThreadState struct {
	TraceID  string  `parquet:"trace_id,dict"`
	TS       int64   `parquet:"ts"`
	Dur      int64   `parquet:"dur"`
	UTID     int32   `parquet:"utid"`
	TID      int32   `parquet:"tid"`
	State    string  `parquet:"state,dict"`
	CPU      *int32  `parquet:"cpu,optional"`
	WakerTID *int32  `parquet:"waker_tid,optional"`
	IRQ      *bool   `parquet:"irq,optional"`
	Cause    *string `parquet:"cause,optional,dict"`
	Quality  string  `parquet:"quality,dict"`
}

// Thread is one row of thread: a task identity of the reconstruction (UTID
// from 1 in order of first appearance; a TID reused after an exit or a fork
// is a new identity). PID (the tgid) is null when the trace never said.
// Switches counts its switch-ins, OnCPU its known and recovered run time
// (ns), StatRuntime the sum of its sched_stat_runtime (ns; 0 when the trace
// has none).
type Thread struct {
	TraceID      string `parquet:"trace_id,dict"`
	UTID         int32  `parquet:"utid"`
	TID          int32  `parquet:"tid"`
	PID          *int32 `parquet:"pid,optional"`
	Name         string `parquet:"name"`
	IsMainThread bool   `parquet:"is_main_thread"`
	Switches     int64  `parquet:"switches"`
	OnCPU        int64  `parquet:"on_cpu"`
	StatRuntime  int64  `parquet:"stat_runtime"`
}

// Process is one row of process: PID's name (its main thread's latest
// comm, else one of its threads'), the number of thread identities, and
// its cgroup v2 path when the trace records cgroups (traceview's own
// captures), else null.
type Process struct {
	TraceID string  `parquet:"trace_id,dict"`
	PID     int32   `parquet:"pid"`
	Name    string  `parquet:"name"`
	Threads int32   `parquet:"threads"`
	Cgroup  *string `parquet:"cgroup,optional"`
}

// Trace is the one row of trace: what recorded the trace and how much of
// it is there. StartTS and EndTS bound its events (ns, its clock), Dur is
// their difference. LostEvents counts the events the recorder says it lost
// (per-CPU windows plus unplaced losses), LostWindows the windows.
type Trace struct {
	TraceID     string `parquet:"trace_id"`
	Source      string `parquet:"source"`
	Format      string `parquet:"format"`
	Host        string `parquet:"host"`
	Kernel      string `parquet:"kernel"`
	Arch        string `parquet:"arch"`
	Recorder    string `parquet:"recorder"`
	CPUs        int32  `parquet:"cpus"`
	Clock       string `parquet:"clock"`
	StartTS     int64  `parquet:"start_ts"`
	EndTS       int64  `parquet:"end_ts"`
	Dur         int64  `parquet:"dur"`
	Events      int64  `parquet:"events"`
	Switches    int64  `parquet:"switches"`
	LostEvents  int64  `parquet:"lost_events"`
	LostWindows int32  `parquet:"lost_windows"`
	// LostInFile counts the events lost in the file's damaged, missing or
	// cut parts (trace.Meta.LostInFile), and Cut says the file is cut
	// short, so more events may have followed than any count says (new-
	// user pass 49 F3: a cut file read lost_events 0, lost_windows 0).
	LostInFile    int64 `parquet:"lost_in_file"`
	Cut           bool  `parquet:"cut"`
	SchemaVersion int32 `parquet:"schema_version"`
}

// TaskLatency is one row of task_latency: a row of `traceview latency -p
// --percentiles` (times ns). Runtime comes from sched_stat_runtime, or from
// the switches when the trace has none (RuntimeSource). Switches counts the
// task's switch-ins, DelayCount its measured scheduling delays; LossyDelays
// those left out because they overlapped lost events.
type TaskLatency struct {
	TraceID       string `parquet:"trace_id,dict"`
	Comm          string `parquet:"comm"`
	PID           int32  `parquet:"pid"`
	TID           int32  `parquet:"tid"`
	Runtime       int64  `parquet:"runtime"`
	RuntimeSource string `parquet:"runtime_source,dict"`
	Switches      int64  `parquet:"switches"`
	DelayCount    int64  `parquet:"delay_count"`
	DelaySum      int64  `parquet:"delay_sum"`
	DelayMax      int64  `parquet:"delay_max"`
	DelayP50      int64  `parquet:"delay_p50"`
	DelayP99      int64  `parquet:"delay_p99"`
	LossyDelays   int64  `parquet:"lossy_delays"`
	// UnendedRuns counts the task's runs whose switch-out the trace lacks,
	// left out of a switch-derived Runtime (report.LatencyRow.RunsUnended:
	// with Runtime 0, unknown); RecoveredDelays its delays whose switch-in
	// the trace lacks, inferred and counted in DelayCount, so that
	// DelayCount may exceed Switches by them (report.LatencyRow.Recovered;
	// new-user pass 118 F2 and F4).
	UnendedRuns     int64 `parquet:"unended_runs"`
	RecoveredDelays int64 `parquet:"recovered_delays"`
}

// DelayHist is one row of delay_hist: Count of the task's delays fell in
// bucket Bucket, [Lo, Hi) ns: bucket 0 is [0, 2), bucket k >= 1 is
// [2^k, 2^(k+1)). Only non-empty buckets have rows. Summing Count by bucket
// merges tasks and traces exactly (see docs/parquet.md for percentiles).
type DelayHist struct {
	TraceID string `parquet:"trace_id,dict"`
	Comm    string `parquet:"comm"`
	PID     int32  `parquet:"pid"`
	TID     int32  `parquet:"tid"`
	Bucket  int32  `parquet:"bucket"`
	Lo      int64  `parquet:"lo"`
	Hi      int64  `parquet:"hi"`
	Count   int64  `parquet:"count"`
}

// Bucket returns the delay_hist bucket of a delay of ns nanoseconds: 0 for
// 0 and 1 ns (and negative values), else floor(log2(ns)).
func Bucket(ns int64) int {
	if ns < 2 {
		return 0
	}
	return bits.Len64(uint64(ns)) - 1
}

// BucketBounds returns bucket k's bounds [lo, hi) in ns.
func BucketBounds(k int) (lo, hi int64) {
	if k == 0 {
		return 0, 2
	}
	return int64(1) << k, int64(1) << (k + 1)
}

// Options say how to identify the trace.
type Options struct {
	// TraceID keys every row (required; FileID gives the default).
	TraceID string
	// Source names the trace in the trace table (the input path as given).
	Source string
}

// Summary says how many rows Write wrote to each table.
type Summary struct {
	Rows map[string]int64
	// Latency is the latency report the task tables came from.
	Latency *report.LatencyResult
}

// FileID returns the default trace_id of a file: the first 16 hex digits
// (64 bits) of the SHA-256 of its bytes, so the same trace gets the same id
// wherever it is converted. The error is the file's.
func FileID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// ErrNotEmpty is wrapped by Write's error when the target directory exists
// and is not empty.
var ErrNotEmpty = errors.New("exists and is not empty")

// CheckTarget returns the error Write would give before reading for
// target directory dir: it exists and is not an empty directory, or its
// parent is not a writable directory.
func CheckTarget(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s: exists and is not a directory", dir)
	}
	if ents, err := os.ReadDir(dir); err == nil {
		if len(ents) > 0 {
			return fmt.Errorf("%s: %w", dir, ErrNotEmpty)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	st, err := os.Stat(parent)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a directory", parent)
	}
	return nil
}

// batch is how many rows of the streamed tables are buffered before they
// go to the Parquet writer.
const batch = 4096

// tableFile is one Parquet file being written.
type tableFile[T any] struct {
	f    *os.File
	w    *parquet.GenericWriter[T]
	buf  []T
	rows int64
}

func createTable[T any](dir, name string) (*tableFile[T], error) {
	f, err := os.Create(filepath.Join(dir, name+".parquet"))
	if err != nil {
		return nil, err
	}
	w := parquet.NewGenericWriter[T](f,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.CreatedBy("traceview", "", ""),
		parquet.KeyValueMetadata("traceview.schema_version", fmt.Sprint(SchemaVersion)),
		parquet.KeyValueMetadata("traceview.table", name),
	)
	return &tableFile[T]{f: f, w: w}, nil
}

// add buffers a row, writing a full batch.
func (t *tableFile[T]) add(row T) error {
	t.buf = append(t.buf, row)
	if len(t.buf) < batch {
		return nil
	}
	return t.flush()
}

func (t *tableFile[T]) flush() error {
	if len(t.buf) == 0 {
		return nil
	}
	n, err := t.w.Write(t.buf)
	t.rows += int64(n)
	t.buf = t.buf[:0]
	return err
}

// close writes what is buffered and the footer, and closes the file.
func (t *tableFile[T]) close() error {
	err := t.flush()
	if err == nil {
		err = t.w.Close()
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeTable writes rows as table name in dir.
func writeTable[T any](dir, name string, rows []T) (int64, error) {
	t, err := createTable[T](dir, name)
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		if err := t.add(r); err != nil {
			t.close()
			return t.rows, err
		}
	}
	return t.rows, t.close()
}

// Write reads src to its end (it does not close it) and writes the seven
// tables into directory dir (created; it must not exist or be empty) as
// NAME.parquet, zstd-compressed. It writes into a temporary directory
// beside dir and renames it to dir once every file is complete, so on any
// error nothing is left behind. The error is the target's (CheckTarget),
// the source's (wrapped with the number of events read), a trace without
// sched_switch events, or a file's.
func Write(dir string, src trace.Source, opts Options) (*Summary, error) {
	if opts.TraceID == "" {
		return nil, errors.New("tables: empty trace id")
	}
	if err := CheckTarget(dir); err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	sum, err := writeAll(tmp, src, opts)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return nil, err
	}
	if st, err := os.Lstat(dir); err == nil && st.IsDir() {
		// An empty target: os.Rename does not replace a directory.
		if err := os.Remove(dir); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotEmpty) // filled meanwhile
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if CheckTarget(dir) != nil {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotEmpty) // created meanwhile
		}
		return nil, err
	}
	done = true
	return sum, nil
}

func writeAll(dir string, src trace.Source, opts Options) (*Summary, error) {
	id := opts.TraceID
	slices, err := createTable[SchedSlice](dir, TableSchedSlice)
	if err != nil {
		return nil, err
	}
	states, err := createTable[ThreadState](dir, TableThreadState)
	if err != nil {
		slices.close()
		return nil, err
	}
	var werr error // the first write error of the hooks
	hooks := schedule.Hooks{
		Run: func(r *schedule.Run) {
			if werr != nil {
				return
			}
			row := SchedSlice{TraceID: id, TS: r.Start, Dur: r.End - r.Start, CPU: int32(r.CPU), Priority: r.Prio, Quality: r.Quality.String()}
			if r.Task != nil {
				row.UTID, row.TID = ptr(int32(r.Task.ID)), ptr(int32(r.Task.TID))
			}
			if r.EndSwitch {
				row.EndState = ptr(stateLetters(r.EndState))
			}
			werr = slices.add(row)
		},
		State: func(iv *schedule.Interval) {
			if werr != nil {
				return
			}
			row := ThreadState{TraceID: id, TS: iv.Start, Dur: iv.End - iv.Start, UTID: int32(iv.Task.ID), TID: int32(iv.Task.TID), Quality: "known"}
			switch {
			case iv.EndUnknown:
				row.Quality = "end_unknown"
			case iv.Open:
				row.Quality = "open"
			}
			switch iv.State {
			case schedule.StateRunning:
				row.State, row.CPU = "Running", ptr(int32(iv.CPU))
			case schedule.StateRunnable:
				row.State = "R"
				if iv.Cause == schedule.CausePreempted {
					row.State = "R+"
				}
				if iv.CPU >= 0 {
					row.CPU = ptr(int32(iv.CPU))
				}
				row.Cause = ptr(iv.Cause.String())
				if iv.Waker != nil {
					row.WakerTID = ptr(int32(iv.Waker.TID))
				}
				if iv.IRQ != trace.Unknown {
					row.IRQ = ptr(iv.IRQ == trace.Yes)
				}
			default:
				row.State = stateLetters(iv.Sleep)
			}
			werr = states.add(row)
		},
	}
	// The cgroup of each process, from the sched_switch events that carry
	// one (written on the reading goroutine, read after the pass).
	cgroupOf := map[trace.PID]uint64{}
	cs := &trace.Tap{Source: src, Observe: func(e *trace.Event) {
		if e.Kind == trace.KindSwitch && e.Cgroup != 0 && e.PID > 0 {
			cgroupOf[e.PID] = e.Cgroup
		}
	}}
	res, err := report.ComputeLatency(cs, report.LatencyOptions{PerTask: true, Percentiles: true, KeepSamples: true, Hooks: hooks})
	if err == nil {
		err = werr
	}
	if err == nil && res.Diag.Switches == 0 {
		err = &NoSwitchesError{Events: int64(res.Diag.Events)}
	}
	if cerr := slices.close(); err == nil {
		err = cerr
	}
	if cerr := states.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sum := &Summary{Rows: map[string]int64{TableSchedSlice: slices.rows, TableThreadState: states.rows}, Latency: res}
	b := res.Schedule
	threads, procs := threadRows(id, b, cgroupOf, src.Meta())
	lat, hist := latencyRows(id, res)
	for _, w := range []struct {
		name  string
		write func() (int64, error)
	}{
		{TableThread, func() (int64, error) { return writeTable(dir, TableThread, threads) }},
		{TableProcess, func() (int64, error) { return writeTable(dir, TableProcess, procs) }},
		{TableTrace, func() (int64, error) {
			return writeTable(dir, TableTrace, []Trace{traceRow(id, opts.Source, b, res, src.Meta())})
		}},
		{TableTaskLatency, func() (int64, error) { return writeTable(dir, TableTaskLatency, lat) }},
		{TableDelayHist, func() (int64, error) { return writeTable(dir, TableDelayHist, hist) }},
	} {
		n, err := w.write()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name, err)
		}
		sum.Rows[w.name] = n
	}
	return sum, nil
}

func ptr[T any](v T) *T { return &v }

// stateLetters renders a prev_state as Perfetto does: the kernel's letters
// concatenated ("S", "D", "DK" style), "R" or "R+".
func stateLetters(s trace.TaskState) string {
	return strings.ReplaceAll(s.String(), "|", "")
}

// threadRows returns the thread and process tables of the reconstruction's
// task identities (the idle task included as TID 0 of PID 0).
func threadRows(id string, b *schedule.Builder, cgroups map[trace.PID]uint64, m *trace.Meta) ([]Thread, []Process) {
	var threads []Thread
	type proc struct {
		name    string
		threads int32
	}
	procs := map[trace.PID]*proc{}
	for _, t := range b.Tasks() {
		row := Thread{TraceID: id, UTID: int32(t.ID), TID: int32(t.TID), Name: t.Comm,
			Switches: t.Switches, OnCPU: t.OnCPU, StatRuntime: t.StatRuntime}
		if t.TID == 0 && row.Name == "" {
			row.Name = "swapper"
		}
		if t.PID >= 0 {
			row.PID = ptr(int32(t.PID))
			row.IsMainThread = trace.TID(t.PID) == t.TID
			p := procs[t.PID]
			if p == nil {
				p = &proc{}
				procs[t.PID] = p
			}
			p.threads++
			if n := b.ProcessName(t); n != "" && (p.name == "" || row.IsMainThread) {
				p.name = n
			}
		}
		threads = append(threads, row)
	}
	pids := make([]trace.PID, 0, len(procs))
	for pid := range procs {
		pids = append(pids, pid)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	var out []Process
	for _, pid := range pids {
		p := procs[pid]
		row := Process{TraceID: id, PID: int32(pid), Name: p.name, Threads: p.threads}
		if cg, ok := cgroups[pid]; ok && m != nil {
			if path, ok := m.Cgroups[cg]; ok {
				row.Cgroup = ptr(path)
			}
		}
		out = append(out, row)
	}
	return threads, out
}

// latencyRows returns task_latency (the table's rows, as printed by
// `latency -p`) and delay_hist (the same rows' delays in buckets).
func latencyRows(id string, res *report.LatencyResult) ([]TaskLatency, []DelayHist) {
	var lat []TaskLatency
	var hist []DelayHist
	for _, r := range res.Rows {
		lat = append(lat, TaskLatency{TraceID: id, Comm: r.Comm, PID: int32(r.PID), TID: int32(r.TID),
			Runtime: r.Runtime, RuntimeSource: r.RuntimeSource, Switches: r.Switches,
			DelayCount: r.Count, DelaySum: r.SumDelay, DelayMax: r.MaxDelay,
			DelayP50: r.P50, DelayP99: r.P99, LossyDelays: r.Lossy, UnendedRuns: r.RunsUnended, RecoveredDelays: r.Recovered})
		var counts []int64
		for _, d := range r.Samples {
			k := Bucket(d)
			for len(counts) <= k {
				counts = append(counts, 0)
			}
			counts[k]++
		}
		for k, n := range counts {
			if n == 0 {
				continue
			}
			lo, hi := BucketBounds(k)
			hist = append(hist, DelayHist{TraceID: id, Comm: r.Comm, PID: int32(r.PID), TID: int32(r.TID),
				Bucket: int32(k), Lo: lo, Hi: hi, Count: n})
		}
	}
	return lat, hist
}

// traceRow returns the trace table's row.
func traceRow(id, source string, b *schedule.Builder, res *report.LatencyResult, m *trace.Meta) Trace {
	start, end := b.Span()
	row := Trace{TraceID: id, Source: source, StartTS: start, EndTS: end, Dur: end - start,
		Events: b.C.Events, Switches: res.Diag.Switches, SchemaVersion: SchemaVersion}
	if m != nil {
		row.Format, row.Host, row.Kernel, row.Arch = m.Format, m.Hostname, m.OSRelease, m.Arch
		row.Recorder, row.CPUs, row.Clock = m.Tool, int32(m.NrCPUs), m.Clock
		lost := m.LostUnplaced
		for _, w := range m.Lost {
			lost += w.Count
		}
		row.LostInFile, row.Cut = int64(m.LostInFile), m.Cut()
		row.LostEvents, row.LostWindows = int64(lost), int32(len(m.Lost))
	}
	return row
}

// NoSwitchesError is the tables' error for a trace with no sched_switch
// event: Events were read (a caller that knows the file was cut says so
// instead of advising another recorder).
type NoSwitchesError struct{ Events int64 }

func (e *NoSwitchesError) Error() string {
	return fmt.Sprintf("no sched_switch events in %d events read (record with 'perf sched record')", e.Events)
}
