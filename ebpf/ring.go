package ebpf

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/internal/duration"
	"github.com/traceview/traceview/trace"
)

// RingConfig configures a flight recorder (record --ring): the capture
// keeps its last records in memory, compressed, and writes them as a
// normal trace file when a dump is triggered.
type RingConfig struct {
	// Bytes bounds the compressed records held (0: DefaultRingBytes).
	Bytes int64
	// Span is how much trace time before a trigger a dump holds: older
	// batches are dropped (0: bounded by Bytes alone).
	Span time.Duration
	// Post is how long the capture goes on after a trigger before the
	// dump is written (record --post).
	Post time.Duration
	// Trigger, when set, dumps on a scheduling delay that passes it,
	// evaluated on the events as they arrive: the first, then the first
	// at least max(Span, Post, 1 s) after the one before.
	Trigger *DelayTrigger
	// Requests are dump requests from outside (signals, the control
	// socket); each is answered on its Done channel, if any, once its dump
	// is written.
	Requests <-chan DumpRequest
}

// DefaultRingBytes bounds the ring when --ring gives a duration: 32 MiB of
// zstd-compressed records (about 8 bytes a record measured on this
// machine's perf bench sched messaging: some 4 million records) keeps the
// recorder's memory under 100 MiB together with the drain's batches, the
// perf buffers and the binary.
const DefaultRingBytes = 32 << 20

// DumpRequest asks a ring for a dump.
type DumpRequest struct {
	Reason string
	// Done, if set, receives the dump's file name or error (buffered by
	// the sender: the ring never blocks on it).
	Done chan<- DumpResult
}

// DumpResult is a written dump.
type DumpResult struct {
	Path string
	Err  error
}

// DelayTrigger fires on one scheduling delay (wakeup or preemption to the
// next switch-in, as perf sched latency and traceview top measure it)
// longer than Threshold, of a task named Comm and/or in cgroup Cgroup or
// V1Path when set.
type DelayTrigger struct {
	Threshold time.Duration
	Comm      string
	Cgroup    uint64 // cgroup v2 id (the directory's inode), 0: any
	// V1Path is the group's path in the cgroup v1 cpu hierarchy (relative
	// to its mount, as record's group table names it) when it has one
	// there: where a cpu.shares or quota acts on a v1 machine, and which
	// the events' v2 ids do not name. A task is in it when the recorder's
	// reading of the v1 tasks files (v1Sampler) puts it there.
	V1Path     string
	CgroupPath string // as given, for messages
}

// ParseTrigger parses record --trigger: "delay>DURATION" optionally
// followed by ",comm=NAME" and/or ",cgroup=PATH". PATH is a cgroup path
// relative to the hierarchy's root (e.g. /system.slice/x.service): the
// group of that path in the cgroup2 mount root (resolved to its id now),
// and in the cgroup v1 cpu mount v1cpu ("" none); a task in either
// matches. Errors say what is wrong in one line.
func ParseTrigger(s, root, v1cpu string) (*DelayTrigger, error) {
	parts := strings.Split(s, ",")
	d, ok := strings.CutPrefix(strings.TrimSpace(parts[0]), "delay>")
	if !ok {
		return nil, fmt.Errorf("trigger %q: want delay>DURATION[,comm=NAME][,cgroup=PATH], e.g. delay>20ms,comm=nginx", s)
	}
	th, err := duration.Parse(d)
	if err != nil || th <= 0 {
		return nil, fmt.Errorf("trigger %q: bad delay %q (want e.g. 20ms)", s, d)
	}
	t := &DelayTrigger{Threshold: th}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch {
		case k == "comm" && v != "":
			t.Comm = v
		case k == "cgroup" && v != "":
			if err := t.setCgroup(v, root, v1cpu); err != nil {
				return nil, fmt.Errorf("trigger %q: %w", s, err)
			}
		default:
			return nil, fmt.Errorf("trigger %q: unknown condition %q (want comm=NAME or cgroup=PATH)", s, p)
		}
	}
	return t, nil
}

