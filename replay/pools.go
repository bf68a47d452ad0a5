package replay

import (
	"slices"

	"github.com/traceview/traceview/trace"
)

// minPoolShare is the share of each member's dependency wakeups that must
// come from one producer for inferPools: a work queue's readers are woken
// by the writer for most requests and by each other for the rest (a pipe
// reader that leaves data behind wakes the next reader, pipe_read in
// fs/pipe.c v6.18). Measured on ../shared/traces: reqsrv's workers get
// 74-79 % of their wakeups from the generator; pipeline.c's threads, each
// woken by its predecessor, have no common producer, nor have
// sched-messaging's receivers, each woken by all senders of its group.
const minPoolShare = 0.5

// minPoolFIFO is the share of a pool's wakeups, among those that found
// another member asleep too, that must go to the member asleep longest: a
// shared queue's readers wait exclusively and are woken in the order they
// came (prepare_to_wait_exclusive, kernel/sched/wait.c v6.18), while
// threads with queues of their own are woken by what was sent to them.
// Measured on ../shared/traces: reqsrv's workers 2262 of 2264 (srv.2cpu),
// 1199 of 1199 (srv.1cpu); sched-messaging -t's receivers 4 of 386;
// pipeline.c's condition variables 0 of 398. The 0.8 leaves room for
// waiters that a signal or a timeout takes out of order.
const minPoolFIFO = 0.8

// minPoolWakeups is how many dependency wakeups a thread needs before
// inferPools looks at who sends them: fewer say nothing about a queue.
const minPoolWakeups = 20

// inferPools finds worker pools: two or more threads of one process with
// one command name, not deadline-bound, each woken mostly (minPoolShare)
// by the same producer task outside them, and woken in the order they went
// to sleep (minPoolFIFO). Their blocks woken by the
// producer or by each other wait on the shared queue; a member's last
// block before its final burst (the producer closing the queue wakes
// every reader) stays its own.
func (x *extractor) inferPools() {
	m := x.m
	type key struct {
		pid  trace.PID
		comm string
	}
	groups := map[key][]int{}
	var keys []key
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.PID <= 0 || tk.Until == UntilDeadline || len(tk.Bursts) < 3 {
			continue
		}
		k := key{tk.PID, tk.Comm}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range keys {
		// Each thread's main waker; the producer is the one most threads
		// have (a generator that is itself woken by its workers at their
		// exit, pthread_join, must not pick the producer for them).
		bestOf := map[int]int{}
		votes := map[int]int{}
		for _, i := range groups[k] {
			wk := map[int]int{}
			n := 0
			for _, b := range m.Tasks[i].Bursts {
				if b.End == EndBlock && b.Wake.Kind == CauseDependency {
					wk[int(b.Wake.Waker)]++
					n++
				}
			}
			best, bn := -1, 0
			for w, c := range wk {
				if c > bn || c == bn && w < best {
					best, bn = w, c
				}
			}
			if n < minPoolWakeups || float64(bn) < minPoolShare*float64(n) {
				continue
			}
			bestOf[i] = best
			votes[best]++
		}
		producer := -1
		for w, v := range votes {
			if producer < 0 || v > votes[producer] || v == votes[producer] && w < producer {
				producer = w
			}
		}
		var members []int
		for _, i := range groups[k] {
			if b, ok := bestOf[i]; ok && b == producer && i != producer {
				members = append(members, i)
			}
		}
		if len(members) < 2 || slices.Contains(members, producer) {
			continue
		}
		n, hit := 0, 0
		for _, i := range members {
			n += x.st[i].fifoN
			hit += x.st[i].fifoHit
		}
		if n < minPoolWakeups || float64(hit) < minPoolFIFO*float64(n) {
			continue
		}
		in := map[int]bool{producer: true}
		for _, i := range members {
			in[i] = true
		}
		pool := len(m.Pools) + 1
		for _, i := range members {
			tk := &m.Tasks[i]
			tk.Pool = pool
			tk.PoolBlock = make([]bool, len(tk.Bursts))
			for j, b := range tk.Bursts[:len(tk.Bursts)-2] {
				tk.PoolBlock[j] = b.End == EndBlock && b.Wake.Kind == CauseDependency && in[int(b.Wake.Waker)]
			}
		}
		m.Pools = append(m.Pools, WorkerPool{Producer: producer, Members: members})
		m.Stats.PoolMembers += len(members)
	}
}

// noteFIFO counts, for a dependency wakeup of task i, whether a sibling
// (a thread of its process with its name) was asleep too and whether i had
// been asleep longest: the order a shared queue's exclusive waiters are
// woken in.
func (x *extractor) noteFIFO(i int) {
	tk := &x.m.Tasks[i]
	if tk.PID <= 0 {
		return
	}
	others, first := false, true
	for _, j := range x.byPID[tk.PID] {
		if j == i || x.m.Tasks[j].Comm != tk.Comm || x.m.Tasks[j].PID != tk.PID || !x.st[j].sleeping {
			continue
		}
		others = true
		if x.st[j].blocked < x.st[i].blocked {
			first = false
		}
	}
	if others {
		x.st[i].fifoN++
		if first {
			x.st[i].fifoHit++
		}
	}
}
