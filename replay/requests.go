package replay

import (
	"slices"
	"sort"
)

// maxBacklogBlocks bounds the blocks per arrival of a generator's workers
// for requestQueues: workers that blocked for half of the arrivals or more
// served most requests in bursts of their own, which the recording's
// wakeup chains (inferPools) replay as they were; below that a backlog
// held most of them. Measured on ../shared/traces (request bursts per
// arrival): grpq.q25 (25 % quota) 0.03 and srv.1cpu (4 workers on one
// CPU beside a hog) 0.29, against 0.89-0.96 for grpq.q50, grpq.none and
// srvn.*; rebuilding those too cost two checks of the fidelity suite
// (the pipe's reader-to-reader wakeups are lost, grpq.q50's service delay
// went from 0.75x to 0.69x).
const maxBacklogBlocks = 0.5

// minRequestMemberShare is the share of a candidate member's dependency
// wakeups that must come from the generator or from the other members
// (a pipe reader leaving data behind wakes the next reader, pipe_read in
// fs/pipe.c v6.18) for requestQueues to take it for a worker of the
// generator's queue: reqsrv's workers on ../shared/traces are woken by
// nothing else (100 % on grpq.q25, grpq.none, srv.2cpu).
const minRequestMemberShare = 0.9

// requestQueues rebuilds the workers of an open-loop generator
// (Task.OpenLoop, splitArrivals) as a queue of requests, one per arrival.
//
// A worker serves what is in its queue when it reads it: after a backlog
// (a CPU quota that throttled the service, too few CPUs) one recorded
// burst holds every request that waited, and a replay that takes the
// burst as one unit of work cannot split it again when the what-if
// serves requests as they come. grpq.q25 (reqsrv under a 25 % quota in
// ../shared/traces) shows it: its two workers blocked 37 and 35 times for
// 2445 arrivals, the last bursts 360 and 366 ms long, and the replay with
// the quota lifted predicted 3172 switches where the recording without a
// quota has 5363.
//
// The workers' CPU time in requests (all of it but their first burst,
// before they first wait, and what their last burst holds beyond whole
// requests: the exit) is split into one equal request per arrival of
// the generator: a burst after each of its arrival sleeps writes one
// request, at the point where its recorded wakeup of a worker was (the
// median of those where it woke none). Each worker's bursts become its
// first burst, its share of the requests (in proportion to its recorded
// work) and its exit; every block before a request waits on the pool's
// queue (Model.Pools), so a request goes to whichever worker waits first,
// as in the recording's FIFO wait queue. The rebuilt requests keep no
// update points and carry no actions: workers whose request bursts wake
// anything but each other are left as recorded, as are generators whose
// workers blocked more often than it sent (maxRequestsPerArrival) and
// workers that did not exit in the trace.
//
// It returns the number of requests it made.
func (x *extractor) requestQueues() int {
	m := x.m
	made := 0
	for p := range m.Tasks {
		if !m.Tasks[p].OpenLoop {
			continue
		}
		members := x.queueMembers(p)
		if len(members) == 0 {
			continue
		}
		made += x.rebuildQueue(p, members)
	}
	return made
}

// queueMembers returns the tasks requestQueues takes for the workers of
// generator p: the threads of p's process, other than p, with one command
// name, that exit in the trace after a block, are woken only by p or each
// other (minRequestMemberShare), and whose request bursts wake no task
// outside them. An existing pool of p (inferPools) gives its members.
func (x *extractor) queueMembers(p int) []int {
	m := x.m
	gen := &m.Tasks[p]
	for _, pl := range m.Pools {
		if pl.Producer == p {
			if x.servesQueue(p, pl.Members) {
				return slices.Clone(pl.Members)
			}
			return nil
		}
	}
	byComm := map[string][]int{}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if i == p || tk.PID != gen.PID || tk.Pool != 0 || tk.OpenLoop || tk.Periodic {
			continue
		}
		byComm[tk.Comm] = append(byComm[tk.Comm], i)
	}
	comms := make([]string, 0, len(byComm))
	for c := range byComm {
		comms = append(comms, c)
	}
	slices.Sort(comms)
	var best []int
	for _, c := range comms {
		if cand := byComm[c]; len(cand) > len(best) && x.servesQueue(p, cand) {
			best = cand
		}
	}
	return best
}