// setCgroup resolves --trigger's cgroup=v in the cgroup2 mount root and in
// the v1 cpu mount v1cpu.
func (t *DelayTrigger) setCgroup(v, root, v1cpu string) error {
	t.CgroupPath = v
	rel := filepath.Clean("/" + v)
	if st, err := os.Stat(filepath.Join(root, rel)); err == nil && st.IsDir() {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			t.Cgroup = sys.Ino
		}
	}
	if v1cpu != "" {
		if st, err := os.Stat(filepath.Join(v1cpu, rel)); err == nil && st.IsDir() {
			t.V1Path = rel
		}
	}
	if t.Cgroup == 0 && t.V1Path == "" {
		where := root + " (cgroup2)"
		if v1cpu != "" {
			where += " or " + v1cpu + " (cgroup v1 cpu)"
		}
		return fmt.Errorf("cgroup %s: no such group under %s", v, where)
	}
	return nil
}

// delayWatch follows the events of a capture in time order and reports the
// delays that pass a trigger.
type delayWatch struct {
	t      *DelayTrigger
	v1     *v1Sampler           // the recorder's v1 cpu groups, for t.V1Path (nil: none)
	since  map[trace.TID]int64  // runnable since (a wakeup, or a switch-out while runnable)
	cgroup map[trace.TID]uint64 // each task's cgroup, from its last switch-out
	// waking: the capture has sched_waking, which then starts delays and
	// its sched_wakeup (with Options.Wakeups) does not, as in the latency
	// report (report.WakeupsAuto).
	waking bool
}

func newDelayWatch(t *DelayTrigger, v1 *v1Sampler) *delayWatch {
	return &delayWatch{t: t, v1: v1, since: map[trace.TID]int64{}, cgroup: map[trace.TID]uint64{}}
}

// event takes the next event and returns the delay it ends when that delay
// passes the trigger (0 otherwise).
func (d *delayWatch) event(e *trace.Event) int64 {
	switch e.Kind {
	case trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew:
		if e.Kind == trace.KindWaking {
			d.waking = true
		} else if e.Kind == trace.KindWakeup && d.waking {
			break
		}
		if _, ok := d.since[e.TID]; !ok {
			d.since[e.TID] = e.Time
		}
	case trace.KindExit:
		delete(d.since, e.TID)
		delete(d.cgroup, e.TID)
	case trace.KindSwitch:
		if e.TID > 0 {
			d.cgroup[e.TID] = e.Cgroup
			if e.PrevState == trace.StateRunning || e.PrevState == trace.StatePreempted {
				d.since[e.TID] = e.Time
			} else {
				delete(d.since, e.TID)
			}
		}
		if e.NextTID <= 0 {
			return 0
		}
		t0, ok := d.since[e.NextTID]
		if !ok {
			return 0
		}
		delete(d.since, e.NextTID)
		delay := e.Time - t0
		if delay <= int64(d.t.Threshold) || (d.t.Comm != "" && e.NextComm != d.t.Comm) || !d.inGroup(e) {
			return 0
		}
		return delay
	}
	return 0
}

// inGroup reports whether the task switch e brings in is in the trigger's
// cgroup (true when it names none): by the v2 id of its last switch-out,
// or by the v1 cpu group the recorder's readings put it in at e.
func (d *delayWatch) inGroup(e *trace.Event) bool {
	if d.t.Cgroup == 0 && d.t.V1Path == "" {
		return true
	}
	if d.t.Cgroup != 0 && d.cgroup[e.NextTID] == d.t.Cgroup {
		return true
	}
	if d.t.V1Path == "" || d.v1 == nil {
		return false
	}
	d.v1.awaitReading(e.Time)
	return d.v1.group(e.NextTID, e.NextPID, e.Time) == d.t.V1Path
}

// ringEntry is one batch held by the ring: encoded as the backlog encodes
// it (spill.go) and zstd-compressed; last is the time of its newest record
// (or its watermark).
type ringEntry struct {
	data []byte
	last int64
	wm   int64 // the batch's watermark, moved on by the empty passes after it
	// tasks are the batch's task records, uncompressed: when the entry is
	// dropped they go into the ring's base decoder, so that a dump knows
	// the tasks its first records name (sched.c writes a task record only
	// when a CPU's records have not said what it holds).
	tasks []byte
}

