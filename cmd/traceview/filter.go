package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/internal/timewin"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// filterFlags are the --time, --cpu, --pid, --tid and --comm options shared
// by every command that reads a trace, and --cgroup, of the commands whose
// analyses run on schedule.Filter (addCgroupFlag). They parse into one
// schedule.Filter (timehist and map, which run perf's own state machines,
// take the same values in their options).
type filterFlags struct {
	time, cpu, pid, tid, comm, cgroup string
	commGiven                         bool // --comm was given, empty or not
}

// givenString is a string flag that remembers being given: --comm ”
// is an error, not "no filter" (new-user pass 32 F4: it filtered nothing,
// exit 0, where --comm '   ' was refused).
type givenString struct {
	v     *string
	given *bool
}

func (s givenString) String() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

func (s givenString) Set(v string) error { *s.v, *s.given = v, true; return nil }

func (s givenString) Type() string { return "string" }

// pidMax is the largest pid or tid the kernel hands out (PID_MAX_LIMIT,
// include/linux/threads.h, 64-bit).
const pidMax = 4 << 20

// filterHelp is the paragraph the --help of each filtering command shows.
const filterHelp = `Filters (each may be combined; a task must match every task filter given):
  --time START,STOP  trace-clock seconds as perf prints them (754.33,754.35;
                     "100.5," to the end, ",200" from the start), or a share
                     of the trace: 10%/2 the second tenth, 0%-25% the first
                     quarter, 50% the first half (perf report's syntax)
  --cpu LIST         CPUs, e.g. 0 or 0,2-3: delays switched in there and
                     run time of the tasks running there
  --pid LIST         processes (tgid); --tid LIST threads; --comm NAMES
                     command names (comma-separated, exact; the name the
                     task had at the event, so a task that exec'd is
                     matched by each of its names in turn: in
                     testdata/traces/nice.2cpu.perf.data, nice exec'd
                     hog, so --comm nice keeps a few events of each hog
                     task, and latency says so on stderr; --comm
                     nice,hog keeps them all)
  --cgroup PATHS     cgroup paths (comma-separated; a comma inside a
                     name is \,) as the trace's
                     cgroup table names them (/system.slice/x.service):
                     what tasks did while in one of them or below (a
                     task is in the group its latest switch-out named;
                     a task's events before its first switch-out go
                     with the group that switch-out names, as --by
                     cgroup counts them; a task that moved between
                     groups shows only its part in the ones given;
                     traceview record's and perf --all-cgroups
                     captures, the latter matched as the file is
                     read, a tick in the group its sample names;
                     not in timehist, map)
A delay is kept when its switch-in is in the window and on the CPUs; every
event is still read, so a delay whose wakeup is before the window or on
another CPU is measured whole.`

// addFilterFlags registers the filter flags on fs. shorts gives one-letter
// shorthands by flag name (timehist's -C, -p, -t, as perf's).
func addFilterFlags(fs *pflag.FlagSet, o *filterFlags, shorts map[string]string) {
	fs.StringVarP(&o.time, "time", shorts["time"], "", "only this time window: START,STOP in seconds (either may be empty) or a percentage such as 10%/2")
	fs.StringVarP(&o.cpu, "cpu", shorts["cpu"], "", "only these CPUs, e.g. 0,2-3")
	fs.StringVarP(&o.pid, "pid", shorts["pid"], "", "only these process ids (tgid), e.g. 1234,1300-1310")
	fs.StringVarP(&o.tid, "tid", shorts["tid"], "", "only these thread ids")
	fs.Var(givenString{&o.comm, &o.commGiven}, "comm", "only events of tasks while named so (comma-separated; names as the tables print them: a comma inside a name is \\, a backslash \\\\, a TAB \\t, another control byte \\xHH): a task renamed before or after keeps only that part")
}

// addCgroupFlag registers --cgroup on fs.
func addCgroupFlag(fs *pflag.FlagSet, o *filterFlags) {
	fs.StringVar(&o.cgroup, "cgroup", "", "only what tasks did while in these cgroup paths or below them (comma-separated, e.g. /system.slice/nginx.service; a task is in the group its latest switch-out named)")
}

// given reports whether any filter flag was set.
func (o *filterFlags) given() bool {
	return o.time != "" || o.cpu != "" || o.pid != "" || o.tid != "" || o.comm != "" || o.commGiven || o.cgroup != ""
}

