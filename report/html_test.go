package report

import (
	"bytes"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traceview/traceview/internal/testsched"
	"github.com/traceview/traceview/trace"
)

// TestHTMLReportHand checks the page's content on gScenario: five inline
// plots, no script, nothing fetched, and the latency rows computed by hand
// (A waited 200 us, B 400 us, C 200 us; runtimes 1.8, 0.9, 0.7 ms).
func TestHTMLReportHand(t *testing.T) {
	var buf bytes.Buffer
	err := WriteHTMLReport(&buf, trace.NewSliceSource(gNamed(gScenario()), nil), HTMLOptions{Name: "scenario"})
	if err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<svg"); n != HTMLPlots {
		t.Errorf("%d <svg> elements, want %d", n, HTMLPlots)
	}
	gCheckSelfContained(t, page)
	for _, row := range []string{
		`<td>B:20</td><td class="n">0.900 ms</td><td class="n">1</td><td class="n">2</td><td class="n">0.400 ms</td><td class="n">0.400 ms</td><td class="n">0.400 ms</td><td class="n">0.400 ms</td>`,
		`<td>A:10</td><td class="n">1.800 ms</td><td class="n">1</td><td class="n">2</td><td class="n">0.200 ms</td>`,
		`<td>C:30</td><td class="n">0.700 ms</td><td class="n">1</td><td class="n">1</td><td class="n">0.200 ms</td>`,
		// TOTAL: runtime 3.4 ms, 3 delays, 5 switch-ins, sum 0.8 ms.
		`<th>TOTAL</th><th class="n">3.400 ms</th><th class="n">3</th><th class="n">5</th><th></th><th></th><th class="n">0.800 ms</th>`,
		// Summary: CPU0 busy 1500 of 2000 us, nothing unknown (both CPUs
		// switch at 0), rq avg 0.375.
		`utilization 75.00 %, unknown 0.000 ms, 0.00 % of observed (not counted as busy), runqueue avg 0.375 tasks, max 1 tasks, 4 switches`,
	} {
		if !strings.Contains(page, row) {
			t.Errorf("page lacks %s", row)
		}
	}
	// Top by sum delay lists B first.
	top := page[strings.Index(page, `id="top"`):]
	if i, j := strings.Index(top, "<td>B:20</td>"), strings.Index(top, "<td>A:10</td>"); i < 0 || j < 0 || i > j {
		t.Errorf("top list does not start with B:20")
	}
}

// gCheckSelfContained fails if the page runs scripts or loads anything:
// the only URLs allowed are XML namespace names.
func gCheckSelfContained(t *testing.T, page string) {
	t.Helper()
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("page has a <script>")
	}
	for _, m := range regexp.MustCompile(`(?i)(src|href|url)\s*[=(]\s*["']?([^"' )>]+)`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[2], "#") && !strings.HasPrefix(m[2], "data:") {
			t.Errorf("page refers to %s", m[0])
		}
	}
}

// TestHTMLReportInBrowser renders the report of a real trace (or of the
// hand scenario when no trace is around) in headless Chromium: the DOM must
// hold the HTMLPlots svg elements and no script, the console no error, and
// the screenshot must show the plots (not blank: many non-white pixels, and
// pixels of the plots' first series color).
func TestHTMLReportInBrowser(t *testing.T) {
	bin := testsched.Chromium(t)
	var src trace.Source = trace.NewSliceSource(gNamed(gScenario()), nil)
	name := "scenario"
	for _, dir := range []string{"../../shared/traces", "../testdata/traces"} {
		for _, base := range []string{"pipe.perf.data", "nice.2cpu.perf.data"} {
			p := filepath.Join(dir, base)
			if _, err := os.Stat(p); err == nil && name == "scenario" {
				src, name = testsched.Open(t, p), p
			}
		}
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLReport(f, src, HTMLOptions{Name: name}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	dom, stderr := testsched.RunChromium(t, bin, "--dump-dom", url)
	if n := strings.Count(dom, "<svg"); n != HTMLPlots {
		t.Errorf("DOM has %d <svg> elements, want %d", n, HTMLPlots)
	}
	if strings.Contains(dom, "<script") {
		t.Error("DOM has a script")
	}
	testsched.CheckConsole(t, stderr)

	shot := filepath.Join(dir, "report.png")
	_, stderr = testsched.RunChromium(t, bin, "--screenshot="+shot, "--window-size=1280,4200", "--hide-scrollbars", url)
	testsched.CheckConsole(t, stderr)
	fp, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	img, err := png.Decode(fp)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	nonWhite, series := gPixelCounts(img)
	total := img.Bounds().Dx() * img.Bounds().Dy()
	t.Logf("%s: %dx%d screenshot, %d non-white pixels, %d in the first series color", name, img.Bounds().Dx(), img.Bounds().Dy(), nonWhite, series)
	if nonWhite < total/100 {
		t.Errorf("screenshot nearly blank: %d of %d pixels not white", nonWhite, total)
	}
	if series < 500 {
		t.Errorf("only %d pixels of the plots' bar/line color: plots not drawn?", series)
	}
	if keep := os.Getenv("TRACEVIEW_KEEP_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(keep, data, 0o644)
	}
}

// gPixelCounts counts non-white pixels and pixels close to the first
// palette color (the bars and CPU 0's line).
func gPixelCounts(img image.Image) (nonWhite, series int) {
	b := img.Bounds()
	pr, pg, pb, _ := htmlPalette[0].RGBA()
	near := func(x, y uint32) bool { return x>>8 > y>>8-12 && x>>8 < y>>8+12 }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 245 || g>>8 < 245 || bl>>8 < 245 {
				nonWhite++
			}
			if near(r, pr) && near(g, pg) && near(bl, pb) {
				series++
			}
		}
	}
	return nonWhite, series
}

