package main

// gcBallast raises the heap size below which the garbage collector does not
// run (raiseGCFloor). It is never written, so the kernel never backs its
// pages: it costs address space, not memory (RSS).
var gcBallast []byte

// gcFloor is the ballast's size: the collector's first goal becomes about
// twice it, above what latency, timehist and map hold on any trace (25 MiB
// on the bench file of docs/latency.md: batches, the reordering window,
// per-task state), so they never collect; a command that holds more
// collects as before, at GOGC's usual ratio.
const gcFloor = 64 << 20

// raiseGCFloor keeps the collector from running while a streaming command
// grows its working set. Without it, the heap's growth from 4 to 25 MiB in
// the first milliseconds of reading a large trace ran three collections:
// their marking (the batches and window blocks hold strings, so they are
// scanned) and the reader's mark assists delayed the first batch of events
// by 7-10 ms of a 0.2 s latency run (16-19 ms after start instead of 8-10).
// A ballast, not GOGC=off with a memory limit: a command whose live heap
// does grow large (percentiles of a huge trace) keeps GOGC's behaviour
// instead of collecting in a loop at the limit.
func raiseGCFloor() {
	if gcBallast == nil {
		gcBallast = make([]byte, gcFloor)
	}
}
