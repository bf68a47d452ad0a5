package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestThrottleLostWindows: a group's throttle figures are a lower bound
// where the recording lost events while it ran, and the table says so
// (new-user pass 15 F6: 58,930 events lost, the table gave 1 period, 72 ms,
// where the same workload recorded whole gave 11, 702 ms, without a word).
// By hand: runs 100-200 on CPU 0 and 300-400 on CPU 1 (latest 400); of the
// windows 50-90 (before), 150-160 (7 events), 350-500 (unknown count) and
// 401-450 (after), two overlap: 2 windows, 7 events. The same when the
// runs kept are only the last (decide trims a group's runs to
// retainHorizon): the group ran from its first run (new-user pass 81 F3:
// 1 window of 24 counted).
func TestThrottleLostWindows(t *testing.T) {
	g := &thrGroup{runs: map[trace.CPU][]thrRun{0: {{start: 100, end: 200}}, 1: {{start: 300, end: 400}}}, first: 100, latest: 400}
	trimmed := &thrGroup{runs: map[trace.CPU][]thrRun{1: {{start: 300, end: 400}}}, first: 100, latest: 400}
	meta := &trace.Meta{Lost: []trace.LostWindow{{CPU: 0, Count: 3, Start: 50, End: 90}, {CPU: 0, Count: 7, Start: 150, End: 160},
		{CPU: 1, Start: 350, End: 500}, {CPU: 1, Count: 9, Start: 401, End: 450}}}
	if w, n := g.lostDuring(meta); w != 2 || n != 7 {
		t.Errorf("lostDuring: %d windows, %d events; want 2, 7", w, n)
	}
	if w, n := trimmed.lostDuring(meta); w != 2 || n != 7 {
		t.Errorf("lostDuring, runs trimmed: %d windows, %d events; want 2, 7", w, n)
	}
	var b bytes.Buffer
	WriteCgroupTable(&b, []CgroupThrottle{{Path: "/q", Settings: "unknown", LostWindows: 2, LostEvents: 7}})
	if want := "/q: the recording lost 7 events in 2 windows while the group ran: a throttle there does not show, so its throttled periods and ms are a lower bound"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	// One window is "1 window" (new-user pass 22 F8: "in 1 windows").
	b.Reset()
	WriteCgroupTable(&b, []CgroupThrottle{{Path: "/q", Settings: "unknown", LostWindows: 1}})
	if want := "/q: the recording lost events (number unknown) in 1 window while the group ran"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
}

// TestCgroupTableNoDelays: a group with no delay measured (all left out
// as lossy, or none in a window) prints "-" for its average and largest
// delay, as the task rows do, not 0.000 ms (new-user pass 23 F5); one
// with delays prints them.
func TestCgroupTableNoDelays(t *testing.T) {
	var b bytes.Buffer
	WriteCgroupTable(&b, []CgroupThrottle{{Path: "/q", Runtime: 2e6, Settings: "unknown"}, {Path: "/r", Runtime: 1e6, Delays: 2, SumDelay: 3e6, MaxDelay: 2e6, Settings: "unknown",
		Weight: 200, Shares: 2048, WeightSettings: "recorded"}})
	// The Weight column (new-user pass 25 F5): "-" unknown, a v1 group's
	// shares beside its weight, 17 characters wide.
	if want := "  /q         |        2.000 |     0.000 |            - |            - |   0 periods |         0.000 |                 - | unknown\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	if want := "  /r         |        1.000 |     0.000 |        1.500 |        2.000 |   0 periods |         0.000 | 200 (shares 2048) | unknown\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
}

// TestHTMLGroupsNoDelays: the HTML report's group row prints "-" for the
// average and largest delay of a group with none measured, as the text
// table does (TestCgroupTableNoDelays), and the figures of one with some.
func TestHTMLGroupsNoDelays(t *testing.T) {
	hg := htmlGroups([]CgroupThrottle{{Path: "/q", Runtime: 2e6, Settings: "unknown"}, {Path: "/r", Delays: 2, SumDelay: 3e6, MaxDelay: 2e6, Settings: "unknown"}})
	if hg[0].AvgDelay != "-" || hg[0].MaxDelay != "-" || hg[1].AvgDelay != htmlMs(1.5e6) || hg[1].MaxDelay != htmlMs(2e6) {
		t.Errorf("rows %+v", hg)
	}
}

// TestCgroupTableEscapesPath: a group path of bytes that are not UTF-8 (a
// damaged perf.data cgroup record, new-user pass 102 F1) is written
// escaped in the group table, its line and its note, as --by cgroup and
// compare write it: "\xff\xff" is 8 characters, so the column is 10 wide
// ("Task group"), and no raw 0xff byte reaches the terminal.
func TestCgroupTableEscapesPath(t *testing.T) {
	var b bytes.Buffer
	WriteCgroupTable(&b, []CgroupThrottle{{Path: "\xff\xff", Runtime: 1e6, Settings: "unknown", LostWindows: 1}})
	if want := "  \\xff\\xff   |        1.000 |"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	if want := "  \\xff\\xff: the recording lost events"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant %q", b.String(), want)
	}
	if strings.Contains(b.String(), "\xff") {
		t.Errorf("table holds a raw 0xff byte:\n%q", b.String())
	}
}

// TestLineAncestors: a group's line ancestors are the proper prefixes of
// its path from the root, nearest first, the root left out; a path that
// does not begin with '/' (a damaged record's, "Qn3/b": new-user pass 103
// F3, which made up a group "Qn3") names none, nor does an unnamed group's
// "cgroup id N".
func TestLineAncestors(t *testing.T) {
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/a/b/c", []string{"/a/b", "/a"}},
		{"/a", nil},
		{"Qn3/b", nil},
		{unnamedPrefix + "7", nil},
	} {
		if got := lineAncestors(c.path); !slices.Equal(got, c.want) {
			t.Errorf("lineAncestors(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// TestCgroupJSONEscapesPath: a path with a byte that is not UTF-8 is
// written in JSON as the rows' names are (termsafe.ValidUTF8: \xHH, a
// backslash doubled), not as U+FFFD (new-user pass 103 F2), in a group's
// line, its ThrottledBy and a comparison's group.
func TestCgroupJSONEscapesPath(t *testing.T) {
	g := CgroupThrottle{Path: "/n3/\xff", ThrottledBy: "/n3\\a"}
	b, err := json.Marshal([]any{g, &g, CompareCgroup{Path: "/n3/\xff", A: &g}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Count(s, `"path":"/n3/\\xff"`) != 4 || strings.Count(s, `"throttled_by":"/n3\\\\a"`) != 3 || strings.Contains(s, `\ufffd`) {
		t.Errorf("JSON %s: want each path \\xff and each throttled_by \\\\ (4 and 3 times), no U+FFFD", s)
	}
}
