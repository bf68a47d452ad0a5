package policies

// The two multi-queue schedulers proposed for Linux 2.4 SMP, both built on
// the 2.4 goodness() (goodness24.go):
//
//   - mq-hp: the HP multiqueue patch (LKML, April 2001): one runqueue per
//     CPU plus one real-time queue (here the RT class stacked above); a CPU
//     schedules only among its own queue, with goodness(), and takes a task
//     from another queue only when its own is empty; a woken task returns
//     to its own queue unless an idle CPU can take it at once; the epoch
//     recalculation is per queue (the tasks that last ran on that CPU).
//   - mq-lse: the LSE multi-queue scheduler (Kravetz, Franke et al., IBM
//     Linux Technology Center, "Implementation of a Multi-Queue Scheduler
//     for Linux", April 2001): one runqueue per CPU, but schedule() makes
//     the global 2.4 decision: the best local task (with the
//     PROC_CHANGE_PENALTY bonus) is compared with the cached best task of
//     every other queue (without it), and the better one runs; wakeups use
//     2.4's reschedule_idle across CPUs; one global epoch recalculation.
//
// Decision cost (DecisionCoster): mq-hp scans its own queue (and the
// others only when empty); mq-lse scans its own queue and reads one cached
// maximum per other queue.

// NewMQHP returns the mq-hp policy.
func NewMQHP(pcp int) *Goodness { return &Goodness{name: "mq-hp", mode: gHP, pcp: pcp} }

// NewMQLSE returns the mq-lse policy.
func NewMQLSE(pcp int) *Goodness { return &Goodness{name: "mq-lse", mode: gLSE, pcp: pcp} }

func init() {
	Register(Info{
		Name:    "mq-hp",
		Summary: "HP multiqueue (2001): per-CPU goodness queues, steal only when the own queue is empty, RT class above",
		Source:  "HP multiqueue scheduler patch, LKML April 2001, on kernel/sched.c v2.4",
		Params:  goodnessParams,
		New: func(v Values, _ int) (Policy, error) {
			return NewStack(NewMQHP(v.Int("proc_change_penalty", procChangePenalty)).costsFrom(v)), nil
		},
	})
	Register(Info{
		Name:    "mq-lse",
		Summary: "LSE multi-queue (2001): per-CPU queues with the global goodness decision, RT class above",
		Source:  "Kravetz, Franke et al., IBM LTC, Implementation of a Multi-Queue Scheduler for Linux (2001), on kernel/sched.c v2.4",
		Params:  goodnessParams,
		New: func(v Values, _ int) (Policy, error) {
			return NewStack(NewMQLSE(v.Int("proc_change_penalty", procChangePenalty)).costsFrom(v)), nil
		},
	})
}
