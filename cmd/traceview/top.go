package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

type topOptions struct {
	by       string
	sort     string
	once     bool
	duration time.Duration
	interval time.Duration
	output   string
	metrics  string
	cpus     string
	rows     int
}

func init() {
	addCommand(func() *cobra.Command {
		var o topOptions
		cmd := &cobra.Command{
			Use:   "top [--by comm|task|cgroup] [-s KEYS] [--once -d D] [-o table|json] [--metrics ADDR]",
			Short: "Live scheduling delays per comm, task or cgroup, aggregated in the kernel",
			Long:  helpText("top"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := o.windowFlags(cmd.Flags().Changed("duration"), cmd.Flags().Changed("interval")); err != nil {
					return err
				}
				return runTop(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVar(&o.by, "by", "comm", "rows per comm, task or cgroup")
		f.StringVarP(&o.sort, "sort", "s", report.DefaultLatencySort, "sort keys, most significant first: runtime, switch, avg, max, sum")
		f.BoolVar(&o.once, "once", false, "print one window (-d) and exit")
		f.DurationVarP(&o.duration, "duration", "d", 2*time.Second, "the window of --once; without --once, the refresh interval (as procps top -d)")
		f.DurationVar(&o.interval, "interval", time.Second, "refresh interval of the live table")
		f.StringVarP(&o.output, "output", "o", "table", "output format: table or json")
		f.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at HOST:PORT/metrics, e.g. 127.0.0.1:9464")
		f.StringVarP(&o.cpus, "cpu", "C", "", "count only events on these CPUs, e.g. 0,2-3")
		f.IntVar(&o.rows, "rows", 20, "rows of the live table (0: all)")
		return cmd
	})
}

// topRow is one row of a window: a comm, task or cgroup.
type topRow struct {
	key                       string
	comm                      string // the JSON's comm: the key without the pid of a task row
	pid                       int64
	cgroup                    bool // a --by cgroup row: pid 0 in the JSON, whatever its tasks
	tasks                     map[trace.TID]bool
	runtime, switches, delays int64
	delaySum, delayMax, maxAt int64
	hist                      [ebpf.HistBuckets]int64
	// bw is set when the row is a cgroup whose cpu.stat was read at both
	// ends of the window; thrNS and thrPeriods are then its counters'
	// increase over it (throttled_time summed over CPUs, nr_throttled).
	bw                bool
	thrNS, thrPeriods int64
	// subtree is set on a row addQuotaRows made for a quota'd group with
	// no task of its own in the window: it sums the rows of the groups
	// below it (subtree of them), which keep their own rows, so it is
	// left out of totals.
	subtree int
}

// runUnmeasured reports whether the row's run time is not known: its
// tasks were switched in but the kernel side closed none of their runs
// (0 ns beside switch-ins), or the part of a run after the window it
// subtracts was more than the window's part it had counted (a negative
// sum: the row total of a window read 3.5 ms above the JSON total).
func (r *topRow) runUnmeasured() bool {
	return r.runtime < 0 || r.runtime == 0 && r.switches > 0
}

// setThrottled gives each cgroup row the increase of its group's cpu.stat
// bandwidth counters from before to after (ebpf.ReadBandwidth at the
// window's ends, by path: the row's key, as latency --by cgroup names
// it). Rows whose group was not read at both ends keep bw false.
//
// A row of tasks that moved into a v1 group within the window
// (topMovedRow) gets that group's counters when the group has no row of
// its own: its tasks are the group's (new-user pass 86 F5: the throttles
// went to an empty "(with below)" row of the group, the moved row read
// "-").
func setThrottled(rows []*topRow, before, after map[string]trace.CgroupStat) {
	have := map[string]bool{}
	for _, r := range rows {
		have[r.key] = true
	}
	for _, r := range rows {
		key := r.key
		if p, ok := movedGroup(key); ok && !have[p] {
			key = p
		}
		s0, ok0 := before[key]
		s1, ok1 := after[key]
		if !ok0 || !ok1 || s1.NrThrottled < s0.NrThrottled || s1.ThrottledNS < s0.ThrottledNS {
			continue // not read, or the group was made anew in between
		}
		r.bw, r.thrNS, r.thrPeriods = true, s1.ThrottledNS-s0.ThrottledNS, int64(s1.NrThrottled-s0.NrThrottled)
	}
}

// addQuotaRows adds a row for each group whose CPU quota was in force in
// the window (its cpu.stat nr_periods moved from before to after: the
// kernel counts a period only for a group with a quota, in
// do_sched_cfs_period_timer, kernel/sched/fair.c v6.18) but that has no
// row: a parent whose quota throttles the groups below it (its tasks are
// theirs; throttle_cfs_rq throttles the parent's runqueue and everything
// below, and only the parent's cpu.stat counts it), or a group whose
// tasks all moved out during the window. The new row sums the rows below
// it (schedule.CgroupBelow; none for a group that was left), and
// setThrottled then gives it its own counters.
func addQuotaRows(rows []*topRow, before, after map[string]trace.CgroupStat) []*topRow {
	have := map[string]bool{}
	for _, r := range rows {
		have[r.key] = true
		if p, ok := movedGroup(r.key); ok {
			have[p] = true // (its tasks joined it: their row has its counters, setThrottled)
		}
	}
	paths := make([]string, 0, len(after))
	for p := range after {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var added []*topRow
	for _, p := range paths {
		s0, ok := before[p]
		if have[p] || !ok || after[p].NrPeriods <= s0.NrPeriods {
			continue
		}
		r := &topRow{key: p, comm: p, tasks: map[trace.TID]bool{}}
		for _, c := range rows {
			if c.subtree > 0 || !strings.HasPrefix(c.key, "/") || !schedule.CgroupBelow(c.key, p) {
				continue
			}
			r.subtree++
			r.merge(c)
		}
		if r.subtree == 0 {
			r.subtree = -1 // a group left in the window: a row of no tasks, also out of totals
		}
		added = append(added, r)
	}
	return append(rows, added...)
}

// merge adds row c's counts to r.
func (r *topRow) merge(c *topRow) {
	for tid := range c.tasks {
		r.tasks[tid] = true
	}
	r.runtime += c.runtime
	r.switches += c.switches
	r.delays += c.delays
	r.delaySum += c.delaySum
	if c.delayMax > r.delayMax {
		r.delayMax, r.maxAt = c.delayMax, c.maxAt
	}
	for i, h := range c.hist {
		r.hist[i] += h
	}
}

func (r *topRow) add(s ebpf.TaskStat) {
	r.merge(&topRow{tasks: map[trace.TID]bool{s.TID: true}, runtime: s.Runtime, switches: s.Switches,
		delays: s.Delays, delaySum: s.DelaySum, delayMax: s.DelayMax, maxAt: s.MaxAt, hist: s.Hist})
}

func (r *topRow) avg() int64 {
	if r.delays == 0 {
		return 0
	}
	return r.delaySum / r.delays
}

// groupTop folds per-task stats into rows by comm, task or cgroup (paths
// from cgroups, named as latency --by cgroup names them: cgroupName).
func groupTop(stats []ebpf.TaskStat, by string, cgroups map[uint64]string) []*topRow {
	rows := map[string]*topRow{}
	for _, s := range stats {
		key, comm, pid := s.Comm, s.Comm, int64(0)
		switch by {
		case "task":
			key, pid = s.Comm+":"+strconv.Itoa(int(s.TID)), int64(s.TID)
		case "cgroup":
			// As latency --by cgroup names them.
			key = cgroupName(&trace.Meta{Cgroups: cgroups}, s.Cgroup)
			comm = key
		}
		r := rows[key]
		if r == nil {
			r = &topRow{key: key, comm: comm, pid: pid, cgroup: by == "cgroup", tasks: map[trace.TID]bool{}}
			rows[key] = r
		}
		r.add(s)
	}
	out := make([]*topRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	return out
}

// sortTop sorts rows by keys (latency -s's: runtime, switch, avg, max,
// sum; each descending), then by key for a total order.
func sortTop(rows []*topRow, keys []string) {
	slices.SortFunc(rows, func(a, b *topRow) int {
		for _, k := range keys {
			var x, y int64
			switch k {
			case "runtime":
				x, y = a.runtime, b.runtime
			case "switch":
				x, y = a.switches, b.switches
			case "avg":
				x, y = a.avg(), b.avg()
			case "max":
				x, y = a.delayMax, b.delayMax
			case "sum":
				x, y = a.delaySum, b.delaySum
			}
			if c := cmp.Compare(y, x); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.key, b.key)
	})
}

func parseTopSort(s string) ([]string, error) {
	var keys []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		switch k {
		case "runtime", "switch", "avg", "max", "sum":
			keys = append(keys, k)
		case "":
		default:
			return nil, fmt.Errorf("unknown sort key %q (want runtime, switch, avg, max, sum)", k)
		}
	}
	return keys, nil
}

func runTop(cmd *cobra.Command, o topOptions) error {
	keys, opts, err := o.plan()
	if err != nil {
		return err
	}
	ln, err := topMetricsListener(o.metrics)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	top, err := ebpf.OpenTop(opts)
	if err != nil {
		return fmt.Errorf("top: %w", err)
	}
	defer top.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if ln != nil {
		defer serveTopMetrics(cmd.ErrOrStderr(), top, ln)()
	}
	// With the cpu controller on a cgroup v1 hierarchy, the kernel's
	// cgroup ids name v2 groups only: follow the v1 cpu groups' tasks
	// files, as record does.
	var v1 *ebpf.V1Groups
	var mounts ebpf.CgroupMounts
	if o.by == "cgroup" {
		mounts = ebpf.FindCgroupMounts("/proc/self/mountinfo")
		v1 = ebpf.StartV1Groups(mounts)
		defer v1.Stop()
	}
	out := cmd.OutOrStdout()
	window := o.interval
	if o.once {
		window = o.duration
	}
	// A window ends at its snapshot's time: the runs still going then
	// count up to it, the rest in the next window, and the kernel counts
	// the delays (count, sum and max of the same delays) per window by
	// the same times, naming each by its start.
	before, since, err := top.SnapshotAt()
	if err != nil {
		return fmt.Errorf("top: %w", err)
	}
	lateStart := top.SnapshotLate()
	// With --by cgroup, each window also says how long each group was
	// throttled by its CPU quota (cpu.stat), which its delays include
	// (without it, mounts is empty and so are the readings).
	bwBefore := ebpf.ReadBandwidth(mounts, since)
	// Clear the screen between windows only on a terminal.
	clear := o.output == "table" && isTerminal(out)
	windows := 0
	var names topNames
	if o.by == "cgroup" && ebpf.AutogroupEnabled("/proc") == 1 {
		names.autogroups = map[trace.PID]string{}
	}
	for {
		names.start(before)
		if !waitWindow(ctx, top, window, &names) {
			return nil
		}
		after, now, err := top.SnapshotAt()
		if err != nil {
			return fmt.Errorf("top: %w", err)
		}
		lateEnd := top.SnapshotLate()
		names.observe(after)
		renamed, nRenamed := names.note()
		stats := ebpf.Window(before, after, since, uint64(since))
		var cgroups map[uint64]string
		if o.by == "cgroup" {
			cgroups = topCgroups(stats, v1, since, now, names.autogroups)
			noteV1Moves(cmd.ErrOrStderr(), stats, v1, since, now, windows == 0)
		}
		rows := groupTop(stats, o.by, cgroups)
		bwAfter := ebpf.ReadBandwidth(mounts, now)
		rows = addQuotaRows(rows, bwBefore, bwAfter)
		setThrottled(rows, bwBefore, bwAfter)
		sortTop(rows, keys)
		if o.once {
			// The window in the capture's clock, so that a record of the
			// same time can be cut to it (latency --time).
			fmt.Fprintln(cmd.ErrOrStderr(), topWindowLine(since, now, lateStart, lateEnd))
			if renamed != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "traceview top: "+renamed)
			}
			if o.output == "json" {
				return writeTopJSON(out, rows, renamed, nRenamed, newTopWindow(since, now, lateStart, lateEnd))
			}
			return writeTopTable(out, rows, o.by, 0, time.Duration(now-since))
		}
		if !clear {
			// Written to a file or pipe: each window's bounds, as --once.
			fmt.Fprintln(cmd.ErrOrStderr(), topWindowLine(since, now, lateStart, lateEnd))
		}
		if renamed != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "traceview top: "+renamed)
		}
		if o.output == "json" {
			if err := writeTopJSON(out, rows, renamed, nRenamed, newTopWindow(since, now, lateStart, lateEnd)); err != nil {
				return err
			}
		} else {
			if clear {
				fmt.Fprint(out, "\x1b[H\x1b[2J")
			} else if windows > 0 {
				fmt.Fprintln(out) // a file or pipe gets the windows one after the other
			}
			if err := writeTopTable(out, rows, o.by, o.rows, time.Duration(now-since)); err != nil {
				return err
			}
		}
		windows++
		before, since, bwBefore, lateStart = after, now, bwAfter, lateEnd
	}
}