// names lists the filter flags set, for messages ("--time, --cpu").
func (o *filterFlags) names() string {
	var n []string
	for _, f := range []struct{ name, v string }{{"--time", o.time}, {"--cpu", o.cpu}, {"--pid", o.pid}, {"--tid", o.tid}, {"--comm", o.comm}, {"--cgroup", o.cgroup}} {
		if f.v != "" {
			n = append(n, f.name)
		}
	}
	return strings.Join(n, ", ")
}

// check validates the flags' syntax before the trace is opened (a
// percentage window is resolved later, against the trace's span), so that
// a typo costs no pass over a big trace. Errors are usage errors naming
// cmd and the flag.
func (o *filterFlags) check(cmd string) error {
	_, err := o.parse(cmd, nil)
	return err
}

// resolve returns the filter the flags select in the trace described by
// meta (nil when no flag is set): a percentage window is resolved against
// meta's first and last sample times, and a CPU the trace does not have is
// a usage error.
func (o *filterFlags) resolve(cmd string, meta *trace.Meta) (*schedule.Filter, error) {
	if meta == nil {
		meta = &trace.Meta{}
	}
	return o.parse(cmd, meta)
}

// parse does check (meta nil: percentage windows and CPU numbers against
// the trace are not checked) and resolve.
func (o *filterFlags) parse(cmd string, meta *trace.Meta) (*schedule.Filter, error) {
	if !o.given() {
		return nil, nil
	}
	f := &schedule.Filter{}
	if o.time != "" {
		var w timewin.Window
		var err error
		switch {
		case meta != nil:
			w, err = timewin.Parse(o.time, meta.FirstTime, meta.LastTime)
		case timewin.NeedsSpan(o.time):
			_, err = timewin.Parse(o.time, 1, 2) // syntax only
		default:
			w, err = timewin.Parse(o.time, 0, 0)
		}
		if err != nil {
			return nil, usageErrorf("%s: --time %q: %v", cmd, o.time, err)
		}
		f.Start, f.End, f.Relative = w.Start, w.End, timewin.NeedsSpan(o.time)
	}
	if o.cpu != "" {
		cpus, err := cpulist.Parse(o.cpu)
		if err != nil {
			return nil, usageErrorf("%s: --cpu %q: %v", cmd, o.cpu, err)
		}
		if meta != nil {
			if err := checkCPUList(cmd+": --cpu", cpus, meta); err != nil {
				return nil, err
			}
		}
		f.CPUs = make([]trace.CPU, len(cpus))
		for i, c := range cpus {
			f.CPUs[i] = trace.CPU(c)
		}
	}
	if o.pid != "" {
		ids, err := parseIDList(o.pid)
		if err != nil {
			return nil, usageErrorf("%s: --pid %q: %v", cmd, o.pid, err)
		}
		for _, id := range ids {
			f.PIDs = append(f.PIDs, trace.PID(id))
		}
	}
	if o.tid != "" {
		ids, err := parseIDList(o.tid)
		if err != nil {
			return nil, usageErrorf("%s: --tid %q: %v", cmd, o.tid, err)
		}
		for _, id := range ids {
			f.TIDs = append(f.TIDs, trace.TID(id))
		}
	}
	if o.comm != "" || o.commGiven {
		for _, n := range splitNameList(o.comm) {
			if n == "" {
				return nil, usageErrorf("%s: --comm %q: an empty name (want comma-separated command names, e.g. sched-pipe,hackbench; a name of spaces as the tables print it, \\x20\\x20; a task named \"\" by --pid or --tid)", cmd, o.comm)
			}
			f.Comms = append(f.Comms, n)
		}
	}
	if o.cgroup != "" {
		if err := parseCgroups(cmd, o.cgroup, meta, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// parseCgroups sets f's Cgroups to the ids of meta's cgroup table whose
// path is one of the comma-separated paths of list or below one; meta nil
// checks the syntax only. A path that names no cgroup of the trace, or a
// trace without a cgroup table, is a usage error, except in a trace whose
// table grows while it is read (trace.Meta.CgroupsMu: perf record
// --all-cgroups), where the filter matches the ids as they appear
// (schedule.Filter.CgroupLookup) and a path of no group is a no-match.
func parseCgroups(cmd, list string, meta *trace.Meta, f *schedule.Filter) error {
	var paths []string
	for _, p := range splitCommList(list) {
		p = strings.TrimSpace(p)
		if !strings.HasPrefix(p, "/") {
			return usageErrorf("%s: --cgroup %q: %q is not a path from the hierarchy's root (want e.g. /system.slice/nginx.service; commas separate paths: a comma inside a name is \\,)", cmd, list, p)
		}
		if p != "/" {
			p = strings.TrimSuffix(p, "/")
		}
		paths = append(paths, p)
	}
	f.CgroupNames = paths
	if meta == nil {
		return nil
	}
	f.Cgroups = []uint64{}
	if meta.CgroupsMu != nil {
		// perf record --all-cgroups: the table comes while the trace is
		// read, so paths are matched as ids appear and a path that names
		// nothing shows as a no-match after the read.
		f.CgroupLookup = meta.CgroupPath
		return nil
	}
	if len(meta.Cgroups) == 0 {
		return usageErrorf("%s: --cgroup: the trace has no cgroup table (traceview record writes one, and perf record --all-cgroups; this trace was recorded without)", cmd)
	}
	for _, p := range paths {
		n := 0
		for _, id := range slices.Sorted(maps.Keys(meta.Cgroups)) {
			if schedule.CgroupBelow(meta.Cgroups[id], p) {
				f.Cgroups = append(f.Cgroups, id)
				n++
			}
		}
		if n == 0 {
			known := slices.Sorted(maps.Values(meta.Cgroups))
			if len(known) > 5 {
				known = append(known[:5], "...")
			}
			return usageErrorf("%s: --cgroup %s: no cgroup of the trace is there or below (it has %s)", cmd, p, strings.Join(known, ", "))
		}
	}
	return nil
}

// parseIDList parses a pid or tid list ("1234,1300-1310"); "" is an error.
func parseIDList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty list")
	}
	return cpulist.ParseInts(s, 0, pidMax)
}

// ints converts a filter's CPUs, PIDs or TIDs for the options of timehist
// and map (nil stays nil).
func ints[T ~int32](vs []T) []int {
	if vs == nil {
		return nil
	}
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = int(v)
	}
	return out
}

