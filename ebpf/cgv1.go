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
//
// Where the kernel lets it, a BPF program on the cgroup_attach_task
// tracepoint (cgattach.c) gives each move into or out of a group its
// nanosecond as well: a task is in the group of its latest move before an
// event, and before its first move in the group the readings list it in.
// Without it (no tp_btf, or moves lost) a task is placed in a group to
// within a reading interval: a busy loop moved between groups had ~100 ms
// of run time on each side of each move counted in the wrong group.

package ebpf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traceview/traceview/trace"
)

// V1CgroupIDBit is trace.V1CgroupIDBit, the mark of the ids record gives
// cgroup v1 cpu-controller groups.
const V1CgroupIDBit = trace.V1CgroupIDBit

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
	// The moves of tasks between groups as they happened (moveWatcher),
	// in time order: of one thread (tasks file writes) and of a whole
	// process (cgroup.procs writes, keyed by its PID). exact is set while
	// they are complete: the watcher is running and lost none. mountRoot
	// is the hierarchy's path the mount shows ("/" but in a container).
	w         *moveWatcher
	exact     bool
	mountRoot string
	moves     map[trace.TID][]v1Move
	procMoves map[trace.PID][]v1Move
	// watchErr says why moves are not followed ("" when they are).
	watchErr string
	// ids numbers the groups for the whole recording (v1Attrib.idOf), so
	// that every file of a series gives a group the same id.
	ids map[string]uint64
}

// v1Move is one task's move to a group (path "" the root group) at time
// (trace clock).
type v1Move struct {
	time int64
	path string
}

// cgMove is one record of cgattach.c (struct cg_move).
type cgMove struct {
	Time        int64
	TID         trace.TID
	PID         trace.PID
	Hierarchy   int
	Threadgroup bool
	Path        string
	// Cut: the path was longer than the record holds.
	Cut bool
}

// cgMoveSize is sizeof(struct cg_move) in cgattach.c.
const cgMoveSize = 24 + 256

// parseCgMove decodes one cg_move record; ok false when b is short.
func parseCgMove(b []byte, bo binary.ByteOrder) (cgMove, bool) {
	if len(b) < cgMoveSize {
		return cgMove{}, false
	}
	n := int(bo.Uint16(b[20:]))
	m := cgMove{Time: int64(bo.Uint64(b[0:])), TID: trace.TID(int32(bo.Uint32(b[8:]))),
		PID: trace.PID(int32(bo.Uint32(b[12:]))), Hierarchy: int(int32(bo.Uint32(b[16:]))),
		Threadgroup: b[22] != 0}
	path := b[24:cgMoveSize]
	switch {
	case n <= 0:
		m.Cut = true
	case n >= len(path):
		m.Path, m.Cut = string(path[:len(path)-1]), true
	default:
		m.Path = string(path[:n-1])
	}
	return m, true
}

// relPath is a move's group as the sampler names it (the path under the
// mount, "" the root group); ok false when the group is outside what the
// mount shows.
func relPath(mountRoot, path string) (string, bool) {
	if mountRoot != "" && mountRoot != "/" {
		if path != mountRoot && !strings.HasPrefix(path, mountRoot+"/") {
			return "", false
		}
		path = "/" + strings.TrimPrefix(strings.TrimPrefix(path, mountRoot), "/")
	}
	path = filepath.Clean("/" + path)
	if path == "/" {
		return "", true
	}
	return path, true
}

// v1CPUHierarchy returns the hierarchy id of the cpu controller in a
// /proc/cgroups file (cgroups(7)) (its second column; 0 on cgroup v2 or unknown).
func v1CPUHierarchy(procCgroups string) int {
	f, err := os.Open(procCgroups)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "cpu" {
			n, _ := strconv.Atoi(fs[1])
			return n
		}
	}
	return 0
}

