package policies

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEEVDFTimelineTies: the timeline's order breaks deadline ties by
// vruntime, then by entity id, as the scan it replaced did. Four nice-0
// entities (w = 1024) on one runqueue, v0 = 0, vruntimes and deadlines in ms:
//
//	A (0): v 0, deadline 3;  B (1): v 1, deadline 3;
//	C (2): v 0, deadline 3;  D (3): v 6, deadline 1.
//
// V = (0 + 1 + 0 + 6)/4 = 1.75 ms: D, the earliest deadline, is not
// eligible (6 > 1.75). A, B and C tie at 3 ms; A and C also tie on v, and
// A has the smaller id: pick = A. With A current (RUN_TO_PARITY off) the
// queued C wins (3 ms is not strictly earlier than C's 3 ms; C before B by
// v); with C gone, B. Charging A 1 ms then moves it to v 1 without moving
// its deadline: A and B tie on deadline and v, A (id 0) first; V =
// (1 + 1 + 6)/3 = 2.667 ms, both eligible, pick = A. The runqueue is
// shorter than timelineOn: its timeline is built by hand, and again after
// C leaves (at timelineOff or fewer entities a runqueue drops it).
func TestEEVDFTimelineTies(t *testing.T) {
	const ms = int64(1_000_000)
	sim := newFakeSim(1)
	p := NewEEVDF(Values{"RUN_TO_PARITY": "off"}, 1)
	p.Init(sim)
	rq := &p.rqs[0]
	for i, vd := range [][2]int64{{0, 3 * ms}, {1 * ms, 3 * ms}, {0, 3 * ms}, {6 * ms, 1 * ms}} {
		p.TaskNew(sim.task(0))
		p.e[i] = eent{v: vd[0], deadline: vd[1], w: 1024, slice: 10 * ms, cpu: 0}
		rq.add(i, &p.e[i])
	}
	p.buildTimeline(rq)
	if V := rq.avg(); V != 1_750_000 {
		t.Fatalf("avg_vruntime = %d ns, want 1750000", V)
	}
	if got := p.pick(rq, noEnt); got != 0 {
		t.Errorf("pick = %d, want 0 (A: deadline, v and id ties)", got)
	}
	if got := p.pick(rq, 0); got != 2 {
		t.Errorf("pick with A current = %d, want 2 (C)", got)
	}
	rq.remove(2, &p.e[2])
	if rq.timeline {
		t.Fatalf("3 entities, timeline kept, want dropped at %d", timelineOff)
	}
	p.buildTimeline(rq)
	if got := p.pick(rq, 0); got != 1 {
		t.Errorf("pick with A current, C gone = %d, want 1 (B)", got)
	}
	p.charge(rq, 0, &p.e[0], nil, 1*ms) // nice 0: 1 ms of v; deadline 3 ms kept
	if e := p.e[0]; e.v != 1*ms || e.deadline != 3*ms || rq.aside != 0 {
		t.Fatalf("after charge: v %d deadline %d aside %d, want 1000000 3000000 0", e.v, e.deadline, rq.aside)
	}
	if V := rq.avg(); V != 2_666_666 {
		t.Fatalf("avg_vruntime = %d ns, want 2666666", V)
	}
	if got := p.pick(rq, noEnt); got != 0 {
		t.Errorf("pick after charging A = %d, want 0 (A ties B on deadline and v, smaller id)", got)
	}
}

// TestEEVDFTimelineMatchesScan drives one runqueue through random
// enqueues, dequeues, charges and delays, with few distinct vruntimes and
// deadlines so that ties are common, filling it for 1000 steps and
// draining it for the next 1000 so that it gets and loses its timeline
// again and again, and checks every pick on the timeline (with each queued
// entity as curr, protected or not, and with none) against a scan of the
// same queue (pickScan, the pick before the timeline).
func TestEEVDFTimelineMatchesScan(t *testing.T) {
	for _, parity := range []string{"on", "off"} {
		sim := newFakeSim(1)
		p := NewEEVDF(Values{"RUN_TO_PARITY": parity}, 1)
		p.Init(sim)
		rq := &p.rqs[0]
		const n = 40
		for range n {
			p.TaskNew(sim.task(0))
		}
		rng := rand.New(rand.NewPCG(29, 1))
		picks, builds, had := 0, 0, false
		for step := 0; step < 20_000; step++ {
			id := rng.IntN(n)
			e := &p.e[id]
			fill := step/1000%2 == 0
			switch op := rng.IntN(10); {
			case !e.queued && (fill && op < 8 || !fill && op < 1):
				*e = eent{v: int64(rng.IntN(8)) * 500_000, w: []int64{1024, 335, 3121}[rng.IntN(3)],
					slice: 700_000, cpu: 0, protect: rng.IntN(2) == 0}
				e.deadline = e.v + int64(rng.IntN(4))*700_000
				rq.add(id, e)
			case e.queued && (fill && op < 1 || !fill && op < 6):
				rq.remove(id, e)
			case e.queued && op < 7:
				p.charge(rq, id, e, nil, int64(rng.IntN(3))*250_000)
				sim.resced = sim.resced[:0]
			case e.queued && op < 8:
				e.delayed = !e.delayed
			}
			if rq.timeline && !had {
				builds++
			}
			had = rq.timeline
			if !rq.timeline {
				continue
			}
			if err := timelineErr(p, rq); err != "" {
				t.Fatalf("RUN_TO_PARITY %s, step %d: %s", parity, step, err)
			}
			for _, curr := range append([]int{noEnt}, rq.q...) {
				picks++
				want, done := p.pickShort(rq, curr)
				if !done {
					want = p.pickScan(rq, want)
				}
				if got := p.pick(rq, curr); got != want {
					t.Fatalf("RUN_TO_PARITY %s, step %d, curr %d, queue %v: pick %d, scan %d", parity, step, curr, rq.q, got, want)
				}
			}
		}
		if picks < 100_000 || builds < 5 {
			t.Errorf("RUN_TO_PARITY %s: %d picks compared on %d timelines, want at least 100000 on 5", parity, picks, builds)
		}
	}
}

// timelineErr checks rq's timeline: every node after its left subtree and
// before its right one, each node's minimum the (v, id)-smallest of its
// subtree, and the tree plus the entity aside holding every queued entity.
func timelineErr(p *EEVDF, rq *erq) string {
	n := 0
	var walk func(id int) string
	walk = func(id int) string {
		if id == noEnt {
			return ""
		}
		n++
		e := p.ent(id)
		m, mv := id, e.v
		for _, c := range []int{e.tl, e.tr} {
			if c == noEnt {
				continue
			}
			if err := walk(c); err != "" {
				return err
			}
			if ce := p.ent(c); ce.minV < mv || ce.minV == mv && ce.minID < m {
				m, mv = ce.minID, ce.minV
			}
		}
		if m != e.minID || mv != e.minV {
			return fmt.Sprintf("node %d: minimum %d (v %d), want %d (v %d)", id, e.minID, e.minV, m, mv)
		}
		if e.tl != noEnt && !before(e.tl, p.ent(e.tl), id, e) || e.tr != noEnt && !before(id, e, e.tr, p.ent(e.tr)) {
			return fmt.Sprintf("node %d out of order with its children %d, %d", id, e.tl, e.tr)
		}
		return ""
	}
	if err := walk(rq.root); err != "" {
		return err
	}
	if rq.aside != noEnt {
		n++
	}
	if n != len(rq.q) {
		return fmt.Sprintf("timeline holds %d entities, the queue %d", n, len(rq.q))
	}
	return ""
}
