package policies

// The eevdf runqueue's timeline: its queued entities in a search tree
// ordered by virtual deadline and augmented with the smallest vruntime of
// each subtree, so that pick_eevdf finds the eligible entity with the
// earliest deadline in O(log n) instead of scanning every queued entity.
// This is the kernel's layout since "sched/eevdf: Sort the rbtree by
// virtual deadline" (Abel Wu, Linux 6.8; kernel/sched/fair.c v6.8-v6.18:
// __enqueue_entity keyed by entity_before, min_vruntime_cb, and
// __pick_eevdf's walk down the tree, which skips a left subtree whose
// min_vruntime is not eligible). Eligibility is monotone in vruntime
// (entity_eligible: V ≥ v), so a subtree holds an eligible entity exactly
// when its smallest vruntime is eligible.
//
// A runqueue gets its timeline when it reaches timelineOn entities and
// loses it when it falls back to timelineOff: below that a scan of the
// queue is cheaper than keeping the tree (putting the charged entity back
// and taking the next one out at every switch). Both find the same entity.
//
// Differences from the kernel, none of which changes a pick:
//   - the tree is a treap (a heap on a hash of the entity id over a
//     binary search tree) rather than a red-black tree; the shape never
//     changes an answer, which is the minimum of a total order;
//   - the order is total: deadline, then vruntime, then entity id (the
//     tie-breaks the linear scan this replaced used; the kernel keeps
//     equal deadlines in insertion order);
//   - the entity set aside (erq.aside) is the one whose vruntime was last
//     charged, not the kernel's curr: update_curr changes v and deadline in
//     place, so the charged entity is kept out of the tree (as the kernel
//     keeps curr out of it) and goes back in when another is charged or it
//     leaves. The running entity and the delayed ones are candidates as
//     before: a pick looks at the tree and the entity aside.

// The queue lengths at which a runqueue gets and loses its timeline.
const (
	timelineOn  = 16
	timelineOff = 8
)

// buildTimeline puts every entity queued on rq into a new timeline.
func (p *EEVDF) buildTimeline(rq *erq) {
	rq.root, rq.aside, rq.timeline = noEnt, noEnt, true
	for _, id := range rq.q {
		p.tadd(rq, id, p.ent(id))
	}
}

// tpri is the treap priority of entity id: a fixed hash (Fibonacci
// hashing), so runs are deterministic.
func tpri(id int) uint32 { return uint32((uint64(id) * 0x9E3779B97F4A7C15) >> 32) }

// before is the timeline order: earlier deadline, then smaller vruntime,
// then smaller id.
func before(a int, ea *eent, b int, eb *eent) bool {
	if ea.deadline != eb.deadline {
		return ea.deadline < eb.deadline
	}
	if ea.v != eb.v {
		return ea.v < eb.v
	}
	return a < b
}

// tfix recomputes node n's augmented minimum: the (v, id)-smallest
// entity of its subtree (min_vruntime_update).
func (p *EEVDF) tfix(n int, e *eent) {
	m, mv := n, e.v
	if e.tl != noEnt {
		if c := p.ent(e.tl); c.minV < mv || c.minV == mv && c.minID < m {
			m, mv = c.minID, c.minV
		}
	}
	if e.tr != noEnt {
		if c := p.ent(e.tr); c.minV < mv || c.minV == mv && c.minID < m {
			m, mv = c.minID, c.minV
		}
	}
	e.minID, e.minV = m, mv
}

// tinsert adds node n to the subtree at t and returns the subtree's root.
func (p *EEVDF) tinsert(t, n int, en *eent) int {
	if t == noEnt {
		return n
	}
	et := p.ent(t)
	if tpri(n) > tpri(t) {
		en.tl, en.tr = p.tsplit(t, n, en)
		p.tfix(n, en)
		return n
	}
	if before(n, en, t, et) {
		et.tl = p.tinsert(et.tl, n, en)
	} else {
		et.tr = p.tinsert(et.tr, n, en)
	}
	// The subtree gained n only: its minimum is the old one or n.
	if en.v < et.minV || en.v == et.minV && n < et.minID {
		et.minID, et.minV = n, en.v
	}
	return t
}

// tsplit splits the subtree at t into the nodes before n and those after.
func (p *EEVDF) tsplit(t, n int, en *eent) (l, r int) {
	if t == noEnt {
		return noEnt, noEnt
	}
	et := p.ent(t)
	if before(t, et, n, en) {
		et.tr, r = p.tsplit(et.tr, n, en)
		p.tfix(t, et)
		return t, r
	}
	l, et.tl = p.tsplit(et.tl, n, en)
	p.tfix(t, et)
	return l, t
}

// tdelete removes node n, which must be in the subtree at t under its
// current key, and returns the subtree's root.
func (p *EEVDF) tdelete(t, n int, en *eent) int {
	if t == n {
		return p.tmerge(en.tl, en.tr)
	}
	et := p.ent(t)
	if before(n, en, t, et) {
		et.tl = p.tdelete(et.tl, n, en)
	} else {
		et.tr = p.tdelete(et.tr, n, en)
	}
	if et.minID == n { // the subtree lost its minimum
		p.tfix(t, et)
	}
	return t
}

// tmerge joins two subtrees, every node of a before every node of b.
func (p *EEVDF) tmerge(a, b int) int {
	if a == noEnt {
		return b
	}
	if b == noEnt {
		return a
	}
	if tpri(a) > tpri(b) {
		ea := p.ent(a)
		ea.tr = p.tmerge(ea.tr, b)
		p.tfix(a, ea)
		return a
	}
	eb := p.ent(b)
	eb.tl = p.tmerge(a, eb.tl)
	p.tfix(b, eb)
	return b
}

// tadd puts entity id, queued on rq, into rq's timeline.
func (p *EEVDF) tadd(rq *erq, id int, e *eent) {
	e.tl, e.tr = noEnt, noEnt
	e.minID, e.minV = id, e.v
	rq.root = p.tinsert(rq.root, id, e)
}

// tremove takes entity id, leaving rq, out of rq's timeline.
func (p *EEVDF) tremove(rq *erq, id int, e *eent) {
	if rq.aside == id {
		rq.aside = noEnt
		return
	}
	rq.root = p.tdelete(rq.root, id, e)
}

// holdOut sets entity id, queued on rq, aside from rq's timeline before
// its vruntime or deadline changes in place, putting back the one aside
// before (under its current key).
func (p *EEVDF) holdOut(rq *erq, id int, e *eent) {
	if rq.aside == id {
		return
	}
	if a := rq.aside; a != noEnt {
		p.tadd(rq, a, p.ent(a))
	}
	rq.root = p.tdelete(rq.root, id, e)
	rq.aside = id
}

// firstEligible returns the earliest entity in timeline order of the
// subtree at n that is eligible on rq and is not x, or noEnt. A subtree
// whose smallest vruntime is not eligible holds no eligible entity and is
// skipped; a left subtree is given up on only when x was its sole
// eligible entity, so the walk is O(log n) deep, O(log² n) at worst.
func (p *EEVDF) firstEligible(rq *erq, n, x int) int {
	for n != noEnt {
		e := p.ent(n)
		if !rq.eligibleV(e.minV) {
			return noEnt
		}
		if e.tl != noEnt {
			if r := p.firstEligible(rq, e.tl, x); r != noEnt {
				return r
			}
		}
		if n != x && rq.eligibleV(e.v) {
			return n
		}
		n = e.tr
	}
	return noEnt
}
