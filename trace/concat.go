package trace

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OneRecording reports whether the traces described by metas are parts of
// one traceview recording: the same host, recorder, command line and
// clock, each with a known start (its end is unknown when opened for a
// file cut short: no trailer). That is a record --rotate series (parts
// one after another: OneCapture) or the dumps of one flight-recorder ring
// (record --ring: windows of the capture that may overlap or leave gaps:
// RingDumps).
func OneRecording(metas ...*Meta) bool {
	if len(metas) < 2 {
		return false
	}
	for _, m := range metas {
		if m == nil || m.Tool != metas[0].Tool || !strings.HasPrefix(m.Tool, "traceview record") || m.Hostname != metas[0].Hostname ||
			m.Clock != metas[0].Clock || !slices.Equal(m.Cmdline, metas[0].Cmdline) || m.FirstTime <= 0 || m.LastTime != 0 && m.LastTime < m.FirstTime {
			return false
		}
	}
	return true
}

// RingDumps reports whether the traces of one recording (OneRecording) are
// dumps of a flight-recorder ring (traceview record --ring): each holds the
// ring's window at its trigger, so two may overlap (the same events in
// both) or leave a gap that nothing recorded.
func RingDumps(metas ...*Meta) bool {
	return OneRecording(metas...) && strings.Contains(metas[0].Tool, "--ring")
}

// Concat returns a Source that reads the parts of one recording
// (OneRecording) one after another, in the order given (their time order),
// as the one capture they are: a task that ran across two parts is one
// task, and a wakeup in one part and the switch-in it led to in the next
// is one scheduling delay. names name the parts in warnings.
//
// With ring set (RingDumps), each CPU is judged on its own, as a ring
// dump's coverage starts at a different time on each CPU: a part's events
// on a CPU up to the last event the parts before it hold on that CPU are
// skipped (the ring's events of the overlap, read once, a counted warning
// saying how many and how long), and the part's events that fall inside
// the earlier parts' span are merged with theirs in time order. A CPU is
// unobserved only between its own last event in the earlier parts and its
// own first event in the later part when these do not overlap (no event
// of the part on that CPU was skipped): that gap, which nothing recorded,
// is a lost window on that CPU (an event of KindLost on that CPU with
// Count 0 at the later part's first event there, and a Meta.Lost window
// of Count 0), so that no run or delay is measured across it. Events
// without a CPU are skipped up to the earlier parts' last event, except
// those of time 0 (the names of the tasks alive when a part began), which
// are read as they come. Without ring the parts follow one another with no
// gap or overlap (OneCapture), and are chained as they are.
//
// Meta is the first part's description with the span of all, and the lost
// windows and warnings of each part (prefixed with its name, and kept
// apart from the other parts': Warnings.AddScoped) added as it ends;
// Event.Stack ids are renumbered into one table. The parts' cgroup tables
// are one from the start (Meta.Cgroups), numbered by path: a path keeps
// the id it has in the first part that names it, and the events' cgroup
// ids (Event.Cgroup) of the later parts are rewritten to match, as each
// file of a series numbers its cgroup v1 groups its own way (see
// seriesCgroups). Close closes every part.
func Concat(srcs []Source, names []string, ring bool) Source {
	c := &concat{srcs: srcs, names: names, ring: ring, meta: &Meta{},
		prevLast: map[CPU]int64{}, curLast: map[CPU]int64{}, begun: map[CPU]bool{}, skippedOn: map[CPU]bool{}}
	if len(srcs) > 0 {
		if m := srcs[0].Meta(); m != nil {
			c.meta.Format, c.meta.Hostname, c.meta.OSRelease, c.meta.Arch = m.Format, m.Hostname, m.OSRelease, m.Arch
			c.meta.Tool, c.meta.Cmdline, c.meta.Clock = m.Tool, m.Cmdline, m.Clock
			c.meta.NrCPUs, c.meta.NrCPUsAvail, c.meta.LLCs, c.meta.Autogroup = m.NrCPUs, m.NrCPUsAvail, m.LLCs, m.Autogroup
			c.meta.FirstTime = m.FirstTime
		}
	}
	metas := make([]*Meta, len(srcs))
	for i, s := range srcs {
		if m := s.Meta(); m != nil {
			c.meta.LastTime = max(c.meta.LastTime, m.LastTime)
			metas[i] = m
		}
	}
	c.cgroups = newSeriesCgroups(c.meta, metas)
	c.seriesNames()
	return c
}