// runRing runs the flight recorder: every batch goes into the ring
// (evicting the oldest beyond the bounds); a trigger, signal or socket
// request schedules a dump Post later; dumps are decoded and written by a
// goroutine of their own from a copy of the ring, so the drain goes on.
func (r *Recorder) runRing(ctx context.Context) error {
	rc := r.cfg.Ring
	limit := rc.Bytes
	if limit <= 0 {
		limit = DefaultRingBytes
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return err
	}
	defer enc.Close()
	var (
		entries []ringEntry
		held    int64
		raw     []byte
		watch   *delayWatch
		live    *assembler
		// base knows the tasks as the oldest entry's records begin.
		base = newDecoder(r.c.classic, r.c.opts.Stacks)
		// The pending dump: due is the time (CLOCK_MONOTONIC ns) it is
		// written at, at its trigger time plus Post.
		pending bool
		trigAt  int64
		due     int64
		reasons []string
		waiting []chan<- DumpResult
		dumps   sync.WaitGroup
		dumpMu  sync.Mutex // one dump at a time, in order
		dumpErr error
		nDump   int
		short   bool // the ring dropped data the pending dump wanted
		// quietUntil: delays that end before it do not trigger.
		quietUntil int64
		// released: the delay watch has seen every event before it (the
		// live assembler's last watermark less ReorderWindow).
		released int64
	)
	if rc.Trigger != nil {
		watch = newDelayWatch(rc.Trigger, r.v1)
		live = &assembler{dec: newDecoder(r.c.classic, r.c.opts.Stacks)}
	}
	stopKicks := make(chan struct{})
	defer close(stopKicks)
	go r.kickEvery(ringKickPeriod(rc.Span), stopKicks)
	trigger := func(at int64, reason string, done chan<- DumpResult) {
		if done != nil {
			waiting = append(waiting, done)
		}
		if pending {
			reasons = append(reasons, reason)
			return
		}
		pending, trigAt, due, reasons, short = true, at, at+int64(rc.Post), []string{reason}, false
	}
	startDump := func() {
		held := append([]ringEntry(nil), entries...)
		dec := base.cloneTasks()
		why := append([]string(nil), reasons...)
		if short {
			why = append(why, fmt.Sprintf("the ring's %d MiB bound dropped part of the %v before the trigger", limit>>20, rc.Span))
		}
		answer := waiting
		pending, reasons, waiting = false, nil, nil
		nDump++
		path := NumberedPath(r.cfg.Path, nDump)
		dumps.Add(1)
		go func() {
			defer dumps.Done()
			dumpMu.Lock()
			defer dumpMu.Unlock()
			err := r.writeDump(path, dec, held, why)
			if err != nil && dumpErr == nil {
				dumpErr = err
			}
			for _, d := range answer {
				select {
				case d <- DumpResult{Path: path, Err: err}:
				default:
				}
			}
		}()
	}
	consume := func(b *batch) (bool, error) {
		if r.aborted() {
			return false, ErrAborted
		}
		for {
			select {
			case q := <-rc.Requests:
				now := monotonicNow()
				trigger(now, fmt.Sprintf("%s at %s", q.Reason, trace.FormatSeconds(now, 9)+" s"), q.Done)
				continue
			default:
			}
			break
		}
		if watch != nil {
			err := live.batch(b, func(e trace.Event) error {
				if d := watch.event(&e); d > 0 && !pending && e.Time >= quietUntil {
					// One delay dump per Span (or Post) at most: a storm
					// of long delays would otherwise write a dump after
					// another, each holding much of the one before.
					quietUntil = e.Time + max(int64(rc.Span), int64(rc.Post), int64(time.Second))
					msg := fmt.Sprintf("trigger: delay %.3f ms of %s:%d (> %v) ending at %s", float64(d)/1e6, e.NextComm, e.NextTID, rc.Trigger.Threshold, trace.FormatSeconds(e.Time, 9)+" s")
					trigger(e.Time, msg, nil)
				}
				return nil
			})
			if err != nil {
				return false, err
			}
		}
		if len(b.recs) == 0 && len(b.losses) == 0 {
			// A pass that found nothing: its watermark moves the last
			// entry's (every record before it is in that entry or earlier).
			if n := len(entries); n > 0 && b.watermark > 0 {
				entries[n-1].wm = b.watermark
			}
		} else {
			raw = encodeBatch(raw[:0], b)
			e := ringEntry{data: enc.EncodeAll(raw, nil), last: b.watermark, wm: b.watermark}
			for i := 0; ; {
				n, ts := base.next(b.recs[i:])
				if n == 0 {
					break
				}
				if b.recs[i+offKind] == kindTask {
					e.tasks = append(e.tasks, b.recs[i:i+n]...)
				}
				e.last = max(e.last, ts)
				i += n
			}
			entries = append(entries, e)
			held += int64(len(e.data))
		}
		if watch != nil && b.watermark > 0 {
			released = max(released, b.watermark-ReorderWindow)
		}
		newest := int64(0)
		if n := len(entries); n > 0 {
			newest = entries[n-1].last
		}
		ref := spanRef(newest, released, watch != nil, pending, trigAt)
		for len(entries) > 1 {
			old := entries[0]
			overSize := held > limit
			overTime := rc.Span > 0 && old.last < ref-int64(rc.Span)
			if !overSize && !overTime {
				break
			}
			if overSize && !overTime && pending {
				short = true
			}
			held -= int64(len(old.data))
			for i := 0; i+TaskRecordSize <= len(old.tasks); i += TaskRecordSize {
				base.apply(old.tasks[i : i+TaskRecordSize])
			}
			entries[0] = ringEntry{}
			entries = entries[1:]
			r.sum.Evicted++
		}
		if pending && b.watermark > 0 && b.watermark >= due+ReorderWindow {
			startDump()
		}
		return false, nil
	}
	err = r.c.runRaw(ctx, false, newSlab(0, batchBytes), consume)
	if err == nil && pending {
		startDump() // stopped before Post was over: dump what there is
	}
	dumps.Wait()
	r.sum.Dumps = nDump
	if err == nil {
		err = dumpErr
	}
	return err
}