// topMetricsListener listens at --metrics' HOST:PORT (nil when addr is
// ""): a usage error without the host, an error when it cannot listen.
func topMetricsListener(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil, usageErrorf("top: --metrics wants HOST:PORT with the host, e.g. 127.0.0.1:9464, got %q", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("top: --metrics: %w", err)
	}
	return ln, nil
}

// topWindowLine is the line on stderr that gives a window's bounds in
// the capture's clock (ns since boot, printed in seconds), so that a
// record of the same time can be cut to it (latency --time). A bound
// whose snapshot time was written late (lateStart, lateEnd: ns,
// ebpf.Top.SnapshotLate) may lie up to that much later, and the line
// says so: "(CLOCK_MONOTONIC; its end set 22.104 ms late: ...)".
func topWindowLine(since, now, lateStart, lateEnd int64) string {
	line := fmt.Sprintf("traceview top: window %.6f s to %.6f s (CLOCK_MONOTONIC", float64(since)/1e9, float64(now)/1e9)
	var late []string
	if lateStart > 0 {
		late = append(late, fmt.Sprintf("its start set %.3f ms late", float64(lateStart)/1e6))
	}
	if lateEnd > 0 {
		late = append(late, fmt.Sprintf("its end set %.3f ms late", float64(lateEnd)/1e6))
	}
	if len(late) == 0 {
		return line + ")"
	}
	return line + "; " + strings.Join(late, ", ") + " on a loaded machine: a bound may lie up to that much later)"
}

