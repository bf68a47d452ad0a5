package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/replay"
)

// renamedSelectionNotes writes a note for each what-if whose command-name
// selector picked a task that had other names in the trace (prctl or exec
// renamed it): an override applies to a task for its whole life, under
// every name it had (replay.Selector.Match), so a name it bore for a few
// switches selects all of it, and the rows of its other names move too
// (new-user pass 41 F4: --nice on a name a thread had for 5 % of its life
// reniced its "renamed0" row with no what-if naming it). The note names
// each such task by TID with all its names; at most maxRenamedNoted.
func renamedSelectionNotes(errw io.Writer, m *replay.Model, o replayOptions) {
	for _, f := range []struct {
		name string
		vals []string
	}{{"affinity", o.affinity}, {"nice", o.nice}, {"class", o.class}, {"slice", o.slice}, {"until", o.until},
		{"cgroup", o.groups.cgroup}, {"autogroup", o.groups.autogroup}} {
		for _, a := range f.vals {
			sel, val, err := parseSelArg(f.name, a)
			if err != nil || sel.Comm == "" {
				continue
			}
			var all, renamed []string
			for i := range m.Tasks {
				t := &m.Tasks[i]
				if !sel.Match(t) {
					continue
				}
				all = append(all, fmt.Sprint(t.TID))
				if len(t.Earlier) == 0 || renamedAtStart(t) {
					continue
				}
				names := make([]string, 0, len(t.Earlier)+1)
				for _, n := range append(append([]string(nil), t.Earlier...), t.Comm) {
					names = append(names, termsafe.Name(n))
				}
				renamed = append(renamed, fmt.Sprintf("tid %d (%s)", t.TID, strings.Join(names, ", ")))
			}
			if len(renamed) == 0 {
				continue
			}
			n, more := len(renamed), ""
			if n > maxRenamedNoted {
				more = fmt.Sprintf(" and %d more", len(renamed)-maxRenamedNoted)
				renamed = renamed[:maxRenamedNoted]
			}
			fmt.Fprintf(errw, "note: --%s %s selects %s, %d of them renamed in the trace: %s%s; a what-if applies to a task's whole life under every name it had, so the rows of those other names change too (select one task with tid:N)\n",
				f.name, termsafe.Name(sel.Comm)+"="+termsafe.Name(val), plural(len(all), "task"), n, strings.Join(renamed, "; "), more)
		}
	}
}

// maxRenamedNoted bounds the renamed tasks one note names (a what-if on a
// pool's name can select hundreds); the rest are counted.
const maxRenamedNoted = 5

// renamedAtStart reports whether every rename of t came within the first
// 1 % of its recorded run time: a fork then exec, whose earlier names ran
// only the fork's tail, so the what-if changes their rows by at most that
// (new-user pass 124 F5: every what-if on `hog` noted the shell that
// forked it). The 1 % is a choice, not a measured figure: a row that
// moves by less than 1 % of one task's run time stays within every
// fidelity bound (±5 % on run time the tightest, report.ReplayBound*).
func renamedAtStart(t *replay.Task) bool {
	var total int64
	for _, b := range t.Bursts {
		total += b.Len
	}
	if len(t.Renames) == 0 || total <= 0 {
		return false
	}
	for _, r := range t.Renames {
		if 100*r.CPU > total {
			return false
		}
	}
	return true
}
