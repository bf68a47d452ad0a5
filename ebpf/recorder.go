package ebpf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tvf"
)

// ErrAborted is returned by Recorder.Run when RecordConfig.Abort closes: the
// capture stopped without draining what the backlog still held; the files
// written so far are closed with their trailers.
var ErrAborted = errors.New("capture aborted")

// RecordConfig says where a Recorder writes a capture.
type RecordConfig struct {
	// Path is the output file (created with mode 0600). With RotateBytes,
	// RotateEvery or Ring it is the base name of a numbered series:
	// NumberedPath(Path, 1), NumberedPath(Path, 2), ...
	Path string
	// Out receives the single trace when Path is "" (record -o -).
	Out io.Writer
	// Header is the header of every file written (the Tool, host and
	// command line); RecordHeader makes one.
	Header tvf.Header
	// Proc is the /proc mount whose threads name the tasks at the start of
	// each file ("" means /proc).
	Proc string
	// CgroupRoot is the cgroup v2 mount the cgroup ids are resolved under
	// at the end of each file ("" means CgroupRoot()).
	CgroupRoot string
	// CgroupMounts are where the task groups' CPU-controller settings are
	// read (trace.Meta.CgroupSettings, CgroupStats) when each file starts
	// and ends; nil means FindCgroupMounts of /proc/self/mountinfo, with
	// CgroupRoot as V2 when it is given. A zero CgroupMounts reads none
	// (the autogroups of Proc's tasks still).
	CgroupMounts *CgroupMounts
	// RotateBytes, when > 0, starts the next file of the series before
	// a file would hold more than this many bytes (sizeCut: a file ends
	// at most about one block, RotateBytes/blockShare, beyond it).
	RotateBytes int64
	// RotateEvery, when > 0, starts the next file once a file spans this
	// much trace time.
	RotateEvery time.Duration
	// Ring, when set, makes the capture a flight recorder: nothing is
	// written until a dump is triggered (see RingConfig).
	Ring *RingConfig
	// Abort, when closed, stops Run at once (a second Ctrl-C): the
	// backlog is not drained; the files are closed; Run returns
	// ErrAborted.
	Abort <-chan struct{}
	// Log, when set, gets one line per file written (ring dumps, rotation).
	Log io.Writer
	// CloseWarnings, when set, is called as each file is closed, before
	// its trailer is written: warnings of the file that only the caller
	// knows (record: the traced command still running when --duration
	// ended the capture), nil for none.
	CloseWarnings func() []trace.Warning
}

// Summary is what a Recorder wrote.
type Summary struct {
	Files   []string      // the files written, in order ("" for Out)
	Events  uint64        // events written, all files together
	Bytes   int64         // bytes written
	Lost    []uint64      // records lost per CPU (index: CPU) while recording
	Elapsed time.Duration // wall time from the capture's attach (or Run's start) to Run's end
	// Stopped is the wall time from the same start to its context's end
	// (--duration, a signal, the command's exit; 0 when the capture ended
	// otherwise); Elapsed - Stopped is the time spent writing out what the
	// buffers and the backlog held then.
	Stopped time.Duration
	// Dumps counts the ring dumps written and Evicted the ring's batches
	// dropped to keep it within its bounds (not losses: the ring only
	// ever holds the last part of the capture).
	Dumps, Evicted int
	// RecursionMisses: scheduler events the kernel did not hand the
	// capture's programs (Capture.RecursionMisses), in all files.
	RecursionMisses uint64
	// Hotplug are the capture's warnings of CPUs that went offline or
	// came online while it ran (checkHotplug), for the summary line.
	Hotplug []trace.Warning
}

// Recorder writes a Capture into traceview's format (trace/tvf): one file,
// a rotated series, or the dumps of a flight-recorder ring.
type Recorder struct {
	c      *Capture
	cfg    RecordConfig
	sum    Summary
	groups *groupReader
	// stopStats holds the groups' cpu.stat read when the capture was told
	// to stop (ctx done), before the buffered events are drained and the
	// file written (which takes most of a second on a busy machine): the
	// last file's closing reading, so that its counters cover the time
	// its events do.
	stopMu    sync.Mutex
	stopStats map[string]trace.CgroupStat
	// v1 follows the tasks of the v1 cpu groups from NewRecorder to the
	// end of Run (nil without a v1 cpu hierarchy); closing stopV1 stops
	// it.
	v1     *v1Sampler
	stopV1 chan struct{}
	// procs follows the autogroups and CPU affinity of processes, also
	// those that start during the capture; stopV1 stops it too.
	procs *procSampler
	// settings follows the groups' settings, to date their changes;
	// stopV1 stops it too.
	settings *settingsSampler
}