// spanRef is the time a ring's Span is counted back from when it evicts:
// the pending dump's trigger; else, with a delay trigger, the time up to
// which the watch has seen the events (released), as a delay that ends
// after it may still trigger and want the Span before it; else the newest
// record (a request's trigger is stamped when it is taken, after every
// record held). A drain starved for a while under load reads one CPU's
// records up to the present (a sparse ring is read whole in its first
// batch) while another CPU's wait to be read: the newest record can then be
// most of a second past what the watch has released, and counted from it
// a delay ending there found only part of its Span left in the ring (seen
// as TestRecordRing's dump 3 holding 0.27 s of its 1 s).
func spanRef(newest, released int64, watching, pending bool, trigAt int64) int64 {
	switch {
	case pending:
		return trigAt
	case watching:
		return min(newest, released)
	}
	return newest
}

// encodeBatch appends b encoded as the backlog stores batches (spill.go).
func encodeBatch(dst []byte, b *batch) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(len(b.recs)))
	dst = le.AppendUint32(dst, uint32(len(b.losses)))
	dst = le.AppendUint64(dst, uint64(b.watermark))
	for _, l := range b.losses {
		dst = le.AppendUint32(dst, uint32(l.CPU))
		dst = le.AppendUint32(dst, uint32(l.At))
		dst = le.AppendUint64(dst, l.N)
		dst = le.AppendUint64(dst, uint64(l.Noticed))
	}
	return append(dst, b.recs...)
}

// decodeBatch fills b from an encoding of encodeBatch, reusing b's slices.
func decodeBatch(e []byte, b *batch) error {
	if len(e) < batchHeaderSize {
		return errors.New("backlog: short batch")
	}
	le := binary.LittleEndian
	nrec, nloss := int(le.Uint32(e)), int(le.Uint32(e[4:]))
	if len(e) != batchHeaderSize+nloss*lossSize+nrec {
		return errors.New("backlog: batch of the wrong size")
	}
	b.reset()
	b.watermark = int64(le.Uint64(e[8:]))
	p := e[batchHeaderSize:]
	for range nloss {
		b.losses = append(b.losses, lossReport{
			CPU: trace.CPU(int32(le.Uint32(p))), At: int(le.Uint32(p[4:])),
			N: le.Uint64(p[8:]), Noticed: int64(le.Uint64(p[16:])),
		})
		p = p[lossSize:]
	}
	b.recs = append(b.recs, p[:nrec]...)
	return nil
}

