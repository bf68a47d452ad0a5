package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
)

// HTMLOptions tune WriteHTMLReport.
type HTMLOptions struct {
	// Name is shown as the trace's name (usually its path).
	Name string
	// Top is the number of rows of the "top tasks" lists (default 10).
	Top int
	// Buckets is the number of time buckets of the utilization and
	// runqueue plots (default 200).
	Buckets int
	// Latency is passed to ComputeLatency (Percentiles is always set).
	Latency LatencyOptions
	// Notes, when set, is called once the trace is read, with the
	// latency report's per-task rows (LatencyResult.TaskRows), and its
	// lines are shown among the warnings: the caller's notes on the trace,
	// e.g. the tasks renamed during it (new-user pass 57 F4: the report
	// named kidB0 and never kidA0, its earlier name, which latency's note
	// gives).
	Notes func(rows []LatencyRow) []string
	// Warnings, when set, is called once the trace is read with the
	// latency report's own warnings (LatencyResult.ReportWarnings: missing
	// switches and wakeups, dropped delays), which the page shows, so that
	// the command says them on stderr too, as latency does (new-user pass
	// 111 F1: `report -v` printed none of them).
	Warnings func([]trace.Warning)
}

// HTMLPlots is the number of inline SVG plots a report holds: top tasks by
// sum delay, top tasks by p99 delay, the delay histogram, per-CPU
// utilization over time and runqueue length over time.
const HTMLPlots = 5

// WriteHTMLReport reads src to the end (it does not close it) and writes
// one self-contained HTML page (no scripts, no external resources): the
// trace summary, the top tasks by sum and by p99 scheduling delay, a
// histogram of scheduling delays in log2 microsecond buckets (as runqlat),
// per-CPU utilization and runqueue length over time, and the latency table
// (ComputeLatency, rows merged by command). Plots are inline SVG drawn with
// gonum.org/v1/plot (vg/vgsvg). Errors are the source's or w's.
func WriteHTMLReport(w io.Writer, src trace.Source, opts HTMLOptions) error {
	if opts.Top <= 0 {
		opts.Top = 10
	}
	if opts.Buckets <= 0 {
		opts.Buckets = 200
	}
	col := newStatsCollector(StatsOptions{Buckets: opts.Buckets, Filter: opts.Latency.Filter}, src.Meta())
	lo := opts.Latency
	lo.Percentiles = true
	// The stats see every event on the reading goroutine, every kind
	// (ComputeLatency asks its source to skip sched_migrate_task, which the
	// stats' migrations and runqueues need).
	lat, err := ComputeLatency(&trace.Tap{Source: src, Observe: col.observe, KeepKinds: true}, lo)
	if err != nil {
		return err
	}
	st := col.result(src.Meta())

	page := htmlPage{Name: termsafe.Name(opts.Name), Stats: st, Lat: lat}
	page.Summary = htmlSummary(opts.Name, src.Meta(), st, lat)
	for _, wn := range lat.Warnings {
		// The messages escape the task names they quote (termsafe.Name):
		// only what they let through is escaped here, not their
		// backslashes again (new-user pass 39 F4: "evil\\ttab" beside the
		// table's "evil\ttab").
		page.Warnings = append(page.Warnings, termsafe.PerfName(wn.String()))
	}
	if opts.Notes != nil {
		page.Warnings = append(page.Warnings, opts.Notes(lat.TaskRows)...)
	}
	if opts.Warnings != nil {
		opts.Warnings(lat.ReportWarnings)
	}
	page.Cols = htmlColumns(&lat.Options)
	for _, c := range page.Cols {
		page.Head = append(page.Head, c.Title)
		cell := htmlCell{}
		if c.Total != nil {
			cell = htmlCell{Text: htmlValue(c, c.Total(&lat.Total)), Set: true}
		}
		page.TotalCells = append(page.TotalCells, cell)
	}
	page.Rows = htmlTableRows(lat.Rows, page.Cols)
	page.Groups = htmlGroups(lat.Cgroups)
	bySum := htmlTop(lat.Rows, opts.Top, func(r *LatencyRow) int64 { return r.SumDelay })
	byP99 := htmlTop(lat.Rows, opts.Top, func(r *LatencyRow) int64 { return r.P99 })
	sumCols, p99Cols := htmlColumnsByKey(htmlTopSumKeys), htmlColumnsByKey(htmlTopP99Keys)
	page.TopSumHead, page.TopSum = htmlTitles(sumCols), htmlTableRows(bySum, sumCols)
	page.TopP99Head, page.TopP99 = htmlTitles(p99Cols), htmlTableRows(byP99, p99Cols)

	plots := []struct {
		dst  *template.HTML
		draw func() (*plot.Plot, error)
		w, h vg.Length
	}{
		{&page.PlotSum, func() (*plot.Plot, error) {
			return htmlBars("Top tasks by sum of scheduling delay", "sum delay (ms)", bySum, func(r *LatencyRow) int64 { return r.SumDelay })
		}, 7 * vg.Inch, 3.2 * vg.Inch},
		{&page.PlotP99, func() (*plot.Plot, error) {
			return htmlBars("Top tasks by p99 scheduling delay", "p99 delay (ms)", byP99, func(r *LatencyRow) int64 { return r.P99 })
		}, 7 * vg.Inch, 3.2 * vg.Inch},
		{&page.PlotHist, func() (*plot.Plot, error) { return htmlHistogram(st) }, 9 * vg.Inch, 3.5 * vg.Inch},
		{&page.PlotUtil, func() (*plot.Plot, error) {
			return htmlSeries("CPU utilization over time", "utilization (%)", 100, false, st, func(c, i int) float64 { return 100 * st.Series.Utilization[c][i] })
		}, 9 * vg.Inch, 3 * vg.Inch},
		{&page.PlotRunq, func() (*plot.Plot, error) {
			return htmlSeries("Runqueue length over time (tasks waiting, time-weighted mean per bucket)", "tasks", 0, true, st, func(c, i int) float64 { return st.Series.Runqueue[c][i] })
		}, 9 * vg.Inch, 3 * vg.Inch},
	}
	for _, pl := range plots {
		p, err := pl.draw()
		if err != nil {
			return fmt.Errorf("html report: plot: %w", err)
		}
		svg, err := htmlSVG(p, pl.w, pl.h)
		if err != nil {
			return fmt.Errorf("html report: plot: %w", err)
		}
		*pl.dst = svg
	}
	return htmlTemplate.Execute(w, &page)
}

