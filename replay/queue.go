// The simulator's event queue: a binary min-heap of timed events, ties
// broken by insertion order so a run is deterministic.

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

func (h evheap) less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}

func (h *evheap) push(e qev) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *evheap) pop() qev {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

func (s *sim) push(e qev) {
	s.seq++
	e.seq = s.seq
	s.q.push(e)
}