// NewRecorder returns a recorder of c configured by cfg. Stacks
// (Options.Stacks) need a single file: with rotation or a ring they are an
// error.
func NewRecorder(c *Capture, cfg RecordConfig) (*Recorder, error) {
	if cfg.Path == "" && cfg.Out == nil {
		return nil, errors.New("record: no output")
	}
	series := cfg.RotateBytes > 0 || cfg.RotateEvery > 0 || cfg.Ring != nil
	if series && cfg.Path == "" {
		return nil, errors.New("record: rotation and --ring write numbered files: give a file name, not standard output")
	}
	if series && c.opts.Stacks {
		return nil, errors.New("record: --stacks needs a single file (the stack table is read at the end of the capture)")
	}
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	if cfg.CgroupMounts == nil {
		m := FindCgroupMounts("/proc/self/mountinfo")
		if cfg.CgroupRoot != "" {
			m.V2 = cfg.CgroupRoot
		}
		cfg.CgroupMounts = &m
	}
	if cfg.CgroupRoot == "" {
		cfg.CgroupRoot = CgroupRoot()
	}
	groups := &groupReader{mounts: *cfg.CgroupMounts, proc: cfg.Proc, autogroup: cfg.Header.Autogroup > 0}
	r := &Recorder{c: c, cfg: cfg, groups: groups, stopV1: make(chan struct{})}
	// The v1 groups' tasks, and the moves between them, are followed from
	// now, before the caller starts the command: a move in its first
	// milliseconds (cgrun writes cgroup.procs before it execs) was missed
	// when they started with Run, and the run before it counted whole
	// in the group it moved to.
	r.v1 = startV1Sampler(r.groups, r.stopV1)
	r.procs = startProcSampler(r.groups, r.stopV1)
	r.settings = startSettingsSampler(r.groups, r.stopV1)
	return r, nil
}

// NumberedPath returns the n-th file name of the series based on path:
// "t.tv" gives "t.001.tv", "t" gives "t.001"; beyond 999 the number
// widens.
func NumberedPath(path string, n int) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%03d%s", strings.TrimSuffix(path, ext), n, ext)
}

// Run records until ctx is done (or Abort), then writes what is left and
// closes every file. Errors are those of the capture, of the files, or
// ErrAborted; the summary covers what was written in every case.
func (r *Recorder) Run(ctx context.Context) (Summary, error) {
	// From the programs' attach, where the trace begins, when it came
	// first: the stop was timed from Run's start, 45-185 ms after it, and
	// read shorter than the span of the events (new-user pass 67 F1:
	// "stopped after 2.897 s" of a -d 3s capture spanning 2990 ms).
	start := time.Now()
	if at := r.c.Attached(); !at.IsZero() && at.Before(start) {
		start = at
	}
	runDone := make(chan struct{})
	stoppedAt := make(chan time.Duration, 1)
	go func() {
		select {
		case <-ctx.Done():
			stoppedAt <- time.Since(start)
		case <-runDone:
			stoppedAt <- 0
		}
	}()
	defer close(r.stopV1)
	var err error
	if r.cfg.Ring != nil {
		err = r.runRing(ctx)
	} else {
		err = r.runFiles(ctx)
	}
	r.sum.Elapsed = time.Since(start)
	close(runDone)
	r.sum.Stopped = <-stoppedAt
	r.sum.Lost = r.c.Lost()
	for _, w := range r.c.Warnings() {
		if w.Key == "cpu-offline" || w.Key == "cpu-online" {
			r.sum.Hotplug = append(r.sum.Hotplug, w)
		}
	}
	return r.sum, err
}

func (r *Recorder) aborted() bool {
	if r.cfg.Abort == nil {
		return false
	}
	select {
	case <-r.cfg.Abort:
		return true
	default:
		return false
	}
}