type htmlKV struct{ Key, Value string }

// htmlTableRow is a row of the latency table: the task and one cell per
// column of htmlPage.Cols.
type htmlTableRow struct {
	Task  string
	Cells []string
}

// htmlCell is a cell of the TOTAL row, empty unless Set.
type htmlCell struct {
	Text string
	Set  bool
}

type htmlPage struct {
	Name     string
	Summary  []htmlKV
	Warnings []string
	Stats    *Stats
	Lat      *LatencyResult
	// Cols are the latency table's columns, Head their titles; Rows and
	// TotalCells its rows and TOTAL line.
	Cols       []*LatencyColumn
	Head       []string
	Rows       []htmlTableRow
	TotalCells []htmlCell
	// TopSum and TopP99 are the tables of the tasks with the largest sum
	// and p99 delays, with the columns of htmlTopSumKeys and
	// htmlTopP99Keys titled by TopSumHead and TopP99Head.
	TopSumHead, TopP99Head []string
	TopSum, TopP99         []htmlTableRow

	PlotSum, PlotP99, PlotHist, PlotUtil, PlotRunq template.HTML
	// Groups: the task-group table (WriteCgroupTable's figures), one row
	// per group; empty when the trace records none.
	Groups []htmlGroup
}

// htmlGroup is a row of the task-group table.
type htmlGroup struct {
	Path, Runtime, CPUs, AvgDelay, MaxDelay, Periods, Throttled, Weight, Quota string
	// Kernel is the group's cpu.stat over the trace, "N of M periods, X
	// ms" ("" when the trace has none), and Notes what latency says under
	// its group table about the inference (KernelNote, QuotaNote, lost
	// events): a report without them showed throttles the kernel never
	// counted (new-user pass 19 F3).
	Kernel string
	Notes  []string
	// Throttles: the group's throttled stretches, "start–end s" (at most
	// htmlMaxThrottles, then how many more).
	Throttles []string
}