// serveTopMetrics serves top's Prometheus metrics (topCollector and the
// process's own) on ln at /metrics, says where on errw, and returns the
// function that stops the server.
func serveTopMetrics(errw io.Writer, top *ebpf.Top, ln net.Listener) (stop func()) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&topCollector{top: top, mounts: ebpf.FindCgroupMounts("/proc/self/mountinfo")}, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(errw, "traceview top: metrics at http://%s/metrics\n", ln.Addr())
	return func() { srv.Close() }
}

// noteV1Moves says on errw which tasks changed cgroup v1 cpu group
// within the window (since, now]: their counts are in rows of their own
// (topCgroups, topMovedRow). Without the watcher of moves, it says in the
// first window that moves are not followed.
func noteV1Moves(errw io.Writer, stats []ebpf.TaskStat, v1 *ebpf.V1Groups, since, now int64, first bool) {
	if v1 == nil {
		return
	}
	var moved []string
	for _, s := range stats {
		m, ok := v1.Moved(s.TID, s.PID, since, now)
		if !ok {
			if !first || v1.Exact() == "" {
				return
			}
			fmt.Fprintf(errw, "traceview top: moves between cgroup v1 cpu groups are not followed (%s): a task counts in the group the 100 ms readings of the tasks files list it in at the window's end\n", v1.Exact())
			return
		}
		if m {
			moved = append(moved, fmt.Sprintf("%s:%d", s.Comm, s.TID))
		}
	}
	if len(moved) == 0 {
		return
	}
	slices.Sort(moved)
	shown := moved
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(moved) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(moved)-len(shown))
	}
	what := fmt.Sprintf("%d tasks changed", len(moved))
	if len(moved) == 1 {
		what = "1 task changed"
	}
	fmt.Fprintf(errw, "traceview top: %s cgroup v1 cpu group in this window (%s%s): their counts cannot be split at the move, so they are in rows \"(moved within the window into GROUP)\", not in the groups' (traceview record splits each run at the move)\n",
		what, strings.Join(shown, ", "), more)
}