// servesQueue reports whether the tasks cand can be rebuilt as the
// workers of generator p's queue (queueMembers).
func (x *extractor) servesQueue(p int, cand []int) bool {
	m := x.m
	in := map[int]bool{p: true}
	for _, i := range cand {
		in[i] = true
	}
	for _, i := range cand {
		bs := m.Tasks[i].Bursts
		if len(bs) < 3 || bs[len(bs)-1].End != EndExit {
			return false
		}
		n, from := 0, 0
		for _, b := range bs[:len(bs)-1] {
			if b.End != EndBlock {
				return false
			}
			if b.Wake.Kind == CauseDependency {
				n++
				if in[int(b.Wake.Waker)] {
					from++
				}
			}
		}
		if n == 0 || float64(from) < minRequestMemberShare*float64(n) {
			return false
		}
		// The request bursts are rebuilt without actions: they may only
		// wake each other (the queue's own wakeups), or the generator at
		// a wakeup of its that also ends at its recorded time (Cause.ByAt,
		// timerLikeWakeups: perf showed its timer in a worker's context),
		// which then ends it. A q25 recording whose workers never
		// drained their backlog (25 blocks each in 3.5 s) had 3 such; left
		// as recorded, a what-if lifting the quota replayed 16 ms runs of
		// backlog (reqsrv delay 16x).
		gen := m.Tasks[p].Bursts
		for _, b := range bs[1 : len(bs)-1] {
			for _, a := range m.Tasks[i].ActionsOf(&b) {
				if a.Kind != ActWake || !in[int(a.Target)] {
					return false
				}
				if int(a.Target) == p && (a.Block < 0 || int(a.Block) >= len(gen) || !gen[a.Block].Wake.ByAt) {
					return false
				}
			}
		}
	}
	return true
}

