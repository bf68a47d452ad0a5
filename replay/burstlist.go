package replay

import "unsafe"

// burstChunk is how many bursts a chunk of a task's burstList holds: as
// many as fill 4096 bytes, a size class of its own (73 bursts of 56
// bytes; 64 of them took 3584 bytes, which the allocator rounds up to
// 4096: an eighth of the chunks' 30 MB unused on bench/replaymem's 2
// M-event file). Chunks never move, so a task's bursts are
// written once while Extract builds them and copied once, into a slice
// of their exact length (flatten); appended to a slice instead, they were
// copied on every growth (145 MB allocated and 0.35 s of memmove and
// clearing for the 49 MB of bursts of bench/replaymem's 2 M-event file)
// and kept a quarter of that slice unused on average.
const burstChunk = 4096 / int(unsafe.Sizeof(Burst{}))

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

// addAction appends a to burst b of task s while Extract builds its
// bursts: s.acts becomes the task's Task.acts when it ends (actList.pack).
func (s *ext) addAction(b *Burst, a Action) { s.acts.add(b, a) }

// actChunk is how many actions a chunk of an actList holds: as many as
// fill 4096 bytes (170 actions of 24 bytes), a size class of its own.
const actChunk = 4096 / int(unsafe.Sizeof(Action{}))

// actList is a task's actions while Extract builds its bursts (ext.acts),
// as Task.AddAction keeps them (each burst's a run, moved to the end when
// the burst gains one and is not the last) but in chunks that never move:
// appended to one slice, a task's actions were copied at every growth
// (0.1 s a replay of the 1.78 M-event big.perf.data, in growslice and
// its clearing). A burst's Burst.acts counts slots from the first chunk's
// start, and its run lies in one chunk, or in one allocation of a few
// for a burst of more than actChunk actions. pack makes them Task.acts.
type actList struct {
	chunks [][]Action // each of length actChunk, capped at its allocation's end
	n      int        // slots taken, those a move left behind included
}

// of returns the actions of b, a burst of the task (Task.ActionsOf).
func (l *actList) of(b *Burst) []Action {
	n := int(b.acts.n)
	if n == 0 {
		return nil
	}
	off := int(b.acts.off)
	c, k := l.chunks[off/actChunk], off%actChunk
	return c[k : k+n : k+n]
}

// add appends a to the actions of b, a burst of the task.
func (l *actList) add(b *Burst, a Action) {
	n := int(b.acts.n)
	if n > 0 && int(b.acts.off)+n == l.n && l.n < len(l.chunks)*actChunk {
		// b's run is the last, with room after it (the slots from n on
		// are the last allocation's).
		l.chunks[l.n/actChunk][l.n%actChunk] = a
		l.n++
		b.acts.n++
		return
	}
	old := l.of(b)
	if len(l.chunks)*actChunk-l.n < n+1 {
		// A new chunk (or, for a run longer than one, an allocation of
		// twice the chunks it needs, each a chunk capped at its end).
		l.n = len(l.chunks) * actChunk
		k := 1
		if n+1 > actChunk {
			k = 2 * ((n + actChunk) / actChunk)
		}
		big := make([]Action, k*actChunk)
		for j := 0; j < k; j++ {
			l.chunks = append(l.chunks, big[j*actChunk:(j+1)*actChunk:len(big)])
		}
	}
	off := l.n
	c, k := l.chunks[off/actChunk], off%actChunk
	run := c[k : k+n+1]
	copy(run, old)
	run[n] = a
	l.n += n + 1
	b.acts.off, b.acts.n = int32(off), int32(n+1)
}

// pack returns the actions of bs, the task's bursts, in an array of
// their exact number, each burst's after the previous one's, and points
// the bursts there (as Task.Pack does with Task.acts); nil when there are
// none.
func (l *actList) pack(bs []Burst) []Action {
	na := 0
	for k := range bs {
		na += int(bs[k].acts.n)
	}
	var acts []Action
	if na > 0 {
		acts = make([]Action, 0, na)
	}
	for k := range bs {
		b := &bs[k]
		off := len(acts)
		acts = append(acts, l.of(b)...)
		b.acts.off = int32(off)
	}
	return acts
}

// Pack copies the actions and update points of t's bursts, each burst's
// after the previous one's, into arrays of their exact number: Extract's
// and the inference passes' appends leave copies behind and room unused
// (the actions of bench/replaymem's 2 M-event file are 11.3 MB, which
// the model keeps for the whole replay). Model builders call it once
// they are done; a model is the same before and after.
func (t *Task) Pack() {
	na := 0
	for k := range t.Bursts {
		na += int(t.Bursts[k].acts.n)
	}
	var acts []Action
	if na > 0 {
		acts = make([]Action, 0, na)
	}
	for k := range t.Bursts {
		b := &t.Bursts[k]
		off := len(acts)
		acts = append(acts, t.ActionsOf(b)...)
		b.acts.off = int32(off)
	}
	t.acts = acts
	t.packUpdates()
}

// packUpdates is Pack for the update points: one run each for the bursts
// that have any.
func (t *Task) packUpdates() {
	nu, ns := 0, 0
	for k := range t.Bursts {
		if n := len(t.UpdatesOf(&t.Bursts[k])); n > 0 {
			nu += n
			ns++
		}
	}
	if nu == 0 {
		for k := range t.Bursts {
			t.Bursts[k].upds = 0
		}
		t.upds, t.updSpans = nil, nil
		return
	}
	upds := make([]int64, 0, nu)
	spans := make([]span, 0, ns)
	for k := range t.Bursts {
		b := &t.Bursts[k]
		u := t.UpdatesOf(b)
		if len(u) == 0 {
			b.upds = 0
			continue
		}
		spans = append(spans, span{int32(len(upds)), int32(len(u))})
		upds = append(upds, u...)
		b.upds = int32(len(spans))
	}
	t.upds, t.updSpans = upds, spans
}