// runFiles writes the capture into one file or a rotated series.
func (r *Recorder) runFiles(ctx context.Context) error {
	series := r.cfg.RotateBytes > 0 || r.cfg.RotateEvery > 0
	n := 0
	next := func() (*segment, error) {
		if !series {
			return r.openSegment(r.cfg.Path, r.cfg.Header)
		}
		n++
		return r.openSegment(NumberedPath(r.cfg.Path, n), r.cfg.Header)
	}
	seg, err := next()
	if err != nil {
		return err
	}
	// A --rotate DURATION series is cut at t0 + k × period on the
	// capture's clock (CLOCK_MONOTONIC, as bpf_ktime_get_ns), where t0 is
	// when the first program was being attached, and each file's CPUs are kicked on the wall
	// clock at those times: the kick at each rotation runs when the
	// decoder reaches the boundary, which lags the capture under load
	// (its switches fell in the next file: TestRecordKicksEachCPU beside
	// a loaded test run, two files of five without one), and a kick every
	// half period from the start trailed the boundaries, which moved with
	// each file's first event: a task running alone on a CPU lost 62-92 ms
	// of each later file, before the CPU's first switch (new-user pass 55
	// F1: 1932.3 ms of the kernel's 1998.1 in a 2 s file). A kick at the
	// boundary's time switches after it, in the new file.
	t0 := r.c.Attaching() // (no event is earlier: the first file spans at most the period)
	nextCut := int64(0)
	r.kick(seg)
	if series && r.cfg.RotateEvery > 0 {
		nextCut = t0 + int64(r.cfg.RotateEvery)
		stopKicks := make(chan struct{})
		defer close(stopKicks)
		go r.kickAtCuts(t0, r.cfg.RotateEvery, stopKicks)
	}
	// The groups of the first file's start, read again as the capture
	// stops.
	stopped := make(chan struct{})
	defer close(stopped)
	go func(paths map[string]trace.CgroupSettings) {
		select {
		case <-ctx.Done():
		case <-stopped:
			return
		}
		now := monotonicNow()
		st := map[string]trace.CgroupStat{}
		for p := range paths {
			if _, s1, ok, stOK := r.groups.read(p, now); ok && stOK {
				st[p] = s1
			}
		}
		r.stopMu.Lock()
		r.stopStats = st
		r.stopMu.Unlock()
	}(seg.groups.settings)
	var cut *sizeCut // --rotate SIZE (sizeCut says where each file ends)
	full := false
	if r.cfg.RotateBytes > 0 {
		cut = newSizeCut(r.cfg.RotateBytes)
		cut.opened(seg.w)
	}
	runCtx := ctx
	if series {
		// As the capture stops, every CPU is kicked once more before the
		// buffers are drained: the last file's rotation kick runs when the
		// decoder gets there, after the stop under load. (A last file
		// that begins after this kick, from the events written while the
		// programs were stopping, may still hold none.)
		var cancelRun context.CancelFunc
		runCtx, cancelRun = context.WithCancel(context.WithoutCancel(ctx))
		defer cancelRun()
		go func() {
			select {
			case <-ctx.Done():
				kickCPUs(r.c.opts.CPUs)
			case <-runCtx.Done():
			}
			cancelRun()
		}()
	}
	var written int
	synced := time.Now()
	err = r.c.Run(runCtx, func(e trace.Event) error {
		if r.aborted() {
			return ErrAborted
		}
		if written++; written%1024 == 0 && time.Since(synced) >= syncEvery {
			// What reached the writer goes to the file within about
			// syncEvery, so that a recorder killed hard leaves all but
			// its backlog and that much (Writer.Sync).
			if err := seg.w.Sync(); err != nil {
				return err
			}
			synced = time.Now()
		}
		// Once the capture stops (ctx done: -d, a signal), the files
		// still rotate by size but are not kicked: each kick's switches
		// are events the drain then reads, so a small SIZE rotated on
		// the kicks' own events and the drain never ended (new-user
		// pass 111 F6: -d 1s and SIGTERM ignored). Without a kick the
		// drain ends with the backlog (the programs stop as it begins).
		// (The backlog after the stop went into one file instead, past
		// SIZE: 93.6 KB of a 64K series after perf bench sched pipe,
		// new-user pass 113 F8.)
		if series && e.Time > 0 && seg.first > 0 &&
			(full || (r.cfg.RotateEvery > 0 && e.Time >= nextCut)) {
			bound := seg.lastTime() // (--rotate SIZE: where the file ends)
			for nextCut > 0 && nextCut <= e.Time {
				bound = nextCut
				nextCut += int64(r.cfg.RotateEvery)
			}
			if r.cfg.RotateEvery > 0 {
				seg.until = bound
			}
			open := seg.stillOpen()
			if err := r.rotate(seg, cut); err != nil {
				return err
			}
			var err error
			if seg, err = next(); err != nil {
				return err
			}
			if cut != nil {
				cut.opened(seg.w)
			}
			seg.from = bound
			for _, cpu := range open {
				// Still overflowing: unobserved from the file's start
				// until perf's loss record or the CPU's next record, said
				// in the file too (a copy of it cut short).
				note := trace.NewEvent(min(bound, e.Time), cpu, trace.KindLost)
				note.Runtime = trace.OpenLoss
				if err := seg.write(note); err != nil {
					return err
				}
			}
			if ctx.Err() == nil {
				r.kick(seg)
			}
			full = false
		}
		if err := seg.write(e); err != nil || cut == nil {
			return err
		}
		var err error
		cut.trailer = seg.trailerEst
		full, err = cut.wrote(seg.w)
		return err
	})
	r.stopMu.Lock()
	seg.stopStats = r.stopStats
	r.stopMu.Unlock()
	if errors.Is(err, ErrAborted) {
		// The file ends where the writing stopped, not where the capture
		// did: its readers say so (the trailer's warnings).
		end := "before its first event"
		if t := seg.lastTime(); t > 0 {
			end = "after " + trace.FormatSeconds(t, 6) + " s"
		}
		seg.warnings = append(seg.warnings, trace.Warning{Key: "capture-aborted", Count: 1, Message: "capture: stopped by a second signal: the events the perf buffers and the backlog held then were not written, so the trace ends early, " + end + " (the capture ran longer; its events after that are missing, not idle)"})
	}
	if cerr := r.closeSegment(seg, r.c.Stacks()); err == nil {
		err = cerr
	}
	return err
}

