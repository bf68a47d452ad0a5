// Autogroups and CPU affinity while a capture runs: with kernel.sched_autogroup_enabled on,
// setsid(2) puts a process of the root cpu group in a new autogroup
// (sched_autogroup_create_attach, kernel/sched/autogroup.c v6.18), a task
// group of its own whose weight its nice sets (/proc/PID/autogroup). The
// start snapshot (groupReader.snapshot) reads the processes alive then; a
// sampler reads each process that appears later once, within
// v1SampleEvery of its start, and follows each autogroup's nice, so that
// a session started during the capture (a `setsid` in the traced command)
// is recorded with its weight (new-user pass 25 F1 and F2: replay ran such
// a session of nice 5 at weight 100 and missed its self-replay by 2x). The
// same reading takes each process's Cpus_allowed_list: a trace cannot tell
// tasks pinned by taskset from ones the balancer left where they were
// (new-user pass 26 F2: two hogs pinned to CPU 1 beside a free one).

package ebpf

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traceview/traceview/trace"
)

// agFollow is how long after the sampler first reads a process it reads
// it again, in ns: 1 s. A process changes its session by setsid(2), which
// setsid(1) and daemons call as they start (setsid(1) right before its
// exec: a reading between its fork and that call finds the parent's
// session); later calls are not followed, so that a machine's long-lived
// processes cost one reading each.
const agFollow = int64(time.Second)

// procSampler follows the autogroups of the processes in the root cpu
// group, and each process's CPU affinity.
type procSampler struct {
	g  *groupReader
	mu sync.Mutex
	// of is each process's autogroup path as first read ("" when it is
	// not in one: in a non-root cpu group, or the kernel's default
	// autogroup, which /proc does not show).
	of map[trace.PID]string
	// seen is when each process was first read (trace clock): it is
	// read again for agFollow after that.
	seen map[trace.PID]int64
	// rep is a process of each autogroup, whose file tells its nice;
	// readings are each autogroup's first reading and every change of
	// its nice after it (Time: the trace clock then).
	rep      map[string]trace.PID
	readings []trace.CgroupSettings
	nice     map[string]int
	// affinity is each process's CPU affinity (Cpus_allowed_list of
	// /proc/PID/status, its main thread's), read with its autogroup; every
	// CPU too, so that replay knows a process free to run anywhere from
	// one it did not read (new-user pass 82 F1: a workload that ran on one
	// CPU while another job held the other was inferred pinned there).
	affinity map[trace.PID]string
	// readAt is when each process's affinity was last read (trace
	// clock).
	readAt map[trace.PID]int64
}

// startProcSampler reads every process once and then, every
// v1SampleEvery (or 20 times a reading's duration, when longer) until stop
// is closed, the processes new since (their CPU affinity, and their
// autogroup when autogroup is on) and the nice of each autogroup. nil
// without a reader.
func startProcSampler(g *groupReader, stop <-chan struct{}) *procSampler {
	if g == nil {
		return nil
	}
	s := newProcSampler(g)
	s.sample(monotonicNow())
	// The first reading reads every process; the later ones read only
	// the processes of the last second and the autogroups, so the
	// first's duration does not set their interval (under a loaded CI
	// run it stretched the first interval past a short-lived session's
	// setsid and exit).
	go sampleEvery(stop, 0, s.sample)
	return s
}

// sampleEvery calls sample with the trace clock every v1SampleEvery, or 20
// times the last call's duration (took, at first) when that is longer, so
// that a sampler takes at most ~5 % of a CPU, but at least every
// sampleAtMost, until stop is closed.
func sampleEvery(stop <-chan struct{}, took time.Duration, sample func(now int64) time.Duration) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(min(max(v1SampleEvery, 20*took), sampleAtMost)):
		}
		took = sample(monotonicNow())
	}
}

// sampleAtMost bounds the stretched interval of sampleEvery: 1 s, so that
// a setting changed during a capture is dated within a second however
// slow one reading was (a reading that took 30 ms on a loaded machine
// stretched the interval to 600 ms, and a change made 0.5 s before the
// group's last switch was read after it: TestRecordV1QuotaChangeDated in
// a CI run). A reading slower than 50 ms then takes more than 5 % of a
// CPU.
const sampleAtMost = time.Second

func newProcSampler(g *groupReader) *procSampler {
	return &procSampler{g: g, of: map[trace.PID]string{}, seen: map[trace.PID]int64{}, rep: map[string]trace.PID{}, nice: map[string]int{},
		affinity: map[trace.PID]string{}, readAt: map[trace.PID]int64{}}
}

