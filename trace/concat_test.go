package trace

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// partSource is a Source of the events evs with meta m.
type partSource struct {
	m      *Meta
	evs    []Event
	closed int // Close calls
}

func (p *partSource) Meta() *Meta  { return p.m }
func (p *partSource) Close() error { p.closed++; return nil }
func (p *partSource) Next() (Event, error) {
	if len(p.evs) == 0 {
		return Event{}, io.EOF
	}
	e := p.evs[0]
	p.evs = p.evs[1:]
	return e, nil
}

// seriesPart is a part of a --rotate series holding a switch on CPU 0 at
// each of times (ns).
func seriesPart(times ...int64) *partSource {
	p := &partSource{m: &Meta{Tool: "traceview record (tp_btf) --rotate 1s", Hostname: "h", NrCPUs: 2}}
	for _, at := range times {
		p.evs = append(p.evs, NewEvent(at, 0, KindSwitch))
	}
	p.m.FirstTime, p.m.LastTime = times[0], times[len(times)-1]
	return p
}

// ringPart is a ring dump of 2 CPUs holding evs, given as "CPU@time" (time
// in ns), in time order, with one trigger warning.
func ringPart(trigger string, evs ...string) *partSource {
	p := &partSource{m: &Meta{Tool: "traceview record (tp_btf) --ring", Hostname: "h", NrCPUs: 2}}
	for _, s := range evs {
		var cpu, at int
		fmt.Sscanf(s, "%d@%d", &cpu, &at)
		p.evs = append(p.evs, NewEvent(int64(at), CPU(cpu), KindSwitch))
	}
	p.m.FirstTime, p.m.LastTime = p.evs[0].Time, p.evs[len(p.evs)-1].Time
	p.m.Warnings.Add("ring-dump", "flight-recorder dump: trigger: %s", trigger)
	return p
}

// concatAll reads src to its end: its events as "CPU@time" ("lost" before
// a KindLost event's).
func concatAll(t *testing.T, src Source) string {
	t.Helper()
	var out []string
	for {
		e, err := src.Next()
		if err == io.EOF {
			return strings.Join(out, " ")
		}
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("%d@%d", e.CPU, e.Time)
		if e.Kind == KindLost {
			s = "lost" + s
		}
		out = append(out, s)
	}
}