// syncEvery is how often, at most, record hands the events it has
// encoded to the file while it captures (tvf.Writer.Sync): each time ends
// an event block early, so a file written out as the capture runs (a
// small --backlog) holds about one more block per second, a few hundred
// bytes of headers and a little less compression; a recorder killed hard
// loses at most this much of what it had encoded.
const syncEvery = time.Second

// kick makes every recorded CPU switch once as seg starts (kickCPUs), so
// that a task running on a CPU throughout the file shows in it; a CPU it
// could not reach is a warning of the file.
func (r *Recorder) kick(seg *segment) {
	if failed := kickCPUs(r.c.opts.CPUs); len(failed) > 0 {
		seg.warnings = append(seg.warnings, trace.Warning{Key: "capture-kick-failed", Count: len(failed),
			Message: fmt.Sprintf("capture: could not run a %s thread on CPUs %s as the file started (sched_setaffinity refused: a cpuset?): a task that ran there throughout the file, without a switch, has no row and the CPU's time is unknown", KickComm, cpulist.Format(failed))})
	}
}

// lastTime returns the latest event time written to s (0: none).
func (s *segment) lastTime() int64 {
	var t int64
	for _, v := range s.last {
		t = max(t, v)
	}
	return t
}

// rotate ends seg, a file of a rotated series, for the next to start;
// with cut (--rotate SIZE) it measures the file's closing frames for the
// next file's reserve.
func (r *Recorder) rotate(seg *segment, cut *sizeCut) error {
	if cut == nil {
		return r.closeSegment(seg, nil)
	}
	if err := seg.w.Flush(); err != nil {
		return err
	}
	at := seg.w.Bytes()
	if err := r.closeSegment(seg, nil); err != nil {
		return err
	}
	cut.closed(seg.w.Bytes(), at)
	cut.start()
	return nil
}

