// The simulator's event queue: a 4-ary min-heap of timed events, ties
// broken by insertion order so a run is deterministic. (Four children a
// node halve the levels a pop walks down against a binary heap's, and
// the children of a node share a cache line or two; the order of the
// events popped is the same, the key being unique.)

package replay

// event kinds of the simulator's queue
const (
	qStart uint8 = iota
	qRunDone
	qTimer
	qResched
	qTick
	qDeadline
	qPolicyTimer // a policy's timer (policies.Timers), a indexes sim.ptimers
	qRename      // the running task of cpu a reaches a rename point (Task.Renames)
)

type qev struct {
	t    int64
	seq  uint64
	kind uint8
	a    int32 // cpu or task
	b    int32 // block index
	gen  uint32
}

type evheap []qev

// before orders the queue: earlier time, then earlier insertion.
func (a *qev) before(b *qev) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}

// push adds e, moving the hole it leaves up past every later parent (the
// swaps of a textbook sift-up, with one write per level).
func (h *evheap) push(e qev) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

// pop removes and returns the earliest event: the last one goes into the
// root's hole, which moves down toward the earliest child while that child
// is before it.
func (h *evheap) pop() qev {
	s := *h
	top := s[0]
	n := len(s) - 1
	x := s[n]
	s = s[:n]
	i := 0
	for {
		l := 4*i + 1
		if l >= n {
			break
		}
		m := l
		for c, end := l+1, min(l+4, n); c < end; c++ {
			if s[c].before(&s[m]) {
				m = c
			}
		}
		if !s[m].before(&x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	if n > 0 {
		s[i] = x
	}
	*h = s
	return top
}

func (s *sim) push(e qev) {
	s.seq++
	e.seq = s.seq
	s.q.push(e)
}