// htmlMaxThrottles bounds the throttled stretches listed per group.
const htmlMaxThrottles = 20

func htmlGroups(groups []CgroupThrottle) []htmlGroup {
	var out []htmlGroup
	for i := range groups {
		g := &groups[i]
		avg := int64(0)
		if g.Delays > 0 {
			avg = g.SumDelay / g.Delays
		}
		hg := htmlGroup{Path: termsafe.Name(g.Path), Runtime: htmlMs(g.Runtime), CPUs: fmt.Sprintf("%.3f", g.CPUs), AvgDelay: htmlMs(avg),
			MaxDelay: htmlMs(g.MaxDelay), Periods: fmt.Sprint(g.ThrottledPeriods), Throttled: htmlMs(g.Throttled), Weight: g.WeightText(), Quota: quotaText(g)}
		if g.Delays == 0 {
			hg.AvgDelay, hg.MaxDelay = "-", "-" // none measured, as the text table says
		}
		if g.Settings == AutogroupSettings || g.NotModelled() {
			hg.Periods, hg.Throttled = "-", "-" // never throttled, as the text table says
		}
		if k := g.Kernel; k != nil {
			hg.Kernel = fmt.Sprintf("%d of %d periods, %s", k.NrThrottled, k.NrPeriods, htmlMs(k.ThrottledNS))
			if g.KernelWholeTrace {
				hg.Kernel += " (the whole trace, not this window or these CPUs)"
			}
			if g.KernelPredicted {
				hg.Kernel += " (counted by the replay that predicted this trace)"
			}
		}
		for _, n := range []string{g.KernelNote, g.QuotaNote} {
			if n != "" {
				hg.Notes = append(hg.Notes, n)
			}
		}
		if g.LostWindows > 0 {
			hg.Notes = append(hg.Notes, fmt.Sprintf("the recording lost events in %s while the group ran: its throttled periods and time are a lower bound", plural(g.LostWindows, "window", "windows")))
		}
		for k, t := range g.Throttles {
			if k == htmlMaxThrottles {
				hg.Throttles = append(hg.Throttles, fmt.Sprintf("and %d more", len(g.Throttles)-k))
				break
			}
			hg.Throttles = append(hg.Throttles, fmt.Sprintf("%s–%s s", usecStamp(t.Start), usecStamp(t.End)))
		}
		out = append(out, hg)
	}
	return out
}

func htmlMs(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }

// htmlTask names a row for people: "comm:tid", or "comm (N tasks)" for a
// merged row. The comm is escaped as in the text tables (termsafe.Label):
// html/template escapes markup but passes control characters, and a name
// set with prctl may hold ESC and BEL (invalid in the page's SVG too); a
// browser collapses the spaces of a name made of spaces.
func htmlTask(r *LatencyRow) string {
	comm := termsafe.Label(r.Comm)
	switch {
	case r.NrTasks > 1:
		return fmt.Sprintf("%s (%d tasks)", comm, r.NrTasks)
	case r.TID > 0:
		return fmt.Sprintf("%s:%d", comm, r.TID)
	}
	return comm
}

// The columns of the top-task tables, by LatencyColumns key.
var (
	htmlTopSumKeys = []string{"sum_delay_ns", "count", "avg_delay_ns", "max_delay_ns"}
	htmlTopP99Keys = []string{"p99_delay_ns", "count", "max_delay_ns"}
)

// htmlColumnsByKey returns the LatencyColumns of keys, in their order.
func htmlColumnsByKey(keys []string) []*LatencyColumn {
	var cols []*LatencyColumn
	for _, k := range keys {
		for i := range LatencyColumns {
			if LatencyColumns[i].Key == k {
				cols = append(cols, &LatencyColumns[i])
			}
		}
	}
	return cols
}

func htmlTitles(cols []*LatencyColumn) []string {
	var t []string
	for _, c := range cols {
		t = append(t, c.Title)
	}
	return t
}