// segment is one file being written.
type segment struct {
	// stopStats: the groups' cpu.stat as the capture stopped (the last
	// file of a capture stopped by its context; nil otherwise).
	stopStats map[string]trace.CgroupStat
	path      string // "" for Out
	f         *os.File
	w         *tvf.Writer
	first     int64 // time of the first timed event (0: none yet)
	last      map[trace.CPU]int64
	windows   []trace.LostWindow
	// open is, per CPU, the time of an overflow note (trace.OpenLoss) that
	// no later event of the CPU has settled yet.
	open map[trace.CPU]int64
	// from and until are where a file of a rotated series begins and ends
	// on the capture's clock (0: not known): a --rotate DURATION file at
	// its cut times, a --rotate SIZE file from the previous file's last
	// event. A loss that began in the file before is unobserved from
	// from, one open at the file's end to until (new-user pass 87 F3: the
	// 473 ms between two files were in neither, and their losses in 0 ns
	// windows at the next file's start).
	from, until int64
	cgroups     map[uint64]bool
	// groups is the task groups as the file started; pids the processes
	// its switches name, whose groups finish reads again at the end.
	groups *groupSnapshot
	pids   map[trace.PID]bool
	// trailerEst estimates the bytes the trailer's per-process tables
	// (task_autogroups, task_affinity) take for pids (trailerBytes).
	trailerEst int64
	// execAt is each process's last exec (sched_process_exec) time in the
	// file: an affinity read before it may predate the taskset that ran
	// the program (procSampler.affinityFor).
	execAt map[trace.PID]int64
	// v1 attributes tasks to their cgroup v1 cpu groups (nil without a v1
	// cpu hierarchy).
	v1 *v1Attrib
	// warnings of this file beyond the capture's (Capture.Warnings).
	warnings []trace.Warning
	// irqUnknown counts the wakings written without a known interrupt
	// context.
	irqUnknown int
	// names is the name each task has in this file so far (its /proc
	// name, COMM, exec and fork records): a task that shows up under
	// another name gets a comm event first (write).
	names trace.CommTracker
	// cgRoot is the cgroup v2 mount, cg2 its groups as last read
	// (allCgroups) at cg2Read, and procs the processes' autogroups: what
	// nameGroups writes down as the events first name them.
	cgRoot  string
	cg2     map[uint64]string
	cg2Read time.Time
	procs   *procSampler
}

// nameCgroup notes in the file (tvf.Writer.AddGroups) the path of cgroup
// id, which an event names for the first time in it: a v1 group's from
// its attribution, a v2 group's from the cgroup tree (read again when it
// lacks the id, at most once a second). The trailer names every group
// at the end; these are for a file cut short (new-user pass 70 F3).
func (s *segment) nameCgroup(id uint64) {
	var p string
	if id&V1CgroupIDBit != 0 {
		if s.v1 != nil {
			p = s.v1.paths[id]
		}
	} else {
		var ok bool
		if p, ok = s.cg2[id]; !ok && time.Since(s.cg2Read) >= time.Second {
			s.cg2, s.cg2Read = allCgroups(s.cgRoot), time.Now()
			p = s.cg2[id]
		}
	}
	if p != "" {
		s.w.AddGroups(map[uint64]string{id: p}, nil)
	}
}

// namePID notes in the file the autogroup of process pid, which an event
// names for the first time in it, when it has been read (procSampler).
func (s *segment) namePID(pid trace.PID) {
	if s.pids[pid] {
		return
	}
	s.pids[pid] = true
	s.trailerEst += trailerBytes(pid)
	if p := s.procs.autogroupOf(pid); p != "" {
		s.w.AddGroups(nil, map[trace.PID]string{pid: p})
	}
}

// trailerBytes estimates the bytes of a process's entries in a file's
// trailer: `"PID":"/autogroup-N",` in task_autogroups and `"PID":"CPUS",`
// in task_affinity, each its PID's digits and 6 bytes of quotes and
// punctuation, and 18 for the two values (the trailers of a fork-heavy
// capture of this VM, perf bench sched messaging -g 10, measured 37.1 to
// 37.4 bytes per process: "/autogroup-2" and "0-1"). record --rotate
// SIZE reserves them (sizeCut.trailer): a series' first file, reserving
// only its opening task table and closeMargin, ended 72,174 bytes for a
// 64K limit with a 14 KB trailer (new-user pass 114 F5).
func trailerBytes(pid trace.PID) int64 {
	digits := int64(len(strconv.Itoa(int(pid))))
	return 2*(digits+6) + 18
}

