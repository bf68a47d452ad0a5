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