// htmlTableRows renders rows with the cells of cols.
func htmlTableRows(rows []LatencyRow, cols []*LatencyColumn) []htmlTableRow {
	out := make([]htmlTableRow, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = htmlValue(c, c.Int(r))
			if unknownIn(c, r) && r.RuntimeSource != "" {
				// As the CLI's table: unknown, not 0 (new-user pass
				// 118 F2: 0.000 ms for tasks switched in 27 times).
				cells[j] = "-"
			}
		}
		out = append(out, htmlTableRow{Task: htmlTask(r), Cells: cells})
	}
	return out
}

// htmlColumns returns the LatencyColumns with HTML set: the figures in
// their order, then the timestamps (the bounds of the largest delay).
func htmlColumns(o *LatencyOptions) []*LatencyColumn {
	cols := latencyColumns(o, func(c *LatencyColumn) bool { return c.HTML })
	sort.SliceStable(cols, func(i, j int) bool {
		return cols[i].Kind != ColumnTimestamp && cols[j].Kind == ColumnTimestamp
	})
	return cols
}

// htmlValue renders v, a value of c: times in ms, timestamps truncated to
// µs like the CLI's table (perf's timestamps), not rounded.
func htmlValue(c *LatencyColumn, v int64) string {
	switch c.Kind {
	case ColumnDuration:
		return htmlMs(v)
	case ColumnTimestamp:
		return usecStamp(v) + " s"
	}
	return strconv.FormatInt(v, 10)
}

func htmlSummary(name string, m *trace.Meta, st *Stats, lat *LatencyResult) []htmlKV {
	kv := []htmlKV{{"Trace", termsafe.Name(name)}}
	if m != nil {
		add := func(k, v string) {
			if v != "" {
				kv = append(kv, htmlKV{k, termsafe.Name(v)}) // the trace's own strings: any bytes
			}
		}
		add("Format", m.Format)
		add("Host", m.Hostname)
		add("Kernel", m.OSRelease)
		add("Architecture", m.Arch)
		add("Recorded with", m.Tool)
		add("Command line", termsafe.ShellLine(m.Cmdline))
		if m.NrCPUs > 0 {
			add("CPUs online", fmt.Sprint(m.NrCPUs))
		}
		kv = append(kv, htmlKV{"Lost events", htmlLost(m)})
	}
	span := fmt.Sprintf("%s s to %s s (%.3f ms, first to last scheduler event)", usecStamp(st.Start), usecStamp(st.End), float64(st.Duration)/1e6)
	if lat.Unmatched != nil || st.End < st.Start {
		// A --time window outside the trace: its bounds are no span of
		// events (new-user pass 56 F1: "73632.020854 s to 2.000000 s
		// (-73630020.855 ms, ...)").
		span = "none: the filters matched nothing (stderr says what the trace holds)"
	}
	kv = append(kv,
		htmlKV{"Time span", span},
		htmlKV{"Events", fmt.Sprint(st.Events)},
		htmlKV{"Tasks", fmt.Sprint(st.Tasks)},
		htmlKV{"CPUs with events", fmt.Sprint(st.ObservedCPUs())},
		htmlKV{"Migrations", fmt.Sprint(st.Migrations)},
		htmlKV{"Scheduling delays", fmt.Sprintf("%d, sum %s, max %s", lat.Total.Count, htmlMs(lat.Total.SumDelay), htmlMs(st.Delays.Max))},
		htmlKV{"Total runtime", htmlMs(lat.Total.Runtime) + htmlRuntimeSource(lat)},
	)
	var busy int64
	for _, c := range st.CPUs {
		busy += c.Busy
	}
	kv = append(kv, htmlKV{"Total CPU busy time", htmlMs(busy) + " (switch-in to switch-out, all CPUs)"})
	for _, c := range st.CPUs {
		util := fmt.Sprintf("utilization %.2f %%, unknown %s, %.2f %% of observed (not counted as busy)", 100*c.Utilization, htmlMs(c.Unknown), 100*c.UnknownShare)
		if c.Unobserved {
			kv = append(kv, htmlKV{fmt.Sprintf("CPU %d", c.CPU), "unknown: no recorded sched_switch (utilization, runqueue and switches not measured)"})
			continue
		}
		if !c.RunqueueMeasured() {
			why := "the recording left out some CPUs"
			if !c.RunqueueUnknown {
				why = "its observed time lies wholly in lost-event windows"
			}
			kv = append(kv, htmlKV{fmt.Sprintf("CPU %d", c.CPU), fmt.Sprintf("%s, runqueue not measured (%s), %d switches",
				util, why, c.Switches)})
			continue
		}
		kv = append(kv, htmlKV{fmt.Sprintf("CPU %d", c.CPU), fmt.Sprintf("%s, runqueue avg %.3f tasks, max %d tasks, %d switches",
			util, c.RunqueueAvg, c.RunqueueMax, c.Switches)})
	}
	return kv
}