// writeDump decodes the ring's entries into a trace file at path, with
// base, a decoder that knows the tasks as the first entry begins; the
// reasons it was written go into its warnings (key "ring-dump").
func (r *Recorder) writeDump(path string, base *decoder, entries []ringEntry, reasons []string) error {
	h := r.cfg.Header
	h.Tool += " --ring"
	seg, err := r.openSegment(path, h)
	if err != nil {
		return err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	as := assembler{dec: base}
	var b batch
	var raw []byte
	for _, e := range entries {
		if raw, err = dec.DecodeAll(e.data, raw[:0]); err == nil {
			err = decodeBatch(raw, &b)
		}
		if err != nil {
			break
		}
		b.watermark = e.wm
		if err = as.batch(&b, seg.write); err != nil {
			break
		}
	}
	if err == nil {
		err = as.finish(seg.write)
	}
	var ws []trace.Warning
	for _, why := range reasons {
		ws = append(ws, trace.Warning{Key: "ring-dump", Count: 1, Message: "flight-recorder dump: " + why})
	}
	seg.warnings = ws
	if cerr := r.closeSegment(seg, nil); err == nil {
		err = cerr
	}
	return err
}

// ServeControl answers requests on a control socket (record --control):
// each connection that sends the line "dump" gets a dump and the line
// "wrote PATH" (or "error: ...") once it is written. It returns when ln is
// closed.
func ServeControl(ln net.Listener, reqs chan<- DumpRequest) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Minute))
			line, _ := bufio.NewReader(io.LimitReader(c, 256)).ReadString('\n')
			if line = strings.TrimSpace(line); line != "dump" {
				fmt.Fprintf(c, "error: unknown request %s (send \"dump\")\n", strconv.Quote(line))
				return
			}
			done := make(chan DumpResult, 1)
			select {
			case reqs <- DumpRequest{Reason: "request on the control socket", Done: done}:
			case <-time.After(time.Minute):
				fmt.Fprintf(c, "error: the recorder did not take the request\n")
				return
			}
			select {
			case res := <-done:
				if res.Err != nil {
					fmt.Fprintf(c, "error: %v\n", res.Err)
					return
				}
				fmt.Fprintf(c, "wrote %s\n", res.Path)
			case <-time.After(time.Minute):
				fmt.Fprintf(c, "error: no dump within a minute\n")
			}
		}()
	}
}

// ringKickPeriod is how often a flight recorder makes every CPU switch
// (kickCPUs): half its span, so that the span a dump holds has a kick of
// every CPU, or, for a ring bounded by size alone, every second (chosen:
// two switches per CPU a second cost nothing measurable, and a dump of
// the default 32 MiB holds seconds at least); never more often than every
// 10 ms (chosen: a tiny --ring span must not turn the kicks into load).
func ringKickPeriod(span time.Duration) time.Duration {
	if span > 0 {
		return max(span/2, 10*time.Millisecond)
	}
	return time.Second
}

// kickAtCuts kicks every recorded CPU at t0 + k × period (k = 1, 2, ...;
// CLOCK_MONOTONIC ns), the --rotate series' cuts (Recorder.Run), until stop
// is closed.
func (r *Recorder) kickAtCuts(t0 int64, period time.Duration, stop <-chan struct{}) {
	for k := int64(1); ; k++ {
		at := t0 + k*int64(period)
		if d := at - monotonicNow(); d > 0 {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(d)):
			}
		}
		for monotonicNow() < at { // (a timer may fire a little early)
			time.Sleep(time.Duration(at - monotonicNow()))
		}
		kickCPUs(r.c.opts.CPUs)
	}
}

// kickEvery kicks every recorded CPU at once and then every period until
// stop is closed.
func (r *Recorder) kickEvery(period time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		kickCPUs(r.c.opts.CPUs)
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
