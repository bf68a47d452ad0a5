package perfdata

import (
	"unsafe"

	"github.com/traceview/traceview/internal/pagetouch"
	"github.com/traceview/traceview/trace"
)

// queue is the reordering window. perf writes each CPU's ring buffer in
// turn, so the records of a data section are a concatenation of runs that
// are each sorted by time. The queue keeps those runs as FIFOs of fixed-size
// blocks (recycled, so memory follows the number of events held and nothing
// is ever copied to grow) and merges them through a small binary heap keyed
// by each run's first event (time, then arrival order): an event costs O(1)
// to queue and O(log runs) to release, and equal times leave in file order.
// Any input order is accepted: an event earlier than its run's last one
// starts a new run, up to maxRuns runs; past that, such events wait in a
// plain binary heap of single events (loose), so a badly ordered input
// costs O(log n) per event but never more memory than its events.
type queue struct {
	heap   []*run // runs holding events, min-heap by head key
	cur    *run   // the run receiving pushes
	runs   []*run // recycled runs
	blocks []*block
	// spare delivers the blocks prepare makes ahead; spareStop ends it.
	spare     chan *block
	spareStop chan struct{}
	loose     loose
	seq       uint64
	n         int // events held
	// hold, when not nil, receives the blocks the queue is done with
	// instead of blocks: events popped by pointer (popPtr) still live in
	// them until the consumer is done with the batch that holds those
	// pointers (Reader.NextPointers).
	hold *[]*block
}

// maxRuns bounds the runs held: perf's rounds give about two per CPU.
const maxRuns = 64

const blockLen = 256

// block holds events and, apart from them, their keys: the heap reads the
// next head's key from a dense array (16 bytes an event) instead of the
// event's own cache line, which the consumer reads next, on another CPU.
type block struct {
	evs  [blockLen]trace.Event
	keys [blockLen]bkey
}

// bkey is an event's key in the window: its time and arrival number.
type bkey struct {
	t   int64
	seq uint64
}

type run struct {
	blocks []*block
	head   int // next event in blocks[0]
	tail   int // events filled in the last block
	lastT  int64
	pos    int // index in the heap, -1 when not in it
	// ht and hs are the time and arrival number of the head event
	// (blocks[0].evs[head]) while the run holds events: the heap's key,
	// kept here so that comparing two runs reads no block.
	ht int64
	hs uint64
}

func (r *run) empty() bool {
	return len(r.blocks) == 0 || len(r.blocks) == 1 && r.head == r.tail
}

func (r *run) less(o *run) bool {
	return r.ht < o.ht || r.ht == o.ht && r.hs < o.hs
}

func (q *queue) len() int { return q.n }

// minTime is the time of the earliest event; the queue must not be empty.
func (q *queue) minTime() int64 {
	if q.fromLoose() {
		return q.loose.keys[0].t
	}
	return q.heap[0].ht
}

// fromLoose reports whether the earliest event is in the loose heap.
func (q *queue) fromLoose() bool {
	if len(q.loose.keys) == 0 {
		return false
	}
	if len(q.heap) == 0 {
		return true
	}
	r, k := q.heap[0], q.loose.keys[0]
	return k.t < r.ht || k.t == r.ht && k.seq < r.hs
}

func (q *queue) newRun() *run {
	if n := len(q.runs); n > 0 {
		r := q.runs[n-1]
		q.runs = q.runs[:n-1]
		return r
	}
	return &run{pos: -1}
}

func (q *queue) newBlock() *block {
	if n := len(q.blocks); n > 0 {
		b := q.blocks[n-1]
		q.blocks = q.blocks[:n-1]
		return b
	}
	select {
	case b := <-q.spare:
		return b
	default:
	}
	return allocBlock()
}

// allocBlock returns a new block, its pages written (pagetouch).
func allocBlock() *block {
	b := new(block)
	pagetouch.Bytes(unsafe.Pointer(b), unsafe.Sizeof(*b))
	return b
}

