package trace

import "testing"

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