// htmlRuntimeSource says where the latency table's runtime comes from.
func htmlRuntimeSource(lat *LatencyResult) string {
	if lat.Diag.RuntimeFromSwitches {
		return " (on-CPU time between switches: the trace has no sched_stat_runtime)"
	}
	return " (sum of sched_stat_runtime, as perf)"
}

// htmlTop returns the n rows with the largest key (ties: command name),
// skipping zeros.
func htmlTop(rows []LatencyRow, n int, key func(*LatencyRow) int64) []LatencyRow {
	var out []LatencyRow
	for _, r := range rows {
		if key(&r) > 0 {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := key(&out[i]), key(&out[j])
		if a != b {
			return a > b
		}
		return out[i].Comm < out[j].Comm
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// htmlPalette: distinguishable colors for CPUs and series.
var htmlPalette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255},
}

func htmlBars(title, xlabel string, rows []LatencyRow, key func(*LatencyRow) int64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	vals := make(plotter.Values, len(rows))
	names := make([]string, len(rows))
	// Largest on top: the horizontal chart draws index 0 at the bottom.
	for i, r := range rows {
		j := len(rows) - 1 - i
		vals[j] = float64(key(&r)) / 1e6
		names[j] = htmlTask(&r)
	}
	if len(rows) == 0 {
		p.Title.Text += " (no delays)"
		return p, nil
	}
	if k, v := clipDominant(&p.X, vals); k >= 0 {
		names[k] += fmt.Sprintf(" (%.3f ms, off scale)", v)
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(12))
	if err != nil {
		return nil, err
	}
	bars.Horizontal = true
	bars.Color = htmlPalette[0]
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalY(names...)
	return p, nil
}

// DominantRatio: a bar more than this many times the next largest would
// flatten the others (a bar of 1/50 of the axis is a hairline in 7
// inches), so the value axis stops at 1.3 times the next largest and the
// dominant bar's label carries its value, marked off scale.
const DominantRatio = 10

// clipDominant caps ax above the second largest of vals when the largest
// exceeds it DominantRatio times, and returns the index of the capped bar
// (-1 when none) and its value.
func clipDominant(ax *plot.Axis, vals plotter.Values) (int, float64) {
	ax.Min = 0
	top, second := -1, 0.0
	for i, v := range vals {
		if top < 0 || v > vals[top] {
			if top >= 0 {
				second = max(second, vals[top])
			}
			top = i
		} else {
			second = max(second, v)
		}
	}
	if top < 0 || second <= 0 || vals[top] <= DominantRatio*second {
		return -1, 0
	}
	v := vals[top]
	ax.Max = 1.3 * second
	vals[top] = ax.Max
	ax.Label.Text += " (one bar off scale)"
	return top, v
}

// intTicks marks only whole numbers, printed without decimals (counts,
// tasks), on top of gonum's default tick positions.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			if t.Label == "" {
				out = append(out, plot.Tick{Value: t.Value}) // a minor tick stays
			}
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatInt(int64(t.Value), 10)
		}
		out = append(out, t)
	}
	return out
}