// TestHTMLPlotAxes (issue 12 item 5): a bar 100 ms beside bars of 2 and
// 3 ms is more than DominantRatio (10) times the next largest, so the axis
// stops at 1.3 × 3 = 3.9 ms, the bar is drawn to there and its label says
// its value; 10 ms beside 3 ms is not (10 ≤ 30) and the axis is left
// alone. Count axes mark whole numbers only, printed without decimals; a
// delay's timestamp is truncated to µs as in the CLI's table
// (1.234567999 s prints 1.234567 s, not ...568).
func TestHTMLPlotAxes(t *testing.T) {
	var ax plot.Axis
	vals := plotter.Values{2, 100, 3}
	if k, v := clipDominant(&ax, vals); k != 1 || v != 100 || math.Abs(ax.Max-3.9) > 1e-9 || vals[1] != ax.Max {
		t.Errorf("clipDominant = %d, %v, axis max %v, vals %v; want 1, 100, 3.9, [2 3.9 3]", k, v, ax.Max, vals)
	}
	ax = plot.Axis{}
	if k, _ := clipDominant(&ax, plotter.Values{2, 10, 3}); k != -1 || ax.Max != 0 {
		t.Errorf("clipDominant of 10 beside 3 = %d (axis max %v), want -1 (no cap)", k, ax.Max)
	}
	for _, tk := range (intTicks{}).Ticks(0, 7) {
		if tk.Label != "" && (tk.Value != math.Trunc(tk.Value) || strings.Contains(tk.Label, ".")) {
			t.Errorf("intTicks: tick %v labelled %q", tk.Value, tk.Label)
		}
	}
	if v := htmlValue(htmlColumnsByKey([]string{"max_delay_start_ns"})[0], 1_234_567_999); v != "1.234567 s" {
		t.Errorf("max start %q, want 1.234567 s", v)
	}
}

// TestHTMLReportHostileNames: hostile-names.tv's tasks are named with
// prctl: "a,b\nc" (pid 7221), "\xff\xfebad" (7224) and five others. The
// page names them as the text tables do (termsafe.Name: `a,b\nc`,
// `\xff\xfebad`, backslashes written out), so it holds valid UTF-8 and no
// control character but the newlines and tabs of its own markup.
func TestHTMLReportHostileNames(t *testing.T) {
	src, err := trace.Open("../testdata/traces/hostile-names.tv")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var buf bytes.Buffer
	if err := WriteHTMLReport(&buf, src, HTMLOptions{Name: "hostile\x1b]0;x\x07.tv", Top: 20}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !utf8.ValidString(page) {
		t.Error("the page is not valid UTF-8")
	}
	for i, r := range page {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			t.Fatalf("control character %U at byte %d: %q", r, i, page[max(0, i-40):min(len(page), i+40)])
		}
	}
	for _, want := range []string{`a,b\nc:7221`, `\xff\xfebad:7224`, `hostile\x1b]0;x\x07.tv`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

// TestHTMLWarningNamesOnce: a warning that quotes a task's name holds it
// escaped once, as the table does (new-user pass 39 F4: the page's list
// read "evil\\ttab" beside the table's "evil\ttab"). CPU 0 switches in
// task 5 at 1 ms; at 2 ms it switches out task 7, named with a TAB, whose
// switch-in the trace lacks: the missing-switches warning shows 7 running
// for 1 ms.
func TestHTMLWarningNamesOnce(t *testing.T) {
	const ms = int64(1e6)
	in := trace.NewEvent(1*ms, 0, trace.KindSwitch)
	in.TID, in.NextTID, in.NextPID, in.NextComm, in.PrevState, in.Prio, in.NextPrio = 0, 5, 5, "five", trace.StateRunning, 120, 120
	out := trace.NewEvent(2*ms, 0, trace.KindSwitch)
	out.TID, out.PID, out.Comm, out.CurTID, out.NextTID, out.PrevState, out.Prio, out.NextPrio = 7, 7, "evil\ttab", 7, 0, trace.StateInterruptible, 120, 120
	var buf bytes.Buffer
	if err := WriteHTMLReport(&buf, trace.NewSliceSource([]trace.Event{in, out}, &trace.Meta{NrCPUs: 1}), HTMLOptions{Name: "x.tv"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `evil\ttab:7 1.000 ms`) || strings.Contains(page, `evil\\ttab`) {
		i := strings.Index(page, "evil")
		t.Errorf("page: %q", page[max(0, i-80):min(len(page), i+80)])
	}
}
