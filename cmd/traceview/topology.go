package main

import (
	"fmt"
	"io"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

// topologyUsage is the help of replay's --topology flag.
const topologyUsage = "cache domains of the simulated CPUs, for the policies with an llc_size parameter: " +
	"policy (their own default), auto (the recording machine's last-level caches when the trace describes them, as perf.data does, else the policy's default), " +
	"trace (the trace's caches, with a warning when it has none) or llc=N (N CPUs per LLC, 0: one LLC for all); " +
	"an llc_size given in --policy wins"

// withTopology is replay.Topology for the CLI: a bad topo is a usage
// error (exit 2), its note a warning on errw naming the trace file input.
func withTopology(specs []policies.Spec, topo, input string, meta *trace.Meta, errw io.Writer) ([]policies.Spec, error) {
	out, note, err := replay.Topology(specs, topo, meta)
	if err != nil {
		return nil, usageErrorf("replay: %v", err)
	}
	if note != "" {
		fmt.Fprintf(errw, "warning: %s\n", namedMessage(input, "", note))
	}
	return out, nil
}