// rebuildQueue is requestQueues for generator p and its workers members;
// it returns the number of requests made (0: left as recorded).
func (x *extractor) rebuildQueue(p int, members []int) int {
	m := x.m
	gen := m.Tasks[p].Bursts
	var arrivals []int // bursts of p that write a request
	for k := 1; k < len(gen); k++ {
		if isArrival(&gen[k-1]) {
			arrivals = append(arrivals, k)
		}
	}
	na := len(arrivals)
	blocks := 0 // request bursts in the recording
	var total int64
	for _, i := range members {
		bs := m.Tasks[i].Bursts
		blocks += len(bs) - 2
		for _, b := range bs[1:] {
			total += b.Len
		}
	}
	if na == 0 || float64(blocks) >= maxBacklogBlocks*float64(na) || total <= 0 {
		return 0
	}
	// The exit: what the last burst holds beyond whole requests of the
	// mean request (its estimate s0 still counts the exits in).
	s0 := total / int64(na)
	if s0 <= 0 {
		return 0
	}
	exit := make([]int64, len(members))
	for k, i := range members {
		bs := m.Tasks[i].Bursts
		exit[k] = bs[len(bs)-1].Len % s0
		total -= exit[k]
	}
	size := total / int64(na)
	// Each request burst holds one request, and the requests left over
	// (na - blocks) go to the bursts, the last ones' request parts
	// included, by the work they hold beyond one request each.
	var excess []int64
	for k, i := range members {
		bs := m.Tasks[i].Bursts
		for _, b := range bs[1 : len(bs)-1] {
			excess = append(excess, max(b.Len-size, 0))
		}
		excess = append(excess, bs[len(bs)-1].Len-exit[k])
	}
	extra := shareOut(na-blocks, excess)
	in := map[int]bool{}
	for _, i := range members {
		in[i] = true
	}
	// Where in an arrival burst the request is written: the recorded
	// wakeups of a worker, else their median.
	var offs []int64
	for _, k := range arrivals {
		for _, a := range m.Tasks[p].ActionsOf(&gen[k]) {
			if a.Kind == ActWake && in[int(a.Target)] {
				offs = append(offs, a.At)
				break
			}
		}
	}
	var medOff int64
	if len(offs) > 0 {
		s := slices.Clone(offs)
		slices.Sort(s)
		medOff = s[len(s)/2]
	}
	// Wake actions aimed at a member are dropped: the arrivals below
	// replace those of its request blocks, and the close below those of
	// its last block (which, after a backlog, need not be the close: a
	// worker that drained the queue to its end read EOF without blocking).
	oldFinal := map[int]int{}
	for _, i := range members {
		oldFinal[i] = len(m.Tasks[i].Bursts) - 2
	}
	remap := func(acts []Action) ([]Action, int64, bool) {
		var at int64
		found := false
		out := acts[:0]
		for _, a := range acts {
			if a.Kind == ActWake && in[int(a.Target)] {
				if !found && int(a.Block) != oldFinal[int(a.Target)] {
					at, found = a.At, true
				}
				continue
			}
			out = append(out, a)
		}
		return out, at, found
	}
	for t := range m.Tasks {
		if in[t] || t == p {
			continue
		}
		for b := range m.Tasks[t].Bursts {
			tk := &m.Tasks[t]
			bb := &tk.Bursts[b]
			if bb.NumActions() > 0 {
				acts, _, _ := remap(tk.ActionsOf(bb))
				tk.SetActions(bb, acts)
			}
		}
	}
	// The members' new bursts: their first, the requests, the exit.
	count := make([]int, len(members))
	e := 0
	for k, i := range members {
		tk := &m.Tasks[i]
		old := tk.Bursts
		first, last, final := old[0], old[len(old)-1], old[len(old)-2]
		acts, _, _ := remap(tk.ActionsOf(&first))
		tk.SetActions(&first, acts)
		first.End, first.Wake, first.Slept = EndBlock, Cause{Kind: CauseDependency, Waker: int32(p), Inferred: true}, 0
		bs := []Burst{first}
		for _, b := range old[1 : len(old)-1] {
			bs = append(bs, splitRequests(tk, b, 1+extra[e], p)...)
			e++
		}
		cut := last.Len - exit[k]
		if extra[e] > 0 {
			req := Burst{Len: cut, FromIdle: last.FromIdle, WokenBy: last.WokenBy, WokenRemote: last.WokenRemote}
			for _, u := range tk.UpdatesOf(&last) {
				if u < cut {
					tk.AddUpdates(&req, u)
				}
			}
			bs = append(bs, splitRequests(tk, req, extra[e], p)...)
		}
		e++
		count[k] = len(bs) - 1
		// The block before the exit waits for the queue's close.
		bs[len(bs)-1].Slept = final.Slept
		tail := Burst{Len: exit[k], End: last.End, Wake: last.Wake, Slept: last.Slept}
		acts, _, _ = remap(tk.ActionsOf(&last))
		for _, a := range acts {
			a.At = max(a.At-cut, 0)
			tk.AddAction(&tail, a)
		}
		for _, u := range tk.UpdatesOf(&last) {
			if u > cut {
				tk.AddUpdates(&tail, u-cut)
			}
		}
		bs = append(bs, tail)
		tk.Bursts = bs
		tk.Pack()
		tk.PoolBlock = make([]bool, len(bs))
		for j := 0; j < count[k]; j++ {
			tk.PoolBlock[j] = true
		}
		tk.Repeat, tk.Spinner, tk.SpinBurst = -1, false, 0
	}
	// The arrivals: request r of the interleaved order goes with the
	// r-th arrival burst of the generator.
	next := make([]int, len(members))
	for _, kb := range arrivals {
		b := &m.Tasks[p].Bursts[kb]
		acts, at, found := remap(m.Tasks[p].ActionsOf(b))
		if !found {
			at = min(medOff, b.Len)
		}
		k := pickMember(next, count)
		if k < 0 {
			break
		}
		a := Action{At: at, Kind: ActWake, Target: int32(members[k]), Block: int32(next[k])}
		next[k]++
		acts = append(acts, a)
		sort.SliceStable(acts, func(x, y int) bool { return acts[x].At < acts[y].At })
		m.Tasks[p].SetActions(b, acts)
	}
	// The close: at the end of the generator's last arrival burst, after
	// its last request (reqsrv closes its pipe when the next arrival time
	// is past its end), every member is woken for its exit.
	if len(arrivals) > 0 {
		b := &m.Tasks[p].Bursts[arrivals[len(arrivals)-1]]
		for k, i := range members {
			m.Tasks[p].AddAction(b, Action{At: b.Len, Kind: ActWake, Target: int32(i), Block: int32(count[k])})
		}
	}
	// The generator's other bursts (its start, the close) may also have
	// woken a worker's request block: those wakeups are the arrivals'.
	for kb := range m.Tasks[p].Bursts {
		if kb > 0 && isArrival(&m.Tasks[p].Bursts[kb-1]) {
			continue
		}
		b := &m.Tasks[p].Bursts[kb]
		acts, _, _ := remap(m.Tasks[p].ActionsOf(b))
		m.Tasks[p].SetActions(b, acts)
	}
	pool := 0
	for q := range m.Pools {
		if m.Pools[q].Producer == p {
			pool = q + 1
		}
	}
	if pool == 0 {
		m.Pools = append(m.Pools, WorkerPool{Producer: p, Members: members})
		m.Stats.PoolMembers += len(members)
		pool = len(m.Pools)
	}
	m.Pools[pool-1].Requests = true
	for _, i := range members {
		m.Tasks[i].Pool = pool
	}
	return na
}

