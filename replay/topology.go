package replay

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// TopologyModes names the values of Topology's topo, for help texts.
const TopologyModes = "policy, auto, trace or llc=N"

// Topology returns specs with llc_size set, where a policy has that
// parameter and its spec does not set it, by topo:
//   - "policy" (or ""): the policies' defaults;
//   - "auto": the recording machine's last-level caches when the
//     trace describes them (perf.data's CACHE feature, the kernel's
//     /sys/devices/system/cpu/cpu*/cache; meta.LLCSize), else the
//     policies' defaults. The kernel builds sd_llc from the same cache
//     description (cpu_coregroup_mask -> cpu_llc_shared_mask,
//     arch/x86/kernel/smpboot.c v6.18), and a machine that reports no
//     shared cache gets a one-CPU LLC, which is the policies' default
//     llc_size of 1;
//   - "trace": the trace's caches; a trace that does not describe them
//     keeps the defaults and note says so;
//   - "llc=N": N CPUs per LLC (0: one LLC for all).
//
// The specs given are not changed. err is a one-line usage error for any
// other topo.
func Topology(specs []policies.Spec, topo string, meta *trace.Meta) (out []policies.Spec, note string, err error) {
	llc := -1
	switch {
	case topo == "auto":
		if meta != nil {
			if n := meta.LLCSize(); n > 0 {
				llc = n
			}
		}
	case topo == "trace":
		if meta != nil {
			llc = meta.LLCSize()
		}
		if llc <= 0 {
			var llcs []string
			if meta != nil {
				llcs = meta.LLCs
			}
			return specs, fmt.Sprintf("--topology trace: the trace does not describe the recording machine's caches (LLCs %q); the policies keep their llc_size defaults", llcs), nil
		}
	case topo == "" || topo == "policy":
	case strings.HasPrefix(topo, "llc="):
		n, err := strconv.Atoi(strings.TrimPrefix(topo, "llc="))
		if err != nil || n < 0 || n > policies.MaxCPUs {
			return nil, "", fmt.Errorf("--topology %q: want llc=N with N 0..%d CPUs per last-level cache", topo, policies.MaxCPUs)
		}
		llc = n
	default:
		return nil, "", fmt.Errorf("--topology %q: want %s", topo, TopologyModes)
	}
	if llc < 0 {
		return specs, "", nil
	}
	out = make([]policies.Spec, len(specs))
	for i, sp := range specs {
		out[i] = sp
		if _, set := sp.Values["llc_size"]; set || !hasParam(sp.Info, "llc_size") {
			continue
		}
		v := maps.Clone(sp.Values)
		if v == nil {
			v = policies.Values{}
		}
		v["llc_size"] = strconv.Itoa(llc)
		out[i].Values = v
	}
	return out, "", nil
}

func hasParam(info policies.Info, name string) bool {
	for _, p := range info.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}
