package replay

// burstChunk is how many bursts a chunk of a task's burstList holds: 64
// bursts of 80 bytes, a 5120-byte allocation (in Go's 5376-byte size
// class: 5 % rounding, on chunks that live only while Extract reads). Chunks never move, so a task's bursts are
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

// actChunkMin and actChunkMax bound the capacity of a chunk of a task's
// actions (ext.acts): the first chunk holds actChunkMin, each next one
// twice the last, up to actChunkMax (256 actions of 32 bytes, 8 KiB). A
// task that wakes no one costs nothing, one that wakes few wastes little,
// and a sender that wakes hundreds (perf bench sched messaging: 469,000
// actions on bench/replaymem's 2 M-event file, 90 % of them in bursts of
// more than one) fills chunks of 8 KiB.
const (
	actChunkMin = 4
	actChunkMax = 256
)

// addAction appends a to burst b of task s (Burst.Actions). While Extract
// builds a task's bursts, each burst's actions are a run of a chunk the
// task's bursts share (s.acts), capped at their length: appended one by
// one to a slice of their own, the 469,000 actions of bench/replaymem's
// file took 27.5 MB of live heap (608,665 slots of capacity, in 100,000
// allocations) where they hold 15 MB. Later passes may append to a
// burst's actions as to any slice: the cap makes that a copy, never a
// write into the chunk.
func (s *ext) addAction(b *Burst, a Action) {
	n := len(b.Actions)
	tail := n == 0 || n <= len(s.acts) && &s.acts[len(s.acts)-n] == &b.Actions[0]
	if !tail || len(s.acts) == cap(s.acts) {
		// Move b's actions to the end of the chunk, or of a new one
		// when they do not fit (what they leave behind is not reused).
		if !tail && n+1 <= cap(s.acts)-len(s.acts) {
			s.acts = append(s.acts, b.Actions...)
		} else {
			c := min(max(actChunkMin, 2*cap(s.acts)), actChunkMax)
			c = max(c, 2*(n+1))
			s.acts = append(make([]Action, 0, c), b.Actions...)
		}
	}
	s.acts = append(s.acts, a)
	b.Actions = s.acts[len(s.acts)-n-1 : len(s.acts) : len(s.acts)]
}

// packActions moves the actions of a task's bursts, once Extract has built
// them, into one array of their exact number, each burst's a run of it
// capped at its length (as addAction's). addAction's chunks keep the
// copies a move left behind and the unused room of each task's last
// chunk: 14.3 MB of chunks for 11.3 MB of actions on bench/replaymem's
// file (heap profile), which the model would keep for the whole replay.
func packActions(bursts []Burst) {
	n := 0
	for k := range bursts {
		n += len(bursts[k].Actions)
	}
	if n == 0 {
		return
	}
	all := make([]Action, 0, n)
	for k := range bursts {
		b := &bursts[k]
		if len(b.Actions) > 0 {
			all = append(all, b.Actions...)
			b.Actions = all[len(all)-len(b.Actions) : len(all) : len(all)]
		}
	}
}
