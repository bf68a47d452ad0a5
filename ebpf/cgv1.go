// Task attribution to cgroup v1 cpu-controller groups: with the cpu
// controller on a v1 hierarchy, the cgroup id the BPF programs read
// (bpf_get_current_cgroup_id) names the task's cgroup v2 group, which has
// no CPU settings; the group that holds its cpu.shares and quota is the
// v1 cpu group whose tasks file lists it. While a capture runs, a sampler
// reads the tasks file of every non-root group of that hierarchy (and each
// group's settings the first time it sees the group); each file written
// then gives the switches of a task in such a group an id of its own,
// which Meta.Cgroups names. The events reach the files a while after they
// happened (the capture drains its buffers in batches, a ring dump much
// later), so the attribution is by the time of the event, not of the
// write.

package ebpf

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/traceview/traceview/trace"
)

// V1CgroupIDBit marks the cgroup ids (trace.Event.Cgroup) that traceview
// record gives cgroup v1 cpu-controller groups: a kernfs node id never has
// bit 63 set (it is an inode number, allocated upwards from 1).
const V1CgroupIDBit = uint64(1) << 63

// v1SampleEvery is the least time between two readings of the groups'
// tasks files; a reading that takes long (thousands of groups) stretches
// it to 20 times its own duration, so the sampler takes at most ~5 % of a
// CPU. A task is attributed to a group from one interval before the
// reading that first lists it there to one interval after the last.
const v1SampleEvery = 100 * time.Millisecond

// v1Span is a stretch of time in which the readings listed a task in one
// group.
type v1Span struct {
	path        string
	first, last int64 // trace clock of the first and last reading
}

// v1Sampler follows which non-root v1 cpu group each task is in.
type v1Sampler struct {
	g  *groupReader
	mu sync.Mutex
	// spans per task, in time order; slack is the longest interval
	// between two readings so far (ns), at least v1SampleEvery.
	spans map[trace.TID][]v1Span
	slack int64
	// latest is the time of the latest reading (trace clock); stopped
	// is set when the sampler reads no more.
	latest  int64
	stopped bool
	// settings of each group as first read (Time: then).
	first map[string]trace.CgroupSettings
}

// startV1Sampler reads the groups once and then every v1SampleEvery until
// stop is closed (the events drained after the capture stopped are within
// the slack of the last reading); nil when the cpu controller is not on a v1 hierarchy.
func startV1Sampler(g *groupReader, stop <-chan struct{}) *v1Sampler {
	if g == nil || g.mounts.V1CPU == "" {
		return nil
	}
	s := &v1Sampler{g: g, spans: map[trace.TID][]v1Span{}, first: map[string]trace.CgroupSettings{},
		slack: int64(v1SampleEvery)}
	prev, took := s.sample()
	go func() {
		for {
			select {
			case <-stop:
				s.mu.Lock()
				s.stopped = true
				s.mu.Unlock()
				return
			case <-time.After(max(v1SampleEvery, 20*took)):
			}
			var at int64
			at, took = s.sample()
			// The gap as it was, late timers and a starved
			// goroutine on a loaded machine included.
			s.mu.Lock()
			s.slack = max(s.slack, at-prev+int64(took))
			s.mu.Unlock()
			prev = at
		}
	}()
	return s
}