// nameRuns counts, per task and name, the switch-ins under that name (the
// next_comm of sched_switch) and the run time they began (ns, to the
// task's switch-out on the same CPU): what a --comm filter keeps or leaves
// of a task (commRenameHint), and how much of a row's work ran under names
// other than the one it carries (renamedNote).
type nameRuns map[trace.TID]map[string]nameUse

// nameUse is one name's share of a task: switch-ins inside the window and
// the run time they began, clipped to the window (ns).
type nameUse struct {
	switchIns, runNS int64
}

// watchNames returns src, counting into the nameRuns it fills (through
// the returned function, once src is read) as the stream goes by: the
// switch-ins inside f's time window and CPUs (all when f is nil), so that
// a hint names only what widening --comm would add to the answer, and the
// run time from each switch-in on those CPUs to the task's switch-out on
// the same CPU, clipped to the window (a run whose end the trace lacks, a
// second switch-in first or a switch-out elsewhere, adds none: unknown
// time is no run time), split at the renames the trace records (exec and
// PR_SET_NAME: trace.KindExec and KindComm); a rename the trace does not
// record puts the run under the name the switch-out gives (prev_comm):
// most such runs are a forked child's first, which execs early in it
// (renamed-threads.tv's 141 children: each ran 2.5-7.1 ms in all, the
// exec's run included, under the shell's name by their switch-ins). A task's switch-ins under its current name cost
// one map lookup; a rename moves the count aside. (Every switch-in counted
// in nested maps took latency on bench/replaymem's 192 MB file from 0.49
// to 0.55 s; this way 0.35-0.39 s beside 0.36-0.37 s without it: measured
// 2026-12-06, three alternating runs each.)
func watchNames(src trace.Source, f *schedule.Filter) (trace.Source, func() nameRuns) {
	cur := map[trace.TID]*namesOf{}
	tap := &trace.Tap{Source: src, Observe: func(e *trace.Event) {
		// (The empty name counts: a task may rename itself to it, and
		// its switch-ins under it are its; new-user pass 32 F2 read "79
		// of its 105 switch-ins" of a task that had 796.)
		if (e.Kind == trace.KindComm || e.Kind == trace.KindExec) && e.TID > 0 {
			// A rename mid-run splits the run at it (new-user pass 52
			// F1: a task that renamed itself before each switch-out
			// gave 1 s as flipB to flipA).
			if p := cur[e.TID]; p != nil && p.name != e.Comm {
				if p.inAt != 0 && e.Time > p.inAt {
					if s, t, in := f.Clip(p.inAt, e.Time); in && t > s {
						p.use.runNS += t - s
					}
					p.inAt = e.Time
				}
				p.rename(e.Comm)
			}
			return
		}
		if e.Kind != trace.KindSwitch || !f.CPU(e.CPU) {
			return
		}
		if p := cur[e.TID]; e.TID > 0 && p != nil && p.inAt != 0 {
			if p.inCPU == e.CPU {
				p.rename(e.Comm)
				if s, t, in := f.Clip(p.inAt, e.Time); in && t > s {
					p.use.runNS += t - s
				}
			}
			p.inAt = 0
		}
		if e.NextTID <= 0 {
			return
		}
		c := cur[e.NextTID]
		if c == nil {
			c = &namesOf{name: e.NextComm}
			cur[e.NextTID] = c
		}
		c.rename(e.NextComm)
		c.inAt, c.inCPU = e.Time, e.CPU
		if f.Time(e.Time) {
			c.use.switchIns++
		}
	}}
	return tap, func() nameRuns {
		runs := make(nameRuns, len(cur))
		for tid, c := range cur {
			m := make(map[string]nameUse, len(c.others)+1)
			for name, u := range c.others {
				if u != (nameUse{}) { // (runs only outside the window)
					m[name] = u
				}
			}
			if c.use != (nameUse{}) {
				m[c.name] = c.use
			}
			if len(m) > 0 {
				runs[tid] = m
			}
		}
		return runs
	}
}

