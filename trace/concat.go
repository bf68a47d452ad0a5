package trace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// OneRecording reports whether the traces described by metas are parts of
// one traceview recording: the same host, recorder, command line and
// clock, each with a known span. That is a record --rotate series (parts
// one after another: OneCapture) or the dumps of one flight-recorder ring
// (record --ring: windows of the capture that may overlap or leave gaps:
// RingDumps).
func OneRecording(metas ...*Meta) bool {
	if len(metas) < 2 {
		return false
	}
	for _, m := range metas {
		if m == nil || m.Tool != metas[0].Tool || !strings.HasPrefix(m.Tool, "traceview record") || m.Hostname != metas[0].Hostname ||
			m.Clock != metas[0].Clock || !slices.Equal(m.Cmdline, metas[0].Cmdline) || m.FirstTime <= 0 || m.LastTime < m.FirstTime {
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
// With ring set (RingDumps), each part's events up to the previous part's
// last event are skipped (the ring's events of the overlap, read once, a
// counted warning saying how long the overlap was), and a gap between two
// parts, which nothing recorded, is a lost window on every CPU (an event
// of KindLost with CPU -1 and Count 0 at the later part's first event,
// and Meta.Lost windows), so that no run or delay is measured across it.
// Without ring the parts follow one another with no gap or overlap
// (OneCapture), and are chained as they are.
//
// Meta is the first part's description with the span of all, and the lost
// windows and warnings of each part (prefixed with its name) added as it
// ends; Event.Stack ids are renumbered into one table. Close closes every
// part.
func Concat(srcs []Source, names []string, ring bool) Source {
	c := &concat{srcs: srcs, names: names, ring: ring, meta: &Meta{}}
	if len(srcs) > 0 {
		if m := srcs[0].Meta(); m != nil {
			c.meta.Format, c.meta.Hostname, c.meta.OSRelease, c.meta.Arch = m.Format, m.Hostname, m.OSRelease, m.Arch
			c.meta.Tool, c.meta.Cmdline, c.meta.Clock = m.Tool, m.Cmdline, m.Clock
			c.meta.NrCPUs, c.meta.NrCPUsAvail, c.meta.LLCs, c.meta.Autogroup = m.NrCPUs, m.NrCPUsAvail, m.LLCs, m.Autogroup
			c.meta.FirstTime = m.FirstTime
		}
	}
	for _, s := range srcs {
		if m := s.Meta(); m != nil {
			c.meta.LastTime = max(c.meta.LastTime, m.LastTime)
		}
	}
	return c
}

type concat struct {
	srcs    []Source
	names   []string
	ring    bool
	meta    *Meta
	k       int   // the part being read
	begun   bool  // part k has delivered an event (or was checked for a gap)
	last    int64 // ns, the last event delivered
	skipped int   // events of part k skipped as the overlap
	stacks  int   // stack ids of the parts before k
	pending *Event
}

func (c *concat) Meta() *Meta { return c.meta }

func (c *concat) Close() error {
	var first error
	for _, s := range c.srcs {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *concat) Next() (Event, error) {
	if c.pending != nil {
		e := *c.pending
		c.pending = nil
		c.last = max(c.last, e.Time)
		return e, nil
	}
	for c.k < len(c.srcs) {
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
		if c.ring && c.k > 0 && !c.begun {
			if e.Time <= c.last {
				c.skipped++
				continue // the ring's events both dumps hold
			}
			c.begun = true
			if c.gap(e) {
				// The gap's lost window first, then e.
				ev := e
				c.pending = &ev
				lost := NewEvent(e.Time, -1, KindLost)
				return lost, nil
			}
			// The dumps overlap: one ring holds every CPU's events in
			// time order, so the later dump goes on where the earlier one
			// ended, on every CPU (a lost marker here made the delays
			// that cross the join lossy: the merged dumps showed less
			// than the later one alone).
		}
		c.begun = true
		c.last = max(c.last, e.Time)
		return e, nil
	}
	return Event{}, io.EOF
}

// gap notes the time between the previous part's last event and e, the
// first event of part k (ring dumps): nothing recorded it, on any CPU. It
// reports whether there is such a gap: none when part k began with events
// the part before holds too (the overlap, skipped).
func (c *concat) gap(e Event) bool {
	name := c.names[c.k]
	if c.skipped > 0 {
		c.meta.Warnings.Add("ring-dump-overlap", "%s: %d events of its first %.3f ms are also in the dump before it (dumps of one ring overlap): read once",
			name, c.skipped, float64(c.last-c.srcs[c.k].Meta().FirstTime)/1e6)
		return false
	}
	for cpu := 0; cpu < max(c.meta.NrCPUs, 1); cpu++ {
		c.meta.Lost = append(c.meta.Lost, LostWindow{CPU: CPU(cpu), Start: c.last, End: e.Time})
	}
	c.meta.Warnings.Add("ring-dump-gap", "%s: nothing was recorded for %.3f ms before its first event (the ring was not dumped then): no run or delay is measured across the gap",
		name, float64(e.Time-c.last)/1e6)
	return true
}

// endPart adds part k's lost windows, warnings, stacks and cgroup names
// to the Meta and moves on to the next part.
func (c *concat) endPart() {
	if m := c.srcs[c.k].Meta(); m != nil {
		c.meta.Lost = append(c.meta.Lost, m.Lost...)
		c.meta.LostUnplaced += m.LostUnplaced
		c.meta.CutAt += m.CutAt
		c.meta.LastTime = max(c.meta.LastTime, m.LastTime)
		for _, w := range m.Warnings.List() {
			msg := w.Message
			if len(c.names) > c.k {
				msg = c.names[c.k] + ": " + msg
			}
			if w.Key == "ring-dump" {
				// Each dump's own trigger, not the first dump's "(2
				// times)".
				w.Key = fmt.Sprintf("ring-dump-of-%d", c.k)
			}
			if w.Unit != "" {
				c.meta.Warnings.AddCount(w.Key, w.Count, w.Unit, "%s", msg)
			} else {
				c.meta.Warnings.AddN(w.Key, w.Count, "%s", msg)
			}
		}
		for _, st := range m.Stacks {
			st.ID += StackID(c.stacks)
			c.meta.Stacks = append(c.meta.Stacks, st)
		}
		c.stacks += len(m.Stacks)
		if m.Cgroups != nil {
			if c.meta.Cgroups == nil {
				c.meta.Cgroups = map[uint64]string{}
			}
			maps.Copy(c.meta.Cgroups, m.Cgroups)
		}
		c.meta.CgroupSettings = append(c.meta.CgroupSettings, m.CgroupSettings...)
		c.meta.CgroupStats = append(c.meta.CgroupStats, m.CgroupStats...)
	}
	c.k++
	c.begun, c.skipped = false, 0
}
