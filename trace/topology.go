package trace

import "github.com/traceview/traceview/internal/cpulist"

// LLCSize returns how many CPUs share each last-level cache of the
// recording machine (Meta.LLCs), or 0 when the trace does not say, a list
// does not parse, or the caches are shared by different numbers of CPUs.
// It is the llc_size of the replay policies that model cache domains
// (select_idle_sibling's search, wake-affine).
func (m *Meta) LLCSize() int {
	n := 0
	for _, s := range m.LLCs {
		cpus, err := cpulist.Parse(s)
		if err != nil || len(cpus) == 0 || n != 0 && len(cpus) != n {
			return 0
		}
		n = len(cpus)
	}
	return n
}