// namesOf is watchNames' state of one task: its current name and that
// name's use, the other names' use, and the run under way.
type namesOf struct {
	name   string
	use    nameUse
	others map[string]nameUse
	inAt   int64 // switch-in time of the run under way (0: none known)
	inCPU  trace.CPU
}

// rename makes name the task's current name, moving the old one's use
// aside.
func (c *namesOf) rename(name string) {
	if name == c.name {
		return
	}
	if c.others == nil {
		c.others = map[string]nameUse{}
	}
	c.others[c.name] = c.others[c.name].add(c.use)
	c.name, c.use = name, c.others[name]
	delete(c.others, name)
}

func (u nameUse) add(o nameUse) nameUse {
	return nameUse{u.switchIns + o.switchIns, u.runNS + o.runNS}
}

// renamedNote is the stderr line naming the tasks whose rows (named by the
// task's last comm, as perf names them) hold real work under other names:
// at least renamedShare of the row's run time and renamedMinRun, or more
// than half its switch-ins and at least renamedMin of them. Each such task
// lists the other names that hold renamedShare of that work with their run
// time and switch-ins, the most run time first (at most 3, and how many
// more names), the tasks with the most
// such run time first (at most 4 and how many more): a thread renamed late
// in its life (prctl, exec) was found only by --comm with its old name
// (new-user pass 24 F2: done-0:23689, 117 of its 177 switch-ins as
// wrk-0). Judged by switch-ins alone, a task that spun 782 ms under one
// name and then slept in 2 ms steps under another got no note (new-user
// pass 51 F2). A TID with several rows (the trace reused it: one row per
// task) is left out, as runs counts its tasks together (new-user pass 28
// F4: "hog:12391 ran 17 of its 59 switch-ins as python3", the three tasks'
// 59). "" when no such task.
func renamedNote(rows []report.LatencyRow, runs nameRuns) string {
	if text, _ := renamedText(rows, runs); text != "" {
		return "note: " + text
	}
	return ""
}

// renamedText is renamedNote without its "note: " (the message of the
// renamed-tasks warning, renamedWarning) and how many tasks it names; ""
// when none.
func renamedText(rows []report.LatencyRow, runs nameRuns) (string, int) {
	list, n := renamedList(rows, runs)
	if list == "" {
		return "", 0
	}
	return "renamed during the trace, so named by their last name in the rows: " + list + " (--comm matches the name at each event)", n
}