// CreateOutput creates (or truncates) path for a trace with mode 0600 (a
// trace shows every command run on the machine), also when a regular file
// existed there with a wider mode.
func CreateOutput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm() != 0o600 {
		// Not a device such as /dev/null, which must keep its mode.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// openSegment starts a file (or Out when path is "") with header h and the
// names of the threads of /proc.
func (r *Recorder) openSegment(path string, h tvf.Header) (*segment, error) {
	s := &segment{path: path, last: map[trace.CPU]int64{}, cgroups: map[uint64]bool{}, pids: map[trace.PID]bool{}, execAt: map[trace.PID]int64{},
		cgRoot: r.cfg.CgroupRoot, procs: r.procs}
	s.groups = r.groups.snapshot(monotonicNow())
	s.v1 = newV1Attrib(r.v1)
	out := r.cfg.Out
	name := path
	if path == "" {
		name = "standard output"
	} else {
		f, err := CreateOutput(path)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		s.f, out = f, f
	}
	w, err := tvf.NewWriter(out, h)
	if err == nil {
		err = addProcTasks(w, r.cfg.Proc, &s.names)
	}
	if err != nil {
		if s.f != nil {
			s.f.Close()
		}
		return nil, fmt.Errorf("record: %s: %w", name, err)
	}
	s.w = w
	return s, nil
}

// write adds e to the file, noting its loss windows (from the CPU's last
// event to the loss) and cgroups.
func (s *segment) write(e trace.Event) error {
	s.v1.rewrite(&e)
	if s.v1 != nil && e.Kind == trace.KindSwitch {
		// The moves within the run the switch ends, right before it.
		for _, mv := range s.v1.splits {
			if !s.cgroups[mv.Cgroup] {
				s.cgroups[mv.Cgroup] = true
				s.nameCgroup(mv.Cgroup)
			}
			if err := s.w.Write(mv); err != nil {
				return err
			}
		}
	}
	if e.Cgroup != 0 && !s.cgroups[e.Cgroup] {
		s.cgroups[e.Cgroup] = true
		s.nameCgroup(e.Cgroup)
	}
	if s.first == 0 && e.Time > 0 {
		s.first = e.Time
	}
	if e.Kind == trace.KindSwitch {
		if e.PID > 0 {
			s.namePID(e.PID)
		}
		if e.NextPID > 0 {
			s.namePID(e.NextPID)
		}
	}
	if e.Kind == trace.KindWaking && e.FromIRQ == trace.Unknown {
		s.irqUnknown++
	}
	if e.Kind == trace.KindExec && e.PID > 0 {
		s.execAt[e.PID] = max(s.execAt[e.PID], e.Time)
	}
	if trace.IsOpenLoss(&e) {
		if _, ok := s.open[e.CPU]; !ok {
			if s.open == nil {
				s.open = map[trace.CPU]int64{}
			}
			s.open[e.CPU] = e.Time
		}
	} else if e.Kind == trace.KindLost {
		delete(s.open, e.CPU)
		from, ok := s.last[e.CPU]
		if !ok {
			// The CPU's last event was in an earlier file: the loss
			// began before this one did (a CPU offline across a
			// rotation: new-user pass 44 F1).
			from = s.first
			if s.from > 0 {
				from = min(s.from, e.Time)
			}
		}
		s.windows = append(s.windows, trace.LostWindow{CPU: e.CPU, Count: e.Count, Start: from, End: e.Time})
	} else {
		delete(s.open, e.CPU) // (a record of the CPU before any loss record: nothing was lost)
		s.last[e.CPU] = e.Time
	}
	// A file of a rotated series or a ring dump starts after the exec and
	// fork records of tasks alive then, and its /proc names are read when
	// the file is opened, which is when the held-back records are decoded,
	// maybe after such a task has exited: without a comm event of its own
	// the reports would name it ":TID" while its events carry its name.
	var named [2]trace.Event
	for _, c := range named[:s.names.Changes(&e, &named)] {
		if err := s.w.Write(c); err != nil {
			return err
		}
	}
	return s.w.Write(e)
}

// closeSegment writes the trailer (loss windows, cgroup paths and
// settings, stacks) and
// closes the file, adding it to the summary.
func (r *Recorder) closeSegment(s *segment, stacks []trace.Stack) error {
	s.openWindows()
	if err := s.offlineWindows(r.c.OfflineCPUs()); err != nil {
		return err
	}
	s.w.SetLost(s.windows)
	v2 := map[uint64]bool{}
	for id := range s.cgroups {
		if id&V1CgroupIDBit == 0 {
			v2[id] = true
		}
	}
	cgroups := ResolveCgroups(r.cfg.CgroupRoot, v2)
	var first map[string]trace.CgroupSettings
	if s.v1 != nil {
		for id, p := range s.v1.paths {
			if s.cgroups[id] {
				cgroups[id] = p
			}
		}
		first = r.v1.settings()
	}
	s.w.SetCgroups(cgroups)
	// A ring dump's groups were read as it was written, after its events.
	agOf, agReadings := r.procs.forFile(s.pids)
	set, stats, taskAG := r.groups.finish(s.groups, cgroups, s.pids, monotonicNow(), r.cfg.Ring == nil, s.stopStats, first, agOf, agReadings, r.settings)
	s.w.SetCgroupSettings(set)
	s.w.SetTaskAutogroups(taskAG)
	s.w.SetTaskAffinity(r.procs.affinityFor(s.pids, s.execAt))
	s.w.SetCgroupStats(stats)
	s.w.SetStacks(stacks)
	ws := append(s.warnings, r.c.Warnings()...)
	if r.cfg.CloseWarnings != nil {
		ws = append(ws, r.cfg.CloseWarnings()...)
	}
	if m := r.c.RecursionMisses(); m > r.sum.RecursionMisses {
		// Since the last file closed: each is a scheduler event this
		// file may lack, with no loss record to say where.
		n := m - r.sum.RecursionMisses
		r.sum.RecursionMisses = m
		ws = append(ws, trace.Warning{Key: "bpf-recursion-misses", Count: int(min(n, 1<<31)), CountInMessage: true,
			Message: fmt.Sprintf("capture: the kernel skipped the recorder's programs %d times while another BPF program ran on their CPU (recursion_misses): those scheduler events are missing, with no record of where; a delay or run around them may be mis-measured", n)})
	}
	if s.v1 != nil && len(s.v1.ids) > 0 {
		s.v1.s.mu.Lock()
		why := s.v1.s.watchErr
		s.v1.s.mu.Unlock()
		if why != "" {
			ws = append(ws, trace.Warning{Key: "cgroup-v1-moves-sampled", Count: 1,
				Message: fmt.Sprintf("capture: moves between cgroup v1 cpu groups were not seen as they happened (%s): a task that changed group is placed to within the interval between readings of the groups' tasks files (100 ms or more), so up to that much of its run time may count in the group it left or joined", why)})
		}
	}
	if s.irqUnknown > 0 {
		ws = append(ws, trace.Warning{Key: "irq-context-unknown", Count: s.irqUnknown, CountInMessage: true,
			Message: fmt.Sprintf("capture: %d wakings without a known interrupt context (the waker's stack or saved registers could not be read)", s.irqUnknown)})
	}
	s.w.SetWarnings(ws)
	err := s.w.Close()
	if s.f != nil {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
	}
	r.sum.Files = append(r.sum.Files, s.path)
	// The scheduler events, as info counts them: the task records of
	// time 0 apart (new-user pass 67 F2: 14309 where info said 14213 and
	// 96 task records "not counted").
	r.sum.Events += s.w.Events() - s.w.Uncounted()
	r.sum.Bytes += s.w.Bytes()
	name := s.path
	if name == "" {
		name = "standard output"
	}
	if err != nil {
		return fmt.Errorf("record: %s: %w", name, err)
	}
	if r.cfg.Log != nil && s.path != "" && (r.cfg.Ring != nil || r.cfg.RotateBytes > 0 || r.cfg.RotateEvery > 0) {
		fmt.Fprintf(r.cfg.Log, "[ traceview record: wrote %s: %d events, %d bytes ]\n", s.path, s.w.Events()-s.w.Uncounted(), s.w.Bytes())
	}
	return nil
}

// RecordHeader returns the header of a capture by program set mode
// (Capture.Mode): this host's name, kernel release and architecture
// (uname), its online CPUs, the clock, the command line, the wall-clock
// start and kernel.sched_autogroup_enabled.
func RecordHeader(mode string) tvf.Header {
	h := tvf.Header{
		Tool:      "traceview record (" + mode + ")",
		Cmdline:   os.Args,
		NrCPUs:    runtime.NumCPU(),
		Clock:     "CLOCK_MONOTONIC (bpf_ktime_get_ns)",
		StartWall: time.Now().UnixNano(),
		Autogroup: AutogroupEnabled("/proc"),
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if l, err := cpulist.Parse(string(b)); err == nil {
			h.NrCPUs = len(l)
		}
	}
	h.NrCPUsAvail = h.NrCPUs
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Hostname = unix.ByteSliceToString(u.Nodename[:])
		h.OSRelease = unix.ByteSliceToString(u.Release[:])
		h.Arch = unix.ByteSliceToString(u.Machine[:])
	}
	return h
}

