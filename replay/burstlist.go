package replay

// burstChunk is how many bursts a chunk of a task's burstList holds: 64
// bursts of 104 bytes, a 6.5 KiB allocation (in Go's 6784-byte size
// class: 2 % rounding). Chunks never move, so a task's bursts are
// written once while Extract builds them and copied once, into a slice
// of their exact length (flatten); appended to a slice instead, they were
// copied on every growth (145 MB allocated and 0.35 s of memmove and
// clearing for the 49 MB of bursts of bench/replaymem's 2 M-event file)
// and kept a quarter of that slice unused on average.
const burstChunk = 64

// burstList is a task's bursts while Extract builds them: the model's
// Task.Bursts once it ends (flatten).
type burstList struct {
	chunks [][]Burst // each of capacity burstChunk, all full but the last
	n      int
}

// len returns the number of bursts.
func (l *burstList) len() int { return l.n }

// at returns burst k (0 <= k < len).
func (l *burstList) at(k int) *Burst { return &l.chunks[k/burstChunk][k%burstChunk] }

// last returns the burst k from the end (0: the last one).
func (l *burstList) last(k int) *Burst { return l.at(l.n - 1 - k) }

// push appends b.
func (l *burstList) push(b Burst) {
	if l.n%burstChunk == 0 {
		l.chunks = append(l.chunks, make([]Burst, 0, burstChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, b)
	l.n++
}

// pop removes the last burst.
func (l *burstList) pop() {
	c := &l.chunks[len(l.chunks)-1]
	*c = (*c)[:len(*c)-1]
	if len(*c) == 0 {
		l.chunks = l.chunks[:len(l.chunks)-1]
	}
	l.n--
}

// flatten returns the bursts as one slice of their exact length and
// empties l (its chunks become garbage).
func (l *burstList) flatten() []Burst {
	bs := make([]Burst, 0, l.n)
	for _, c := range l.chunks {
		bs = append(bs, c...)
	}
	*l = burstList{}
	return bs
}
