package trace

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// partSource is a Source of the events evs with meta m.
type partSource struct {
	m   *Meta
	evs []Event
}

func (p *partSource) Meta() *Meta  { return p.m }
func (p *partSource) Close() error { return nil }
func (p *partSource) Next() (Event, error) {
	if len(p.evs) == 0 {
		return Event{}, io.EOF
	}
	e := p.evs[0]
	p.evs = p.evs[1:]
	return e, nil
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
	part := func(times ...int64) *partSource {
		p := &partSource{m: &Meta{Tool: "traceview record (tp_btf) --rotate 1s", Hostname: "h", NrCPUs: 2}}
		for _, at := range times {
			p.evs = append(p.evs, NewEvent(at, 0, KindSwitch))
		}
		p.m.FirstTime, p.m.LastTime = times[0], times[len(times)-1]
		return p
	}
	src := Concat([]Source{part(10, 20), part(30, 40)}, []string{"s.001.tv", "s.003.tv"}, false)
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
	src = Concat([]Source{part(10, 20), part(30, 40)}, []string{"s.001.tv", "s.002.tv"}, false)
	if got, want := concatAll(t, src), "0@10 0@20 0@30 0@40"; got != want {
		t.Errorf("consecutive parts: events %q, want %q", got, want)
	}
}
