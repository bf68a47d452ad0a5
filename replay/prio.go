package replay

import "github.com/traceview/traceview/trace"

// prioCount is how many of a task's recorded switch-ins gave it prio.
type prioCount struct {
	prio int32
	n    int32
}

// countPrio counts a switch-in of the task at prio (the sched_switch's
// next_prio; -1 unknown is not counted).
func (s *ext) countPrio(prio int32) {
	if prio < 0 {
		return
	}
	for k := range s.prios {
		if s.prios[k].prio == prio {
			s.prios[k].n++
			return
		}
	}
	s.prios = append(s.prios, prioCount{prio: prio, n: 1})
}

// settlePrio gives each task the prio of most of its recorded switch-ins
// and the scheduling policy of most of its recorded switch-outs (where the
// source records policies: Task.Policy)
// (the earliest such prio on a tie), where the events' last word on it
// (Task.Prio as ident leaves it) may be a change made on the way out: a
// real-time program such as cyclictest runs its threads at SCHED_FIFO 80
// and sets them back to SCHED_OTHER before they exit, so the last
// sched_switch of each shows prio 120 after 1,500 at prio 19. The model
// has one class and priority per task, so the one it ran under most is
// the one that decides its schedule. Tasks whose switch-ins showed more
// than one prio are counted in ModelStats.PrioChanges.
func (x *extractor) settlePrio() {
	for i := range x.st {
		if x.st[i].dl {
			x.m.Tasks[i].SchedDeadline = true
			x.m.Stats.SchedDeadline++
		}
		var pol trace.SchedPolicy
		for p, n := range x.st[i].policies {
			if n > 0 && (pol == trace.PolicyUnknown || n > x.st[i].policies[pol]) {
				pol = trace.SchedPolicy(p)
			}
		}
		x.m.Tasks[i].Policy = pol
		switch pol {
		case trace.PolicyBatch:
			x.m.Stats.SchedBatch++
		case trace.PolicyIdle:
			x.m.Stats.SchedIdle++
		}
		ps := x.st[i].prios
		if len(ps) == 0 {
			continue
		}
		best := ps[0]
		for _, p := range ps[1:] {
			if p.n > best.n {
				best = p
			}
		}
		x.m.Tasks[i].Prio = best.prio
		if len(ps) > 1 {
			x.m.Tasks[i].PrioChanged = true
			x.m.Stats.PrioChanges++
		}
		x.st[i].prios = nil
	}
}