// seriesNames says what the parts' numbers (record --rotate and --ring
// number them FILE.001.tv, FILE.002.tv, ... from 1) tell beside their
// times: a series whose first file is missing (new-user pass 64 F6: read
// as complete, where a missing middle file is named), and numbers that do
// not follow the parts' time order, in which they are read (F5).
func (c *concat) seriesNames() {
	var nums []int
	base := ""
	for i, n := range c.names {
		m := seriesNumber.FindStringSubmatch(n)
		if m == nil || i > 0 && m[1] != base {
			return
		}
		k, err := strconv.Atoi(m[2])
		if err != nil {
			return
		}
		base, nums = m[1], append(nums, k)
	}
	if len(nums) == 0 {
		return
	}
	if !slices.IsSorted(nums) {
		c.meta.Warnings.Add("series-order", "the files' numbers do not follow their times (%s): read in time order, as their events say", strings.Join(c.names, ", "))
	}
	if first := slices.Min(nums); first > 1 {
		m := seriesNumber.FindStringSubmatch(c.names[slices.Index(nums, first)])
		gone := fmt.Sprintf("%s.%0*d%s", m[1], len(m[2]), 1, m[3])
		if first > 2 {
			gone += fmt.Sprintf(" to %s.%0*d%s", m[1], len(m[2]), first-1, m[3])
		}
		c.meta.Warnings.Add("series-missing-file", "the series lacks %s (before %s): what the capture recorded before %s s is not in the report", gone, c.names[slices.Index(nums, first)], FormatSeconds(c.meta.FirstTime, 6))
	}
}

type concat struct {
	// srcs are the parts; one read to its end is an endedPart.
	srcs     []Source
	closeErr error // the first error of a part closed as it ended
	names    []string
	ring     bool
	meta     *Meta
	k        int // the part being read
	// stacks is the number of stack ids of the parts before k.
	stacks int
	// cgroups numbers the parts' cgroups as one table.
	cgroups *seriesCgroups

	// Ring dumps only.
	prevLast  map[CPU]int64 // ns, each CPU's last event in the parts before k
	prevAll   int64         // ns, the last event of the parts before k
	curLast   map[CPU]int64 // ns, each CPU's last event in part k so far
	begun     map[CPU]bool  // part k has delivered an event on the CPU
	skippedOn map[CPU]bool  // part k had an event on the CPU skipped as overlap
	skipped   int           // events of part k skipped as the overlap
	skipMax   int64         // ns, the last of them
	// held are events of the parts before k at or after part k's first
	// time, in time order, waiting to be merged with part k's; next are
	// those, and part k's own, at or after part k+1's first time.
	held, next []Event
	ready      []Event // events to deliver, in order
}

func (c *concat) Meta() *Meta { return c.meta }