// addMove notes a move the watcher read (s.mu held).
func (s *v1Sampler) addMove(m cgMove) {
	path, ok := relPath(s.mountRoot, m.Path)
	if m.Cut || !ok {
		// A group the readings cannot name: the moves are no longer
		// complete.
		s.exact = false
		s.watchErr = fmt.Sprintf("a task moved to a group outside %s or with a path over 255 bytes (%q)", s.g.mounts.V1CPU, m.Path)
		return
	}
	if path == "" {
		// A move back to the root group: named "/", so that group()
		// tells a task known to be in the root from one no reading
		// lists (new-user pass 17 F2: a task echoed into the root's
		// tasks file kept counting in the cgroup v2 group of its old
		// group's name, 0.957 CPUs under a 0.6-CPU quota).
		path = "/"
	}
	mv := v1Move{time: m.Time, path: path}
	if m.Threadgroup {
		s.procMoves[m.PID] = insertMove(s.procMoves[m.PID], mv)
	} else {
		s.moves[m.TID] = insertMove(s.moves[m.TID], mv)
	}
}

// insertMove adds mv to ms, kept in time order (records of different CPUs
// reach the ring buffer in the order they were submitted, not stamped).
func insertMove(ms []v1Move, mv v1Move) []v1Move {
	i := len(ms)
	for i > 0 && ms[i-1].time > mv.time {
		i--
	}
	return slices.Insert(ms, i, mv)
}

// lastMove returns the latest move in ms at or before t, and the time of
// the first move (math.MaxInt64 when none).
func lastMove(ms []v1Move, t int64) (last *v1Move, first int64) {
	first = math.MaxInt64
	if len(ms) > 0 {
		first = ms[0].time
	}
	for i := range ms {
		if ms[i].time > t {
			break
		}
		last = &ms[i]
	}
	return last, first
}