// renamedList is renamedNote's list of tasks ("" when none) and how many
// tasks it names, for latency's note and top's (topNames).
func renamedList(rows []report.LatencyRow, runs nameRuns) (string, int) {
	type other struct {
		name string
		use  nameUse
	}
	type renamed struct {
		row    *report.LatencyRow
		all    nameUse
		other  nameUse
		others []other
	}
	perTID := map[trace.TID]int{}
	for i := range rows {
		perTID[rows[i].TID]++
	}
	var found []renamed
	for i := range rows {
		r := &rows[i]
		if r.TID <= 0 || r.NrTasks > 1 || perTID[r.TID] > 1 {
			continue
		}
		f := renamed{row: r}
		for name, u := range runs[r.TID] {
			f.all = f.all.add(u)
			if !report.SameTaskName(name, r.Comm) { // (a kworker's other form of its name is its own)
				f.other = f.other.add(u)
				f.others = append(f.others, other{name, u})
			}
		}
		byRun := f.other.runNS >= renamedMinRun && float64(f.other.runNS) >= renamedShare*float64(f.all.runNS)
		bySwitches := f.other.switchIns >= renamedMin && 2*f.other.switchIns > f.all.switchIns
		if !byRun && !bySwitches {
			continue
		}
		slices.SortFunc(f.others, func(a, b other) int {
			return cmp.Or(cmp.Compare(b.use.runNS, a.use.runNS), cmp.Compare(b.use.switchIns, a.use.switchIns), strings.Compare(a.name, b.name))
		})
		found = append(found, f)
	}
	if len(found) == 0 {
		return "", 0
	}
	slices.SortFunc(found, func(a, b renamed) int {
		return cmp.Or(cmp.Compare(b.other.runNS, a.other.runNS), cmp.Compare(b.other.switchIns, a.other.switchIns), cmp.Compare(a.row.TID, b.row.TID))
	})
	var parts []string
	for _, f := range found[:min(4, len(found))] {
		// The other names that hold a share (renamedShare of the run time
		// or of the switch-ins under other names), at most 3; the rest
		// counted (a thread's 1 switch-in under its creator's name).
		var names []string
		for _, o := range f.others {
			share := float64(o.use.runNS) >= renamedShare*float64(f.other.runNS) || float64(o.use.switchIns) >= renamedShare*float64(f.other.switchIns)
			if share && len(names) < 3 {
				names = append(names, fmt.Sprintf("%s (%.3f ms, %s)", termsafe.Name(o.name), float64(o.use.runNS)/1e6, plural(int(o.use.switchIns), "switch-in")))
			}
		}
		if n := len(f.others) - len(names); n > 0 {
			names = append(names, plural(n, "more name"))
		}
		// (The run time is the switches' between a switch-in and its
		// switch-out; the row's may hold more, a run the trace ends in:
		// no total beside it to disagree with.)
		parts = append(parts, fmt.Sprintf("%s:%d ran %.3f ms and %d of its %d switch-ins as %s",
			termsafe.Name(f.row.Comm), f.row.TID, float64(f.other.runNS)/1e6, f.other.switchIns, f.all.switchIns, strings.Join(names, ", ")))
	}
	if len(found) > 4 {
		parts = append(parts, fmt.Sprintf("and %d more", len(found)-4))
	}
	return strings.Join(parts, "; "), len(found)
}

// renamedMin is how many switch-ins under other names make a task
// renamed for renamedNote: a command a shell forked and exec'd runs a few
// switch-ins under the shell's name first (1 to 3 for each of the 50
// echo and 141 of the renamed-threads.tv children, measured 2026-12-06),
// which is how every command starts, not a rename to note.
const renamedMin = 10

// renamedShare and renamedMinRun: the run time under other names that makes
// a task renamed for renamedNote, a tenth of the row's and at least 50 ms.
// A forked child runs under its parent's name until it execs or renames
// itself: measured 2026-12-06 over the recordings in testdata/traces and
// those of new-user passes 40-51, up to 7.1 ms for a shell's children
// (renamed-threads.tv) and 10-17 ms for python's, which run python code
// before their prctl; 50 ms is three times the most, so a note names work
// done under another name, not how a process starts. A tenth is where the
// row's run time reads as another name's work.
const (
	renamedShare  = 0.1
	renamedMinRun = 50_000_000
)