// topMovedRow names the row of the tasks that moved into v1 cpu group
// path ("" or "/": the root) within a window: their counts cannot be split at the
// move, so they are in no group's row (a quota'd group read 2.6 times
// what its quota allows with them).
func topMovedRow(path string) string {
	if path == "" {
		path = "/"
	}
	return movedPrefix + path + ")"
}

// movedPrefix begins the key of a topMovedRow.
const movedPrefix = "(moved within the window into "

// movedGroup returns the group a topMovedRow key names (ok false for
// another key).
func movedGroup(key string) (path string, ok bool) {
	if !strings.HasPrefix(key, movedPrefix) || !strings.HasSuffix(key, ")") {
		return "", false
	}
	return key[len(movedPrefix) : len(key)-1], true
}

// topCgroups names the cgroups of a window's stats (cgroup v2 paths, as
// ResolveCgroups finds them) and gives each task that v1 saw in a non-root
// cgroup v1 cpu group at the window's end (now) that group instead, under
// an id of its own (ebpf.V1CgroupIDBit set, as record gives them), so
// that the group is a row. A task that moved between v1 groups within the
// window (since, now] is in a row of its own per destination
// (topMovedRow), not in a group's.
func topCgroups(stats []ebpf.TaskStat, v1 *ebpf.V1Groups, since, now int64, seen map[trace.PID]string) map[uint64]string {
	ids := map[uint64]bool{}
	v1ids := map[string]uint64{}
	names := map[uint64]string{}
	for i, s := range stats {
		p := v1.Group(s.TID, s.PID, now)
		if moved, _ := v1.Moved(s.TID, s.PID, since, now); moved {
			p = topMovedRow(p)
		}
		if p == "/" {
			// Moved back to the v1 root group: its cgroup v2 group
			// does not schedule it (ebpf.V1Groups.Group).
			stats[i].Cgroup = trace.RootCgroupID
			ids[trace.RootCgroupID] = true
			continue
		}
		if p != "" {
			id, ok := v1ids[p]
			if !ok {
				id = ebpf.V1CgroupIDBit | uint64(len(v1ids)+1)
				v1ids[p], names[id] = id, p
			}
			stats[i].Cgroup = id
			continue
		}
		ids[s.Cgroup] = true
	}
	cgroups := ebpf.ResolveCgroups(ebpf.CgroupRoot(), ids)
	for id, p := range names {
		cgroups[id] = p
	}
	topAutogroups(stats, cgroups, seen)
	return cgroups
}