func (c *concat) Close() error {
	first := c.closeErr
	for _, s := range c.srcs {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// endedPart stands for a part read to its end and closed (endPart): its
// Meta stays, its reader's buffers go. A series held every file's (a
// MiB or two each) to the end: 227 MB for 109 files (new-user pass 115
// F7).
type endedPart struct{ m *Meta }

func (p endedPart) Next() (Event, error) { return Event{}, io.EOF }
func (p endedPart) Meta() *Meta          { return p.m }
func (p endedPart) Close() error         { return nil }

func (c *concat) Next() (Event, error) {
	for {
		if len(c.ready) > 0 {
			e := c.ready[0]
			c.ready = c.ready[1:]
			return e, nil
		}
		if c.k >= len(c.srcs) {
			return Event{}, io.EOF
		}
		e, err := c.srcs[c.k].Next()
		if err == io.EOF {
			c.endPart()
			continue
		}
		if err != nil {
			return e, err
		}
		if e.Stack > 0 {
			e.Stack += StackID(c.stacks)
		}
		if e.Cgroup != 0 {
			e.Cgroup = c.cgroups.id(c.k, c.srcs[c.k].Meta(), e.Cgroup)
		}
		if !c.ring {
			return e, nil
		}
		c.ringEvent(e)
	}
}

// ringEvent takes e, an event of ring dump k: it skips it when the parts
// before k hold it, notes a gap on its CPU before its first event there,
// and queues it (after the gap's lost event) in time order.
func (c *concat) ringEvent(e Event) {
	if e.Time == 0 {
		c.ready = append(c.ready, e) // a task's name, of no time
		return
	}
	if e.CPU < 0 {
		if c.k > 0 && e.Time <= c.prevAll {
			c.skip(e)
			return
		}
		c.queue(e)
		return
	}
	last, seen := c.prevLast[e.CPU]
	if !c.begun[e.CPU] {
		if seen && e.Time <= last {
			c.skippedOn[e.CPU] = true
			c.skip(e)
			return // the ring's events both dumps hold
		}
		c.begun[e.CPU] = true
		if seen && !c.skippedOn[e.CPU] {
			c.gap(e, last)
		}
	}
	c.curLast[e.CPU] = max(c.curLast[e.CPU], e.Time)
	c.queue(e)
}

func (c *concat) skip(e Event) {
	c.skipped++
	c.skipMax = max(c.skipMax, e.Time)
}

// queue delivers e, an event of part k, after the held events of the parts
// before it that are not later; an event at or after part k+1's first time
// waits for part k+1's events (next).
func (c *concat) queue(e Event) {
	n := 0
	for n < len(c.held) && c.held[n].Time <= e.Time {
		n++
	}
	for _, h := range c.held[:n] {
		c.deliver(h)
	}
	c.held = c.held[n:]
	c.deliver(e)
}

func (c *concat) deliver(e Event) {
	if c.k+1 < len(c.srcs) {
		if m := c.srcs[c.k+1].Meta(); m != nil && e.Time >= m.FirstTime {
			c.next = append(c.next, e)
			return
		}
	}
	c.ready = append(c.ready, e)
}

// gap notes that CPU e.CPU was not observed between last, its last event
// in the parts before k, and e, its first event in part k (ring dumps),
// and queues the lost window's event.
func (c *concat) gap(e Event, last int64) {
	c.meta.Lost = append(c.meta.Lost, LostWindow{CPU: e.CPU, Start: last, End: e.Time})
	// Each dump's and CPU's its own (Add merged the second dump's under
	// the first's text: new-user pass 64 F4).
	c.meta.Warnings.AddScoped(fmt.Sprintf("%s\x00%d", c.names[c.k], e.CPU), Warning{Key: "ring-dump-gap", Count: 1, Message: fmt.Sprintf(
		"%s: CPU %d: nothing was recorded for %.3f ms before its first event on that CPU (the ring was not dumped then): no run or delay on that CPU is measured across the gap",
		c.names[c.k], e.CPU, float64(e.Time-last)/1e6)})
	c.queue(NewEvent(e.Time, e.CPU, KindLost))
}

// endPart adds part k's lost windows, warnings, stacks and cgroup names
// (those its table gained while read) to the Meta and moves on to the
// next part.
func (c *concat) endPart() {
	if m := c.srcs[c.k].Meta(); m != nil {
		c.meta.Lost = append(c.meta.Lost, m.Lost...)
		c.meta.LostUnplaced += m.LostUnplaced
		c.meta.LostInFile += m.LostInFile
		c.meta.CutAt += m.CutAt
		c.meta.LastTime = max(c.meta.LastTime, m.LastTime)
		name := ""
		if len(c.names) > c.k {
			name = c.names[c.k]
		}
		for _, w := range m.Warnings.List() {
			if name != "" {
				w.Message = name + ": " + w.Message
			}
			c.meta.Warnings.AddScoped(name, w)
		}
		if c.ring && c.skipped > 0 {
			c.meta.Warnings.AddScoped(name, Warning{Key: "ring-dump-overlap", Count: 1, Message: fmt.Sprintf(
				"%s: %d events of its first %.3f ms are also in the dump before it (dumps of one ring overlap): read once",
				name, c.skipped, float64(c.skipMax-m.FirstTime)/1e6)})
		}
		for _, st := range m.Stacks {
			st.ID += StackID(c.stacks)
			c.meta.Stacks = append(c.meta.Stacks, st)
		}
		c.stacks += len(m.Stacks)
		// (A table that grew while the part was read, or the root's
		// entry of a file without trailer, given at its end.)
		c.cgroups.addPart(c.k, m)
		c.meta.CgroupSettings = append(c.meta.CgroupSettings, m.CgroupSettings...)
		c.meta.CgroupStats = append(c.meta.CgroupStats, m.CgroupStats...)
		if m.TaskAffinity != nil {
			if c.meta.TaskAffinity == nil {
				c.meta.TaskAffinity = map[PID][]CPU{}
			}
			maps.Copy(c.meta.TaskAffinity, m.TaskAffinity)
		}
		if m.TaskAutogroups != nil {
			if c.meta.TaskAutogroups == nil {
				c.meta.TaskAutogroups = map[PID]string{}
			}
			maps.Copy(c.meta.TaskAutogroups, m.TaskAutogroups)
		}
	}
	if err := c.srcs[c.k].Close(); err != nil && c.closeErr == nil {
		c.closeErr = err
	}
	c.srcs[c.k] = endedPart{c.srcs[c.k].Meta()}
	c.k++
	if !c.ring {
		if !c.cutBefore() {
			c.missingBefore()
		}
		return
	}
	for cpu, t := range c.curLast {
		c.prevLast[cpu] = max(c.prevLast[cpu], t)
		c.prevAll = max(c.prevAll, t)
	}
	clear(c.curLast)
	clear(c.begun)
	clear(c.skippedOn)
	c.skipped, c.skipMax = 0, 0
	// The earlier parts' events still held all follow part k-1's: with
	// part k-1's tail, those before part k's first time are delivered now,
	// the others merged with part k's.
	rest := append(c.next, c.held...)
	slices.SortStableFunc(rest, func(a, b Event) int { return cmp.Compare(a.Time, b.Time) })
	c.next, c.held = nil, nil
	for i, e := range rest {
		if c.k < len(c.srcs) {
			if m := c.srcs[c.k].Meta(); m != nil && e.Time >= m.FirstTime {
				c.held = rest[i:]
				break
			}
		}
		c.ready = append(c.ready, e)
	}
}

// seriesNumber matches the name record --rotate gives the files of a
// series: PREFIX.NNN.tv.
var seriesNumber = regexp.MustCompile(`^(.*)\.(\d+)(\.tv(?:\.gz|\.zst|\.zstd)?)$`)

// missingBefore notes, when part k follows a part of a rotated series
// whose number is more than one below its own (record --rotate numbers
// them FILE.001.tv, FILE.002.tv, ...), that the files between are
// missing: a warning naming them and a lost window on every CPU (a
// KindLost of CPU -1 and Count 0 at the part's first time: every CPU is
// unobserved from its last event until then), so that no run or delay
// is measured across the hole (new-user pass 13: a series without its
// third file read as one recording, 27 % of a task's run time gone and
// nothing said).
// cutBefore makes every CPU unobserved from the end of part k-1 to part
// k's first time when part k-1 was cut short (Meta.Cut: no trailer, the
// capture went on past what it holds), so that no run or delay is measured
// across what it lacks (a series whose middle file was cut short read 1.2
// s delays across it). It reports whether it did.
func (c *concat) cutBefore() bool {
	if c.k <= 0 || c.k >= len(c.srcs) {
		return false
	}
	m, prev := c.srcs[c.k].Meta(), c.srcs[c.k-1].Meta()
	if m == nil || prev == nil || !prev.Cut() || m.FirstTime <= 0 || prev.LastTime <= 0 || m.FirstTime <= prev.LastTime {
		return false
	}
	name := ""
	if c.k-1 < len(c.names) {
		name = c.names[c.k-1]
	}
	c.meta.Warnings.AddScoped(name, Warning{Key: "series-cut-file", Count: 1, Message: fmt.Sprintf(
		"%s is cut short: nothing of the series was read from %s s (its last event) to %s s (the next file's first), and no run or delay is measured across it",
		name, FormatSeconds(prev.LastTime, 6), FormatSeconds(m.FirstTime, 6))})
	c.meta.Lost = append(c.meta.Lost, LostWindow{CPU: -1, Start: prev.LastTime, End: m.FirstTime})
	c.ready = append(c.ready, NewEvent(m.FirstTime, -1, KindLost))
	return true
}

func (c *concat) missingBefore() {
	if c.k <= 0 || c.k >= len(c.srcs) || c.k >= len(c.names) {
		return
	}
	a, b := seriesNumber.FindStringSubmatch(c.names[c.k-1]), seriesNumber.FindStringSubmatch(c.names[c.k])
	if a == nil || b == nil || a[1] != b[1] {
		return
	}
	na, errA := strconv.Atoi(a[2])
	nb, errB := strconv.Atoi(b[2])
	if errA != nil || errB != nil || nb <= na+1 {
		return
	}
	for _, n := range c.names {
		// A file numbered between them was given: the numbers do not
		// follow the files' times (renamed files), which c.order says;
		// none is missing (new-user pass 64 F5: "lacks rot.002.tv" of a
		// series holding it, and unobserved windows made up at the
		// cuts).
		if m := seriesNumber.FindStringSubmatch(n); m != nil && m[1] == a[1] {
			if k, err := strconv.Atoi(m[2]); err == nil && k > na && k < nb {
				return
			}
		}
	}
	m, prev := c.srcs[c.k].Meta(), c.srcs[c.k-1].Meta()
	if m == nil || prev == nil || m.FirstTime <= 0 || prev.LastTime <= 0 {
		return
	}
	gone := fmt.Sprintf("%s.%0*d%s", a[1], len(a[2]), na+1, a[3])
	if nb > na+2 {
		gone += fmt.Sprintf(" to %s.%0*d%s", a[1], len(a[2]), nb-1, a[3])
	}
	c.meta.Warnings.AddScoped(gone, Warning{Key: "series-missing-file", Count: 1, Message: fmt.Sprintf(
		"the series lacks %s (between %s and %s): nothing was read from %s s to %s s, and no run or delay is measured across it",
		gone, c.names[c.k-1], c.names[c.k], FormatSeconds(prev.LastTime, 6), FormatSeconds(m.FirstTime, 6))})
	lost := NewEvent(m.FirstTime, -1, KindLost)
	c.meta.Lost = append(c.meta.Lost, LostWindow{CPU: -1, Start: prev.LastTime, End: m.FirstTime})
	c.ready = append(c.ready, lost)
}
