package report

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestHTMLLost: the summary's lost-events cell says what info's lost line
// says (new-user pass 49 F3: a cut file with 8192 events lost in its cut
// block read "Lost events 0").
func TestHTMLLost(t *testing.T) {
	cut := &trace.Meta{LostInFile: 8192}
	cut.Warnings.Add("truncated", "file ends inside a frame")
	damaged := &trace.Meta{LostInFile: 7, Lost: []trace.LostWindow{{CPU: 1, Count: 5}}}
	window := &trace.Meta{Lost: []trace.LostWindow{{CPU: 1, Count: 0}}}
	for _, c := range []struct {
		m    *trace.Meta
		want string
	}{
		{&trace.Meta{Lost: []trace.LostWindow{{CPU: 0, Count: 3}}}, "3"},
		{cut, "8192 and more: 0 reported lost by the recorder, 8192 in the file's damaged, missing or cut parts, an unknown number after the cut (the file is cut short)"},
		{damaged, "12: 5 reported lost by the recorder, 7 in the file's damaged, missing or cut parts"},
		{window, "0 and more: 0 reported lost by the recorder, an unknown number in 1 unobserved CPU windows"},
	} {
		if got := htmlLost(c.m); got != c.want {
			t.Errorf("htmlLost = %q, want %q", got, c.want)
		}
	}
}