// topAutogroups gives each task of the root cpu group, with the autogroup
// sysctl on, its process's autogroup ("/autogroup-24", read from
// /proc/PID/autogroup now; trace.AutogroupCgroupID its id), as record
// reads them and latency --by cgroup then names them: with the sysctl on
// a task of the root group is scheduled in its session's autogroup, a
// task group of its own (kernel/sched/autogroup.c task_wants_autogroup,
// v6.18). Before, top put every session's tasks in one "/" row (new-user
// pass 72 F3). A process gone by now has the autogroup the window's
// readings saw it in (seen: topNames.autogroups); a kernel thread (no
// autogroup file) stays in "/".
func topAutogroups(stats []ebpf.TaskStat, cgroups map[uint64]string, seen map[trace.PID]string) {
	if ebpf.AutogroupEnabled("/proc") != 1 {
		return
	}
	of := map[trace.PID]uint64{}
	for i, s := range stats {
		if s.PID <= 0 || cgroups[s.Cgroup] != "/" {
			continue
		}
		id, ok := of[s.PID]
		if !ok {
			path := ""
			if ag, read := ebpf.ReadAutogroup("/proc", s.PID); read {
				path = ag.Path
			} else {
				path = seen[s.PID] // (gone: as a reading in the window saw it)
			}
			if aid, valid := trace.AutogroupCgroupID(path); valid {
				id, cgroups[aid] = aid, path
			}
			of[s.PID] = id
		}
		if id != 0 {
			stats[i].Cgroup = id
		}
	}
}

// waitWindow waits out a window of top (false when ctx ends first),
// reading the tasks' names every topNameEvery into names.
func waitWindow(ctx context.Context, top *ebpf.Top, window time.Duration, names *topNames) bool {
	end := time.Now().Add(window)
	for {
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(min(left, time.Duration(topNameEvery))):
		}
		if time.Until(end) <= 0 {
			return true // (the window's end reads them: SnapshotAt)
		}
		if snap, err := top.Snapshot(); err == nil {
			names.observe(snap)
		}
	}
}

// topWindowJSON is a top window's bounds in -o json, as the window line
// on stderr gives them (topWindowLine): CLOCK_MONOTONIC ns, its length, the
// online CPUs (0: not read), so that run times can be read against
// duration × CPUs, and how late each bound was set (ebpf.Top.SnapshotLate;
// new-user pass 117 F4: the window was on stderr only).
type topWindowJSON struct {
	StartNs     int64 `json:"start_ns"`
	EndNs       int64 `json:"end_ns"`
	DurationNs  int64 `json:"duration_ns"`
	CPUs        int   `json:"cpus"`
	StartLateNs int64 `json:"start_late_ns"`
	EndLateNs   int64 `json:"end_late_ns"`
}

// newTopWindow is the window (since, now] with its bounds' lateness and
// the machine's online CPUs.
func newTopWindow(since, now, lateStart, lateEnd int64) *topWindowJSON {
	w := &topWindowJSON{StartNs: since, EndNs: now, DurationNs: now - since, StartLateNs: lateStart, EndLateNs: lateEnd}
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if cpus, err := cpulist.Parse(strings.TrimSpace(string(b))); err == nil {
			w.CPUs = len(cpus)
		}
	}
	return w
}

// topJSON is top's -o json document: latency's, and the window (omitted
// when not known).
type topJSON struct {
	report.LatencyJSON
	Window *topWindowJSON `json:"window,omitempty"`
}