// taskCommLen is the kernel's TASK_COMM_LEN (16, include/linux/sched.h):
// task names are at most taskCommLen-1 = 15 bytes, as the sched
// tracepoints and perf's COMM records give them.
const taskCommLen = 16

// ProcComm turns the content of /proc/PID/task/TID/comm into a task name
// of at most 15 bytes, without the newline, as perf's synthesized COMM
// records hold it. The kernel's /proc comm of a kworker adds its workqueue
// ("kworker/u8:0-events_unbound", fs/proc/array.c proc_task_name via
// wq_worker_comm); cut, it becomes "kworker/u8:0-ev" like perf's, while
// the sched tracepoints give the task's own comm, "kworker/u8:0".
func ProcComm(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	if len(s) > taskCommLen-1 {
		s = s[:taskCommLen-1]
	}
	return s
}

// AddProcTasks names every thread of proc (the /proc mount) at the start of
// a file, as perf's synthesized COMM records do: a comm event (time 0,
// CPU -1, the convention of perf.data's synthesized records) per thread,
// and an entry in the task table. Threads that never rename during the
// capture (task names set by prctl before it started) get their names this
// way. Names are cut to 15 bytes (ProcComm).
func AddProcTasks(w *tvf.Writer, proc string) error {
	return addProcTasks(w, proc, nil)
}