// commRenameHint is the stderr line for a --comm filter (comms) that left
// out part of the tasks it matched (runs: their switch-ins by name; rows:
// one per task, as report.LatencyResult.TaskRows, the rows the filter
// kept something of having a count, switch or runtime): --comm matches the
// name at each event, so such a task's row holds only its events under the
// names given. A task that ran mostly under other names (one that exec'd:
// a near-empty row under its old name) gets the long form; when every such
// task ran only briefly under another (the shell that exec'd it, a thread
// before it named itself) the short one says what was left out. Names are
// escaped for the terminal (termsafe.Name) and the suggested --comm list is
// one shell word (shellWord). "" when the filter left nothing out.
func commRenameHint(comms []string, rows []report.LatencyRow, runs nameRuns) string {
	if len(comms) == 0 {
		return ""
	}
	most, some := 0, 0
	others := map[string]int64{}
	// given: a name --comm selects, as the filter matches it (the name, or
	// the name as the tables print it, escaped: schedule.Filter.TaskIDs;
	// new-user pass 29 F9 called the matched TAB name "other").
	given := func(name string) bool { return slices.Contains(comms, name) }
	for _, r := range rows {
		if r.TID <= 0 || (r.Switches == 0 && r.Count == 0 && r.Runtime == 0) {
			continue
		}
		var kept, left int64
		for name, u := range runs[r.TID] {
			if given(name) {
				kept += u.switchIns
			} else {
				left += u.switchIns
			}
		}
		switch {
		case left == 0:
			continue
		case left > kept:
			most++
		default:
			some++
		}
		for name, u := range runs[r.TID] {
			if !given(name) && u.switchIns > 0 {
				others[name] += u.switchIns
			}
		}
	}
	if most+some == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(others))
	var parts, args []string
	var left int64
	empty := false
	for _, name := range names {
		label := termsafe.Label(name)
		if name == "" {
			label, empty = `"" (the empty name)`, true
		}
		parts = append(parts, fmt.Sprintf("%s: %s", label, plural(int(others[name]), "switch-in")))
		left += others[name]
	}
	for _, c := range append(slices.Clone(comms), names...) {
		if c != "" { // (no --comm names it: --pid/--tid)
			args = append(args, schedule.EscapeComm(c))
		}
	}
	whole := termsafe.ShellWord(strings.Join(args, ","))
	typed := make([]string, len(comms))
	for i, c := range comms {
		typed[i] = schedule.EscapeComm(c)
	}
	list := strings.Join(typed, ",")
	alt := "keeps them whole (or --pid/--tid)"
	if empty {
		alt = "keeps all but the empty name's (--pid/--tid keep them whole)"
	}
	if most == 0 {
		return fmt.Sprintf("hint: --comm %s left out %s of the %s it matched, under the other names they had (%s): --comm %s %s",
			list, plural(int(left), "switch-in"), plural(some, "task"), strings.Join(parts, ", "), whole, alt)
	}
	return fmt.Sprintf("hint: --comm %s matched %s that also ran under other names (%s): --comm keeps only the events under the names it gives; --comm %s %s",
		list, plural(most+some, "task"), strings.Join(parts, ", "), whole, alt)
}

// splitNameList splits a --comm list at its commas (`\,` is a comma inside a
// name), trims the spaces around each name as typed, and reads each name
// as the tables print it (termsafe.Unescape:
// `\\` a backslash, `\t` a TAB, `\xHH` a byte; any other backslash is
// itself), so a name copied from a table selects that task only: "tab\there"
// the one with a TAB, "tab\\there" the one with a backslash (new-user pass 28
// F10 and 29 F9 matched both).
func splitNameList(s string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && s[i+1] == ',':
			b.WriteByte(',')
			i++
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2]) // for Unescape
			i++
		case c == ',':
			out = append(out, termsafe.Unescape(strings.TrimSpace(b.String())))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, termsafe.Unescape(strings.TrimSpace(b.String())))
}

// splitCommList splits a --cgroup list at its commas: `\,` is a comma inside
// a name (a thread may name itself "x;y,z"), `\\` a backslash; any other
// backslash is itself (report.CommArg writes names this way).
func splitCommList(s string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == ',' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == ',':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// statedCgroups parses the --recorded-cgroup arguments of command name
// (trace.ParseCgroupSettings); a usage error for one that does not parse,
// or for any with --perf (perf's latency has no task groups).
func statedCgroups(name string, args []string, perf bool) ([]trace.CgroupSettings, error) {
	var out []trace.CgroupSettings
	for _, a := range args {
		cs, err := trace.ParseCgroupSettings(a)
		if err != nil {
			return nil, usageErrorf("%s: %w", name, err)
		}
		if perf {
			return nil, usageErrorf("%s: --recorded-cgroup: perf's latency (--perf) has no task groups; drop --perf", name)
		}
		out = append(out, cs)
	}
	return out, nil
}