// writeTopJSON writes a window's rows as latency -o json does, with
// renamed (topNames.note, "" none; of n tasks) among the warnings and the
// window's bounds (nil: none).
func writeTopJSON(w io.Writer, rows []*topRow, renamed string, n int, window *topWindowJSON) error {
	doc := report.LatencyJSON{Tasks: []report.LatencyJSONRow{}, Warnings: []trace.Warning{}}
	unmeasured := 0
	for _, r := range rows {
		pid := r.pid
		if len(r.tasks) == 1 && pid == 0 && !r.cgroup {
			// As latency's JSON: a row of one task carries its tid (a
			// group's row names a group, pid 0 as --help says: new-user
			// pass 22 F5 saw a one-task group's row keyed by its tid).
			for tid := range r.tasks {
				pid = int64(tid)
			}
		}
		doc.Tasks = append(doc.Tasks, report.LatencyJSONRow{
			Comm: r.comm, PID: pid, NrTasks: len(r.tasks), RuntimeNs: r.runtime, Count: r.delays,
			Switches: r.switches, AvgDelayNs: r.avg(), MaxDelayNs: r.delayMax, SumDelayNs: r.delaySum,
			MaxDelayStartNs: r.maxAt - r.delayMax, MaxDelayEndNs: r.maxAt,
		})
		if r.runUnmeasured() {
			// As the table's "-": switched in, its runs never closed
			// (writeTopTable), not 0 ns of CPU.
			doc.Tasks[len(doc.Tasks)-1].RuntimeNs = -1
			unmeasured++
		}
		if r.subtree != 0 {
			// A quota'd group's sum of the rows below it
			// (addQuotaRows): out of the totals, which count them.
			doc.Tasks[len(doc.Tasks)-1].Extra = map[string]int64{"subtree_rows": int64(max(r.subtree, 0))}
		}
		if r.bw {
			// Named apart from latency's throttled_ns (the waits of the
			// row's tasks in a trace): these are the group's cpu.stat.
			if doc.Tasks[len(doc.Tasks)-1].Extra == nil {
				doc.Tasks[len(doc.Tasks)-1].Extra = map[string]int64{}
			}
			doc.Tasks[len(doc.Tasks)-1].Extra["cpu_stat_throttled_ns"] = r.thrNS
			doc.Tasks[len(doc.Tasks)-1].Extra["cpu_stat_throttled_periods"] = r.thrPeriods
		}
		if r.subtree != 0 {
			continue
		}
		doc.Total.RuntimeNs += max(r.runtime, 0)
		doc.Total.Count += r.delays
		doc.Total.Switches += r.switches
		doc.Total.SumDelayNs += r.delaySum
	}
	if n := unseenWaits(rows); n > 0 {
		doc.Warnings = append(doc.Warnings, trace.Warning{Key: "top-waits-unseen", Count: int(n), Message: unseenWaitsText(n)})
	}
	if renamed != "" {
		doc.Warnings = append(doc.Warnings, trace.Warning{Key: "top-renamed", Count: n, Message: renamed})
	}
	if unmeasured > 0 {
		doc.Warnings = append(doc.Warnings, trace.Warning{Key: "top-runtime-unmeasured", Count: unmeasured,
			Message: fmt.Sprintf("runtime_ns -1: in %s the tasks were switched in but not out by a sched_switch of their own (the CPU's next one switched out another task): run time not measured", plural(unmeasured, "row"))})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(topJSON{LatencyJSON: doc, Window: window})
}

// writeTopTable writes a window's table, at most max rows (0: all); its
// first column is the grouping of --by (by): Task for comm and task rows,
// as 'latency' heads them, Cgroup for cgroup rows.
func writeTopTable(w io.Writer, rows []*topRow, by string, max int, window time.Duration) error {
	ms := func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) + " ms" }
	shown := fmt.Sprintf("%d rows", len(rows))
	if max > 0 && len(rows) > max {
		shown = fmt.Sprintf("%d rows, the first %d shown (--rows 0 shows all)", len(rows), max)
	}
	fmt.Fprintf(w, "traceview top: window %.3f s, %s\n", window.Seconds(), shown)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	key := "Task"
	if by == "cgroup" {
		key = "Cgroup"
	}
	head := key + "\tTasks\tRuntime\tSwitches\tDelays\tAvg delay\tMax delay\tSum delay\t"
	if by == "cgroup" {
		head += "Throttled\t"
	}
	fmt.Fprintln(tw, head)
	unmeasured, throttled, subtrees := 0, 0, 0
	for i, r := range rows {
		if max > 0 && i == max {
			break
		}
		run := ms(r.runtime)
		if r.runUnmeasured() {
			// Switched in, yet no run measured: not "0.000 ms" of
			// CPU, which it had (see the note under the table).
			run = "-"
			unmeasured++
		}
		// The key escaped, as every text table's names (termsafe): a
		// comm or a cgroup path is any bytes, a newline or an ESC
		// sequence among them.
		label := termsafe.Label(r.key)
		if r.pid != 0 && !r.cgroup {
			// (--by task: the name escaped alone, as by comm; spaces at
			// the end of "  sp  :30505"'s name were kept raw.)
			label = termsafe.Label(r.comm) + ":" + strconv.FormatInt(r.pid, 10)
		}
		if r.subtree != 0 {
			label += " (with below)"
			subtrees++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t", label, len(r.tasks), run, r.switches, r.delays, ms(r.avg()), ms(r.delayMax), ms(r.delaySum))
		if by == "cgroup" {
			thr := "-"
			if r.bw {
				thr = ms(r.thrNS)
				if r.thrNS > 0 {
					throttled++
				}
			}
			fmt.Fprint(tw, thr+"\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if throttled > 0 {
		if _, err := fmt.Fprintf(w, "Throttled: how long the group's runqueues were throttled by its CPU quota in the window (cpu.stat throttled_time, summed over CPUs, so it can exceed the window; - where the group has no cpu.stat); the group's delays include that wait: %s throttled\n", plural(throttled, "group")); err != nil {
			return err
		}
	}
	if subtrees > 0 {
		if _, err := fmt.Fprintf(w, "(with below): a group whose CPU quota was in force in the window but none of whose tasks ran in it; its row sums the rows of the groups below it (their tasks are under its quota, and its cpu.stat counts the throttles; theirs do not), or is empty for a group its tasks left: %s\n", plural(subtrees, "row")); err != nil {
			return err
		}
	}
	if n := unseenWaits(rows); n > 0 {
		if _, err := fmt.Fprintln(w, unseenWaitsText(n)); err != nil {
			return err
		}
	}
	if unmeasured > 0 {
		// The kernel side adds a run at the task's switch-out only when
		// the CPU's last switch-in was that task (agg_sched_switch in
		// ebpf/sched.c); on this VM PID 1's threads are switched in and
		// out with no sched_switch between, as latency's warning says.
		_, err := fmt.Fprintf(w, "Runtime -: in %s the tasks were switched in but not out by a sched_switch of their own (the CPU's next one switched out another task): run time not measured\n", plural(unmeasured, "row"))
		return err
	}
	return nil
}

// unseenWaits counts the switch-ins of rows (those of quota'd ancestors'
// sums left out) that ended no measured delay: the kernel side measures
// a delay from the wakeup or preemption it saw (agg_ready in ebpf/sched.c),
// so a wait under way when top attached ends uncounted, in the first
// window (new-user pass 22 F4: two throttled waits, 113.9 ms, missing
// from --once's window without a word, where a record of the same window
// counts them).
func unseenWaits(rows []*topRow) int64 {
	var n int64
	for _, r := range rows {
		if r.subtree == 0 {
			n += max(r.switches-r.delays, 0)
		}
	}
	return n
}

// unseenWaitsText says what unseenWaits counted.
func unseenWaitsText(n int64) string {
	return fmt.Sprintf("Switches without a delay: %s ended waits whose start top did not see (under way when it started): not in Count, Avg, Max or Sum delay",
		plural(int(n), "switch-in"))
}

// topCollector turns the kernel's totals into Prometheus metrics at each
// scrape: per comm and per cgroup (never per task: a label per TID would
// make a series per thread), cumulative since top started.
//
// mounts, when set, are the cgroup hierarchies whose cpu.stat gives the
// cgroup series' throttled time (ebpf.ReadBandwidth at each scrape).
type topCollector struct {
	top    *ebpf.Top
	mounts ebpf.CgroupMounts
}

var (
	commDelay    = prometheus.NewDesc("traceview_comm_sched_delay_seconds", "Scheduling delays (wakeup or preemption to switch-in) of the tasks of a comm.", []string{"comm"}, nil)
	cgroupDelay  = prometheus.NewDesc("traceview_cgroup_sched_delay_seconds", "Scheduling delays (wakeup or preemption to switch-in) of the tasks of a cgroup (v2 path).", []string{"cgroup"}, nil)
	commSwitch   = prometheus.NewDesc("traceview_comm_switches_total", "Switches in of the tasks of a comm.", []string{"comm"}, nil)
	cgroupSwitch = prometheus.NewDesc("traceview_cgroup_switches_total", "Switches in of the tasks of a cgroup.", []string{"cgroup"}, nil)
	commRun      = prometheus.NewDesc("traceview_comm_runtime_seconds_total", "On-CPU time of the tasks of a comm.", []string{"comm"}, nil)
	cgroupRun    = prometheus.NewDesc("traceview_cgroup_runtime_seconds_total", "On-CPU time of the tasks of a cgroup.", []string{"cgroup"}, nil)
	cgroupThr    = prometheus.NewDesc("traceview_cgroup_throttled_seconds_total", "Time the cgroup's runqueues spent throttled by its CPU quota, summed over CPUs (its cpu.stat throttled_time or throttled_usec, as the kernel counts it since the group was made), for the cgroups of the delay series whose cpu.stat has bandwidth counters.", []string{"cgroup"}, nil)
	cgroupThrN   = prometheus.NewDesc("traceview_cgroup_throttled_periods_total", "Bandwidth periods at whose end the cgroup was throttled (cpu.stat nr_throttled, since the group was made).", []string{"cgroup"}, nil)
	lostDesc     = prometheus.NewDesc("traceview_lost_events_total", "Events the in-kernel aggregation missed: runs of its BPF programs the kernel skipped because another BPF program was running on the CPU (recursion misses, Linux >= 5.12). It sends no records, so none are lost in buffers; tasks evicted from its 16384-entry map show in traceview_top_tasks instead.", nil, nil)
	bpfRunDesc   = prometheus.NewDesc("traceview_bpf_run_seconds_total", "CPU time spent in the aggregation's BPF programs, the capture's overhead in the kernel (needs sysctl kernel.bpf_stats_enabled=1; 0 without).", nil, nil)
	bpfRunsDesc  = prometheus.NewDesc("traceview_bpf_runs_total", "Runs of the aggregation's BPF programs (needs sysctl kernel.bpf_stats_enabled=1; 0 without).", nil, nil)
	tasksDesc    = prometheus.NewDesc("traceview_top_tasks", "Tasks held in the kernel's aggregation map (at most 16384; beyond, the least recently used are evicted and their counts restart).", nil, nil)
	scrapeDesc   = prometheus.NewDesc("traceview_top_scrape_seconds", "User-space time of the last read of the kernel's aggregation map (capture overhead besides the BPF programs).", nil, nil)
)

func (c *topCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{commDelay, cgroupDelay, commSwitch, cgroupSwitch, commRun, cgroupRun, cgroupThr, cgroupThrN, lostDesc, bpfRunDesc, bpfRunsDesc, tasksDesc, scrapeDesc} {
		ch <- d
	}
}

func (c *topCollector) Collect(ch chan<- prometheus.Metric) {
	t0 := time.Now()
	snap, err := c.top.Snapshot()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(commDelay, err)
		return
	}
	stats := make([]ebpf.TaskStat, 0, len(snap))
	ids := map[uint64]bool{}
	for _, s := range snap {
		stats = append(stats, s)
		ids[s.Cgroup] = true
	}
	cgroups := ebpf.ResolveCgroups(ebpf.CgroupRoot(), ids)
	for _, g := range []struct {
		by                   string
		delay, switches, run *prometheus.Desc
	}{{"comm", commDelay, commSwitch, commRun}, {"cgroup", cgroupDelay, cgroupSwitch, cgroupRun}} {
		var bw map[string]trace.CgroupStat
		if g.by == "cgroup" {
			bw = ebpf.ReadBandwidth(c.mounts, 0)
		}
		for _, r := range groupTop(stats, g.by, cgroups) {
			ch <- prometheus.MustNewConstHistogram(g.delay, uint64(r.delays), float64(r.delaySum)/1e9, histBuckets(r.hist), r.key)
			ch <- prometheus.MustNewConstMetric(g.switches, prometheus.CounterValue, float64(r.switches), r.key)
			ch <- prometheus.MustNewConstMetric(g.run, prometheus.CounterValue, float64(r.runtime)/1e9, r.key)
			if st, ok := bw[r.key]; ok {
				ch <- prometheus.MustNewConstMetric(cgroupThr, prometheus.CounterValue, float64(st.ThrottledNS)/1e9, r.key)
				ch <- prometheus.MustNewConstMetric(cgroupThrN, prometheus.CounterValue, float64(st.NrThrottled), r.key)
			}
		}
	}
	if st, err := c.top.Stats(); err != nil {
		ch <- prometheus.NewInvalidMetric(lostDesc, err)
	} else {
		ch <- prometheus.MustNewConstMetric(lostDesc, prometheus.CounterValue, float64(st.RecursionMisses))
		ch <- prometheus.MustNewConstMetric(bpfRunDesc, prometheus.CounterValue, st.Runtime.Seconds())
		ch <- prometheus.MustNewConstMetric(bpfRunsDesc, prometheus.CounterValue, float64(st.Runs))
	}
	ch <- prometheus.MustNewConstMetric(tasksDesc, prometheus.GaugeValue, float64(len(snap)))
	ch <- prometheus.MustNewConstMetric(scrapeDesc, prometheus.GaugeValue, time.Since(t0).Seconds())
}

// histBuckets turns the kernel's log2 histogram (bucket i: 2^i <= d <
// 2^(i+1) ns, the last open-ended) into Prometheus's cumulative buckets:
// upper bound 2^(i+1) ns in seconds for every bucket but the last, which
// +Inf (the count) covers.
func histBuckets(h [ebpf.HistBuckets]int64) map[float64]uint64 {
	out := make(map[float64]uint64, len(h)-1)
	var cum uint64
	for i := 0; i < len(h)-1; i++ {
		cum += uint64(h[i])
		out[float64(uint64(1)<<(i+1))/1e9] = cum
	}
	return out
}

// windowFlags makes -d the refresh interval of the live table when it is
// given without --once (dSet) and --interval is not (iSet), as procps
// top's -d is its delay between refreshes: 'top -d 2s' refreshed every 1 s
// and said nothing. Both given without --once is a usage error.
func (o *topOptions) windowFlags(dSet, iSet bool) error {
	if o.once || !dSet {
		return nil
	}
	if iSet {
		return usageErrorf("top: without --once, -d and --interval both set how often the live table refreshes: give one of them")
	}
	o.interval = o.duration
	return nil
}

// plan checks top's command line before anything is loaded: --by, -o,
// the sort keys, the durations and the CPUs.
func (o topOptions) plan() (keys []string, opts ebpf.Options, err error) {
	if o.by != "comm" && o.by != "task" && o.by != "cgroup" {
		return nil, opts, usageErrorf("top: --by must be comm, task or cgroup, got %q", o.by)
	}
	if o.output != "table" && o.output != "json" {
		return nil, opts, usageErrorf("top: -o must be table or json, got %q", o.output)
	}
	if keys, err = parseTopSort(o.sort); err != nil {
		return nil, opts, usageErrorf("top: -s: %v", err)
	}
	if o.duration <= 0 || o.interval <= 0 {
		return nil, opts, usageErrorf("top: -d and --interval must be positive")
	}
	if o.rows < 0 {
		return nil, opts, usageErrorf("top: --rows %d: want 0 (all) or more", o.rows)
	}
	if o.cpus != "" {
		if opts.CPUs, err = cpulist.Parse(o.cpus); err != nil {
			return nil, opts, usageErrorf("top: --cpu: %v", err)
		}
	}
	return keys, opts, nil
}