// addProcTasks is AddProcTasks, telling names (if not nil) each name.
func addProcTasks(w *tvf.Writer, proc string, names *trace.CommTracker) error {
	comms, _ := filepath.Glob(filepath.Join(proc, "[0-9]*", "task", "[0-9]*", "comm"))
	type entry struct {
		tid  trace.TID
		pid  trace.PID
		comm string
	}
	var list []entry
	for _, p := range comms {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		taskDir := filepath.Dir(p) // proc/PID/task/TID
		tid, err1 := strconv.Atoi(filepath.Base(taskDir))
		pid, err2 := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(taskDir))))
		if err1 == nil && err2 == nil {
			list = append(list, entry{trace.TID(tid), trace.PID(pid), ProcComm(b)})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].tid < list[j].tid })
	for _, t := range list {
		w.AddTask(t.tid, t.pid, t.comm)
		e := trace.NewEvent(0, -1, trace.KindComm)
		e.TID, e.PID, e.Comm = t.tid, t.pid, t.comm
		if err := w.Write(e); err != nil {
			return err
		}
		if names != nil {
			var none [2]trace.Event
			names.Changes(&e, &none) // a comm event: remembered, nothing to add
		}
	}
	return nil
}

// stillOpen lists the CPUs whose overflow note no event has settled yet
// (in the file's next file, the loss goes on from its start).
func (s *segment) stillOpen() []trace.CPU {
	return slices.Sorted(maps.Keys(s.open))
}

// openWindows closes the overflow notes no event of their CPU followed
// (trace.OpenLoss): the CPU is unobserved from the note to the file's end
// (its cut, until, in a --rotate DURATION series; else its last event),
// its loss count unknown.
func (s *segment) openWindows() {
	s.windows = append(s.windows, trace.OpenLossWindows(s.open, max(s.lastTime(), s.until))...)
	s.open = nil
}

// offlineWindows writes, as the file closes, a loss of unknown size
// (KindLost, Count 0) at the file's last event for each CPU in cpus
// (offline, their loss not placed yet: Capture.OfflineCPUs), unless a
// window of the CPU reaches that far already: write makes its window from
// the CPU's last event in the file (the file's first when it had none), so
// the time the CPU was gone is unobserved in this file too, not a run of
// the task its last switch switched in (new-user pass 44 F1: cpuhp/1 ran
// 434 ms, the CPU 95 % busy).
func (s *segment) offlineWindows(cpus []trace.CPU) error {
	var end int64
	for _, t := range s.last {
		end = max(end, t)
	}
	for _, cpu := range cpus {
		covered := false
		for _, w := range s.windows {
			covered = covered || w.CPU == cpu && w.End >= end
		}
		if end == 0 || covered {
			continue
		}
		if err := s.write(trace.NewEvent(end, cpu, trace.KindLost)); err != nil {
			return err
		}
	}
	return nil
}

// SetCloseWarnings sets RecordConfig.CloseWarnings, for a caller that
// knows them only after NewRecorder (record starts the traced command
// then). Call it before Run.
func (r *Recorder) SetCloseWarnings(f func() []trace.Warning) { r.cfg.CloseWarnings = f }
