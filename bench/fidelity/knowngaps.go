package fidelity

// The known fidelity gaps G2, G4 and G10-G15. G1 (interleaving-dependent
// blocking, pipeline.2cpu) and G5 (messaging-tracecmd's switches) closed on
// 2026-12-05 (sim.creditBound). G3 (wall-clock-bounded loops),
// G6 (pipeline.2cpu's makespan, 1.09x since the balancer fixes of
// 2026-12-03), G8 (srv.2cpu's self-replay) and G9 (a periodic task in a
// low-weight group, 2026-12-04: its replay kept the recording's wake
// times instead of skipping the periods it missed) are closed. docs/replay.md
// explains each with its evidence.
const (
	gapVariance = "G2: run-to-run variation of the real system"
	gapPingPong = "G4: request/response round trips shorter than the recording's"
	// The traces added to ../shared/traces on 2026-12-03 (task groups,
	// threaded messaging, a service beside a nice-4 hog); docs/replay.md
	// "Task groups" gives the figures.
	gapBacklog        = "G10: a service that hit its quota served a backlog in long bursts; the replay splits them into one request per arrival (requestQueues), but what the recording's run time, delays and the hog's share under the quota were is not all in the request count"
	gapThreads        = "G11: placement-dependent cost of threads (issue 29 item 4)"
	gapServicePreempt = "G12: wakeup preemption of a batch task by a service's wakeups (issue 29 item 5)"
	// Measured 2026-12-05 on 4 more recordings of srvn.2cpu, 3 of
	// srvn.1cpu and 3 of srvn.nice0 (bench/fidelity/crosspairs.py,
	// docs/replay.md G12): the hog's switches on 2 CPUs are 12-64 in
	// repeats of one command (17-297 at nice 0), set by the few wakeups that
	// move a worker onto the hog's CPU (3 of 5052 in srvn.2cpu), and
	// reqsrv's run time 887-1157 ms; over all 20 pairs of each what-if the
	// ratios' medians are 0.94-1.11 (2 -> 1 CPU) and the shared pairs lie
	// at the ends of the range.
	gapSrvnSpread = "G2/G12: run-to-run spread of the service beside a hog on 2 CPUs (a few placements decide the hog's preemptions; the service's CPU cost per request moves between recordings)"
	// Since 2026-12-04 the replay ticks on the recording's tick phase
	// (Model.TickPhase): docs/replay.md "The tick's phase".
	gapTickPhase = "G13: a check decided by where the ticks fall against the workload's own timing, which differs run to run"
	// Since 2026-12-04 the arrivals an open-loop generator handled late are
	// drawn at random within their window (splitBurst): docs/replay.md
	// "Arrivals drawn".
	gapArrivalDraw = "G14: a check that moves with the draw of the arrivals an open-loop generator handled late"
	// Measured 2026-12-05: docs/replay.md "G15".
	gapChaotic = "G15: a check that swings past its bound when the base slice moves by 1 % (the order of the pipeline's handoffs)"
)

