package fidelity

// The known fidelity gaps G1, G2, G4 and G5. G3 (wall-clock-bounded loops),
// G6 (pipeline.2cpu's makespan, 1.09x since the balancer fixes of
// 2026-12-03) and G8 (srv.2cpu's self-replay) are closed. docs/replay.md
// explains each with its evidence.
const (
	gapContended = "G1: interleaving-dependent blocking and waker preemption"
	gapVariance  = "G2: run-to-run variation of the real system"
	gapPingPong  = "G4: request/response round trips shorter than the recording's"
	gapNoCmdline = "G5: trace.dat without sched_stat_runtime, forks or command line"
)

// KnownGaps maps fidelity check IDs (Check.ID) that miss their bound to the
// model gap that explains the miss. TestFidelity logs these instead of
// failing; any other miss fails, and a listed gap that starts passing is
// reported so the list shrinks. The bounds themselves are never loosened.
var KnownGaps = map[string]string{
	"self:pipe-ftrace//makespan":                     gapPingPong,
	"self:messaging-t.2cpu/sched-messaging/switches": gapContended,
	// Checked since latency falls back to on-CPU time from the switches
	// when a trace has no sched_stat_runtime (issue 16 item 4).
	"self:messaging-tracecmd/sched-messaging/switches":  gapNoCmdline,
	"self:messaging-tracecmd/sched-messaging/avg_delay": gapNoCmdline,
	"self:messaging.1cpu/sched-messaging/switches":      gapContended,
	// Scored with the switch-ins the trace lacks since 2026-12-03 (1065
	// recorded + 162 unrecorded = 1227; predicted 902, 0.85x of the
	// recorded count alone).
	"self:messaging.2cpu/sched-messaging/switches":         gapContended,
	"self:messaging.wk/sched-messaging/switches":           gapVariance,
	"self:messaging.wk/sched-messaging/avg_delay":          gapVariance,
	"self:pipe//makespan":                                  gapPingPong,
	"self:pipeline.1cpu/pipeline/switches":                 gapContended,
	"self:pipeline.2cpu/pipeline/switches":                 gapContended,
	"self:pipeline.2cpu/pipeline/avg_delay":                gapContended,
	"whatif:messaging.2cpu->1cpu/sched-messaging/switches": gapContended,
}