// sample reads the tasks file of every non-root group (up to
// maxGroupsRead) and returns when (trace clock) and how long that took.
func (s *v1Sampler) sample() (int64, time.Duration) {
	t0 := time.Now()
	now := monotonicNow()
	root := s.g.mounts.V1CPU
	seen := map[trace.TID]string{}
	newGroups := map[string]bool{}
	walkGroups(root, func(p, path string) {
		if path == "/" {
			return
		}
		f, err := os.Open(filepath.Join(p, "tasks"))
		if err != nil {
			return
		}
		sc := bufio.NewScanner(f)
		listed := false
		for sc.Scan() {
			if tid, err := strconv.Atoi(sc.Text()); err == nil && tid > 0 {
				seen[trace.TID(tid)] = path
				listed = true
			}
		}
		f.Close()
		if listed {
			newGroups[path] = true
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest = max(s.latest, now)
	for tid, path := range seen {
		sp := s.spans[tid]
		if k := len(sp) - 1; k >= 0 && sp[k].path == path {
			sp[k].last = now
			continue
		}
		s.spans[tid] = append(sp, v1Span{path: path, first: now, last: now})
	}
	for path := range newGroups {
		for p := path; p != "/" && p != "." && p != ""; p = filepath.Dir(p) {
			if _, ok := s.first[p]; ok {
				continue
			}
			if set, _, ok, _ := s.g.read(p, now); ok {
				set.Time = now
				s.first[p] = set
			}
		}
	}
	return now, time.Since(t0)
}

// group returns the non-root v1 cpu group task tid was in at time t (trace
// clock), "" when none is known.
func (s *v1Sampler) group(tid trace.TID, t int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	best, dist := "", int64(-1)
	for _, sp := range s.spans[tid] {
		var d int64
		switch {
		case t < sp.first:
			d = sp.first - t
		case t > sp.last:
			d = t - sp.last
		}
		if d <= s.slack && (dist < 0 || d < dist) {
			best, dist = sp.path, d
		}
	}
	return best
}

// settings returns a copy of the groups' settings as first read.
func (s *v1Sampler) settings() map[string]trace.CgroupSettings {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]trace.CgroupSettings, len(s.first))
	for k, v := range s.first {
		out[k] = v
	}
	return out
}

// v1WaitMax bounds how long awaitReading waits for the sampler: 20
// readings' worth at the least interval; a sampler starved longer than
// that leaves the events of the meantime in the root group, as before.
const v1WaitMax = 20 * v1SampleEvery

// awaitReading waits until the sampler has read the groups at or after
// time t (trace clock), so that a task that moved into a group just before
// t is found there: the capture can decode an event before the next
// reading (a run at load 20 wrote a whole 1 s busy loop in a group into
// the root group). It returns at once once the sampler has stopped, and
// after v1WaitMax at most; the capture's backlog holds the events that
// arrive meanwhile.
func (s *v1Sampler) awaitReading(t int64) {
	deadline := time.Now().Add(v1WaitMax)
	for {
		s.mu.Lock()
		done := s.latest >= t || s.stopped
		s.mu.Unlock()
		if done || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// v1Attrib gives the groups of one file their ids.
type v1Attrib struct {
	s     *v1Sampler
	ids   map[string]uint64 // group path -> id
	paths map[uint64]string // id -> group path (Meta.Cgroups)
	// forked: the group each task forked in the file was born in (its
	// parent's then), for the tasks no reading lists.
	forked map[trace.TID]string
}

func newV1Attrib(s *v1Sampler) *v1Attrib {
	if s == nil {
		return nil
	}
	return &v1Attrib{s: s, ids: map[string]uint64{}, paths: map[uint64]string{}, forked: map[trace.TID]string{}}
}

// groupOf returns the group task tid was in at time t: the sampler's, or,
// when no reading lists it near t, the group it was born in. A child
// starts in its parent's cgroup (cgroup_post_fork, kernel/cgroup/cgroup.c
// v6.12), and a short-lived thread or child ends before the 100 ms
// readings list it: 197 of 203 threads of a grouped process read as in
// the root group.
func (a *v1Attrib) groupOf(tid trace.TID, t int64) string {
	if path := a.s.group(tid, t); path != "" {
		return path
	}
	return a.forked[tid]
}

// rewrite sets the cgroup id of a switch to that of the v1 cpu group of
// the task leaving the CPU when the sampler saw it in a non-root group
// then (or its parent was, when it forked); other events and other tasks
// keep the v2 id. A fork notes the child's group.
func (a *v1Attrib) rewrite(e *trace.Event) {
	if a == nil || e.TID <= 0 {
		return
	}
	if e.Kind == trace.KindFork && e.ChildTID > 0 {
		a.s.awaitReading(e.Time)
		if path := a.groupOf(e.TID, e.Time); path != "" {
			a.forked[e.ChildTID] = path
		} else {
			delete(a.forked, e.ChildTID) // (a reused TID)
		}
		return
	}
	if e.Kind != trace.KindSwitch {
		return
	}
	a.s.awaitReading(e.Time)
	path := a.groupOf(e.TID, e.Time)
	if path == "" {
		return
	}
	id, ok := a.ids[path]
	if !ok {
		id = V1CgroupIDBit | uint64(len(a.ids)+1)
		a.ids[path], a.paths[id] = id, path
	}
	e.Cgroup = id
}

// V1Groups follows which non-root cgroup v1 cpu-controller group each task
// is in, with the sampler traceview record uses, for a live view (traceview
// top --by cgroup) whose cgroup ids name only cgroup v2 groups.
type V1Groups struct {
	s    *v1Sampler
	stop chan struct{}
}

// StartV1Groups starts reading the tasks files of the v1 cpu hierarchy of
// mounts (every 100 ms, or 20 times a reading's duration); nil when the
// cpu controller is not on a v1 hierarchy. Stop ends it.
func StartV1Groups(mounts CgroupMounts) *V1Groups {
	if mounts.V1CPU == "" {
		return nil
	}
	stop := make(chan struct{})
	s := startV1Sampler(&groupReader{mounts: mounts}, stop)
	if s == nil {
		return nil
	}
	return &V1Groups{s: s, stop: stop}
}

// Group returns the non-root v1 cpu group (its path in the hierarchy) that
// task tid was in at time t (CLOCK_MONOTONIC ns): as the reading nearest t
// listed it, within the longest interval between two readings; "" when
// none (the root group, or not seen). It first waits, as record does
// (awaitReading, v1WaitMax at most), for a reading at or after t: a
// sampler slowed by load had not read the groups near the end of top's
// window, and a task spinning in a group all along was shown in the root
// (TestTopV1CgroupRows under the full test run's load).
func (v *V1Groups) Group(tid trace.TID, t int64) string {
	if v == nil {
		return ""
	}
	v.s.awaitReading(t)
	return v.s.group(tid, t)
}

// Stop ends the readings.
func (v *V1Groups) Stop() {
	if v != nil {
		close(v.stop)
	}
}