// prepare makes n blocks on a goroutine of its own for newBlock to take:
// the window fills to about two rounds at the start of a large file (120
// blocks on the bench file of docs/latency.md, a page fault per 4 KiB of
// them, 5 ms), while the consumer, waiting for its first events, leaves a
// CPU idle. stopPrepare ends it.
func (q *queue) prepare(n int) {
	spare, stop := make(chan *block, n), make(chan struct{})
	q.spare, q.spareStop = spare, stop
	go func() {
		for range n {
			select {
			case spare <- allocBlock():
			case <-stop:
				return
			}
		}
	}()
}

// free lets go of the blocks an empty queue keeps for reuse (the
// recycled ones, the last block an emptied run keeps, those prepare made
// ahead), once the reader has no more events to queue: a consumer that
// reads to the end and goes on working before it closes the reader
// (replay's Extract runs its inference passes) no longer keeps the window
// (5.8 MB of live heap after Extract's read of bench/replaymem's 2 M-event
// file, measured with a heap profile). Blocks that batches handed over
// still hold (NextPointers) go with those batches.
func (q *queue) free() {
	if q.n > 0 {
		return
	}
	q.stopPrepare()
	q.heap, q.cur, q.runs, q.blocks, q.spare, q.hold = nil, nil, nil, nil, nil, nil
}

// stopPrepare ends prepare's goroutine.
func (q *queue) stopPrepare() {
	if q.spareStop != nil {
		close(q.spareStop)
		q.spareStop = nil
	}
}

// slot returns space for the next event (its old contents are garbage);
// fill it, then call push, or call release to drop it.
func (q *queue) slot() *trace.Event {
	if q.cur == nil {
		q.cur = q.newRun()
	}
	return q.slotIn(q.cur)
}

func (q *queue) slotIn(c *run) *trace.Event {
	if len(c.blocks) == 0 || c.tail == blockLen {
		c.blocks = append(c.blocks, q.newBlock())
		c.tail = 0
	}
	return &c.blocks[len(c.blocks)-1].evs[c.tail]
}

// release drops the slot; nothing was queued.
func (q *queue) release() {}

// push queues the event filled in the last slot.
func (q *queue) push() {
	c := q.cur
	b := c.blocks[len(c.blocks)-1]
	t := b.evs[c.tail].Time
	if t < c.lastT && !c.empty() && len(q.heap) >= maxRuns {
		q.loose.push(&b.evs[c.tail], q.seq)
		q.seq++
		q.n++
		return
	}
	if t < c.lastT && !c.empty() {
		// Earlier than its run's last event: start a new run.
		ev := b.evs[c.tail]
		old := c
		q.cur = q.newRun()
		c = q.cur
		*q.slotIn(c) = ev
		b = c.blocks[len(c.blocks)-1]
		if old.pos < 0 {
			q.drop(old)
		}
	}
	b.keys[c.tail] = bkey{t, q.seq}
	q.seq++
	c.tail++
	c.lastT = t
	q.n++
	if c.pos < 0 {
		// Out of the heap, the run was empty: this is its head.
		c.ht, c.hs = t, b.keys[c.tail-1].seq
		c.pos = len(q.heap)
		q.heap = append(q.heap, c)
		q.up(c.pos)
	}
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *queue) pop() trace.Event {
	var e trace.Event
	q.popInto(&e)
	return e
}

// popInto removes the earliest event into *dst; the queue must not be
// empty.
func (q *queue) popInto(dst *trace.Event) {
	if e, _ := q.popPtr(dst); e != dst {
		*dst = *e
	}
}

// popPtr removes the earliest event and returns where it is, and its time
// (read from its key, not from the event, which the consumer reads first):
// in its block (valid until the next slot, or with q.hold set until the
// blocks in hold are given back), or copied into *scratch (an event of the
// loose heap). The queue must not be empty.
func (q *queue) popPtr(scratch *trace.Event) (*trace.Event, int64) {
	q.n--
	if q.fromLoose() {
		*scratch = q.loose.pop()
		return scratch, scratch.Time
	}
	r := q.heap[0]
	b := r.blocks[0]
	e, t := &b.evs[r.head], r.ht
	r.head++
	if r.head == blockLen {
		copy(r.blocks, r.blocks[1:])
		r.blocks[len(r.blocks)-1] = nil
		r.blocks = r.blocks[:len(r.blocks)-1]
		q.recycle(b)
		r.head = 0
		if len(r.blocks) == 0 {
			r.tail = 0
		}
	}
	if r.empty() {
		q.remove(0)
		q.drop(r)
	} else {
		k := &r.blocks[0].keys[r.head]
		r.ht, r.hs = k.t, k.seq
		q.down(0)
	}
	return e, t
}

