// Package timewin parses the --time window of the command line in perf's
// syntax (tools/perf/util/time-utils.c, perf 6.12), so that a window copied
// from perf's output or perf's command line selects the same events here.
//
// Two forms are accepted:
//
//   - absolute, "START,STOP": trace-clock seconds with up to 9 decimals, as
//     perf prints them ("754.330000,754.350000"); either side may be empty
//     ("100.5," from 100.5 s to the end, ",200" up to 200 s). perf sched
//     timehist takes this form (perf_time__parse_str).
//   - percentages of the trace's span, as perf report and perf script take
//     them (perf_time__percent_parse_str): "10%/2" is the second tenth,
//     "0%-25%" the first quarter, "50%" the first half. Each bound is
//     first + round(p * (last - first)) ns, and the end of a slice that does
//     not reach the trace's last sample is one ns earlier, as in perf's
//     set_percent_time, so that consecutive slices do not overlap. 0% and
//     100% are open ends (the zero Start or End), so that "0%-100%" is the
//     whole trace and what the first event carries from before it is in
//     the first slice.
//
// Both bounds are inclusive (perf_time__skip_sample drops a sample only when
// it is before START or after STOP). perf also accepts several windows
// ("10%/1,10%/3"); traceview takes one.
package timewin

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Window is a closed interval of trace time in ns. A zero Start or End is
// open on that side (as in perf, whose traces never start at 0 ns).
type Window struct {
	Start, End int64
}

// IsZero reports whether w selects the whole trace.
func (w Window) IsZero() bool { return w.Start == 0 && w.End == 0 }

// Contains reports whether time t (ns) is inside w.
func (w Window) Contains(t int64) bool {
	return (w.Start == 0 || t >= w.Start) && (w.End == 0 || t <= w.End)
}

// String prints w as the absolute form Parse reads, "START,STOP" with 9
// decimals and an empty side when open.
func (w Window) String() string {
	f := func(ns int64) string {
		if ns == 0 {
			return ""
		}
		return fmt.Sprintf("%d.%09d", ns/1e9, ns%1e9)
	}
	return f(w.Start) + "," + f(w.End)
}

// NeedsSpan reports whether s is a percentage window, which Parse can only
// resolve with the trace's first and last sample times.
func NeedsSpan(s string) bool { return strings.Contains(s, "%") }

// Parse parses a --time value. first and last are the trace's first and
// last sample times (ns), used only by the percentage forms; when they are
// unknown (0) a percentage window is an error. "" gives the zero Window.
// Errors quote the bad part and say what is expected: a malformed time, a
// reversed window, a percentage outside 0-100 %, several windows.
func Parse(s string, first, last int64) (Window, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Window{}, nil
	}
	if NeedsSpan(s) {
		return parsePercent(s, first, last)
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return Window{}, fmt.Errorf("want START,STOP in seconds (either side may be empty, e.g. 100.5,) or a percentage such as 10%%/2")
	}
	if strings.Contains(b, ",") {
		return Window{}, fmt.Errorf("one window only (START,STOP), got several")
	}
	var w Window
	var err error
	if w.Start, err = ParseSeconds(a); err != nil {
		return Window{}, err
	}
	if w.End, err = ParseSeconds(b); err != nil {
		return Window{}, err
	}
	if w.End != 0 && w.End < w.Start {
		return Window{}, fmt.Errorf("reversed window: start %s s is after stop %s s", strings.TrimSpace(a), strings.TrimSpace(b))
	}
	return w, nil
}

// ParseSeconds parses "sec[.frac]" (up to 9 decimals) into ns without
// going through floating point; "" is 0.
func ParseSeconds(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	secStr, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseUint(secStr, 10, 63)
	if err != nil || sec > math.MaxInt64/1_000_000_000-1 {
		return 0, fmt.Errorf("%q is not a time in seconds (want e.g. 754.330000)", s)
	}
	if len(frac) > 9 {
		return 0, fmt.Errorf("%q has more than 9 decimals (the trace clock counts ns)", s)
	}
	var ns uint64
	if frac != "" {
		frac += strings.Repeat("0", 9-len(frac))
		if ns, err = strconv.ParseUint(frac, 10, 64); err != nil {
			return 0, fmt.Errorf("%q is not a time in seconds (want e.g. 754.330000)", s)
		}
	}
	return int64(sec)*1e9 + int64(ns), nil
}

func parsePercent(s string, first, last int64) (Window, error) {
	if strings.Contains(s, ",") {
		return Window{}, fmt.Errorf("one window only, got several (%q)", s)
	}
	if first <= 0 || last < first {
		return Window{}, fmt.Errorf("a percentage window needs the trace's first and last sample times, which this trace's header does not give; use START,STOP in seconds")
	}
	var lo, hi float64
	switch {
	case strings.Contains(s, "/"):
		// "P%/N": the N-th slice of P percent.
		ps, ns, _ := strings.Cut(s, "/")
		p, err := percent(ps)
		if err != nil {
			return Window{}, err
		}
		n, err := strconv.Atoi(strings.TrimSpace(ns))
		if err != nil {
			return Window{}, fmt.Errorf("%q: %q is not a slice number", s, ns)
		}
		if p <= 0 {
			return Window{}, fmt.Errorf("%q: the slice size must be above 0%%", s)
		}
		lo, hi = p*float64(n-1), p*float64(n)
	case strings.Contains(s, "-"):
		// "A%-B%".
		as, bs, _ := strings.Cut(s, "-")
		var err error
		if lo, err = percent(as); err != nil {
			return Window{}, err
		}
		if hi, err = percent(bs); err != nil {
			return Window{}, err
		}
	default:
		// "P%": the first P percent (perf makes it "P%/1").
		if !strings.HasSuffix(s, "%") {
			return Window{}, fmt.Errorf("%q: a percentage must end in %%", s)
		}
		p, err := percent(s)
		if err != nil {
			return Window{}, err
		}
		if p <= 0 {
			return Window{}, fmt.Errorf("%q: the slice size must be above 0%%", s)
		}
		lo, hi = 0, p
	}
	if lo < 0 || lo > 1 || hi < 0 || hi > 1 {
		return Window{}, fmt.Errorf("%q is outside 0%%-100%% of the trace", s)
	}
	if hi < lo {
		return Window{}, fmt.Errorf("reversed window %q", s)
	}
	total := float64(last - first)
	w := Window{Start: first + int64(math.Round(lo*total)), End: first + int64(math.Round(hi*total))}
	if w.End > w.Start && w.End != last {
		w.End--
	}
	// 0% and 100% are the trace's own ends: open, as with no window, so
	// that what an event carries from before the first one (a
	// sched_stat_runtime's run time) is counted in the first slice as it
	// is with no --time, and "0%-100%" is the whole trace (new-user pass
	// 34 F7: 3.1 ms less run time, the halves not adding up to the whole).
	if lo == 0 {
		w.Start = 0
	}
	if hi == 1 {
		w.End = 0
	}
	return w, nil
}

// percent parses "12.5%" into 0.125.
func percent(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, fmt.Errorf("%q is not a percentage (want e.g. 10%%)", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a percentage (want e.g. 10%%)", s)
	}
	return v / 100, nil
}
