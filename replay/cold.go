package replay

import "github.com/traceview/traceview/policies"

// coldSwitch returns the cache-refill part of switching to next on cpu
// (Config.ColdSwitch): ColdSwitch × min(k, CacheTasks) / CacheTasks, k the
// switches cpu made since next last switched in there (every task that
// ran in between evicted a share of next's working set); a task that never
// ran on cpu, or last ran elsewhere, refills it all. It also counts the
// switch. 0 when ColdSwitch is 0 (the default), which keeps replays as
// they were.
func (s *sim) coldSwitch(cpu int, next *policies.Task) int64 {
	if s.cfg.ColdSwitch <= 0 || s.cfg.CacheTasks <= 0 {
		return 0
	}
	c := &s.cpus[cpu]
	st := &s.ts[next.ID]
	k := s.cfg.CacheTasks
	if st.lastCPU == cpu && st.lastSeq > 0 {
		k = min(c.seq-st.lastSeq, k)
	}
	c.seq++
	st.lastSeq = c.seq
	return s.cfg.ColdSwitch * k / s.cfg.CacheTasks
}