func htmlHistogram(st *Stats) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Scheduling delay histogram (log2 buckets)"
	p.X.Label.Text = "delay (us)"
	p.Y.Label.Text = "count"
	n := max(len(st.WakeupDelays.Buckets), len(st.PreemptDelays.Buckets))
	if n == 0 {
		p.Title.Text += " (no delays)"
		return p, nil
	}
	labels := make([]string, n)
	series := []struct {
		name string
		h    StatsHistogram
	}{{"after wakeup", st.WakeupDelays}, {"after preemption", st.PreemptDelays}}
	const w = 9
	for k := 0; k < n; k++ {
		lo := int64(1) << k
		if k == 0 {
			lo = 0
		}
		labels[k] = fmt.Sprintf("%d-%d", lo, int64(1)<<(k+1)-1)
	}
	p.Y.Min = 0
	p.Y.Tick.Marker = intTicks{} // counts
	for i, s := range series {
		vals := make(plotter.Values, n)
		for k, b := range s.h.Buckets {
			vals[k] = float64(b.Count)
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(w))
		if err != nil {
			return nil, err
		}
		bars.Color = htmlPalette[i]
		bars.LineStyle.Width = 0
		bars.Offset = vg.Points(float64(2*i-1) * w / 2)
		p.Add(bars)
		p.Legend.Add(s.name, bars)
	}
	p.Legend.Top = true
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	return p, nil
}

// htmlSeries draws one line per CPU over time; ceiling > 0 fixes the top
// of the value axis (utilization: 100 %, never more), integer marks the
// axis with whole numbers only (task counts).
func htmlSeries(title, ylabel string, ceiling float64, integer bool, st *Stats, val func(c, i int) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time since trace start (s)"
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	s := st.Series
	if s == nil {
		p.Title.Text += " (no data)"
		return p, nil
	}
	p.Add(plotter.NewGrid())
	for c, cpu := range s.CPUs {
		n := len(s.Utilization[c])
		xys := make(plotter.XYs, n)
		for i := 0; i < n; i++ {
			xys[i].X = (float64(i) + 0.5) * float64(s.Width) / 1e9
			xys[i].Y = val(c, i)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = htmlPalette[c%len(htmlPalette)]
		l.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("CPU %d", cpu), l)
	}
	// Head room above the data for the legend.
	top := 0.0
	for c := range s.CPUs {
		for i := range s.Utilization[c] {
			top = max(top, val(c, i))
		}
	}
	p.Y.Max = max(top, 1) * 1.25
	if ceiling > 0 {
		p.Y.Max = ceiling
	}
	if integer {
		p.Y.Tick.Marker = intTicks{}
	}
	p.Legend.Top = true
	return p, nil
}

