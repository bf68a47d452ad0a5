package trace

import (
	"fmt"
	"strings"
	"testing"
)

// TestWarningString: the "(N times)" suffix appears for a warning counted
// more than once unless its message states the count (the HTML report and
// the CLI printed "164 scheduling delays ... (164 times)").
func TestWarningString(t *testing.T) {
	for _, c := range []struct {
		w    Warning
		want string
	}{
		{Warning{Key: "k", Count: 1, Message: "record skipped"}, "record skipped"},
		{Warning{Key: "k", Count: 3, Message: "record skipped"}, "record skipped (3 times)"},
		{Warning{Key: "k", Count: 164, Message: "164 scheduling delays were not counted", CountInMessage: true}, "164 scheduling delays were not counted"},
	} {
		if got := c.w.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}

// TestWarningCountUnit: a count of events, not of occurrences, says so
// (a new-user pass read "events lost in damaged blocks (8192 times)" for
// one damaged block of 8192 events).
func TestWarningCountUnit(t *testing.T) {
	var w Warnings
	w.AddCount("damaged-block-events", 8192, "events in all", "events lost in damaged blocks")
	w.AddCount("damaged-block-events", 100, "events in all", "events lost in damaged blocks")
	w.Add("other", "a problem")
	w.Add("other", "a problem")
	got := []string{}
	for _, x := range w.List() {
		got = append(got, x.String())
	}
	want := []string{"events lost in damaged blocks (8292 events in all)", "a problem (2 times)"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWarningsAddEach (new-user pass 88 F2: three damaged blocks read
// "event block at offset 146654 damaged ... (3 times)", the other two
// offsets nowhere): AddEach keeps each occurrence's message, the reader's
// prefix said once; the same message twice is one; past MaxOthers the rest
// are counted. Merged under a scope (a series' parts), the second part's
// messages join the first's.
func TestWarningsAddEach(t *testing.T) {
	var w Warnings
	for _, off := range []int{10, 20, 20, 30} {
		w.AddEach("damaged-block", "tvf: block at offset %d damaged", off)
	}
	got := w.List()
	if len(got) != 1 || got[0].Count != 4 {
		t.Fatalf("%+v, want one warning counted 4 times", got)
	}
	if s, want := got[0].String(), "tvf: block at offset 10 damaged; block at offset 20 damaged; block at offset 30 damaged"; s != want {
		t.Errorf("String %q, want %q", s, want)
	}
	var many Warnings
	for off := range MaxOthers + 5 {
		many.AddEach("damaged-block", "tvf: block at offset %d damaged", off)
	}
	m := many.List()[0]
	if len(m.Others) != MaxOthers || !strings.HasSuffix(m.String(), fmt.Sprintf("; and 4 more (%d times in all)", MaxOthers+5)) {
		t.Errorf("%d others, %q; want %d and the 4 more counted", len(m.Others), m.String(), MaxOthers)
	}
	var merged Warnings
	merged.AddScoped("a.tv", got[0])
	var other Warnings
	other.AddEach("damaged-block", "tvf: block at offset %d damaged", 40)
	merged.AddScoped("a.tv", other.List()[0])
	if s := merged.List()[0].String(); !strings.Contains(s, "offset 30 damaged; block at offset 40 damaged") {
		t.Errorf("merged: %q, want the second part's offset 40 too", s)
	}
}
