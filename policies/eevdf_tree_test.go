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
// (1 + 1 + 6)/3 = 2.667 ms, both eligible, pick = A.
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
// deadlines so that ties are common, and checks every pick (with each
// queued entity as curr, protected or not, and with none) against
// scanPick, a scan of every queued entity (the pick before the timeline).
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
		picks := 0
		for step := 0; step < 20_000; step++ {
			id := rng.IntN(n)
			e := &p.e[id]
			switch op := rng.IntN(10); {
			case !e.queued && op < 6:
				*e = eent{v: int64(rng.IntN(8)) * 500_000, w: []int64{1024, 335, 3121}[rng.IntN(3)],
					slice: 700_000, cpu: 0, protect: rng.IntN(2) == 0}
				e.deadline = e.v + int64(rng.IntN(4))*700_000
				rq.add(id, e)
			case e.queued && op < 2:
				rq.remove(id, e)
			case e.queued && op < 7:
				p.charge(rq, id, e, nil, int64(rng.IntN(3))*250_000)
				sim.resced = sim.resced[:0]
			case e.queued && op < 8:
				e.delayed = !e.delayed
			}
			if err := timelineErr(p, rq); err != "" {
				t.Fatalf("RUN_TO_PARITY %s, step %d: %s", parity, step, err)
			}
			for _, curr := range append([]int{noEnt}, rq.q...) {
				picks++
				if got, want := p.pick(rq, curr), scanPick(p, rq, curr); got != want {
					t.Fatalf("RUN_TO_PARITY %s, step %d, curr %d, queue %v: pick %d, scan %d", parity, step, curr, rq.q, got, want)
				}
			}
		}
		if picks < 100_000 {
			t.Errorf("RUN_TO_PARITY %s: %d picks compared, want at least 100000", parity, picks)
		}
	}
}

// scanPick is pick_eevdf as a scan of every queued entity (the
// implementation before the timeline): the eligible one (curr excepted)
// earliest by deadline, vruntime and id; curr when its deadline is strictly
// earlier; with none eligible the entity of smallest (vruntime, id).
func scanPick(p *EEVDF, rq *erq, curr int) int {
	curr, done := p.pickShort(rq, curr)
	if done {
		return curr
	}
	best, left := noEnt, noEnt
	var be, le *eent
	for _, id := range rq.q {
		e := p.ent(id)
		if le == nil || e.v < le.v || e.v == le.v && id < left {
			left, le = id, e
		}
		if id == curr || !rq.eligible(e) {
			continue
		}
		if be == nil || e.deadline < be.deadline ||
			e.deadline == be.deadline && (e.v < be.v || e.v == be.v && id < best) {
			best, be = id, e
		}
	}
	if curr != noEnt && (be == nil || p.ent(curr).deadline < be.deadline) {
		return curr
	}
	if be == nil {
		return left
	}
	return best
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
