package perfdata

import (
	"testing"

	"github.com/traceview/traceview/trace"
)

// TestDuplicateAttr: testdata's dupattr.perf.data (perf sched record -e
// sched:sched_switch -e sched:sched_stat_runtime: each of the two
// tracepoints has two attrs, 0 and 6, 1 and 7, and the kernel wrote each
// event once per attr) reads the first attr's samples only, as perf
// sched does: as many sched_switch events as attr 0 has samples, and the
// copy attr as many samples again, counted apart ("... (attr 6: a copy,
// skipped)"), with a duplicate-attr-NAME warning per tracepoint (new-user
// pass 45: every switch and run time was counted twice).
func TestDuplicateAttr(t *testing.T) {
	r, evs := readAll(t, "../../testdata/traces/dupattr.perf.data")
	var switches, runtimes uint64
	for _, e := range evs {
		switch e.Kind {
		case trace.KindSwitch:
			switches++
		case trace.KindRuntime:
			runtimes++
		}
	}
	n := r.SampleCounts()
	for _, c := range []struct {
		name, copy string
		got        uint64
	}{
		{"sched:sched_switch", "sched:sched_switch (attr 6: a copy, skipped)", switches},
		{"sched:sched_stat_runtime", "sched:sched_stat_runtime (attr 7: a copy, skipped)", runtimes},
	} {
		if n[c.name] == 0 || c.got != n[c.name] || n[c.copy] != n[c.name] {
			t.Errorf("%s: %d events read, samples %d, copy's %d (%v); want the first attr's, and as many copies", c.name, c.got, n[c.name], n[c.copy], n)
		}
	}
	dup := map[string]int{}
	for _, w := range r.Meta().Warnings.List() {
		dup[w.Key] = w.Count
	}
	if dup["duplicate-attr-sched:sched_switch"] != 1 || dup["duplicate-attr-sched:sched_stat_runtime"] != 1 {
		t.Errorf("warnings %v, want one duplicate-attr-NAME per tracepoint", r.Meta().Warnings.List())
	}
}