// TestConcatRingOverlapPerCPU: a ring dump's coverage starts at a
// different time on each CPU. Dump A holds CPU 0 at 10, 20, 30 and CPU 1
// at 12, 35, 40; dump B, taken later, holds CPU 0 from 30 (30, 33, 50) and
// CPU 1 from 35 (35, 40, 45). Both CPUs are continuous across the join
// (B's first event on each is one A holds), so nothing was lost: 30 on
// CPU 0 and 35, 40 on CPU 1 are read once (3 skipped), and 33 on CPU 0,
// after A's last event there (30) but before A's last event (40), is
// kept, in time order. The two dumps' trigger warnings stay two lines.
func TestConcatRingOverlapPerCPU(t *testing.T) {
	a := ringPart("delay of x", "0@10", "1@12", "0@20", "0@30", "1@35", "1@40")
	b := ringPart("delay of y", "0@30", "0@33", "1@35", "1@40", "1@45", "0@50")
	src := Concat([]Source{a, b}, []string{"a.tv", "b.tv"}, true)
	got := concatAll(t, src)
	if want := "0@10 1@12 0@20 0@30 0@33 1@35 1@40 1@45 0@50"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if n := len(src.Meta().Lost); n != 0 {
		t.Errorf("%d lost windows %v, want none", n, src.Meta().Lost)
	}
	var msgs []string
	for _, w := range src.Meta().Warnings.List() {
		msgs = append(msgs, w.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"a.tv: flight-recorder dump: trigger: delay of x", "b.tv: flight-recorder dump: trigger: delay of y",
		"b.tv: 3 events of its first 0.000 ms are also in the dump before it"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "times)") {
		t.Errorf("a warning of one dump counted with the other's:\n%s", all)
	}
}

// TestConcatRingGapOneCPU: dump A holds CPU 0 at 10, 20 and CPU 1 at 15,
// 60; dump B holds CPU 0 from 50 (50, 70) and CPU 1 from 55 (55, 60, 65).
// CPU 1 is continuous (55 and 60 are A's too: skipped); CPU 0 was not
// observed from its last event in A (20) to its first in B (50): one lost
// window on CPU 0 only, 20-50 ns, its KindLost event just before 50, and
// B's 50 on CPU 0 (before A's last event, 60) is kept.
func TestConcatRingGapOneCPU(t *testing.T) {
	a := ringPart("x", "0@10", "1@15", "0@20", "1@60")
	b := ringPart("y", "0@50", "1@55", "1@60", "1@65", "0@70")
	src := Concat([]Source{a, b}, []string{"a.tv", "b.tv"}, true)
	got := concatAll(t, src)
	if want := "0@10 1@15 0@20 lost0@50 0@50 1@60 1@65 0@70"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	lost := src.Meta().Lost
	if len(lost) != 1 || lost[0] != (LostWindow{CPU: 0, Start: 20, End: 50}) {
		t.Errorf("lost windows %v, want CPU 0 20-50 ns only", lost)
	}
}

// TestConcatSeriesMissingFile: parts s.001.tv (events at 10, 20) and
// s.003.tv (30, 40) of a record --rotate series, s.002.tv missing: a lost
// event on every CPU (-1) at 30, the second part's first time, so that
// every CPU is unobserved from its last event (20) to there, a window
// [20, 30] in Meta.Lost and a series-missing-file warning naming s.002.tv.
// Consecutive parts (s.001.tv, s.002.tv) get none.
func TestConcatSeriesMissingFile(t *testing.T) {
	src := Concat([]Source{seriesPart(10, 20), seriesPart(30, 40)}, []string{"s.001.tv", "s.003.tv"}, false)
	if got, want := concatAll(t, src), "0@10 0@20 lost-1@30 0@30 0@40"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	m := src.Meta()
	if len(m.Lost) != 1 || m.Lost[0] != (LostWindow{CPU: -1, Start: 20, End: 30}) {
		t.Errorf("lost windows %+v, want one on every CPU from 20 to 30", m.Lost)
	}
	var msg string
	for _, w := range m.Warnings.List() {
		if w.Key == "series-missing-file" {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, "the series lacks s.002.tv (between s.001.tv and s.003.tv)") {
		t.Errorf("warning %q, want one naming s.002.tv", msg)
	}
	src = Concat([]Source{seriesPart(10, 20), seriesPart(30, 40)}, []string{"s.001.tv", "s.002.tv"}, false)
	if got, want := concatAll(t, src), "0@10 0@20 0@30 0@40"; got != want {
		t.Errorf("consecutive parts: events %q, want %q", got, want)
	}
	warnings := func(src Source) map[string]string {
		out := map[string]string{}
		for _, w := range src.Meta().Warnings.List() {
			out[w.Key] = w.Message
		}
		return out
	}
	// Files renamed out of their time order (new-user pass 64 F5): the
	// times order them, none is missing (no lost event), and a warning
	// says the numbers disagree.
	src = Concat([]Source{seriesPart(10, 20), seriesPart(30, 40), seriesPart(50, 60)}, []string{"s.001.tv", "s.003.tv", "s.002.tv"}, false)
	ws := warnings(src)
	if got, want := concatAll(t, src), "0@10 0@20 0@30 0@40 0@50 0@60"; got != want || ws["series-missing-file"] != "" ||
		ws["series-order"] != "the files' numbers do not follow their times (s.001.tv, s.003.tv, s.002.tv): read in time order, as their events say" {
		t.Errorf("renamed: events %q (want %q), warnings %v", got, want, ws)
	}
	// Two files missing: a warning each, each naming its own (new-user
	// pass 64 F4: the second went into the first's text as "(2 times)").
	src = Concat([]Source{seriesPart(10, 20), seriesPart(30, 40), seriesPart(50, 60)}, []string{"s.001.tv", "s.003.tv", "s.005.tv"}, false)
	concatAll(t, src)
	var gaps []string
	for _, w := range src.Meta().Warnings.List() {
		if w.Key == "series-missing-file" && w.Count == 1 {
			gaps = append(gaps, w.Message[:len("the series lacks s.00N.tv")])
		}
	}
	if !slices.Equal(gaps, []string{"the series lacks s.002.tv", "the series lacks s.004.tv"}) {
		t.Errorf("two files missing: %q", gaps)
	}
	// A middle file cut short (its Meta says so: a truncated warning, no
	// trailer, so its end is known only once read): every CPU is
	// unobserved from its last event (20) to the next file's first (30),
	// as for a missing file (a series read 1.2 s delays across the cut).
	cut := seriesPart(10, 20)
	cut.m.Warnings.Add("truncated", "file ends inside the frame")
	src = Concat([]Source{cut, seriesPart(30, 40)}, []string{"s.001.tv", "s.002.tv"}, false)
	if got, want := concatAll(t, src), "0@10 0@20 lost-1@30 0@30 0@40"; got != want || !strings.Contains(warnings(src)["series-cut-file"], "s.001.tv is cut short: nothing of the series was read from") {
		t.Errorf("cut middle file: events %q (want %q), warnings %v", got, want, warnings(src))
	}
	// The first file missing (F6), compressed names too: said, with the
	// time the report starts at; no lost event (nothing before it was
	// observed).
	src = Concat([]Source{seriesPart(30, 40), seriesPart(50, 60)}, []string{"s.003.tv.gz", "s.004.tv.gz"}, false)
	ws = warnings(src)
	if got, want := concatAll(t, src), "0@30 0@40 0@50 0@60"; got != want ||
		ws["series-missing-file"] != "the series lacks s.001.tv.gz to s.002.tv.gz (before s.003.tv.gz): what the capture recorded before 0.000000 s is not in the report" {
		t.Errorf("first missing: events %q (want %q), warnings %v", got, want, ws)
	}
}

// TestConcatCgroupsByPath: the parts of one recording each number their
// cgroups (Meta.Cgroups); read as one, a path keeps the id it got first
// and the later parts' events (Event.Cgroup) are rewritten to it, so that
// every event still names its own part's group (new-user pass 52 F2: the
// table was the last part's, and the first parts' tasks went under the
// groups that reused their ids). Each part has one switch per id of its
// table, in id order, and one with the id given as unnamed (if any); v is
// V1CgroupIDBit, and a v2 id whose path the parts disagree on gets
// AutogroupIDBit-1, the first fresh id below the autogroups'.
func TestConcatCgroupsByPath(t *testing.T) {
	const v = V1CgroupIDBit
	type part struct {
		table   map[uint64]string
		unnamed uint64 // an event's id the table lacks (0: none)
	}
	for _, c := range []struct {
		name  string
		parts []part
		// wantIDs are the ids of the events read, in order; wantTable
		// the merged table.
		wantIDs   []uint64
		wantTable map[uint64]string
	}{
		{
			// The tester's g1 series: /b, /a, /q are v|1, v|2, v|3 in
			// part 1; part 2 has /q and /a swapped, part 3 all three
			// moved.
			name: "v1 ids permuted",
			parts: []part{
				{table: map[uint64]string{v | 1: "/b", v | 2: "/a", v | 3: "/q"}},
				{table: map[uint64]string{v | 1: "/b", v | 2: "/q", v | 3: "/a"}},
				{table: map[uint64]string{v | 1: "/q", v | 2: "/b", v | 3: "/a"}},
			},
			wantIDs:   []uint64{v | 1, v | 2, v | 3, v | 1, v | 3, v | 2, v | 3, v | 1, v | 2},
			wantTable: map[uint64]string{v | 1: "/b", v | 2: "/a", v | 3: "/q"},
		},
		{
			// A group only the second part names keeps its id when no
			// earlier part used it (v|2), and takes the next number up
			// that no part uses when one did (/c's v|1 is /a's: v|3).
			name: "v1 groups new in a later part",
			parts: []part{
				{table: map[uint64]string{v | 1: "/a"}},
				{table: map[uint64]string{v | 1: "/c", v | 2: "/b"}},
			},
			wantIDs:   []uint64{v | 1, v | 3, v | 2},
			wantTable: map[uint64]string{v | 1: "/a", v | 2: "/b", v | 3: "/c"},
		},
		{
			// cgroup v2: /x made again between the parts (a new inode,
			// 600) is one group by its path; 500, /x in part 1 and /y in
			// part 2, is two: /y gets a fresh id.
			name: "v2 ids",
			parts: []part{
				{table: map[uint64]string{1: "/", 500: "/x"}},
				{table: map[uint64]string{1: "/", 500: "/y", 600: "/x"}},
			},
			wantIDs:   []uint64{1, 500, 1, AutogroupIDBit - 1, 500},
			wantTable: map[uint64]string{1: "/", 500: "/x", AutogroupIDBit - 1: "/y"},
		},
		{
			// A part whose table lacks an id (a file cut before its
			// trailer): its v1 number is its own, not part 1's /a, so it
			// gets a fresh one (v|2) that names nothing, and another
			// such part's is another group again (v|3); a v2 id is the
			// kernel's and stays (part 1 names 500).
			name: "unnamed ids",
			parts: []part{
				{table: map[uint64]string{v | 1: "/a", 500: "/x"}},
				{unnamed: v | 1},
				{unnamed: 500},
				{unnamed: v | 1},
			},
			wantIDs:   []uint64{500, v | 1, v | 2, 500, v | 3},
			wantTable: map[uint64]string{v | 1: "/a", 500: "/x"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			var srcs []Source
			var names []string
			at := int64(10)
			for i, p := range c.parts {
				ps := &partSource{m: &Meta{Tool: "traceview record (tp_btf) --rotate 1s", Hostname: "h", NrCPUs: 1, Cgroups: p.table}}
				ids := slices.Sorted(maps.Keys(p.table))
				if p.unnamed != 0 {
					ids = append(ids, p.unnamed)
				}
				for _, id := range ids {
					e := NewEvent(at, 0, KindSwitch)
					e.Cgroup = id
					ps.evs = append(ps.evs, e)
					at += 10
				}
				ps.m.FirstTime, ps.m.LastTime = ps.evs[0].Time, ps.evs[len(ps.evs)-1].Time
				srcs, names = append(srcs, ps), append(names, fmt.Sprintf("s.%03d.tv", i+1))
			}
			src := Concat(srcs, names, false)
			if diff := cmp.Diff(c.wantTable, src.Meta().Cgroups); diff != "" {
				t.Errorf("the table as the parts were opened (-want +got):\n%s", diff)
			}
			evs, err := ReadAll(src)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, e := range evs {
				got = append(got, e.Cgroup)
			}
			if diff := cmp.Diff(c.wantIDs, got); diff != "" {
				t.Errorf("the events' cgroup ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.wantTable, src.Meta().Cgroups); diff != "" {
				t.Errorf("the table after the read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcatClosesEndedParts: a part read to its end is closed then (its
// reader's buffers go: new-user pass 115 F7, a series of 109 files held
// all of theirs to the end), once, and Close closes the rest, once each.
func TestConcatClosesEndedParts(t *testing.T) {
	a, b := seriesPart(10, 20), seriesPart(30, 40)
	src := Concat([]Source{a, b}, []string{"s.001.tv", "s.002.tv"}, false)
	for range 3 { // 10, 20, then a's end and 30
		if _, err := src.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if a.closed != 1 || b.closed != 0 {
		t.Errorf("at b's first event: a closed %d times, b %d; want 1 and 0", a.closed, b.closed)
	}
	src.Close()
	if a.closed != 1 || b.closed != 1 {
		t.Errorf("after Close: a closed %d times, b %d; want once each", a.closed, b.closed)
	}
}