// htmlSVG renders p as an SVG element to inline in HTML (the XML prolog
// and comment of vgsvg's document stripped).
func htmlSVG(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("vgsvg output has no <svg> element")
	}
	return template.HTML(s[i:]), nil
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms": func(ns int64) float64 { return float64(ns) / 1e6 },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>traceview report: {{.Name}}</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1200px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f4f4f4; text-align: left; }
figure.plot { margin: 0.8em 0; }
figure.plot svg { max-width: 100%; height: auto; }
.warn { color: #8a4b00; }
.cols { display: flex; gap: 2em; flex-wrap: wrap; }
</style>
</head>
<body>
<h1>traceview report: {{.Name}}</h1>

<h2 id="summary">Trace summary</h2>
<table>
{{range .Summary}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>
{{end}}</table>
{{if .Warnings}}<ul class="warn">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2 id="top">Top tasks by scheduling delay</h2>
<p>Scheduling delay: time from a wakeup (or a preemption) to the switch-in, as perf sched latency measures it. Rows merge tasks with the same command name.</p>
<figure class="plot">{{.PlotSum}}</figure>
<div class="cols">
<table>
<tr><th>Task</th>{{range .TopSumHead}}<th>{{.}}</th>{{end}}</tr>
{{range .TopSum}}<tr><td>{{.Task}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}</table>
</div>
<figure class="plot">{{.PlotP99}}</figure>
<table>
<tr><th>Task</th>{{range .TopP99Head}}<th>{{.}}</th>{{end}}</tr>
{{range .TopP99}}<tr><td>{{.Task}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}</table>

<h2 id="histogram">Scheduling-delay histogram</h2>
<p>Buckets of log2 microseconds, as bcc's runqlat ([0, 2), [2, 4), [4, 8) ... us); {{.Stats.WakeupDelays.Count}} delays after a wakeup, {{.Stats.PreemptDelays.Count}} after a preemption.</p>
<figure class="plot">{{.PlotHist}}</figure>

<h2 id="utilization">CPU utilization over time</h2>
<p>Share of each time bucket the CPU ran a task other than idle.</p>
<figure class="plot">{{.PlotUtil}}</figure>

<h2 id="runqueue">Runqueue length over time</h2>
<p>Tasks waiting on the CPU's runqueue (runnable, not running).</p>
<figure class="plot">{{.PlotRunq}}</figure>

{{if .Groups}}
<h2 id="groups">Task groups</h2>
<p>Per cgroup: run time, CPUs used on average, its tasks' scheduling delays, and the throttling inferred from the schedule (runnable tasks left while the group was out of CPU quota): periods throttled and throttled time summed over CPUs, as cgroup cpu.stat counts nr_throttled and throttled_time. Kernel cpu.stat is what the kernel counted over the trace, where the trace carries its readings (traceview record's); where the two differ, the notes under the table say how far to trust the inference. The Throttled column of the latency table is each task's share of its delays. The root group, /, where kernel threads and tasks of no other group run, is not a row (it has no quota): the rows' run times need not add up to the latency table's TOTAL; <code>traceview latency --by cgroup</code> shows it. A parent group (its path names it) has a row of its whole subtree (“with the groups below it”), which its children's rows count again.</p>
<table>
<tr><th>Task group</th><th>Runtime</th><th>CPUs used</th><th>Avg delay</th><th>Max delay</th><th>Throttled periods</th><th>Throttled</th><th>Kernel cpu.stat</th><th>Weight</th><th>Quota</th><th>Throttled stretches</th></tr>
{{range .Groups}}<tr><td>{{.Path}}</td><td class="n">{{.Runtime}}</td><td class="n">{{.CPUs}}</td><td class="n">{{.AvgDelay}}</td><td class="n">{{.MaxDelay}}</td><td class="n">{{.Periods}}</td><td class="n">{{.Throttled}}</td><td class="n">{{.Kernel}}</td><td class="n">{{.Weight}}</td><td>{{.Quota}}</td><td class="throttles">{{range .Throttles}}<span class="throttle">{{.}}</span> {{end}}</td></tr>
{{end}}</table>
{{range .Groups}}{{$p := .Path}}{{range .Notes}}<p class="note">{{$p}}: {{.}}</p>
{{end}}{{end}}
{{end}}
<h2 id="latency">Latency table</h2>
<table>
<tr><th>Task</th>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Task}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}<tr><th>TOTAL</th>{{range .TotalCells}}{{if .Set}}<th class="n">{{.Text}}</th>{{else}}<th></th>{{end}}{{end}}</tr>
</table>
<p><small>Generated by traceview. Plots: gonum.org/v1/plot.</small></p>
</body>
</html>
`))

// htmlLost is the summary's lost-events cell, as info's lost line says
// it: the recorder's losses, those in the file's damaged, missing or cut
// parts, an unknown number after a cut and in windows of unknown size (a
// cut file read "Lost events 0": new-user pass 49 F3).
func htmlLost(m *trace.Meta) string {
	rec, unknown := m.LostUnplaced, 0
	for _, l := range m.Lost {
		rec += l.Count
		if l.Count == 0 {
			unknown++
		}
	}
	total := rec + m.LostInFile
	if m.LostInFile == 0 && !m.Cut() && unknown == 0 {
		return fmt.Sprint(total)
	}
	parts := []string{fmt.Sprintf("%d reported lost by the recorder", rec)}
	if m.LostInFile > 0 {
		parts = append(parts, fmt.Sprintf("%d in the file's damaged, missing or cut parts", m.LostInFile))
	}
	if m.Cut() {
		parts = append(parts, "an unknown number after the cut (the file is cut short)")
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("an unknown number in %d unobserved CPU windows", unknown))
	}
	if m.Cut() || unknown > 0 {
		return fmt.Sprintf("%d and more: %s", total, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%d: %s", total, strings.Join(parts, ", "))
}