// recycle takes back a block the queue is done with: for newBlock, or into
// hold while popped events may still be read from it.
func (q *queue) recycle(b *block) {
	if q.hold != nil {
		*q.hold = append(*q.hold, b)
		return
	}
	q.blocks = append(q.blocks, b)
}

// drop empties a run that is out of the heap, recycling its blocks, and the
// run itself unless it is current. With q.hold set, the run keeps its last
// block (an empty run has at most one): the slots it popped stay as they
// are, the pushes to come go after them, and the block goes to hold only
// once every slot was popped, so the blocks held follow the events handed
// over, not the number of runs emptied.
func (q *queue) drop(r *run) {
	if q.hold != nil && len(r.blocks) == 1 {
		if r != q.cur {
			q.runs = append(q.runs, r)
		}
		return
	}
	for i, b := range r.blocks {
		q.recycle(b)
		r.blocks[i] = nil
	}
	r.blocks, r.head, r.tail = r.blocks[:0], 0, 0
	if r != q.cur {
		q.runs = append(q.runs, r)
	}
}

func (q *queue) remove(i int) {
	last := len(q.heap) - 1
	q.heap[i].pos = -1
	if i != last {
		q.heap[i] = q.heap[last]
		q.heap[i].pos = i
	}
	q.heap = q.heap[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
}

func (q *queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.heap[i].less(q.heap[p]) {
			break
		}
		q.swap(i, p)
		i = p
	}
}

func (q *queue) down(i int) {
	n := len(q.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		if r := l + 1; r < n && q.heap[r].less(q.heap[l]) {
			l = r
		}
		if !q.heap[l].less(q.heap[i]) {
			return
		}
		q.swap(i, l)
		i = l
	}
}

func (q *queue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].pos = i
	q.heap[j].pos = j
}

// loose is a binary min-heap of single events by (time, arrival), over a
// recycled slab, for events that fit no run.
type loose struct {
	keys []lkey
	slab [][]trace.Event
	free []int32
	used int32
}

type lkey struct {
	t   int64
	seq uint64
	idx int32
}

func (k lkey) less(o lkey) bool { return k.t < o.t || k.t == o.t && k.seq < o.seq }

func (l *loose) at(i int32) *trace.Event { return &l.slab[i/blockLen][i%blockLen] }

func (l *loose) push(ev *trace.Event, seq uint64) {
	var i int32
	if n := len(l.free); n > 0 {
		i = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		i = l.used
		l.used++
		if int(i/blockLen) == len(l.slab) {
			l.slab = append(l.slab, make([]trace.Event, blockLen))
		}
	}
	*l.at(i) = *ev
	k := lkey{t: ev.Time, seq: seq, idx: i}
	l.keys = append(l.keys, k)
	j := len(l.keys) - 1
	for j > 0 {
		p := (j - 1) / 2
		if !k.less(l.keys[p]) {
			break
		}
		l.keys[j] = l.keys[p]
		j = p
	}
	l.keys[j] = k
}

func (l *loose) pop() trace.Event {
	top := l.keys[0]
	ev := *l.at(top.idx)
	l.free = append(l.free, top.idx)
	n := len(l.keys) - 1
	last := l.keys[n]
	l.keys = l.keys[:n]
	if n > 0 {
		j := 0
		for {
			c := 2*j + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && l.keys[r].less(l.keys[c]) {
				c = r
			}
			if !l.keys[c].less(last) {
				break
			}
			l.keys[j] = l.keys[c]
			j = c
		}
		l.keys[j] = last
	}
	return ev
}