// sample reads the processes not read before and each autogroup's nice
// at now (trace clock), and returns how long that took.
func (s *procSampler) sample(now int64) time.Duration {
	t0 := time.Now()
	_, v1 := s.g.dir("/")
	ents, _ := os.ReadDir(s.g.proc)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n <= 0 {
			continue
		}
		pid := trace.PID(n)
		if seen, ok := s.seen[pid]; ok && now-seen > agFollow {
			continue
		}
		grp, ok := procCPUGroup(s.g.proc, pid, v1)
		if !ok {
			continue // gone
		}
		if _, ok := s.seen[pid]; !ok {
			s.seen[pid] = now
		}
		if l, ok := readAffinity(s.g.proc, pid); ok {
			s.affinity[pid], s.readAt[pid] = l, now
		}
		path := ""
		if grp == "/" && s.g.autogroup {
			if a, ok := ReadAutogroup(s.g.proc, pid); ok {
				path = a.Path
				if _, known := s.rep[path]; !known {
					s.rep[path] = pid
					s.nice[path] = a.Nice
					a.Time = now
					s.addReading(a)
				}
			}
		}
		s.of[pid] = path
	}
	for path, pid := range s.rep {
		a, ok := ReadAutogroup(s.g.proc, pid)
		if !ok || a.Path != path {
			// Its process is gone (or left the session): another one
			// of the session, if any, is read from now on.
			delete(s.rep, path)
			for p, ap := range s.of {
				if ap == path && p != pid {
					if a, ok = ReadAutogroup(s.g.proc, p); ok && a.Path == path {
						s.rep[path] = p
						break
					}
				}
			}
			if s.rep[path] == 0 {
				delete(s.rep, path)
				continue
			}
		}
		if a.Nice != s.nice[path] {
			s.nice[path] = a.Nice
			a.Time = now
			s.addReading(a)
		}
	}
	return time.Since(t0)
}

// addReading appends autogroup reading a, or, when this pass (a.Time)
// already read the group, replaces that reading: two readings at one time
// cannot both hold, and the later read is the newer (new-user pass 85 F5:
// a session read at nice 0 as first seen and at nice 5 by the same pass,
// both stamped with its time, made "weight changed ... 100 (read at
// 14811.072246 s), 33 (read at 14811.072246 s)").
func (s *procSampler) addReading(a trace.CgroupSettings) {
	for i := len(s.readings) - 1; i >= 0 && s.readings[i].Time == a.Time; i-- {
		if s.readings[i].Path == a.Path {
			s.readings[i] = a
			return
		}
	}
	s.readings = append(s.readings, a)
}

// readAffinity reads Cpus_allowed_list of /proc/PID/status under proc
// ("0", "0-3,6"): the CPUs the process's main thread may run on
// (sched_setaffinity, taskset). ok is false when the file is gone or
// has no such line.
func readAffinity(proc string, pid trace.PID) (string, bool) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(int(pid)), "status"))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// affinityFor returns the recorded CPU affinity of the processes pids
// (nil: none read, or no sampler), but for a process whose last reading
// came before its last exec (execAt, trace clock): `taskset -c 1 CMD`
// sets the mask between its fork and the exec of CMD, and a process read
// at its fork (a sampler interval stretched to 1 s on a loaded machine
// read it only then) had the parent's mask, every CPU, which undid the
// pinning replay inferred (new-user pass 82's fix; pass 84 F2: a
// taskset-pinned hog spread over 4 CPUs).
func (s *procSampler) affinityFor(pids map[trace.PID]bool, execAt map[trace.PID]int64) map[trace.PID]string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out map[trace.PID]string
	for pid := range pids {
		l, ok := s.affinity[pid]
		if !ok || s.readAt[pid] < execAt[pid] {
			continue
		}
		if out == nil {
			out = map[trace.PID]string{}
		}
		out[pid] = l
	}
	return out
}

// forFile returns the autogroups of the processes pids (those of one
// file) as the sampler read them, and the readings of those autogroups in
// time order. A nil sampler gives nothing.
// autogroupOf returns the autogroup path read for process pid ("" not
// read, or not in one).
func (s *procSampler) autogroupOf(pid trace.PID) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.of[pid]
}

func (s *procSampler) forFile(pids map[trace.PID]bool) (map[trace.PID]string, []trace.CgroupSettings) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	of := map[trace.PID]string{}
	used := map[string]bool{}
	for pid := range pids {
		if p := s.of[pid]; p != "" {
			of[pid] = p
			used[p] = true
		}
	}
	var rs []trace.CgroupSettings
	for _, r := range s.readings {
		if used[r.Path] {
			rs = append(rs, r)
		}
	}
	return of, rs
}
