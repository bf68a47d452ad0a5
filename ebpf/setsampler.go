// Task-group settings while a capture runs: a file's start and end read
// every group's cpu.weight and cpu.max (v1: cpu.shares, cpu.cfs_quota_us,
// cpu.cfs_period_us), which tells that a setting changed but not when (new-user
// pass 28 F1: replay then held the start's setting for the whole trace,
// and latency the end's quota). The settings sampler reads them every
// v1SampleEvery as well and keeps each change with the time of the reading
// that saw it, so a change is dated to within one interval and the
// reports can hold the setting that was in effect longest.

package ebpf

import (
	"sync"
	"time"

	"github.com/traceview/traceview/trace"
)

// settingsSampler follows the settings of the groups of the settings
// hierarchy (up to maxGroupsRead, as a snapshot reads them).
type settingsSampler struct {
	g  *groupReader
	mu sync.Mutex
	// last is each group's latest reading; changes holds, per group in
	// time order, each reading that differed from the one before it
	// (Time: the trace clock of that reading), and the first reading of
	// a group made after the sampler's first reading.
	last    map[string]trace.CgroupSettings
	changes map[string][]trace.CgroupSettings
	started bool
}

// startSettingsSampler reads the groups' settings once and then every
// v1SampleEvery (or 20 times a reading's duration, when longer, so it
// takes at most ~5 % of a CPU) until stop is closed. nil without a reader
// or a settings hierarchy.
func startSettingsSampler(g *groupReader, stop <-chan struct{}) *settingsSampler {
	if g == nil {
		return nil
	}
	if root, _ := g.dir("/"); root == "" {
		return nil
	}
	s := &settingsSampler{g: g, last: map[string]trace.CgroupSettings{}, changes: map[string][]trace.CgroupSettings{}}
	go sampleEvery(stop, s.sample(monotonicNow()), s.sample)
	return s
}

// sample reads every group's settings at now (trace clock) and returns
// how long that took.
func (s *settingsSampler) sample(now int64) time.Duration {
	t0 := time.Now()
	root, v1 := s.g.dir("/")
	read := map[string]trace.CgroupSettings{}
	walkGroups(root, func(dir, path string) {
		if path == "/" {
			return
		}
		if st, ok := ReadCgroupSettings(dir, path, v1); ok {
			read[path] = st
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, st := range read {
		prev, had := s.last[path]
		s.last[path] = st
		if had && sameSettings(prev, st) || !had && !s.started {
			continue
		}
		st.Time = now
		s.changes[path] = append(s.changes[path], st)
	}
	s.started = true
	return time.Since(t0)
}

// between returns the readings of group path taken after from and before
// to (trace clock), in time order: its settings as they changed in that
// time. A nil sampler has none.
func (s *settingsSampler) between(path string, from, to int64) []trace.CgroupSettings {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []trace.CgroupSettings
	for _, c := range s.changes[path] {
		if c.Time > from && c.Time < to {
			out = append(out, c)
		}
	}
	return out
}

// sameSettings reports whether a and b are the same settings, whenever
// they were read.
func sameSettings(a, b trace.CgroupSettings) bool {
	a.Time, b.Time = 0, 0
	return a == b
}
