package main

import (
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// topologyUsage is the help of replay's --topology flag.
const topologyUsage = "cache domains of the simulated CPUs, for the policies with an llc_size parameter: " +
	"policy (their own default), trace (the recording machine's last-level caches, perf.data's cache description) or llc=N (N CPUs per LLC, 0: one LLC for all); an llc_size given in --policy wins"

// withTopology returns specs with llc_size set, where a policy has that
// parameter and the spec does not set it, from topo: "policy" (or "")
// leaves the policies' defaults, "trace" takes meta's LLC size, "llc=N"
// sets N. A trace that does not describe its caches keeps the defaults
// and says so on errw.
func withTopology(specs []policies.Spec, topo string, meta *trace.Meta, errw io.Writer) ([]policies.Spec, error) {
	var llc string
	switch {
	case topo == "" || topo == "policy":
		return specs, nil
	case topo == "trace":
		n := meta.LLCSize()
		if n == 0 {
			fmt.Fprintf(errw, "warning: --topology trace: the trace does not describe the recording machine's caches (LLCs %q); the policies keep their llc_size defaults\n", meta.LLCs)
			return specs, nil
		}
		llc = strconv.Itoa(n)
	case strings.HasPrefix(topo, "llc="):
		n, err := strconv.Atoi(strings.TrimPrefix(topo, "llc="))
		if err != nil || n < 0 || n > policies.MaxCPUs {
			return nil, usageErrorf("replay: --topology %q: want llc=N with N 0..%d CPUs per last-level cache", topo, policies.MaxCPUs)
		}
		llc = strconv.Itoa(n)
	default:
		return nil, usageErrorf("replay: --topology %q: want policy, trace or llc=N", topo)
	}
	out := make([]policies.Spec, len(specs))
	for i, sp := range specs {
		out[i] = sp
		if _, set := sp.Values["llc_size"]; set || !hasParam(sp.Info, "llc_size") {
			continue
		}
		v := maps.Clone(sp.Values)
		if v == nil {
			v = policies.Values{}
		}
		v["llc_size"] = llc
		out[i].Values = v
	}
	return out, nil
}

func hasParam(info policies.Info, name string) bool {
	for _, p := range info.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}