// KnownGaps maps fidelity check IDs (Check.ID) that miss their bound to the
// model gap that explains the miss. TestFidelity logs these instead of
// failing; any other miss fails, and a listed gap that starts passing is
// reported so the list shrinks. The bounds themselves are never loosened.
var KnownGaps = map[string]string{
	"self:pipe-ftrace//makespan": gapPingPong,
	// messaging-tracecmd's switches (G5), messaging.wk's average delay
	// (G2) and pipeline.2cpu's switches and average delay (G1) pass since
	// 2026-12-05 (sim.creditBound: a wake-any task's wakeup within the
	// spread of its recorded delays ends its next block, not skips it).
	"self:pipe//makespan": gapPingPong,
	// Recorded 2026-12-03, first replayed here 2026-12-04 (task groups
	// modelled since; the hogs of grpq switch 10-25 times in 2 s, and the
	// -r2 repeat differs from grpq.q50 by 2x in them: G2).
	"self:grpq.none/hog/avg_delay": gapVariance,
	"self:grpq.q25/hog/avg_delay":  gapVariance,
	// Seeding the arrival draw three other ways gives 0.745x-0.753x (bound
	// 0.75x); 0.750x with evenly spaced arrivals.
	"self:grpq.q50/reqsrv/avg_delay": gapArrivalDraw,
	// 4126 recorded (4086 in the -r2 repeat, which stays within bounds:
	// the real system's spread is 1 %, so this is the model's error, not
	// run-to-run variation); 0.740x, and 0.757x-0.846x seeded three other
	// ways, 0.862x with evenly spaced arrivals; 0.666x since requestQueues
	// rebuilds srv.2cpu (see whatif:srv.2cpu->1cpu below). The average
	// delay: 1.40x; 1.23x-1.35x; 1.20x; 1.57x.
	"self:srv.2cpu/hog/switches":  gapArrivalDraw,
	"self:srv.2cpu/hog/avg_delay": gapArrivalDraw,
	// (whatif:grpq.none->grpq.q25's service delay, 0.729x, passes at 0.818x
	// since the half-period first refill, policies/bandwidth.go startPeriod.)
	// pipeline.2cpu's self-replay: switches 0.826x and average delay
	// 1.208x before WAKEUP_DEQUEUE_DELAYED, 0.798x and 1.271x with it;
	// without it, unscaled_base_slice=690us/695us/710us give 0.706x,
	// 0.706x and 0.818x (delay 1.386x, 1.386x, 1.218x).
	"self:pipeline.2cpu/pipeline/switches":  gapChaotic,
	"self:pipeline.2cpu/pipeline/avg_delay": gapChaotic,
	// srv.2cpu's workers blocked 2391 times for 5045 arrivals (0.47 per
	// arrival, under maxBacklogBlocks' 0.5), and since a worker's
	// wakeup of the generator that is also its timer (Cause.ByAt) no
	// longer keeps it as recorded, requestQueues rebuilds it as a queue
	// of requests, which loses the pipe's reader-to-reader wakeups: hog
	// switches 0.90x -> 0.74x, its delay 1.12x -> 1.37x. Its -r2 repeat
	// (0.51 per arrival) and a fresh recording (0.59) stay as recorded.
	"whatif:srv.2cpu->1cpu/hog/switches":  gapBacklog,
	"whatif:srv.2cpu->1cpu/hog/avg_delay": gapBacklog,
	// 11 recorded (9, 23 and 25 in three more q25 recordings); 16
	// predicted since per-CPU kernel threads stay on their CPU
	// (bindPerCPUKthreads), 13 before: a handful of kworker and kdamond
	// runs on the hog's CPU decide it.
	"self:grpq.q25/hog/switches": gapVariance,
	// The same hog: 11 recorded, 18 predicted (13 before the binding).
	"whatif:grpq.none->grpq.q25/hog/switches": gapVariance,
	"self:grpq.q50-r2/hog/avg_delay":          gapVariance,
	"self:grpq.q50-r2/hog/switches":           gapVariance,
	"self:grpq.q50-r2/reqsrv/avg_delay":       gapVariance,
	"self:grpq.q50/hog/avg_delay":             gapVariance,
	"self:grpq.q50/hog/switches":              gapVariance,
	"self:msgt.2cpu//makespan":                gapThreads,
	"self:srvn.1cpu/reqsrv/avg_delay":         gapServicePreempt,
	"self:srvn.2cpu/hog/avg_delay":            gapSrvnSpread,
	"self:srvn.2cpu/hog/switches":             gapSrvnSpread,
	"self:srvn.nice0/hog/avg_delay":           gapSrvnSpread,
	// 54 recorded; 36 predicted on the recorded tick phase, 14-74 (0.26x
	// to 1.37x) with the ticks moved by 0.5-3.5 ms: the few preemptions
	// left to the hog follow the phase (docs/replay.md "The tick's phase").
	"self:srvn.nice0/hog/switches": gapSrvnSpread,
	// 937 recorded; 749-783 predicted (0.799x-0.836x) over eight tick
	// phases 0.5 ms apart, 773 (0.825x) on the trace's start before.
	// The mean of 900 waits of about 9 µs is set by the 1-3 of them that
	// last 1-4 ms (13.8 µs recorded with one of 4 ms; 18.8 µs predicted
	// with three of 8 ms together); the held-back recording of the same
	// recipe comes out 0.66-0.77x the other way.
	"self:grpl.a2048.1cpu/periodic/avg_delay": gapVariance,
	// The periodic task waits for the tick at most wakeups under weight
	// 128 and how long depends on where its 2 ms timer grid falls against
	// the 4 ms tick: 1 and 3 ms in grpl.a128.1cpu, 0.5 and 2.5 ms in
	// grpl.a2048.1cpu, the source of this what-if.
	"whatif:grpl.a2048.1cpu->grpl.a128.1cpu/periodic/avg_delay": gapTickPhase,
	"self:srvn.nice0/reqsrv/avg_delay":                          gapSrvnSpread,
	"whatif:grpq.none->grpq.q25/hog/avg_delay":                  gapVariance,
	"whatif:grpq.none->grpq.q25/reqsrv/runtime":                 gapBacklog,
	// Since the first bandwidth refill comes half a period after a
	// group's first run (policies/bandwidth.go startPeriod, 2026-12-06),
	// the service's switches (1.117x) and delay (0.808x) are within their
	// bounds, and the makespan, which the service's backlog sets, 0.888x
	// (3229 ms recorded, 2866 predicted; 2911, 0.902x, before): the service's run
	// time is 0.905x (G10), its backlog drained sooner.
	"whatif:grpq.q50-r2->grpq.q25//makespan":      gapBacklog,
	"whatif:grpq.none->grpq.q50/reqsrv/avg_delay": gapBacklog,
	"whatif:grpq.q25->grpq.none/hog/avg_delay":    gapBacklog,
	"whatif:grpq.q25->grpq.none/reqsrv/runtime":   gapBacklog,
	"whatif:grpq.q25->grpq.q50/hog/avg_delay":     gapBacklog,
	"whatif:grpq.q25->grpq.q50/reqsrv/avg_delay":  gapBacklog,
	"whatif:grpq.q50->grpq.none/hog/avg_delay":    gapVariance,
	"whatif:grpq.q50->grpq.none/hog/switches":     gapVariance,
	"whatif:grpq.q50->grpq.q25/hog/avg_delay":     gapVariance,
	"whatif:grpq.q50-r2->grpq.none/hog/avg_delay": gapVariance,
	// 10 recorded, 13 predicted (12 before WAKEUP_DEQUEUE_DELAYED).
	"whatif:grpq.q50-r2->grpq.none/hog/switches": gapVariance,
	"whatif:grpq.q50-r2->grpq.q25/hog/avg_delay": gapVariance,
	// 11 recorded (9, 23 and 25 in other q25 recordings); 85 predicted,
	// 13 with the ticks on the trace's start: the service's generator
	// lands on the hog's CPU after an unthrottle for a burst of arrivals.
	"whatif:grpq.q50-r2->grpq.q25/hog/switches":   gapVariance,
	"whatif:grpq.q50-r2->grpq.q25/reqsrv/runtime": gapBacklog,
	"whatif:msgt.2cpu->1cpu//makespan":            gapThreads,
	"whatif:srvn.2cpu->1cpu/hog/avg_delay":        gapSrvnSpread,
	"whatif:srvn.2cpu->1cpu/hog/switches":         gapSrvnSpread,
	"whatif:srvn.2cpu->1cpu/reqsrv/avg_delay":     gapSrvnSpread,
	"whatif:srvn.2cpu->1cpu/reqsrv/switches":      gapSrvnSpread,
	"whatif:srvn.2cpu->nice0/hog/avg_delay":       gapSrvnSpread,
	"whatif:srvn.2cpu->nice0/hog/switches":        gapSrvnSpread,
	"whatif:srvn.2cpu->nice0/reqsrv/avg_delay":    gapSrvnSpread,
}