// startV1Sampler reads the groups once and then every v1SampleEvery until
// stop is closed (the events drained after the capture stopped are within
// the slack of the last reading); nil when the cpu controller is not on a v1 hierarchy.
func startV1Sampler(g *groupReader, stop <-chan struct{}) *v1Sampler {
	if g == nil || g.mounts.V1CPU == "" {
		return nil
	}
	s := &v1Sampler{g: g, spans: map[trace.TID][]v1Span{}, first: map[string]trace.CgroupSettings{},
		slack: int64(v1SampleEvery), moves: map[trace.TID][]v1Move{}, procMoves: map[trace.PID][]v1Move{},
		mountRoot: g.mounts.V1CPURoot}
	// The watcher starts before the first reading: a move after it is
	// seen by one or the other.
	cgFile := filepath.Join(g.proc, "cgroups")
	if h := v1CPUHierarchy(cgFile); h <= 0 {
		s.watchErr = "the cpu controller's hierarchy id is not in " + cgFile
	} else if w, err := openMoveWatcher(h); err != nil {
		s.watchErr = err.Error()
	} else {
		s.w, s.exact = w, true
	}
	prev, took := s.sample()
	go func() {
		for {
			select {
			case <-stop:
				s.mu.Lock()
				s.stopped = true
				if s.w != nil {
					s.drainMoves()
					s.w.close()
					s.w = nil
				}
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
	// The moves up to now: a move before now is in the ring buffer by
	// the time the reading ends.
	s.drainMoves()
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

// drainMoves reads the watcher's moves (s.mu held).
func (s *v1Sampler) drainMoves() {
	if s.w == nil {
		return
	}
	if lost := s.w.drain(s.addMove); lost > 0 && s.exact {
		s.exact = false
		s.watchErr = fmt.Sprintf("%d moves between groups did not fit the ring buffer", lost)
	}
}

// group returns the v1 cpu group task tid of process pid (0: unknown) was
// in at time t (trace clock): "/" when its last recorded move before t was
// to the root group, "" when none is known.
func (s *v1Sampler) group(tid trace.TID, pid trace.PID, t int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Before its first move (or without any), the readings place a task
	// whose moves are all known: every reading before that move lists
	// it in the same group.
	before := int64(math.MaxInt64)
	if s.exact {
		m1, f1 := lastMove(s.moves[tid], t)
		if pid <= 0 {
			pid = trace.PID(tid) // a process's leader
		}
		m2, f2 := lastMove(s.procMoves[pid], t)
		if m2 != nil && (m1 == nil || m2.time > m1.time) {
			m1 = m2
		}
		if m1 != nil {
			return m1.path
		}
		before = min(f1, f2)
	}
	best, dist := "", int64(-1)
	for _, sp := range s.spans[tid] {
		if sp.first >= before {
			break // read after it moved
		}
		var d int64
		switch {
		case t < sp.first:
			d = sp.first - t
		case t > sp.last:
			d = t - sp.last
		}
		// With every move known, a reading before the task's first move
		// places it at any distance; without, only within the longest
		// interval between readings.
		if (s.exact || d <= s.slack) && (dist < 0 || d < dist) {
			best, dist = sp.path, d
		}
	}
	return best
}

// movedWithin reports whether the watcher saw task tid (of process pid)
// move between groups in (from, to]; ok false when moves are not followed.
func (s *v1Sampler) movedWithin(tid trace.TID, pid trace.PID, from, to int64) (moved, ok bool) {
	s.mu.Lock()
	exact := s.exact
	s.mu.Unlock()
	return len(s.movesWithin(tid, pid, from, to)) > 0, exact
}

// movesWithin returns the times of the watcher's moves of task tid (of
// process pid) in (from, to], in order; none when moves are not followed
// (s.exact false) or there are none.
func (s *v1Sampler) movesWithin(tid trace.TID, pid trace.PID, from, to int64) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exact {
		return nil
	}
	if pid <= 0 {
		pid = trace.PID(tid)
	}
	var at []int64
	for _, ms := range [][]v1Move{s.moves[tid], s.procMoves[pid]} {
		for _, m := range ms {
			if m.time > from && m.time <= to {
				at = append(at, m.time)
			}
		}
	}
	slices.Sort(at)
	return at
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
	// in is, per CPU, the task its last sched_switch switched in and
	// when; splits, after rewrite of a sched_switch, the
	// trace.KindCgroupMove events to write before it: one per move
	// between groups within the run it ends (a running task moves
	// without a switch), in time order.
	in     map[trace.CPU]v1In
	splits []trace.Event
	// v2 is each task's cgroup v2 id as its last sched_switch out carried
	// it (before rewrite), or, until it has one, its parent's at its
	// fork: the group a move took a task out of when no reading placed
	// it in a v1 group (the root's tasks are named by their v2 group).
	// The switch that ends the run is no witness: cgrun moves the task
	// in cgroup2 too, right after the v1 write, so that switch names
	// the new group there as well (new-user pass 22 F1: cgrun's run
	// before its exec counted in the group it moved to).
	v2 map[trace.TID]uint64
}

// v1In is a CPU's last switch-in.
type v1In struct {
	tid trace.TID
	at  int64
}

func newV1Attrib(s *v1Sampler) *v1Attrib {
	if s == nil {
		return nil
	}
	return &v1Attrib{s: s, ids: map[string]uint64{}, paths: map[uint64]string{}, forked: map[trace.TID]string{},
		in: map[trace.CPU]v1In{}, v2: map[trace.TID]uint64{}}
}

// groupOf returns the group task tid was in at time t: the sampler's, or,
// when no reading lists it near t, the group it was born in. A child
// starts in its parent's cgroup (cgroup_post_fork, kernel/cgroup/cgroup.c
// v6.12), and a short-lived thread or child ends before the 100 ms
// readings list it: 197 of 203 threads of a grouped process read as in
// the root group.
func (a *v1Attrib) groupOf(tid trace.TID, pid trace.PID, t int64) string {
	if path := a.s.group(tid, pid, t); path != "" {
		return path
	}
	return a.forked[tid]
}

// rewrite sets the cgroup id of a switch to that of the v1 cpu group of
// the task leaving the CPU when the sampler saw it in a non-root group
// then (or its parent was, when it forked); other events and other tasks
// keep the v2 id. A fork notes the child's group.
func (a *v1Attrib) rewrite(e *trace.Event) {
	if a == nil {
		return
	}
	if e.Kind == trace.KindSwitch && e.TID <= 0 {
		a.in[e.CPU] = v1In{e.NextTID, e.Time} // out of idle
	}
	if e.TID <= 0 {
		return
	}
	if e.Kind == trace.KindExit {
		delete(a.v2, e.TID)
		return
	}
	if e.Kind == trace.KindFork && e.ChildTID > 0 {
		if id, ok := a.v2[e.TID]; ok {
			a.v2[e.ChildTID] = id
		} else {
			delete(a.v2, e.ChildTID) // (a reused TID)
		}
		a.s.awaitReading(e.Time)
		if path := a.groupOf(e.TID, e.PID, e.Time); path != "" {
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
	a.splits = a.splits[:0]
	if in, ok := a.in[e.CPU]; ok && in.tid == e.TID {
		// The moves within the run: a KindCgroupMove each, naming the
		// group the run was in before it (the root group's: the task's
		// cgroup v2 id before the run, v2, else the switch's own).
		for _, m := range a.s.movesWithin(e.TID, e.PID, in.at, e.Time) {
			id := e.Cgroup
			if v, ok := a.v2[e.TID]; ok && v != 0 {
				id = v
			}
			if path := a.groupOf(e.TID, e.PID, m-1); path != "" {
				id = a.idOf(path)
			}
			if id == 0 {
				continue
			}
			mv := trace.NewEvent(e.Time, e.CPU, trace.KindCgroupMove)
			mv.CurTID, mv.CurPID, mv.TID, mv.PID, mv.Comm = e.TID, e.PID, e.TID, e.PID, e.Comm
			mv.Runtime, mv.Cgroup = e.Time-m, id
			a.splits = append(a.splits, mv)
		}
	}
	a.in[e.CPU] = v1In{e.NextTID, e.Time}
	if e.Cgroup != 0 {
		a.v2[e.TID] = e.Cgroup
	}
	if path := a.groupOf(e.TID, e.PID, e.Time); path != "" {
		e.Cgroup = a.idOf(path)
	}
}

// idOf returns the id of group path in this file (its sampler's, the
// same in every file of the recording: v1Sampler.idOf).
// The root group ("/", a task moved back there) is the cgroup v2 root's
// id, trace.RootCgroupID: with the cpu controller on v1, the task's cgroup
// v2 group does not schedule it.
func (a *v1Attrib) idOf(path string) uint64 {
	if path == "/" {
		a.paths[trace.RootCgroupID] = "/"
		return trace.RootCgroupID
	}
	id, ok := a.ids[path]
	if !ok {
		id = a.s.idOf(path)
		a.ids[path], a.paths[id] = id, path
	}
	return id
}

// idOf returns the id of non-root group path: V1CgroupIDBit with a number
// from 1, in the order the recording met the groups. Each file numbered
// them its own way before, so a series' files gave one id to different
// groups, which a series read as one mixed up (new-user pass 52 F2; the
// readers now match ids by path, trace.Concat, which files recorded
// before this still need).
func (s *v1Sampler) idOf(path string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]uint64{}
	}
	id, ok := s.ids[path]
	if !ok {
		id = V1CgroupIDBit | uint64(len(s.ids)+1)
		s.ids[path] = id
	}
	return id
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
	s := startV1Sampler(&groupReader{mounts: mounts, proc: "/proc"}, stop)
	if s == nil {
		return nil
	}
	return &V1Groups{s: s, stop: stop}
}

// Group returns the v1 cpu group (its path in the hierarchy) that task tid
// was in at time t (CLOCK_MONOTONIC ns): as the reading nearest t listed
// it, within the longest interval between two readings, or as its last
// move before t put it ("/" when that move was to the root group); ""
// when none (the root group, or not seen). It first waits, as record does
// (awaitReading, v1WaitMax at most), for a reading at or after t: a
// sampler slowed by load had not read the groups near the end of top's
// window, and a task spinning in a group all along was shown in the root
// (TestTopV1CgroupRows under the full test run's load).
func (v *V1Groups) Group(tid trace.TID, pid trace.PID, t int64) string {
	if v == nil {
		return ""
	}
	v.s.awaitReading(t)
	return v.s.group(tid, pid, t)
}

// Moved reports whether task tid (of process pid, 0 unknown) moved from one
// v1 cpu group to another in (from, to] (CLOCK_MONOTONIC ns); ok false
// when the moves are not followed (Exact says why).
func (v *V1Groups) Moved(tid trace.TID, pid trace.PID, from, to int64) (moved, ok bool) {
	if v == nil {
		return false, false
	}
	v.s.awaitReading(to)
	return v.s.movedWithin(tid, pid, from, to)
}

// Exact returns "" when every move between groups is followed to its
// nanosecond (the cgroup_attach_task program), else why not: then a
// task is placed in a group as the readings every 100 ms list it.
func (v *V1Groups) Exact() string {
	if v == nil {
		return ""
	}
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	return v.s.watchErr
}

// Stop ends the readings.
func (v *V1Groups) Stop() {
	if v != nil {
		close(v.stop)
	}
}
