package perfdata

import "github.com/traceview/traceview/trace"

// queue is the reordering window: a binary min-heap of (time, arrival)
// keys over a slab of events, so that sifting moves 24-byte keys instead of
// whole events. Equal times leave in arrival (file) order. The slab grows by
// fixed blocks, so growing never copies events.
type queue struct {
	keys   []qkey
	blocks [][]trace.Event
	n      int32 // slots handed out so far
	free   []int32
	seq    uint64
}

const blockBits = 12

func (q *queue) at(i int32) *trace.Event {
	return &q.blocks[i>>blockBits][i&(1<<blockBits-1)]
}

type qkey struct {
	t   int64
	seq uint64
	idx int32
}

func (k qkey) less(o qkey) bool { return k.t < o.t || k.t == o.t && k.seq < o.seq }

func (q *queue) len() int { return len(q.keys) }

// minTime is the time of the earliest event; the queue must not be empty.
func (q *queue) minTime() int64 { return q.keys[0].t }

// slot returns a free event slot to fill, and its index for push.
func (q *queue) slot() (*trace.Event, int32) {
	if n := len(q.free); n > 0 {
		i := q.free[n-1]
		q.free = q.free[:n-1]
		return q.at(i), i
	}
	i := q.n
	if int(i>>blockBits) == len(q.blocks) {
		q.blocks = append(q.blocks, make([]trace.Event, 1<<blockBits))
	}
	q.n++
	return q.at(i), i
}

// push queues the event filled in slot i.
func (q *queue) push(i int32) {
	k := qkey{t: q.at(i).Time, seq: q.seq, idx: i}
	q.seq++
	q.keys = append(q.keys, k)
	j := len(q.keys) - 1
	for j > 0 {
		p := (j - 1) / 2
		if !k.less(q.keys[p]) {
			break
		}
		q.keys[j] = q.keys[p]
		j = p
	}
	q.keys[j] = k
}

// pop removes and returns the earliest event.
func (q *queue) pop() trace.Event {
	top := q.keys[0]
	ev := *q.at(top.idx)
	q.free = append(q.free, top.idx)
	n := len(q.keys) - 1
	last := q.keys[n]
	q.keys = q.keys[:n]
	if n > 0 {
		j := 0
		for {
			l := 2*j + 1
			if l >= n {
				break
			}
			if r := l + 1; r < n && q.keys[r].less(q.keys[l]) {
				l = r
			}
			if !q.keys[l].less(last) {
				break
			}
			q.keys[j] = q.keys[l]
			j = l
		}
		q.keys[j] = last
	}
	return ev
}

// release returns an unused slot.
func (q *queue) release(i int32) { q.free = append(q.free, i) }
