package report

import (
	"strings"
	"testing"
)

// TestNoMatchNameHeldBetweenSwitches: a --comm name the trace records (a
// rename, AddName) that no sched_switch gave gets a clause saying why the
// view shows none of it (new-user pass 52 F1: timehist --comm flipB said
// only "closest task names: flip, flipA" of a task that spun 1 s as
// flipB); a name the trace never had gets none.
func TestNoMatchNameHeldBetweenSwitches(t *testing.T) {
	var x NoMatch
	x.SchedEvents, x.Switches = 10, 4
	x.AddName("flipA", 7, 15811)
	x.AddName("flipB", 0, 15811)
	got := x.Message("--comm flipB", []string{"flipB"})
	want := "; flipB is a name the trace records (of tid 15811) that no sched_switch of these events gives: the task held it only between its switches, and this view names each run by the task's name at its switch-out; latency --comm counts the run time under each name"
	if !strings.HasSuffix(got, want) {
		t.Errorf("message %q\nwant it to end %q", got, want)
	}
	if got := x.Message("--comm nosuch", []string{"nosuch"}); strings.Contains(got, "is a name the trace records") {
		t.Errorf("nosuch: %q", got)
	}
}