// splitRequests cuts the request burst b of tk into h requests of equal
// length (h >= 1), each ending in a block on generator p's queue; the
// first keeps how b began, the update points go with the piece they fall
// in, and b's actions (wakeups of other readers of the queue) are dropped.
func splitRequests(tk *Task, b Burst, h, p int) []Burst {
	out := make([]Burst, h)
	var lo int64
	for q := range out {
		hi := b.Len * int64(q+1) / int64(h)
		r := &out[q]
		r.Len, r.End, r.Wake = hi-lo, EndBlock, Cause{Kind: CauseDependency, Waker: int32(p), Inferred: true}
		if q == 0 {
			r.FromIdle, r.WokenBy, r.WokenRemote = b.FromIdle, b.WokenBy, b.WokenRemote
		}
		for _, u := range tk.UpdatesOf(&b) {
			if u > lo && u < hi {
				tk.AddUpdates(r, u-lo)
			}
		}
		lo = hi
	}
	return out
}

// shareOut splits n into len(w) integers in proportion to the weights w
// (largest remainder: Hamilton's method), summing to n.
func shareOut(n int, w []int64) []int {
	var tot int64
	for _, v := range w {
		tot += v
	}
	out := make([]int, len(w))
	if tot <= 0 {
		return out
	}
	type rem struct {
		k int
		r int64
	}
	rs := make([]rem, len(w))
	given := 0
	for k, v := range w {
		q := int64(n) * v
		out[k] = int(q / tot)
		given += out[k]
		rs[k] = rem{k, q % tot}
	}
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].r > rs[b].r })
	for j := 0; given < n; j++ {
		out[rs[j%len(rs)].k]++
		given++
	}
	return out
}

// pickMember returns the member whose requests are least used up in
// proportion to its count (smooth interleaving), -1 when all are used.
func pickMember(next, count []int) int {
	best := -1
	for k := range count {
		if next[k] >= count[k] {
			continue
		}
		// (next+1/2)/count smallest, compared without division.
		if best < 0 || int64(2*next[k]+1)*int64(count[best]) < int64(2*next[best]+1)*int64(count[k]) {
			best = k
		}
	}
	return best
}
